#include "catalogue.hpp"

#include "error.hpp"
#include "gemm/tuning_file.hpp"
#include "step_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace mqlcl::replay {

namespace {

uint64_t tile_bytes(const GeometryInput &input) {
  uint64_t blk = static_cast<uint64_t>(param(input, "BLK"));
  return blk * blk * input.element_size;
}

// Step 17's pass, tile_operand: 4 floats of a line per work-item, into tiles of BM lines of A and
// BN of B whose rows hold `slice` values of K.
OperandPass tiling_pass(uint32_t slice) {
  OperandPass pass;
  pass.kernel_name = "tile_operand";
  pass.group = 4;
  pass.block_param_a = "BM";
  pass.block_param_b = "BN";
  pass.slice = slice;
  return pass;
}

// Steps 11-18: what the article's conclusion left for later.
// Step 15's kernel: MODE 1 rounds both operands with tf32_operand (cvt.rna's integer form) and
// sums on the tensor cores; the split modes keep FP32 accuracy, flushing the tensor cores' sums
// into round-to-nearest FP32 additions.
Arithmetic tf32_arithmetic(const Params &p) {
  if (param_or(p, "MODE", 3) != 1)
    return {};
  return {InputRounding::nearest_away, true};
}

// Steps 16-18's kernel, MODE 1: rounded by round_to_tf32 (PARTS 1), in local memory (ROUND 1) or
// by tile_operand (TILED 1), all to nearest, ties away; by the copy engine through TF32-typed
// tensor maps (TMA 2), to nearest, but NVIDIA does not say which way it breaks ties; otherwise
// truncated by the tensor cores. The split modes sum on the tensor cores only with FLUSH 0.
Arithmetic wgmma_arithmetic(const Params &p) {
  if (param_or(p, "MODE", 1) != 1)
    return {InputRounding::none, param_or(p, "FLUSH", 4) == 0};
  if (param_or(p, "PARTS", 0) == 1 || param_or(p, "ROUND", 0) == 1 || param_or(p, "TILED", 0) == 1)
    return {InputRounding::nearest_away, true};
  if (param_or(p, "TMA", 0) == 2)
    return {InputRounding::nearest, true};
  return {InputRounding::truncated, true};
}

// Step 11: the course's blocked kernel, its tiles in local memory passed as arguments.
Step tiled_local_step(Step tiled) {
  tiled.name = "matr_mul_tiled_local";
  tiled.source = "beyond the article, step 11: the Hands-on OpenCL course's blocked kernel";
  tiled.change = "BLK x BLK tiles of both matrices shared in __local memory passed as kernel "
                 "arguments (CLSetKernelArgMemLocal); one work-item per element";
  tiled.kernel_file = "matr_mul_tiled_local.cl";
  tiled.geometry = &blocks_2d;
  tiled.params = {{"BLK", 16}};
  tiled.args = {{KernelArg::Kind::matrix_a},
                {KernelArg::Kind::matrix_b},
                {KernelArg::Kind::matrix_c},
                {KernelArg::Kind::local_bytes, tile_bytes},
                {KernelArg::Kind::local_bytes, tile_bytes}};
  return tiled;
}

// A step that runs one of CLGemm's kernel forms takes its defaults, tunables and rules from the
// form's description.
void with_form(Step &step, gemm::Family family) {
  const gemm::Form &form = gemm::form_of(family);
  step.params = gemm::defaults_of(form);
  step.tunables = gemm::tunables_of(form, gemm::Varies::shape);
  step.form_tunables = gemm::tunables_of(form, gemm::Varies::code);
  step.layout_tunables = gemm::tunables_of(form, gemm::Varies::layout);
  // Step::params_valid is a plain function: one per form, in Family's order.
  constexpr decltype(Step::params_valid) kRules[] = {
      form_params_valid<gemm::Family::tiles>,
      form_params_valid<gemm::Family::registers>,
      form_params_valid<gemm::Family::tensor_tf32>,
      form_params_valid<gemm::Family::tensor_3xtf32>,
      form_params_valid<gemm::Family::tensor_fp64>,
      form_params_valid<gemm::Family::integer_residues>,
      form_params_valid<gemm::Family::tensor_int8>,
      form_params_valid<gemm::Family::wgmma_int8>};
  step.params_valid = kRules[static_cast<size_t>(family)];
}

// Steps 12 and 13: register blocking, then the same with double-buffered local memory.
std::vector<Step> register_blocked_steps(const Step &base) {
  Step blocked = base;
  blocked.name = "matr_mul_register_blocked";
  blocked.source = "beyond the article, step 12: 2-D register blocking";
  blocked.change = "each work-item accumulates a TM x TN block in registers from BK-deep slices "
                   "staged in local memory; float4 loads from global and local memory";
  blocked.kernel_file = "matr_mul_register_blocked.cl";
  blocked.geometry = &tiles_1d;
  blocked.params = {{"BM", 128}, {"BN", 64}, {"BK", 16}, {"TM", 8}, {"TN", 8}, {"PAD", 4}};
  blocked.params_valid = single_buffered_valid;

  Step doubled = blocked;
  doubled.name = "matr_mul_double_buffered";
  doubled.source = "beyond the article, step 13: double-buffered local memory";
  doubled.change = "two local buffers alternate: the next slice is loaded into registers while "
                   "this one is computed, so one barrier per slice hides global latency";
  doubled.kernel_file = "matr_mul_double_buffered.cl";
  with_form(doubled, gemm::Family::tiles);
  return {blocked, doubled};
}

// Step 14: step 13's tiles or a CPU form, whichever `tune` finds faster on the device.
Step tuned_step(Step tuned) {
  tuned.name = "matr_mul_tuned";
  tuned.source = "beyond the article, step 14: tiles and launch geometry tuned per device";
  tuned.change = "`mqlcl-replay tune matr_mul_tuned` picks step 13's tiles, or this file's "
                 "register-blocked CPU form where local memory is part of global memory";
  tuned.kernel_file = "matr_mul_tuned.cl";
  tuned.geometry = &register_blocks_2d;
  with_form(tuned, gemm::Family::registers);
  tuned.float_only = true;
  tuned.tuning = DeviceTuning::families;
  return tuned;
}

// Step 15: mma.sync on NVIDIA's tensor cores, in TF32 and in two splits of FP32 accuracy.
// Defaults measured on an H100 (docs/performance.md): 128 x 128 tiles in three stages for
// TF32; 128 x 64 tiles with 32-deep slices for the split modes, whose conversions leave the
// tensor cores waiting unless fewer barriers share out the slices.
std::vector<Step> tensor_core_steps(const Step &base) {
  Step tf32 = base;
  tf32.name = "matr_mul_tf32";
  tf32.source = "beyond the article, step 15: NVIDIA tensor cores through inline PTX (TF32)";
  tf32.change = "mma.sync.m16n8k8 TF32 products, inputs rounded to 10 mantissa bits: relative "
                "errors near 1e-3, for users who accept them";
  tf32.kernel_file = "matr_mul_tf32.cl";
  tf32.geometry = &warp_tiles_1d;
  tf32.params = {{"MODE", 1}, {"BM", 128}, {"BN", 128},   {"BK", 16},
                 {"WM", 64},  {"WN", 64},  {"STAGES", 3}, {"FLUSH", 4}};
  tf32.tunables = {{"BM", {64, 128, 256}}, {"BN", {64, 128, 256}}, {"BK", {16, 32}},
                   {"WM", {32, 64}},       {"WN", {32, 64}},       {"STAGES", {2, 3}}};
  tf32.params_valid = warp_tiles_valid;
  tf32.requirement = Requirement::nvidia_tensor_cores;
  tf32.arithmetic = tf32_arithmetic;
  tf32.float_only = true;
  tf32.tuning = DeviceTuning::cached;

  Step tf32x3 = tf32;
  tf32x3.name = "matr_mul_3xtf32";
  tf32x3.source = "beyond the article, step 15: 3xTF32 on NVIDIA tensor cores, FP32 accuracy";
  tf32x3.change = "each input split into TF32 head and tail, three products per pair, slices "
                  "summed outside the tensor cores: FP32-level accuracy";
  tf32x3.variant_of = "matr_mul_tf32";
  tf32x3.params = {{"MODE", 3}, {"BM", 128}, {"BN", 64},    {"BK", 32},
                   {"WM", 32},  {"WN", 64},  {"STAGES", 2}, {"FLUSH", 4}};

  Step bf16 = tf32x3;
  bf16.name = "matr_mul_tf32_bf16";
  bf16.source = "beyond the article, step 15: TF32 heads and BF16 corrections, FP32 accuracy";
  bf16.change = "3xTF32's split with the two small products as one BF16 product at twice the "
                "rate: two tensor-core products per pair, FP32-level accuracy";
  bf16.params = {{"MODE", 2}, {"BM", 128}, {"BN", 64},    {"BK", 32},
                 {"WM", 64},  {"WN", 32},  {"STAGES", 2}, {"FLUSH", 4}};
  return {tf32, tf32x3, bf16};
}

// Step 16's TF32 product on Hopper's wgmma, which NVIDIA's OpenCL compiler reaches only through
// the bridge's -mqlcl-nv-sm90a; steps 16-18 are variants of it. Defaults tuned on an H100:
// 128 x 128 tiles in three 16-deep stages (224-238 TFLOP/s at 4096 through the bridge, against
// 163-164 with mma.sync).
Step wgmma_step(Step wgmma) {
  wgmma.name = "matr_mul_wgmma_tf32";
  wgmma.source = "beyond the article, step 16: Hopper's wgmma through inline PTX (TF32)";
  wgmma.change = "warpgroup-wide wgmma.mma_async TF32 products read from swizzled local memory; "
                 "inputs truncated to 10 mantissa bits by the tensor cores (not rounded): "
                 "relative errors near 1e-3, about 3x rounded TF32's, for users who accept them";
  wgmma.kernel_file = "matr_mul_wgmma_tf32.cl";
  wgmma.geometry = &warpgroup_tiles_1d;
  wgmma.params = {{"MODE", 1}, {"ROUND", 0},  {"BM", 128},     {"BN", 128},
                  {"BK", 16},  {"STAGES", 3}, {"INFLIGHT", 0}, {"GROUP_M", 8}};
  wgmma.tunables = {{"BM", {64, 128}},
                    {"BN", {64, 128, 256}},
                    {"BK", {8, 16, 32}},
                    {"STAGES", {2, 3, 4}},
                    {"INFLIGHT", {0, 1}}};
  wgmma.params_valid = warpgroup_tiles_valid;
  wgmma.requirement = Requirement::nvidia_wgmma;
  wgmma.build_options = "-mqlcl-nv-sm90a";
  wgmma.arithmetic = wgmma_arithmetic;
  wgmma.float_only = true;
  wgmma.tuning = DeviceTuning::cached;
  // With PARTS 1 a pass rounds both operands to TF32 before the product (the step below).
  wgmma.operand_pass = OperandPass{"round_to_tf32", 8, "PARTS", "", "", 0}; // not tiled
  return wgmma;
}

// Step 16: the TF32 product, with its inputs rounded beforehand, and the splits of FP32
// accuracy, whose defaults (tuned on an H100) are 64 x 64 tiles with 32-deep slices in two stages.
std::vector<Step> wgmma_steps(const Step &wgmma) {
  Step rounded = wgmma;
  rounded.name = "matr_mul_wgmma_tf32_rounded";
  rounded.source = "beyond the article, step 16: wgmma TF32 with inputs rounded beforehand";
  rounded.change = "a pass before the product (timed with it) rounds both operands to TF32, "
                   "so the tensor cores multiply rounded inputs, as cuBLAS's TF32 mode does: "
                   "relative errors near 3e-4, not FP32 accuracy";
  rounded.variant_of = "matr_mul_wgmma_tf32";
  rounded.params["PARTS"] = 1;

  Step wgmma3 = wgmma;
  wgmma3.name = "matr_mul_wgmma_3xtf32";
  wgmma3.source = "beyond the article, step 16: 3xTF32 on Hopper's wgmma, FP32 accuracy";
  wgmma3.change = "step 15's 3xTF32 split with the tails in registers (wgmma's register "
                  "operand), one of the small products computed transposed: FP32-level accuracy";
  wgmma3.variant_of = "matr_mul_wgmma_tf32";
  wgmma3.params = {{"MODE", 3},   {"BM", 64},      {"BN", 64},     {"BK", 32},
                   {"STAGES", 2}, {"INFLIGHT", 0}, {"GROUP_M", 8}, {"FLUSH", 4}};
  wgmma3.tunables = {{"BM", {64, 128}},
                     {"BN", {64, 128, 256}},
                     {"BK", {8, 16, 32}},
                     {"STAGES", {2, 3, 4}},
                     {"FLUSH", {2, 4}}};

  Step wgmma2 = wgmma3;
  wgmma2.name = "matr_mul_wgmma_tf32_bf16";
  wgmma2.source = "beyond the article, step 16: TF32 heads and BF16 corrections on wgmma";
  wgmma2.change = "the TF32 + BF16 split on wgmma: one TF32 and one BF16 product per slice, "
                  "FP32-level accuracy";
  wgmma2.params = {{"MODE", 2},   {"BM", 64},      {"BN", 64},     {"BK", 32},
                   {"STAGES", 2}, {"INFLIGHT", 0}, {"GROUP_M", 8}, {"FLUSH", 4}};
  return {wgmma, rounded, wgmma3, wgmma2};
}

// Step 17: a pass lays both operands out in the tiles the product reads, so each slice of a
// tile is one bulk copy; defaults measured on an H100: 128 x 128 tiles in two stages for TF32,
// 64 x 128 in three for 3xTF32, A's fragments in registers (two accumulators of 64 floats per
// work-item: three work-groups per compute unit).
std::vector<Step> tiled_operand_steps(const Step &wgmma) {
  Step bulk = wgmma;
  bulk.name = "matr_mul_wgmma_tiled_tf32";
  bulk.source = "beyond the article, step 17: wgmma on operands tiled beforehand (TF32)";
  bulk.change = "a pass (timed with the product) rounds both operands to TF32 and lays them out "
                "in the product's tiles; each slice of a tile is one bulk copy, awaited on an "
                "mbarrier: cuBLAS's TF32 errors, near 3e-4, not FP32 accuracy";
  bulk.variant_of = "matr_mul_wgmma_tf32";
  bulk.params = {{"TILED", 1}, {"MODE", 1},   {"PARTS", 1},    {"BM", 128},    {"BN", 128},
                 {"BK", 16},   {"STAGES", 2}, {"INFLIGHT", 0}, {"GROUP_M", 16}};
  bulk.tunables = {{"BM", {64, 128}},
                   {"BN", {64, 128, 256}},
                   {"STAGES", {2, 3, 4}},
                   {"INFLIGHT", {0, 1}},
                   {"GROUP_M", {8, 16, 32}}};
  bulk.params_valid = tiled_tiles_valid;
  bulk.operand_pass = tiling_pass(16); // 16 rounded values of K per tile row

  Step bulk3 = bulk;
  bulk3.name = "matr_mul_wgmma_tiled_3xtf32";
  bulk3.source = "beyond the article, step 17: 3xTF32 on operands split and tiled beforehand";
  bulk3.change = "the pass splits both operands into TF32 heads and tails, 8 of each per tile "
                 "row; the three products of a slice all read the bulk copy: FP32-level accuracy";
  bulk3.params = {{"TILED", 1},    {"MODE", 3},   {"PARTS", 2},  {"BM", 64},
                  {"BN", 128},     {"BK", 16},    {"STAGES", 3}, {"INFLIGHT", 0},
                  {"GROUP_M", 32}, {"FLUSH", 16}, {"A_REGS", 1}};
  bulk3.tunables = {{"BM", {64, 128}},       {"BN", {64, 128}},  {"STAGES", {2, 3}},
                    {"INFLIGHT", {0, 1}},    {"FLUSH", {8, 16}}, {"A_REGS", {0, 1}},
                    {"GROUP_M", {8, 16, 32}}};
  bulk3.operand_pass = tiling_pass(8); // 8 heads and their 8 tails per tile row
  return {bulk, bulk3};
}

// Step 18: step 17's TF32 product with no pass: each slice of a tile is copied straight from A
// and B by the copy engine, through tensor maps the bridge writes (CLBufferTensorMap), swizzled
// as wgmma reads it. Maps typed TF32 (TMA 2) round the inputs on the way. Defaults measured on
// an H100: 64 x 256 tiles of 128-byte rows (BK 32) in one stage, work-groups on a compute unit
// taking turns, 64 block rows per group of the tile order.
std::vector<Step> tensor_map_steps(const Step &wgmma) {
  Step mapped = wgmma;
  mapped.name = "matr_mul_wgmma_tma_tf32";
  mapped.source = "beyond the article, step 18: wgmma on tiles copied through tensor maps (TF32)";
  mapped.change = "Hopper's copy engine reads each slice of a tile straight from A and B through "
                  "TF32-typed tensor maps (CLBufferTensorMap), rounding the inputs on the way: "
                  "no pass, no loads by the work-items; cuBLAS's TF32 errors, near 3e-4, not "
                  "FP32 accuracy";
  mapped.variant_of = "matr_mul_wgmma_tf32";
  with_form(mapped, gemm::Family::tensor_tf32);
  mapped.params_valid = mapped_params_valid<gemm::Family::tensor_tf32>;
  mapped.requirement = Requirement::nvidia_tensor_maps;
  mapped.args = {{KernelArg::Kind::matrix_a},
                 {KernelArg::Kind::matrix_b},
                 {KernelArg::Kind::matrix_c},
                 {KernelArg::Kind::tensor_maps}};
  mapped.padding.colsrows = 4; // a map's rows are whole 16-byte chunks
  mapped.operand_pass.reset();
  mapped.tensor_maps = TensorMaps{};

  Step mapped3 = mapped;
  mapped3.name = "matr_mul_wgmma_tma_3xtf32";
  mapped3.source = "beyond the article, step 18: 3xTF32 with A through a tensor map";
  mapped3.change = "A copied as it is through an FP32-typed tensor map and split into TF32 heads "
                   "and tails in registers; only B through step 17's pass (half of it): "
                   "FP32-level accuracy";
  with_form(mapped3, gemm::Family::tensor_3xtf32);
  mapped3.params_valid = mapped_params_valid<gemm::Family::tensor_3xtf32>;
  mapped3.operand_pass = tiling_pass(8); // B's 8 heads and their 8 tails per tile row
  mapped3.operand_pass->operand_a = false;
  mapped3.padding.colsrows = 32; // whole stages of K: B's tiles hold no partial slice
  mapped3.tensor_maps = TensorMaps{"BM", "", "BK", "TMA"};
  return {mapped, mapped3};
}

// Step 19: the double product on Hopper's FP64 tensor cores (mma.sync m16n8k16 f64), what
// CLGemm runs for double there.
Step fp64_tensor_step(Step dmma) {
  dmma.name = "matr_mul_dmma";
  dmma.source = "beyond the article, step 19: Hopper's FP64 tensor cores through inline PTX";
  dmma.change = "mma.sync f64 products (each an FP64 fused multiply-add: FP64 accuracy) from "
                "tiles copied by cp.async, the instructions cuBLAS's DGEMM runs; double only";
  dmma.kernel_file = "matr_mul_dmma.cl";
  dmma.geometry = &warp_tiles_1d;
  with_form(dmma, gemm::Family::tensor_fp64);
  dmma.requirement = Requirement::nvidia_fp64_mma;
  dmma.double_only = true;
  dmma.in_bench = false; // bench times FP32; `gemm` times it as CLGemm's double product
  return dmma;
}

void append(std::vector<Step> &steps, std::vector<Step> more) {
  for (Step &step : more)
    steps.push_back(std::move(step));
}

// Steps 11-19, in their order, one family at a time.
std::vector<Step> beyond_the_article() {
  Step base;
  base.in_article = false;
  base.in_bench = true; // every step beyond the article is benched
  base.layout_b = Layout::column_major;

  std::vector<Step> steps = {tiled_local_step(base)};
  append(steps, register_blocked_steps(base));
  steps.push_back(tuned_step(base));
  append(steps, tensor_core_steps(base));
  const Step wgmma = wgmma_step(base);
  append(steps, wgmma_steps(wgmma));
  append(steps, tiled_operand_steps(wgmma));
  append(steps, tensor_map_steps(wgmma));
  steps.push_back(fp64_tensor_step(base));
  return steps;
}

// Section 2.1: the sequential program the kernels are measured against.
Step host_step() {
  Step host;
  host.name = "matr_mul_2dim";
  host.source = "section 2.1, Listing 1";
  host.change = "the sequential program: r-cr-c loops over 2-D arrays on one CPU core, no OpenCL";
  host.cpu_loop = CpuLoop::r_cr_c;
  return host;
}

// Sections 2.2-2.4: one work-item per element of the product.
std::vector<Step> per_element_steps() {
  Step one_dim;
  one_dim.geometry = &one_per_element;
  one_dim.name = "matr_mul_1dim";
  one_dim.source = "section 2.2, Listing 2";
  one_dim.change = "first kernel: one work-item per element of the product (2-D range "
                   "ROWS1 x COLS2); all matrices row-major";
  one_dim.kernel_file = "matr_mul_1dim.cl";

  Step coalesced = one_dim;
  coalesced.layout_b = Layout::column_major;
  coalesced.name = "matr_mul_1dim_coalesced";
  coalesced.source = "section 2.3, Listing 3";
  coalesced.change = "second matrix stored column-major, so the inner loop reads both inputs "
                     "contiguously (coalesced)";
  coalesced.kernel_file = "matr_mul_1dim_coalesced.cl";

  Step sum_local = coalesced;
  sum_local.name = "matr_mul_sum_local";
  sum_local.source = "section 2.4, Listing 4";
  sum_local.change = "the dot product accumulates in a private variable and is written to "
                     "global memory once";
  sum_local.kernel_file = "matr_mul_sum_local.cl";
  return {one_dim, coalesced, sum_local};
}

// Sections 2.5-2.6: one work-item per row of the product, from the last per-element step.
std::vector<Step> per_row_steps(const Step &per_element) {
  Step row_calc = per_element;
  row_calc.geometry = &one_per_row;
  row_calc.name = "matr_mul_row_calc";
  row_calc.source = "section 2.5, Listing 5";
  row_calc.change = "one work-item per row of the product: a 1-D range of ROWS1 work-items";
  row_calc.kernel_file = "matr_mul_row_calc.cl";

  Step row_in_private = row_calc;
  row_in_private.private_row = true;
  row_in_private.name = "matr_mul_row_in_private";
  row_in_private.source = "section 2.6, Listing 6";
  row_in_private.change =
      "the work-item's row of the first matrix copied once into a private array "
      "rowbuf[COLSROWS]";
  row_in_private.kernel_file = "matr_mul_row_in_private.cl";
  return {row_calc, row_in_private};
}

// Section 2.7, as printed (with its race), from the private-row step.
Step col_local_step(const Step &private_row) {
  Step col_local = private_row;
  col_local.local_column = true;
  col_local.name = "matr_mul_col_local";
  col_local.source = "section 2.7, Listing 7 (as printed)";
  col_local.change = "each column of the second matrix staged in __local colbuf[COLSROWS] by "
                     "the whole work-group, behind a barrier";
  col_local.kernel_file = "matr_mul_col_local.cl";
  col_local.race = "the listing has no barrier after the reads of colbuf, so a work-item can "
                   "overwrite it with the next column while others of its work-group still "
                   "read this one";
  col_local.fixed_by = "matr_mul_col_local_fixed";
  return col_local;
}

// Section 2.8: the inner loop vectorised, from the private-row step.
std::vector<Step> vector_steps(const Step &private_row) {
  Step vect = private_row;
  vect.name = "matr_mul_vect";
  vect.source = "section 2.8, Listing 8";
  vect.change = "inner loop vectorised: dot() of two REALTYPE4 vectors assembled from scalars";
  vect.kernel_file = "matr_mul_vect.cl";
  vect.constraints = {{Dim::colsrows, 4, "its inner loop reads 4 elements at a time"}};

  Step vect_v2 = vect;
  vect_v2.name = "matr_mul_vect_v2";
  vect_v2.source = "section 2.8, Listing 9";
  vect_v2.change = "the private row kept as REALTYPE4 vectors, so only in2's vector is assembled "
                   "in the main loop";
  vect_v2.kernel_file = "matr_mul_vect_v2.cl";
  vect_v2.constraints = {{Dim::colsrows, 4, "it keeps rows as COLSROWS / 4 vectors of 4"}};
  vect_v2.in_bench = true; // the article's best, benched beside the steps beyond it

  Step vect_v3 = vect;
  vect_v3.name = "matr_mul_vect_v3";
  vect_v3.source = "section 2.8, Listing 10";
  vect_v3.change = "vectors of 8 (REALTYPE8) and dot8()";
  vect_v3.kernel_file = "matr_mul_vect_v3.cl";
  vect_v3.constraints = {{Dim::colsrows, 8, "it keeps rows as COLSROWS / 8 vectors of 8"}};
  return {vect, vect_v2, vect_v3};
}

// Section 2.7's listing with the barrier it lacks (not in the article).
Step col_local_fixed_step(Step fixed) {
  fixed.in_article = false;
  fixed.name = "matr_mul_col_local_fixed";
  fixed.source = "section 2.7, Listing 7 with a second barrier (not in the article)";
  fixed.change = "as matr_mul_col_local, plus the barrier that keeps colbuf until the whole "
                 "work-group has read it";
  fixed.kernel_file = "matr_mul_col_local_fixed.cl";
  fixed.race.clear();
  fixed.fixed_by.clear();
  return fixed;
}

// The article's steps, in its order, then the fixed col_local and the steps beyond the article.
// Each step starts from the one before it in the article and says what it changes.
std::vector<Step> make_replay_steps() {
  std::vector<Step> steps = {host_step()};
  const std::vector<Step> per_element = per_element_steps();
  append(steps, per_element);
  const std::vector<Step> per_row = per_row_steps(per_element.back());
  append(steps, per_row);
  const Step col_local = col_local_step(per_row.back());
  steps.push_back(col_local);
  append(steps, vector_steps(per_row.back()));
  steps.push_back(col_local_fixed_step(col_local));
  append(steps, beyond_the_article());
  return steps;
}

} // namespace

const std::vector<Step> &replay_steps() {
  static const std::vector<Step> steps = make_replay_steps();
  return steps;
}

Step form_step(gemm::Family family) {
  Step step;
  step.name = gemm::step_of(family);
  step.kernel_file = gemm::form_of(family).kernel_file;
  step.in_article = false;
  with_form(step, family);
  return step;
}

const Step *find_step(const std::vector<Step> &steps, std::string_view name) {
  for (const Step &step : steps)
    if (step.name == name)
      return &step;
  return nullptr;
}

} // namespace mqlcl::replay
