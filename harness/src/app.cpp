#include "app.hpp"

#include "bridge.hpp"
#include "catalogue.hpp"
#include "chart.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "error.hpp"
#include "paths.hpp"
#include "platform.hpp"
#include "report.hpp"
#include "runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>

namespace mqlcl::replay {

namespace {

std::string launch_of(const Step &step) {
  return step.geometry != nullptr ? step.geometry->description : "host only";
}

std::string catalogue_listing(const std::vector<Step> &steps) {
  std::string out = "The article's ten scripts (all runs them in this order), then the extras:\n";
  bool extras = false;
  for (const Step &step : steps) {
    if (!step.in_article && !extras) {
      out += "\nNot in the article:\n";
      extras = true;
    }
    out += fmt::format("  {:<26} {}\n", step.name, step.source);
    out += fmt::format("  {:<26} {}\n", "", step.change);
    std::string details = launch_of(step);
    if (!step.kernel_file.empty())
      details += fmt::format("; kernels/{}; second matrix {}", step.kernel_file,
                             layout_name(step.layout_b));
    for (const Constraint &constraint : step.constraints)
      details +=
          fmt::format("; {} a multiple of {}", dim_name(constraint.dim), constraint.multiple_of);
    if (!step.race.empty())
      details += fmt::format("; has a race as printed (fixed: {})", step.fixed_by);
    if (!step.params.empty()) {
      details += "; parameters";
      for (const auto &[name, value] : step.params)
        details += fmt::format(" {}={}", name, value);
    }
    if (pass_scratch(step, Sizes{}).active())
      details += fmt::format("; {} first through {} (timed with the product)",
                             step.operand_pass->operand_a ? "both operands" : "B",
                             step.operand_pass->kernel_name);
    if (step.tensor_maps)
      details += step.tensor_maps->rows_param_b.empty()
                     ? "; A read through a tensor map (CLBufferTensorMap)"
                     : "; both operands read through tensor maps (CLBufferTensorMap)";
    if (step.requirement == Requirement::nvidia_tensor_cores)
      details += "; NVIDIA tensor cores only (compute capability 8.0+)";
    if (step.requirement == Requirement::nvidia_wgmma)
      details += "; NVIDIA tensor cores only, through wgmma (compute capability 9.0)";
    if (step.requirement == Requirement::nvidia_tensor_maps)
      details += "; NVIDIA tensor cores only, through wgmma and tensor maps (compute capability "
                 "9.0 and the CUDA driver)";
    out += fmt::format("  {:<26} {}\n", "", details);
  }
  return out;
}

// The catalogue as rows for scripts (tools/gpu-measure.sh picks its lists from them): whether each
// step is one of the article's ten, in bench's default list, beyond the article there, tuned per
// device, and a TF32 product (inputs rounded to 10 mantissa bits); its requirement.
std::string catalogue_csv(const std::vector<Step> &steps) {
  std::string out = "step,article,bench,beyond,tuned,tf32,requirement\n";
  auto yes = [](bool value) { return value ? "yes" : "no"; };
  for (const Step &step : steps) {
    const char *requirement =
        step.requirement == Requirement::nvidia_wgmma          ? "nvidia_wgmma"
        : step.requirement == Requirement::nvidia_tensor_maps  ? "nvidia_tensor_maps"
        : step.requirement == Requirement::nvidia_tensor_cores ? "nvidia_tensor_cores"
                                                               : "none";
    out +=
        fmt::format("{},{},{},{},{},{},{}\n", step.name, yes(step.in_article), yes(step.in_bench),
                    yes(step.in_bench && !step.in_article), yes(step.tuning != DeviceTuning::none),
                    yes(arithmetic_of(step).inputs != InputRounding::none), requirement);
  }
  return out;
}

// The most telling status of several runs: wrong results, then failures, then rejections.
ExitCode combined(const std::vector<StepRun> &runs) {
  ExitCode worst = ExitCode::ok;
  auto rank = [](ExitCode code) {
    switch (code) {
    case ExitCode::wrong_results:
      return 3;
    case ExitCode::bridge_failure:
      return 2;
    case ExitCode::bad_input:
      return 1;
    case ExitCode::ok:
      return 0;
    }
    return 0;
  };
  for (const StepRun &run : runs)
    if (rank(exit_code_of(run.status)) > rank(worst))
      worst = exit_code_of(run.status);
  return worst;
}

bool needs_kernels(const CommandLine &command, const std::vector<Step> &catalogue) {
  for (const std::string &name : command.steps)
    if (!find_step(catalogue, name)->kernel_file.empty())
      return true;
  return false;
}

std::string version_string() {
  return fmt::format("mqlcl-replay {}.{}.{}", MQLCL_VERSION_MAJOR, MQLCL_VERSION_MINOR,
                     MQLCL_VERSION_PATCH);
}

// --help, --version and the subcommands other than replay: their exit status, or nothing when the
// command line asks for a replay (or a listing, or a chart).
std::optional<int> run_other_command(const CommandLine &command,
                                     const std::vector<Step> &catalogue) {
  if (command.help) {
    fmt::print("{}", command.subcommand.empty() ? usage() : subcommand_usage(command.subcommand));
    return 0;
  }
  if (command.version) {
    fmt::print("{}\n", version_string());
    return 0;
  }
  switch (command.mode) {
  case Mode::tune:
    return run_tune_command(command, catalogue);
  case Mode::bench:
    return run_bench_command(command, catalogue);
  case Mode::gemm:
    return run_gemm_command(command);
  case Mode::gemm_database:
    return run_gemm_database_command(command);
  case Mode::replay:
    break;
  }
  return std::nullopt;
}

void say_chart_written(const std::filesystem::path &chart) {
  fmt::print(stderr, "mqlcl-replay: chart written to {}\n", chart.string());
}

// Overlays are read before anything runs, so a bad file does not cost a long replay.
std::vector<ChartSeries> load_overlays(const std::vector<std::filesystem::path> &files) {
  std::vector<ChartSeries> overlays;
  for (const std::filesystem::path &file : files)
    for (ChartSeries &series : load_results(file))
      overlays.push_back(std::move(series));
  return overlays;
}

// The article's sequence, which the chart connects; variants are drawn apart.
std::vector<std::string> article_order(const std::vector<Step> &catalogue) {
  std::vector<std::string> order;
  for (const Step &step : catalogue)
    if (step.in_article)
      order.push_back(step.name);
  return order;
}

// --list-devices: the bridge's device list, or an error when there is no device.
void print_devices(const Bridge &bridge) {
  if (bridge.api().CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT) <= 0)
    throw Error(ExitCode::bridge_failure,
                "no OpenCL device: install an OpenCL driver (pocl-opencl-icd for the CPU)");
  fmt::print("{}", bridge.info_string(0, MQLCL_CL_DEVICE_LIST, "CL_DEVICE_LIST"));
}

// The runs in the format asked for: a summary table after several in text (each run printed its
// own lines as it went), the whole tree in JSON, rows in CSV.
void print_runs(const std::vector<StepRun> &runs, const CommandLine &command, const Bridge &bridge,
                const std::filesystem::path &kernels) {
  if (command.format == Format::text && runs.size() > 1)
    fmt::print("\n{}", summary_table(runs));
  else if (command.format == Format::json)
    fmt::print("{}", to_json(runs, {version_string(), bridge.path().string(), kernels.string()}));
  else if (command.format == Format::csv)
    fmt::print("{}", to_csv(runs));
  std::fflush(stdout);
}

// Runs the steps named on the command line through the bridge, prints them, and charts them with
// the overlays when asked to.
int replay_named_steps(const CommandLine &command, const std::vector<Step> &catalogue,
                       std::vector<ChartSeries> overlays) {
  std::filesystem::path kernels;
  if (needs_kernels(command, catalogue))
    kernels = find_kernels(command.kernels);

  Bridge bridge(find_library(command.library));
  if (command.list_devices) {
    print_devices(bridge);
    if (command.steps.empty())
      return 0;
  }

  Runner runner(bridge, kernels);
  std::unique_ptr<Observer> observer =
      make_console_observer(stdout, stderr, command.format == Format::text,
                            command.format != Format::json && is_terminal(stderr));
  std::vector<StepRun> runs;
  for (const std::string &name : command.steps)
    runs.push_back(runner.run(*find_step(catalogue, name), command.options, *observer));
  print_runs(runs, command, bridge, kernels);

  if (command.chart) {
    std::vector<ChartSeries> series = series_from_runs(runs);
    for (ChartSeries &overlay : overlays)
      series.push_back(std::move(overlay));
    write_chart(*command.chart, merge_series(std::move(series)), article_order(catalogue));
    say_chart_written(*command.chart);
  }
  return static_cast<int>(combined(runs));
}

} // namespace

int run_replay_command(const std::vector<std::string> &args) {
  const std::vector<Step> &catalogue = replay_steps();
  CommandLine command = parse_command_line(args, catalogue);
  if (std::optional<int> status = run_other_command(command, catalogue))
    return *status;
  if (command.list) {
    fmt::print("{}", command.format == Format::csv ? catalogue_csv(catalogue)
                                                   : catalogue_listing(catalogue));
    if (!command.list_devices && command.steps.empty())
      return 0;
  }

  const bool nothing_to_run = command.steps.empty() && !command.list_devices;
  // A saved benchmark is a chart of its own kind (bars per size, not the article's curve).
  if (command.chart && nothing_to_run &&
      std::any_of(command.overlays.begin(), command.overlays.end(), is_bench_results)) {
    if (command.overlays.size() != 1)
      bad_input("a benchmark's chart draws one results file (bench --output), alone");
    write_bench_chart(*command.chart, command.overlays.front());
    say_chart_written(*command.chart);
    return 0;
  }
  std::vector<ChartSeries> overlays = load_overlays(command.overlays);
  if (nothing_to_run) { // a chart of saved results only
    write_chart(*command.chart, merge_series(std::move(overlays)), article_order(catalogue));
    say_chart_written(*command.chart);
    return 0;
  }
  return replay_named_steps(command, catalogue, std::move(overlays));
}

} // namespace mqlcl::replay
