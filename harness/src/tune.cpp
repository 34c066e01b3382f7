// `mqlcl-replay tune STEP`: every valid parameter set of the step's kernels, replayed through the
// bridge on the chosen device and verified; the fastest verified one goes into the tuning cache.
#include "commands.hpp"

#include "bridge.hpp"
#include "paths.hpp"
#include "runner.hpp"
#include "tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>

namespace mqlcl::replay {

namespace {

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

} // namespace

std::vector<Trial>
tune_families(Runner &runner, const std::vector<Step> &families, const DeviceCaps &device,
              const Options &options,
              const std::function<void(const Trial &, size_t, size_t)> &progress) {
  size_t total = 0;
  for (const Step &family : families)
    total += candidate_params(family, device).size();
  Options run_options = options;
  run_options.run_cpu = false;
  run_options.repeat = std::max<uint32_t>(options.repeat, 3);
  run_options.random_checks = 0;
  run_options.params.clear(); // each candidate's own values
  Observer quiet;
  std::vector<Trial> trials;
  for (const Step &family : families)
    for (const Params &params : candidate_params(family, device)) {
      Step candidate = family;
      candidate.params = params;
      trials.push_back({family.kernel_file, params, runner.run(candidate, run_options, quiet)});
      progress(trials.back(), trials.size(), total);
    }
  auto verified = [](const Trial &t) {
    return t.run.status == Status::verified && !t.run.kernel_seconds.empty();
  };
  std::stable_sort(trials.begin(), trials.end(), [&](const Trial &a, const Trial &b) {
    if (verified(a) != verified(b))
      return verified(a);
    return verified(a) && a.run.kernel_seconds.min() < b.run.kernel_seconds.min();
  });
  return trials;
}

int run_tune_command(const CommandLine &command, const std::vector<Step> &catalogue) {
  const Step &step = *find_step(catalogue, command.steps.front());
  Bridge bridge(find_library(command.library));
  Runner runner(bridge, find_kernels(command.kernels));
  DeviceInfo device = runner.probe_device(command.options.device);
  std::vector<Step> families = tuning_families(step, device.caps);

  Options options = command.options;
  options.device = device.ordinal;
  size_t total = 0;
  for (const Step &family : families)
    total += candidate_params(family, device.caps).size();
  fmt::print("tuning {} on device {}: {} ({}), {}x{}x{}, {} candidate parameter sets\n", step.name,
             device.ordinal, device.name, device.driver, options.sizes.rows1,
             options.sizes.colsrows, options.sizes.cols2, total);
  std::vector<Trial> trials = tune_families(
      runner, families, device.caps, options, [](const Trial &trial, size_t done, size_t all) {
        const StepRun &run = trial.run;
        std::string outcome =
            run.status == Status::verified
                ? fmt::format("{:9.2f} GFLOPS", *run.gflops(run.kernel_seconds.min()))
                : fmt::format("{} ({})", status_name(run.status), run.message.substr(0, 60));
        fmt::print(stderr, "[{:>3}/{}] {:<28} {:<60} {}\n", done, all, trial.kernel_file,
                   params_text(trial.params), outcome);
      });
  std::vector<const Trial *> verified;
  for (const Trial &trial : trials)
    if (trial.run.status == Status::verified && !trial.run.kernel_seconds.empty())
      verified.push_back(&trial);
  if (verified.empty())
    throw Error(ExitCode::bridge_failure,
                fmt::format("no parameter set of {} ran and verified on this device", step.name));
  fmt::print("\nfastest of {} verified ({} failed or did not fit):\n", verified.size(),
             trials.size() - verified.size());
  for (size_t i = 0; i < std::min<size_t>(verified.size(), 8); ++i) {
    const Trial &trial = *verified[i];
    fmt::print("  {:9.2f} GFLOPS  {:<28} {}\n", *trial.run.gflops(trial.run.kernel_seconds.min()),
               trial.kernel_file, params_text(trial.params));
  }
  const Trial &best = *verified.front();
  TunedEntry entry;
  entry.kernel_file = best.kernel_file;
  entry.params = best.params;
  entry.sizes = options.sizes;
  entry.gflops = *best.run.gflops(best.run.kernel_seconds.min());
  entry.measured = utc_now();
  std::filesystem::path cache = tuning_cache_path();
  store_tuned(cache, device.caps.tuning_key, step.name, entry);
  fmt::print("cached for \"{}\" in {}\n", device.caps.tuning_key, cache.string());
  return 0;
}

} // namespace mqlcl::replay
