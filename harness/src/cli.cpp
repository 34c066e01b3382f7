#include "cli.hpp"

#include "error.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <limits>

namespace mqlcl::replay {

namespace {

uint64_t parse_unsigned(const std::string &option, const std::string &text, uint64_t low,
                        uint64_t high) {
  bool digits = !text.empty() && text.size() <= 20 &&
                text.find_first_not_of("0123456789") == std::string::npos;
  uint64_t value = 0;
  if (digits) {
    for (char c : text) {
      uint64_t digit = static_cast<uint64_t>(c - '0');
      if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
        digits = false;
        break;
      }
      value = value * 10 + digit;
    }
  }
  if (!digits || value < low || value > high)
    bad_input(fmt::format("{} {}: expected a whole number from {} to {}", option,
                          text.empty() ? "(empty)" : "'" + text + "'", low, high));
  return value;
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

void add_step(CommandLine &command, const std::string &name, const std::vector<Step> &catalogue) {
  if (name == "all") {
    for (const Step &step : catalogue)
      if (step.in_article)
        command.steps.push_back(step.name);
    return;
  }
  if (find_step(catalogue, name) != nullptr) {
    command.steps.push_back(name);
    return;
  }
  std::string close;
  for (const Step &step : catalogue)
    if (!name.empty() && step.name.find(name) != std::string::npos)
      close += (close.empty() ? "" : ", ") + step.name;
  bad_input(fmt::format("unknown script '{}'{}; mqlcl-replay --list shows them all", name,
                        close.empty() ? "" : " (did you mean " + close + "?)"));
}

constexpr uint64_t kMaxSize = std::numeric_limits<uint32_t>::max();

} // namespace

namespace {

// gemm-database FILE.json ... [--vendor 0xNNNN] [--architecture NAME] [--output FILE]
CommandLine parse_gemm_database(const std::vector<std::string> &args) {
  CommandLine command;
  command.mode = Mode::gemm_database;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &arg = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size())
        bad_input(fmt::format("{} needs a value (mqlcl-replay --help)", arg));
      return args[++i];
    };
    if (arg == "--vendor")
      command.gemm_vendor = value();
    else if (arg == "--architecture")
      command.gemm_architecture = value();
    else if (arg == "--output")
      command.output = value();
    else if (arg.rfind("-", 0) == 0)
      bad_input(
          fmt::format("gemm-database takes --vendor, --architecture and --output, not {}", arg));
    else
      command.tuning_files.emplace_back(arg);
  }
  if (command.tuning_files.empty())
    bad_input("gemm-database needs the tuner's JSON files (mqlcl-replay --help)");
  return command;
}

} // namespace

CommandLine parse_command_line(const std::vector<std::string> &args,
                               const std::vector<Step> &catalogue) {
  if (!args.empty() && args[0] == "gemm-database")
    return parse_gemm_database(args);
  CommandLine command;
  std::optional<uint32_t> size, rows1, colsrows, cols2;
  size_t first = 0;
  if (!args.empty() && (args[0] == "tune" || args[0] == "bench" || args[0] == "gemm")) {
    command.mode = args[0] == "tune" ? Mode::tune : args[0] == "bench" ? Mode::bench : Mode::gemm;
    first = 1;
  }
  for (size_t i = first; i < args.size(); ++i) {
    std::string arg = args[i];
    std::optional<std::string> inline_value;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      inline_value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
    }
    auto value = [&]() -> std::string {
      if (inline_value)
        return *inline_value;
      if (i + 1 >= args.size())
        bad_input(fmt::format("{} needs a value (mqlcl-replay --help)", arg));
      return args[++i];
    };
    auto flag = [&] {
      if (inline_value)
        bad_input(fmt::format("{} takes no value", arg));
    };
    auto dimension = [&] {
      return static_cast<uint32_t>(parse_unsigned(arg, value(), 1, kMaxSize));
    };

    if (arg == "--help" || arg == "-h") {
      flag();
      command.help = true;
    } else if (arg == "--version") {
      flag();
      command.version = true;
    } else if (arg == "--list") {
      flag();
      command.list = true;
    } else if (arg == "--list-devices") {
      flag();
      command.list_devices = true;
    } else if (arg == "--no-cpu") {
      flag();
      command.options.run_cpu = false;
    } else if (arg == "--double") {
      flag();
      command.options.double_precision = true;
    } else if (arg == "--device") {
      command.options.device = static_cast<int32_t>(
          parse_unsigned(arg, value(), 0, std::numeric_limits<int32_t>::max()));
    } else if (arg == "--size") {
      size = dimension();
    } else if (arg == "--rows1") {
      rows1 = dimension();
    } else if (arg == "--colsrows") {
      colsrows = dimension();
    } else if (arg == "--cols2") {
      cols2 = dimension();
    } else if (arg == "--local") {
      std::string text = value();
      std::vector<std::string> parts = split(text, ',');
      if (parts.size() > 3)
        bad_input(fmt::format("--local {}: at most 3 sizes (X[,Y[,Z]])", text));
      command.options.local.clear();
      for (const std::string &part : parts)
        command.options.local.push_back(
            static_cast<uint32_t>(parse_unsigned("--local", part, 1, kMaxSize)));
    } else if (arg == "--repeat") {
      command.options.repeat = static_cast<uint32_t>(parse_unsigned(arg, value(), 1, 1000));
    } else if (arg == "--seed") {
      command.options.seed = parse_unsigned(arg, value(), 0, std::numeric_limits<uint32_t>::max());
    } else if (arg == "--format") {
      std::string format = value();
      if (format == "text")
        command.format = Format::text;
      else if (format == "json")
        command.format = Format::json;
      else if (format == "csv")
        command.format = Format::csv;
      else
        bad_input(fmt::format("--format {}: expected text, json or csv", format));
    } else if (arg == "--chart") {
      command.chart = value();
    } else if (arg == "--overlay") {
      command.overlays.push_back(value());
    } else if (arg == "--param") {
      std::string text = value();
      size_t equals = text.find('=');
      std::string name = text.substr(0, equals);
      if (equals == std::string::npos || name.empty() ||
          name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") != std::string::npos)
        bad_input(fmt::format("--param {}: expected NAME=VALUE with an upper-case NAME, such "
                              "as --param BM=64",
                              text));
      command.options.params[name] = static_cast<int64_t>(parse_unsigned(
          "--param " + name, text.substr(equals + 1), param_may_be_zero(name) ? 0 : 1, 1u << 20));
    } else if (arg == "--sizes") {
      for (const std::string &part : split(value(), ','))
        command.bench_sizes.push_back(
            static_cast<uint32_t>(parse_unsigned("--sizes", part, 1, 65536)));
    } else if (arg == "--output") {
      command.output = value();
    } else if (arg == "--kernels") {
      command.kernels = value();
    } else if (arg == "--library") {
      command.library = value();
    } else if (arg.size() > 1 && arg[0] == '-') {
      bad_input(fmt::format("unknown option {} (mqlcl-replay --help)", arg));
    } else {
      for (const std::string &name : split(arg, ','))
        add_step(command, name, catalogue);
    }
  }
  command.options.sizes.rows1 = rows1.value_or(size.value_or(2000));
  command.options.sizes.colsrows = colsrows.value_or(size.value_or(2000));
  command.options.sizes.cols2 = cols2.value_or(size.value_or(2000));
  if (!command.overlays.empty() && !command.chart)
    bad_input("--overlay adds saved results to a chart: give --chart FILE.svg too");
  if (command.mode == Mode::bench && !command.overlays.empty())
    bad_input("bench --chart draws this run; a saved benchmark is drawn with "
              "mqlcl-replay --chart FILE.svg --overlay RESULTS.json");
  bool command_given = command.help || command.version || command.list || command.list_devices ||
                       (command.chart && !command.overlays.empty());
  if (command.mode == Mode::tune) {
    if (command.steps.size() != 1)
      bad_input("tune takes one step: mqlcl-replay tune matr_mul_tuned (or one of the "
                "tensor-core steps, matr_mul_tf32 ... matr_mul_wgmma_tf32_bf16)");
    const Step *step = find_step(catalogue, command.steps.front());
    if (step->resolve == nullptr)
      bad_input(fmt::format("{} is not tuned per device; the tunable steps are matr_mul_tuned "
                            "and the tensor-core steps (mqlcl-replay --list marks them)",
                            step->name));
  } else if (command.mode == Mode::gemm) {
    if (!command.steps.empty())
      bad_input("gemm takes no script: it times the library's CLGemm (--sizes, --repeat, "
                "--output, --device)");
  } else if (command.mode == Mode::replay) {
    if (!command.bench_sizes.empty() || command.output)
      bad_input("--sizes and --output belong to mqlcl-replay bench");
    if (command.steps.empty() && !command_given)
      bad_input("name a script, or all (mqlcl-replay --list shows them; --help shows the options)");
  }
  return command;
}

std::string usage() {
  return R"(usage: mqlcl-replay <script>[,<script>...]|all [options]
       mqlcl-replay tune <step> [--size N] [--device N]
       mqlcl-replay bench [<step>,...] [--sizes N,N,...] [--repeat R] [--output FILE.json]
                          [--chart FILE.svg]
       mqlcl-replay gemm [--sizes N,N,...] [--repeat R] [--output FILE.json]
       mqlcl-replay gemm-database FILE.json ... [--vendor ID --architecture NAME] [--output F]
       mqlcl-replay --chart FILE.svg --overlay FILE [--overlay FILE ...]
       mqlcl-replay --list | --list-devices | --help | --version

Replays the scripts of "OpenCL: From Naive Towards More Insightful Programming"
(mql5.com/en/articles/407) through the mqlcl bridge, checks every element of each
product against a double-precision reference and prints the article's log lines.

scripts     the names from --list; all = the article's ten, in its order
options
  --device N          OpenCL device ordinal (default: the bridge's first device, CL_USE_ANY)
  --size N            ROWS1 = COLSROWS = COLS2 = N (default 2000, the article's)
  --rows1 N, --colsrows N, --cols2 N
                      non-square sizes (each overrides --size)
  --local X[,Y]       work-group size (default: the runtime chooses, as in the article)
  --repeat R          replay CLExecute + CLBufferRead R times; report min and median
  --double            REALTYPE double instead of float (needs cl_khr_fp64)
  --no-cpu            skip the article's single-core CPU loop (CPUTime)
  --seed S            seed of the random matrices (default 2012)
  --format F          text (the article's lines, default), json or csv
  --chart FILE.svg    draw time and GFLOPS per step
  --overlay FILE      add results saved with --format json to the chart (repeatable), or
                      draw one benchmark's saved results (bench --output)
  --param NAME=VALUE  a kernel parameter of the steps beyond the article (tile sizes: --list);
                      1 or more; 0 is allowed for INFLIGHT, ROUND, PARTS, FLUSH and PAD
                      (switched off), for FMA_ORDER, POINTERS, GATHER and CARRY (the first
                      form) and for ROTATE_A, ROTATE_B and PAIRED_LANES (the first layout)
  --kernels DIR       kernel directory (default: MQLCL_KERNELS_DIR, then next to the program)
  --library PATH      the bridge (default: MQLCL_LIBRARY, then next to the program)

tune        measures every valid parameter set of a step on the device and caches the
            fastest, keyed by device and driver (MQLCL_TUNE_CACHE, else ~/.cache/mqlcl/)
bench       times the steps beyond the article against CLBlast, cuBLAS, OpenBLAS and the
            device's FP32 limit in one run; --output saves the figures as JSON, --chart
            draws them (GFLOPS per step, anchor and size, the limits as lines)
gemm        times the library's CLGemm as an MQL5 program calls it (squares at --sizes with
            B as stored and transposed, network shapes, double, a batch) against cuBLAS on
            NVIDIA GPUs and OpenBLAS on CPUs, every product verified; --output saves JSON
gemm-database
            writes the tuner's matr_mul_tuned entries as the source of CLGemm's compiled
            parameter database (bridge/src/gemm/database.inc); --vendor and --architecture
            name the device of files that do not (0x10DE, sm_90)

exit status: 0 verified, 1 wrong results, 2 bad input or a size a step rejects,
             3 the bridge or OpenCL failed
)";
}

} // namespace mqlcl::replay
