// Every step of the replay catalogue, run by mqlcl-replay through the bridge on oclgrind's
// simulated device with its data-race and API checks on: the log must be empty, except for the
// article's col_local as printed, whose race oclgrind must find (and the fixed variant's not).
// Steps added to the catalogue join this check by themselves; so does CLGemm's Ozaki scheme,
// through its own tests' small cases.
#define BOOST_TEST_MODULE reliability_oclgrind
#include "harness_support.hpp"

#include "catalogue.hpp"
#include "runner.hpp"
#include "tuning.hpp"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>

#include <array>

using namespace mqlcl::replay;
namespace gemm = mqlcl::gemm;
using harness_test::Outcome;
using harness_test::ScopedEnvironment;

namespace {

// Small, odd sizes (oclgrind interprets every work-item) and, for the tiled steps, small tiles.
// The article's vector steps need COLSROWS to be a multiple of 8; its 1-D steps run groups of 8
// rows, so that work-items share a work-group (and col_local's race can happen).
std::vector<std::string> arguments_for(const Step &step) {
  std::vector<std::string> args{step.name, "--no-cpu",   "--cols2",
                                "19",      "--colsrows", step.constraints.empty() ? "19" : "24"};
  if (step.geometry == &one_per_row)
    args.insert(args.end(), {"--rows1", "24", "--local", "8"});
  else
    args.insert(args.end(), {"--rows1", "21"});
  for (const auto &[name, small] : std::vector<std::pair<std::string, int>>{
           {"BM", 32}, {"BN", 32}, {"BK", 8}, {"TM", 4}, {"TN", 4}, {"WARP_ROWS", 4}, {"BLK", 4}})
    if (step.params.count(name) != 0)
      args.insert(args.end(), {"--param", fmt::format("{}={}", name, small)});
  return args;
}

struct Checked {
  Outcome outcome;
  std::string log;
};

// `cache`: the tuning cache the replay reads (by default one that does not exist: untuned);
// `extra`: arguments after the step's own (a later --size or --param overrides an earlier one).
Checked under_oclgrind(const Step &step, const std::string &label = "",
                       const std::string &cache_file = "no-tuning.json",
                       const std::vector<std::string> &extra = {}) {
  std::filesystem::path work = MQLCL_TEST_WORK_DIR;
  std::filesystem::path log = work / (step.name + label + ".log");
  std::filesystem::create_directories(work);
  std::filesystem::remove(log);
  ScopedEnvironment library("MQLCL_OPENCL_LIBRARY", std::string(MQLCL_OCLGRIND_RUNTIME));
  ScopedEnvironment races("OCLGRIND_DATA_RACES", std::string("1"));
  ScopedEnvironment api("OCLGRIND_CHECK_API", std::string("1"));
  ScopedEnvironment file("OCLGRIND_LOG", log.string());
  ScopedEnvironment cache("MQLCL_TUNE_CACHE", (work / cache_file).string());
  std::vector<std::string> args = arguments_for(step);
  args.insert(args.end(), extra.begin(), extra.end());
  Checked checked{harness_test::run_replay(args), ""};
  if (std::filesystem::exists(log))
    checked.log = harness_test::read_file(log);
  return checked;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_kernel_runs_clean_under_oclgrind_but_the_racy_listing) {
  size_t checked = 0;
  for (const Step &step : replay_steps()) {
    if (step.geometry == nullptr)
      continue; // host only
    Checked run = under_oclgrind(step);
    if (step.requirement != Requirement::none) {
      // oclgrind is no NVIDIA GPU: the step must say so and run nothing.
      BOOST_TEST(run.outcome.status == 2, step.name);
      BOOST_TEST(run.outcome.err.find("NVIDIA tensor cores") != std::string::npos, run.outcome.err);
      continue;
    }
    ++checked;
    BOOST_TEST_MESSAGE(step.name << ": exit " << run.outcome.status << ", oclgrind log "
                                 << run.log.size() << " bytes");
    BOOST_TEST(run.outcome.out.find("device name = Oclgrind Simulator") != std::string::npos,
               step.name << " did not run on oclgrind:\n"
                         << run.outcome.out << run.outcome.err);
    if (!step.race.empty()) {
      BOOST_TEST(run.log.find("data race") != std::string::npos,
                 step.name << ": oclgrind did not report the listing's race");
      continue;
    }
    BOOST_TEST(run.outcome.status == 0, step.name << "\n" << run.outcome.err);
    BOOST_TEST(run.log.empty(), step.name << ": oclgrind reported\n" << run.log.substr(0, 4000));
  }
  BOOST_TEST(checked >= 14u); // the article's nine kernels, the fixed col_local, and steps 11-14
}

// oclgrind's local memory is dedicated, so untuned, the tuned step runs step 13's tiles there;
// its own file, the CPU form, is checked through a tuning cache that names it for this device.
BOOST_AUTO_TEST_CASE(the_tuned_steps_cpu_form_runs_clean_under_oclgrind_too) {
  const Step &tuned = *find_step(replay_steps(), "matr_mul_tuned");
  DeviceCaps caps;
  {
    // This process's bridge loads oclgrind's runtime (nothing else here loaded OpenCL before).
    ScopedEnvironment library("MQLCL_OPENCL_LIBRARY", std::string(MQLCL_OCLGRIND_RUNTIME));
    Runner runner(harness_test::bridge(), MQLCL_TEST_KERNELS);
    caps = runner.probe_device(MQLCL_USE_ANY).caps;
  }
  BOOST_TEST_REQUIRE(caps.tuning_key.find("Oclgrind") != std::string::npos, caps.tuning_key);
  std::filesystem::path cache = std::filesystem::path(MQLCL_TEST_WORK_DIR) / "cpu-form.json";
  std::filesystem::remove(cache);
  TunedEntry entry = tuned_entry(caps, tuned.name, {21, 19, 19});
  entry.kernel_file = tuned.kernel_file; // matr_mul_tuned.cl
  entry.params = tuned.params;
  entry.measured = "test";
  gemm::write_tuned(cache.string(), entry);

  Checked run = under_oclgrind(tuned, "-cpu-form", cache.filename().string());
  BOOST_TEST(run.outcome.status == 0, run.outcome.out << run.outcome.err);
  BOOST_TEST(run.outcome.out.find("-DVK=") != std::string::npos, // the CPU form's parameters
             "not the CPU form:\n"
                 << run.outcome.out);
  BOOST_TEST(run.log.empty(), "oclgrind reported\n" << run.log.substr(0, 4000));
}

// Step 13's loads drop their edge checks along each dimension that is a whole multiple of its
// tiles (the 32 x 32 x 8 tiles above): with none (32 x 32 x 32), and with edges on all sides where
// K is a multiple of 4, so the 16-byte loads run (21 x 20 x 19; the catalogue's 19 takes 4-byte
// loads), or where the lines are too, so that no gathered group of 4 straddles an edge and those
// past it read the last 4 lines (36 x 20 x 28), no access goes out of bounds, whether it reads
// float4s along K or gathers 4 lines at one k, and whether each gathering slice computes its
// addresses or advances pointers.
BOOST_AUTO_TEST_CASE(step_13_runs_clean_with_and_without_edge_checks) {
  const Step &step = *find_step(replay_steps(), "matr_mul_double_buffered");
  for (const char *gather : {"0", "1"})
    for (const char *pointers : {"0", "1"})
      for (const auto &[rows1, colsrows, cols2] : {std::array<const char *, 3>{"32", "32", "32"},
                                                   std::array<const char *, 3>{"21", "20", "19"},
                                                   std::array<const char *, 3>{"36", "20", "28"}}) {
        if (std::string_view(pointers) == "1" && std::string_view(gather) == "0")
          continue; // POINTERS only with GATHER
        std::string label =
            fmt::format("-{}x{}x{}-pointers{}-gather{}", rows1, colsrows, cols2, pointers, gather);
        Checked run = under_oclgrind(step, label, "no-tuning.json",
                                     {"--rows1", rows1, "--colsrows", colsrows, "--cols2", cols2,
                                      "--param", fmt::format("POINTERS={}", pointers), "--param",
                                      fmt::format("GATHER={}", gather)});
        BOOST_TEST(run.outcome.status == 0, label << "\n" << run.outcome.out << run.outcome.err);
        BOOST_TEST(run.outcome.out.find(fmt::format("-DCOLS2={} -DCOLSROWS={} -DREALTYPE=float "
                                                    "-DROWS1={}",
                                                    cols2, colsrows, rows1)) != std::string::npos,
                   run.outcome.out);
        BOOST_TEST(run.outcome.out.find(fmt::format("-DGATHER={}", gather)) != std::string::npos,
                   run.outcome.out);
        BOOST_TEST(run.outcome.out.find(fmt::format("-DPOINTERS={}", pointers)) !=
                       std::string::npos,
                   run.outcome.out);
        BOOST_TEST(run.log.empty(), label << ": oclgrind reported\n" << run.log.substr(0, 4000));
      }
}

// The layouts move lines within each group of four in local memory and pair lanes differently,
// and CARRY moves each slice's barrier before its last k and its stores before the barrier:
// still no access out of bounds and no race, with edges and without, in both ways of filling
// local memory.
BOOST_AUTO_TEST_CASE(step_13_runs_clean_in_rotated_and_paired_layouts) {
  const Step &step = *find_step(replay_steps(), "matr_mul_double_buffered");
  for (const char *gather : {"0", "1"})
    for (const auto &[rows1, colsrows, cols2] : {std::array<const char *, 3>{"32", "32", "32"},
                                                 std::array<const char *, 3>{"21", "20", "19"}}) {
      // The shape with edges carries: its K of 20 makes three 8-deep slices.
      const char *carry = std::string_view(rows1) == "21" ? "1" : "0";
      std::string label =
          fmt::format("-{}x{}x{}-layouts-gather{}-carry{}", rows1, colsrows, cols2, gather, carry);
      Checked run = under_oclgrind(step, label, "no-tuning.json",
                                   {"--rows1", rows1, "--colsrows", colsrows, "--cols2", cols2,
                                    "--param", fmt::format("GATHER={}", gather), "--param",
                                    fmt::format("CARRY={}", carry), "--param", "ROTATE_A=1",
                                    "--param", "ROTATE_B=3", "--param", "PAIRED_LANES=1"});
      BOOST_TEST(run.outcome.status == 0, label << "\n" << run.outcome.out << run.outcome.err);
      BOOST_TEST(run.outcome.out.find(fmt::format("-DCARRY={}", carry)) != std::string::npos,
                 run.outcome.out);
      BOOST_TEST(run.outcome.out.find("-DPAIRED_LANES=1") != std::string::npos, run.outcome.out);
      BOOST_TEST(run.outcome.out.find("-DROTATE_A=1 -DROTATE_B=3") != std::string::npos,
                 run.outcome.out);
      BOOST_TEST(run.log.empty(), label << ": oclgrind reported\n" << run.log.substr(0, 4000));
    }
}

// Sanitizer builds leave the wrapper out: it preloads oclgrind's runtime ahead of the sanitizer's
// runtime, which then refuses to start ("ASan runtime does not come first").
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MQLCL_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MQLCL_SANITIZED_BUILD 1
#endif
#endif

#if defined(MQLCL_OCLGRIND_WRAPPER) && !defined(MQLCL_SANITIZED_BUILD)
// One test case of a test program of the bridge, on oclgrind's device with its checks on: it passes
// and oclgrind reports nothing. A process per case: oclgrind starts its log afresh with each
// context.
void runs_clean_under_oclgrind(const char *program, const std::string &suite, const char *test) {
  std::filesystem::path work = MQLCL_TEST_WORK_DIR;
  std::filesystem::create_directories(work);
  ScopedEnvironment library("MQLCL_OPENCL_LIBRARY", std::string(MQLCL_OCLGRIND_RUNTIME));
  ScopedEnvironment races("OCLGRIND_DATA_RACES", std::string("1"));
  ScopedEnvironment api("OCLGRIND_CHECK_API", std::string("1"));
  ScopedEnvironment required("MQLCL_REQUIRE_DEVICE", std::string("1")); // no skipping
  const std::filesystem::path log = work / (suite + "-" + test + ".log");
  std::filesystem::remove(log);
  ScopedEnvironment file("OCLGRIND_LOG", log.string());
  const Outcome run = harness_test::run_program(program, {"--run_test=" + suite + "/" + test});
  BOOST_TEST(run.status == 0, test << "\n" << run.out << run.err);
  BOOST_TEST(harness_test::has(run.out, "Running 1 test case"), test << "\n" << run.out);
  const std::string reported =
      std::filesystem::exists(log) ? harness_test::read_file(log) : std::string();
  BOOST_TEST(reported.empty(), test << ": oclgrind reported\n" << reported.substr(0, 4000));
}

// The Ozaki scheme's kernels (the portable form: oclgrind is no GPU) as test_bridge_gemm_ozaki's
// small cases run them: every layout, odd sizes, offsets, a batch, whole and partial groups of
// columns, a second pass and a product the scheme declines. (A load of a plane past the call's
// moduli was found so.)
BOOST_AUTO_TEST_CASE(the_ozaki_schemes_kernels_run_clean_under_oclgrind) {
  for (const char *test : {"the_scheme_is_as_accurate_as_fp64_in_every_layout",
                           "lines_spanning_many_binades_keep_more_bits",
                           "whole_and_partial_groups_of_columns_rebuild_alike",
                           "a_product_smaller_than_guessed_takes_a_second_pass",
                           "a_product_no_moduli_carry_runs_in_fp64"})
    runs_clean_under_oclgrind(MQLCL_TEST_OZAKI, "products", test);
}

// CLGemm's step 13 reading operands as stored in every layout, where gathered pieces of four lines
// past the tiles' edge read the last four lines (test_bridge_gemm's case): none reads past a
// matrix.
BOOST_AUTO_TEST_CASE(the_gemms_tiles_read_no_line_past_a_matrix) {
  runs_clean_under_oclgrind(MQLCL_TEST_GEMM, "gemm",
                            "lines_past_the_tiles_edge_reach_only_what_is_never_stored");
}

// oclgrind's wrapper preloads its runtime (LD_PRELOAD), the usual way to run a program under it:
// the bridge takes the preloaded entry points, so the replay runs on oclgrind's device, not
// partly on the ICD loader's driver, and oclgrind finds col_local's race (with --data-races);
// the fixed variant runs clean.
BOOST_AUTO_TEST_CASE(the_replay_runs_under_oclgrinds_wrapper) {
  std::filesystem::path work = MQLCL_TEST_WORK_DIR;
  ScopedEnvironment library("MQLCL_OPENCL_LIBRARY", std::nullopt);
  ScopedEnvironment cache("MQLCL_TUNE_CACHE", (work / "no-tuning.json").string());
  auto under_wrapper = [](std::vector<std::string> options, const char *step) {
    options.insert(options.end(),
                   {MQLCL_TEST_REPLAY, step, "--size", "32", "--local", "8", "--no-cpu"});
    return harness_test::run_program(MQLCL_OCLGRIND_WRAPPER, options);
  };

  // Exactly as a user types it: the listing's race shows as a wrong product.
  Outcome plain = under_wrapper({}, "matr_mul_col_local");
  BOOST_TEST(plain.status == 1, plain.out << plain.err); // the verification's failure, no crash
  BOOST_TEST(plain.out.find("device name = Oclgrind Simulator") != std::string::npos, plain.out);
  BOOST_TEST(plain.out.find("verification: FAILED") != std::string::npos, plain.out);
  BOOST_TEST(plain.out.find("this is the race of the listing as printed") != std::string::npos,
             plain.out);

  Outcome racy = under_wrapper({"--data-races", "--check-api"}, "matr_mul_col_local");
  BOOST_TEST(racy.status == 1, racy.out << racy.err.substr(0, 4000));
  BOOST_TEST(racy.err.find("data race at local memory") != std::string::npos,
             "oclgrind did not report the listing's race:\n"
                 << racy.err.substr(0, 4000));

  Outcome fixed = under_wrapper({"--data-races", "--check-api"}, "matr_mul_col_local_fixed");
  BOOST_TEST(fixed.status == 0, fixed.out << fixed.err.substr(0, 4000));
  BOOST_TEST(fixed.out.find("device name = Oclgrind Simulator") != std::string::npos, fixed.out);
  BOOST_TEST(fixed.err.find("data race") == std::string::npos, fixed.err.substr(0, 4000));
}
#endif // MQLCL_OCLGRIND_WRAPPER
