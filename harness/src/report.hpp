// Reporting: the article's log lines (text), one JSON document, or CSV rows. docs/replay.md
// documents every line and field; the MQL5 scripts print the same text lines.
#pragma once

#include "runner.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mqlcl::replay {

// Prints a replay as it happens: the article's lines (when `article_lines`) on `out`, errors on
// `err`, and the CPU loop's progress on `err` when `progress` (for a terminal).
std::unique_ptr<Observer> make_console_observer(std::FILE *out, std::FILE *err, bool article_lines,
                                                bool progress);

// One line per run: total and kernel time, GFLOPS, CPU time, result (after a multi-step text run).
std::string summary_table(const std::vector<StepRun> &runs);

// Where a run's parts came from, recorded with its results.
struct Provenance {
  std::string generator; // "mqlcl-replay 1.0.0"
  std::string library;   // the bridge that was loaded
  std::string kernels;   // the kernels directory
};

// {"format": "mqlcl-replay/1", "generator": ..., "runs": [...]}: one self-contained object per
// run (docs/replay.md, "JSON").
std::string to_json(const std::vector<StepRun> &runs, const Provenance &provenance = {});
// A header line and one row per run.
std::string to_csv(const std::vector<StepRun> &runs);

// The text report of a command that prints JSON instead with --format json (bench, gemm): lines
// on `out` (stdout), or nothing, so that the JSON is all stdout holds. Each piece is flushed as it
// is printed: redirected to a log, stdout is fully buffered, and a run stopped by a time limit
// would otherwise leave none of the rows it had finished.
class TextReport {
public:
  explicit TextReport(bool shown, std::FILE *out = stdout) : shown_(shown), out_(out) {}
  bool shown() const { return shown_; }
  template <class... Args>
  void operator()(fmt::format_string<Args...> format, Args &&...args) const {
    if (!shown_)
      return;
    fmt::print(out_, format, std::forward<Args>(args)...);
    std::fflush(out_);
  }

private:
  bool shown_;
  std::FILE *out_;
};

} // namespace mqlcl::replay
