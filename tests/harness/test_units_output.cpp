// What a replay writes: JSON, CSV and the SVG chart, progress lines, and the results files read
// back.
#include "chart.hpp"
#include "json.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "scoped_folder.hpp"
#include "units_support.hpp"

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace mqlcl::replay;
using namespace harness_units;
namespace pt = boost::property_tree;

BOOST_AUTO_TEST_SUITE(output)

namespace {

StepRun sample_run() {
  StepRun run;
  run.step = "matr_mul_vect_v2";
  run.source = "section 2.8, Listing 9";
  run.sizes = run.padded = {64, 48, 32};
  run.bridge_version = "mqlcl 1.0.0";
  DeviceInfo device;
  device.ordinal = 0;
  device.name = "Device \"quoted\", with comma";
  device.type = "CPU";
  run.device = device;
  run.build_options = "-DCOLS2=32 -DCOLSROWS=48 -DREALTYPE=float";
  run.geometry.work_dim = 1;
  run.geometry.global = {64, 1, 1};
  run.geometry.local = {16, 0, 0};
  run.cpu_seconds = 0.5;
  run.elements_read = 64 * 32;
  run.total_seconds.values = {0.004, 0.002, 0.003};
  run.kernel_seconds.values = {0.001, 0.0015, 0.002};
  run.verification.done = true;
  run.verification.checked = 3 * 64 * 32;
  run.verification.tolerance = 1e-5;
  run.verification.max_error = 2e-6;
  run.checks.push_back({1, 2, 0.25, std::nullopt, 0.25});
  run.status = Status::verified;
  return run;
}

} // namespace

BOOST_AUTO_TEST_CASE(json_is_parseable_and_holds_the_documented_fields) {
  StepRun failed;
  failed.step = "matr_mul_vect";
  failed.status = Status::rejected;
  failed.message = "COLSROWS must be a multiple of 4\n(line two)";
  const std::string text = to_json({sample_run(), failed});
  const Json root = Json::parse(text);
  BOOST_TEST(root.at("format") == "mqlcl-replay/1");
  const Json &runs = root.at("runs");
  BOOST_TEST_REQUIRE(runs.size() == 2u);
  const Json &run = runs[0];
  BOOST_TEST(run.at("step") == "matr_mul_vect_v2");
  BOOST_TEST(run.at("status") == "verified");
  BOOST_TEST(json_string(run, "device.name") == "Device \"quoted\", with comma");
  BOOST_TEST(run.at("mqlcl_version") == "mqlcl 1.0.0");
  BOOST_TEST(run.at("sizes").at("colsrows").is_number_integer()); // numbers, not strings
  BOOST_TEST(run.at("sizes").at("colsrows") == 48);
  BOOST_TEST(run.at("type") == "float");
  BOOST_TEST(run.at("local").at(0) == 16);
  BOOST_TEST(*json_number(run, "times.total_s.min") == 0.002);
  BOOST_TEST(*json_number(run, "times.total_s.median") == 0.003);
  BOOST_TEST(*json_number(run, "times.kernel_s.median") == 0.0015);
  BOOST_TEST(*json_number(run, "gflops.kernel") == 2.0 * 64 * 48 * 32 / 0.0015 / 1e9,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(*json_bool(run, "verification.passed"));
  BOOST_TEST(run.at("verification").at("checked") == 3 * 64 * 32);
  BOOST_TEST(run.at("random_checks").at(0).at("cpu").is_null());
  BOOST_TEST(runs[1].at("status") == "rejected");
  BOOST_TEST(runs[1].at("message") == "COLSROWS must be a multiple of 4\n(line two)");
  BOOST_TEST(runs[1].at("device").is_null());
  BOOST_TEST(text.find(R"x("message": "COLSROWS must be a multiple of 4\n(line two)")x") !=
             std::string::npos);
}

// Progress is for a terminal: to a file or pipe (a log, CI), or with --format json, nothing.
BOOST_AUTO_TEST_CASE(progress_is_quiet_off_a_terminal) {
  std::FILE *file = std::tmpfile();
  BOOST_TEST_REQUIRE(file != nullptr);
  {
    ProgressLine progress(file, false);
    progress.show("4096x4096x4096: matr_mul_tuned (1 of 2)");
    progress.show("later", false);
    progress.clear();
  }
  BOOST_TEST(std::ftell(file) == 0L);
  std::fclose(file);
}

// bench's and gemm's lines reach a log as each is printed, through a fully buffered stream (stdout
// redirected), so that a run stopped by a time limit leaves the rows it finished.
BOOST_AUTO_TEST_CASE(report_lines_reach_a_log_as_they_are_printed) {
  const ScopedFolder folder("mqlcl-test-report");
  const std::filesystem::path path = folder.path() / "log.txt";
  std::FILE *file = std::fopen(path.string().c_str(), "w");
  BOOST_TEST_REQUIRE(file != nullptr);
  BOOST_TEST_REQUIRE(std::setvbuf(file, nullptr, _IOFBF, 1 << 16) == 0);
  const TextReport say(true, file);
  say("  {:<6} {:>8.1f}\n", "2000", 43987.0);
  std::string line;
  {
    std::ifstream log(path); // what another reader of the log sees, the stream still open
    BOOST_TEST(static_cast<bool>(std::getline(log, line)));
  } // closed before the folder goes: Windows refuses to remove an open file
  BOOST_TEST(line == "  2000    43987.0");
  std::fclose(file);
}

// A report that is not shown (--format json) prints nothing.
BOOST_AUTO_TEST_CASE(a_hidden_report_prints_nothing) {
  std::FILE *file = std::tmpfile();
  BOOST_TEST_REQUIRE(file != nullptr);
  const TextReport say(false, file);
  say("{}\n", "row");
  BOOST_TEST(std::ftell(file) == 0L);
  std::fclose(file);
}

// Result files written before numbers were written as numbers hold them as strings; the readers
// take both.
BOOST_AUTO_TEST_CASE(json_readers_take_numbers_written_as_strings) {
  const Json old = Json::parse(R"({"n": "2000", "gflops": "65673.98", "verified": "true",
                                    "nested": {"rows1": "48", "bad": "4x"}})");
  BOOST_TEST(*json_integer(old, "n") == 2000);
  BOOST_TEST(*json_number(old, "gflops") == 65673.98);
  BOOST_TEST(*json_bool(old, "verified"));
  BOOST_TEST(*json_integer(old, "nested.rows1") == 48);
  BOOST_TEST(!json_number(old, "nested.bad"));
  BOOST_TEST(!json_number(old, "nested.missing"));
  BOOST_TEST(!json_number(old, "n.deeper"));
  BOOST_TEST(json_string(old, "n") == "2000");
  const Json now = Json::parse(R"({"n": 2000, "verified": true})");
  BOOST_TEST(*json_integer(now, "n") == 2000);
  BOOST_TEST(json_string(now, "n") == "2000");
  BOOST_TEST(*json_bool(now, "verified"));
}

BOOST_AUTO_TEST_CASE(csv_has_one_row_per_run_with_the_headers_columns) {
  std::string csv = to_csv({sample_run(), sample_run()});
  std::istringstream in(csv);
  std::string header, row;
  std::getline(in, header);
  BOOST_TEST(header.rfind("step,status,device,rows1,", 0) == 0u);
  size_t columns = static_cast<size_t>(std::count(header.begin(), header.end(), ',')) + 1;
  int rows = 0;
  while (std::getline(in, row)) {
    ++rows;
    // The device name is quoted: count commas outside quotes.
    size_t fields = 1;
    bool quoted = false;
    for (char c : row) {
      quoted = c == '"' ? !quoted : quoted;
      fields += (!quoted && c == ',') ? 1 : 0;
    }
    BOOST_TEST(fields == columns, row);
    BOOST_TEST(row.find("\"Device \"\"quoted\"\", with comma\"") != std::string::npos);
    BOOST_TEST(row.find(",0.003,") != std::string::npos); // total median
  }
  BOOST_TEST(rows == 2);
}

BOOST_AUTO_TEST_CASE(chart_is_well_formed_svg_with_a_line_per_series) {
  StepRun v3 = sample_run();
  v3.step = "matr_mul_vect_v3";
  std::vector<ChartSeries> series = series_from_runs({sample_run(), v3});
  BOOST_TEST_REQUIRE(series.size() == 1u);
  BOOST_TEST(series[0].points.size() == 2u);
  for (const char *file : {"article-hd4870.json", "article-cpu.json"})
    for (ChartSeries &s : load_results(std::filesystem::path(MQLCL_TEST_FIXTURES) / file))
      series.push_back(std::move(s));
  BOOST_TEST_REQUIRE(series.size() == 3u);
  BOOST_TEST(series[1].label == "Radeon HD 4870 (article, 2012)");
  BOOST_TEST(series[1].points.size() == 9u);
  BOOST_TEST(*series[1].points.at("matr_mul_vect_v2").total_s == 0.499);
  BOOST_TEST(series[2].points.count("matr_mul_2dim") == 0u); // no OpenCL time to draw

  std::vector<std::string> order;
  for (const Step &step : replay_steps())
    order.push_back(step.name);
  std::stringstream svg(chart_svg(series, order));
  pt::ptree root;
  pt::read_xml(svg, root); // throws unless well-formed
  const pt::ptree &top = root.get_child("svg");
  int polylines = 0, labels = 0;
  for (const auto &child : top) {
    polylines += child.first == "polyline" ? 1 : 0;
    if (child.first == "text" && child.second.data() == "Radeon HD 4870 (article, 2012)")
      ++labels;
  }
  // Both panels: total time for each series, kernel time for the one that has it (the article
  // gives none).
  BOOST_TEST(polylines == 2 * (3 + 1));
  BOOST_TEST(labels == 1);
}

BOOST_AUTO_TEST_CASE(variants_outside_the_articles_sequence_are_not_joined_to_it) {
  ChartSeries series{"device", {}};
  for (const char *step : {"matr_mul_vect_v2", "matr_mul_vect_v3", "matr_mul_col_local_fixed"})
    series.points[step] = ChartPoint{0.5, std::nullopt, 16e9};
  std::stringstream svg(chart_svg({series}, {"matr_mul_vect_v2", "matr_mul_vect_v3"}));
  pt::ptree root;
  pt::read_xml(svg, root);
  int polylines = 0, circles = 0;
  for (const auto &child : root.get_child("svg")) {
    if (child.first == "polyline") {
      ++polylines;
      std::string points = child.second.get<std::string>("<xmlattr>.points");
      BOOST_TEST(std::count(points.begin(), points.end(), ' ') == 1); // two points: v2 to v3
    }
    circles += child.first == "circle" ? 1 : 0;
  }
  BOOST_TEST(polylines == 2); // time and GFLOPS panels
  BOOST_TEST(circles == 2 * 3);
}

BOOST_AUTO_TEST_CASE(a_wrong_product_is_crossed_out_on_the_chart_and_in_the_legend) {
  StepRun wrong = sample_run();
  wrong.status = Status::wrong;
  StepRun right = sample_run();
  right.step = "matr_mul_vect_v3";
  std::vector<ChartSeries> series = series_from_runs({wrong, right});
  BOOST_TEST_REQUIRE(series.size() == 1u);
  BOOST_TEST(series[0].points.at(wrong.step).wrong);
  BOOST_TEST(!series[0].points.at(right.step).wrong);
  auto crosses = [](const std::vector<ChartSeries> &drawn) {
    std::stringstream svg(chart_svg(drawn, {"matr_mul_vect_v2", "matr_mul_vect_v3"}));
    pt::ptree root;
    pt::read_xml(svg, root);
    int count = 0;
    for (const auto &child : root.get_child("svg"))
      count += child.first == "path" && child.second.get("<xmlattr>.class", "") == "wrong";
    return count;
  };
  BOOST_TEST(crosses(series) == 2 + 1); // the time and GFLOPS panels, and the legend
  series[0].points.at(wrong.step).wrong = false;
  BOOST_TEST(crosses(series) == 0);
  // A saved run that was wrong keeps its mark when merged with a right one of the same device.
  ChartSeries saved{"device", {}}, again{"device", {}};
  saved.points["a"] = ChartPoint{2.0, 1.0, 1, true};
  again.points["a"] = ChartPoint{1.0, 0.5, 1, false};
  BOOST_TEST(merge_series({saved, again})[0].points.at("a").wrong);
}

BOOST_AUTO_TEST_CASE(runs_of_one_device_merge_into_their_best_times) {
  ChartSeries first{"device", {}}, second{"device", {}}, other{"other", {}};
  first.points["a"] = ChartPoint{2.0, 1.0, 1};
  first.points["b"] = ChartPoint{3.0, std::nullopt, 1};
  second.points["a"] = ChartPoint{1.5, 1.2, 1};
  second.points["c"] = ChartPoint{4.0, 3.0, 1};
  other.points["a"] = ChartPoint{9.0, 9.0, 1};
  std::vector<ChartSeries> merged = merge_series({first, other, second});
  BOOST_TEST_REQUIRE(merged.size() == 2u);
  BOOST_TEST(merged[0].label == "device");
  BOOST_TEST(*merged[0].points.at("a").total_s == 1.5);
  BOOST_TEST(*merged[0].points.at("a").kernel_s == 1.0);
  BOOST_TEST(*merged[0].points.at("b").total_s == 3.0);
  BOOST_TEST(*merged[0].points.at("c").kernel_s == 3.0);
  BOOST_TEST(*merged[1].points.at("a").total_s == 9.0);
}

BOOST_AUTO_TEST_CASE(results_files_that_are_not_results_are_refused) {
  std::filesystem::path dir = MQLCL_TEST_WORK_DIR;
  std::filesystem::create_directories(dir);
  std::filesystem::path broken = dir / "broken.json";
  std::ofstream(broken) << "{\"runs\": [ {\"step\": ";
  BOOST_TEST(contains(error_of([&] { load_results(broken); }), "cannot read results file"));
  std::filesystem::path other = dir / "other.json";
  std::ofstream(other) << "{\"name\": 1}";
  BOOST_TEST(contains(error_of([&] { load_results(other); }), "has no \"runs\" array"));
  BOOST_TEST(
      contains(error_of([&] { load_results(dir / "missing.json"); }), "cannot read results file"));
}

BOOST_AUTO_TEST_SUITE_END()
