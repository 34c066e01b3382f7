#include "gemm/tensor_cores.hpp"

#include "cl_api.hpp"
#include "cuda_driver.hpp"
#include "errors.hpp"
#include "gemm/maps.hpp"
#include "gemm/operands.hpp"
#include "gemm/planner.hpp"
#include "gemm/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace mqlcl::gemm {

namespace {

constexpr size_t kPassGroup = 256;

uint32_t param(const Plan &plan, const char *name) {
  return static_cast<uint32_t>(plan.params.at(name));
}

// A map reads lines as they are when K is contiguous and the rows are aligned.
bool mappable(const Lines &lines, uint32_t batch) {
  return !lines.k_runs_down && rows_aligned(lines, batch, 4);
}

// The TF32 product reads B stored K x N through a map as it is (B_MN) where its rows are aligned.
bool b_mn_mappable(const Call &call, const Lines &b) {
  return call.precision == Precision::tf32 && b.k_runs_down && rows_aligned(b, call.batch, 4);
}

bool reads_b_as_stored(const Plan &plan) {
  const auto b_mn = plan.params.find("B_MN");
  return b_mn != plan.params.end() && b_mn->second == 1;
}

// Which operands the product copies before it reads them (a, b: K-contiguous copies) and which it
// does not read as the caller stored them (a_rewritten, b_rewritten: copied or laid out by a
// pass, once per product of the batch). Through maps: the operands a map cannot read as they are;
// for 3xTF32, B always, by its pass, after a copy where K runs down B's rows. Without maps: both,
// by the passes; tile_lines reads K down the rows itself, B's split pass after a copy. B read as
// stored (`b_as_stored`, B_MN) is neither.
struct Copies {
  bool a = false, b = false;
  bool a_rewritten = false, b_rewritten = false;
};

Copies copies_of(const Call &call, const Lines &a, const Lines &b, bool tensor_maps,
                 bool b_as_stored = false) {
  const bool three = call.precision != Precision::tf32;
  Copies copies;
  copies.a = tensor_maps && !mappable(a, call.batch);
  copies.b = three ? b.k_runs_down : tensor_maps && !b_as_stored && !mappable(b, call.batch);
  copies.a_rewritten = copies.a || !tensor_maps;
  copies.b_rewritten = copies.b || three || !tensor_maps;
  return copies;
}

// B's pass, 3xTF32: B's lines in tiles of BN lines, zero-padded to whole fills of BK.
struct PassShape {
  uint64_t line_chunks = 0;    // work-items per line: 4 values of K each
  uint64_t product_floats = 0; // per product of the batch
  uint64_t work_items = 0;     // per product
};

PassShape pass_shape(const Call &call, const Plan &plan) {
  const uint64_t bk = param(plan, "BK"), bn = param(plan, "BN");
  const uint64_t fills = (call.k + bk - 1) / bk, blocks = (call.n + bn - 1) / bn;
  PassShape shape;
  shape.line_chunks = fills * bk / 4;
  shape.product_floats = blocks * (fills * bk / 8) * bn * 16;
  shape.work_items = blocks * bn * shape.line_chunks;
  return shape;
}

std::string product_options(const Call &call, const Plan &plan, const Lines &a, const Lines &b) {
  const bool c_pairs = call.c.ld % 2 == 0 && call.c.offset % 2 == 0 && call.c.stride % 2 == 0;
  const bool b_aligned = b.offset % 4 == 0 && b.stride % 4 == 0;
  const bool a_shared = call.batch > 1 && a.stride == 0, b_shared = call.batch > 1 && b.stride == 0;
  std::string options =
      fmt::format("-DGEMM=1 -DROWS1={} -DCOLS2={} -DCOLSROWS={} -DLDB={} -DLDC={} -DC_PAIRS={} "
                  "-DB_ALIGNED={} -DA_TILES_SHARED={} -DB_TILES_SHARED={}",
                  call.m, call.n, call.k, b.ld, call.c.ld, c_pairs ? 1 : 0, b_aligned ? 1 : 0,
                  a_shared ? 1 : 0, b_shared ? 1 : 0);
  for (const auto &[name, value] : plan.params)
    options += fmt::format(" -D{}={}", name, value);
  return options;
}

// A map of `lines`' stored rows: lines of K, a box of box_lines lines by BK (`box_k`), the
// swizzle of its rows; or, where K runs down the stored rows (B_MN), K rows of lines, a box of BK
// rows by 32 lines (128 bytes, the 128-byte swizzle).
TensorMapRequest map_request(const Lines &lines, uint32_t k, uint32_t box_lines, uint32_t box_k,
                             bool tf32) {
  TensorMapRequest request;
  request.rows = lines.k_runs_down ? k : lines.lines;
  request.cols = lines.k_runs_down ? lines.lines : k;
  request.row_pitch = lines.ld * 4;
  request.box_rows = lines.k_runs_down ? box_k : box_lines;
  request.box_cols = lines.k_runs_down ? 32 : box_k;
  request.swizzle = request.box_cols * 4;
  request.element = tf32 ? TensorElement::tf32 : TensorElement::float32;
  return request;
}

// The batch's maps for this product (maps.hpp): A's, and B's where `map_b`. With B_MN the
// work-group's BN rows of C are A's box, its BM columns B's boxes of 32.
cl_mem maps_for(Context &context, ContextState &state, const Call &call, const Plan &plan,
                const Lines &a, const Lines &b, bool map_b) {
  const bool tf32 = plan.family == Family::tensor_tf32, b_mn = reads_b_as_stored(plan);
  const uint32_t bk = param(plan, "BK");
  const uint32_t a_box = param(plan, b_mn ? "BN" : "BM"), b_box = param(plan, "BN");
  const OperandMap a_map{&a, ScratchSlot::a, map_request(a, call.k, a_box, bk, tf32)};
  const OperandMap b_map{&b, ScratchSlot::b, map_request(b, call.k, b_box, bk, tf32)};
  return kept_maps(context, state, call, &a_map, map_b ? &b_map : nullptr);
}

// The product's kernels and its passes, from one program: B's split pass for 3xTF32, and
// tile_lines where the product reads no maps.
struct TensorKernels {
  cl_kernel product = nullptr, pass = nullptr, lines = nullptr;
};

TensorKernels build_kernels(const Context &context, ContextState &state, const Call &call,
                            const Plan &plan, const Lines &a_as_read, const Lines &b_as_read) {
  const std::string options = product_options(call, plan, a_as_read, b_as_read);
  const char *file = kernel_file_of(plan.family);
  TensorKernels kernels;
  kernels.product = kernel_for(context, state, file, options, "matricesMul", true);
  if (plan.family == Family::tensor_3xtf32)
    kernels.pass = kernel_for(context, state, file, options, "tile_operand", true);
  if (param(plan, "TMA") == 0)
    kernels.lines = kernel_for(context, state, file, options, "tile_lines", true);
  return kernels;
}

// 3xTF32: B's lines split and tiled into scratch, as the product reads them.
cl_mem enqueue_pass(const Context &context, ContextState &state, const Call &call, const Plan &plan,
                    cl_kernel pass, const Lines &b, bool &first) {
  const PassShape shape = pass_shape(call, plan);
  const uint32_t copies = b.stride == 0 ? 1 : call.batch;
  cl_mem tiles = scratch(context, state, ScratchSlot::b_tiles, shape.product_floats * copies * 4);
  set_arg(pass, 0, b.memory);
  set_arg(pass, 1, tiles);
  set_arg(pass, 2, cl_int(call.n));
  set_arg(pass, 3, cl_int(param(plan, "BN")));
  set_arg(pass, 4, cl_ulong(b.offset));
  set_arg(pass, 5, cl_ulong(b.stride));
  const size_t global[2] = {round_up(shape.work_items, kPassGroup), copies};
  const size_t local[2] = {kPassGroup, 1};
  launch(context, state, pass, 2, global, local, first);
  return tiles;
}

// Without maps: `lines` (K down the stored rows or not) laid out by tile_lines into scratch `slot`
// in the tiles a map's copies would write, blocks of `block` lines (BM for A, BN for B), FILLS
// slices of BK deep each.
cl_mem enqueue_tile_lines(const Context &context, ContextState &state, const Call &call,
                          const Plan &plan, cl_kernel pass, const Lines &lines, uint32_t block,
                          ScratchSlot slot, bool &first) {
  const uint64_t bk = param(plan, "BK");
  const uint64_t padded_lines = round_up(lines.lines, block),
                 line_chunks = round_up(call.k, bk) / 4;
  const uint32_t copies = lines.stride == 0 ? 1 : call.batch;
  cl_mem tiles = scratch(context, state, slot, padded_lines * line_chunks * 4 * copies * 4);
  set_arg(pass, 0, lines.memory);
  set_arg(pass, 1, tiles);
  set_arg(pass, 2, cl_int(lines.lines));
  set_arg(pass, 3, cl_int(block));
  set_arg(pass, 4, cl_ulong(lines.offset));
  set_arg(pass, 5, cl_ulong(lines.stride));
  set_arg(pass, 6, cl_ulong(lines.ld));
  set_arg(pass, 7, cl_int(lines.k_runs_down ? 1 : 0));
  const size_t global[2] = {round_up(padded_lines * line_chunks, kPassGroup), copies};
  const size_t local[2] = {kPassGroup, 1};
  launch(context, state, pass, 2, global, local, first);
  return tiles;
}

// A K-contiguous copy's layout, for the build options: lines `pitch` apart, packed per product.
Lines as_copied(const Lines &lines, uint64_t pitch) {
  return Lines{lines.operand, lines.lines, false, true,
               nullptr,       0,           pitch, lines.stride == 0 ? 0 : lines.lines * pitch};
}

// A plan's kernels, and the operands as they read them (copied, lines `pitch` apart, where the
// plan copies them).
struct Prepared {
  Copies copies;
  Lines a_as_read, b_as_read;
  TensorKernels kernels;
};

Prepared prepare(const Context &context, ContextState &state, const Call &call, const Plan &plan,
                 const Lines &a, const Lines &b, bool maps, uint64_t pitch) {
  Prepared prepared;
  prepared.copies = copies_of(call, a, b, maps, reads_b_as_stored(plan));
  prepared.a_as_read = prepared.copies.a ? as_copied(a, pitch) : a;
  prepared.b_as_read = prepared.copies.b ? as_copied(b, pitch) : b;
  prepared.kernels =
      build_kernels(context, state, call, plan, prepared.a_as_read, prepared.b_as_read);
  return prepared;
}

// The product through tensor maps, or, where `no_maps` says why there are none, after passes.
void run_product_with(Context &context, ContextState &state, const Call &call,
                      const std::string &no_maps, bool &first) {
  const Shape shape{call.m, call.n, call.k, call.batch, 4};
  const bool three = call.precision != Precision::tf32, maps = no_maps.empty();
  const Family family = three ? Family::tensor_3xtf32 : Family::tensor_tf32;
  const DeviceLimits limits = limits_of(*context.device);
  Lines a = lines_of_a(call), b = lines_of_b(call);
  const bool b_mn_map = b_mn_mappable(call, b);
  Plan plan = tensor_plan(limits, shape, family, tuned_for(context, state, call, step_of(family)),
                          maps, b_mn_map);
  const uint64_t pitch = round_up(call.k, 4); // of the K-contiguous copies
  Prepared prepared;
  try {
    prepared = prepare(context, state, call, plan, a, b, maps, pitch);
  } catch (const Failure &) {
    if (plan.origin == "defaults")
      throw;
    plan = tensor_plan(limits, shape, family, std::nullopt, maps, b_mn_map); // a set that fails
    prepared = prepare(context, state, call, plan, a, b, maps, pitch);
  }
  const Copies &copies = prepared.copies;
  const TensorKernels &kernels = prepared.kernels;
  state.last_plan = plan_text(plan);
  if (!maps) // CL_GEMM_PLAN says why the tiles come from passes
    state.last_plan.insert(state.last_plan.size() - 1, "; no tensor maps: " + no_maps);

  if (copies.a)
    copy_as_k_lines(context, state, call, a, ScratchSlot::a, pitch, first);
  if (copies.b)
    copy_as_k_lines(context, state, call, b, ScratchSlot::b, pitch, first);
  cl_mem operand_a = a.memory, operand_b = b.memory, tensor_maps = nullptr;
  if (maps)
    tensor_maps = maps_for(context, state, call, plan, a, b, !three);
  else
    operand_a = enqueue_tile_lines(context, state, call, plan, kernels.lines, a, param(plan, "BM"),
                                   ScratchSlot::a_tiles, first);
  if (three)
    operand_b = enqueue_pass(context, state, call, plan, kernels.pass, b, first);
  else if (!maps)
    operand_b = enqueue_tile_lines(context, state, call, plan, kernels.lines, b, param(plan, "BN"),
                                   ScratchSlot::b_tiles, first);
  cl_uint arg = 0;
  set_arg(kernels.product, arg++, operand_a);
  set_arg(kernels.product, arg++, operand_b);
  set_arg(kernels.product, arg++, call.c.buffer->memory);
  if (maps)
    set_arg(kernels.product, arg++, tensor_maps);
  set_arg(kernels.product, arg++, cl_ulong(call.c.offset));
  set_arg(kernels.product, arg++, cl_ulong(call.c.stride));
  set_arg(kernels.product, arg++, static_cast<float>(call.alpha));
  set_arg(kernels.product, arg, static_cast<float>(call.beta));
  launch(context, state, kernels.product, plan.launch.dimensions, plan.launch.global.data(),
         plan.launch.local.data(), first);
}

} // namespace

bool offers_tensor_cores(const Device &device) {
  return device.vendor_id == 0x10DE && device.compute_capability == 90;
}

bool fits_tensor_cores(const Call &call, bool tensor_maps) {
  constexpr uint64_t kIndexLimit = uint64_t{1} << 31;
  // The passes' work-items: B's split pass, and without maps tile_lines over A and B (blocks of
  // at most 256 lines, whole 32-deep slices).
  const uint64_t lines = tensor_maps ? call.n : std::max(call.m, call.n);
  const uint64_t pass_items = round_up(lines, tensor_maps ? 128 : 256) * round_up(call.k, 32) / 4;
  if (call.m >= kIndexLimit || call.n >= kIndexLimit || call.k >= kIndexLimit ||
      pass_items >= kIndexLimit)
    return false;
  const Lines a = lines_of_a(call), b = lines_of_b(call);
  const Copies copies = copies_of(call, a, b, tensor_maps);
  return !(copies.a_rewritten && lines_share_elements(call, a)) &&
         !(copies.b_rewritten && lines_share_elements(call, b));
}

bool run_tensor_core_product(Context &context, ContextState &state, const Call &call, bool &first) {
  std::string no_maps = tensor_maps_missing(state); // read once: the switch may change meanwhile
  if (!fits_tensor_cores(call, no_maps.empty()))
    return false;
  if (no_maps.empty()) {
    try {
      run_product_with(context, state, call, no_maps, first);
      return true;
    } catch (const Failure &failure) {
      if (failure.code() != MQLCL_ERR_OPENCL_NOT_SUPPORTED)
        throw;
      // The driver loaded but wrote no map for this device: what was enqueued wrote only
      // scratch buffers; from now on the context lays its tiles out by passes.
      state.maps_refused = no_maps = failure.message();
    }
    if (!fits_tensor_cores(call, false))
      return false;
  }
  run_product_with(context, state, call, no_maps, first);
  return true;
}

std::optional<std::string>
exact_product_faster(const Call &call, const std::function<std::optional<Tuned>()> &measure) {
  if (call.double_precision || call.precision != Precision::accurate || call.batch != 1)
    return std::nullopt;
  const std::optional<Tuned> measured = measure();
  if (!measured)
    return std::nullopt;
  const auto said = measured->entry.params.find(kExactFasterParam);
  if (said == measured->entry.params.end() || said->second != 1)
    return std::nullopt;
  return fmt::format("the FP32 product: measured faster than 3xTF32 ({})", measured->origin);
}

} // namespace mqlcl::gemm
