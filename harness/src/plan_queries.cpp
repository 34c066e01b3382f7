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

// Step 19's TMA for packed operands (the tuner's and the benchmark's: rows as wide as stored, no
// offset, one product), as the bridge picks it per call: an operand is read with K down its rows
// where the layout stores it so and the plan does not copy it; its rows are `ld` elements apart.
int64_t packed_fp64_tma(const gemm::Plan &plan, const gemm::Shape &shape,
                        const std::string &layout) {
  const bool a_k_down = layout[0] == 'T' && !plan.copy_k_down_a;
  const bool b_k_down = layout[1] == 'N' && !plan.copy_k_down_b;
  const uint64_t lda = a_k_down ? shape.m : shape.k, ldb = b_k_down ? shape.n : shape.k;
  return gemm::fp64_tma_for_call(plan.params.at("TMA"), a_k_down, b_k_down, lda % 2 == 0,
                                 ldb % 2 == 0);
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
  if (!tensor) {
    gemm::Plan plan = gemm::exact_plan(limits, facts, shape, {overlay, database}, layout, forced);
    if (plan.family == gemm::Family::tensor_fp64 && layout.size() == 2)
      plan.params["TMA"] = packed_fp64_tma(plan, shape, layout);
    return plan;
  }
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
