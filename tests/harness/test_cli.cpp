// mqlcl-replay as a user runs it: the real executable, its exit status, its output.
#define BOOST_TEST_MODULE harness_cli
#include "harness_support.hpp"

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <regex>

using harness_test::has;
using harness_test::lines_of;
using harness_test::needs_device;
using harness_test::Outcome;
using harness_test::run_replay;
using harness_test::ScopedEnvironment;
namespace pt = boost::property_tree;
namespace fs = std::filesystem;

namespace {

fs::path work_file(const std::string &name) {
  fs::create_directories(MQLCL_TEST_WORK_DIR);
  return fs::path(MQLCL_TEST_WORK_DIR) / name;
}

// Lines of `text` matching each pattern in turn (a pattern may match several lines in a row,
// as the ten random checks do, when given as {pattern, count}).
void check_lines(const std::string &text,
                 const std::vector<std::pair<std::string, size_t>> &patterns) {
  std::vector<std::string> lines = lines_of(text);
  size_t at = 0;
  for (const auto &[pattern, times] : patterns)
    for (size_t n = 0; n < times; ++n, ++at) {
      BOOST_TEST_REQUIRE(at < lines.size(), "output ends before " << pattern);
      BOOST_TEST(std::regex_match(lines[at], std::regex(pattern)),
                 "line " << at + 1 << " '" << lines[at] << "' does not match " << pattern);
    }
  BOOST_TEST(at == lines.size(), "more lines than expected:\n" << text);
}

const std::string kNumber = R"(-?[0-9]+\.[0-9]{3})";
const std::string kEight = R"(-?[0-9]+\.[0-9]{8})";

} // namespace

BOOST_AUTO_TEST_SUITE(replays, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(prints_the_articles_lines_then_its_own) {
  Outcome run = run_replay({"matr_mul_vect_v2", "--size", "64"});
  BOOST_TEST(run.status == 0, run.err);
  check_lines(
      run.out,
      {{"=======================================", 1},
       {"1st OCL martices mul:  device = [0-9]+;      ROWS1 = 64; COLSROWS = 64; COLS2 = 64", 1},
       {"CPUTime = " + kNumber, 1},
       {"read = 4096 elements", 1},
       {"OpenCL total: time = " + kNumber + " sec\\.", 1},
       {"CPUTime / GPUTotalTime = " + kNumber, 1},
       {"sum\\( ([0-9]+),([0-9]+) \\) = " + kEight + ";    thirdCPU\\[ \\1,\\2 \\] = " + kEight +
            ";    buf\\[ \\1,\\2 \\] = " + kEight,
        10},
       {"device name = .+", 1},
       {"kernel time = [0-9]+\\.[0-9]{6} sec\\. \\(profiling\\)", 1},
       {"throughput = " + kNumber + " GFLOPS", 1},
       {"kernel throughput = " + kNumber + " GFLOPS", 1},
       {"verification: passed, 4096 of 4096 elements within [0-9.e+-]+ of the "
        "double-precision reference \\(max error [0-9.e+-]+ at \\[ [0-9]+,[0-9]+ \\]\\)",
        1},
       {"________________________", 1}});
}

BOOST_AUTO_TEST_CASE(the_host_only_script_prints_listing_1s_lines) {
  Outcome run = run_replay({"matr_mul_2dim", "--size", "48"});
  BOOST_TEST(run.status == 0, run.err);
  check_lines(run.out, {{"=======================================", 1},
                        {"ROWS1 = 48; COLSROWS = 48; COLS2 = 48", 1},
                        {"CPU: time = " + kNumber + " s\\.", 1},
                        {"throughput = " + kNumber + " GFLOPS", 1},
                        {"verification: passed, 2304 of 2304 elements .*", 1}});
}

BOOST_AUTO_TEST_CASE(all_runs_the_ten_in_order_and_sums_them_up) {
  Outcome run = run_replay({"all", "--size", "40", "--no-cpu", "--repeat", "2"});
  BOOST_TEST(run.status == 0, run.err);
  std::vector<std::string> names;
  bool table = false;
  for (const std::string &line : lines_of(run.out)) {
    if (line.rfind("step ", 0) == 0)
      table = true;
    else if (table && !line.empty())
      names.push_back(line.substr(0, line.find(' ')));
  }
  std::vector<std::string> expected{"matr_mul_2dim",           "matr_mul_1dim",
                                    "matr_mul_1dim_coalesced", "matr_mul_sum_local",
                                    "matr_mul_row_calc",       "matr_mul_row_in_private",
                                    "matr_mul_col_local",      "matr_mul_vect",
                                    "matr_mul_vect_v2",        "matr_mul_vect_v3"};
  BOOST_TEST(names == expected, boost::test_tools::per_element());
  BOOST_TEST(has(run.out, "skipped: the host-only step has nothing to do with --no-cpu"));
  BOOST_TEST(has(run.out, "repeat = 2: OpenCL total min = "));
  BOOST_TEST(!has(run.out, "\nCPUTime = "));
  BOOST_TEST((has(run.out, "thirdCPU[ ") && has(run.out, " ] = n/a;")));
}

BOOST_AUTO_TEST_CASE(col_local_reports_its_race_and_the_fix) {
  Outcome run = run_replay({"matr_mul_col_local", "matr_mul_col_local_fixed", "--size", "64",
                            "--no-cpu", "--local", "16"});
  BOOST_TEST((run.status == 0 || run.status == 1), run.err);
  BOOST_TEST(has(run.out, "note: "));
  BOOST_TEST(has(run.out, "matr_mul_col_local_fixed adds the missing barrier"));
  Outcome listing = run_replay({"--list"});
  BOOST_TEST(has(listing.out, "has a race as printed (fixed: matr_mul_col_local_fixed)"));
}

BOOST_AUTO_TEST_CASE(double_precision_and_non_square_sizes) {
  Outcome run = run_replay({"matr_mul_row_in_private,matr_mul_1dim", "--rows1", "33", "--colsrows",
                            "21", "--cols2", "17", "--double", "--no-cpu"});
  BOOST_TEST(run.status == 0, run.err);
  BOOST_TEST(has(run.out, "ROWS1 = 33; COLSROWS = 21; COLS2 = 17"));
  BOOST_TEST(has(run.out, "verification: passed, 561 of 561 elements"));
}

BOOST_AUTO_TEST_CASE(json_output_parses_and_documents_the_run) {
  Outcome run = run_replay(
      {"matr_mul_sum_local,matr_mul_vect", "--size", "32", "--repeat", "3", "--format", "json"});
  BOOST_TEST_REQUIRE(run.status == 0, run.err);
  const nlohmann::json root = nlohmann::json::parse(run.out);
  BOOST_TEST(root.at("format") == "mqlcl-replay/1");
  BOOST_TEST(root.at("generator").get<std::string>().rfind("mqlcl-replay ", 0) == 0u);
  BOOST_TEST(fs::equivalent(root.at("library").get<std::string>(), MQLCL_TEST_LIBRARY));
  BOOST_TEST(fs::is_regular_file(fs::path(root.at("kernels_dir").get<std::string>()) /
                                 "matr_mul_vect.cl"));
  int runs = 0;
  for (const nlohmann::json &r : root.at("runs")) {
    ++runs;
    BOOST_TEST(r.at("status") == "verified");
    BOOST_TEST(!r.at("device").at("name").get<std::string>().empty());
    BOOST_TEST(!r.at("device").at("vendor").get<std::string>().empty());
    BOOST_TEST(!r.at("device").at("driver").get<std::string>().empty());
    BOOST_TEST(r.at("mqlcl_version").get<std::string>().rfind("mqlcl ", 0) == 0u);
    BOOST_TEST(r.at("sizes").at("rows1") == 32); // numbers are JSON numbers
    BOOST_TEST(r.at("type") == "float");
    BOOST_TEST(r.at("local").is_null());
    const nlohmann::json &total = r.at("times").at("total_s");
    BOOST_TEST(total.at("min").get<double>() <= total.at("median").get<double>());
    BOOST_TEST(r.at("times").at("kernel_s").at("samples").size() == 3u);
    BOOST_TEST(r.at("gflops").at("kernel").get<double>() > 0.0);
    BOOST_TEST(r.at("times").at("cpu_s").get<double>() >= 0.0);
    BOOST_TEST(r.at("verification").at("passed").get<bool>());
    BOOST_TEST(r.at("verification").at("checked") == 3 * 32 * 32);
    BOOST_TEST(r.at("random_checks").size() == 10u);
  }
  BOOST_TEST(runs == 2);
  BOOST_TEST(!has(run.out, "=====")); // the article's lines are text output only
}

BOOST_AUTO_TEST_CASE(csv_output_has_a_row_per_run) {
  Outcome run =
      run_replay({"matr_mul_row_calc,matr_mul_vect_v3", "--size", "16", "--format", "csv"});
  BOOST_TEST_REQUIRE(run.status == 0, run.err);
  std::vector<std::string> lines = lines_of(run.out);
  BOOST_TEST_REQUIRE(lines.size() == 3u);
  auto fields = [](const std::string &line) {
    return std::count(line.begin(), line.end(), ',') + 1;
  };
  BOOST_TEST(lines[0].rfind("step,status,device,", 0) == 0u);
  BOOST_TEST(lines[1].rfind("matr_mul_row_calc,verified,", 0) == 0u);
  BOOST_TEST(lines[2].rfind("matr_mul_vect_v3,verified,", 0) == 0u);
  BOOST_TEST(fields(lines[1]) == fields(lines[0]));
  BOOST_TEST(fields(lines[2]) == fields(lines[0]));
}

BOOST_AUTO_TEST_CASE(the_chart_is_svg_with_this_run_and_the_overlays) {
  fs::path chart = work_file("chart.svg");
  fs::remove(chart);
  fs::path saved = work_file("saved.json");
  Outcome first = run_replay(
      {"matr_mul_vect_v2,matr_mul_vect_v3", "--size", "32", "--no-cpu", "--format", "json"});
  BOOST_TEST_REQUIRE(first.status == 0, first.err);
  std::ofstream(saved) << first.out;
  Outcome run = run_replay({"all", "--size", "24", "--no-cpu", "--chart", chart.string(),
                            "--overlay", std::string(MQLCL_TEST_FIXTURES) + "/article-hd4870.json",
                            "--overlay", saved.string()});
  BOOST_TEST_REQUIRE(run.status == 0, run.err);
  BOOST_TEST(has(run.err, "chart written to"));
  std::ifstream in(chart);
  pt::ptree root;
  pt::read_xml(in, root);
  std::vector<std::string> texts;
  size_t polylines = 0;
  for (const auto &child : root.get_child("svg")) {
    if (child.first == "text")
      texts.push_back(child.second.data());
    polylines += child.first == "polyline" ? 1 : 0;
  }
  BOOST_TEST(std::count(texts.begin(), texts.end(), "Radeon HD 4870 (article, 2012)") == 1);
  BOOST_TEST(std::count(texts.begin(), texts.end(), "vect_v3") == 1);
  BOOST_TEST(std::count(texts.begin(), texts.end(), "1dim") == 1);
  // This run and the saved one are the same device, so one series (its best times) with total
  // and kernel lines; the article's has the total only; each line appears in both panels.
  BOOST_TEST(std::count_if(texts.begin(), texts.end(), [](const std::string &text) {
               return text.size() > 8 && text.substr(text.size() - 8) == " (float)";
             }) == 1);
  BOOST_TEST(polylines == 2u * 2u + 2u);
}

BOOST_AUTO_TEST_CASE(saved_results_alone_make_a_chart) {
  fs::path chart = work_file("saved-only.svg");
  fs::remove(chart);
  Outcome run = run_replay({"--chart", chart.string(), "--overlay",
                            std::string(MQLCL_TEST_FIXTURES) + "/article-hd4870.json", "--overlay",
                            std::string(MQLCL_TEST_FIXTURES) + "/article-cpu.json"});
  BOOST_TEST_REQUIRE(run.status == 0, run.err);
  std::ifstream in(chart);
  pt::ptree root;
  pt::read_xml(in, root);
  size_t polylines = 0;
  for (const auto &child : root.get_child("svg"))
    polylines += child.first == "polyline" ? 1 : 0;
  BOOST_TEST(polylines == 4u); // two series, total time only, in two panels
  // The chart subcommand says the same in fewer words.
  fs::path again = work_file("saved-only-again.svg");
  Outcome subcommand = run_replay({"chart", again.string(),
                                   std::string(MQLCL_TEST_FIXTURES) + "/article-hd4870.json",
                                   std::string(MQLCL_TEST_FIXTURES) + "/article-cpu.json"});
  BOOST_TEST_REQUIRE(subcommand.status == 0, subcommand.err);
  BOOST_TEST(harness_test::read_file(again) == harness_test::read_file(chart));
  Outcome alone = run_replay({"chart", again.string()});
  BOOST_TEST(alone.status == 2);
  BOOST_TEST(has(alone.err, "chart takes the chart to write and the results to draw"), alone.err);
}

// A saved benchmark (bench --output) draws as bars: one per step and anchor at each size, and
// one dashed line per device limit.
BOOST_AUTO_TEST_CASE(a_saved_benchmark_makes_a_bar_chart) {
  const std::string results =
      std::string(MQLCL_TEST_FIXTURES) + "/bench-h100-numbers-as-strings.json";
  fs::path chart = work_file("bench.svg");
  fs::remove(chart);
  Outcome run = run_replay({"--chart", chart.string(), "--overlay", results});
  BOOST_TEST_REQUIRE(run.status == 0, run.err);
  std::ifstream saved_file(results);
  const nlohmann::json saved = nlohmann::json::parse(saved_file);
  size_t measured = 0; // a file of record from before numbers were numbers: "gflops": "65673.98"
  for (const nlohmann::json &size : saved.at("sizes"))
    for (const nlohmann::json &row : size.at("results"))
      measured += row.contains("gflops") ? 1 : 0;
  std::ifstream in(chart);
  pt::ptree root;
  pt::read_xml(in, root);
  size_t bars = 0, dashed = 0;
  for (const auto &child : root.get_child("svg")) {
    bars += child.first == "rect" && child.second.get_child_optional("title") ? 1 : 0;
    dashed += child.first == "line" &&
                      child.second.get_optional<std::string>("<xmlattr>.stroke-dasharray")
                  ? 1
                  : 0;
  }
  BOOST_TEST(measured > 20u);
  BOOST_TEST(bars == measured);
  BOOST_TEST(dashed == saved.at("limits").size());

  // One benchmark per chart, and not mixed with replays.
  Outcome two = run_replay({"--chart", chart.string(), "--overlay", results, "--overlay",
                            std::string(MQLCL_TEST_FIXTURES) + "/article-cpu.json"});
  BOOST_TEST(two.status == 2);
  BOOST_TEST(has(two.err, "one results file"), two.err);
}

BOOST_AUTO_TEST_CASE(wrong_results_exit_with_1) {
  Outcome run =
      run_replay({"matr_mul_sum_local", "--size", "32", "--kernels", MQLCL_TEST_WRONG_KERNELS});
  BOOST_TEST(run.status == 1, run.out << run.err);
  BOOST_TEST(has(run.out, "verification: FAILED, "));
  BOOST_TEST(has(run.out, "elements differ from the double-precision reference by more than"));
}

BOOST_AUTO_TEST_CASE(a_step_whose_size_cannot_work_is_rejected_and_the_others_run) {
  Outcome run =
      run_replay({"matr_mul_vect,matr_mul_vect_v2,matr_mul_vect_v3", "--size", "44", "--no-cpu"});
  BOOST_TEST(run.status == 2);
  BOOST_TEST(has(run.err, "matr_mul_vect_v3 rejected: COLSROWS must be a multiple of 8 (it keeps "
                          "rows as COLSROWS / 8 vectors of 8); COLSROWS = 44 is not (nearest: 40 "
                          "or 48)"),
             run.err);
  BOOST_TEST((has(run.out, "matr_mul_vect_v2 ") && has(run.out, "verified")));
  Outcome four = run_replay({"matr_mul_vect", "--size", "50"});
  BOOST_TEST(four.status == 2);
  BOOST_TEST(has(four.err, "COLSROWS must be a multiple of 4"), four.err);
  BOOST_TEST(four.out.empty(), four.out);
}

BOOST_AUTO_TEST_CASE(a_work_group_that_does_not_divide_the_range_is_rejected) {
  Outcome run = run_replay({"matr_mul_row_calc", "--size", "64", "--local", "7"});
  BOOST_TEST(run.status == 2);
  BOOST_TEST(has(run.err, "--local 7 does not divide the global size 64"), run.err);
  Outcome pair = run_replay({"matr_mul_row_calc", "--size", "64", "--local", "8,8"});
  BOOST_TEST(pair.status == 2);
  BOOST_TEST(has(pair.err, "--local takes 1 value"), pair.err);
}

BOOST_AUTO_TEST_CASE(a_device_that_does_not_exist_is_named) {
  Outcome run = run_replay({"matr_mul_vect_v2", "--size", "16", "--device", "99"});
  BOOST_TEST(run.status == 2);
  BOOST_TEST(has(run.err, "there is no OpenCL device 99"), run.err);
  Outcome list = run_replay({"--list-devices"});
  BOOST_TEST(list.status == 0);
  BOOST_TEST(has(list.out, "OpenCL device #0: "));
}

BOOST_AUTO_TEST_SUITE_END()

// Wrong input needs no device: it must be refused before one is used.
BOOST_AUTO_TEST_SUITE(wrong_input)

BOOST_AUTO_TEST_CASE(unknown_scripts_and_bad_sizes) {
  Outcome unknown = run_replay({"matr_mul_fastest"});
  BOOST_TEST(unknown.status == 2);
  BOOST_TEST(has(unknown.err, "mqlcl-replay: unknown script 'matr_mul_fastest'"), unknown.err);
  for (const char *bad : {"0", "-3", "abc", "", "2000.5"}) {
    Outcome run = run_replay({"matr_mul_vect_v2", "--size", bad});
    BOOST_TEST(run.status == 2, bad);
    BOOST_TEST(has(run.err, "expected a whole number from 1 to"), run.err);
  }
  Outcome none = run_replay({});
  BOOST_TEST(none.status == 2);
  BOOST_TEST(has(none.err, "name a script"));
  Outcome help = run_replay({"--help"});
  BOOST_TEST(help.status == 0);
  BOOST_TEST(has(help.out, "usage: mqlcl-replay"));
}

BOOST_AUTO_TEST_CASE(a_missing_library) {
  Outcome option = run_replay({"matr_mul_vect_v2", "--library", "/nonexistent/libmqlcl.so"});
  BOOST_TEST(option.status == 2);
  BOOST_TEST(has(option.err, "the bridge library /nonexistent/libmqlcl.so does not exist"),
             option.err);
  ScopedEnvironment environment("MQLCL_LIBRARY", std::string("/nonexistent/mqlcl.dll"));
  Outcome variable = run_replay({"matr_mul_vect_v2"});
  BOOST_TEST(variable.status == 2);
  BOOST_TEST(has(variable.err, "MQLCL_LIBRARY=/nonexistent/mqlcl.dll does not name a file"),
             variable.err);
}

BOOST_AUTO_TEST_CASE(a_library_that_is_not_the_bridge) {
  Outcome run = run_replay({"matr_mul_vect_v2", "--library", MQLCL_TEST_PARTIAL_BRIDGE});
  BOOST_TEST(run.status == 3);
  BOOST_TEST(has(run.err, "is not the mqlcl bridge: it lacks 24 of the 25 exports "
                          "(CLGetInfoInteger, CLGetInfoString, CLContextCreate"),
             run.err);
  fs::path text = work_file("not-a-library.so");
  std::ofstream(text) << "not a shared library\n";
  Outcome garbage = run_replay({"matr_mul_vect_v2", "--library", text.string()});
  BOOST_TEST(garbage.status == 3);
  BOOST_TEST(has(garbage.err, "cannot load the bridge library " + text.string() + ": "),
             garbage.err);
}

BOOST_AUTO_TEST_CASE(a_missing_kernels_directory) {
  Outcome option = run_replay({"matr_mul_vect_v2", "--kernels", "/nonexistent/kernels"});
  BOOST_TEST(option.status == 2);
  BOOST_TEST(has(option.err, "--kernels /nonexistent/kernels: no such directory"), option.err);
  ScopedEnvironment environment("MQLCL_KERNELS_DIR", std::string("/nonexistent/kernels"));
  Outcome variable = run_replay({"matr_mul_vect_v2"});
  BOOST_TEST(variable.status == 2);
  BOOST_TEST(has(variable.err, "MQLCL_KERNELS_DIR=/nonexistent/kernels: no such directory"),
             variable.err);
}

BOOST_AUTO_TEST_CASE(no_opencl_at_all) {
  // The bridge finds no OpenCL library: every replay fails with MQL5's 5100, exit status 3.
  ScopedEnvironment environment("MQLCL_OPENCL_LIBRARY", std::string("/nonexistent/libOpenCL.so.1"));
  for (std::vector<std::string> args :
       {std::vector<std::string>{"matr_mul_vect_v2", "--size", "16"},
        {"matr_mul_vect_v2", "--size", "16", "--device", "0"}}) {
    Outcome run = run_replay(args);
    BOOST_TEST(run.status == 3);
    BOOST_TEST(has(run.err, "failed: 5100 (ERR_OPENCL_NOT_SUPPORTED)"), run.err);
  }
  Outcome list = run_replay({"--list-devices"});
  BOOST_TEST(list.status == 3);
  BOOST_TEST(has(list.err, "no OpenCL device"), list.err);
}

BOOST_AUTO_TEST_CASE(a_bad_overlay_is_refused_before_anything_runs) {
  fs::path broken = work_file("not-results.json");
  std::ofstream(broken) << "[1, 2";
  Outcome run = run_replay(
      {"matr_mul_vect_v2", "--chart", work_file("x.svg").string(), "--overlay", broken.string()});
  BOOST_TEST(run.status == 2);
  BOOST_TEST(has(run.err, "cannot read results file"), run.err);
  BOOST_TEST(run.out.empty());
}

// The library's compiled database is the generator's output over the tuning file of record, so a
// hand edit or a new tuning result that was not regenerated fails here.
BOOST_AUTO_TEST_CASE(the_gemm_database_is_generated_from_the_tuning_results) {
  const fs::path source = fs::path(MQLCL_TEST_KERNELS).parent_path();
  const fs::path generated = work_file("database.inc"); // a file: stdout is text mode on Windows
  const fs::path tunings = source / "bridge/src/gemm/tunings";
  Outcome run =
      run_replay({"gemm-database", (tunings / "tuning-h100.json").string(),
                  (tunings / "tuning-h200.json").string(), (tunings / "tuning-pocl.json").string(),
                  "--vendor", "0x10DE", "--architecture", "sm_90", "--output", generated.string()});
  BOOST_TEST_REQUIRE(run.status == 0, run.err);
  auto text_of = [](const fs::path &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  BOOST_TEST(text_of(generated) == text_of(source / "bridge/src/gemm/database.inc"),
             "regenerate it: mqlcl-replay gemm-database bridge/src/gemm/tunings/tuning-h100.json "
             "bridge/src/gemm/tunings/tuning-h200.json bridge/src/gemm/tunings/tuning-pocl.json "
             "--vendor 0x10DE "
             "--architecture sm_90 --output "
             "bridge/src/gemm/database.inc");
  const fs::path no_device = work_file("no-device.json"); // a tuning file of an older tuner
  std::ofstream(no_device) << R"({"NVIDIA H100 80GB HBM3 | 580.159.04": {"matr_mul_tuned": )"
                              R"({"64x64x64": {"kernel_file": "matr_mul_tuned.cl"}}}})";
  Outcome unnamed = run_replay({"gemm-database", no_device.string()});
  BOOST_TEST(unnamed.status == 2);
  BOOST_TEST(has(unnamed.err, "has no _device record; say --vendor and --architecture"),
             unnamed.err);
  Outcome none = run_replay({"gemm-database"});
  BOOST_TEST(none.status == 2);
}

BOOST_AUTO_TEST_SUITE_END()
