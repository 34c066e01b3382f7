#include "gemm/forms.hpp"

#include <initializer_list>
#include <iterator>
#include <string_view>
#include <utility>

namespace mqlcl::gemm {

namespace {

size_t ceil_div(size_t value, size_t divisor) {
  return (value + divisor - 1) / divisor;
}

bool one_of(int64_t value, std::initializer_list<int64_t> allowed) {
  for (int64_t a : allowed)
    if (value == a)
      return true;
  return false;
}

// A work-group of `threads` whose kernel declares `local_bytes` of __local arrays: whole warps
// (the kernels' loads and warp shapes assume 32 lanes), within the device's limits.
bool group_fits(const DeviceLimits &device, uint64_t threads, uint64_t local_bytes) {
  return threads >= 32 && threads % 32 == 0 && threads <= device.max_work_group_size &&
         threads <= device.max_work_item_size0 && local_bytes <= device.kernel_local_bytes;
}

// Step 13 (kernels/matr_mul_double_buffered.cl): its #error lines, then two buffers of
// BK x (BM + PAD) and two of BK x (BN + PAD) elements.
bool tiles_valid(const Params &p, const DeviceLimits &device, size_t element_size) {
  const Form &form = form_of(Family::tiles);
  auto v = [&](const char *name) { return value_of(form, p, name); };
  const int64_t bm = v("BM"), bn = v("BN"), bk = v("BK"), tm = v("TM"), tn = v("TN");
  const int64_t pad = v("PAD"), rows = v("WARP_ROWS");
  if (bm <= 0 || bn <= 0 || bk <= 0 || tm <= 0 || tn <= 0 || bm % tm || bn % tn || tm % 4 ||
      tn % 4 || bk % 4 || pad < 0 || pad % 4 || v("GROUP_M") < 1)
    return false;
  const int64_t threads_m = bm / tm, threads_n = bn / tn, threads = threads_m * threads_n;
  if ((bm * bk / 4) % threads || (bn * bk / 4) % threads)
    return false; // the tiles split into whole float4 loads over the work-group
  if (rows < 1 || rows > 32 || 32 % rows || threads_n % (32 / rows) || threads_m % rows)
    return false; // whole warps of WARP_ROWS x (32 / WARP_ROWS) work-items
  const int64_t order = v("FMA_ORDER"), gather = v("GATHER"), paired = v("PAIRED_LANES");
  if (!one_of(order, {0, 2, 3}) || !one_of(gather, {0, 1}) || !one_of(v("CARRY"), {0, 1}) ||
      !one_of(v("POINTERS"), {0, gather}) || v("ROTATE_A") < 0 || v("ROTATE_A") > 3 ||
      v("ROTATE_B") < 0 || v("ROTATE_B") > 3 ||
      !(paired == 0 || (paired == 1 && rows >= 2 && rows <= 16)))
    return false;
  const uint64_t local = 2 * uint64_t(bk) * uint64_t(bm + pad + bn + pad) * element_size;
  return group_fits(device, uint64_t(threads), local);
}

// The tiled forms' launch: a work-group of `threads` per BM x BN tile of C along the first
// dimension, the batch along the second.
Launch group_per_tile(const Form &form, const Params &p, const Shape &shape, size_t threads) {
  const int64_t bm = value_of(form, p, "BM"), bn = value_of(form, p, "BN");
  return {2,
          {ceil_div(shape.m, bm) * ceil_div(shape.n, bn) * threads, shape.batch, 1},
          {threads, 1, 1}};
}

Launch tiles_launch(const Params &p, const Shape &shape) {
  const Form &form = form_of(Family::tiles);
  const size_t threads = size_t(value_of(form, p, "BM") / value_of(form, p, "TM")) *
                         (value_of(form, p, "BN") / value_of(form, p, "TN"));
  return group_per_tile(form, p, shape, threads);
}

// Step 14's CPU form (kernels/matr_mul_tuned.cl): RM x RN elements of C per work-item, K read
// VK at a time; no local memory.
bool registers_valid(const Params &p, const DeviceLimits &device, size_t) {
  const Form &form = form_of(Family::registers);
  auto v = [&](const char *name) { return value_of(form, p, name); };
  const int64_t lx = v("LX"), ly = v("LY");
  return v("RM") > 0 && v("RN") > 0 && one_of(v("VK"), {4, 8, 16}) && lx > 0 && ly > 0 &&
         uint64_t(lx) * uint64_t(ly) <= device.max_work_group_size &&
         uint64_t(lx) <= device.max_work_item_size0;
}

Launch registers_launch(const Params &p, const Shape &shape) {
  const Form &form = form_of(Family::registers);
  const size_t lx = value_of(form, p, "LX"), ly = value_of(form, p, "LY");
  return {3,
          {ceil_div(ceil_div(shape.n, value_of(form, p, "RN")), lx) * lx,
           ceil_div(ceil_div(shape.m, value_of(form, p, "RM")), ly) * ly, shape.batch},
          {lx, ly, 1}};
}

// Step 18 (kernels/matr_mul_wgmma_tf32.cl with TMA): whole warpgroups of 128 work-items per 64
// rows, the wgmma's N, 16 or 32-deep slices, at least one stage of (BM + BN) rows of BK floats
// with an mbarrier each, INFLIGHT 0 or 1 below STAGES. 3xTF32 (MODE 3) takes A through an FP32
// map (TMA 1) and B split by step 17's pass (PARTS 2), whose heads and tails take twice the
// local memory, with nothing in flight; plain TF32 (MODE 1) reads TF32-typed maps (TMA 2), which
// round the inputs, or FP32 maps (TMA 1), whose inputs the tensor cores truncate. TMA 0, where no
// map can be written: the same product after a pass that lays the tiles out (rounded for TF32).
// B_MN 1 (TF32 through maps): a B stored K x N read as it is, the product computed as C^T.
bool tensor_valid(const Form &form, const Params &p, const DeviceLimits &device) {
  auto v = [&](const char *name) { return value_of(form, p, name); };
  const bool three = form.family == Family::tensor_3xtf32;
  const int64_t bm = v("BM"), bn = v("BN"), bk = v("BK"), stages = v("STAGES");
  const int64_t inflight = v("INFLIGHT");
  const int64_t tma = v("TMA");
  if (tma < 0 || tma > (three ? 1 : 2) || v("MODE") != (three ? 3 : 1) ||
      v("PARTS") != (three ? 2 : 0) || v("TILED") != 0 || v("ROUND") != 0 || v("A_REGS") != 0)
    return false;
  if (bm < 64 || bm % 64 || !one_of(bn, {64, 128, 256}) || !one_of(bk, {16, 32}) || stages < 1 ||
      inflight < 0 || inflight > 1 || inflight >= stages || v("GROUP_M") < 1)
    return false;
  if (three && (bn > 128 || v("FLUSH") < 1 || inflight != 0))
    return false;
  if (!one_of(v("B_MN"), {0, 1}) || (v("B_MN") == 1 && (three || tma != 2)))
    return false; // B read as stored K x N: TF32 through maps alone
  const uint64_t b_rows = uint64_t(bn) * (three ? 2 : 1);
  const uint64_t local = uint64_t(stages) * ((uint64_t(bm) + b_rows) * bk * 4 + 8);
  return group_fits(device, uint64_t(bm) * 2, local);
}

bool tf32_valid(const Params &p, const DeviceLimits &device, size_t) {
  return tensor_valid(form_of(Family::tensor_tf32), p, device);
}

bool three_tf32_valid(const Params &p, const DeviceLimits &device, size_t) {
  return tensor_valid(form_of(Family::tensor_3xtf32), p, device);
}

Launch tensor_launch(const Form &form, const Params &p, const Shape &shape) {
  // A warpgroup of 128 work-items per 64 rows; with B_MN, rows of C^T.
  Shape tiled = shape;
  if (value_of(form, p, "B_MN") == 1)
    std::swap(tiled.m, tiled.n);
  return group_per_tile(form, p, tiled, size_t(value_of(form, p, "BM")) * 2);
}

Launch tf32_launch(const Params &p, const Shape &shape) {
  return tensor_launch(form_of(Family::tensor_tf32), p, shape);
}

Launch three_tf32_launch(const Params &p, const Shape &shape) {
  return tensor_launch(form_of(Family::tensor_3xtf32), p, shape);
}

// Step 19 (kernels/matr_mul_dmma.cl): its #error lines, whole warps of WM x WN, and STAGES
// slices of (BM + BN) rows of BK doubles padded by 4 (an operand with K down its rows, read in
// place, takes BK rows of BM + 4 or BN + 4: no more), with an mbarrier each through tensor maps
// (TMA 1, or TMA 2 for the operands with K down their rows, or TMA 3 as 1 with the K-contiguous
// operands' rows swizzled, unpadded: BK 16 only); its accumulators take 8 * (WM / 16) *
// (WN / 8) registers of a lane, which must leave room for the fragments (at most 64 doubles). The
// work-items' copies (TMA 0, where there are no maps) split the tiles, either way round, into whole
// 16-byte copies: every set must allow both.
bool fp64_valid(const Params &p, const DeviceLimits &device, size_t) {
  const Form &form = form_of(Family::tensor_fp64);
  auto v = [&](const char *name) { return value_of(form, p, name); };
  const int64_t bm = v("BM"), bn = v("BN"), bk = v("BK"), wm = v("WM"), wn = v("WN");
  const int64_t mma_k = v("MMA_K"), stages = v("STAGES");
  if (bm <= 0 || bn <= 0 || wm <= 0 || wn <= 0 || bm % wm || bn % wn || wm % 16 || wn % 8 ||
      !one_of(mma_k, {8, 16}) || bk <= 0 || bk % mma_k || stages < 2 || stages > 4 ||
      v("GROUP_M") < 1 || (wm / 16) * (wn / 8) * 4 > 64 || !one_of(v("TMA"), {0, 1, 2, 3}) ||
      (v("TMA") == 3 && bk != 16))
    return false;
  const int64_t threads = (bm / wm) * (bn / wn) * 32, chunks = bk / 2;
  if ((bm * chunks) % threads || (bn * chunks) % threads || threads % chunks ||
      threads % (bm / 2) || threads % (bn / 2) || bm * chunks / threads > 32 ||
      bn * chunks / threads > 32)
    return false; // the tiles, either way round, split into whole 16-byte copies, 32 at most each
  const uint64_t local =
      uint64_t(stages) * (uint64_t(bm + bn) * uint64_t(bk + 4) * 8 + (v("TMA") != 0 ? 8 : 0));
  return group_fits(device, uint64_t(threads), local);
}

// The Ozaki scheme's integer products (kernels/gemm/ozaki.cl, residue_products): BLOCK x BLOCK
// sums per work-item in registers, GROUP x GROUP work-items (whole warps), no local memory.
bool residues_valid(const Params &p, const DeviceLimits &device, size_t) {
  const Form &form = form_of(Family::integer_residues);
  const int64_t block = value_of(form, p, "BLOCK"), group = value_of(form, p, "GROUP");
  return block >= 1 && block <= 8 && group >= 1 && group <= 32 &&
         group_fits(device, uint64_t(group * group), 0);
}

// A work-item per BLOCK x BLOCK block of each product's m x n residue plane.
Launch residues_launch(const Params &p, const Shape &shape) {
  const Form &form = form_of(Family::integer_residues);
  const size_t block = size_t(value_of(form, p, "BLOCK")),
               group = size_t(value_of(form, p, "GROUP"));
  return {3,
          {ceil_div(shape.n, block * group) * group, ceil_div(shape.m, block * group) * group,
           shape.batch},
          {group, group, 1}};
}

// The same products on the INT8 tensor cores (kernels/gemm/ozaki_int8.cl): its #error lines,
// whole warps of WM x WN, STAGES slices of (BM + BN) lines of BK chars, and accumulators of
// (WM / 16) x (WN / 8) x 4 ints per lane that leave room for the fragments (at most 128).
bool int8_valid(const Params &p, const DeviceLimits &device, size_t) {
  const Form &form = form_of(Family::tensor_int8);
  auto v = [&](const char *name) { return value_of(form, p, name); };
  const int64_t bm = v("BM"), bn = v("BN"), bk = v("BK"), wm = v("WM"), wn = v("WN");
  const int64_t stages = v("STAGES");
  if (v("TENSOR_CORES") != 1 || bm <= 0 || bn <= 0 || wm <= 0 || wn <= 0 || bm % wm || bn % wn ||
      wm % 16 || wn % 16 || !one_of(bk, {32, 64, 128, 256}) || stages < 2 || stages > 4 ||
      v("GROUP_M") < 1 || (wm / 16) * (wn / 8) * 4 > 128)
    return false;
  const int64_t threads = (bm / wm) * (bn / wn) * 32, chunks = bk / 16;
  if ((bm * chunks) % threads || (bn * chunks) % threads)
    return false; // the tiles split into whole 16-byte copies over the work-group
  const uint64_t local = uint64_t(stages) * uint64_t(bm + bn) * uint64_t(bk);
  return group_fits(device, uint64_t(threads), local);
}

// A work-group per BM x BN tile of each plane (shape.batch: the planes, moduli x products).
Launch int8_launch(const Params &p, const Shape &shape) {
  const Form &form = form_of(Family::tensor_int8);
  const size_t warps = size_t(value_of(form, p, "BM") / value_of(form, p, "WM")) *
                       (value_of(form, p, "BN") / value_of(form, p, "WN"));
  return group_per_tile(form, p, shape, warps * 32);
}

// The same products on Hopper's wgmma (kernels/gemm/ozaki_wgmma.cl): its #error lines, a
// warpgroup per 64 rows, STAGES slices of (BM + BN) lines of BK chars, and the register file
// (64 Ki) for BN / 2 accumulators and about 40 other registers per work-item, allotted in 8s.
bool wgmma_int8_valid(const Params &p, const DeviceLimits &device, size_t) {
  const Form &form = form_of(Family::wgmma_int8);
  auto v = [&](const char *name) { return value_of(form, p, name); };
  const int64_t bm = v("BM"), bn = v("BN"), bk = v("BK"), stages = v("STAGES"),
                inflight = v("INFLIGHT");
  if (v("TENSOR_CORES") != 2 || bm <= 0 || bm % 64 || !one_of(bn, {64, 128, 256}) ||
      !one_of(bk, {32, 64, 128}) || !one_of(inflight, {0, 1}) || stages < inflight + 2 ||
      stages > 5 || v("GROUP_M") < 1)
    return false;
  const int64_t threads = bm * 2;
  const int64_t registers = int64_t(ceil_div(size_t(bn / 2 + 40), 8) * 8); // per work-item
  if (threads * registers > 65536)
    return false;
  const uint64_t local = uint64_t(stages) * uint64_t(bm + bn) * uint64_t(bk);
  return group_fits(device, uint64_t(threads), local);
}

Launch wgmma_int8_launch(const Params &p, const Shape &shape) {
  const Form &form = form_of(Family::wgmma_int8);
  return group_per_tile(form, p, shape, size_t(value_of(form, p, "BM")) * 2);
}

Launch fp64_launch(const Params &p, const Shape &shape) {
  const Form &form = form_of(Family::tensor_fp64);
  const size_t warps = size_t(value_of(form, p, "BM") / value_of(form, p, "WM")) *
                       (value_of(form, p, "BN") / value_of(form, p, "WN"));
  return group_per_tile(form, p, shape, warps * 32);
}

// Defaults: step 13's measured on an H100 at 4096 (128 x 128 tiles of 16-deep slices, 8 x 8 per
// work-item); step 14's for PoCL on AVX2; step 18's measured on an H100 at 4096: TF32 through
// TF32-typed maps in 64 x 256 tiles of 32-deep slices, one stage; 3xTF32 with A through an FP32
// map, split in registers, and B split and tiled by the pass, 64 x 128 tiles of 16-deep slices
// in two stages, sums flushed every 8 slices; step 19's are an untuned start (128 x 128 tiles of
// 16-deep slices in three stages, 64 x 32 per warp; TMA 0, the kernel's own: tensor_plan takes
// TMA 2 where the driver writes maps and the set names none): the database holds what was
// measured. The
// Ozaki scheme's portable integer products: 4 x 4 sums per work-item, 8 x 8 work-items, untuned;
// on INT8 tensor cores, 128 x 128 tiles of 64-deep slices in three stages, 64 x 64 per warp.
// Step 13's FMA_ORDER=1 and POINTERS=1 without GATHER=1 were tried and not kept (the kernel's
// header comment); its rules refuse them.
constexpr Varies kShape = Varies::shape, kCode = Varies::code, kLayout = Varies::layout;
constexpr Form kForms[] = {
    {Family::tiles,
     "tiles",
     "matr_mul_double_buffered.cl",
     {{{"BM", 128},
       {"BN", 128},
       {"BK", 16},
       {"TM", 8},
       {"TN", 8},
       {"PAD", 4},
       {"GROUP_M", 8},
       {"WARP_ROWS", 2},
       {"FMA_ORDER", 0},
       {"POINTERS", 0},
       {"GATHER", 0},
       {"CARRY", 0},
       {"ROTATE_A", 0},
       {"ROTATE_B", 0},
       {"PAIRED_LANES", 0}}},
     {{{"BM", kShape, {64, 128, 256}, 3},
       {"BN", kShape, {64, 128, 256}, 3},
       {"BK", kShape, {8, 16, 32}, 3},
       {"TM", kShape, {4, 8, 16}, 3},
       {"TN", kShape, {4, 8, 16}, 3},
       {"WARP_ROWS", kShape, {2, 4}, 2},
       {"FMA_ORDER", kCode, {0, 2, 3}, 3},
       {"POINTERS", kCode, {0, 1}, 2},
       {"GATHER", kCode, {0, 1}, 2},
       {"CARRY", kCode, {0, 1}, 2},
       {"ROTATE_A", kLayout, {0, 1, 2, 3}, 4},
       {"ROTATE_B", kLayout, {0, 1, 2, 3}, 4},
       {"PAIRED_LANES", kLayout, {0, 1}, 2}}},
     tiles_valid,
     tiles_launch},
    {Family::registers,
     "registers",
     "matr_mul_tuned.cl",
     {{{"RM", 4}, {"RN", 4}, {"VK", 16}, {"LX", 16}, {"LY", 4}}},
     {{{"RM", kShape, {2, 4}, 2},
       {"RN", kShape, {2, 4, 8}, 3},
       {"VK", kShape, {8, 16}, 2},
       {"LX", kShape, {8, 16, 64}, 3},
       {"LY", kShape, {1, 4, 8}, 3}}},
     registers_valid,
     registers_launch},
    {Family::tensor_tf32,
     "tensor_tf32",
     "matr_mul_wgmma_tf32.cl",
     {{{"TMA", 2},
       {"MODE", 1},
       {"BM", 64},
       {"BN", 256},
       {"BK", 32},
       {"STAGES", 1},
       {"INFLIGHT", 0},
       {"GROUP_M", 64},
       {"B_MN", 0}}},
     {{{"BM", kShape, {64, 128}, 2},
       {"BN", kShape, {64, 128, 256}, 3},
       {"BK", kShape, {16, 32}, 2},
       {"STAGES", kShape, {1, 2, 3, 4}, 4},
       {"INFLIGHT", kShape, {0, 1}, 2},
       {"GROUP_M", kShape, {8, 16, 32, 64}, 4},
       {"B_MN", kCode, {0, 1}, 2}}},
     tf32_valid,
     tf32_launch},
    {Family::tensor_3xtf32,
     "tensor_3xtf32",
     "matr_mul_wgmma_tf32.cl",
     {{{"TMA", 1},
       {"MODE", 3},
       {"PARTS", 2},
       {"BM", 64},
       {"BN", 128},
       {"BK", 16},
       {"STAGES", 2},
       {"INFLIGHT", 0},
       {"FLUSH", 8},
       {"A_REGS", 0},
       {"GROUP_M", 64}}},
     {{{"BM", kShape, {64, 128}, 2},
       {"BN", kShape, {64, 128}, 2},
       {"BK", kShape, {16, 32}, 2},
       {"STAGES", kShape, {1, 2, 3, 4}, 4},
       {"FLUSH", kShape, {2, 4, 8, 16}, 4},
       {"GROUP_M", kShape, {8, 16, 32, 64}, 4}}},
     three_tf32_valid,
     three_tf32_launch},
    {Family::tensor_fp64,
     "tensor_fp64",
     "matr_mul_dmma.cl",
     {{{"BM", 128},
       {"BN", 128},
       {"BK", 16},
       {"WM", 64},
       {"WN", 32},
       {"MMA_K", 16},
       {"STAGES", 3},
       {"GROUP_M", 8},
       {"TMA", 0}}},
     {{{"BM", kShape, {64, 128}, 2},
       {"BN", kShape, {64, 128}, 2},
       {"BK", kShape, {8, 16, 32}, 3},
       {"WM", kShape, {32, 64}, 2},
       {"WN", kShape, {16, 32, 64}, 3},
       {"MMA_K", kShape, {8, 16}, 2},
       {"STAGES", kShape, {2, 3, 4}, 3},
       {"GROUP_M", kShape, {8, 16, 32}, 3},
       {"TMA", kCode, {0, 1, 2, 3}, 4}}},
     fp64_valid,
     fp64_launch},
    {Family::integer_residues,
     "integer_residues",
     "ozaki.cl",
     {{{"BLOCK", 4}, {"GROUP", 8}}},
     {{{"BLOCK", kShape, {2, 4, 8}, 3}, {"GROUP", kShape, {8, 16}, 2}}},
     residues_valid,
     residues_launch},
    {Family::tensor_int8,
     "tensor_int8",
     "ozaki.cl",
     {{{"TENSOR_CORES", 1},
       {"BM", 128},
       {"BN", 128},
       {"BK", 64},
       {"WM", 64},
       {"WN", 64},
       {"STAGES", 3},
       {"GROUP_M", 8}}},
     {{{"BM", kShape, {64, 128, 256}, 3},
       {"BN", kShape, {64, 128, 256}, 3},
       {"BK", kShape, {32, 64, 128}, 3},
       {"WM", kShape, {32, 64}, 2},
       {"WN", kShape, {32, 64}, 2},
       {"STAGES", kShape, {2, 3, 4}, 3},
       {"GROUP_M", kShape, {8, 16}, 2}}},
     int8_valid,
     int8_launch},
    {Family::wgmma_int8,
     "wgmma_int8",
     "ozaki.cl",
     {{{"TENSOR_CORES", 2},
       {"BM", 192},
       {"BN", 256},
       {"BK", 64},
       {"STAGES", 5},
       {"INFLIGHT", 1},
       {"GROUP_M", 8}}},
     {{{"BM", kShape, {64, 128, 192, 256}, 4},
       {"BN", kShape, {64, 128, 256}, 3},
       {"BK", kShape, {64, 128}, 2},
       {"STAGES", kShape, {3, 4, 5}, 3},
       {"INFLIGHT", kShape, {0, 1}, 2},
       {"GROUP_M", kShape, {8, 16}, 2}}},
     wgmma_int8_valid,
     wgmma_int8_launch},
};

} // namespace

const Form *forms_begin() {
  return std::begin(kForms);
}

const Form *forms_end() {
  return std::end(kForms);
}

const Form &form_of(Family family) {
  return kForms[static_cast<size_t>(family)];
}

const Form *form_named(const std::string &name) {
  for (const Form &form : kForms)
    if (name == form.name)
      return &form;
  return nullptr;
}

Params defaults_of(const Form &form) {
  Params params;
  for (const Value &value : form.defaults)
    if (value.name != nullptr)
      params[value.name] = value.value;
  return params;
}

Params over_defaults(const Form &form, const Params &set) {
  Params params = defaults_of(form);
  for (const auto &[name, value] : set)
    params[name] = value;
  return params;
}

std::vector<Tunable> tunables_of(const Form &form, Varies what) {
  std::vector<Tunable> tunables;
  for (const Values &values : form.tunables)
    if (values.name != nullptr && values.varies == what)
      tunables.push_back({values.name, std::vector<int64_t>(values.values.begin(),
                                                            values.values.begin() + values.count)});
  return tunables;
}

int64_t value_of(const Form &form, const Params &params, const char *name) {
  if (auto found = params.find(name); found != params.end())
    return found->second;
  for (const Value &value : form.defaults)
    if (value.name != nullptr && std::string_view(value.name) == name)
      return value.value;
  return 0;
}

bool is_tensor(Family family) {
  return family == Family::tensor_tf32 || family == Family::tensor_3xtf32 ||
         family == Family::tensor_fp64;
}

bool fp64_tensor_cores_of(uint32_t vendor_id, uint32_t compute_capability) {
  return vendor_id == 0x10DE && compute_capability == 90;
}

bool int8_tensor_cores_of(uint32_t vendor_id, uint32_t compute_capability) {
  return vendor_id == 0x10DE && compute_capability >= 80;
}

bool wgmma_of(uint32_t vendor_id, uint32_t compute_capability) {
  return vendor_id == 0x10DE && compute_capability == 90;
}

Family scheme_form(const DeviceLimits &limits) {
  return limits.int8_wgmma          ? Family::wgmma_int8
         : limits.int8_tensor_cores ? Family::tensor_int8
                                    : Family::integer_residues;
}

} // namespace mqlcl::gemm
