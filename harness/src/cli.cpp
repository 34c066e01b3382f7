#include "cli.hpp"

#include "error.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>

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

// What the run subcommands (replay, tune, bench, gemm) take, as given: CLI11 collects the text and
// the conversions below check it, so that every message says what would be right.
struct RawOptions {
  std::vector<std::string> scripts, overlays, params;
  std::map<std::string, std::string> values; // by option name
  bool help = false, version = false, list = false, list_devices = false, no_cpu = false,
       double_precision = false;
  std::map<std::string, const CLI::Option *> options; // by name, to ask whether one was given
  bool given(const std::string &name) const { return options.at(name)->count() > 0; }
  const std::string &value(const std::string &name) const { return values.at(name); }
};

const std::vector<std::string> kFlags{"--help",         "--version", "--list",
                                      "--list-devices", "--no-cpu",  "--double"};
const std::vector<std::string> kValues{
    "--device", "--size",  "--rows1",   "--colsrows", "--cols2",  "--local", "--repeat", "--seed",
    "--format", "--chart", "--kernels", "--library",  "--output", "--sizes", "--gemm"};

void add_run_options(CLI::App &app, RawOptions &raw) {
  app.allow_extras(); // unknown options are refused below, in mqlcl-replay's words
  app.allow_windows_style_options(false); // CLI11's default on Windows reads "/path" as an option
  raw.options["--help"] = app.add_flag("-h,--help", raw.help);
  raw.options["--version"] = app.add_flag("--version", raw.version);
  raw.options["--list"] = app.add_flag("--list", raw.list);
  raw.options["--list-devices"] = app.add_flag("--list-devices", raw.list_devices);
  raw.options["--no-cpu"] = app.add_flag("--no-cpu", raw.no_cpu);
  raw.options["--double"] = app.add_flag("--double", raw.double_precision);
  for (const std::string &name : kValues)
    raw.options[name] = app.add_option(name, raw.values[name])
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // One value each time they are given, as many times as given.
  raw.options["--overlay"] =
      app.add_option("--overlay", raw.overlays)->expected(1)->allow_extra_args(false)->take_all();
  raw.options["--param"] =
      app.add_option("--param", raw.params)->expected(1)->allow_extra_args(false)->take_all();
  raw.options["scripts"] = app.add_option("scripts", raw.scripts)->take_all();
}

// A flag given a value (--no-cpu=1): CLI11 would take it as the flag's count.
void refuse_flag_values(const std::vector<std::string> &args) {
  for (const std::string &arg : args) {
    size_t equals = arg.find('=');
    if (arg.rfind("--", 0) == 0 && equals != std::string::npos &&
        std::find(kFlags.begin(), kFlags.end(), arg.substr(0, equals)) != kFlags.end())
      bad_input(fmt::format("{} takes no value", arg.substr(0, equals)));
  }
}

void refuse_unknown_options(const CLI::App &app) {
  for (const std::string &arg : app.remaining())
    if (arg.size() > 1 && arg[0] == '-')
      bad_input(
          fmt::format("unknown option {} (mqlcl-replay --help)", arg.substr(0, arg.find('='))));
}

// CLI11's own refusals (an option without its value), in mqlcl-replay's words.
[[noreturn]] void refuse_parse_error(const CLI::ParseError &error) {
  std::string what = error.what();
  if (dynamic_cast<const CLI::ArgumentMismatch *>(&error) != nullptr)
    bad_input(
        fmt::format("{} needs a value (mqlcl-replay --help)", what.substr(0, what.find(':'))));
  bad_input(fmt::format("{} (mqlcl-replay --help)", what));
}

void parse_with(CLI::App &app, const std::vector<std::string> &args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend()); // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError &error) {
    refuse_parse_error(error);
  }
}

uint32_t dimension(const std::string &option, const std::string &text) {
  return static_cast<uint32_t>(parse_unsigned(option, text, 1, kMaxSize));
}

std::vector<uint32_t> local_sizes(const std::string &text) {
  std::vector<std::string> parts = split(text, ',');
  if (parts.size() > 3)
    bad_input(fmt::format("--local {}: at most 3 sizes (X[,Y[,Z]])", text));
  std::vector<uint32_t> local;
  for (const std::string &part : parts)
    local.push_back(dimension("--local", part));
  return local;
}

Format format_named(const std::string &format) {
  if (format == "text")
    return Format::text;
  if (format == "json")
    return Format::json;
  if (format == "csv")
    return Format::csv;
  bad_input(fmt::format("--format {}: expected text, json or csv", format));
}

void add_param(Params &params, const std::string &text) {
  size_t equals = text.find('=');
  std::string name = text.substr(0, equals);
  if (equals == std::string::npos || name.empty() ||
      name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") != std::string::npos)
    bad_input(fmt::format("--param {}: expected NAME=VALUE with an upper-case NAME, such "
                          "as --param BM=64",
                          text));
  params[name] = static_cast<int64_t>(parse_unsigned("--param " + name, text.substr(equals + 1),
                                                     param_may_be_zero(name) ? 0 : 1, 1u << 20));
}

// The sizes of the product: --size for all three, each overridden by its own option.
Sizes sizes_of(const RawOptions &raw) {
  uint32_t size = raw.given("--size") ? dimension("--size", raw.value("--size")) : 2000;
  auto one = [&](const char *name) {
    return raw.given(name) ? dimension(name, raw.value(name)) : size;
  };
  return {one("--rows1"), one("--colsrows"), one("--cols2")};
}

// The options as numbers, paths and names.
void convert(const RawOptions &raw, CommandLine &command, const std::vector<Step> &catalogue) {
  command.help = raw.help;
  command.version = raw.version;
  command.list = raw.list;
  command.list_devices = raw.list_devices;
  command.options.run_cpu = !raw.no_cpu;
  command.options.double_precision = raw.double_precision;
  for (const std::string &scripts : raw.scripts)
    for (const std::string &name : split(scripts, ','))
      add_step(command, name, catalogue);
  if (raw.given("--device"))
    command.options.device = static_cast<int32_t>(
        parse_unsigned("--device", raw.value("--device"), 0, std::numeric_limits<int32_t>::max()));
  command.options.sizes = sizes_of(raw);
  if (raw.given("--local"))
    command.options.local = local_sizes(raw.value("--local"));
  if (raw.given("--repeat"))
    command.options.repeat =
        static_cast<uint32_t>(parse_unsigned("--repeat", raw.value("--repeat"), 1, 1000));
  if (raw.given("--seed"))
    command.options.seed =
        parse_unsigned("--seed", raw.value("--seed"), 0, std::numeric_limits<uint32_t>::max());
  if (raw.given("--format"))
    command.format = format_named(raw.value("--format"));
  for (const std::string &param : raw.params)
    add_param(command.options.params, param);
  if (raw.given("--sizes"))
    for (const std::string &part : split(raw.value("--sizes"), ','))
      command.bench_sizes.push_back(
          static_cast<uint32_t>(parse_unsigned("--sizes", part, 1, 65536)));
  for (const auto &[name, into] : {std::pair{"--chart", &command.chart},
                                   {"--output", &command.output},
                                   {"--kernels", &command.kernels},
                                   {"--library", &command.library}})
    if (raw.given(name))
      *into = raw.value(name);
  command.overlays.assign(raw.overlays.begin(), raw.overlays.end());
  if (raw.given("--gemm")) {
    const std::string &layout = raw.value("--gemm");
    if (std::find(std::begin(kLayouts), std::end(kLayouts), layout) == std::end(kLayouts))
      bad_input(fmt::format("--gemm {}: the layout is NN, NT, TN or TT (A, then B; T: stored "
                            "transposed)",
                            layout));
    command.gemm_layout = layout;
  }
}

// What no single option can say: combinations, and what each subcommand needs.
void check_combinations(const CommandLine &command, const std::vector<Step> &catalogue) {
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
    if (step->tuning == DeviceTuning::none)
      bad_input(fmt::format("{} is not tuned per device; the tunable steps are matr_mul_tuned "
                            "and the tensor-core steps (mqlcl-replay --list marks them)",
                            step->name));
    if (command.gemm_layout &&
        std::find(std::begin(kGemmForms), std::end(kGemmForms), step->name) == std::end(kGemmForms))
      bad_input(fmt::format("tune {} --gemm: CLGemm runs the parameters of matr_mul_tuned (FP32), "
                            "matr_mul_wgmma_tma_tf32 (TF32) and matr_mul_wgmma_tma_3xtf32 "
                            "(FP32-accurate)",
                            step->name));
    if (command.options.double_precision && (!command.gemm_layout || step->name != kGemmForms[0]))
      bad_input("tune --double: the double product is tuned as CLGemm runs it, apart from the "
                "FP32 one: mqlcl-replay tune matr_mul_tuned --gemm LAYOUT --double");
  } else if (command.gemm_layout) {
    bad_input("--gemm LAYOUT belongs to mqlcl-replay tune");
  }
  if (command.mode == Mode::gemm) {
    if (!command.steps.empty())
      bad_input("gemm takes no script: it times the library's CLGemm (--sizes, --repeat, "
                "--output, --device)");
  } else if (command.mode == Mode::replay) {
    if (!command.bench_sizes.empty() || command.output)
      bad_input("--sizes and --output belong to mqlcl-replay bench");
    if (command.steps.empty() && !command_given)
      bad_input("name a script, or all (mqlcl-replay --list shows them; --help shows the options)");
  }
}

// gemm-database FILE.json ... [--vendor 0xNNNN] [--architecture NAME] [--output FILE]
CommandLine parse_gemm_database(const std::vector<std::string> &args) {
  CommandLine command;
  command.mode = Mode::gemm_database;
  CLI::App app("mqlcl-replay gemm-database", "mqlcl-replay gemm-database");
  app.allow_windows_style_options(false); // "/tmp/x.json" is a path, not an option
  app.set_help_flag();
  app.allow_extras();
  std::string output;
  std::vector<std::string> files;
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--vendor", command.gemm_vendor);
  app.add_option("--architecture", command.gemm_architecture);
  const CLI::Option *output_option = app.add_option("--output", output);
  app.add_option("files", files)->take_all();
  parse_with(app, args);
  for (const std::string &arg : app.remaining())
    bad_input(
        fmt::format("gemm-database takes --vendor, --architecture and --output, not {}", arg));
  if (output_option->count() > 0)
    command.output = output;
  command.tuning_files.assign(files.begin(), files.end());
  if (command.tuning_files.empty())
    bad_input("gemm-database needs the tuner's JSON files (mqlcl-replay --help)");
  return command;
}

// chart FILE.svg RESULTS.json ...: saved results drawn, as --chart FILE.svg --overlay RESULTS.json.
CommandLine parse_chart(const std::vector<std::string> &args) {
  CommandLine command;
  CLI::App app("mqlcl-replay chart", "mqlcl-replay chart");
  app.allow_windows_style_options(false); // "/tmp/x.json" is a path, not an option
  app.set_help_flag();
  app.allow_extras();
  std::vector<std::string> files;
  app.add_option("files", files)->take_all();
  parse_with(app, args);
  refuse_unknown_options(app);
  if (files.size() < 2)
    bad_input("chart takes the chart to write and the results to draw: mqlcl-replay chart "
              "FILE.svg RESULTS.json ...");
  command.chart = files.front();
  command.overlays.assign(files.begin() + 1, files.end());
  return command;
}

// The subcommands that run steps, and the mode each selects.
std::optional<Mode> run_mode_named(const std::string &name) {
  if (name == "replay")
    return Mode::replay;
  if (name == "tune")
    return Mode::tune;
  if (name == "bench")
    return Mode::bench;
  if (name == "gemm")
    return Mode::gemm;
  return std::nullopt;
}

// replay (the default: scripts named first), tune, bench and gemm share their options.
CommandLine parse_run(const std::vector<std::string> &args, const std::vector<Step> &catalogue) {
  CommandLine command;
  std::optional<Mode> named = args.empty() ? std::nullopt : run_mode_named(args[0]);
  command.mode = named.value_or(Mode::replay);
  std::vector<std::string> rest(args.begin() + (named ? 1 : 0), args.end());
  refuse_flag_values(rest);
  CLI::App app("mqlcl-replay", "mqlcl-replay");
  app.allow_windows_style_options(false); // "/tmp/x.json" is a path, not an option
  app.set_help_flag();                    // --help prints usage(), below
  RawOptions raw;
  add_run_options(app, raw);
  parse_with(app, rest);
  refuse_unknown_options(app);
  convert(raw, command, catalogue);
  check_combinations(command, catalogue);
  return command;
}

} // namespace

CommandLine parse_command_line(const std::vector<std::string> &args,
                               const std::vector<Step> &catalogue) {
  const std::string first = args.empty() ? "" : args[0];
  if (first == "gemm-database" || first == "chart") {
    std::vector<std::string> rest(args.begin() + 1, args.end());
    return first == "chart" ? parse_chart(rest) : parse_gemm_database(rest);
  }
  return parse_run(args, catalogue);
}

std::string usage() {
  return R"(usage: mqlcl-replay [replay] <script>[,<script>...]|all [options]
       mqlcl-replay tune <step> [--size N] [--device N] [--gemm NN|NT|TN|TT]
       mqlcl-replay bench [<step>,...] [--sizes N,N,...] [--repeat R] [--output FILE.json]
                          [--chart FILE.svg]
       mqlcl-replay gemm [--sizes N,N,...] [--repeat R] [--output FILE.json]
       mqlcl-replay gemm-database FILE.json ... [--vendor ID --architecture NAME] [--output F]
       mqlcl-replay chart FILE.svg RESULTS.json ...
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

replay      (the default subcommand) replays the scripts named
chart       draws saved results (--format json or bench --output) into FILE.svg, as
            --chart FILE.svg --overlay RESULTS.json does
tune        measures every valid parameter set of a step on the device and caches the
            fastest, keyed by device and driver (MQLCL_TUNE_CACHE, else ~/.cache/mqlcl/);
            with --gemm LAYOUT, tunes the library's CLGemm itself (matr_mul_tuned: FP32,
            matr_mul_wgmma_tma_tf32, matr_mul_wgmma_tma_3xtf32) for that layout of A and B
            (T: stored transposed): from the set it runs now, one parameter at a time, each
            trial a fresh CLGemm verified element by element; its cache entry is what CLGemm
            reads first; with --double, the double product (matr_mul_tuned only)
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
