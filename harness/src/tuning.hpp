// Per-device tuning: `mqlcl-replay tune STEP` measures a step's tunable parameters on the device
// at hand and caches the fastest set, keyed by device and driver and by sizes; the tuned step
// (matr_mul_tuned) reads the cache when it runs, and falls back to the set the library's CLGemm
// runs for the device (its compiled database's) when nothing was tuned here.
#pragma once

#include "catalogue.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

struct TunedEntry {
  std::string kernel_file; // the family the winner belongs to (step 14 has two)
  Params params;
  Sizes sizes;          // what it was tuned at
  double gflops = 0;    // what it reached
  std::string measured; // when (UTC, ISO 8601)
};

// $MQLCL_TUNE_CACHE, else $XDG_CACHE_HOME/mqlcl/tuning.json (~/.cache/...), or
// %LOCALAPPDATA%\mqlcl\tuning.json on Windows.
std::filesystem::path tuning_cache_path();

// The entry for (device, step) tuned at the sizes closest to `sizes` (by volume), if any.
std::optional<TunedEntry> lookup_tuned(const std::filesystem::path &cache,
                                       const std::string &device_key, const std::string &step,
                                       const Sizes &sizes);
// Adds or replaces the entry for (device, step, entry.sizes).
void store_tuned(const std::filesystem::path &cache, const std::string &device_key,
                 const std::string &step, const TunedEntry &entry);

// Records the device's vendor and architecture ("sm_90", "cpu-simd8") beside its entries as
// "_device", which `mqlcl-replay gemm-database` reads: the library looks tuned sets up by them.
void store_device_facts(const std::filesystem::path &cache, const std::string &device_key,
                        uint32_t vendor_id, const std::string &architecture);

// A CPU's architecture as the library's database names it (bridge/src/gemm/database.hpp,
// cpu_architecture): "cpu-simd" and its preferred float vector width, "cpu" without one.
inline std::string cpu_architecture(uint32_t preferred_vector_width_float) {
  return preferred_vector_width_float != 0
             ? "cpu-simd" + std::to_string(preferred_vector_width_float)
             : std::string("cpu");
}

// A kernel file and its parameters as CLGemm names the set it runs (CL_GEMM_PLAN), and where it
// found it ("database, this device: ...", "defaults", ...).
struct LibraryPlan {
  std::string kernel_file;
  Params params;
  std::string origin;
};

// CLGemm's plan for the product the tuned step is about to replay, asked only where the tuning
// cache has no set for it; std::nullopt where CLGemm does not run.
using LibraryPlanSource = std::function<std::optional<LibraryPlan>()>;

// The kernel families the tuned step chooses among on `device`: step 13's tiles where local
// memory is dedicated, and always this step's own CPU form (matr_mul_tuned.cl).
std::vector<Step> tuned_families(const Step &tuned, const DeviceCaps &device);

// The step as it runs on `device` at `sizes` (Step::tuning): matr_mul_tuned as the cached winner
// for this device, else with the set CLGemm runs for the product (`library`: its database's for
// the device, or its defaults), else with defaults by device kind; a tensor-core step with its
// cached parameters, if tuned; any other step as it is. The result's tuning is none.
Step for_device(const Step &step, const DeviceCaps &device, const Sizes &sizes,
                const LibraryPlanSource &library);

// The variants `tune STEP` measures: the tuned step's families, or the step itself.
std::vector<Step> tuning_families(const Step &step, const DeviceCaps &device);

// Every combination of `step.tunables` that step.params_valid accepts on `device`, each merged
// over step.params.
std::vector<Params> candidate_params(const Step &step, const DeviceCaps &device);

// Every combination of `step.form_tunables` over `base` that step.params_valid accepts, except
// `base` itself: the other code forms of one parameter set.
std::vector<Params> form_variants(const Step &step, const Params &base, const DeviceCaps &device);

// The same over `step.layout_tunables`: the other layouts of one parameter set.
std::vector<Params> layout_variants(const Step &step, const Params &base, const DeviceCaps &device);

} // namespace mqlcl::replay
