#include "cli.hpp"

#include "error.hpp"
#include "kernel_source.hpp"
#include "paths.hpp"
#include "tuning.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <regex>
#include <set>

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

// One option as a subcommand's --help shows it: its name, its argument (empty for a flag) and what
// it does there.
struct OptionHelp {
  std::string name, argument, meaning;
};

// A subcommand: how it is called, what it does, every option it takes (in its help's order) and
// the --format values it prints. The parser refuses any other option, and docs/replay.md lists
// these helps.
struct Subcommand {
  std::string name;
  Mode mode;
  std::string synopsis; // after "mqlcl-replay NAME "
  std::string summary;
  std::vector<OptionHelp> options;
  std::vector<std::string> formats;
  bool takes(const std::string &option) const {
    return option == "--help" || std::any_of(options.begin(), options.end(),
                                             [&](const OptionHelp &o) { return o.name == option; });
  }
};

OptionHelp device_option() {
  return {"--device", "N",
          "OpenCL device ordinal (default: the bridge's first device, CL_USE_ANY)"};
}

std::vector<OptionHelp> size_options(const std::string &default_size) {
  return {{"--size", "N", "ROWS1 = COLSROWS = COLS2 = N (default " + default_size + ")"},
          {"--rows1", "N", "ROWS1 alone, over --size (non-square products)"},
          {"--colsrows", "N", "COLSROWS alone, over --size"},
          {"--cols2", "N", "COLS2 alone, over --size"}};
}

std::vector<OptionHelp> path_options() {
  return {{"--kernels", "DIR",
           "kernel directory (default: MQLCL_KERNELS_DIR, then next to the program)"},
          {"--library", "PATH", "the bridge (default: MQLCL_LIBRARY, then next to the program)"}};
}

const char *kParamMeaning =
    "a kernel parameter of the steps beyond the article, one they take (--list shows them); 1 or "
    "more; 0 is allowed for INFLIGHT, ROUND, PARTS, FLUSH and PAD (switched off), for FMA_ORDER, "
    "POINTERS, GATHER and CARRY (the first form) and for ROTATE_A, ROTATE_B and PAIRED_LANES (the "
    "first layout)";

std::vector<OptionHelp> operator+(std::vector<OptionHelp> first,
                                  const std::vector<OptionHelp> &second) {
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

Subcommand replay_subcommand() {
  return {
      "replay",
      Mode::replay,
      "<script>[,<script>...]|all [options]",
      "replays the scripts named (mqlcl-replay --list shows them; all = the article's ten, in "
      "its order) through the bridge, checks every element of each product against a "
      "double-precision reference and prints the article's log lines; replay is the default "
      "subcommand, so mqlcl-replay <script> says the same",
      std::vector<OptionHelp>{device_option()} + size_options("2000, the article's") +
          std::vector<OptionHelp>{
              {"--local", "X[,Y]",
               "work-group size (default: the runtime chooses, as in the article)"},
              {"--repeat", "R", "replay CLExecute + CLBufferRead R times; report min and median"},
              {"--double", "", "REALTYPE double instead of float (needs cl_khr_fp64)"},
              {"--no-cpu", "", "skip the article's single-core CPU loop (CPUTime)"},
              {"--seed", "S", "seed of the random matrices (default 2012)"},
              {"--format", "F", "text (the article's lines, default), json or csv"},
              {"--chart", "FILE.svg", "draw time and GFLOPS per step"},
              {"--overlay", "FILE",
               "add results saved with --format json to the chart (repeatable), or draw one "
               "benchmark's saved results (bench --output)"},
              {"--param", "NAME=VALUE", kParamMeaning}} +
          path_options() +
          std::vector<OptionHelp>{
              {"--list", "",
               "the catalogue: every step, its kernel and parameters (--format csv: rows)"},
              {"--list-devices", "", "the bridge's OpenCL devices and their ordinals"},
              {"--version", "", "the program's version"}},
      {"text", "json", "csv"}};
}

Subcommand tune_subcommand() {
  return {"tune",
          Mode::tune,
          "<step> [options]",
          "measures every valid parameter set of a step on the device and caches the fastest, "
          "keyed by device and driver (MQLCL_TUNE_CACHE, else ~/.cache/mqlcl/); with --gemm "
          "LAYOUT, tunes the library's CLGemm itself (matr_mul_tuned: FP32, "
          "matr_mul_wgmma_tma_tf32, matr_mul_wgmma_tma_3xtf32) for that layout of A and B (T: "
          "stored transposed): from the set it runs now, one parameter at a time, each trial a "
          "fresh CLGemm verified element by element; CLGemm then runs its cache entry at that "
          "shape and wherever it is nearer than the database's sets",
          std::vector<OptionHelp>{device_option()} + size_options("2000") +
              std::vector<OptionHelp>{
                  {"--local", "X[,Y]", "work-group size of every trial (not with --gemm)"},
                  {"--repeat", "R",
                   "replays of each trial, the minimum kept (at least 3; 5 with "
                   "--gemm)"},
                  {"--seed", "S", "seed of the random matrices (default 2012; not with --gemm)"},
                  {"--gemm", "NN|NT|TN|TT",
                   "tune CLGemm for that layout of A and B; matr_mul_wgmma_tma_3xtf32's set is "
                   "then timed against the FP32 product: it says whether float ACCURATE runs the "
                   "FP32 product up to that shape (EXACT_FASTER)"},
                  {"--trials", "N",
                   "stop after N trials, keeping the fastest so far (default: no limit)"},
                  {"--double", "",
                   "with --gemm, on matr_mul_tuned: the double product, cached apart from the "
                   "FP32 one"},
                  {"--accurate", "",
                   "with --gemm LAYOUT (--double: double's): MQLCL_GEMM_ACCURATE's Ozaki scheme, "
                   "its integer products' set tuned, then the whole scheme timed against the "
                   "product it stands in for (FP64's, or float ACCURATE's): its set says whether "
                   "CLGemm takes the scheme unasked from that shape up (UNASKED)"}} +
              path_options(),
          {}};
}

Subcommand bench_subcommand() {
  return {
      "bench",
      Mode::bench,
      "[<step>,...] [options]",
      "times the steps beyond the article (or those named) and the library's CLGemm against "
      "CLBlast, cuBLAS, OpenBLAS and the device's FP32 limit in one run, every product "
      "verified against the double-precision reference; then the bridge's cost against raw "
      "OpenCL (with matr_mul_tuned), and CLGemm from host arrays to host arrays against the "
      "transfer floor and OpenBLAS on every host thread",
      {device_option(),
       {"--sizes", "N,N,...", "the squares N x N x N to time (default 1000,2000,4096)"},
       {"--repeat", "R", "kernel runs timed after a warm-up, the minimum reported (at least 5)"},
       {"--seed", "S", "seed of the random matrices (default 2012)"},
       {"--double", "",
        "the steps in REALTYPE double, verified against the double-precision bound (CLGemm "
        "and the anchors stay FP32)"},
       {"--local", "X[,Y]", "work-group size of the steps (those whose launch takes one)"},
       {"--param", "NAME=VALUE", kParamMeaning},
       {"--format", "F", "text (default) or json: the document --output saves, on stdout"},
       {"--output", "FILE.json", "save the figures"},
       {"--chart", "FILE.svg", "draw GFLOPS per step, anchor and size, the limits as lines"},
       {"--host-sizes", "N,N,...",
        "the squares of the section from host arrays to host arrays: CLMatMul beside write A "
        "and B, CLGemm, read C, against the transfer floor and OpenBLAS (default --sizes where "
        "given, else 64,128,...,2048 on CPUs, to 8192 on GPUs)"},
       {"--host-only", "", "that section alone"},
       {"--no-cpu", "", "that section without OpenBLAS (and so without the crossover)"},
       path_options()[0],
       path_options()[1]},
      {"text", "json"}};
}

Subcommand gemm_subcommand() {
  return {"gemm",
          Mode::gemm,
          "[options]",
          "times the library's CLGemm as an MQL5 program calls it (squares at --sizes as stored "
          "and with B or A transposed, FP32-accurate, TF32 on GPUs, network shapes, double, a "
          "batch) against cuBLAS on NVIDIA GPUs and OpenBLAS on CPUs, every product verified",
          {device_option(),
           {"--sizes", "N,N,...",
            "the squares (default 1000,2000 on CPUs; 1000,2000,4096,4097,8192 on GPUs)"},
           {"--repeat", "R",
            "calls timed per case after the first, the minimum reported (at "
            "least 5)"},
           {"--double", "",
            "the double products only (MQL5's matrix): every square as stored and with B or "
            "A transposed, MQLCL_GEMM_EXACT then MQLCL_GEMM_ACCURATE"},
           {"--accurate", "",
            "the MQLCL_GEMM_ACCURATE products only (--double: double's), every square as stored "
            "and with B or A transposed: 3xTF32 or the Ozaki scheme, as CLGemm chooses"},
           {"--cases", "REGEX",
            "only the cases whose name (as the table prints it, e.g. \"4096x4096x4096 NN float "
            "tf32\") contains a match of REGEX (ECMAScript), e.g. tf32 or \"float$\""},
           {"--format", "F", "text (default) or json: the document --output saves, on stdout"},
           {"--output", "FILE.json", "save the figures"},
           path_options()[0],
           path_options()[1]},
          {"text", "json"}};
}

Subcommand gemm_database_subcommand() {
  return {
      "gemm-database",
      Mode::gemm_database,
      "FILE.json ... [options]",
      "writes the sets of CLGemm's kernel forms in tuning files (tune's cache files; "
      "bridge/src/gemm/tunings/) as the source of CLGemm's compiled parameter database "
      "(bridge/src/gemm/database.inc), keyed by form, element type and layout",
      {{"--vendor", "ID", "the vendor of the devices the files do not name (0x10DE)"},
       {"--architecture", "NAME", "the architecture of the devices the files do not name (sm_90)"},
       {"--output", "FILE", "write the source there (default: stdout)"}},
      {}};
}

Subcommand chart_subcommand() {
  return {"chart",
          Mode::replay,
          "FILE.svg RESULTS.json ...",
          "draws saved results (--format json, or bench --output) into FILE.svg, as mqlcl-replay "
          "--chart FILE.svg --overlay RESULTS.json does",
          {},
          {}};
}

// Every subcommand, replay (the default) first.
const std::vector<Subcommand> &subcommands() {
  static const std::vector<Subcommand> all{replay_subcommand(),        tune_subcommand(),
                                           bench_subcommand(),         gemm_subcommand(),
                                           gemm_database_subcommand(), chart_subcommand()};
  return all;
}

const Subcommand *find_subcommand(const std::string &name) {
  for (const Subcommand &subcommand : subcommands())
    if (subcommand.name == name)
      return &subcommand;
  return nullptr;
}

// "a, b and c" (or "a, b or c").
std::string listed(const std::vector<std::string> &items, const char *last = "and") {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i == 0 ? "" : i + 1 == items.size() ? fmt::format(" {} ", last) : ", ") + items[i];
  return text;
}

// `text` in lines of at most `width` characters, each after the first indented by `indent`.
std::string wrapped(const std::string &text, size_t width, size_t indent) {
  std::string out, line;
  for (const std::string &word : split(text, ' ')) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

constexpr size_t kHelpWidth = 96;

std::string options_help(const Subcommand &subcommand) {
  std::string out;
  std::vector<OptionHelp> shown = subcommand.options;
  shown.push_back({"--help", "", "this help"});
  for (const OptionHelp &option : shown) {
    std::string left = option.name + (option.argument.empty() ? "" : " " + option.argument);
    out += fmt::format("  {:<22}", left);
    if (left.size() > 21)
      out += "\n" + std::string(24, ' ');
    out += wrapped(option.meaning, kHelpWidth - 24, 24) + "\n";
  }
  return out;
}

const char *kExitStatus =
    R"(exit status: 0 verified, 1 wrong results, 2 bad input or a size a step rejects,
             3 the bridge or OpenCL failed
)";

constexpr uint64_t kMaxSize = std::numeric_limits<uint32_t>::max();

// Every option of every subcommand, as given: CLI11 collects the text and the conversions below
// check it, so that every message says what would be right; each subcommand then refuses those it
// does not take.
struct RawOptions {
  std::vector<std::string> positionals, overlays, params;
  std::map<std::string, std::string> values; // by option name
  bool help = false, version = false, list = false, list_devices = false, no_cpu = false,
       double_precision = false, host_only = false, accurate = false;
  std::map<std::string, const CLI::Option *> options; // by name, to ask whether one was given
  bool given(const std::string &name) const { return options.at(name)->count() > 0; }
  const std::string &value(const std::string &name) const { return values.at(name); }
};

const std::vector<std::string> kFlags{"--help",   "--version", "--list",      "--list-devices",
                                      "--no-cpu", "--double",  "--host-only", "--accurate"};
const std::vector<std::string> kValues{
    "--device", "--size",   "--rows1",        "--colsrows", "--cols2",      "--local",  "--repeat",
    "--seed",   "--format", "--chart",        "--kernels",  "--library",    "--output", "--sizes",
    "--gemm",   "--vendor", "--architecture", "--trials",   "--host-sizes", "--cases"};

void add_options(CLI::App &app, RawOptions &raw) {
  app.allow_extras(); // unknown options are refused below, in mqlcl-replay's words
  app.allow_windows_style_options(false); // CLI11's default on Windows reads "/path" as an option
  app.set_help_flag();                    // --help prints the subcommand's usage
  raw.options["--help"] = app.add_flag("-h,--help", raw.help);
  raw.options["--version"] = app.add_flag("--version", raw.version);
  raw.options["--list"] = app.add_flag("--list", raw.list);
  raw.options["--list-devices"] = app.add_flag("--list-devices", raw.list_devices);
  raw.options["--no-cpu"] = app.add_flag("--no-cpu", raw.no_cpu);
  raw.options["--double"] = app.add_flag("--double", raw.double_precision);
  raw.options["--host-only"] = app.add_flag("--host-only", raw.host_only);
  raw.options["--accurate"] = app.add_flag("--accurate", raw.accurate);
  for (const std::string &name : kValues)
    raw.options[name] = app.add_option(name, raw.values[name])
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // One value each time they are given, as many times as given.
  raw.options["--overlay"] =
      app.add_option("--overlay", raw.overlays)->expected(1)->allow_extra_args(false)->take_all();
  raw.options["--param"] =
      app.add_option("--param", raw.params)->expected(1)->allow_extra_args(false)->take_all();
  raw.options["positionals"] = app.add_option("positionals", raw.positionals)->take_all();
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

void refuse_unknown_options(const CLI::App &app, const Subcommand &subcommand) {
  for (const std::string &arg : app.remaining())
    if (arg.size() > 1 && arg[0] == '-')
      bad_input(fmt::format("unknown option {} (mqlcl-replay {} --help)",
                            arg.substr(0, arg.find('=')), subcommand.name));
}

// An option of another subcommand is refused by name, with the subcommands that take it and the
// options this one takes, rather than ignored.
void refuse_options_not_taken(const RawOptions &raw, const Subcommand &subcommand) {
  for (const auto &[name, option] : raw.options) {
    if (name == "positionals" || option->count() == 0 || subcommand.takes(name))
      continue;
    std::vector<std::string> owners, own;
    for (const Subcommand &other : subcommands())
      if (other.takes(name))
        owners.push_back(other.name);
    for (const OptionHelp &help : subcommand.options)
      own.push_back(help.name);
    bad_input(fmt::format("{} belongs to mqlcl-replay {}, not {}: {} {}", name, listed(owners),
                          subcommand.name, subcommand.name,
                          own.empty() ? "takes no option but --help"
                                      : "takes " + listed(own) + " (and --help)"));
  }
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

Format format_named(const std::string &format, const Subcommand &subcommand) {
  if (std::find(subcommand.formats.begin(), subcommand.formats.end(), format) ==
      subcommand.formats.end())
    bad_input(fmt::format("--format {}: expected {}{}", format, listed(subcommand.formats, "or"),
                          subcommand.name == "replay" ? "" : " (" + subcommand.name + ")"));
  return format == "json" ? Format::json : format == "csv" ? Format::csv : Format::text;
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

std::string gemm_layout_of(const std::string &layout) {
  if (std::find(std::begin(kLayouts), std::end(kLayouts), layout) == std::end(kLayouts))
    bad_input(fmt::format("--gemm {}: the layout is NN, NT, TN or TT (A, then B; T: stored "
                          "transposed)",
                          layout));
  return layout;
}

// gemm --cases: a pattern std::regex takes (it is matched against each case's name).
std::string case_pattern(const std::string &pattern) {
  try {
    std::regex check(pattern);
  } catch (const std::regex_error &e) {
    bad_input(fmt::format("--cases {}: not a regular expression ({})", pattern, e.what()));
  }
  return pattern;
}

// The options as numbers, paths and names.
void convert(const RawOptions &raw, const Subcommand &subcommand, CommandLine &command,
             const std::vector<Step> &catalogue) {
  command.version = raw.version;
  command.list = raw.list;
  command.list_devices = raw.list_devices;
  command.options.run_cpu = !raw.no_cpu;
  command.options.double_precision = raw.double_precision;
  for (const std::string &scripts : raw.positionals)
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
    command.format = format_named(raw.value("--format"), subcommand);
  for (const std::string &param : raw.params)
    add_param(command.options.params, param);
  if (raw.given("--sizes"))
    for (const std::string &part : split(raw.value("--sizes"), ','))
      command.bench_sizes.push_back(
          static_cast<uint32_t>(parse_unsigned("--sizes", part, 1, 65536)));
  if (raw.given("--host-sizes")) // at most 16384: n x n doubles fit a 32-bit CLBufferCreate
    for (const std::string &part : split(raw.value("--host-sizes"), ','))
      command.host_sizes.push_back(
          static_cast<uint32_t>(parse_unsigned("--host-sizes", part, 1, 16384)));
  command.host_only = raw.host_only;
  command.gemm_accurate = raw.accurate;
  for (const auto &[name, into] : {std::pair{"--chart", &command.chart},
                                   {"--output", &command.output},
                                   {"--kernels", &command.kernels},
                                   {"--library", &command.library}})
    if (raw.given(name))
      *into = raw.value(name);
  command.overlays.assign(raw.overlays.begin(), raw.overlays.end());
  if (raw.given("--gemm"))
    command.gemm_layout = gemm_layout_of(raw.value("--gemm"));
  if (raw.given("--cases"))
    command.gemm_cases = case_pattern(raw.value("--cases"));
  if (raw.given("--trials"))
    command.max_trials = parse_unsigned("--trials", raw.value("--trials"), 1, 1000000);
}

// The names a step's kernels take as parameters, as the catalogue declares them: the parameters
// and what `tune` varies of each kernel family the step may run (matr_mul_tuned: step 13's tiles
// or its CPU form), and of the other steps built from the same kernel file (FLUSH, which
// matr_mul_wgmma_tf32 leaves at its kernel's default and its split-TF32 variants set).
std::set<std::string> declared_params(const Step &step, const std::vector<Step> &catalogue) {
  DeviceCaps any_device;
  any_device.dedicated_local_memory = true; // where every family may run
  std::set<std::string> names;
  for (const Step &family : tuning_families(step, any_device))
    for (const Step &same_kernel : catalogue) {
      const Step &declaring = same_kernel.kernel_file == family.kernel_file ? same_kernel : family;
      for (const auto &[name, value] : declaring.params)
        names.insert(name);
      for (const std::vector<Tunable> *tunables :
           {&declaring.tunables, &declaring.form_tunables, &declaring.layout_tunables})
        for (const Tunable &tunable : *tunables)
          names.insert(tunable.name);
    }
  return names;
}

// The switches a step's kernel files test with #ifdef, off unless given: LEAVE_OUT, with which the
// TF32 kernels leave a slice of K out, for the tests that their verification catches it.
std::set<std::string> kernel_switches(const Step &step, const std::filesystem::path &kernels) {
  static const std::regex ifdef(R"(#\s*ifdef\s+([A-Z_][A-Z0-9_]*))");
  DeviceCaps any_device;
  any_device.dedicated_local_memory = true;
  std::set<std::string> names;
  for (const Step &family : tuning_families(step, any_device)) {
    if (family.kernel_file.empty())
      continue;
    const std::string source = read_kernel_source(kernels / family.kernel_file);
    for (std::sregex_iterator at(source.begin(), source.end(), ifdef), end; at != end; ++at)
      names.insert((*at)[1]);
  }
  return names;
}

// The steps --param goes to: those named, else the ones bench times by default.
std::vector<const Step *> param_targets(const CommandLine &command,
                                        const std::vector<Step> &catalogue) {
  std::vector<const Step *> steps;
  for (const std::string &name : command.steps)
    steps.push_back(find_step(catalogue, name));
  if (steps.empty() && command.mode == Mode::bench)
    for (const Step &step : catalogue)
      if (step.in_bench)
        steps.push_back(&step);
  return steps;
}

// A --param that none of its steps' kernels takes would reach the compiler as an unused -D, and
// the run would look as if it had tried it. The kernel files are read only for a name the steps do
// not declare.
void refuse_unknown_params(const CommandLine &command, const std::vector<Step> &catalogue) {
  const std::vector<const Step *> steps = param_targets(command, catalogue);
  std::set<std::string> taken;
  for (const Step *step : steps)
    taken.merge(declared_params(*step, catalogue));
  bool kernels_read = false;
  for (const auto &[name, value] : command.options.params) {
    if (taken.count(name) == 0 && !kernels_read) {
      for (const Step *step : steps)
        taken.merge(kernel_switches(*step, find_kernels(command.kernels)));
      kernels_read = true;
    }
    if (taken.count(name) != 0)
      continue;
    const bool one = steps.size() == 1;
    const std::string whose = one ? steps.front()->name : "the steps";
    bad_input(fmt::format("--param {}: no kernel of {} takes it ({} {})", name,
                          one ? whose : "these steps", whose + (one ? " takes" : " take"),
                          taken.empty() ? "no parameter" : listed({taken.begin(), taken.end()})));
  }
}

// What no single option can say: combinations, and what each subcommand needs.
void check_combinations(const CommandLine &command, const std::vector<Step> &catalogue) {
  if (!command.overlays.empty() && !command.chart)
    bad_input("--overlay adds saved results to a chart: give --chart FILE.svg too");
  if (command.host_only &&
      (command.chart || !command.steps.empty() || !command.bench_sizes.empty()))
    bad_input("bench --host-only times the path from host arrays alone: --chart, --sizes and "
              "steps belong to the rest of bench");
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
    if (command.gemm_accurate && (!command.gemm_layout || step->name != kGemmForms[0]))
      bad_input("tune --accurate: the Ozaki scheme is tuned as CLGemm runs it: mqlcl-replay tune "
                "matr_mul_tuned --gemm LAYOUT [--double] --accurate");
  }
  if (command.mode == Mode::gemm && !command.steps.empty())
    bad_input("gemm takes no script: it times the library's CLGemm (mqlcl-replay gemm --help)");
  if (command.mode == Mode::replay && command.steps.empty() && !command_given)
    bad_input("name a script, or all (mqlcl-replay --list shows them; --help shows the options)");
  if (!command.options.params.empty())
    refuse_unknown_params(command, catalogue);
}

// tune --gemm times CLGemm, which sets its own work-groups and matrices.
void check_tune_gemm(const RawOptions &raw) {
  for (const char *name : {"--local", "--seed"})
    if (raw.given("--gemm") && raw.given(name))
      bad_input(fmt::format("tune --gemm: CLGemm chooses its own work-groups and matrices, so {} "
                            "belongs to tune without --gemm",
                            name));
}

// gemm-database FILE.json ...: the tuner's files, and the device of those that do not name one.
void take_tuning_files(const RawOptions &raw, CommandLine &command) {
  command.tuning_files.assign(raw.positionals.begin(), raw.positionals.end());
  if (command.tuning_files.empty())
    bad_input("gemm-database needs the tuner's JSON files (mqlcl-replay gemm-database --help)");
  if (raw.given("--vendor"))
    command.gemm_vendor = raw.value("--vendor");
  if (raw.given("--architecture"))
    command.gemm_architecture = raw.value("--architecture");
  if (raw.given("--output"))
    command.output = raw.value("--output");
}

// chart FILE.svg RESULTS.json ...: saved results drawn, as --chart FILE.svg --overlay RESULTS.json.
void take_chart_files(const RawOptions &raw, CommandLine &command) {
  if (raw.positionals.size() < 2)
    bad_input("chart takes the chart to write and the results to draw: mqlcl-replay chart "
              "FILE.svg RESULTS.json ...");
  command.chart = raw.positionals.front();
  command.overlays.assign(raw.positionals.begin() + 1, raw.positionals.end());
}

} // namespace

CommandLine parse_command_line(const std::vector<std::string> &args,
                               const std::vector<Step> &catalogue) {
  const Subcommand *named = args.empty() ? nullptr : find_subcommand(args[0]);
  const Subcommand &subcommand = named != nullptr ? *named : subcommands().front();
  CommandLine command;
  command.mode = subcommand.mode;
  command.subcommand = named != nullptr ? subcommand.name : "";
  std::vector<std::string> rest(args.begin() + (named != nullptr ? 1 : 0), args.end());
  refuse_flag_values(rest);
  CLI::App app("mqlcl-replay", "mqlcl-replay");
  RawOptions raw;
  add_options(app, raw);
  parse_with(app, rest);
  refuse_unknown_options(app, subcommand);
  refuse_options_not_taken(raw, subcommand);
  command.help = raw.help;
  if (command.help)
    return command;
  if (subcommand.name == "gemm-database") {
    take_tuning_files(raw, command);
    return command;
  }
  if (subcommand.name == "chart") {
    take_chart_files(raw, command);
    return command;
  }
  check_tune_gemm(raw);
  convert(raw, subcommand, command, catalogue);
  check_combinations(command, catalogue);
  return command;
}

std::string usage() {
  std::string out = "usage: ";
  for (const Subcommand &subcommand : subcommands())
    out += fmt::format("{}mqlcl-replay {} {}\n", out.size() > 7 ? "       " : "",
                       subcommand.name == "replay" ? "[replay]" : subcommand.name,
                       subcommand.synopsis);
  out += "       mqlcl-replay --chart FILE.svg --overlay FILE [--overlay FILE ...]\n"
         "       mqlcl-replay --list | --list-devices | --help | --version\n\n"
         "Replays the scripts of \"OpenCL: From Naive Towards More Insightful Programming\"\n"
         "(mql5.com/en/articles/407) through the mqlcl bridge, checks every element of each\n"
         "product against a double-precision reference and prints the article's log lines.\n\n"
         "options of replay, the default subcommand\n";
  out += options_help(subcommands().front());
  out += "\nsubcommands (mqlcl-replay SUBCOMMAND --help: its options)\n";
  for (const Subcommand &subcommand : subcommands())
    out += fmt::format("  {:<14}{}\n", subcommand.name,
                       wrapped(subcommand.summary, kHelpWidth - 16, 16));
  return out + "\n" + kExitStatus;
}

std::string subcommand_usage(const std::string &name) {
  const Subcommand *subcommand = find_subcommand(name);
  if (subcommand == nullptr)
    return usage();
  return fmt::format("usage: mqlcl-replay {} {}\n\n{}\n\noptions\n{}\n{}", subcommand->name,
                     subcommand->synopsis, wrapped(subcommand->summary, kHelpWidth, 0),
                     options_help(*subcommand), kExitStatus);
}

} // namespace mqlcl::replay
