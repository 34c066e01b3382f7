#include "gemm/planner.hpp"

namespace mqlcl::gemm {

namespace {

size_t ceil_div(size_t value, size_t divisor) {
  return (value + divisor - 1) / divisor;
}

bool fits(const DeviceLimits &device, Family family, const Params &params, size_t element_size) {
  return form_of(family).valid(params, device, element_size);
}

// Step 13's defaults; 64 x 64 tiles where 128 x 128 ones would leave compute units idle, and
// 8-deep slices for double, whose 16-deep tiles need 66 KiB of local memory (more than most
// devices offer; a device that has it finds its double sets in the database).
Params tiles_defaults(const DeviceLimits &device, const Shape &shape) {
  Params p = defaults_of(form_of(Family::tiles));
  if (shape.element_size == 8)
    p["BK"] = 8;
  uint64_t tiles = ceil_div(shape.m, 128) * ceil_div(shape.n, 128) * shape.batch;
  if (tiles < 2ull * device.compute_units || !fits(device, Family::tiles, p, shape.element_size)) {
    p["BM"] = p["BN"] = 64;
    p["WARP_ROWS"] = 4;
  }
  return p;
}

void set_copies(Plan &plan, int64_t copy) {
  plan.copy_k_down_a = copy == kCopyBoth || copy == kCopyA;
  plan.copy_k_down_b = copy == kCopyBoth || copy == kCopyB;
}

void set_launch(Plan &plan, const Shape &shape) {
  plan.launch = form_of(plan.family).launch(plan.params, shape);
  const auto copy = plan.params.find(kCopyParam);
  if (copy != plan.params.end() &&
      (plan.family == Family::tensor_fp64 || plan.family == Family::tiles)) {
    set_copies(plan, copy->second);
    return;
  }
  if (plan.family == Family::tensor_fp64) { // reads them in place unless its set copies them
    set_copies(plan, kCopyNone);
    return;
  }
  const bool large = double(shape.m) * shape.n * shape.k * shape.batch >= kCopyFromMultiplyAdds;
  set_copies(plan, is_tensor(plan.family) || plan.family == Family::registers || large ? kCopyBoth
                                                                                       : kCopyNone);
}

// The tuned set's kernel parameters: COPY is the host's.
Params kernel_params(Params params) {
  params.erase(kCopyParam);
  return params;
}

} // namespace

Plan tensor_plan(const DeviceLimits &device, const Shape &shape, Family family,
                 const std::optional<Tuned> &tuned, bool tensor_maps, bool b_mn_map) {
  Plan plan;
  plan.family = family;
  plan.origin = "defaults";
  const Form &form = form_of(family);
  plan.params = defaults_of(form);
  // A set takes the form's maps: TF32's round the inputs, as cuBLAS's TF32 does. Step 19's maps
  // change no result: any of its sets reads them where they can be written (planner.hpp).
  const bool fp64 = family == Family::tensor_fp64;
  if (tuned && tuned->entry.kernel_file == form.kernel_file &&
      (fp64 || value_of(form, tuned->entry.params, "TMA") == value_of(form, plan.params, "TMA")) &&
      fits(device, family, tuned->entry.params, shape.element_size)) {
    plan.origin = tuned->origin;
    plan.params = over_defaults(form, tuned->entry.params);
    plan.params.erase(kExactFasterParam); // the host's
  }
  const bool set_names_maps = plan.origin != "defaults" && tuned->entry.params.count("TMA") != 0;
  if (fp64)
    plan.params["TMA"] = !tensor_maps ? 0 : set_names_maps ? plan.params["TMA"] : kFp64MapsUnasked;
  else if (!tensor_maps && plan.params.count("TMA") != 0)
    plan.params["TMA"] = 0;
  if (!(tensor_maps && b_mn_map) && plan.params.count("B_MN") != 0)
    plan.params["B_MN"] = 0;
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

std::optional<Params> scheme_set(const Form &form, const TunedEntry &entry,
                                 const DeviceLimits &device) {
  Params set = over_defaults(form, entry.params);
  set.erase(kUnaskedParam);
  if (!form.valid(set, device, 1))
    return std::nullopt;
  return set;
}

std::optional<Family> forced_family(EnvironmentReader environment) {
  std::string chosen = environment("MQLCL_GEMM_KERNEL");
  if (chosen == "tiles")
    return Family::tiles;
  if (chosen == "registers")
    return Family::registers;
  return std::nullopt;
}

Plan default_plan(const DeviceLimits &device, const Shape &shape, std::optional<Family> forced) {
  Plan plan;
  plan.origin = "defaults";
  plan.params = tiles_defaults(device, shape);
  bool tiles = forced ? *forced == Family::tiles : device.dedicated_local_memory;
  plan.family = tiles && fits(device, Family::tiles, plan.params, shape.element_size)
                    ? Family::tiles
                    : Family::registers;
  if (plan.family == Family::registers) {
    plan.params = defaults_of(form_of(Family::registers));
    if (!fits(device, Family::registers, plan.params, shape.element_size))
      plan.params["LX"] = plan.params["LY"] = 1;
  }
  set_launch(plan, shape);
  return plan;
}

Plan plan_product(const DeviceLimits &device, const Shape &shape, const std::optional<Tuned> &tuned,
                  std::optional<Family> forced) {
  if (!tuned || (forced && tuned->entry.kernel_file != kernel_file_of(*forced)))
    return default_plan(device, shape, forced);
  Plan plan;
  plan.origin = tuned->origin;
  plan.params = tuned->entry.params;
  const Params kernel = kernel_params(plan.params);
  if (tuned->entry.kernel_file == kernel_file_of(Family::tiles) &&
      fits(device, Family::tiles, kernel, shape.element_size))
    plan.family = Family::tiles;
  else if (tuned->entry.kernel_file == kernel_file_of(Family::registers) &&
           fits(device, Family::registers, kernel, shape.element_size))
    plan.family = Family::registers;
  else
    return default_plan(device, shape, forced);
  plan.params = over_defaults(form_of(plan.family), plan.params);
  set_launch(plan, shape);
  return plan;
}

int64_t fp64_tma_for_call(int64_t tma, bool a_k_down, bool b_k_down, bool a_aligned,
                          bool b_aligned) {
  const bool a_mapped = tma == 1 || tma == 3 || (tma == 2 && a_k_down);
  const bool b_mapped = tma == 1 || tma == 3 || (tma == 2 && b_k_down);
  return (a_mapped && !a_aligned) || (b_mapped && !b_aligned) ? 0 : tma;
}

bool runs_fp64_tensor_cores(const DeviceLimits &device, const Shape &shape,
                            std::optional<Family> forced) {
  constexpr uint32_t kIndexLimit = uint32_t{1} << 31;
  return shape.element_size == 8 && device.fp64_tensor_cores && !forced && shape.m < kIndexLimit &&
         shape.n < kIndexLimit && shape.k < kIndexLimit;
}

Plan exact_plan(const DeviceLimits &limits, const DeviceFacts &device, const Shape &shape,
                const TunedSets &sets, const std::string &layout, std::optional<Family> forced) {
  const Element element = shape.element_size == 8 ? Element::float64 : Element::float32;
  if (runs_fp64_tensor_cores(limits, shape, forced))
    return tensor_plan(limits, shape, Family::tensor_fp64,
                       find_tuned(sets.overlay, sets.database, device, shape.m, shape.n, shape.k,
                                  kFp64Step, element, layout));
  return plan_product(limits, shape,
                      find_tuned(sets.overlay, sets.database, device, shape.m, shape.n, shape.k,
                                 kExactStep, element, layout),
                      forced);
}

} // namespace mqlcl::gemm
