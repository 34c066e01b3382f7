// Per-device tuning: `mqlcl-replay tune STEP` measures a step's tunable parameters on the device
// at hand and keeps the fastest set in the tuning file (bridge/src/gemm/tuning_file.hpp, the
// library's own codec); the tuned step (matr_mul_tuned) runs the set the library's planner
// picks for the product, the very code CLGemm runs (plan_queries.hpp).
#pragma once

#include "catalogue.hpp"
#include "gemm/tuning_file.hpp"
#include "plan_queries.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

using gemm::TunedEntry;

// The set of `step` tuned on `device` nearest to `sizes`, from the tuning file at `cache` (read
// strictly: a file the tuner cannot read is an error to report, not to ignore).
std::optional<TunedEntry> lookup_tuned(const std::filesystem::path &cache, const DeviceCaps &device,
                                       const std::string &step, const Sizes &sizes);

// `entry` of `step` at `sizes`, for `device`, as the tuning file keeps it.
TunedEntry tuned_entry(const DeviceCaps &device, const std::string &step, const Sizes &sizes);

// The kernel families the tuned step chooses among on `device`: step 13's tiles where local
// memory is dedicated, and always this step's own CPU form (matr_mul_tuned.cl).
std::vector<Step> tuned_families(const Step &tuned, const DeviceCaps &device);

// The step as it runs on `device` at `sizes` (Step::tuning): matr_mul_tuned with the kernel and
// set the library's planner picks for the product (the tuning file's, the compiled database's
// or the defaults), in float or double; a tensor-core step with its tuned parameters, if tuned;
// any other step as it is. The result's tuning is none.
Step for_device(const Step &step, const DeviceCaps &device, const Sizes &sizes,
                bool double_precision);

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
