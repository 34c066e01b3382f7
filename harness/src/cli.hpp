// mqlcl-replay's command line.
#pragma once

#include "gemm/tuning_file.hpp"

#include "runner.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

enum class Format { text, json, csv };

// What mqlcl-replay does: replay scripts (the default), tune a step, or benchmark.
enum class Mode { replay, tune, bench, gemm, gemm_database };

// The tuner's steps whose parameters CLGemm takes (bridge/src/gemm/tuning_file.hpp): FP32, TF32
// and FP32-accurate; `tune --gemm` tunes these only, `--double` the first.
inline constexpr const char *kGemmForms[] = {gemm::kExactStep, gemm::kTf32Step,
                                             gemm::kAccurateStep};
// CLGemm's layouts of A and B (T: stored transposed), as `tune --gemm` takes them.
using gemm::kLayouts;

struct CommandLine {
  Mode mode = Mode::replay;
  std::string subcommand;            // as named on the command line; empty where replay is implied
  std::vector<uint32_t> bench_sizes; // bench --sizes
  std::vector<uint32_t> host_sizes;  // bench --host-sizes
  bool host_only = false;            // bench --host-only
  std::optional<std::filesystem::path> output; // bench --output FILE.json
  std::vector<std::string> steps; // catalogue names, in the order given; "all" expanded
  bool list = false;
  bool list_devices = false;
  bool help = false;
  bool version = false;
  Options options;
  Format format = Format::text;
  std::optional<std::filesystem::path> chart;
  std::vector<std::filesystem::path> overlays;
  std::optional<std::filesystem::path> kernels;
  std::optional<std::filesystem::path> library;
  std::optional<std::string> gemm_layout; // tune --gemm: one of kLayouts
  std::optional<std::string> gemm_cases;  // gemm --cases: a regular expression over case names
  std::optional<uint64_t> max_trials;     // tune --trials: the trials it may run at most
  bool gemm_accurate = false; // --accurate: tune the Ozaki scheme; gemm the ACCURATE rows only
  // gemm-database: the tuner's files, and the vendor and architecture of devices they do not name
  std::vector<std::filesystem::path> tuning_files;
  std::string gemm_vendor, gemm_architecture;
};

// Throws Error(bad_input) with a message that says what was wrong and what would be right.
CommandLine parse_command_line(const std::vector<std::string> &args,
                               const std::vector<Step> &catalogue);

// --help: the whole program's, and one subcommand's (replay, tune, bench, gemm, gemm-database,
// chart), with every option it takes.
std::string usage();
std::string subcommand_usage(const std::string &name);

} // namespace mqlcl::replay
