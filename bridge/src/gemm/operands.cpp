#include "gemm/operands.hpp"

#include "gemm/runtime.hpp"

#include <fmt/format.h>

namespace mqlcl::gemm {

namespace {

constexpr const char *kCopyFile = "transpose.cl"; // kernels/gemm/

Lines lines_as_stored(const Operand &operand, uint32_t lines, bool k_runs_down) {
  return Lines{&operand,       lines,      k_runs_down,   false, operand.buffer->memory,
               operand.offset, operand.ld, operand.stride};
}

// The copies' block side: 64 where the device takes it, else the largest that fits (16 needs 4 x 4
// work-items and under 2.2 KiB).
size_t copy_tile(const Device &device, size_t element) {
  for (size_t tile : {64, 32})
    if (copy_tile_fits(tile, element, device.max_work_group_size, device.kernel_local_mem_size))
      return tile;
  return 16;
}

} // namespace

bool copy_tile_fits(size_t tile, size_t element, size_t max_work_group_size,
                    uint64_t kernel_local_mem_size) {
  return (tile / 4) * (tile / 4) <= max_work_group_size &&
         tile * (tile + 1) * element <= kernel_local_mem_size;
}

CopyLaunch copy_launch(size_t tile, bool transposes, uint64_t rows, uint64_t cols,
                       uint32_t copies) {
  const size_t side = tile / 4;
  const auto cover = [&](uint64_t extent) {
    return transposes ? (extent + tile - 1) / tile * side : (extent + side - 1) / side * side;
  };
  // pack: a work-item per 4 adjacent elements of a row.
  return {{cover(transposes ? cols : (cols + 3) / 4), cover(rows), copies}, {side, side, 1}};
}

bool batch_shares_elements(uint64_t rows, uint64_t cols, uint64_t ld, uint64_t stride,
                           uint32_t batch) {
  if (batch < 2 || ld < cols || stride >= (rows - 1) * ld + cols) // (ld < cols: not a layout)
    return false;
  // Element (r1, c1) of matrix i + d is element (r2, c2) of matrix i when
  // d * stride = (r2 - r1) * ld + (c2 - c1); as |c2 - c1| < cols <= ld, r2 - r1 is the quotient
  // of d * stride by ld, or one more.
  for (uint64_t d = 1; d < batch; ++d) {
    const uint64_t distance = d * stride, row = distance / ld, col = distance % ld;
    if ((row < rows && col < cols) || (row + 1 < rows && ld - col < cols))
      return true;
  }
  return false;
}

bool lines_share_elements(const Call &call, const Lines &lines) {
  if (lines.stride == 0)
    return false;
  const uint64_t stored_rows = lines.k_runs_down ? call.k : lines.lines;
  const uint64_t stored_cols = lines.k_runs_down ? lines.lines : call.k;
  return batch_shares_elements(stored_rows, stored_cols, lines.ld, lines.stride, call.batch);
}

Lines lines_of_a(const Call &call) {
  return lines_as_stored(call.a, call.m, call.a.transposed);
}

Lines lines_of_b(const Call &call) {
  return lines_as_stored(call.b, call.n, !call.b.transposed);
}

namespace {

// Enqueues transpose.cl's `transpose` (or `pack`) of `rows` x `cols` of `operand` as stored into
// scratch `slot`, rows `pitch` apart; returns the scratch and the copy's stride.
std::pair<cl_mem, uint64_t> enqueue_copy(const Context &context, ContextState &state,
                                         const Call &call, const Operand &operand, uint64_t rows,
                                         uint64_t cols, bool transposes, uint64_t pitch,
                                         ScratchSlot slot, bool &first) {
  const size_t element = call.double_precision ? 8 : 4;
  const size_t tile = copy_tile(*context.device, element);
  // Where local memory is a part of global memory (CPUs), the transposes' local tile is only
  // overhead: each work-item moves its 4 x 4 block through registers instead, in the same launch.
  const bool in_registers = !context.device->dedicated_local_memory;
  cl_kernel kernel =
      kernel_for(context, state, kCopyFile,
                 fmt::format("-DREALTYPE={} -DTILE={} -DINDEX64={} -DIN_REGISTERS={}",
                             call.double_precision ? "double" : "float", tile, call.index64 ? 1 : 0,
                             in_registers ? 1 : 0),
                 transposes ? "transpose" : "pack");
  const uint32_t copies = operand.stride == 0 ? 1 : call.batch;
  const uint64_t matrix = (transposes ? cols : rows) * pitch;
  cl_mem copy = scratch(context, state, slot, matrix * copies * element);
  set_arg(kernel, 0, operand.buffer->memory);
  set_arg(kernel, 1, copy);
  set_arg(kernel, 2, cl_ulong(operand.offset));
  set_arg(kernel, 3, cl_ulong(operand.stride));
  const uint64_t extents[] = {operand.ld, rows, cols, pitch}; // index_t in the kernel
  for (cl_uint i = 0; i < 4; ++i)
    if (call.index64)
      set_arg(kernel, 4 + i, cl_long(extents[i]));
    else
      set_arg(kernel, 4 + i, cl_int(extents[i]));
  const CopyLaunch geometry = copy_launch(tile, transposes, rows, cols, copies);
  launch(context, state, kernel, 3, geometry.global, geometry.local, first);
  return {copy, operand.stride == 0 ? 0 : matrix};
}

} // namespace

void copy_as_k_lines(const Context &context, ContextState &state, const Call &call, Lines &lines,
                     ScratchSlot slot, uint64_t line_pitch, bool &first) {
  // As stored: K rows of `lines` columns, or `lines` rows of K.
  const uint32_t rows = lines.k_runs_down ? call.k : lines.lines;
  const uint32_t cols = lines.k_runs_down ? lines.lines : call.k;
  const auto [copy, stride] = enqueue_copy(context, state, call, *lines.operand, rows, cols,
                                           lines.k_runs_down, line_pitch, slot, first);
  lines.k_runs_down = false; // as the product reads the copy
  lines.copied = true;
  lines.memory = copy;
  lines.offset = 0;
  lines.ld = line_pitch;
  lines.stride = stride;
}

Operand packed_copy(const Context &context, ContextState &state, const Call &call,
                    const Operand &operand, uint64_t rows, uint64_t cols, uint64_t pitch,
                    ScratchSlot slot, bool &first) {
  const auto [copy, stride] =
      enqueue_copy(context, state, call, operand, rows, cols, false, pitch, slot, first);
  // A view of the context's scratch, which the view does not release: the call that reads it
  // holds the context's GEMM mutex, so the scratch outlives it.
  std::shared_ptr<Buffer> view(new Buffer, [](Buffer *buffer) {
    buffer->memory = nullptr;
    delete buffer;
  });
  view->memory = copy;
  view->size = state.scratch_bytes[static_cast<size_t>(slot)];
  return Operand{std::move(view), 0, pitch, stride, operand.transposed};
}

} // namespace mqlcl::gemm
