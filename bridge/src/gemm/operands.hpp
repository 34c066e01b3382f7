// Operands as the products read them: lines of K (A's rows, B's columns), and the copies made
// where a product cannot read the caller's layout (K running down the stored rows, or rows that
// do not start where a tensor map needs them).
#pragma once

#include "gemm/gemm.hpp"

namespace mqlcl::gemm {

// `lines` lines of K of `operand`, from `memory` at offset, ld and stride (elements).
// `k_runs_down`: stored K x lines, K running down the stored rows.
struct Lines {
  const Operand *operand = nullptr;
  uint32_t lines = 0;
  bool k_runs_down = false;
  bool copied = false; // `memory` is a scratch copy
  cl_mem memory = nullptr;
  uint64_t offset = 0, ld = 0, stride = 0;
};

// Whether two matrices of a strided batch share an element: `batch` matrices of rows x cols,
// rows ld (>= cols) apart, each `stride` elements after the last. Exact: matrices that interleave
// without sharing an element (heads side by side, ld a multiple of the stride) do not overlap.
bool batch_shares_elements(uint64_t rows, uint64_t cols, uint64_t ld, uint64_t stride,
                           uint32_t batch);

// Whether the batch's distinct matrices of `lines`, as stored, share elements (a sliding window):
// such an operand is read in place, never copied, since its copy would repeat the shared elements
// once per product. A batch that shares one matrix (stride 0) is not one: it is copied once.
bool lines_share_elements(const Call &call, const Lines &lines);

// A's lines are its rows, stored K x M when transposed; B's are its columns, stored K x N
// unless transposed.
Lines lines_of_a(const Call &call);
Lines lines_of_b(const Call &call);

// kernels/gemm/transpose.cl's launches. A TILE x TILE block per work-group of (TILE / 4)^2
// work-items: whether a device takes it (work-items, and the local tile of elements of `element`
// bytes), and the geometry of `transpose` (a work-item per 4 x 4 elements of each block) or `pack`
// (one per 4 adjacent elements of a row) over `copies` matrices of rows x cols as stored.
bool copy_tile_fits(size_t tile, size_t element, size_t max_work_group_size,
                    uint64_t kernel_local_mem_size);
struct CopyLaunch {
  size_t global[3], local[3];
};
CopyLaunch copy_launch(size_t tile, bool transposes, uint64_t rows, uint64_t cols, uint32_t copies);

// Copies `lines` into scratch `slot` as K-contiguous lines, `line_pitch` (>= K) elements apart,
// the batch's matrices packed one after another (one copy where the batch shares the matrix),
// and points `lines` at the copy. Enqueued before the product, in the call's timing.
void copy_as_k_lines(const Context &context, ContextState &state, const Call &call, Lines &lines,
                     ScratchSlot slot, uint64_t line_pitch, bool &first);

// Copies `rows` x `cols` of `operand` as stored (each matrix of the call's batch, one where the
// batch shares it) into scratch `slot`, rows `pitch` (>= cols) apart, and returns the copy as an
// operand of the same orientation, whose Buffer is a view of the scratch. Enqueued before the
// product, in the call's timing.
Operand packed_copy(const Context &context, ContextState &state, const Call &call,
                    const Operand &operand, uint64_t rows, uint64_t cols, uint64_t pitch,
                    ScratchSlot slot, bool &first);

} // namespace mqlcl::gemm
