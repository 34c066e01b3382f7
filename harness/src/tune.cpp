// `mqlcl-replay tune STEP`: every valid parameter set of the step's kernels, replayed through the
// bridge on the chosen device and verified; the fastest verified one goes into the tuning cache.
#include "commands.hpp"

#include "bridge.hpp"
#include "error.hpp"
#include "paths.hpp"
#include "progress.hpp"
#include "runner.hpp"
#include "tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <stdexcept>

namespace mqlcl::replay {

namespace {

bool verified(const Trial &trial) {
  return trial.run.status == Status::verified && !trial.run.kernel_seconds.empty();
}

// Fastest verified first, then the rest in their order.
void rank(std::vector<Trial> &trials) {
  std::stable_sort(trials.begin(), trials.end(), [](const Trial &a, const Trial &b) {
    if (verified(a) != verified(b))
      return verified(a);
    return verified(a) && a.run.kernel_seconds.min() < b.run.kernel_seconds.min();
  });
}

} // namespace

std::string params_text(const Params &params) {
  std::string text;
  for (const auto &[name, value] : params)
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return text;
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

void cache_tuned(const TunedEntry &entry) {
  std::filesystem::path cache = tuning_cache_path();
  try {
    gemm::write_tuned(cache.string(), entry);
  } catch (const std::runtime_error &error) {
    throw Error(ExitCode::bad_input, error.what());
  }
  fmt::print("cached for \"{} | {}\" in {}\n", entry.device, entry.driver, cache.string());
}

size_t tuning_candidates(const std::vector<Step> &families, const DeviceCaps &device) {
  size_t total = 0;
  for (const Step &family : families) {
    size_t sets = candidate_params(family, device).size();
    total +=
        sets + std::min(sets, kFormFinalists) * form_variants(family, family.params, device).size();
    total +=
        std::min(sets, kLayoutFinalists) * layout_variants(family, family.params, device).size();
  }
  return total;
}

std::vector<Trial> tune_families(Runner &runner, const std::vector<Step> &families,
                                 const DeviceCaps &device, const Options &options,
                                 const std::function<void(const Trial &, size_t, size_t)> &progress,
                                 size_t max_trials) {
  size_t total = std::min(tuning_candidates(families, device), max_trials), done = 0;
  Options run_options = options;
  run_options.run_cpu = false;
  run_options.repeat = std::max<uint32_t>(options.repeat, 3);
  run_options.random_checks = 0;
  run_options.params.clear(); // each candidate's own values
  Observer quiet;
  std::vector<Trial> trials;
  auto run = [&](const Step &family, const Params &params, std::vector<Trial> &into) {
    if (done == max_trials)
      return;
    Step candidate = family;
    candidate.params = params;
    into.push_back({family.kernel_file, params, runner.run(candidate, run_options, quiet)});
    progress(into.back(), ++done, total);
  };
  for (const Step &family : families) {
    std::vector<Trial> sets;
    for (const Params &params : candidate_params(family, device))
      run(family, params, sets);
    // Then the other code forms of the fastest few sets (their first form measured above).
    rank(sets);
    std::vector<Trial> forms;
    for (size_t i = 0; i < std::min(sets.size(), kFormFinalists) && verified(sets[i]); ++i)
      for (const Params &params : form_variants(family, sets[i].params, device))
        run(family, params, forms);
    // Then the other layouts of the fastest few of all those.
    sets.insert(sets.end(), forms.begin(), forms.end());
    rank(sets);
    std::vector<Trial> layouts;
    for (size_t i = 0; i < std::min(sets.size(), kLayoutFinalists) && verified(sets[i]); ++i)
      for (const Params &params : layout_variants(family, sets[i].params, device))
        run(family, params, layouts);
    trials.insert(trials.end(), sets.begin(), sets.end());
    trials.insert(trials.end(), layouts.begin(), layouts.end());
  }
  rank(trials);
  return trials;
}

int run_tune_command(const CommandLine &command, const std::vector<Step> &catalogue) {
  if (command.gemm_layout)
    return run_gemm_tune_command(command, catalogue);
  const Step &step = *find_step(catalogue, command.steps.front());
  Bridge bridge(find_library(command.library));
  Runner runner(bridge, find_kernels(command.kernels));
  DeviceInfo device = runner.probe_device(command.options.device);
  std::vector<Step> families = tuning_families(step, device.caps);

  Options options = command.options;
  options.device = device.ordinal;
  fmt::print("tuning {} on device {}: {} ({}), {}x{}x{}, at most {} candidate parameter sets "
             "(other code forms only on the fastest {} sets, other layouts on the fastest {})\n",
             step.name, device.ordinal, device.name, device.driver, options.sizes.rows1,
             options.sizes.colsrows, options.sizes.cols2, tuning_candidates(families, device.caps),
             kFormFinalists, kLayoutFinalists);
  ProgressLine progress(stderr, false); // each trial on a terminal; a pipe gets the summary
  std::vector<Trial> trials = tune_families(
      runner, families, device.caps, options,
      [&](const Trial &trial, size_t done, size_t all) {
        const StepRun &run = trial.run;
        std::string outcome =
            run.status == Status::verified
                ? fmt::format("{:.2f} GFLOPS", *run.gflops(run.kernel_seconds.min()))
                : std::string(status_name(run.status));
        std::string line = fmt::format("tune: [{}/{}] {} {}: {}", done, all, trial.kernel_file,
                                       params_text(trial.params), outcome);
        if (run.status == Status::wrong) // a kernel bug, not a set that did not fit: kept
          progress.print(stderr, fmt::format("{} ({})", line, run.message));
        progress.show(line);
      },
      command.max_trials.value_or(std::numeric_limits<size_t>::max()));
  progress.clear();
  std::vector<const Trial *> passed;
  for (const Trial &trial : trials)
    if (verified(trial))
      passed.push_back(&trial);
  if (passed.empty())
    throw Error(ExitCode::bridge_failure,
                fmt::format("no parameter set of {} ran and verified on this device", step.name));
  fmt::print("\nfastest of {} verified ({} failed or did not fit):\n", passed.size(),
             trials.size() - passed.size());
  for (size_t i = 0; i < std::min<size_t>(passed.size(), 8); ++i) {
    const Trial &trial = *passed[i];
    fmt::print("  {:9.2f} GFLOPS  {:<28} {}\n", *trial.run.gflops(trial.run.kernel_seconds.min()),
               trial.kernel_file, params_text(trial.params));
  }
  const Trial &best = *passed.front();
  TunedEntry entry = tuned_entry(device.caps, step.name, options.sizes);
  entry.kernel_file = best.kernel_file;
  entry.params = best.params;
  entry.gflops = *best.run.gflops(best.run.kernel_seconds.min());
  entry.measured = utc_now();
  cache_tuned(entry);
  return 0;
}

} // namespace mqlcl::replay
