#include "catalogue.hpp"

#include "error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace mqlcl::replay {

const char *dim_name(Dim dim) {
  switch (dim) {
  case Dim::rows1:
    return "ROWS1";
  case Dim::colsrows:
    return "COLSROWS";
  case Dim::cols2:
    return "COLS2";
  }
  return "?";
}

uint32_t size_of(const Sizes &sizes, Dim dim) {
  switch (dim) {
  case Dim::rows1:
    return sizes.rows1;
  case Dim::colsrows:
    return sizes.colsrows;
  case Dim::cols2:
    return sizes.cols2;
  }
  return 0;
}

const char *input_rounding_name(InputRounding rounding) {
  switch (rounding) {
  case InputRounding::none:
    return "none";
  case InputRounding::nearest_away:
    return "to nearest, ties away from zero";
  case InputRounding::nearest:
    return "to nearest, ties either way";
  case InputRounding::truncated:
    return "toward zero";
  }
  return "?";
}

const char *layout_name(Layout layout) {
  return layout == Layout::row_major ? "row-major" : "column-major";
}

bool param_may_be_zero(std::string_view name) {
  for (std::string_view off :
       {"INFLIGHT", "ROUND", "PARTS", "FLUSH", "PAD", "FMA_ORDER", "POINTERS", "GATHER", "CARRY",
        "ROTATE_A", "ROTATE_B", "PAIRED_LANES", "LEAVE_OUT"})
    if (name == off)
      return true;
  return false;
}

namespace {

// --local for a launch of `dims` dimensions over `global`: checked, or all zero when not given.
std::array<uint32_t, 3> requested_local(const GeometryInput &input, uint32_t dims,
                                        const std::array<uint32_t, 3> &global, const char *range) {
  std::array<uint32_t, 3> local{0, 0, 0};
  const std::vector<uint32_t> &wanted = input.requested_local;
  if (wanted.empty())
    return local;
  if (wanted.size() != dims)
    bad_input(fmt::format("it is launched over a {}-D range ({}), so --local takes {} value{}",
                          dims, range, dims, dims == 1 ? "" : "s (--local X,Y)"));
  uint64_t group = 1;
  for (uint32_t d = 0; d < dims; ++d) {
    if (wanted[d] == 0 || global[d] % wanted[d] != 0)
      bad_input(fmt::format("--local {} does not divide the global size {} of dimension {} ({}); "
                            "OpenCL 1.2 needs every local size to divide its global size",
                            wanted[d], global[d], d, range));
    if (wanted[d] > input.device.max_work_item_sizes[d])
      bad_input(fmt::format("--local {} exceeds the device's {} work-items in dimension {}",
                            wanted[d], input.device.max_work_item_sizes[d], d));
    local[d] = wanted[d];
    group *= wanted[d];
  }
  if (group > input.device.max_work_group_size)
    bad_input(fmt::format("a work-group of {} work-items exceeds the device's maximum of {}", group,
                          input.device.max_work_group_size));
  return local;
}

uint32_t round_up(uint32_t value, uint32_t multiple) {
  return multiple <= 1 ? value : (value + multiple - 1) / multiple * multiple;
}

int64_t param(const GeometryInput &input, const char *name) {
  auto it = input.params.find(name);
  if (it == input.params.end())
    bad_input(fmt::format("the step needs the parameter {} (--param {}=VALUE)", name, name));
  return it->second;
}

int64_t param_or(const Params &params, const char *name, int64_t fallback) {
  auto it = params.find(name);
  return it == params.end() ? fallback : it->second;
}

uint32_t ceil_div(uint32_t value, uint32_t divisor) {
  return (value + divisor - 1) / divisor;
}

// The steps beyond the article own their work-group shape; --local cannot change it.
void refuse_local(const GeometryInput &input) {
  if (!input.requested_local.empty())
    bad_input("this step's work-group shape follows from its tile parameters: change them with "
              "--param (mqlcl-replay --list shows them) instead of --local");
}

// Whether a tile configuration of the register-blocked kernels can build and run on `device`.
bool fits(const Params &p, const DeviceCaps &device, uint64_t local_bytes, uint64_t threads) {
  return threads >= 32 && threads % 32 == 0 && threads <= device.max_work_group_size &&
         threads <= device.max_work_item_sizes[0] && local_bytes <= device.local_mem_bytes &&
         param_or(p, "BM", 0) > 0;
}

bool register_tiles_valid(const Params &p, const DeviceCaps &device, uint64_t buffers) {
  int64_t bm = param_or(p, "BM", 0), bn = param_or(p, "BN", 0), bk = param_or(p, "BK", 0);
  int64_t tm = param_or(p, "TM", 0), tn = param_or(p, "TN", 0), pad = param_or(p, "PAD", 4);
  int64_t rows = param_or(p, "WARP_ROWS", 0); // step 13's warp shape; step 12 has none
  // PAD keeps every local row 16-byte aligned for the float4 accesses: a multiple of 4.
  if (bm <= 0 || bn <= 0 || bk <= 0 || tm <= 0 || tn <= 0 || bm % tm || bn % tn || tm % 4 ||
      tn % 4 || bk % 4 || pad < 0 || pad % 4)
    return false;
  int64_t threads_m = bm / tm, threads_n = bn / tn, threads = threads_m * threads_n;
  if ((bm * bk / 4) % threads || (bn * bk / 4) % threads)
    return false;
  if (rows != 0 && (rows > 32 || 32 % rows || threads_n % (32 / rows) || threads_m % rows))
    return false;
  uint64_t local = static_cast<uint64_t>(buffers * bk * (bm + pad + bn + pad) * 4);
  return fits(p, device, local, static_cast<uint64_t>(threads));
}

bool single_buffered_valid(const Params &p, const DeviceCaps &device) {
  return register_tiles_valid(p, device, 1);
}

bool double_buffered_valid(const Params &p, const DeviceCaps &device) {
  int64_t order = param_or(p, "FMA_ORDER", 0), pointers = param_or(p, "POINTERS", 0);
  int64_t gather = param_or(p, "GATHER", 0), carry = param_or(p, "CARRY", 0);
  int64_t rotate_a = param_or(p, "ROTATE_A", 0), rotate_b = param_or(p, "ROTATE_B", 0);
  int64_t paired = param_or(p, "PAIRED_LANES", 0), rows = param_or(p, "WARP_ROWS", 0);
  return order >= 0 && order <= 3 && (pointers == 0 || pointers == 1) &&
         (gather == 0 || gather == 1) && (carry == 0 || carry == 1) && rotate_a >= 0 &&
         rotate_a <= 3 && rotate_b >= 0 && rotate_b <= 3 &&
         (paired == 0 || (paired == 1 && rows >= 2 && rows <= 16)) &&
         register_tiles_valid(p, device, 2);
}

bool warp_tiles_valid(const Params &p, const DeviceCaps &device) {
  int64_t bm = param_or(p, "BM", 0), bn = param_or(p, "BN", 0), bk = param_or(p, "BK", 0);
  int64_t wm = param_or(p, "WM", 0), wn = param_or(p, "WN", 0), stages = param_or(p, "STAGES", 2);
  if (bm <= 0 || bn <= 0 || bk <= 0 || wm <= 0 || wn <= 0 || bm % wm || bn % wn || wm % 16 ||
      wn % 16 || bk % 8 || stages < 2 || stages > 4)
    return false;
  if (param_or(p, "FLUSH", 1) < 1) // matr_mul_tf32.cl always sums slices apart (wgmma's need not)
    return false;
  int64_t threads = (bm / wm) * (bn / wn) * 32;
  if ((bm * bk / 4) % threads || (bn * bk / 4) % threads)
    return false;
  uint64_t local = static_cast<uint64_t>(stages * (bm + bn) * bk * 4);
  return fits(p, device, local, static_cast<uint64_t>(threads));
}

// The wgmma kernel's rules (kernels/matr_mul_wgmma_tf32.cl): whole warpgroups, the wgmma's N, a
// swizzle for the slice depth, at most 4 slices copied ahead, square tiles for 3xTF32 (MODE 3),
// and the local memory it declares.
bool warpgroup_tiles_valid(const Params &p, const DeviceCaps &device) {
  int64_t bm = param_or(p, "BM", 0), bn = param_or(p, "BN", 0), bk = param_or(p, "BK", 0);
  int64_t stages = param_or(p, "STAGES", 3), inflight = param_or(p, "INFLIGHT", 0);
  int64_t mode = param_or(p, "MODE", 1), ahead = stages - 1 - inflight;
  int64_t parts = param_or(p, "PARTS", 0);
  if (param_or(p, "TILED", 0) != 0 || param_or(p, "A_REGS", 0) != 0 ||
      param_or(p, "TMA", 0) != 0) // steps 17 and 18's alone
    return false;
  if (bm <= 0 || bm % 64 || (bn != 64 && bn != 128 && bn != 256) ||
      (bk != 8 && bk != 16 && bk != 32) || inflight < 0 || inflight > 1 ||
      (mode != 1 && inflight != 0) || ahead < 1 || ahead > 4)
    return false;
  // Operands rounded beforehand (PARTS 1) are a form of plain TF32, in place of ROUND.
  if (parts < 0 || parts > 1 || (parts == 1 && (mode != 1 || param_or(p, "ROUND", 0) != 0)))
    return false;
  if (mode == 3 && (bm != bn || bm * (bn + 1) > stages * (bm + bn) * bk))
    return false; // C^T's block goes through the stages' local memory at the end
  int64_t threads = bm * 2;
  if ((bm * bk / 4) % threads || (bn * bk / 4) % threads)
    return false;
  uint64_t slices = static_cast<uint64_t>(stages + (mode == 2 ? 1 : 0)); // + the split slice
  return fits(p, device, slices * static_cast<uint64_t>((bm + bn) * bk * 4),
              static_cast<uint64_t>(threads));
}

// Steps 17 and 18 share one product (BULK in the kernel): whole warpgroups, the wgmma's N, at
// least `min_stages` stages of (BM + BN) rows of BK floats in local memory with an mbarrier each,
// and INFLIGHT 0 or 1, below STAGES.
// b_floats: floats of B's tile per value of K and line (2 where B holds heads and tails).
bool bulk_product_valid(const Params &p, const DeviceCaps &device, int64_t min_stages,
                        int64_t b_floats = 1) {
  int64_t bm = param_or(p, "BM", 0), bn = param_or(p, "BN", 0), bk = param_or(p, "BK", 0);
  int64_t stages = param_or(p, "STAGES", 0), inflight = param_or(p, "INFLIGHT", 0);
  if (bm <= 0 || bm % 64 || (bn != 64 && bn != 128 && bn != 256) || stages < min_stages ||
      inflight < 0 || inflight > 1 || inflight >= stages)
    return false;
  uint64_t local_bytes = static_cast<uint64_t>(stages * ((bm + b_floats * bn) * bk * 4 + 8));
  return fits(p, device, local_bytes, static_cast<uint64_t>(bm * 2));
}

// Step 17 (TILED 1): 64-byte tile rows, two stages or more; MODE 3 keeps two accumulators of
// BN / 2 floats per work-item, so BN = 256 would need more than 255 registers.
bool tiled_tiles_valid(const Params &p, const DeviceCaps &device) {
  int64_t bn = param_or(p, "BN", 0), mode = param_or(p, "MODE", 0), parts = param_or(p, "PARTS", 0);
  if (param_or(p, "TILED", 0) != 1 || param_or(p, "TMA", 0) != 0 || param_or(p, "BK", 0) != 16 ||
      param_or(p, "ROUND", 0) != 0)
    return false;
  if (!(mode == 1 && parts == 1) &&
      !(mode == 3 && parts == 2 && bn <= 128 && param_or(p, "FLUSH", 0) >= 1))
    return false;
  // A's fragments in registers (A_REGS): 3xTF32 only, with nothing in flight.
  int64_t a_regs = param_or(p, "A_REGS", 0);
  if (a_regs < 0 || a_regs > 1 || (a_regs == 1 && (mode != 3 || param_or(p, "INFLIGHT", 0) != 0)))
    return false;
  return bulk_product_valid(p, device, 2);
}

// Step 18 (TMA 1 or 2): step 17's product, its tiles copied through tensor maps, 16 or 32-deep
// slices, one stage or more: plain TF32 (MODE 1) with no pass (PARTS 0), or 3xTF32 (MODE 3) with
// A through an FP32 map (TMA 1) and B split by step 17's pass (PARTS 2), whose heads and tails
// take twice the local memory, with nothing in flight (A's fragments are in registers).
bool tensor_map_tiles_valid(const Params &p, const DeviceCaps &device) {
  int64_t tma = param_or(p, "TMA", 0), bk = param_or(p, "BK", 0), mode = param_or(p, "MODE", 0);
  int64_t parts = param_or(p, "PARTS", 0);
  if ((tma != 1 && tma != 2) || param_or(p, "TILED", 0) != 0 || param_or(p, "ROUND", 0) != 0 ||
      param_or(p, "A_REGS", 0) != 0 || (bk != 16 && bk != 32))
    return false;
  if (mode == 1 && parts == 0)
    return bulk_product_valid(p, device, 1);
  if (mode == 3 && parts == 2 && tma == 1 && param_or(p, "BN", 0) <= 128 &&
      param_or(p, "FLUSH", 0) >= 1 && param_or(p, "INFLIGHT", 0) == 0)
    return bulk_product_valid(p, device, 1, 2);
  return false;
}

bool register_blocks_valid(const Params &p, const DeviceCaps &device) {
  int64_t rm = param_or(p, "RM", 0), rn = param_or(p, "RN", 0), vk = param_or(p, "VK", 0);
  int64_t lx = param_or(p, "LX", 0), ly = param_or(p, "LY", 0);
  return rm > 0 && rn > 0 && (vk == 4 || vk == 8 || vk == 16) && lx > 0 && ly > 0 &&
         static_cast<uint64_t>(lx * ly) <= device.max_work_group_size;
}

uint64_t tile_bytes(const GeometryInput &input) {
  uint64_t blk = static_cast<uint64_t>(param(input, "BLK"));
  return blk * blk * input.element_size;
}

// Step 17's pass, tile_operand: 4 floats of a line per work-item, into tiles of BM lines of A and
// BN of B whose rows hold `slice` values of K.
OperandPass tiling_pass(uint32_t slice) {
  OperandPass pass;
  pass.kernel_name = "tile_operand";
  pass.group = 4;
  pass.block_param_a = "BM";
  pass.block_param_b = "BN";
  pass.slice = slice;
  return pass;
}

// Steps 11-18: what the article's conclusion left for later.
// Step 15's kernel: MODE 1 rounds both operands with tf32_operand (cvt.rna's integer form) and
// sums on the tensor cores; the split modes keep FP32 accuracy, flushing the tensor cores' sums
// into round-to-nearest FP32 additions.
Arithmetic tf32_arithmetic(const Params &p) {
  if (param_or(p, "MODE", 3) != 1)
    return {};
  return {InputRounding::nearest_away, true};
}

// Steps 16-18's kernel, MODE 1: rounded by round_to_tf32 (PARTS 1), in local memory (ROUND 1) or
// by tile_operand (TILED 1), all to nearest, ties away; by the copy engine through TF32-typed
// tensor maps (TMA 2), to nearest, but NVIDIA does not say which way it breaks ties; otherwise
// truncated by the tensor cores. The split modes sum on the tensor cores only with FLUSH 0.
Arithmetic wgmma_arithmetic(const Params &p) {
  if (param_or(p, "MODE", 1) != 1)
    return {InputRounding::none, param_or(p, "FLUSH", 4) == 0};
  if (param_or(p, "PARTS", 0) == 1 || param_or(p, "ROUND", 0) == 1 || param_or(p, "TILED", 0) == 1)
    return {InputRounding::nearest_away, true};
  if (param_or(p, "TMA", 0) == 2)
    return {InputRounding::nearest, true};
  return {InputRounding::truncated, true};
}

std::vector<Step> beyond_the_article() {
  std::vector<Step> steps;
  Step base;
  base.in_article = false;
  base.in_bench = true; // every step beyond the article is benched
  base.layout_b = Layout::column_major;

  Step tiled = base;
  tiled.name = "matr_mul_tiled_local";
  tiled.source = "beyond the article, step 11: the Hands-on OpenCL course's blocked kernel";
  tiled.change = "BLK x BLK tiles of both matrices shared in __local memory passed as kernel "
                 "arguments (CLSetKernelArgMemLocal); one work-item per element";
  tiled.kernel_file = "matr_mul_tiled_local.cl";
  tiled.geometry = blocks_2d;
  tiled.params = {{"BLK", 16}};
  tiled.args = {{KernelArg::Kind::matrix_a},
                {KernelArg::Kind::matrix_b},
                {KernelArg::Kind::matrix_c},
                {KernelArg::Kind::local_bytes, tile_bytes},
                {KernelArg::Kind::local_bytes, tile_bytes}};
  steps.push_back(tiled);

  Step blocked = base;
  blocked.name = "matr_mul_register_blocked";
  blocked.source = "beyond the article, step 12: 2-D register blocking";
  blocked.change = "each work-item accumulates a TM x TN block in registers from BK-deep slices "
                   "staged in local memory; float4 loads from global and local memory";
  blocked.kernel_file = "matr_mul_register_blocked.cl";
  blocked.geometry = tiles_1d;
  blocked.params = {{"BM", 128}, {"BN", 64}, {"BK", 16}, {"TM", 8}, {"TN", 8}, {"PAD", 4}};
  blocked.params_valid = single_buffered_valid;
  steps.push_back(blocked);

  Step doubled = blocked;
  doubled.name = "matr_mul_double_buffered";
  doubled.source = "beyond the article, step 13: double-buffered local memory";
  doubled.change = "two local buffers alternate: the next slice is loaded into registers while "
                   "this one is computed, so one barrier per slice hides global latency";
  doubled.kernel_file = "matr_mul_double_buffered.cl";
  doubled.params = {{"BM", 128},      {"BN", 128},     {"BK", 16},         {"TM", 8},
                    {"TN", 8},        {"PAD", 4},      {"GROUP_M", 8},     {"WARP_ROWS", 2},
                    {"FMA_ORDER", 0}, {"POINTERS", 0}, {"GATHER", 0},      {"CARRY", 0},
                    {"ROTATE_A", 0},  {"ROTATE_B", 0}, {"PAIRED_LANES", 0}};
  doubled.tunables = {{"BM", {64, 128, 256}}, {"BN", {64, 128, 256}}, {"BK", {8, 16}},
                      {"TM", {4, 8, 16}},     {"TN", {4, 8, 16}},     {"WARP_ROWS", {2, 4}}};
  // The code's form only: see the kernel's header comment.
  doubled.form_tunables = {
      {"FMA_ORDER", {0, 1, 2, 3}}, {"POINTERS", {0, 1}}, {"GATHER", {0, 1}}, {"CARRY", {0, 1}}};
  doubled.layout_tunables = {
      {"ROTATE_A", {0, 1, 2, 3}}, {"ROTATE_B", {0, 1, 2, 3}}, {"PAIRED_LANES", {0, 1}}};
  doubled.params_valid = double_buffered_valid;
  steps.push_back(doubled);

  Step tuned = base;
  tuned.name = "matr_mul_tuned";
  tuned.source = "beyond the article, step 14: tiles and launch geometry tuned per device";
  tuned.change = "`mqlcl-replay tune matr_mul_tuned` picks step 13's tiles, or this file's "
                 "register-blocked CPU form where local memory is part of global memory";
  tuned.kernel_file = "matr_mul_tuned.cl";
  tuned.geometry = register_blocks_2d;
  tuned.params = {{"RM", 4}, {"RN", 4}, {"VK", 16}, {"LX", 16}, {"LY", 4}};
  tuned.tunables = {
      {"RM", {2, 4}}, {"RN", {2, 4, 8}}, {"VK", {8, 16}}, {"LX", {8, 16, 64}}, {"LY", {1, 4, 8}}};
  tuned.params_valid = register_blocks_valid;
  tuned.float_only = true;
  tuned.tuning = DeviceTuning::families;
  steps.push_back(tuned);

  // Defaults measured on an H100 (docs/performance.md): 128 x 128 tiles in three stages for
  // TF32; 128 x 64 tiles with 32-deep slices for the split modes, whose conversions leave the
  // tensor cores waiting unless fewer barriers share out the slices.
  Step tf32 = base;
  tf32.name = "matr_mul_tf32";
  tf32.source = "beyond the article, step 15: NVIDIA tensor cores through inline PTX (TF32)";
  tf32.change = "mma.sync.m16n8k8 TF32 products, inputs rounded to 10 mantissa bits: relative "
                "errors near 1e-3, for users who accept them";
  tf32.kernel_file = "matr_mul_tf32.cl";
  tf32.geometry = warp_tiles_1d;
  tf32.params = {{"MODE", 1}, {"BM", 128}, {"BN", 128},   {"BK", 16},
                 {"WM", 64},  {"WN", 64},  {"STAGES", 3}, {"FLUSH", 4}};
  tf32.tunables = {{"BM", {64, 128, 256}}, {"BN", {64, 128, 256}}, {"BK", {16, 32}},
                   {"WM", {32, 64}},       {"WN", {32, 64}},       {"STAGES", {2, 3}}};
  tf32.params_valid = warp_tiles_valid;
  tf32.requirement = Requirement::nvidia_tensor_cores;
  tf32.arithmetic = tf32_arithmetic;
  tf32.float_only = true;
  tf32.tuning = DeviceTuning::cached;
  steps.push_back(tf32);

  Step tf32x3 = tf32;
  tf32x3.name = "matr_mul_3xtf32";
  tf32x3.source = "beyond the article, step 15: 3xTF32 on NVIDIA tensor cores, FP32 accuracy";
  tf32x3.change = "each input split into TF32 head and tail, three products per pair, slices "
                  "summed outside the tensor cores: FP32-level accuracy";
  tf32x3.variant_of = "matr_mul_tf32";
  tf32x3.params = {{"MODE", 3}, {"BM", 128}, {"BN", 64},    {"BK", 32},
                   {"WM", 32},  {"WN", 64},  {"STAGES", 2}, {"FLUSH", 4}};
  steps.push_back(tf32x3);

  Step bf16 = tf32x3;
  bf16.name = "matr_mul_tf32_bf16";
  bf16.source = "beyond the article, step 15: TF32 heads and BF16 corrections, FP32 accuracy";
  bf16.change = "3xTF32's split with the two small products as one BF16 product at twice the "
                "rate: two tensor-core products per pair, FP32-level accuracy";
  bf16.params = {{"MODE", 2}, {"BM", 128}, {"BN", 64},    {"BK", 32},
                 {"WM", 64},  {"WN", 32},  {"STAGES", 2}, {"FLUSH", 4}};
  steps.push_back(bf16);

  // Step 16: the same three products on Hopper's wgmma, which NVIDIA's OpenCL compiler reaches
  // only through the bridge's -mqlcl-nv-sm90a. Defaults tuned on an H100: 128 x 128 tiles in
  // three 16-deep stages for TF32 (224-238 TFLOP/s at 4096 through the bridge, against 163-164
  // with mma.sync); 64 x 64 tiles with 32-deep slices in two stages for the split modes.
  Step wgmma = base;
  wgmma.name = "matr_mul_wgmma_tf32";
  wgmma.source = "beyond the article, step 16: Hopper's wgmma through inline PTX (TF32)";
  wgmma.change = "warpgroup-wide wgmma.mma_async TF32 products read from swizzled local memory; "
                 "inputs truncated to 10 mantissa bits by the tensor cores (not rounded): "
                 "relative errors near 1e-3, about 3x rounded TF32's, for users who accept them";
  wgmma.kernel_file = "matr_mul_wgmma_tf32.cl";
  wgmma.geometry = warpgroup_tiles_1d;
  wgmma.params = {{"MODE", 1}, {"ROUND", 0},  {"BM", 128},     {"BN", 128},
                  {"BK", 16},  {"STAGES", 3}, {"INFLIGHT", 0}, {"GROUP_M", 8}};
  wgmma.tunables = {{"BM", {64, 128}},
                    {"BN", {64, 128, 256}},
                    {"BK", {8, 16, 32}},
                    {"STAGES", {2, 3, 4}},
                    {"INFLIGHT", {0, 1}}};
  wgmma.params_valid = warpgroup_tiles_valid;
  wgmma.requirement = Requirement::nvidia_wgmma;
  wgmma.build_options = "-mqlcl-nv-sm90a";
  wgmma.arithmetic = wgmma_arithmetic;
  wgmma.float_only = true;
  wgmma.tuning = DeviceTuning::cached;
  // With PARTS 1 a pass rounds both operands to TF32 before the product (the step below).
  wgmma.operand_pass = OperandPass{"round_to_tf32", 8, "PARTS", "", "", 0}; // not tiled
  steps.push_back(wgmma);

  Step rounded = wgmma;
  rounded.name = "matr_mul_wgmma_tf32_rounded";
  rounded.source = "beyond the article, step 16: wgmma TF32 with inputs rounded beforehand";
  rounded.change = "a pass before the product (timed with it) rounds both operands to TF32, "
                   "so the tensor cores multiply rounded inputs, as cuBLAS's TF32 mode does: "
                   "relative errors near 3e-4, not FP32 accuracy";
  rounded.variant_of = "matr_mul_wgmma_tf32";
  rounded.params["PARTS"] = 1;
  steps.push_back(rounded);

  Step wgmma3 = wgmma;
  wgmma3.name = "matr_mul_wgmma_3xtf32";
  wgmma3.source = "beyond the article, step 16: 3xTF32 on Hopper's wgmma, FP32 accuracy";
  wgmma3.change = "step 15's 3xTF32 split with the tails in registers (wgmma's register "
                  "operand), one of the small products computed transposed: FP32-level accuracy";
  wgmma3.variant_of = "matr_mul_wgmma_tf32";
  wgmma3.params = {{"MODE", 3},   {"BM", 64},      {"BN", 64},     {"BK", 32},
                   {"STAGES", 2}, {"INFLIGHT", 0}, {"GROUP_M", 8}, {"FLUSH", 4}};
  wgmma3.tunables = {{"BM", {64, 128}},
                     {"BN", {64, 128, 256}},
                     {"BK", {8, 16, 32}},
                     {"STAGES", {2, 3, 4}},
                     {"FLUSH", {2, 4}}};
  steps.push_back(wgmma3);

  Step wgmma2 = wgmma3;
  wgmma2.name = "matr_mul_wgmma_tf32_bf16";
  wgmma2.source = "beyond the article, step 16: TF32 heads and BF16 corrections on wgmma";
  wgmma2.change = "the TF32 + BF16 split on wgmma: one TF32 and one BF16 product per slice, "
                  "FP32-level accuracy";
  wgmma2.params = {{"MODE", 2},   {"BM", 64},      {"BN", 64},     {"BK", 32},
                   {"STAGES", 2}, {"INFLIGHT", 0}, {"GROUP_M", 8}, {"FLUSH", 4}};
  steps.push_back(wgmma2);

  // Step 17: a pass lays both operands out in the tiles the product reads, so each slice of a
  // tile is one bulk copy; defaults measured on an H100: 128 x 128 tiles in two stages for TF32,
  // 64 x 128 in three for 3xTF32, A's fragments in registers (two accumulators of 64 floats per
  // work-item: three work-groups per compute unit).
  Step bulk = wgmma;
  bulk.name = "matr_mul_wgmma_tiled_tf32";
  bulk.source = "beyond the article, step 17: wgmma on operands tiled beforehand (TF32)";
  bulk.change = "a pass (timed with the product) rounds both operands to TF32 and lays them out "
                "in the product's tiles; each slice of a tile is one bulk copy, awaited on an "
                "mbarrier: cuBLAS's TF32 errors, near 3e-4, not FP32 accuracy";
  bulk.variant_of = "matr_mul_wgmma_tf32";
  bulk.params = {{"TILED", 1}, {"MODE", 1},   {"PARTS", 1},    {"BM", 128},    {"BN", 128},
                 {"BK", 16},   {"STAGES", 2}, {"INFLIGHT", 0}, {"GROUP_M", 16}};
  bulk.tunables = {{"BM", {64, 128}},
                   {"BN", {64, 128, 256}},
                   {"STAGES", {2, 3, 4}},
                   {"INFLIGHT", {0, 1}},
                   {"GROUP_M", {8, 16, 32}}};
  bulk.params_valid = tiled_tiles_valid;
  bulk.operand_pass = tiling_pass(16); // 16 rounded values of K per tile row
  steps.push_back(bulk);

  Step bulk3 = bulk;
  bulk3.name = "matr_mul_wgmma_tiled_3xtf32";
  bulk3.source = "beyond the article, step 17: 3xTF32 on operands split and tiled beforehand";
  bulk3.change = "the pass splits both operands into TF32 heads and tails, 8 of each per tile "
                 "row; the three products of a slice all read the bulk copy: FP32-level accuracy";
  bulk3.params = {{"TILED", 1},    {"MODE", 3},   {"PARTS", 2},  {"BM", 64},
                  {"BN", 128},     {"BK", 16},    {"STAGES", 3}, {"INFLIGHT", 0},
                  {"GROUP_M", 32}, {"FLUSH", 16}, {"A_REGS", 1}};
  bulk3.tunables = {{"BM", {64, 128}},       {"BN", {64, 128}},  {"STAGES", {2, 3}},
                    {"INFLIGHT", {0, 1}},    {"FLUSH", {8, 16}}, {"A_REGS", {0, 1}},
                    {"GROUP_M", {8, 16, 32}}};
  bulk3.operand_pass = tiling_pass(8); // 8 heads and their 8 tails per tile row
  steps.push_back(bulk3);

  // Step 18: step 17's TF32 product with no pass: each slice of a tile is copied straight from A
  // and B by the copy engine, through tensor maps the bridge writes (CLBufferTensorMap), swizzled
  // as wgmma reads it. Maps typed TF32 (TMA 2) round the inputs on the way. Defaults measured on
  // an H100: 64 x 256 tiles of 128-byte rows (BK 32) in one stage, work-groups on a compute unit
  // taking turns, 64 block rows per group of the tile order.
  Step mapped = wgmma;
  mapped.name = "matr_mul_wgmma_tma_tf32";
  mapped.source = "beyond the article, step 18: wgmma on tiles copied through tensor maps (TF32)";
  mapped.change = "Hopper's copy engine reads each slice of a tile straight from A and B through "
                  "TF32-typed tensor maps (CLBufferTensorMap), rounding the inputs on the way: "
                  "no pass, no loads by the work-items; cuBLAS's TF32 errors, near 3e-4, not "
                  "FP32 accuracy";
  mapped.variant_of = "matr_mul_wgmma_tf32";
  mapped.params = {{"TMA", 2}, {"MODE", 1},   {"BM", 64},      {"BN", 256},
                   {"BK", 32}, {"STAGES", 1}, {"INFLIGHT", 0}, {"GROUP_M", 64}};
  mapped.tunables = {{"BM", {64, 128}},     {"BN", {64, 128, 256}}, {"BK", {16, 32}},
                     {"STAGES", {1, 2, 3}}, {"INFLIGHT", {0, 1}},   {"GROUP_M", {8, 16, 32, 64}}};
  mapped.params_valid = tensor_map_tiles_valid;
  mapped.args = {{KernelArg::Kind::matrix_a},
                 {KernelArg::Kind::matrix_b},
                 {KernelArg::Kind::matrix_c},
                 {KernelArg::Kind::tensor_maps}};
  mapped.padding.colsrows = 4; // a map's rows are whole 16-byte chunks
  mapped.operand_pass.reset();
  mapped.tensor_maps = TensorMaps{};
  steps.push_back(mapped);

  Step mapped3 = mapped;
  mapped3.name = "matr_mul_wgmma_tma_3xtf32";
  mapped3.source = "beyond the article, step 18: 3xTF32 with A through a tensor map";
  mapped3.change = "A copied as it is through an FP32-typed tensor map and split into TF32 heads "
                   "and tails in registers; only B through step 17's pass (half of it): "
                   "FP32-level accuracy";
  mapped3.params = {{"TMA", 1},   {"MODE", 3},   {"PARTS", 2},   {"BM", 64},
                    {"BN", 128},  {"BK", 16},    {"STAGES", 2},  {"INFLIGHT", 0},
                    {"FLUSH", 8}, {"A_REGS", 0}, {"GROUP_M", 64}};
  mapped3.tunables = {{"BM", {64, 128}},        {"BN", {64, 128}},
                      {"BK", {16, 32}},         {"STAGES", {1, 2, 3}},
                      {"FLUSH", {2, 4, 8, 16}}, {"GROUP_M", {8, 16, 32, 64}}};
  mapped3.operand_pass = tiling_pass(8); // B's 8 heads and their 8 tails per tile row
  mapped3.operand_pass->operand_a = false;
  mapped3.padding.colsrows = 32; // whole stages of K: B's tiles hold no partial slice
  mapped3.tensor_maps = TensorMaps{"BM", "", "BK", "TMA"};
  steps.push_back(mapped3);

  return steps;
}

// The article's steps, in its order. Shared fields first, then what each step changes.
std::vector<Step> make_replay_steps() {
  std::vector<Step> steps;
  auto add = [&](Step step) { steps.push_back(std::move(step)); };

  Step host;
  host.name = "matr_mul_2dim";
  host.source = "section 2.1, Listing 1";
  host.change = "the sequential program: r-cr-c loops over 2-D arrays on one CPU core, no OpenCL";
  host.cpu_loop = CpuLoop::r_cr_c;
  add(host);

  Step per_element;
  per_element.geometry = one_per_element;
  per_element.name = "matr_mul_1dim";
  per_element.source = "section 2.2, Listing 2";
  per_element.change = "first kernel: one work-item per element of the product (2-D range "
                       "ROWS1 x COLS2); all matrices row-major";
  per_element.kernel_file = "matr_mul_1dim.cl";
  add(per_element);

  per_element.layout_b = Layout::column_major;
  per_element.name = "matr_mul_1dim_coalesced";
  per_element.source = "section 2.3, Listing 3";
  per_element.change = "second matrix stored column-major, so the inner loop reads both inputs "
                       "contiguously (coalesced)";
  per_element.kernel_file = "matr_mul_1dim_coalesced.cl";
  add(per_element);

  per_element.name = "matr_mul_sum_local";
  per_element.source = "section 2.4, Listing 4";
  per_element.change = "the dot product accumulates in a private variable and is written to "
                       "global memory once";
  per_element.kernel_file = "matr_mul_sum_local.cl";
  add(per_element);

  Step per_row = per_element;
  per_row.geometry = one_per_row;
  per_row.name = "matr_mul_row_calc";
  per_row.source = "section 2.5, Listing 5";
  per_row.change = "one work-item per row of the product: a 1-D range of ROWS1 work-items";
  per_row.kernel_file = "matr_mul_row_calc.cl";
  add(per_row);

  per_row.private_row = true;
  per_row.name = "matr_mul_row_in_private";
  per_row.source = "section 2.6, Listing 6";
  per_row.change = "the work-item's row of the first matrix copied once into a private array "
                   "rowbuf[COLSROWS]";
  per_row.kernel_file = "matr_mul_row_in_private.cl";
  add(per_row);

  Step col_local = per_row;
  col_local.local_column = true;
  col_local.name = "matr_mul_col_local";
  col_local.source = "section 2.7, Listing 7 (as printed)";
  col_local.change = "each column of the second matrix staged in __local colbuf[COLSROWS] by "
                     "the whole work-group, behind a barrier";
  col_local.kernel_file = "matr_mul_col_local.cl";
  col_local.race = "the listing has no barrier after the reads of colbuf, so a work-item can "
                   "overwrite it with the next column while others of its work-group still "
                   "read this one";
  col_local.fixed_by = "matr_mul_col_local_fixed";
  add(col_local);

  Step vect = per_row;
  vect.name = "matr_mul_vect";
  vect.source = "section 2.8, Listing 8";
  vect.change = "inner loop vectorised: dot() of two REALTYPE4 vectors assembled from scalars";
  vect.kernel_file = "matr_mul_vect.cl";
  vect.constraints = {{Dim::colsrows, 4, "its inner loop reads 4 elements at a time"}};
  add(vect);

  vect.name = "matr_mul_vect_v2";
  vect.source = "section 2.8, Listing 9";
  vect.change = "the private row kept as REALTYPE4 vectors, so only in2's vector is assembled "
                "in the main loop";
  vect.kernel_file = "matr_mul_vect_v2.cl";
  vect.constraints = {{Dim::colsrows, 4, "it keeps rows as COLSROWS / 4 vectors of 4"}};
  vect.in_bench = true; // the article's best, benched beside the steps beyond it
  add(vect);
  vect.in_bench = false;

  vect.name = "matr_mul_vect_v3";
  vect.source = "section 2.8, Listing 10";
  vect.change = "vectors of 8 (REALTYPE8) and dot8()";
  vect.kernel_file = "matr_mul_vect_v3.cl";
  vect.constraints = {{Dim::colsrows, 8, "it keeps rows as COLSROWS / 8 vectors of 8"}};
  add(vect);

  Step fixed = col_local;
  fixed.in_article = false;
  fixed.name = "matr_mul_col_local_fixed";
  fixed.source = "section 2.7, Listing 7 with a second barrier (not in the article)";
  fixed.change = "as matr_mul_col_local, plus the barrier that keeps colbuf until the whole "
                 "work-group has read it";
  fixed.kernel_file = "matr_mul_col_local_fixed.cl";
  fixed.race.clear();
  fixed.fixed_by.clear();
  add(fixed);

  for (Step &step : beyond_the_article())
    add(std::move(step));
  return steps;
}

} // namespace

uint64_t cpu_runtime_group_size(uint32_t global, const DeviceCaps &device) {
  uint64_t limit =
      std::min<uint64_t>({global, device.max_work_group_size, device.max_work_item_sizes[0]});
  uint64_t local = std::max<uint64_t>(limit, 1);
  while (global % local != 0)
    --local;
  uint64_t groups = global / local;
  for (uint64_t splits = device.compute_units / groups; splits > 1; --splits)
    if (local % splits == 0) {
      local /= splits;
      break;
    }
  return local;
}

LaunchGeometry one_per_element(const GeometryInput &input) {
  LaunchGeometry geometry;
  geometry.work_dim = 2;
  geometry.global = {input.sizes.rows1, input.sizes.cols2, 1};
  geometry.local = requested_local(input, 2, geometry.global, "ROWS1 x COLS2");
  return geometry;
}

LaunchGeometry one_per_row(const GeometryInput &input) {
  LaunchGeometry geometry;
  geometry.work_dim = 1;
  geometry.global = {input.sizes.rows1, 1, 1};
  geometry.local = requested_local(input, 1, geometry.global, "ROWS1");
  return geometry;
}

LaunchGeometry blocks_2d(const GeometryInput &input) {
  refuse_local(input);
  uint32_t blk = static_cast<uint32_t>(param(input, "BLK"));
  LaunchGeometry geometry;
  geometry.work_dim = 2;
  geometry.global = {round_up(input.sizes.cols2, blk), round_up(input.sizes.rows1, blk), 1};
  geometry.local = {blk, blk, 1};
  return geometry;
}

LaunchGeometry tiles_1d(const GeometryInput &input) {
  refuse_local(input);
  uint32_t bm = static_cast<uint32_t>(param(input, "BM")),
           bn = static_cast<uint32_t>(param(input, "BN"));
  uint32_t threads = bm / static_cast<uint32_t>(param(input, "TM")) * bn /
                     static_cast<uint32_t>(param(input, "TN"));
  LaunchGeometry geometry;
  geometry.work_dim = 1;
  geometry.global = {ceil_div(input.sizes.rows1, bm) * ceil_div(input.sizes.cols2, bn) * threads, 1,
                     1};
  geometry.local = {threads, 1, 1};
  return geometry;
}

LaunchGeometry warp_tiles_1d(const GeometryInput &input) {
  refuse_local(input);
  uint32_t bm = static_cast<uint32_t>(param(input, "BM")),
           bn = static_cast<uint32_t>(param(input, "BN"));
  uint32_t threads = bm / static_cast<uint32_t>(param(input, "WM")) * bn /
                     static_cast<uint32_t>(param(input, "WN")) * 32;
  LaunchGeometry geometry;
  geometry.work_dim = 1;
  geometry.global = {ceil_div(input.sizes.rows1, bm) * ceil_div(input.sizes.cols2, bn) * threads, 1,
                     1};
  geometry.local = {threads, 1, 1};
  return geometry;
}

LaunchGeometry warpgroup_tiles_1d(const GeometryInput &input) {
  refuse_local(input);
  uint32_t bm = static_cast<uint32_t>(param(input, "BM")),
           bn = static_cast<uint32_t>(param(input, "BN"));
  uint32_t threads = bm * 2; // a warpgroup of 128 work-items per 64 rows
  LaunchGeometry geometry;
  geometry.work_dim = 1;
  geometry.global = {ceil_div(input.sizes.rows1, bm) * ceil_div(input.sizes.cols2, bn) * threads, 1,
                     1};
  geometry.local = {threads, 1, 1};
  return geometry;
}

LaunchGeometry register_blocks_2d(const GeometryInput &input) {
  refuse_local(input);
  uint32_t lx = static_cast<uint32_t>(param(input, "LX")),
           ly = static_cast<uint32_t>(param(input, "LY"));
  LaunchGeometry geometry;
  geometry.work_dim = 2;
  geometry.global = {
      round_up(ceil_div(input.sizes.cols2, static_cast<uint32_t>(param(input, "RN"))), lx),
      round_up(ceil_div(input.sizes.rows1, static_cast<uint32_t>(param(input, "RM"))), ly), 1};
  geometry.local = {lx, ly, 1};
  return geometry;
}

const std::vector<Step> &replay_steps() {
  static const std::vector<Step> steps = make_replay_steps();
  return steps;
}

const Step *find_step(const std::vector<Step> &steps, std::string_view name) {
  for (const Step &step : steps)
    if (step.name == name)
      return &step;
  return nullptr;
}

Arithmetic arithmetic_of(const Step &step) {
  return step.arithmetic != nullptr ? step.arithmetic(step.params) : Arithmetic{};
}

std::vector<KernelArg> kernel_args(const Step &step) {
  if (!step.args.empty())
    return step.args;
  return {{KernelArg::Kind::matrix_a}, {KernelArg::Kind::matrix_b}, {KernelArg::Kind::matrix_c}};
}

Sizes padded_sizes(const Step &step, const Sizes &sizes) {
  return {round_up(sizes.rows1, step.padding.rows1),
          round_up(sizes.colsrows, step.padding.colsrows),
          round_up(sizes.cols2, step.padding.cols2)};
}

PassScratch pass_scratch(const Step &step, const Sizes &padded) {
  PassScratch scratch;
  if (!step.operand_pass)
    return scratch;
  const OperandPass &pass = *step.operand_pass;
  auto parts = step.params.find(pass.parts_param);
  if (parts == step.params.end() || parts->second <= 0)
    return scratch;
  scratch.parts = static_cast<uint32_t>(parts->second);
  scratch.groups = (uint64_t{padded.colsrows} + pass.group - 1) / pass.group;
  scratch.lines_a = pass.operand_a ? padded.rows1 : 0;
  scratch.lines_b = padded.cols2;
  if (pass.tiled()) {
    auto block = [&](const std::string &name) {
      return static_cast<uint32_t>(std::max<int64_t>(1, param_or(step.params, name.c_str(), 1)));
    };
    scratch.block_a = pass.operand_a ? block(pass.block_param_a) : 0;
    scratch.block_b = block(pass.block_param_b);
    scratch.lines_a = pass.operand_a ? round_up(padded.rows1, scratch.block_a) : 0;
    scratch.lines_b = round_up(padded.cols2, scratch.block_b);
  }
  const uint64_t multiple = std::max(pass.group, pass.slice);
  const uint64_t line = (padded.colsrows + multiple - 1) / multiple * multiple * scratch.parts;
  scratch.floats_a = scratch.lines_a * line;
  scratch.floats_b = scratch.lines_b * line;
  return scratch;
}

std::vector<std::string> size_problems(const Step &step, const Sizes &sizes, size_t element_size) {
  std::vector<std::string> problems;
  for (Dim dim : {Dim::rows1, Dim::colsrows, Dim::cols2})
    if (size_of(sizes, dim) == 0)
      problems.push_back(fmt::format("{} is 0", dim_name(dim)));
  if (!problems.empty())
    return problems;
  if (step.square_only && (sizes.rows1 != sizes.colsrows || sizes.colsrows != sizes.cols2))
    problems.push_back(fmt::format("it multiplies square matrices only; ROWS1 = {}, COLSROWS = "
                                   "{}, COLS2 = {} (use --size N)",
                                   sizes.rows1, sizes.colsrows, sizes.cols2));
  for (const Constraint &constraint : step.constraints) {
    uint32_t value = size_of(sizes, constraint.dim);
    uint32_t multiple = constraint.multiple_of;
    if (value % multiple != 0) {
      uint32_t below = value / multiple * multiple;
      std::string nearest =
          below == 0 ? std::to_string(multiple) : fmt::format("{} or {}", below, below + multiple);
      problems.push_back(fmt::format("{} must be a multiple of {} ({}); {} = {} is not (nearest: "
                                     "{})",
                                     dim_name(constraint.dim), multiple, constraint.reason,
                                     dim_name(constraint.dim), value, nearest));
    }
  }
  // Buffer sizes are uint32 bytes in MQL5's API (CLBufferCreate), which also keeps the kernels'
  // int indexing from overflowing.
  Sizes padded = padded_sizes(step, sizes);
  struct Matrix {
    const char *name;
    uint64_t rows, cols;
  };
  for (const Matrix &m : {Matrix{"first (ROWS1 x COLSROWS)", padded.rows1, padded.colsrows},
                          Matrix{"second (COLSROWS x COLS2)", padded.colsrows, padded.cols2},
                          Matrix{"product (ROWS1 x COLS2)", padded.rows1, padded.cols2}}) {
    uint64_t bytes = m.rows * m.cols * element_size;
    if (bytes > std::numeric_limits<uint32_t>::max())
      problems.push_back(fmt::format("the {} matrix needs {} bytes; MQL5's CLBufferCreate takes "
                                     "at most 4 GiB - 1",
                                     m.name, bytes));
  }
  return problems;
}

bool device_meets(Requirement requirement, const DeviceCaps &device) {
  switch (requirement) {
  case Requirement::nvidia_tensor_cores:
    return device.vendor_id == 0x10DE && device.compute_capability >= 80;
  case Requirement::nvidia_wgmma:
    return device.vendor_id == 0x10DE && device.compute_capability == 90;
  case Requirement::none:
    break;
  }
  return true;
}

std::vector<std::string> device_problems(const Step &step, const Sizes &padded,
                                         const DeviceCaps &device, size_t element_size,
                                         bool double_precision,
                                         const std::vector<uint32_t> &requested_local) {
  std::vector<std::string> problems;
  if (step.private_row && device.cpu_group_stack_bytes > kCpuStackReserve) {
    // The article's private-array steps are 1-D over ROWS1.
    const uint64_t row_bytes = uint64_t{padded.colsrows} * element_size;
    const uint64_t room = device.cpu_group_stack_bytes - kCpuStackReserve;
    const bool chosen = requested_local.empty();
    const uint64_t group =
        chosen ? cpu_runtime_group_size(padded.rows1, device) : requested_local[0];
    if (group * row_bytes > room) {
      uint32_t fits = 1;
      for (uint32_t d = 1; d <= padded.rows1 && d * row_bytes <= room; ++d)
        if (padded.rows1 % d == 0)
          fits = d;
      problems.push_back(fmt::format(
          "its private rowbuf[COLSROWS] takes {} bytes per work-item, so a work-group of {} "
          "work-items{} needs {:.1f} MiB; a CPU device runs a work-group on one thread, whose "
          "stack is {:.1f} MiB {}, and overflowing it kills the process: give --local {} (or "
          "less){}",
          row_bytes, group, chosen ? " (the runtime's choice)" : "",
          static_cast<double>(group * row_bytes) / (1 << 20),
          static_cast<double>(device.cpu_group_stack_bytes) / (1 << 20),
          device.cpu_group_stack_assumed ? "as assumed here (the OS does not say)"
                                         : "here (ulimit -s)",
          fits, device.cpu_group_stack_assumed ? "" : ", or raise ulimit -s"));
    }
  }
  if (double_precision && !device.fp64)
    problems.push_back("--double needs a device with cl_khr_fp64, and this one has none");
  if (double_precision && step.float_only)
    problems.push_back("this step computes in float only (it has no REALTYPE double variant)");
  if (step.requirement == Requirement::nvidia_tensor_cores &&
      !device_meets(step.requirement, device))
    problems.push_back(
        "it runs on NVIDIA tensor cores (mma.sync with TF32, through inline PTX that only "
        "NVIDIA's OpenCL compiler accepts) and needs an NVIDIA GPU of compute capability 8.0 or "
        "later; this device is not one, so nothing was run. matr_mul_double_buffered and "
        "matr_mul_tuned compute the same product in FP32 on any device");
  if (step.requirement == Requirement::nvidia_wgmma && !device_meets(step.requirement, device))
    problems.push_back(
        "it runs on NVIDIA tensor cores through Hopper's wgmma (inline PTX for sm_90a, which "
        "the bridge builds with -mqlcl-nv-sm90a) and needs an NVIDIA GPU of compute capability "
        "9.0 (H100, H200); this device is not one, so nothing was run. matr_mul_double_buffered "
        "and matr_mul_tuned compute the same product in FP32 on any device");
  if (step.params_valid != nullptr && !step.params_valid(step.params, device))
    problems.push_back(
        "its tile parameters do not fit this device or each other (work-group size, local "
        "memory or divisibility; the kernel's header comment gives the rules): choose others "
        "with --param" +
        std::string(step.tuning != DeviceTuning::none
                        ? ", or let mqlcl-replay tune " + step.name + " find the fastest that fit"
                        : ""));
  if (step.local_column) {
    uint64_t bytes = uint64_t{padded.colsrows} * element_size;
    if (bytes > device.local_mem_bytes)
      problems.push_back(fmt::format("its __local colbuf[COLSROWS] needs {} bytes; the device has "
                                     "{} bytes of local memory",
                                     bytes, device.local_mem_bytes));
  }
  const PassScratch scratch = pass_scratch(step, padded);
  for (uint64_t floats : {scratch.floats_a, scratch.floats_b})
    if (floats * element_size > std::numeric_limits<uint32_t>::max()) {
      problems.push_back(fmt::format("its operand pass writes {} parts of each operand, {} bytes, "
                                     "to a buffer; MQL5's CLBufferCreate takes at most 4 GiB - 1",
                                     scratch.parts, floats * element_size));
      break;
    }
  for (uint64_t elements :
       {uint64_t{padded.rows1} * padded.colsrows, uint64_t{padded.colsrows} * padded.cols2,
        uint64_t{padded.rows1} * padded.cols2, scratch.floats_a, scratch.floats_b}) {
    if (elements * element_size > device.max_alloc_bytes) {
      problems.push_back(fmt::format("a matrix of {} bytes exceeds the device's largest "
                                     "allocation, {} bytes",
                                     elements * element_size, device.max_alloc_bytes));
      break;
    }
  }
  return problems;
}

} // namespace mqlcl::replay
