// The step catalogue: the article's scripts and the steps beyond, their size and device checks,
// launch geometry and parameters.
#include "catalogue.hpp"
#include "error.hpp"
#include "units_support.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

using namespace mqlcl::replay;
using namespace harness_units;

namespace {

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
                                    "matr_mul_wgmma_tma_3xtf32",
                                    "matr_mul_dmma"};
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
  // FP32 maps build too (the tensor cores then truncate: the replay measures it); CLGemm's
  // planner takes only sets of its TF32-typed maps, which round as cuBLAS's TF32 does.
  BOOST_TEST(mapped.params_valid(with(mapped.params, "TMA", 1), caps));
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "TMA", 0), caps));
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "TMA", 3), caps));
  // B read as stored K x N is CLGemm's alone: the replay's B is K-contiguous.
  BOOST_TEST(!mapped.params_valid(with(mapped.params, "B_MN", 1), caps));
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
