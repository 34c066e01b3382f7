// The harness's parts that need no device: catalogue, size checks, launch geometry, the article's
// random generator and CPU loops, the reference, verification, the command line, JSON/CSV/SVG.
#define BOOST_TEST_MODULE harness_units
#include "catalogue.hpp"
#include "chart.hpp"
#include "cli.hpp"
#include "error.hpp"
#include "gemm/kernels.hpp" // the library's embedded kernels (cmake/EmbedKernels.cmake)
#include "json.hpp"
#include "kernel_source.hpp"
#include "matrices.hpp"
#include "progress.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "verify.hpp"

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>
#include <sstream>

using namespace mqlcl::replay;
namespace pt = boost::property_tree;

namespace {

// The message of the Error `call` throws, with the exit code it maps to.
template <class Call> std::string error_of(Call call, ExitCode expected = ExitCode::bad_input) {
  try {
    call();
  } catch (const Error &error) {
    BOOST_TEST(static_cast<int>(error.code()) == static_cast<int>(expected));
    return error.what();
  }
  BOOST_ERROR("no Error was thrown");
  return {};
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

CommandLine parse(std::vector<std::string> args) {
  return parse_command_line(args, replay_steps());
}

// Naive long double product, the referee of the reference.
template <class T> std::vector<long double> naive_product(const Inputs<T> &in) {
  std::vector<long double> c(size_t{in.first.rows} * in.second.cols, 0.0L);
  for (uint32_t r = 0; r < in.first.rows; ++r)
    for (uint32_t j = 0; j < in.second.cols; ++j)
      for (uint32_t k = 0; k < in.first.cols; ++k)
        c[size_t{r} * in.second.cols + j] +=
            static_cast<long double>(in.first.at(r, k)) * in.second.at(k, j);
  return c;
}

// `local_bytes`: what __local arguments and a kernel's own arrays may take alike.
DeviceCaps cpu_like_caps(uint64_t local_bytes = 32768) {
  DeviceCaps caps;
  caps.local_mem_bytes = local_bytes;
  caps.kernel_local_mem_bytes = local_bytes;
  caps.max_work_group_size = 256;
  caps.max_work_item_sizes = {256, 256, 256};
  caps.max_alloc_bytes = uint64_t{1} << 30;
  caps.fp64 = false;
  return caps;
}

// The parameters with one of them set to `value`.
Params with(Params params, const char *name, int64_t value) {
  params[name] = value;
  return params;
}

} // namespace

BOOST_AUTO_TEST_SUITE(catalogue)

BOOST_AUTO_TEST_CASE(lists_the_articles_ten_scripts_in_order_then_the_fixed_variant) {
  std::vector<std::string> names;
  for (const Step &step : replay_steps())
    names.push_back(step.name);
  std::vector<std::string> expected{"matr_mul_2dim",
                                    "matr_mul_1dim",
                                    "matr_mul_1dim_coalesced",
                                    "matr_mul_sum_local",
                                    "matr_mul_row_calc",
                                    "matr_mul_row_in_private",
                                    "matr_mul_col_local",
                                    "matr_mul_vect",
                                    "matr_mul_vect_v2",
                                    "matr_mul_vect_v3",
                                    "matr_mul_col_local_fixed",
                                    "matr_mul_tiled_local",
                                    "matr_mul_register_blocked",
                                    "matr_mul_double_buffered",
                                    "matr_mul_tuned",
                                    "matr_mul_tf32",
                                    "matr_mul_3xtf32",
                                    "matr_mul_tf32_bf16",
                                    "matr_mul_wgmma_tf32",
                                    "matr_mul_wgmma_tf32_rounded",
                                    "matr_mul_wgmma_3xtf32",
                                    "matr_mul_wgmma_tf32_bf16",
                                    "matr_mul_wgmma_tiled_tf32",
                                    "matr_mul_wgmma_tiled_3xtf32",
                                    "matr_mul_wgmma_tma_tf32",
                                    "matr_mul_wgmma_tma_3xtf32"};
  BOOST_TEST(names == expected, boost::test_tools::per_element());
  for (size_t i = 0; i < replay_steps().size(); ++i)
    BOOST_TEST(replay_steps()[i].in_article == (i < 10), replay_steps()[i].name);
}

BOOST_AUTO_TEST_CASE(every_kernel_file_belongs_to_exactly_one_step_and_exists) {
  std::set<std::string> files;
  for (const Step &step : replay_steps()) {
    if (step.kernel_file.empty()) {
      BOOST_TEST(step.geometry == nullptr, step.name << " has no kernel but a launch");
      continue;
    }
    // A variant (3xTF32) builds another step's file with other parameters.
    BOOST_TEST(step.kernel_file == (step.variant_of.empty() ? step.name : step.variant_of) + ".cl");
    if (!step.variant_of.empty())
      BOOST_TEST(find_step(replay_steps(), step.variant_of) != nullptr, step.variant_of);
    BOOST_TEST(std::filesystem::is_regular_file(std::filesystem::path(MQLCL_TEST_KERNELS) /
                                                step.kernel_file),
               step.kernel_file);
    files.insert(step.kernel_file);
  }
  for (const auto &entry : std::filesystem::directory_iterator(MQLCL_TEST_KERNELS))
    if (entry.path().extension() == ".cl")
      BOOST_TEST(files.count(entry.path().filename().string()) == 1u,
                 entry.path().filename().string() << " is in kernels/ but no step replays it");
}

BOOST_AUTO_TEST_CASE(layouts_and_launches_follow_the_article) {
  const auto &steps = replay_steps();
  BOOST_TEST((find_step(steps, "matr_mul_1dim")->layout_b == Layout::row_major));
  for (const char *name : {"matr_mul_1dim_coalesced", "matr_mul_sum_local", "matr_mul_row_calc",
                           "matr_mul_vect_v3", "matr_mul_col_local_fixed"})
    BOOST_TEST((find_step(steps, name)->layout_b == Layout::column_major), name);
  for (const char *name : {"matr_mul_1dim", "matr_mul_1dim_coalesced", "matr_mul_sum_local"})
    BOOST_TEST(find_step(steps, name)->geometry == &one_per_element, name);
  for (const char *name : {"matr_mul_row_calc", "matr_mul_row_in_private", "matr_mul_col_local",
                           "matr_mul_vect", "matr_mul_vect_v2", "matr_mul_vect_v3"})
    BOOST_TEST(find_step(steps, name)->geometry == &one_per_row, name);
  BOOST_TEST((find_step(steps, "matr_mul_2dim")->cpu_loop == CpuLoop::r_cr_c));
  BOOST_TEST(find_step(steps, "matr_mul_col_local")->fixed_by == "matr_mul_col_local_fixed");
  BOOST_TEST(find_step(steps, "matr_mul_col_local_fixed")->race.empty());
  BOOST_TEST(find_step(steps, "no_such_step") == nullptr);
}

BOOST_AUTO_TEST_CASE(vector_steps_reject_inner_sizes_that_are_not_multiples_of_their_width) {
  const auto &steps = replay_steps();
  Sizes sizes{64, 50, 64};
  for (const char *name : {"matr_mul_vect", "matr_mul_vect_v2"}) {
    std::vector<std::string> problems = size_problems(*find_step(steps, name), sizes, 4);
    BOOST_TEST_REQUIRE(problems.size() == 1u, name);
    BOOST_TEST(contains(problems[0], "COLSROWS must be a multiple of 4"), problems[0]);
    BOOST_TEST(contains(problems[0], "48 or 52"), problems[0]);
  }
  std::vector<std::string> v3 = size_problems(*find_step(steps, "matr_mul_vect_v3"), {8, 60, 8}, 4);
  BOOST_TEST_REQUIRE(v3.size() == 1u);
  BOOST_TEST((contains(v3[0], "multiple of 8") && contains(v3[0], "56 or 64")), v3[0]);
  BOOST_TEST(size_problems(*find_step(steps, "matr_mul_vect_v3"), {8, 3, 8}, 4)[0].find(
                 "nearest: 8") != std::string::npos);
  BOOST_TEST(size_problems(*find_step(steps, "matr_mul_vect_v3"), {37, 64, 29}, 4).empty());
  // The scalar steps take any size.
  for (const Step &step : steps)
    if (step.constraints.empty())
      BOOST_TEST(size_problems(step, {37, 50, 29}, 8).empty(), step.name);
}

BOOST_AUTO_TEST_CASE(sizes_past_mql5s_uint32_buffer_bytes_and_zero_sizes_are_rejected) {
  const Step &step = *find_step(replay_steps(), "matr_mul_sum_local");
  std::vector<std::string> problems = size_problems(step, {40000, 40000, 8}, 4);
  BOOST_TEST_REQUIRE(problems.size() == 1u);
  BOOST_TEST(contains(problems[0], "first (ROWS1 x COLSROWS) matrix needs 6400000000 bytes"));
  BOOST_TEST(size_problems(step, {32768, 32767, 1}, 4).empty()); // just under 4 GiB
  BOOST_TEST(size_problems(step, {32768, 32768, 1}, 4).size() == 1u);
  BOOST_TEST(size_problems(step, {32768, 32767, 1}, 8).size() == 1u); // double: twice the bytes
  BOOST_TEST(size_problems(step, {0, 8, 8}, 4) == std::vector<std::string>{"ROWS1 is 0"});
}

BOOST_AUTO_TEST_CASE(device_checks_cover_double_local_memory_and_allocation) {
  const auto &steps = replay_steps();
  DeviceCaps caps = cpu_like_caps();
  const Step &col_local = *find_step(steps, "matr_mul_col_local");
  BOOST_TEST(device_problems(col_local, {64, 8192, 64}, caps, 4, false).empty());
  std::vector<std::string> local = device_problems(col_local, {64, 8193, 64}, caps, 4, false);
  BOOST_TEST_REQUIRE(local.size() == 1u);
  BOOST_TEST(contains(local[0], "colbuf[COLSROWS] needs 32772 bytes"), local[0]);
  BOOST_TEST(device_problems(*find_step(steps, "matr_mul_row_calc"), {64, 8193, 64}, caps, 4, false)
                 .empty());
  std::vector<std::string> fp64 =
      device_problems(*find_step(steps, "matr_mul_row_calc"), {8, 8, 8}, caps, 8, true);
  BOOST_TEST_REQUIRE(fp64.size() == 1u);
  BOOST_TEST(contains(fp64[0], "cl_khr_fp64"));
  caps.max_alloc_bytes = 1000;
  BOOST_TEST(device_problems(*find_step(steps, "matr_mul_row_calc"), {16, 16, 16}, caps, 4, false)
                 .size() == 1u);
}

BOOST_AUTO_TEST_CASE(pocls_own_choice_of_work_group_is_estimated) {
  DeviceCaps caps = cpu_like_caps();
  caps.max_work_group_size = 4096;
  caps.max_work_item_sizes = {4096, 4096, 4096};
  caps.compute_units = 2;
  BOOST_TEST(cpu_runtime_group_size(2000, caps) == 1000u); // one group per compute unit
  BOOST_TEST(cpu_runtime_group_size(4096, caps) == 2048u);
  BOOST_TEST(cpu_runtime_group_size(2001, caps) == 2001u);  // 3 x 23 x 29: no even split
  BOOST_TEST(cpu_runtime_group_size(10000, caps) == 2500u); // already 4 groups
  BOOST_TEST(cpu_runtime_group_size(1, caps) == 1u);
  caps.compute_units = 16;
  BOOST_TEST(cpu_runtime_group_size(2000, caps) == 125u);
}

BOOST_AUTO_TEST_CASE(private_arrays_of_a_work_group_must_fit_a_cpu_threads_stack) {
  const auto &steps = replay_steps();
  DeviceCaps caps = cpu_like_caps();
  caps.max_work_group_size = 4096;
  caps.max_work_item_sizes = {4096, 4096, 4096};
  caps.compute_units = 2;
  caps.fp64 = true;
  caps.cpu_group_stack_bytes = uint64_t{8} << 20; // ulimit -s 8192
  const Step &private_row = *find_step(steps, "matr_mul_row_in_private");
  // The article's size fits: PoCL picks 1000 work-items x 8000 bytes = 7.6 MiB.
  BOOST_TEST(device_problems(private_row, {2000, 2000, 2000}, caps, 4, false).empty());
  std::vector<std::string> doubles =
      device_problems(private_row, {2000, 2000, 2000}, caps, 8, true);
  BOOST_TEST_REQUIRE(doubles.size() == 1u);
  BOOST_TEST(contains(doubles[0], "16000 bytes per work-item"), doubles[0]);
  BOOST_TEST(contains(doubles[0], "1000 work-items (the runtime's choice) needs 15.3 MiB"),
             doubles[0]);
  BOOST_TEST(contains(doubles[0], "stack is 8.0 MiB here (ulimit -s)"), doubles[0]);
  BOOST_TEST(contains(doubles[0], "give --local 500"), doubles[0]);
  BOOST_TEST(device_problems(private_row, {2000, 2000, 2000}, caps, 8, true, {500}).empty());
  BOOST_TEST(device_problems(private_row, {2000, 2000, 2000}, caps, 8, true, {1000}).size() == 1u);
  // Every step that keeps a private row, at a range PoCL splits into groups of 2048.
  for (const char *name : {"matr_mul_vect", "matr_mul_vect_v2", "matr_mul_vect_v3",
                           "matr_mul_col_local", "matr_mul_col_local_fixed"})
    BOOST_TEST(device_problems(*find_step(steps, name), {4096, 2000, 8}, caps, 4, false).size() ==
                   1u,
               name);
  // A smaller stack (ulimit -s unlimited gives threads 2 MiB) refuses the article's size.
  caps.cpu_group_stack_bytes = uint64_t{2} << 20;
  std::vector<std::string> small = device_problems(private_row, {2000, 2000, 2000}, caps, 4, false);
  BOOST_TEST_REQUIRE(small.size() == 1u);
  BOOST_TEST(contains(small[0], "give --local 250"), small[0]);
  // Where the OS does not say (Windows), the assumed stack is named as such, with no ulimit advice.
  caps.cpu_group_stack_bytes = kUnknownCpuStackBytes;
  caps.cpu_group_stack_assumed = true;
  BOOST_TEST(device_problems(private_row, {2000, 2000, 2000}, caps, 4, false).empty());
  std::vector<std::string> assumed = device_problems(private_row, {4096, 2000, 8}, caps, 4, false);
  BOOST_TEST_REQUIRE(assumed.size() == 1u);
  BOOST_TEST(contains(assumed[0], "stack is 8.0 MiB as assumed here (the OS does not say)"),
             assumed[0]);
  BOOST_TEST(!contains(assumed[0], "ulimit"), assumed[0]);
  caps.cpu_group_stack_assumed = false;
  // Steps without private arrays, and devices that are no CPU, are not limited here.
  BOOST_TEST(
      device_problems(*find_step(steps, "matr_mul_row_calc"), {4096, 4096, 8}, caps, 4, false)
          .empty());
  caps.cpu_group_stack_bytes = 0;
  BOOST_TEST(device_problems(private_row, {4096, 4000, 8}, caps, 4, false).empty());
}

BOOST_AUTO_TEST_CASE(launch_geometry_checks_the_requested_work_group) {
  DeviceCaps caps = cpu_like_caps();
  Params params;
  Sizes sizes{64, 32, 48};
  std::vector<uint32_t> none, row16{16}, pair{8, 16}, seven{7}, big{512}, huge_group{16, 24};
  LaunchGeometry rows = one_per_row({sizes, none, caps, params, 4});
  BOOST_TEST(rows.work_dim == 1u);
  BOOST_TEST(rows.global[0] == 64u);
  BOOST_TEST(rows.runtime_chooses_local());
  BOOST_TEST(one_per_row({sizes, row16, caps, params, 4}).local[0] == 16u);
  LaunchGeometry elements = one_per_element({sizes, pair, caps, params, 4});
  BOOST_TEST(elements.work_dim == 2u);
  BOOST_TEST(elements.global[0] == 64u);
  BOOST_TEST(elements.global[1] == 48u);
  BOOST_TEST(elements.local[0] == 8u);
  BOOST_TEST(elements.local[1] == 16u);
  BOOST_TEST(contains(error_of([&] {
                        one_per_row({sizes, seven, caps, params, 4});
                      }),
                      "--local 7 does not divide the global size 64"));
  BOOST_TEST(contains(error_of([&] {
                        one_per_row({sizes, pair, caps, params, 4});
                      }),
                      "1-D range (ROWS1), so --local takes 1 value"));
  BOOST_TEST(contains(error_of([&] {
                        one_per_element({sizes, row16, caps, params, 4});
                      }),
                      "--local takes 2 values"));
  BOOST_TEST(contains(error_of([&] {
                        one_per_element({sizes, huge_group, caps, params, 4});
                      }),
                      "a work-group of 384 work-items exceeds the device's maximum of 256"));
  Sizes wide{1024, 8, 8};
  BOOST_TEST(contains(error_of([&] {
                        one_per_row({wide, big, caps, params, 4});
                      }),
                      "exceeds the device's 256 work-items in dimension 0"));
}

BOOST_AUTO_TEST_CASE(padding_rounds_sizes_up) {
  Step step = *find_step(replay_steps(), "matr_mul_vect_v3");
  step.padding = {16, 8, 4};
  Sizes padded = padded_sizes(step, {37, 50, 29});
  BOOST_TEST(padded.rows1 == 48u);
  BOOST_TEST(padded.colsrows == 56u);
  BOOST_TEST(padded.cols2 == 32u);
  BOOST_TEST(kernel_args(step).size() == 3u);
}

BOOST_AUTO_TEST_CASE(flush_0_is_taken_only_by_the_kernel_that_sums_on_the_tensor_cores) {
  DeviceCaps caps = cpu_like_caps(49152);
  const Step &mma_sync = *find_step(replay_steps(), "matr_mul_3xtf32");
  const Step &wgmma = *find_step(replay_steps(), "matr_mul_wgmma_3xtf32");
  for (const Step *step : {&mma_sync, &wgmma}) {
    Params params = step->params;
    BOOST_TEST(step->params_valid(params, caps), step->name);
    params["FLUSH"] = 0;
    BOOST_TEST(step->params_valid(params, caps) == (step == &wgmma), step->name);
  }
}

BOOST_AUTO_TEST_CASE(the_tiled_kernel_takes_only_its_own_steps_parameters) {
  DeviceCaps caps = cpu_like_caps(49152);
  const Step &tf32 = *find_step(replay_steps(), "matr_mul_wgmma_tiled_tf32");
  const Step &split = *find_step(replay_steps(), "matr_mul_wgmma_tiled_3xtf32");
  BOOST_TEST(tf32.params_valid(tf32.params, caps));
  BOOST_TEST(split.params_valid(split.params, caps));
  BOOST_TEST(!split.params_valid(with(split.params, "BN", 256), caps));  // two accumulators of 128
  BOOST_TEST(!split.params_valid(with(split.params, "PARTS", 1), caps)); // the pass's split
  BOOST_TEST(!split.params_valid(with(split.params, "FLUSH", 0), caps));
  // A's fragments in registers are overwritten by the next slice's: nothing may be in flight.
  BOOST_TEST(!split.params_valid(with(split.params, "INFLIGHT", 1), caps));
  BOOST_TEST(split.params_valid(with(with(split.params, "INFLIGHT", 1), "A_REGS", 0), caps));
  BOOST_TEST(!tf32.params_valid(with(tf32.params, "A_REGS", 1), caps));
  BOOST_TEST(!tf32.params_valid(with(tf32.params, "MODE", 2), caps));
  BOOST_TEST(!tf32.params_valid(with(tf32.params, "BK", 32), caps)); // 64-byte tile rows
  BOOST_TEST(tf32.params_valid(with(with(tf32.params, "BM", 64), "BN", 256), caps));
  // Three stages of 128 x 128 tiles fill 48 KiB, which leaves no room for their mbarriers.
  BOOST_TEST(!tf32.params_valid(with(tf32.params, "STAGES", 3), caps));
  // Step 16's kernel refuses the tiled layout, whose pass it does not run.
  const Step &wgmma = *find_step(replay_steps(), "matr_mul_wgmma_tf32");
  BOOST_TEST(!wgmma.params_valid(with(wgmma.params, "TILED", 1), caps));
  BOOST_TEST(!wgmma.params_valid(with(wgmma.params, "A_REGS", 1), caps));
  BOOST_TEST(!wgmma.params_valid(with(wgmma.params, "TMA", 1), caps));
  BOOST_TEST(!tf32.params_valid(with(tf32.params, "TMA", 1), caps));
}

BOOST_AUTO_TEST_CASE(the_tensor_map_step_reads_its_operands_through_maps_with_no_pass) {
  DeviceCaps caps = cpu_like_caps(49152);
  const Step &mapped = *find_step(replay_steps(), "matr_mul_wgmma_tma_tf32");
  BOOST_TEST(mapped.params_valid(mapped.params, caps));
  BOOST_TEST(mapped.params.at("TMA") == 2); // TF32-typed maps: the copy rounds
  // FP32 maps would leave the tensor cores truncating: CLGemm's TF32 form rounds, as cuBLAS does.
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "TMA", 1), caps));
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "TMA", 0), caps));
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "TMA", 3), caps));
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "TILED", 1), caps));
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "PARTS", 1), caps));
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "MODE", 3), caps));
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "BK", 8), caps));       // rows of 16 or 32
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "INFLIGHT", 1), caps)); // one stage
  BOOST_TEST(mapped.params_valid(with(with(mapped.params, "BK", 16), "STAGES", 2), caps));
  // Two stages of 128 x 128 tiles with 128-byte rows need 64 KiB.
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "STAGES", 2), caps));
  // No pass; both maps in one buffer, the fourth argument; K padded to whole 16-byte chunks.
  BOOST_TEST(!pass_scratch(mapped, {100, 101, 100}).active());
  BOOST_TEST_REQUIRE(mapped.tensor_maps.has_value());
  const std::vector<KernelArg> args = kernel_args(mapped);
  BOOST_TEST_REQUIRE(args.size() == 4u);
  BOOST_TEST((args[3].kind == KernelArg::Kind::tensor_maps));
  BOOST_TEST(padded_sizes(mapped, {100, 101, 100}).colsrows == 104u);
}

BOOST_AUTO_TEST_CASE(the_tensor_map_3xtf32_step_maps_a_and_passes_only_b) {
  DeviceCaps caps = cpu_like_caps(49152);
  const Step &split = *find_step(replay_steps(), "matr_mul_wgmma_tma_3xtf32");
  BOOST_TEST(split.params_valid(split.params, caps));
  BOOST_TEST((arithmetic_of(split).inputs == InputRounding::none));    // FP32's tolerance
  BOOST_TEST(!split.params_valid(with(split.params, "TMA", 2), caps)); // rounding kills the tails
  BOOST_TEST(!split.params_valid(with(split.params, "PARTS", 0), caps));
  BOOST_TEST(!split.params_valid(with(split.params, "PARTS", 1), caps));
  BOOST_TEST(!split.params_valid(with(split.params, "MODE", 2), caps));
  BOOST_TEST(!split.params_valid(with(split.params, "BN", 256), caps)); // two accumulators of 128
  BOOST_TEST(!split.params_valid(with(split.params, "FLUSH", 0), caps));
  BOOST_TEST(!split.params_valid(with(split.params, "INFLIGHT", 1), caps)); // A in registers
  BOOST_TEST(!split.params_valid(with(split.params, "A_REGS", 1), caps));
  BOOST_TEST(split.params_valid(with(split.params, "STAGES", 1), caps));
  // B's heads and tails take twice its local memory: 3 stages of 64 x 128 tiles need 60 KiB.
  BOOST_TEST(!split.params_valid(with(split.params, "STAGES", 3), caps));
  BOOST_TEST(split.params_valid(with(with(split.params, "BK", 32), "STAGES", 1), caps));
  // The pass for B alone; a map of A alone; K padded to whole 32-deep stages.
  const PassScratch scratch = pass_scratch(split, {100, 101, 1000});
  BOOST_TEST(scratch.active());
  BOOST_TEST(!scratch.covers_a());
  BOOST_TEST(scratch.floats_a == 0u);
  BOOST_TEST(scratch.lines_b == 1024u); // whole tiles of BN = 128 lines
  BOOST_TEST(scratch.floats_b == uint64_t{1024} * 104 * 2);
  BOOST_TEST(pass_scratch(*find_step(replay_steps(), "matr_mul_wgmma_tiled_3xtf32"), {1, 8, 1})
                 .covers_a());
  BOOST_TEST_REQUIRE(split.tensor_maps.has_value());
  BOOST_TEST(split.tensor_maps->rows_param_a == "BM");
  BOOST_TEST(split.tensor_maps->rows_param_b.empty());
  BOOST_TEST(padded_sizes(split, {100, 101, 1000}).colsrows == 128u);
}

BOOST_AUTO_TEST_CASE(an_operand_pass_sizes_its_copies_and_only_when_its_parts_ask) {
  const Step &rounded = *find_step(replay_steps(), "matr_mul_wgmma_tf32_rounded");
  PassScratch scratch = pass_scratch(rounded, {4097, 4097, 1000});
  BOOST_TEST(scratch.active());
  BOOST_TEST(scratch.groups == 513u); // 4097 floats padded to 4104
  BOOST_TEST(scratch.lines_a == 4097u);
  BOOST_TEST(scratch.lines_b == 1000u); // B is column-major: a line per column
  BOOST_TEST(scratch.floats_a == uint64_t{4097} * 4104);
  BOOST_TEST(scratch.floats_b == uint64_t{1000} * 4104);
  // Step 17's pass writes whole tiles: lines rounded up to BM (A) and BN (B), K to whole slices
  // of 8 values (3xTF32: 8 heads, then 8 tails) or 16 (TF32), read 4 floats per work-item.
  const Step &split = *find_step(replay_steps(), "matr_mul_wgmma_tiled_3xtf32");
  PassScratch tiles = pass_scratch(split, {4097, 4097, 1000});
  BOOST_TEST(tiles.parts == 2u);
  BOOST_TEST(tiles.groups == 1025u); // work-items per line
  BOOST_TEST(tiles.block_a == uint32_t(split.params.at("BM")));
  BOOST_TEST(tiles.block_b == uint32_t(split.params.at("BN")));
  BOOST_TEST(tiles.lines_a == (4097u + tiles.block_a - 1) / tiles.block_a * tiles.block_a);
  BOOST_TEST(tiles.lines_b == (1000u + tiles.block_b - 1) / tiles.block_b * tiles.block_b);
  BOOST_TEST(tiles.floats_a == tiles.lines_a * 4104 * 2);
  BOOST_TEST(tiles.floats_b == tiles.lines_b * 4104 * 2);
  PassScratch rounded_tiles =
      pass_scratch(*find_step(replay_steps(), "matr_mul_wgmma_tiled_tf32"), {100, 4097, 100});
  BOOST_TEST(rounded_tiles.parts == 1u);
  BOOST_TEST(rounded_tiles.floats_a == rounded_tiles.lines_a * 4112);
  // The pass reads lines of K: only K-contiguous operands (A row-major, B column-major) have them.
  for (const Step &step : replay_steps())
    if (step.operand_pass)
      BOOST_TEST((step.layout_a == Layout::row_major && step.layout_b == Layout::column_major),
                 step.name);
  // The truncating step has the pass but asks for no parts; the others have none.
  BOOST_TEST(
      !pass_scratch(*find_step(replay_steps(), "matr_mul_wgmma_tf32"), {64, 64, 64}).active());
  BOOST_TEST(!pass_scratch(*find_step(replay_steps(), "matr_mul_tuned"), {64, 64, 64}).active());
  // Its copies count against the device's largest allocation like the matrices.
  DeviceCaps caps = cpu_like_caps(49152);
  caps.vendor_id = 0x10DE;
  caps.compute_capability = 90;
  caps.max_alloc_bytes = uint64_t{1000} * 1004 * 4;
  std::vector<std::string> problems = device_problems(rounded, {1000, 997, 1000}, caps, 4, false);
  BOOST_TEST(problems.empty()); // 997 pads to 1000: copies of 1000 x 1000
  problems = device_problems(rounded, {1000, 1001, 1000}, caps, 4, false); // 1001 pads to 1008
  BOOST_TEST_REQUIRE(problems.size() == 1u);
  BOOST_TEST(contains(problems[0], "largest allocation"), problems[0]);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(host_side)

BOOST_AUTO_TEST_CASE(article_random_is_seeded_and_in_the_articles_range) {
  ArticleRandom a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 10000; ++i) {
    double x = a.gen_val();
    BOOST_TEST_REQUIRE(x >= -0.5);
    BOOST_TEST_REQUIRE(x <= 0.5);
    BOOST_TEST_REQUIRE(x == b.gen_val());
    differs = differs || x != c.gen_val();
    BOOST_TEST_REQUIRE(a.gen_rnd(37) < 37u);
    b.gen_rnd(37);
    c.gen_rnd(37);
  }
  BOOST_TEST(differs);
  // std::mt19937's 10000th output is fixed by the C++ standard, so seeds mean the same matrices
  // with every compiler and on every platform.
  std::mt19937 engine(5489u);
  engine.discard(9999);
  BOOST_TEST(engine() == 4123659995u);
}

BOOST_AUTO_TEST_CASE(layouts_hold_the_same_matrices) {
  Sizes sizes{5, 7, 3}, padded{8, 8, 4};
  ArticleRandom r1(3), r2(3);
  Inputs<float> rows =
      generate_inputs<float>(sizes, sizes, Layout::row_major, Layout::row_major, r1);
  Inputs<float> cols =
      generate_inputs<float>(sizes, padded, Layout::row_major, Layout::column_major, r2);
  BOOST_TEST(cols.second.data.size() == 8u * 4u);
  for (uint32_t r = 0; r < 7; ++r)
    for (uint32_t c = 0; c < 3; ++c) {
      BOOST_TEST(rows.second.at(r, c) == cols.second.at(r, c));
      BOOST_TEST(cols.second.data[r + c * 8u] == cols.second.at(r, c)); // Fig. 13, column-major
    }
  BOOST_TEST(cols.first.at(4, 6) == rows.first.data[4 * 7 + 6]);
  BOOST_TEST(cols.first.data[5 * 8 + 0] == 0.0f); // padding rows are zero
  BOOST_TEST(cols.second.data[7 + 0 * 8] == 0.0f);
}

BOOST_AUTO_TEST_CASE(reference_matches_a_naive_product_at_odd_sizes_and_any_thread_count) {
  Sizes sizes{37, 301, 45}, padded{40, 304, 48};
  ArticleRandom random(11);
  Inputs<float> in =
      generate_inputs<float>(sizes, padded, Layout::row_major, Layout::column_major, random);
  std::vector<long double> naive = naive_product(in);
  Reference one = reference_product(in, InputRounding::none, 1);
  Reference three = reference_product(in, InputRounding::none, 3);
  BOOST_TEST(one.rows == 37u);
  BOOST_TEST(one.cols == 45u);
  double worst = 0;
  for (size_t i = 0; i < naive.size(); ++i) {
    worst = std::max(worst, static_cast<double>(std::fabs(one.product[i] - naive[i])));
    BOOST_TEST_REQUIRE(one.product[i] == three.product[i]);
  }
  BOOST_TEST(worst < 1e-13);
  BOOST_TEST(one.max_abs_first <= 0.5);
  BOOST_TEST(one.max_abs_first > 0.49);
}

BOOST_AUTO_TEST_CASE(the_articles_cpu_loops_compute_the_product_in_every_layout) {
  Sizes sizes{19, 23, 17};
  for (Layout second : {Layout::row_major, Layout::column_major})
    for (CpuLoop loop : {CpuLoop::r_cr_c, CpuLoop::c_r_cr}) {
      ArticleRandom random(5);
      Inputs<float> in = generate_inputs<float>(sizes, sizes, Layout::row_major, second, random);
      Matrix<float> third(19, 17, 19, 17, Layout::row_major);
      uint32_t calls = 0, last_total = 0;
      cpu_loop(loop, in, third, [&](uint32_t done, uint32_t total) {
        ++calls;
        last_total = total;
        BOOST_TEST_REQUIRE(done <= total);
      });
      BOOST_TEST((calls == (loop == CpuLoop::r_cr_c ? 19u : 17u)));
      BOOST_TEST(last_total == calls);
      Reference ref = reference_product(in);
      Verification v = verify(third, ref, tolerance_for<float>(23, 0.5, 0.5));
      BOOST_TEST(v.passed());
      BOOST_TEST(v.checked == 19u * 17u);
    }
}

// How each TF32 kernel rounds and sums, with its parameters: what its product is checked against.
BOOST_AUTO_TEST_CASE(each_tf32_step_is_checked_with_its_kernels_rounding) {
  struct Expected {
    const char *step;
    const char *param; // one parameter changed, or nullptr
    int64_t value;
    InputRounding inputs;
    bool tensor_core_sums;
  };
  for (const Expected &e :
       {Expected{"matr_mul_tf32", nullptr, 0, InputRounding::nearest_away, true},
        Expected{"matr_mul_tf32", "MODE", 3, InputRounding::none, false},
        Expected{"matr_mul_3xtf32", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_tf32_bf16", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_wgmma_tf32", nullptr, 0, InputRounding::truncated, true},
        Expected{"matr_mul_wgmma_tf32", "ROUND", 1, InputRounding::nearest_away, true},
        Expected{"matr_mul_wgmma_tf32_rounded", nullptr, 0, InputRounding::nearest_away, true},
        Expected{"matr_mul_wgmma_tiled_tf32", nullptr, 0, InputRounding::nearest_away, true},
        Expected{"matr_mul_wgmma_tma_tf32", nullptr, 0, InputRounding::nearest, true},
        Expected{"matr_mul_wgmma_tma_tf32", "TMA", 1, InputRounding::truncated, true},
        Expected{"matr_mul_wgmma_3xtf32", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_wgmma_3xtf32", "FLUSH", 0, InputRounding::none, true},
        Expected{"matr_mul_wgmma_tiled_3xtf32", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_wgmma_tma_3xtf32", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_tuned", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_vect_v2", nullptr, 0, InputRounding::none, false}}) {
    Step step = *find_step(replay_steps(), e.step);
    if (e.param != nullptr)
      step.params[e.param] = e.value;
    const Arithmetic arithmetic = arithmetic_of(step);
    BOOST_TEST((arithmetic.inputs == e.inputs), e.step << " " << (e.param ? e.param : ""));
    BOOST_TEST(arithmetic.tensor_core_sums == e.tensor_core_sums, e.step);
  }
}

BOOST_AUTO_TEST_CASE(tf32_rounding_keeps_ten_mantissa_bits) {
  const float one_and_half_step = 1.0f + 0x1p-11f; // exactly halfway between 1 and 1 + 2^-10
  BOOST_TEST(tf32_rounded(one_and_half_step, InputRounding::nearest_away) == 1.0f + 0x1p-10f);
  BOOST_TEST(tf32_rounded(-one_and_half_step, InputRounding::nearest_away) == -1.0f - 0x1p-10f);
  BOOST_TEST(tf32_rounded(one_and_half_step, InputRounding::truncated) == 1.0f);
  BOOST_TEST(tf32_rounded(1.0f + 0x1p-11f + 0x1p-20f, InputRounding::truncated) == 1.0f);
  BOOST_TEST(tf32_rounded(1.0f + 0x1p-11f - 0x1p-20f, InputRounding::nearest_away) == 1.0f);
  BOOST_TEST(tf32_rounded(0.3f, InputRounding::none) == 0.3f);
  BOOST_TEST(tf32_rounded(0.0f, InputRounding::truncated) == 0.0f);
}

// The reference of rounded inputs is the product of the rounded values.
BOOST_AUTO_TEST_CASE(a_rounded_reference_multiplies_the_rounded_inputs) {
  Sizes sizes{9, 700, 7};
  ArticleRandom random(3);
  Inputs<float> in =
      generate_inputs<float>(sizes, sizes, Layout::row_major, Layout::column_major, random);
  for (InputRounding rounding : {InputRounding::nearest_away, InputRounding::truncated}) {
    Inputs<float> rounded = in;
    for (float &a : rounded.first.data)
      a = tf32_rounded(a, rounding);
    for (float &b : rounded.second.data)
      b = tf32_rounded(b, rounding);
    Reference ref = reference_product(in, rounding);
    Reference exact = reference_product(rounded);
    BOOST_TEST((ref.rounding == rounding));
    BOOST_TEST(ref.product == exact.product); // the same sums of the same exact products
    BOOST_TEST(ref.product != reference_product(in).product);
    BOOST_TEST(ref.max_abs_product > 0.0);
    BOOST_TEST(ref.tie_spread >= 0.0);
    if (rounding == InputRounding::truncated)
      BOOST_TEST(ref.tie_spread == 0.0);
  }
}

// An input halfway between two TF32 values (4 of the generator's 32768 values are) widens a
// rounded-to-nearest reference by what rounding it the other way could change.
BOOST_AUTO_TEST_CASE(a_tie_widens_the_rounded_reference_by_its_step) {
  Inputs<float> in{Matrix<float>(2, 3, 2, 3, Layout::row_major),
                   Matrix<float>(3, 2, 3, 2, Layout::column_major)};
  const float tie = 1.0f + 0x1p-11f; // its TF32 step is 2^-10
  for (uint32_t k = 0; k < 3; ++k) {
    in.first.at(0, k) = 0.25f;
    in.first.at(1, k) = 0.25f;
    in.second.at(k, 0) = 0.5f;
    in.second.at(k, 1) = 0.5f;
  }
  in.first.at(1, 0) = tie;
  in.first.at(1, 2) = -tie;
  Reference ref = reference_product(in, InputRounding::nearest);
  // Row 1 holds two ties: moved the other way, each changes its product by 2^-10 times |b| <= 0.5.
  BOOST_TEST(ref.tie_spread == 2 * 0x1p-10 * 0.5 * (1 + 0x1p-10));
  BOOST_TEST(reference_product(in, InputRounding::nearest_away).tie_spread == ref.tie_spread);
  BOOST_TEST(reference_product(in, InputRounding::truncated).tie_spread == 0.0);
}

BOOST_AUTO_TEST_CASE(the_tf32_tolerance_is_fp32s_plus_what_the_tensor_cores_and_ties_add) {
  Reference ref;
  ref.max_abs_first = 0.5;
  ref.max_abs_second = 0.25;
  ref.max_abs_product = 30;
  ref.tie_spread = 1e-3;
  const double eps = std::numeric_limits<float>::epsilon();
  const double fp32 = tolerance_for<float>(4096, 0.5, 0.25);
  BOOST_TEST(tolerance_of({InputRounding::nearest_away, false}, 4096, ref) == fp32);
  BOOST_TEST(tolerance_of({InputRounding::truncated, true}, 4096, ref) ==
             fp32 + 512 * eps * 2 * 30);
  BOOST_TEST(tolerance_of({InputRounding::nearest, true}, 4096, ref) ==
             fp32 + 512 * eps * 2 * 30 + 1e-3);
  BOOST_TEST(tolerance_of({InputRounding::nearest, true}, 4097, ref) ==
             tolerance_for<float>(4097, 0.5, 0.25) + 513 * eps * 2 * 30 + 1e-3);
}

BOOST_AUTO_TEST_CASE(verification_finds_every_wrong_element_and_the_worst) {
  Sizes sizes{16, 64, 12};
  ArticleRandom random(2);
  Inputs<float> in =
      generate_inputs<float>(sizes, sizes, Layout::row_major, Layout::row_major, random);
  Reference ref = reference_product(in);
  Matrix<float> got(16, 12, 16, 12, Layout::row_major);
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 12; ++c)
      got.at(r, c) = static_cast<float>(ref.at(r, c));
  double tolerance = tolerance_for<float>(64, ref.max_abs_first, ref.max_abs_second);
  BOOST_TEST(tolerance == kToleranceFactor * 64 * std::numeric_limits<float>::epsilon() *
                              ref.max_abs_first * ref.max_abs_second);
  BOOST_TEST(verify(got, ref, tolerance).passed());

  got.at(3, 5) += static_cast<float>(3 * tolerance);
  got.at(9, 1) = std::numeric_limits<float>::quiet_NaN();
  Verification v = verify(got, ref, tolerance);
  BOOST_TEST(!v.passed());
  BOOST_TEST(v.mismatches == 2u);
  BOOST_TEST(v.worst_row == 9u);
  BOOST_TEST(v.worst_col == 1u);
  BOOST_TEST(std::isinf(v.max_error));

  Verification merged;
  merge(merged, verify(got, ref, tolerance));
  merge(merged, v);
  BOOST_TEST(merged.checked == 2u * 16u * 12u);
  BOOST_TEST(merged.mismatches == 4u);
  BOOST_TEST(tolerance_for<double>(64, 0.5, 0.5) < tolerance_for<float>(64, 0.5, 0.5) * 1e-8);
}

BOOST_AUTO_TEST_SUITE_END()

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

// Kernel files include their parts (kernels/nv/, kernels/tiles/) with `#include "relative/path"`
// lines, which the host inlines (kernel_source.hpp; cmake/KernelIncludes.cmake for the library's
// GEMM).
BOOST_AUTO_TEST_SUITE(kernel_sources)

namespace {

// The files are written as bytes, so their lines end in "\n" on Windows too.
std::filesystem::path kernel_tree() {
  const std::filesystem::path dir = std::filesystem::path(MQLCL_TEST_WORK_DIR) / "kernel-includes";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "parts" / "deeper");
  std::ofstream(dir / "entry.cl", std::ios::binary)
      << "// entry\n"
         "#include \"parts/a.cl\"\n"
         "  #  include \"parts/a.cl\"   // again: left out\n"
         "#include <stdio.h>\n"
         "// #include \"parts/missing.cl\"\n"
         "__kernel void k(void) {}\n";
  // Relative to the including file's folder, a part included from two places, and the entry.
  std::ofstream(dir / "parts" / "a.cl", std::ios::binary) << "a1\n#include \"deeper/b.cl\"\na2\n";
  std::ofstream(dir / "parts" / "deeper" / "b.cl", std::ios::binary)
      << "b1\n#include \"../../common.cl\"\n"
         "#include \"../../entry.cl\"\nb2\n";
  std::ofstream(dir / "common.cl", std::ios::binary) << "common, no newline at the end";
  return dir;
}

// A path as the inliner's messages name it: absolute, normalised (backslashes on Windows).
std::string shown(const std::filesystem::path &path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

} // namespace

BOOST_AUTO_TEST_CASE(includes_are_inlined_recursively_relative_to_their_file_and_once_each) {
  const std::filesystem::path dir = kernel_tree();
  const std::string text = read_kernel_source(dir / "entry.cl");
  BOOST_TEST(text == "// entry\n"
                     "a1\nb1\ncommon, no newline at the end\n\nb2\na2\n"
                     "\n"
                     "#include <stdio.h>\n"
                     "// #include \"parts/missing.cl\"\n"
                     "__kernel void k(void) {}\n");
  // Text read elsewhere (as Runner::read_kernel reads it), resolved against its file's folder.
  BOOST_TEST(inline_kernel_includes("x\n#include \"common.cl\"", dir / "entry.cl") ==
             "x\ncommon, no newline at the end");
  BOOST_TEST(inline_kernel_includes("no includes\r\n", dir / "nowhere.cl") == "no includes\r\n");
}

BOOST_AUTO_TEST_CASE(a_missing_include_names_the_including_file_and_the_missing_one) {
  const std::filesystem::path dir = kernel_tree();
  std::ofstream(dir / "parts" / "broken.cl", std::ios::binary)
      << "one\n#include \"../nv/gone.cl\"\n";
  std::ofstream(dir / "broken_entry.cl", std::ios::binary) << "#include \"parts/broken.cl\"\n";
  const std::string message = error_of([&] { read_kernel_source(dir / "broken_entry.cl"); });
  BOOST_TEST(contains(message, shown(dir / "parts" / "broken.cl") + " line 2"), message);
  BOOST_TEST(contains(message, "#include \"../nv/gone.cl\""), message);
  BOOST_TEST(contains(message, shown(dir / "nv" / "gone.cl") + " is missing"), message);
  BOOST_TEST(contains(error_of([&] { read_kernel_source(dir / "absent.cl"); }),
                      (dir / "absent.cl").string() + " is missing"));
}

// The library's GEMM embeds its kernels inlined by CMake at build time; the harness replays and
// tunes them inlined by kernel_source.cpp: the two texts must be the same.
BOOST_AUTO_TEST_CASE(the_embedded_gemm_kernels_are_the_harness_s_inlined_files) {
  BOOST_TEST_REQUIRE(mqlcl::gemm::kKernelFileCount > 0u);
  for (size_t i = 0; i < mqlcl::gemm::kKernelFileCount; ++i) {
    const std::string name = mqlcl::gemm::kKernelFiles[i].name;
    std::vector<std::filesystem::path> found;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(MQLCL_TEST_KERNELS))
      if (entry.path().filename() == name)
        found.push_back(entry.path());
    BOOST_TEST_REQUIRE(found.size() == 1u, name);
    BOOST_TEST(read_kernel_source(found[0]) == mqlcl::gemm::kKernelFiles[i].text, name);
  }
}

// Every part in kernels/nv/ and kernels/tiles/ is included by a kernel file, none ships unused:
// each starts with a comment line of its own, which some kernel file holds once inlined.
BOOST_AUTO_TEST_CASE(every_kernel_part_is_included_by_a_kernel_file) {
  const std::filesystem::path kernels = MQLCL_TEST_KERNELS;
  std::string all_entries;
  for (const auto &entry : std::filesystem::directory_iterator(kernels))
    if (entry.path().extension() == ".cl")
      all_entries += read_kernel_source(entry.path());
  size_t parts = 0;
  for (const char *folder : {"nv", "tiles"})
    for (const auto &entry : std::filesystem::recursive_directory_iterator(kernels / folder)) {
      if (entry.path().extension() != ".cl")
        continue;
      std::string first_line;
      std::getline(std::ifstream(entry.path()), first_line);
      BOOST_TEST(contains(all_entries, first_line), entry.path()
                                                        << " is included by no kernel file");
      ++parts;
    }
  BOOST_TEST(parts >= 6u); // nv/'s five and tiles/slice_copies.cl
}

BOOST_AUTO_TEST_SUITE_END()
