// The commands of mqlcl-replay besides replaying: tune (tune.cpp), bench (bench.cpp) and gemm
// (gemm_bench.cpp).
#pragma once

#include "anchors.hpp"
#include "bridge.hpp"
#include "catalogue.hpp"
#include "cli.hpp"
#include "runner.hpp"
#include "tuning.hpp"

#include <functional>
#include <limits>
#include <string>

#include <vector>

namespace mqlcl::replay {

class GemmProduct; // gemm_product.hpp

// Both return the process exit code; they throw Error like the replay command does.
int run_tune_command(const CommandLine &command, const std::vector<Step> &catalogue);
// tune STEP --gemm LAYOUT (tune_gemm.cpp): the library's CLGemm tuned in place.
int run_gemm_tune_command(const CommandLine &command, const std::vector<Step> &catalogue);
// Where tune --gemm starts its descents for `product`, whose set CLGemm runs now is `running`:
// that set, then the sets CLGemm runs for the product's other layouts and, for a double product,
// for the FP32 product of its layout, where they are of `family`'s kernel; on step 13's kernel,
// for a layout with an operand that has K down its rows, each both copying it and not (COPY).
std::vector<Params> gemm_tune_starts(const DeviceInfo &device, const Step &family,
                                     const GemmProduct &product, const Params &running);
int run_bench_command(const CommandLine &command, const std::vector<Step> &catalogue);
int run_gemm_command(const CommandLine &command); // gemm_bench.cpp
// gemm_database.cpp: the database source from command.tuning_files, and the command that writes it.
std::string gemm_database_source(const CommandLine &command);
int run_gemm_database_command(const CommandLine &command);

// "NAME=value NAME=value", as the tuner prints parameter sets.
std::string params_text(const Params &params);
// Now, UTC, ISO 8601: when a tuned entry was measured.
std::string utc_now();
// Stores `entry` (tuned_entry's, with its set) in the user's tuning file, and says where.
void cache_tuned(const TunedEntry &entry);

// One tuning trial: a family of the step with one parameter set, and its replay.
struct Trial {
  std::string kernel_file;
  Params params;
  StepRun run;
};

// How many of a family's fastest parameter sets `tune` also tries in its other code forms
// (Step::form_tunables).
inline constexpr size_t kFormFinalists = 4;
// How many of a family's fastest trials, of every set and form, `tune` also tries in their other
// layouts (Step::layout_tunables).
inline constexpr size_t kLayoutFinalists = 1;

// The most trials tune_families makes: every valid set of each family, the other code forms of
// its kFormFinalists fastest, and the other layouts of its kLayoutFinalists fastest of all those
// (fewer where fewer verify).
size_t tuning_candidates(const std::vector<Step> &families, const DeviceCaps &device);

// Replays every valid parameter set of `families` (tuning_families) with `options`, then the other
// code forms of each family's fastest sets, then the other layouts of its fastest trials, calling
// `progress` after each (with the count so far and the most there will be), `max_trials` at most;
// returns the trials, fastest verified first, then the rest.
std::vector<Trial> tune_families(Runner &runner, const std::vector<Step> &families,
                                 const DeviceCaps &device, const Options &options,
                                 const std::function<void(const Trial &, size_t, size_t)> &progress,
                                 size_t max_trials = std::numeric_limits<size_t>::max());

} // namespace mqlcl::replay
