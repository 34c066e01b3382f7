// mqlcl-replay's command line as a new user tries it (issue 39, item 5): every subcommand has its
// own --help, an option a subcommand does not take is refused by name, --format works or is
// refused, an unknown --param is refused, bench --double verifies in double and bench exits 1 on
// a wrong product, docs/replay.md lists every option, and progress shows on a terminal only.
#define BOOST_TEST_MODULE harness_cli_refusals
#include "harness_support.hpp"

#include "catalogue.hpp"
#include "cli.hpp"
#include "error.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <regex>

using harness_test::has;
using harness_test::lines_of;
using harness_test::needs_device;
using harness_test::Outcome;
using harness_test::run_program;
using harness_test::run_replay;
using mqlcl::replay::ScopedEnvironment;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kSubcommands{"replay", "tune",          "bench",
                                            "gemm",   "gemm-database", "chart"};

// The options a --help lists, each with whether it takes a value ("  --size N   ...").
std::map<std::string, bool> options_in_help(const std::string &help) {
  static const std::regex option(R"(^  (--[a-z0-9-]+)( \S+)?)");
  std::map<std::string, bool> options;
  for (const std::string &line : lines_of(help)) {
    std::smatch match;
    if (std::regex_search(line, match, option))
      options[match[1]] = match[2].matched;
  }
  return options;
}

std::string help_of(const std::string &subcommand) {
  Outcome run = run_replay({subcommand, "--help"});
  BOOST_TEST_REQUIRE(run.status == 0, subcommand << ": " << run.err);
  return run.out;
}

// The error a command line is refused with before anything runs (parse_command_line's).
std::string refusal(const std::vector<std::string> &args) {
  try {
    mqlcl::replay::parse_command_line(args, mqlcl::replay::replay_steps());
  } catch (const mqlcl::replay::Error &error) {
    BOOST_TEST((error.code() == mqlcl::replay::ExitCode::bad_input), error.what());
    return error.what();
  }
  return "";
}

// `mqlcl-replay gemm ARGS` with --format json: its document, the run required to pass.
nlohmann::json gemm_document(const std::vector<std::string> &args) {
  Outcome run = run_replay(args);
  BOOST_TEST_REQUIRE(run.status == 0, run.out << run.err);
  return nlohmann::json::parse(run.out);
}

// The names of a gemm document's cases in the table's order, each checked verified.
std::vector<std::string> verified_cases(const nlohmann::json &gemm) {
  std::vector<std::string> cases;
  for (const nlohmann::json &c : gemm.at("cases")) {
    cases.push_back(c.at("case").get<std::string>());
    BOOST_TEST(c.at("verified").get<bool>(), c.dump());
  }
  return cases;
}

fs::path work_folder(const std::string &name) {
  fs::path folder = fs::path(MQLCL_TEST_WORK_DIR) / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

// The kernels with matr_mul_sum_local's replaced by one that leaves a term out of every sum.
fs::path kernels_with_a_wrong_step() {
  fs::path kernels = work_folder("kernels-one-wrong");
  // File by file into new files: MinGW's libstdc++ refuses fs::copy of a folder into one that
  // exists and copy_file over a file that exists, overwrite_existing or not ("File exists").
  const fs::path from = MQLCL_TEST_KERNELS, wrong = MQLCL_TEST_WRONG_KERNELS;
  for (const fs::directory_entry &entry : fs::recursive_directory_iterator(from)) {
    const fs::path to = kernels / fs::relative(entry.path(), from);
    if (entry.is_directory())
      fs::create_directories(to);
    else if (entry.path().filename() == "matr_mul_sum_local.cl")
      fs::copy_file(wrong / "matr_mul_sum_local.cl", to);
    else
      fs::copy_file(entry.path(), to);
  }
  return kernels;
}

const nlohmann::json &result_named(const nlohmann::json &bench, const std::string &name) {
  for (const nlohmann::json &result : bench.at("sizes").at(0).at("results"))
    if (result.at("name") == name)
      return result;
  throw std::runtime_error("no result for " + name);
}

// `args` run in a pipe, where no progress shows (nothing of `progress_of`), and on a terminal
// (`script`), where each of `shown` is a state of the line that rewrites itself.
void check_progress(const std::vector<std::string> &args, const std::string &progress_of,
                    const std::vector<std::string> &shown) {
  Outcome piped = run_replay(args);
  BOOST_TEST_REQUIRE(piped.status == 0, piped.err);
  BOOST_TEST(!has(piped.err, "\r"), piped.err);
  BOOST_TEST(!has(piped.out, "\r"));
  BOOST_TEST(!has(piped.err, progress_of), piped.err);
#ifndef _WIN32
  if (!fs::exists("/usr/bin/script")) {
    BOOST_TEST_MESSAGE("no /usr/bin/script to give the replay a terminal: only the pipe checked");
    return;
  }
  std::string command = "'" + std::string(MQLCL_TEST_REPLAY) + "'";
  for (const std::string &arg : args)
    command += " " + arg;
  Outcome terminal = run_program("/usr/bin/script", {"-qec", command, "/dev/null"});
  BOOST_TEST_REQUIRE(terminal.status == 0, terminal.out << terminal.err);
  for (const std::string &line : shown)
    BOOST_TEST(has(terminal.out, line), terminal.out);
#endif
}

} // namespace

// Wrong input needs no device: it is refused before one is used.
BOOST_AUTO_TEST_SUITE(refused_before_anything_runs)

BOOST_AUTO_TEST_CASE(every_subcommand_has_its_own_help) {
  for (const std::string &subcommand : kSubcommands) {
    for (const char *flag : {"--help", "-h"}) {
      Outcome run = run_replay({subcommand, flag});
      BOOST_TEST(run.status == 0, subcommand << " " << flag << ": " << run.err);
      BOOST_TEST(run.out.rfind("usage: mqlcl-replay " + subcommand + " ", 0) == 0u, run.out);
      BOOST_TEST(run.err.empty(), run.err);
    }
  }
  // Each help lists its own options: bench's --sizes is not replay's, and the other way round.
  BOOST_TEST(options_in_help(help_of("bench")).count("--sizes") == 1u);
  BOOST_TEST(options_in_help(help_of("replay")).count("--sizes") == 0u);
  BOOST_TEST(options_in_help(help_of("replay")).count("--no-cpu") == 1u);
  BOOST_TEST(options_in_help(help_of("gemm")).count("--no-cpu") == 0u);
}

// Every option of any subcommand, given to one whose --help does not list it.
BOOST_AUTO_TEST_CASE(an_option_a_subcommand_does_not_take_is_refused_by_name) {
  std::map<std::string, std::map<std::string, bool>> taken;
  std::map<std::string, bool> every_option;
  for (const std::string &subcommand : kSubcommands) {
    taken[subcommand] = options_in_help(help_of(subcommand));
    every_option.insert(taken[subcommand].begin(), taken[subcommand].end());
  }
  BOOST_TEST(every_option.size() >= 24u);
  size_t refused = 0;
  for (const std::string &subcommand : kSubcommands)
    for (const auto &[option, takes_value] : every_option) {
      if (taken[subcommand].count(option) != 0)
        continue;
      std::vector<std::string> args{subcommand, option};
      if (takes_value)
        args.push_back("1");
      Outcome run = run_replay(args);
      BOOST_TEST(run.status == 2, subcommand << " " << option);
      BOOST_TEST(has(run.err, option + " belongs to mqlcl-replay "), run.err);
      BOOST_TEST(has(run.err, ", not " + subcommand + ": "), run.err);
      BOOST_TEST(run.out.empty(), run.out);
      ++refused;
    }
  BOOST_TEST(refused >= 60u);
}

// The cases of the issue, one by one: each refusal names the option and what would be right.
BOOST_AUTO_TEST_CASE(the_cases_that_were_ignored) {
  Outcome singular = run_replay({"gemm", "--size", "97"});
  BOOST_TEST(singular.status == 2);
  BOOST_TEST(has(singular.err, "--size belongs to mqlcl-replay replay and tune, not gemm: gemm "
                               "takes --device, --sizes,"),
             singular.err);
  for (std::vector<std::string> args : {std::vector<std::string>{"gemm", "--seed", "3"},
                                        {"gemm", "--local", "8"},
                                        {"tune", "matr_mul_tuned", "--param", "BM=64"},
                                        {"tune", "matr_mul_tuned", "--no-cpu"},
                                        {"gemm", "--host-only"},
                                        {"bench", "--size", "64"}}) {
    Outcome run = run_replay(args);
    BOOST_TEST(run.status == 2, args[0] << " " << args[1]);
    BOOST_TEST(has(run.err, args[args[1].rfind("--", 0) == 0 ? 1 : 2] + " belongs to"), run.err);
  }
  // The scheme is tuned as CLGemm runs it.
  for (const std::vector<std::string> &args :
       {std::vector<std::string>{"tune", "matr_mul_tuned", "--accurate"},
        std::vector<std::string>{"tune", "matr_mul_wgmma_tma_3xtf32", "--gemm", "NT",
                                 "--accurate"}})
    BOOST_TEST(has(refusal(args), "tune --accurate: the Ozaki scheme is tuned as CLGemm runs it"),
               args[1]);
  // tune --gemm times CLGemm, which chooses its own work-groups and matrices.
  for (const char *option : {"--local", "--seed"})
    BOOST_TEST(has(refusal({"tune", "matr_mul_tuned", "--gemm", "NN", option, "8"}),
                   std::string(option) + " belongs to tune without --gemm"));
}

BOOST_AUTO_TEST_CASE(format_is_refused_where_the_subcommand_does_not_print_it) {
  for (const char *subcommand : {"bench", "gemm"}) {
    Outcome csv = run_replay({subcommand, "--format", "csv"});
    BOOST_TEST(csv.status == 2);
    BOOST_TEST(has(csv.err, "--format csv: expected text or json"), csv.err);
  }
  Outcome tune = run_replay({"tune", "matr_mul_tuned", "--format", "json"});
  BOOST_TEST(tune.status == 2);
  BOOST_TEST(has(tune.err, "--format belongs to mqlcl-replay replay, bench and gemm, not tune"),
             tune.err);
  BOOST_TEST(has(refusal({"matr_mul_1dim", "--format", "xml"}), "expected text, json or csv"));
}

BOOST_AUTO_TEST_CASE(a_param_no_kernel_of_the_steps_takes_is_refused) {
  Outcome none = run_replay({"matr_mul_vect_v2", "--param", "BM=64"});
  BOOST_TEST(none.status == 2);
  BOOST_TEST(has(none.err, "--param BM: no kernel of matr_mul_vect_v2 takes it (matr_mul_vect_v2 "
                           "takes no parameter)"),
             none.err);
  Outcome unknown = run_replay({"matr_mul_register_blocked", "--param", "FOO=1"});
  BOOST_TEST(unknown.status == 2);
  BOOST_TEST(has(unknown.err, "matr_mul_register_blocked takes BK, BM, BN, PAD, TM and TN"),
             unknown.err);
  const std::string kernels = MQLCL_TEST_KERNELS; // where a kernel's own switches are read
  BOOST_TEST(has(refusal({"bench", "--param", "FOO=1", "--kernels", kernels}),
                 "--param FOO: no kernel of these steps"));
  BOOST_TEST(has(refusal({"all", "--param", "BM=64", "--kernels", kernels}),
                 "--param BM: no kernel of these steps"));
  // What the steps do take: their parameters, what tune varies (of every kernel family of
  // matr_mul_tuned), and a kernel's own #ifdef switches (the TF32 kernels' LEAVE_OUT).
  for (std::vector<std::string> args :
       {std::vector<std::string>{"matr_mul_register_blocked", "--param", "BM=64"},
        {"matr_mul_double_buffered", "--param", "ROTATE_A=1"},
        {"matr_mul_tuned", "--param", "RM=2"},
        {"matr_mul_tuned", "--param", "BM=64"},
        {"matr_mul_vect_v2,matr_mul_register_blocked", "--param", "TM=4"},
        {"bench", "--param", "BM=64"},
        {"matr_mul_tf32", "--param", "LEAVE_OUT=1", "--kernels", kernels}})
    BOOST_TEST(refusal(args).empty(), args[0] << " " << args[2]);
}

// docs/replay.md holds each subcommand's --help as it prints it, so every option of every
// subcommand is documented and stays so.
BOOST_AUTO_TEST_CASE(the_docs_list_every_option_of_every_subcommand) {
  const std::string docs =
      harness_test::read_file(fs::path(MQLCL_TEST_KERNELS).parent_path() / "docs" / "replay.md");
  for (const std::string &subcommand : kSubcommands)
    BOOST_TEST(has(docs, help_of(subcommand)),
               "regenerate docs/replay.md's \"Each subcommand's options\" from mqlcl-replay "
                   << subcommand << " --help");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(honoured, *boost::unit_test::precondition(needs_device()))

// The double products checked against the reference of their own inputs, within the double
// bound (they were checked against the float inputs' reference, and all read "verified NO").
BOOST_AUTO_TEST_CASE(bench_double_verifies_against_the_double_bound) {
  Outcome run =
      run_replay({"bench", "matr_mul_vect_v2", "--sizes", "32", "--double", "--format", "json"});
  BOOST_TEST_REQUIRE(run.status == 0, run.out << run.err);
  const nlohmann::json bench = nlohmann::json::parse(run.out);
  BOOST_TEST(bench.at("steps_type") == "double");
  const nlohmann::json &step = result_named(bench, "matr_mul_vect_v2");
  BOOST_TEST(step.at("verified").get<bool>(), step.dump());
  BOOST_TEST(step.at("tolerance").get<double>() < 1e-12); // a float bound would be about 1e-5
  BOOST_TEST(result_named(bench, "CLGemm FP32").at("verified").get<bool>());
  // The section from host arrays follows --sizes when --host-sizes is not given.
  for (const nlohmann::json &type : bench.at("host_to_host").at("types")) {
    BOOST_TEST_REQUIRE(type.at("rows").size() == 1u, type.dump());
    BOOST_TEST(type.at("rows")[0].at("n") == 32, type.dump());
  }
}

BOOST_AUTO_TEST_CASE(bench_exits_1_when_a_product_is_wrong_and_says_why) {
  const fs::path kernels = kernels_with_a_wrong_step();
  for (bool double_precision : {false, true}) {
    std::vector<std::string> args{"bench",     "matr_mul_sum_local,matr_mul_vect_v2",
                                  "--sizes",   "32",
                                  "--kernels", kernels.string()};
    if (double_precision)
      args.push_back("--double");
    Outcome run = run_replay(args);
    BOOST_TEST(run.status == 1, run.out << run.err);
    BOOST_TEST(has(run.out, "NO: "), run.out);
    BOOST_TEST(has(run.out, "elements off the double-precision reference by more than"), run.out);
  }
}

BOOST_AUTO_TEST_CASE(gemm_prints_json_with_format_json) {
  Outcome run = run_replay({"gemm", "--sizes", "32", "--repeat", "1", "--format", "json"});
  BOOST_TEST_REQUIRE(run.status == 0, run.out << run.err);
  const nlohmann::json gemm = nlohmann::json::parse(run.out); // nothing but the document
  BOOST_TEST(gemm.at("cases").size() >= 4u);
  for (const nlohmann::json &c : gemm.at("cases")) {
    BOOST_TEST(c.at("verified").get<bool>(), c.dump());
    // The first call cold (an empty program cache) and warm (a new context, the cache filled).
    BOOST_TEST(c.at("first_call_s").get<double>() > 0, c.dump());
    BOOST_TEST(c.at("warm_first_call_s").get<double>() > 0, c.dump());
  }
  BOOST_TEST(!has(run.err, "\r"), run.err); // no progress in a pipe
}

// gemm --double: MQL5's matrix products only, each square as stored, with B and with A transposed,
// exact then accurate.
BOOST_AUTO_TEST_CASE(gemm_double_times_the_double_products_only) {
  const std::vector<std::string> cases = verified_cases(
      gemm_document({"gemm", "--double", "--sizes", "24,17", "--repeat", "1", "--format", "json"}));
  const std::vector<std::string> expected{
      "24x24x24 NN double",          "24x24x24 NT double",          "24x24x24 TN double",
      "17x17x17 NN double",          "17x17x17 NT double",          "17x17x17 TN double",
      "24x24x24 NN double accurate", "24x24x24 NT double accurate", "24x24x24 TN double accurate",
      "17x17x17 NN double accurate", "17x17x17 NT double accurate", "17x17x17 TN double accurate"};
  BOOST_TEST(cases == expected, boost::test_tools::per_element());
  // Under MQLCL_GEMM_KERNEL=ozaki the accurate rows time the Ozaki scheme, the rest FP64; the
  // errors, measured against a reference summed in long double on the same inputs, put the
  // scheme's at most FP64's (or within one rounding of the largest element).
  ScopedEnvironment ozaki("MQLCL_GEMM_KERNEL", "ozaki");
  const nlohmann::json scheme_json =
      gemm_document({"gemm", "--double", "--sizes", "96", "--repeat", "1", "--format", "json"});
  std::map<std::string, double> errors;
  for (const nlohmann::json &c : scheme_json.at("cases")) {
    BOOST_TEST(c.at("verified").get<bool>(), c.dump());
    const std::string name = c.at("case").get<std::string>();
    const bool accurate = has(name, "accurate");
    BOOST_TEST(has(c.at("plan").get<std::string>(), "ozaki.cl MODULI=") == accurate, c.dump());
    errors[name] = c.at("max_error_over_max_ref").get<double>();
  }
  for (const char *layout : {"NN", "NT", "TN"}) {
    const std::string exact = std::string("96x96x96 ") + layout + " double";
    BOOST_TEST_REQUIRE(errors.count(exact + " accurate") == 1u, exact);
    BOOST_TEST(errors.at(exact + " accurate") <= std::max(errors.at(exact), std::ldexp(1.0, -52)),
               exact);
  }
}

// gemm --accurate: MQLCL_GEMM_ACCURATE alone, float's (with --double, double's), each square as
// stored, with B and with A transposed; under MQLCL_GEMM_KERNEL=ozaki the float rows time the
// Ozaki scheme, verified as every float ACCURATE product is.
BOOST_AUTO_TEST_CASE(gemm_accurate_times_the_accurate_products_only) {
  for (bool double_precision : {false, true}) {
    std::vector<std::string> args{"gemm",     "--accurate", "--sizes",  "24,17",
                                  "--repeat", "1",          "--format", "json"};
    if (double_precision)
      args.push_back("--double");
    const std::vector<std::string> cases = verified_cases(gemm_document(args));
    const std::string type = double_precision ? " double accurate" : " float accurate";
    std::vector<std::string> expected;
    for (const char *size : {"24x24x24 ", "17x17x17 "})
      for (const char *layout : {"NN", "NT", "TN"})
        expected.push_back(size + std::string(layout) + type);
    BOOST_TEST(cases == expected, boost::test_tools::per_element());
  }
  ScopedEnvironment ozaki("MQLCL_GEMM_KERNEL", "ozaki");
  const nlohmann::json scheme_json =
      gemm_document({"gemm", "--accurate", "--sizes", "96", "--repeat", "1", "--format", "json"});
  for (const nlohmann::json &c : scheme_json.at("cases")) {
    BOOST_TEST(c.at("verified").get<bool>(), c.dump());
    BOOST_TEST(has(c.at("plan").get<std::string>(), "ozaki.cl MODULI="), c.dump());
  }
}

// gemm --cases: only the cases whose name has a match, in the table's order; a pattern that is
// not one, or that matches nothing, is refused before anything runs.
BOOST_AUTO_TEST_CASE(gemm_cases_runs_the_matching_cases_only) {
  const std::vector<std::string> cases =
      verified_cases(gemm_document({"gemm", "--double", "--sizes", "24,17", "--cases",
                                    " N[NT] double$", "--repeat", "1", "--format", "json"}));
  const std::vector<std::string> expected{"24x24x24 NN double", "24x24x24 NT double",
                                          "17x17x17 NN double", "17x17x17 NT double"};
  BOOST_TEST(cases == expected, boost::test_tools::per_element());
  for (const char *pattern : {"(", "tf33"}) {
    Outcome refused = run_replay({"gemm", "--sizes", "24", "--cases", pattern});
    BOOST_TEST(refused.status == 2, pattern << ": " << refused.out << refused.err);
    BOOST_TEST(has(refused.err, std::string("--cases ") + pattern), refused.err);
    BOOST_TEST(!has(refused.out, "GFLOPS"), refused.out); // refused before the table starts
  }
}

BOOST_AUTO_TEST_CASE(progress_shows_on_a_terminal_and_not_in_a_pipe) {
  check_progress({"matr_mul_vect_v2", "--size", "64", "--no-cpu", "--repeat", "2"}, "replay 2 of 2",
                 {"\rmatr_mul_vect_v2: the fp64 reference on the host",
                  "\rmatr_mul_vect_v2: replay 2 of 2 on the device"});
  // tune's trials: on a terminal each as it ends; in a pipe only the summary.
  ScopedEnvironment scratch("MQLCL_TUNE_CACHE",
                            (work_folder("tune-progress") / "tuning.json").string());
  check_progress({"tune", "matr_mul_tuned", "--gemm", "NN", "--size", "24", "--trials", "2"},
                 "GFLOPS", {"\rtune: [1] matr_mul_", "\rtune: [2] matr_mul_"});
}

// --trials bounds both tuners, and the fastest of what ran is still cached.
BOOST_AUTO_TEST_CASE(tune_stops_after_the_trials_it_is_given) {
  ScopedEnvironment scratch("MQLCL_TUNE_CACHE",
                            (work_folder("tune-trials") / "tuning.json").string());
  Outcome gemm =
      run_replay({"tune", "matr_mul_tuned", "--gemm", "NT", "--size", "24", "--trials", "3"});
  BOOST_TEST_REQUIRE(gemm.status == 0, gemm.out << gemm.err);
  BOOST_TEST(has(gemm.out, "\n3 trials; from "), gemm.out);
  Outcome sets = run_replay({"tune", "matr_mul_tuned", "--size", "24", "--trials", "2"});
  BOOST_TEST_REQUIRE(sets.status == 0, sets.out << sets.err);
  BOOST_TEST(has(sets.out, "fastest of "), sets.out);
  BOOST_TEST(has(sets.out, "cached for "), sets.out);
  const std::string ran = sets.out.substr(sets.out.find("fastest of "));
  BOOST_TEST(
      (has(ran, "fastest of 2 verified (0 failed") || has(ran, "fastest of 1 verified (1 failed")),
      ran);
}

BOOST_AUTO_TEST_SUITE_END()
