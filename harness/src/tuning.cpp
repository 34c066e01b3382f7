#include "tuning.hpp"

#include <fmt/format.h>

namespace mqlcl::replay {

std::optional<TunedEntry> lookup_tuned(const std::filesystem::path &cache, const DeviceCaps &device,
                                       const std::string &step, const Sizes &sizes) {
  const std::optional<gemm::Tuned> tuned =
      gemm::find_tuned(read_tuning_file(cache), {}, facts_of(device), sizes.rows1, sizes.cols2,
                       sizes.colsrows, step, gemm::Element::float32, "");
  if (!tuned)
    return std::nullopt;
  return tuned->entry;
}

TunedEntry tuned_entry(const DeviceCaps &device, const std::string &step, const Sizes &sizes) {
  TunedEntry entry;
  entry.device = device.device_name;
  entry.driver = device.driver;
  entry.vendor_id = device.vendor_id;
  entry.architecture = device.architecture;
  entry.step = step;
  entry.m = sizes.rows1;
  entry.n = sizes.cols2;
  entry.k = sizes.colsrows;
  return entry;
}

std::vector<Step> tuned_families(const Step &tuned, const DeviceCaps &device) {
  std::vector<Step> families;
  if (device.dedicated_local_memory) {
    const Step *tiles = find_step(replay_steps(), "matr_mul_double_buffered");
    Step gpu = tuned;
    gpu.kernel_file = tiles->kernel_file;
    gpu.geometry = tiles->geometry;
    gpu.params = tiles->params;
    gpu.tunables = tiles->tunables;
    gpu.form_tunables = tiles->form_tunables;
    gpu.layout_tunables = tiles->layout_tunables;
    gpu.params_valid = tiles->params_valid;
    gpu.tuning = DeviceTuning::none;
    families.push_back(gpu);
  }
  Step cpu = tuned;
  cpu.tuning = DeviceTuning::none;
  families.push_back(cpu);
  return families;
}

namespace {

// The family of `families` whose kernel is `kernel_file`, with `params` over its own; nullptr
// where none is.
Step *family_with(std::vector<Step> &families, const std::string &kernel_file,
                  const Params &params) {
  for (Step &family : families)
    if (family.kernel_file == kernel_file) {
      for (const auto &[name, value] : params)
        if (name != gemm::kCopyParam) // the library's host parameter, not the kernel's
          family.params[name] = value;
      return &family;
    }
  return nullptr;
}

// Step 14 runs what the library's CLGemm would run for the product (A by rows, B by columns:
// CLGemm's NT): the tuning file's set for this device, else the compiled database's for it or
// its architecture, else the defaults, planned by the library's own planner; for double on FP64
// tensor cores, where CLGemm runs step 19, what it runs with step 13's tiles (MQLCL_GEMM_KERNEL).
Step tuned_for_device(const Step &tuned, const DeviceCaps &device, const Sizes &sizes,
                      bool double_precision) {
  std::vector<Step> families = tuned_families(tuned, device);
  const gemm::Shape shape{sizes.rows1, sizes.cols2, sizes.colsrows, 1,
                          double_precision ? sizeof(double) : sizeof(float)};
  gemm::Plan plan = planned_product(device, shape, "NT", MQLCL_GEMM_EXACT);
  if (plan.family == gemm::Family::tensor_fp64) // step 19's, not one of step 14's families
    plan = planned_product(device, shape, "NT", MQLCL_GEMM_EXACT, gemm::Family::tiles);
  Step *family = family_with(families, gemm::kernel_file_of(plan.family), plan.params);
  if (family == nullptr) // the plan's tiles where local memory is not dedicated: the CPU form
    family = family_with(families, gemm::kernel_file_of(gemm::Family::registers), {});
  family->source = fmt::format(
      "{}: kernels/{} as the library's CLGemm runs it ({}{})", tuned.source, family->kernel_file,
      plan.origin,
      plan.origin == "defaults" ? fmt::format("; run mqlcl-replay tune {}", tuned.name) : "");
  return *family;
}

Step cached_for_device(const Step &step, const DeviceCaps &device, const Sizes &sizes) {
  Step chosen = step;
  chosen.tuning = DeviceTuning::none;
  std::filesystem::path cache = tuning_cache_path();
  if (auto entry = lookup_tuned(cache, device, step.name, sizes)) {
    for (const auto &[name, value] : entry->params)
      chosen.params[name] = value;
    chosen.source = fmt::format("{} (parameters tuned for this device at {}x{}x{}, cache {})",
                                step.source, entry->m, entry->k, entry->n, cache.string());
  }
  return chosen;
}

} // namespace

Step for_device(const Step &step, const DeviceCaps &device, const Sizes &sizes,
                bool double_precision) {
  switch (step.tuning) {
  case DeviceTuning::families:
    return tuned_for_device(step, device, sizes, double_precision);
  case DeviceTuning::cached:
    return cached_for_device(step, device, sizes);
  case DeviceTuning::none:
    break;
  }
  return step;
}

std::vector<Step> tuning_families(const Step &step, const DeviceCaps &device) {
  if (step.tuning == DeviceTuning::families)
    return tuned_families(step, device);
  Step only = step;
  only.tuning = DeviceTuning::none;
  return {only};
}

std::vector<Params> candidate_params(const Step &step, const DeviceCaps &device) {
  std::vector<Params> all{step.params};
  for (const Tunable &tunable : step.tunables) {
    std::vector<Params> next;
    for (const Params &partial : all)
      for (int64_t value : tunable.values) {
        Params with = partial;
        with[tunable.name] = value;
        next.push_back(std::move(with));
      }
    all = std::move(next);
  }
  std::vector<Params> valid;
  for (Params &params : all)
    if (step.params_valid == nullptr || step.params_valid(params, device))
      valid.push_back(std::move(params));
  return valid;
}

namespace {

std::vector<Params> variants_of(const Step &step, const Params &base,
                                const std::vector<Tunable> &tunables, const DeviceCaps &device) {
  Step varied = step;
  varied.params = base;
  varied.tunables = tunables;
  std::vector<Params> variants;
  if (tunables.empty())
    return variants;
  for (Params &params : candidate_params(varied, device))
    if (params != base)
      variants.push_back(std::move(params));
  return variants;
}

} // namespace

std::vector<Params> form_variants(const Step &step, const Params &base, const DeviceCaps &device) {
  return variants_of(step, base, step.form_tunables, device);
}

std::vector<Params> layout_variants(const Step &step, const Params &base,
                                    const DeviceCaps &device) {
  return variants_of(step, base, step.layout_tunables, device);
}

} // namespace mqlcl::replay
