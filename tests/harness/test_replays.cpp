// Every step of the catalogue replayed through the runner library, on the real bridge (loaded by
// path with Boost.DLL, as mqlcl-replay does) and the real OpenCL device (PoCL here).
#define BOOST_TEST_MODULE harness_replays
#include "harness_support.hpp"
#include "text_count.hpp"

#include "catalogue.hpp"
#include "kernel_source.hpp"
#include "runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

using namespace mqlcl::replay;
using harness_test::bridge;
using harness_test::needs_device;

namespace {

// Records what the runner reports, in order.
struct Recorder : Observer {
  std::vector<std::string> events;
  uint32_t progress_calls = 0;
  void started(const StepRun &) override { events.push_back("started"); }
  void cpu_progress(uint32_t, uint32_t) override { ++progress_calls; }
  void cpu_finished(const StepRun &) override { events.push_back("cpu"); }
  void read_finished(const StepRun &) override { events.push_back("read"); }
  void finished(const StepRun &) override { events.push_back("finished"); }
};

Runner &article_runner() {
  static Runner runner(bridge(), MQLCL_TEST_KERNELS);
  return runner;
}

Options options_for(Sizes sizes) {
  Options options;
  options.sizes = sizes;
  options.device = harness_test::device_under_test();
  options.seed = 42;
  return options;
}

StepRun replay(const std::string &name, const Options &options) {
  Recorder recorder;
  return article_runner().run(*find_step(replay_steps(), name), options, recorder);
}

std::string describe(const StepRun &run) {
  return fmt::format("{} {}x{}x{} {}: {} {} (max error {} of tolerance {}, {} mismatches)",
                     run.step, run.sizes.rows1, run.sizes.colsrows, run.sizes.cols2, run.real_type,
                     status_name(run.status), run.message, run.verification.max_error,
                     run.verification.tolerance, run.verification.mismatches);
}

void check_verified(const StepRun &run) {
  BOOST_TEST((run.status == Status::verified), describe(run));
  if (run.host_only) {
    BOOST_TEST(run.cpu_seconds.has_value());
    BOOST_TEST(run.verification.checked == uint64_t{run.sizes.rows1} * run.sizes.cols2);
    return;
  }
  uint64_t elements = uint64_t{run.sizes.rows1} * run.sizes.cols2;
  BOOST_TEST(run.verification.checked == elements * run.repeat, describe(run));
  BOOST_TEST(run.elements_read == uint64_t{run.padded.rows1} * run.padded.cols2);
  BOOST_TEST(run.total_seconds.values.size() == run.repeat);
  BOOST_TEST(run.kernel_seconds.values.size() == run.repeat);
  BOOST_TEST(run.kernel_seconds.min() > 0.0);
  BOOST_TEST(run.checks.size() == 10u);
  for (const RandomCheck &check : run.checks) {
    BOOST_TEST_REQUIRE(check.row < run.sizes.rows1);
    BOOST_TEST_REQUIRE(check.col < run.sizes.cols2);
  }
  if (run.cpu_verification)
    BOOST_TEST(run.cpu_verification->passed(), describe(run));
}

std::string kernel_text(const std::string &file) { // as the runner builds it
  return read_kernel_source(std::filesystem::path(MQLCL_TEST_KERNELS) / file);
}

// Steps that need hardware this device may lack (NVIDIA tensor cores) are tested on their own
// (test_beyond.cpp): here they must say so. A step in double only runs with --double.
bool runs_here(const Step &step, bool double_precision = false) {
  if (step.double_only && !double_precision)
    return false;
  if (step.requirement == Requirement::none)
    return true;
  static const DeviceCaps caps =
      article_runner().probe_device(harness_test::device_under_test()).caps;
  return device_meets(step.requirement, caps);
}

} // namespace

BOOST_AUTO_TEST_SUITE(every_script, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(at_64_and_at_sizes_that_are_no_multiple_of_the_vector_width) {
  for (const Step &step : replay_steps()) {
    if (!runs_here(step))
      continue;
    // 64: every step; 37: the scalar steps; 40 (4, not 8): the float4 steps.
    std::vector<uint32_t> sizes{64};
    if (step.constraints.empty())
      sizes.push_back(37);
    else if (step.constraints[0].multiple_of == 4)
      sizes.push_back(40);
    for (uint32_t n : sizes) {
      Recorder recorder;
      StepRun run = article_runner().run(step, options_for({n, n, n}), recorder);
      check_verified(run);
      std::vector<std::string> expected =
          run.host_only ? std::vector<std::string>{"started", "cpu", "finished"}
                        : std::vector<std::string>{"started", "cpu", "read", "finished"};
      BOOST_TEST(recorder.events == expected, boost::test_tools::per_element());
      BOOST_TEST(recorder.progress_calls == (run.host_only ? n : n)); // one per outer iteration
    }
  }
}

BOOST_AUTO_TEST_CASE(vector_steps_reject_what_their_kernels_cannot_compute) {
  for (auto [name, n] : {std::pair<const char *, uint32_t>{"matr_mul_vect", 37},
                         {"matr_mul_vect_v2", 50},
                         {"matr_mul_vect_v3", 36},
                         {"matr_mul_vect_v3", 37}}) {
    Recorder recorder;
    StepRun run =
        article_runner().run(*find_step(replay_steps(), name), options_for({64, n, 64}), recorder);
    BOOST_TEST((run.status == Status::rejected), describe(run));
    BOOST_TEST(run.message.find("COLSROWS must be a multiple of") != std::string::npos,
               run.message);
    BOOST_TEST((exit_code_of(run.status) == ExitCode::bad_input));
    // Nothing ran: no header, no CPU loop, no device.
    BOOST_TEST(recorder.events == std::vector<std::string>{"finished"},
               boost::test_tools::per_element());
    BOOST_TEST(run.total_seconds.empty());
  }
}

BOOST_AUTO_TEST_CASE(with_non_square_matrices) {
  for (const Step &step : replay_steps())
    if (runs_here(step))
      check_verified(replay(step.name, options_for({33, 24, 17})));
}

BOOST_AUTO_TEST_CASE(in_double_precision) {
  if (bridge().api().CLGetInfoInteger(0, MQLCL_CL_DEVICE_DOUBLE_SUPPORT) != 1) {
    BOOST_TEST_MESSAGE("the device has no cl_khr_fp64");
    return;
  }
  Options options = options_for({20, 16, 12});
  options.double_precision = true;
  for (const Step &step : replay_steps()) {
    StepRun run = replay(step.name, options);
    if (step.float_only || !runs_here(step, true)) { // said, not attempted
      BOOST_TEST((run.status == Status::rejected), describe(run));
      BOOST_TEST(run.message.find(step.float_only ? "float only" : "NVIDIA tensor cores") !=
                     std::string::npos,
                 run.message);
      continue;
    }
    check_verified(run);
    BOOST_TEST(run.real_type == "double");
    if (!run.host_only)
      BOOST_TEST(run.build_options.find("-DREALTYPE=double") != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(with_explicit_work_group_sizes) {
  for (const Step &step : replay_steps()) {
    if (step.geometry != &one_per_element && step.geometry != &one_per_row)
      continue; // host only, or a step beyond the article (its tiles set its work-groups)
    Options options = options_for({32, 32, 32});
    options.run_cpu = false;
    options.local =
        step.geometry == &one_per_element ? std::vector<uint32_t>{4, 8} : std::vector<uint32_t>{8};
    StepRun run = replay(step.name, options);
    check_verified(run);
    BOOST_TEST(!run.geometry.runtime_chooses_local());
    BOOST_TEST(run.geometry.local[0] == options.local[0]);
  }
}

BOOST_AUTO_TEST_CASE(repeated_replays_are_each_verified) {
  Options options = options_for({48, 48, 48});
  options.repeat = 3;
  options.run_cpu = false;
  // The 1-D steps add into out[], so each replay must start from zeros again.
  for (const char *name : {"matr_mul_1dim", "matr_mul_1dim_coalesced", "matr_mul_vect_v3"}) {
    StepRun run = replay(name, options);
    check_verified(run);
    BOOST_TEST(run.total_seconds.min() <= run.total_seconds.median());
    BOOST_TEST(!run.cpu_seconds.has_value());
    BOOST_TEST(!run.checks.front().cpu.has_value());
  }
}

BOOST_AUTO_TEST_CASE(private_arrays_too_large_for_a_cpu_work_group_are_refused_not_crashed) {
  // 4096 rows: PoCL would run groups of 2048 work-items x 8000 bytes of rowbuf, 16 MB on one
  // worker thread's stack (8 MiB with the usual ulimit -s), and kill the process.
  Options options = options_for({4096, 2000, 4});
  options.run_cpu = false;
  StepRun run = replay("matr_mul_row_in_private", options);
  if (!run.device || run.device->type != "CPU") {
    check_verified(run); // a GPU: registers and spill memory, no such limit
    return;
  }
  BOOST_TEST((run.status == Status::rejected), describe(run));
  size_t at = run.message.find("give --local ");
  BOOST_TEST_REQUIRE(at != std::string::npos, run.message);
  // The local size it offers works.
  options.local = {static_cast<uint32_t>(std::stoul(run.message.substr(at + 13)))};
  BOOST_TEST(options.local[0] * 8000u <= run.device->caps.cpu_group_stack_bytes);
  check_verified(replay("matr_mul_row_in_private", options));
}

BOOST_AUTO_TEST_CASE(the_host_only_step_is_skipped_without_its_cpu_loop) {
  Options options = options_for({16, 16, 16});
  options.run_cpu = false;
  StepRun run = replay("matr_mul_2dim", options);
  BOOST_TEST((run.status == Status::skipped));
  BOOST_TEST((exit_code_of(run.status) == ExitCode::ok));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(kernels, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(each_file_compiles_standalone_with_its_defaults) {
  const BridgeApi &cl = bridge().api();
  Handle context(cl.CLContextFree, cl.CLContextCreate(harness_test::device_under_test()));
  BOOST_TEST_REQUIRE(context.get() != MQLCL_INVALID_HANDLE, bridge().last_error_text());
  bool fp64 = cl.CLGetInfoInteger(context.get(), MQLCL_CL_DEVICE_DOUBLE_SUPPORT) == 1;
  for (const Step &step : replay_steps()) {
    if (step.kernel_file.empty() || !runs_here(step) || !step.variant_of.empty())
      continue;
    std::u16string source = to_utf16(kernel_text(step.kernel_file));
    // As MQL5 would load it as a #resource: CLProgramCreate, no options.
    Handle program(cl.CLProgramFree, cl.CLProgramCreate(context.get(), source.c_str()));
    BOOST_TEST(program.get() != MQLCL_INVALID_HANDLE,
               step.kernel_file << ": " << bridge().last_error_text());
    Handle kernel(cl.CLKernelFree, cl.CLKernelCreate(program.get(), u"matricesMul"));
    BOOST_TEST(kernel.get() != MQLCL_INVALID_HANDLE, step.kernel_file);
    BOOST_TEST(cl.CLGetInfoInteger(kernel.get(), MQLCL_CL_KERNEL_NUM_ARGS) ==
               static_cast<int64_t>(kernel_args(step).size()));
    if (fp64 && !step.float_only) {
      Handle doubles(cl.CLProgramFree,
                     cl.CLProgramCreateEx(context.get(), source.c_str(),
                                          u"-DCOLS2=16 -DCOLSROWS=16 -DREALTYPE=double", nullptr,
                                          0));
      BOOST_TEST(doubles.get() != MQLCL_INVALID_HANDLE,
                 step.kernel_file << " (double): " << bridge().last_error_text());
    }
  }
}

BOOST_AUTO_TEST_CASE(col_local_is_replayed_as_printed_and_the_fixed_variant_is_offered) {
  // As printed: one barrier, after the copy into colbuf and before the reads. The fixed file is
  // the same kernel with one more barrier line at the end of the column loop.
  std::string printed = kernel_text("matr_mul_col_local.cl");
  std::string fixed = kernel_text("matr_mul_col_local_fixed.cl");
  BOOST_TEST(mqlcl_test::occurrences(printed, "barrier(") == 1u);
  BOOST_TEST(mqlcl_test::occurrences(fixed, "barrier(") == 2u);
  auto body = [](const std::string &text) { return text.substr(text.find("__kernel")); };
  std::string printed_body = body(printed), fixed_body = body(fixed);
  std::string second_barrier = "     barrier( CLK_LOCAL_MEM_FENCE );\n  }\n}";
  BOOST_TEST_REQUIRE(fixed_body.size() > second_barrier.size());
  BOOST_TEST(fixed_body.substr(fixed_body.size() - second_barrier.size() - 1,
                               second_barrier.size()) == second_barrier);
  std::string without = fixed_body;
  without.erase(without.rfind("     barrier( CLK_LOCAL_MEM_FENCE );\n"),
                std::string("     barrier( CLK_LOCAL_MEM_FENCE );\n").size());
  BOOST_TEST(without == printed_body);

  // The replay reports what the race did, and names the fix, whatever the device does with it.
  for (std::vector<uint32_t> local : {std::vector<uint32_t>{}, {8}, {64}}) {
    Options options = options_for({64, 64, 64});
    options.local = local;
    options.run_cpu = false;
    StepRun run = replay("matr_mul_col_local", options);
    BOOST_TEST((run.status == Status::verified || run.status == Status::wrong), describe(run));
    BOOST_TEST(run.message.find("race") != std::string::npos, run.message);
    BOOST_TEST(run.message.find("matr_mul_col_local_fixed adds the missing barrier") !=
                   std::string::npos,
               run.message);
    BOOST_TEST(((run.status == Status::wrong) == !run.verification.passed()));
    check_verified(replay("matr_mul_col_local_fixed", options));
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(failures, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(a_wrong_kernel_is_caught_element_by_element) {
  Runner wrong(bridge(), MQLCL_TEST_WRONG_KERNELS);
  Recorder recorder;
  StepRun run = wrong.run(*find_step(replay_steps(), "matr_mul_sum_local"),
                          options_for({32, 32, 32}), recorder);
  BOOST_TEST((run.status == Status::wrong), describe(run));
  BOOST_TEST((exit_code_of(run.status) == ExitCode::wrong_results));
  BOOST_TEST(run.verification.mismatches > 32u * 32u / 2);
  BOOST_TEST(run.verification.max_error > run.verification.tolerance);
  BOOST_TEST(run.cpu_verification->passed()); // the CPU loop is right
}

BOOST_AUTO_TEST_CASE(a_missing_device_or_kernel_file_is_reported) {
  Options options = options_for({16, 16, 16});
  options.device = 1000;
  StepRun run = replay("matr_mul_row_calc", options);
  BOOST_TEST((run.status == Status::rejected));
  BOOST_TEST(run.message.find("there is no OpenCL device 1000") != std::string::npos, run.message);

  Runner nowhere(bridge(), std::filesystem::path(MQLCL_TEST_WORK_DIR) / "no_kernels_here");
  Recorder recorder;
  StepRun missing = nowhere.run(*find_step(replay_steps(), "matr_mul_row_calc"),
                                options_for({16, 16, 16}), recorder);
  BOOST_TEST((missing.status == Status::rejected));
  BOOST_TEST(missing.message.find("kernel file") != std::string::npos, missing.message);
  BOOST_TEST(missing.message.find("is missing") != std::string::npos, missing.message);
}

BOOST_AUTO_TEST_CASE(a_build_failure_carries_the_build_log) {
  std::filesystem::path dir = std::filesystem::path(MQLCL_TEST_WORK_DIR) / "broken_kernels";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "matr_mul_row_calc.cl") << "__kernel void matricesMul(__global float *in1, "
                                                 "__global float *in2, __global float *out) "
                                                 "{ undeclared_name = 1; }\n";
  Runner broken(bridge(), dir);
  Recorder recorder;
  Options options = options_for({16, 16, 16});
  options.run_cpu = false;
  StepRun run = broken.run(*find_step(replay_steps(), "matr_mul_row_calc"), options, recorder);
  BOOST_TEST((run.status == Status::failed));
  BOOST_TEST((exit_code_of(run.status) == ExitCode::bridge_failure));
  BOOST_TEST(run.message.find("CLProgramCreateEx(matr_mul_row_calc.cl") != std::string::npos,
             run.message);
  BOOST_TEST(run.message.find("5105") != std::string::npos, run.message);
  BOOST_TEST(run.message.find("undeclared_name") != std::string::npos, run.message);
}

BOOST_AUTO_TEST_SUITE_END()

// A step beyond the article, as later issues will add them: only data plus a launch shape.
namespace {

LaunchGeometry square_tiles(const GeometryInput &input) {
  auto tile = static_cast<uint32_t>(input.params.at("TS"));
  LaunchGeometry geometry;
  geometry.work_dim = 2;
  geometry.global = {input.sizes.rows1, input.sizes.cols2, 1};
  geometry.local = {tile, tile, 0};
  return geometry;
}

const LaunchShape kSquareTiles{"2-D, TS x TS work-groups over ROWS1 x COLS2", square_tiles};

uint64_t tile_bytes(const GeometryInput &input) {
  auto tile = static_cast<uint64_t>(input.params.at("TS"));
  return tile * tile * input.element_size;
}

Step tiled_step() {
  using Kind = KernelArg::Kind;
  Step step;
  step.name = "test_tiled";
  step.kernel_file = "tiled_gemm.cl";
  step.kernel_name = "tiledMul";
  step.in_article = false;
  step.layout_b = Layout::column_major;
  step.geometry = &kSquareTiles;
  step.params = {{"TS", 8}};
  step.padding = {8, 8, 8};
  step.args = {{Kind::matrix_a},
               {Kind::matrix_b},
               {Kind::matrix_c},
               {Kind::int_rows1},
               {Kind::int_colsrows},
               {Kind::int_cols2},
               {Kind::local_bytes, tile_bytes},
               {Kind::local_bytes, tile_bytes}};
  return step;
}

} // namespace

BOOST_AUTO_TEST_SUITE(extension_points, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(a_tiled_step_with_params_padding_int_and_local_arguments_is_only_data) {
  Runner runner(bridge(), MQLCL_TEST_EXTRA_KERNELS);
  for (Sizes sizes : {Sizes{37, 29, 43}, Sizes{8, 8, 8}, Sizes{1, 1, 1}}) {
    Recorder recorder;
    StepRun run = runner.run(tiled_step(), options_for(sizes), recorder);
    check_verified(run);
    BOOST_TEST(run.padded.rows1 % 8 == 0u);
    BOOST_TEST(run.padded.colsrows % 8 == 0u);
    BOOST_TEST(run.build_options.find("-DTS=8") != std::string::npos, run.build_options);
    BOOST_TEST(run.geometry.local[0] == 8u);
  }
}

BOOST_AUTO_TEST_SUITE_END()
