#include "gemm/edges.hpp"

#include "gemm/operands.hpp"
#include "gemm/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace mqlcl::gemm {

namespace {

constexpr const char *kThinFile = "thin.cl"; // kernels/gemm/

// Most work-items of one thin.cl work-group, and how many lines of the block one work-item
// updates in K's rest.
constexpr size_t kMaxThreads = 1024;
constexpr uint32_t kRankRows = 8;

// How far apart, as stored, an operand's neighbouring lines (A's rows, B's columns: operands.hpp)
// and neighbouring elements along K are; for C, its rows and columns.
struct Strides {
  uint64_t line = 0, k = 0;
};

Strides strides_of(const Lines &lines) {
  return lines.k_runs_down ? Strides{1, lines.ld} : Strides{lines.ld, 1};
}

// One piece for thin.cl: C[p][q] = alpha * sum_k X[p][k] Y[k][q] + beta * C[p][q], X's lines
// along P and Y's along Q.
struct Piece {
  uint32_t p = 0, q = 0, k = 0;
  const Operand *x = nullptr, *y = nullptr;
  uint64_t offset_x = 0, offset_y = 0, offset_c = 0;
  Strides x_lines, y_lines;
  uint64_t c_p = 0, c_q = 0;
  double beta = 0;
  bool rank_update = false; // K's rest: short K, long P
};

// How thin.cl's work-groups cover a piece (the kernel's ROWS, WIDTH, SPLIT, LANES_ALONG_K).
struct ThinShape {
  uint32_t rows = 1;
  size_t width = 1, split = 1;
  bool lanes_along_k = false;
};

size_t largest_power_of_two_up_to(size_t limit) {
  size_t value = 1;
  while (value * 2 <= limit)
    value *= 2;
  return value;
}

// K's rest (short K): a work-item per element of Q and kRankRows lines, no sums across work-items.
// A strip (long K): K split across the work-group, neighbouring work-items on neighbouring
// elements of the long operand: along K where it is stored K-contiguous, else along Q; its sums
// take rows * (threads + split) elements of local memory.
ThinShape thin_shape(const DeviceLimits &device, const Piece &piece, size_t element) {
  const size_t most = largest_power_of_two_up_to(
      std::min<uint64_t>({kMaxThreads, device.max_work_group_size, device.max_work_item_size0}));
  if (piece.rank_update)
    return ThinShape{kRankRows, std::min<size_t>(most, 256), 1, false};
  ThinShape shape{piece.p, 1, 1, piece.y_lines.k == 1 && piece.y_lines.line != 1};
  for (size_t threads = most; threads >= 64; threads /= 2) {
    shape.split = shape.lanes_along_k ? 32 : threads / 32;
    shape.width = threads / shape.split;
    if (shape.rows * element * (threads + shape.split) <= device.kernel_local_bytes)
      return shape;
  }
  return ThinShape{piece.p, most, 1, false}; // too few work-items to split K
}

ThinShape shape_of(const Context &context, const Call &call, const Piece &piece) {
  return thin_shape(limits_of(*context.device), piece, call.double_precision ? 8 : 4);
}

// The piece's kernel, built on first use and kept by the context (runtime.hpp).
cl_kernel thin_kernel(const Context &context, ContextState &state, const Call &call,
                      const ThinShape &shape) {
  return kernel_for(
      context, state, kThinFile,
      fmt::format("-DREALTYPE={} -DROWS={} -DWIDTH={} -DSPLIT={} -DLANES_ALONG_K={} -DINDEX64={}",
                  call.double_precision ? "double" : "float", shape.rows, shape.width, shape.split,
                  shape.lanes_along_k ? 1 : 0, call.index64 ? 1 : 0),
      "thin");
}

void run_piece(const Context &context, ContextState &state, const Call &call, const Piece &piece,
               bool &first) {
  const ThinShape shape = shape_of(context, call, piece);
  cl_kernel kernel = thin_kernel(context, state, call, shape);
  set_arg(kernel, 0, piece.x->buffer->memory);
  set_arg(kernel, 1, piece.y->buffer->memory);
  set_arg(kernel, 2, call.c.buffer->memory);
  const uint64_t offsets[] = {piece.offset_x,  piece.offset_y,  piece.offset_c,
                              piece.x->stride, piece.y->stride, call.c.stride};
  for (cl_uint i = 0; i < 6; ++i)
    set_arg(kernel, 3 + i, cl_ulong(offsets[i]));
  const uint64_t extents[] = {piece.p,
                              piece.q,
                              piece.k,
                              piece.x_lines.line,
                              piece.x_lines.k,
                              piece.y_lines.k,
                              piece.y_lines.line,
                              piece.c_p,
                              piece.c_q};
  for (cl_uint i = 0; i < 9; ++i)
    if (call.index64)
      set_arg(kernel, 9 + i, cl_long(extents[i]));
    else
      set_arg(kernel, 9 + i, cl_int(extents[i]));
  if (call.double_precision) {
    set_arg(kernel, 18, call.alpha);
    set_arg(kernel, 19, piece.beta);
  } else {
    set_arg(kernel, 18, float(call.alpha));
    set_arg(kernel, 19, float(piece.beta));
  }
  const size_t threads = shape.width * shape.split;
  const size_t global[3] = {round_up(piece.q, shape.width) / shape.width * threads,
                            round_up(piece.p, shape.rows) / shape.rows, call.batch};
  const size_t local[3] = {threads, 1, 1};
  launch(context, state, kernel, 3, global, local, first);
}

// The pieces past the block: K's rest (added to the block), the last rows (every column), and the
// last columns of the block's rows (C^T = B^T A^T: B's lines along P, A's along Q).
std::vector<Piece> pieces_of(const Call &call, const EdgeSplit &split) {
  const Strides a = strides_of(lines_of_a(call)), b = strides_of(lines_of_b(call));
  const uint64_t ldc = call.c.ld;
  std::vector<Piece> pieces;
  if (split.k < call.k)
    pieces.push_back(Piece{split.m, split.n, call.k - split.k, &call.a, &call.b,
                           call.a.offset + split.k * a.k, call.b.offset + split.k * b.k,
                           call.c.offset, a, b, ldc, 1, 1.0, true});
  if (split.m < call.m)
    pieces.push_back(Piece{call.m - split.m, call.n, call.k, &call.a, &call.b,
                           call.a.offset + split.m * a.line, call.b.offset,
                           call.c.offset + split.m * ldc, a, b, ldc, 1, call.beta});
  if (split.n < call.n)
    pieces.push_back(Piece{call.n - split.n, split.m, call.k, &call.b, &call.a,
                           call.b.offset + split.n * b.line, call.a.offset, call.c.offset + split.n,
                           b, a, 1, ldc, call.beta});
  return pieces;
}

} // namespace

std::optional<EdgeSplit> edge_split(const Call &call, const Plan &plan,
                                    EnvironmentReader environment) {
  const std::string mode = environment("MQLCL_GEMM_EDGES");
  if (plan.family != Family::tiles || mode == "tiles")
    return std::nullopt;
  const Form &form = form_of(Family::tiles);
  const auto whole = [&](uint32_t size, const char *tile) {
    const auto side = uint32_t(value_of(form, plan.params, tile));
    return size / side * side;
  };
  const EdgeSplit split{whole(call.m, "BM"), whole(call.n, "BN"), whole(call.k, "BK")};
  if (split.m == 0 || split.n == 0 || split.k == 0 || call.m - split.m > kThinLines ||
      call.n - split.n > kThinLines ||
      (split.m == call.m && split.n == call.n && split.k == call.k))
    return std::nullopt;
  if (mode != "split" && double(call.m) * call.n * call.k * call.batch < kSplitEdgesFrom)
    return std::nullopt;
  return split;
}

Call block_of(const Call &call, const EdgeSplit &split) {
  Call block = call;
  block.m = split.m;
  block.n = split.n;
  block.k = split.k;
  return block;
}

Call aligned_block(const Context &context, ContextState &state, Call block, bool a_copied,
                   bool b_copied, bool &first) {
  const bool batched = block.batch > 1;
  const auto aligned = [&](const Operand &operand) {
    return operand.offset % 4 == 0 && operand.ld % 4 == 0 && (!batched || operand.stride % 4 == 0);
  };
  // As stored: A is M x K (K x M transposed), B is K x N (N x K transposed). A copy larger than
  // one allocation of the device is not made: the block then reads the operand in place.
  const auto copy = [&](Operand &operand, uint32_t rows, uint32_t cols, ScratchSlot slot,
                        bool copied) {
    if (copied || aligned(operand))
      return;
    if (operand.transposed)
      std::swap(rows, cols);
    const uint64_t pitch = round_up(cols, 4);
    const uint64_t bytes =
        (operand.stride == 0 ? 1 : block.batch) * rows * pitch * (block.double_precision ? 8 : 4);
    if (bytes <= context.device->max_mem_alloc_size)
      operand = packed_copy(context, state, block, operand, rows, cols, pitch, slot, first);
  };
  copy(block.a, block.m, block.k, ScratchSlot::a_block, a_copied);
  copy(block.b, block.k, block.n, ScratchSlot::b_block, b_copied);
  return block;
}

void build_thin_edges(const Context &context, ContextState &state, const Call &call,
                      const EdgeSplit &split) {
  for (const Piece &piece : pieces_of(call, split))
    thin_kernel(context, state, call, shape_of(context, call, piece));
}

void run_thin_edges(const Context &context, ContextState &state, const Call &call,
                    const EdgeSplit &split, bool &first) {
  for (const Piece &piece : pieces_of(call, split))
    run_piece(context, state, call, piece, first);
}

std::string edges_text(const Call &call, const EdgeSplit &split) {
  std::string parts;
  const auto add = [&](const std::string &part) { parts += (parts.empty() ? "" : ", ") + part; };
  if (split.k < call.k)
    add(fmt::format("K {}..{}", split.k, call.k - 1));
  if (split.m < call.m)
    add(fmt::format("rows {}..{}", split.m, call.m - 1));
  if (split.n < call.n)
    add(fmt::format("columns {}..{}", split.n, call.n - 1));
  return fmt::format(" + thin.cl for {} (block {} x {} x {})", parts, split.m, split.n, split.k);
}

} // namespace mqlcl::gemm
