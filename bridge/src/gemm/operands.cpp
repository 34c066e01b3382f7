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

} // namespace

Lines lines_of_a(const Call &call) {
  return lines_as_stored(call.a, call.m, call.a.transposed);
}

Lines lines_of_b(const Call &call) {
  return lines_as_stored(call.b, call.n, !call.b.transposed);
}

void copy_as_k_lines(const Context &context, ContextState &state, const Call &call, Lines &lines,
                     ScratchSlot slot, uint64_t line_pitch, bool &first) {
  const Operand &operand = *lines.operand;
  const size_t element = call.double_precision ? 8 : 4;
  // 32 x 8 work-items where the device takes them, else 8 x 8 (TILE / TILE_ROWS elements each).
  const size_t tile = context.device->max_work_group_size >= 256 ? 32 : 8;
  const size_t tile_rows = 8;
  const char *name = lines.k_runs_down ? "transpose" : "pack";
  cl_kernel kernel =
      kernel_for(context, state, kCopyFile,
                 fmt::format("-DREALTYPE={} -DTILE={} -DTILE_ROWS={}",
                             call.double_precision ? "double" : "float", tile, tile_rows),
                 name);
  const uint32_t copies = operand.stride == 0 ? 1 : call.batch;
  const uint64_t matrix = uint64_t(lines.lines) * line_pitch;
  cl_mem copy = scratch(context, state, slot, matrix * copies * element);
  // As stored: K rows of `lines` columns, or `lines` rows of K.
  const uint32_t rows = lines.k_runs_down ? call.k : lines.lines;
  const uint32_t cols = lines.k_runs_down ? lines.lines : call.k;
  set_arg(kernel, 0, operand.buffer->memory);
  set_arg(kernel, 1, copy);
  set_arg(kernel, 2, cl_ulong(operand.offset));
  set_arg(kernel, 3, cl_ulong(operand.stride));
  set_arg(kernel, 4, cl_int(operand.ld));
  set_arg(kernel, 5, cl_int(rows));
  set_arg(kernel, 6, cl_int(cols));
  set_arg(kernel, 7, cl_int(line_pitch));
  // transpose: a work-item per TILE / TILE_ROWS elements of a column; pack: one per element.
  const size_t rows_covered = lines.k_runs_down ? (rows + tile - 1) / tile * tile_rows : rows;
  const size_t global[3] = {(cols + tile - 1) / tile * tile,
                            (rows_covered + tile_rows - 1) / tile_rows * tile_rows, copies};
  const size_t local[3] = {tile, tile_rows, 1};
  launch(context, state, kernel, 3, global, local, first);
  lines.k_runs_down = false; // as the product reads the copy
  lines.copied = true;
  lines.memory = copy;
  lines.offset = 0;
  lines.ld = line_pitch;
  lines.stride = operand.stride == 0 ? 0 : matrix;
}

} // namespace mqlcl::gemm
