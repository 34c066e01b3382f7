#include "plan_queries.hpp"

#include "environment.hpp"
#include "error.hpp"

#include <stdexcept>

namespace mqlcl::replay {

std::vector<gemm::TunedEntry> read_tuning_file(const std::filesystem::path &cache) {
  try {
    return gemm::read_tuning_file(cache.string(), gemm::Reading::strict);
  } catch (const std::runtime_error &error) {
    throw Error(ExitCode::bad_input, error.what());
  }
}

std::filesystem::path tuning_cache_path() {
  return std::filesystem::path(gemm::tuning_file_path(environment));
}

std::vector<gemm::TunedEntry> tuned_sets() {
  return read_tuning_file(tuning_cache_path());
}

gemm::DeviceFacts facts_of(const DeviceCaps &device) {
  return gemm::DeviceFacts{device.vendor_id, device.architecture, device.device_name,
                           device.driver};
}

namespace {

// Hopper's tensor cores, where CLGemm runs its TF32 and 3xTF32 products (gemm.hpp,
// offers_tensor_cores).
bool offers_tensor_cores(const DeviceCaps &device) {
  return device.vendor_id == 0x10DE && device.compute_capability == 90;
}

} // namespace

gemm::Plan planned_product(const DeviceCaps &device, const gemm::Shape &shape,
                           const std::string &layout, int32_t precision,
                           std::optional<gemm::Family> forced, TunedSources sources) {
  const std::vector<gemm::TunedEntry> overlay =
      sources == TunedSources::database ? std::vector<gemm::TunedEntry>{} : tuned_sets();
  const std::vector<gemm::TunedEntry> database = gemm::compiled_entries();
  const gemm::DeviceLimits limits = limits_of(device);
  const gemm::DeviceFacts facts = facts_of(device);
  const bool tensor = shape.element_size == sizeof(float) && offers_tensor_cores(device) &&
                      (precision == MQLCL_GEMM_TF32 || precision == MQLCL_GEMM_ACCURATE ||
                       precision == MQLCL_GEMM_FASTEST);
  if (!tensor)
    return gemm::exact_plan(limits, facts, shape, {overlay, database}, layout, forced);
  const gemm::Family family =
      precision == MQLCL_GEMM_TF32 ? gemm::Family::tensor_tf32 : gemm::Family::tensor_3xtf32;
  // TF32 reads a B stored K x N as it is where the set says so (B_MN; the bridge also needs its
  // rows on 16-byte boundaries, which a plan by shape cannot see).
  const bool b_mn_map =
      family == gemm::Family::tensor_tf32 && layout.size() == 2 && layout[1] == 'N';
  return gemm::tensor_plan(limits, shape, family,
                           gemm::find_tuned(overlay, database, facts, shape.m, shape.n, shape.k,
                                            gemm::step_of(family), gemm::Element::float32, layout),
                           true, b_mn_map);
}

std::string plan_set_text(const gemm::Plan &plan) {
  const std::string text = gemm::plan_text(plan);
  return text.substr(0, text.rfind(" ("));
}

} // namespace mqlcl::replay
