// mqlcl-replay's command line: subcommands, options and the messages that refuse bad ones.
#include "cli.hpp"
#include "units_support.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <string>
#include <vector>

using namespace mqlcl::replay;
using namespace harness_units;

BOOST_AUTO_TEST_SUITE(command_line)

BOOST_AUTO_TEST_CASE(all_expands_to_the_articles_ten_in_order) {
  CommandLine all = parse({"all"});
  BOOST_TEST(all.steps.size() == 10u);
  BOOST_TEST(all.steps.front() == "matr_mul_2dim");
  BOOST_TEST(all.steps.back() == "matr_mul_vect_v3");
  CommandLine two = parse({"matr_mul_col_local,matr_mul_col_local_fixed", "matr_mul_vect"});
  BOOST_TEST(two.steps == (std::vector<std::string>{"matr_mul_col_local",
                                                    "matr_mul_col_local_fixed", "matr_mul_vect"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(options_are_read) {
  CommandLine c =
      parse({"matr_mul_vect_v2", "--size", "512",       "--cols2=100", "--local",   "16",
             "--repeat",         "3",      "--device",  "1",           "--double",  "--no-cpu",
             "--seed",           "9",      "--format",  "json",        "--chart",   "x.svg",
             "--overlay",        "a.json", "--overlay", "b.json",      "--kernels", "k",
             "--library",        "l.so"});
  BOOST_TEST(c.options.sizes.rows1 == 512u);
  BOOST_TEST(c.options.sizes.colsrows == 512u);
  BOOST_TEST(c.options.sizes.cols2 == 100u);
  BOOST_TEST(c.options.local == std::vector<uint32_t>{16}, boost::test_tools::per_element());
  BOOST_TEST(c.options.repeat == 3u);
  BOOST_TEST(c.options.device == 1);
  BOOST_TEST(c.options.double_precision);
  BOOST_TEST(!c.options.run_cpu);
  BOOST_TEST(c.options.seed == 9u);
  BOOST_TEST((c.format == Format::json));
  BOOST_TEST(c.overlays.size() == 2u);
  BOOST_TEST(c.kernels->string() == "k");
  BOOST_TEST(c.library->string() == "l.so");
  CommandLine defaults = parse({"matr_mul_1dim"});
  BOOST_TEST(defaults.options.sizes.rows1 == 2000u); // the article's size
  BOOST_TEST(defaults.options.device == MQLCL_USE_ANY);
  BOOST_TEST(defaults.options.local.empty());
  BOOST_TEST(defaults.options.run_cpu);
  BOOST_TEST(parse({"matr_mul_1dim", "--local", "8,4"}).options.local ==
                 (std::vector<uint32_t>{8, 4}),
             boost::test_tools::per_element());
  // 0 turns a switch or count off (a tuned INFLIGHT=1 back to 0, FLUSH 0: no separate sums)...
  CommandLine off = parse(
      {"matr_mul_wgmma_tf32", "--param", "INFLIGHT=0", "--param", "FLUSH=0", "--param", "BM=64"});
  BOOST_TEST(off.options.params.at("INFLIGHT") == 0);
  BOOST_TEST(off.options.params.at("FLUSH") == 0);
  BOOST_TEST(off.options.params.at("BM") == 64);
}

BOOST_AUTO_TEST_CASE(bad_sizes_are_rejected_with_a_clear_message) {
  for (const char *bad :
       {"0", "-5", "abc", "12x", "", "1e3", "4294967296", "99999999999999999999999"}) {
    std::string message = error_of([&] { parse({"matr_mul_1dim", "--size", bad}); });
    BOOST_TEST(contains(message, "--size"), message);
    BOOST_TEST(contains(message, "expected a whole number from 1 to 4294967295"), message);
  }
  BOOST_TEST(contains(error_of([] { parse({"matr_mul_1dim", "--rows1", "-1"}); }), "--rows1 '-1'"));
  BOOST_TEST(contains(error_of([] { parse({"matr_mul_1dim", "--local", "8,0"}); }), "--local '0'"));
  BOOST_TEST(contains(error_of([] {
                        parse({"matr_mul_1dim", "--local", "1,2,3,4"});
                      }),
                      "at most 3 sizes"));
  BOOST_TEST(contains(error_of([] { parse({"matr_mul_1dim", "--repeat", "0"}); }), "--repeat"));
  BOOST_TEST(contains(error_of([] { parse({"matr_mul_1dim", "--device", "-2"}); }), "--device"));
  BOOST_TEST(contains(error_of([] { parse({"matr_mul_1dim", "--size"}); }), "needs a value"));
  // ...but a size or divisor is at least 1.
  std::string zero_tile = error_of([] { parse({"matr_mul_tuned", "--param", "BM=0"}); });
  BOOST_TEST(contains(zero_tile, "--param BM '0'"), zero_tile);
  BOOST_TEST(contains(zero_tile, "from 1 to"), zero_tile);
  BOOST_TEST(contains(error_of([] {
                        parse({"matr_mul_wgmma_tf32", "--param", "GROUP_M=0"});
                      }),
                      "from 1 to"));
}

BOOST_AUTO_TEST_CASE(unknown_scripts_and_options_are_rejected_with_a_hint) {
  std::string unknown = error_of([] { parse({"vect_v2"}); });
  BOOST_TEST(contains(unknown, "unknown script 'vect_v2'"), unknown);
  BOOST_TEST(contains(unknown, "did you mean matr_mul_vect_v2?"), unknown);
  BOOST_TEST(contains(error_of([] {
                        parse({"matr_mul_1dim", "--fast"});
                      }),
                      "unknown option --fast"));
  BOOST_TEST(contains(error_of([] {
                        parse({"matr_mul_1dim", "--format", "xml"});
                      }),
                      "expected text, json or csv"));
  BOOST_TEST(contains(error_of([] {
                        parse({"matr_mul_1dim", "--overlay", "a.json"});
                      }),
                      "give --chart FILE.svg too"));
  BOOST_TEST(contains(error_of([] { parse({}); }), "name a script"));
  BOOST_TEST(contains(error_of([] { parse({"matr_mul_1dim", "--no-cpu=1"}); }), "takes no value"));
  BOOST_TEST(parse({"--list"}).list);
  BOOST_TEST(parse({"--list-devices"}).list_devices);
}

// replay, tune, bench and gemm are subcommands with the same options; replay is the default.
BOOST_AUTO_TEST_CASE(subcommands_share_the_options) {
  CommandLine replay = parse({"replay", "matr_mul_1dim", "--size", "64"});
  BOOST_TEST((replay.mode == Mode::replay));
  BOOST_TEST(replay.steps == std::vector<std::string>{"matr_mul_1dim"},
             boost::test_tools::per_element());
  BOOST_TEST(replay.options.sizes.cols2 == 64u);
  // Each --overlay and --param takes one value, so a script after one is still a script.
  CommandLine overlay = parse({"--chart", "c.svg", "--overlay", "a.json", "matr_mul_1dim"});
  BOOST_TEST(overlay.overlays.size() == 1u);
  BOOST_TEST(overlay.steps.size() == 1u);
  CommandLine chart = parse({"chart", "c.svg", "a.json", "b.json"});
  BOOST_TEST(chart.chart->string() == "c.svg");
  BOOST_TEST(chart.overlays.size() == 2u);
  BOOST_TEST((parse({"gemm", "--sizes", "64"}).mode == Mode::gemm));
  BOOST_TEST(contains(error_of([] { parse({"gemm", "matr_mul_1dim"}); }), "gemm takes no script"));
  BOOST_TEST(contains(error_of([] {
                        parse({"chart", "--fast", "c.svg", "a.json"});
                      }),
                      "unknown option --fast"));
}

BOOST_AUTO_TEST_CASE(tune_gemm_takes_the_steps_clgemm_runs_and_a_layout) {
  CommandLine tune = parse({"tune", "matr_mul_tuned", "--gemm", "TN", "--size", "64"});
  BOOST_TEST((tune.mode == Mode::tune));
  BOOST_TEST(tune.gemm_layout.value_or("") == "TN");
  BOOST_TEST(contains(error_of([] {
                        parse({"tune", "matr_mul_tuned", "--gemm", "NX"});
                      }),
                      "NN, NT, TN or TT"));
  BOOST_TEST(contains(error_of([] {
                        parse({"tune", "matr_mul_tf32", "--gemm", "NN"});
                      }),
                      "CLGemm runs the parameters of"));
  BOOST_TEST(contains(error_of([] {
                        parse({"matr_mul_tuned", "--gemm", "NN"});
                      }),
                      "belongs to mqlcl-replay tune"));
  // The double product is tuned through CLGemm only, under its own key.
  BOOST_TEST(
      parse({"tune", "matr_mul_tuned", "--gemm", "NN", "--double"}).options.double_precision);
  for (std::vector<std::string> wrong :
       {std::vector<std::string>{"tune", "matr_mul_tuned", "--double"},
        {"tune", "matr_mul_wgmma_tma_tf32", "--gemm", "NN", "--double"}})
    BOOST_TEST(
        contains(error_of([&] { parse(wrong); }), "tune matr_mul_tuned --gemm LAYOUT --double"));
}

BOOST_AUTO_TEST_SUITE_END()
