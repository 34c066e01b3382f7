#include "gemm/planner.hpp"

#include "devices.hpp"
#include "os_library.hpp"

#include <algorithm>
#include <initializer_list>

namespace mqlcl::gemm {

namespace {

int64_t param(const Params &params, const char *name) {
  auto found = params.find(name);
  return found != params.end() ? found->second : 0;
}

size_t ceil_div(size_t value, size_t divisor) {
  return (value + divisor - 1) / divisor;
}

// Step 13's local tiles: two buffers of BK x (BM + PAD) and two of BK x (BN + PAD) elements.
uint64_t tiles_local_bytes(const Params &p, size_t element_size) {
  uint64_t rows = uint64_t(param(p, "BM")) + param(p, "BN") + 2 * param(p, "PAD");
  return 2 * uint64_t(param(p, "BK")) * rows * element_size;
}

uint64_t tiles_threads(const Params &p) {
  return uint64_t(param(p, "BM") / param(p, "TM")) * uint64_t(param(p, "BN") / param(p, "TN"));
}

// Every size the kernel divides by is there and positive (a tuning cache is the user's file).
bool all_positive(const Params &p, std::initializer_list<const char *> names) {
  return std::all_of(names.begin(), names.end(),
                     [&](const char *name) { return param(p, name) > 0; });
}

// The code forms the kernel builds (its #error lines): FMA_ORDER 0, 2 or 3, POINTERS only with
// GATHER. A tuning cache from before FMA_ORDER=1 and POINTERS without GATHER were taken out may
// still name them.
bool tiles_form_builds(const Params &p) {
  const int64_t order = param(p, "FMA_ORDER");
  return (order == 0 || order == 2 || order == 3) &&
         (param(p, "POINTERS") == 0 || param(p, "GATHER") != 0);
}

bool tiles_fit(const Device &device, const Params &p, size_t element_size) {
  if (!all_positive(p, {"BM", "BN", "BK", "TM", "TN"}) || p.count("PAD") == 0 ||
      param(p, "BM") % param(p, "TM") != 0 || param(p, "BN") % param(p, "TN") != 0 ||
      !tiles_form_builds(p))
    return false;
  return tiles_threads(p) <= device.max_work_group_size &&
         tiles_local_bytes(p, element_size) <= device.kernel_local_mem_size;
}

// Step 13's catalogue defaults; 64 x 64 tiles where 128 x 128 ones would leave compute units
// idle, and 8-deep slices for double, whose 16-deep tiles need 66 KiB of local memory (more than
// most devices offer; a device that has it finds its double sets in the database).
Params tiles_defaults(const Device &device, const Shape &shape) {
  Params p{{"BM", 128},   {"BN", 128},    {"BK", 16},       {"TM", 8},        {"TN", 8},
           {"PAD", 4},    {"GROUP_M", 8}, {"WARP_ROWS", 2}, {"FMA_ORDER", 0}, {"POINTERS", 0},
           {"GATHER", 0}, {"CARRY", 0},   {"ROTATE_A", 0},  {"ROTATE_B", 0},  {"PAIRED_LANES", 0}};
  if (shape.element_size == 8)
    p["BK"] = 8;
  uint64_t tiles = ceil_div(shape.m, 128) * ceil_div(shape.n, 128) * shape.batch;
  if (tiles < 2ull * device.compute_units || !tiles_fit(device, p, shape.element_size)) {
    p["BM"] = p["BN"] = 64;
    p["WARP_ROWS"] = 4;
  }
  return p;
}

// Step 14's CPU form, as the replay's defaults.
Params registers_defaults() {
  return {{"RM", 4}, {"RN", 4}, {"VK", 16}, {"LX", 16}, {"LY", 4}};
}

// Step 18's defaults (the catalogue's, measured on an H100 at 4096): TF32 through TF32-typed maps
// in 64 x 256 tiles of 32-deep slices, one stage; 3xTF32 with A through an FP32 map, split in
// registers, and B split and tiled by the pass, 64 x 128 tiles of 16-deep slices in two stages,
// sums flushed every 8 slices.
Params tensor_defaults(Family family) {
  if (family == Family::tensor_tf32)
    return {{"TMA", 2}, {"MODE", 1},   {"BM", 64},      {"BN", 256},
            {"BK", 32}, {"STAGES", 1}, {"INFLIGHT", 0}, {"GROUP_M", 64}};
  return {{"TMA", 1},    {"MODE", 3},     {"PARTS", 2}, {"BM", 64},    {"BN", 128},    {"BK", 16},
          {"STAGES", 2}, {"INFLIGHT", 0}, {"FLUSH", 8}, {"A_REGS", 0}, {"GROUP_M", 64}};
}

// The kernel's own rules for the tensor-map product (its #error lines) and the device's local
// memory, so that a user's tuning cache can name no set that cannot build.
bool tensor_fits(const Device &device, const Params &p, Family family) {
  const bool three = family == Family::tensor_3xtf32;
  const int64_t bm = param(p, "BM"), bn = param(p, "BN"), bk = param(p, "BK");
  const int64_t stages = param(p, "STAGES");
  if (param(p, "TMA") != (three ? 1 : 2) || param(p, "MODE") != (three ? 3 : 1) ||
      (three && (param(p, "PARTS") != 2 || param(p, "FLUSH") < 1 || bn > 128 ||
                 param(p, "INFLIGHT") != 0)) ||
      bm < 64 || bm % 64 != 0 || (bn != 64 && bn != 128 && bn != 256) || (bk != 16 && bk != 32) ||
      stages < 1 || param(p, "INFLIGHT") < 0 || param(p, "INFLIGHT") >= stages ||
      param(p, "GROUP_M") < 1)
    return false;
  const uint64_t tile_b = three ? uint64_t(bn) * 16 * (bk / 8) : uint64_t(bn) * bk;
  const uint64_t local = uint64_t(stages) * (uint64_t(bm) * bk + tile_b) * 4 + 8 * stages;
  return local <= device.kernel_local_mem_size && uint64_t(bm) * 2 <= device.max_work_group_size;
}

bool is_tensor(Family family) {
  return family == Family::tensor_tf32 || family == Family::tensor_3xtf32;
}

void set_launch(Plan &plan, const Shape &shape) {
  const Params &p = plan.params;
  if (is_tensor(plan.family)) { // a warpgroup of 128 work-items per 64 rows of a tile
    size_t threads = param(p, "BM") * 2;
    plan.copy_k_down_operands = true;
    plan.dimensions = 2;
    plan.global = {ceil_div(shape.m, param(p, "BM")) * ceil_div(shape.n, param(p, "BN")) * threads,
                   shape.batch, 1};
    plan.local = {threads, 1, 1};
    return;
  }
  const auto copy = p.find(kCopyParam);
  plan.copy_k_down_operands =
      plan.family == Family::registers ||
      (copy != p.end()
           ? copy->second != 0
           : double(shape.m) * shape.n * shape.k * shape.batch >= kCopyFromMultiplyAdds);
  if (plan.family == Family::tiles) {
    size_t threads = tiles_threads(p);
    plan.dimensions = 2;
    plan.global = {ceil_div(shape.m, param(p, "BM")) * ceil_div(shape.n, param(p, "BN")) * threads,
                   shape.batch, 1};
    plan.local = {threads, 1, 1};
  } else {
    size_t lx = param(p, "LX"), ly = param(p, "LY");
    plan.dimensions = 3;
    plan.global = {ceil_div(ceil_div(shape.n, param(p, "RN")), lx) * lx,
                   ceil_div(ceil_div(shape.m, param(p, "RM")), ly) * ly, shape.batch};
    plan.local = {lx, ly, 1};
  }
}

bool registers_fit(const Device &device, const Params &p) {
  return all_positive(p, {"RM", "RN", "VK", "LX", "LY"}) &&
         uint64_t(param(p, "LX")) * param(p, "LY") <= device.max_work_group_size;
}

} // namespace

const char *kernel_file_of(Family family) {
  if (is_tensor(family))
    return "matr_mul_wgmma_tf32.cl";
  return family == Family::tiles ? "matr_mul_double_buffered.cl" : "matr_mul_tuned.cl";
}

Plan tensor_plan(const Device &device, const Shape &shape, Family family,
                 const std::optional<Tuned> &tuned) {
  Plan plan;
  plan.family = family;
  plan.origin = "defaults";
  plan.params = tensor_defaults(family);
  if (tuned && tuned->entry.kernel_file == kernel_file_of(family) &&
      tensor_fits(device, tuned->entry.params, family)) {
    plan.origin = tuned->origin;
    plan.params = tuned->entry.params;
  }
  set_launch(plan, shape);
  return plan;
}

std::string plan_text(const Plan &plan) {
  std::string text = kernel_file_of(plan.family);
  for (const auto &[name, value] : plan.params)
    text += " " + name + "=" + std::to_string(value);
  if (plan.index64)
    text += " INDEX64=1";
  return text + " (" + plan.origin + ")";
}

std::optional<Family> forced_family() {
  std::string chosen = os::environment("MQLCL_GEMM_KERNEL");
  if (chosen == "tiles")
    return Family::tiles;
  if (chosen == "registers")
    return Family::registers;
  return std::nullopt;
}

Plan default_plan(const Device &device, const Shape &shape, std::optional<Family> forced) {
  Plan plan;
  plan.origin = "defaults";
  plan.params = tiles_defaults(device, shape);
  bool tiles = forced ? *forced == Family::tiles : device.dedicated_local_memory;
  plan.family = tiles && tiles_fit(device, plan.params, shape.element_size) ? Family::tiles
                                                                            : Family::registers;
  if (plan.family == Family::registers) {
    plan.params = registers_defaults();
    if (!registers_fit(device, plan.params))
      plan.params["LX"] = plan.params["LY"] = 1;
  }
  set_launch(plan, shape);
  return plan;
}

Plan plan_product(const Device &device, const Shape &shape, const std::optional<Tuned> &tuned,
                  std::optional<Family> forced) {
  if (!tuned || (forced && tuned->entry.kernel_file != kernel_file_of(*forced)))
    return default_plan(device, shape, forced);
  Plan plan;
  plan.origin = tuned->origin;
  plan.params = tuned->entry.params;
  if (tuned->entry.kernel_file == kernel_file_of(Family::tiles) &&
      tiles_fit(device, plan.params, shape.element_size))
    plan.family = Family::tiles;
  else if (tuned->entry.kernel_file == kernel_file_of(Family::registers) &&
           registers_fit(device, plan.params))
    plan.family = Family::registers;
  else
    return default_plan(device, shape, forced);
  set_launch(plan, shape);
  return plan;
}

} // namespace mqlcl::gemm
