// The article's curve as a hand-written SVG: OpenCL time and GFLOPS per step, one line per device,
// this run's results plus saved ones (--overlay), like the author's comparison chart in the
// article's comments.
#pragma once

#include "json.hpp"
#include "runner.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

struct ChartPoint {
  std::optional<double> total_s;  // "OpenCL total" (the best of --repeat)
  std::optional<double> kernel_s; // the kernel alone (the best of --repeat)
  double flops = 0;               // 2 * ROWS1 * COLS2 * COLSROWS
  bool wrong = false;             // the product failed verification: the time of a wrong answer
};

struct ChartSeries {
  std::string label;
  std::map<std::string, ChartPoint> points; // by step name
};

// This run's results as one series per device.
std::vector<ChartSeries> series_from_runs(const std::vector<StepRun> &runs);

// A results file written with --format json (or the article's figures in docs/results/): one
// series per device, or the file's "label" when it has one. Throws Error(bad_input).
std::vector<ChartSeries> load_results(const std::filesystem::path &file);

// Series with the same label (several saved runs of one device) become one, keeping each step's
// best (smallest) times, as benchmarks report the minimum.
std::vector<ChartSeries> merge_series(std::vector<ChartSeries> series);

// The SVG text. Steps follow `order`, connected by lines; any others come after, as markers.
std::string chart_svg(const std::vector<ChartSeries> &series,
                      const std::vector<std::string> &order);

void write_chart(const std::filesystem::path &file, const std::vector<ChartSeries> &series,
                 const std::vector<std::string> &order);

// A benchmark's results (the tree `mqlcl-replay bench` writes with --output): for each size, the
// GFLOPS of every step and anchor as a bar on a log scale, with the device's limits as dashed
// lines. Throws Error(bad_input) when the tree holds no measured size.
std::string bench_chart_svg(const Json &bench);

// True when `file` is a benchmark's results rather than a replay's (--format json).
bool is_bench_results(const std::filesystem::path &file);

void write_bench_chart(const std::filesystem::path &chart, const Json &bench);
void write_bench_chart(const std::filesystem::path &chart, const std::filesystem::path &results);

} // namespace mqlcl::replay
