// The library's GEMM (bridge/src/gemm): copies of operands the products cannot read as they are.
//
// transpose(src, dst, offset, stride, ld, rows, cols, dst_ld): src holds `batch` matrices of
// rows x cols, row-major, rows ld elements apart, the first at element `offset`, each `stride`
// after the last; dst receives each as cols x rows, row-major, rows dst_ld apart, one matrix
// after another (cols * dst_ld elements each). An operand whose K runs down its columns (A
// transposed, or B as row-major K x N) is copied so, for the products that read K-contiguous
// lines. Launch: 3-D, global = (cols, rows) rounded up to TILE, then the batch; local =
// (TILE, TILE, 1). Through a TILE x (TILE + 1) local tile, so both the reads and the writes run
// along rows.
//
// pack(src, dst, offset, stride, ld, rows, cols, dst_ld): the same matrices copied as they are,
// rows dst_ld apart (rows * dst_ld elements per matrix): for tensor maps, whose rows must start
// on 16-byte boundaries. Launch: 3-D, global = (cols, rows) rounded up to TILE, then the batch.

#ifndef REALTYPE
#define REALTYPE float
#endif
#ifndef TILE
#define TILE 16
#endif
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1))) void
transpose(__global const REALTYPE *src, __global REALTYPE *dst, ulong offset, ulong stride, int ld,
          int rows, int cols, int dst_ld) {
  __local REALTYPE tile[TILE][TILE + 1];
  const size_t product = get_global_id(2);
  src += offset + product * stride;
  dst += product * (size_t)cols * dst_ld;
  const int x = get_local_id(0), y = get_local_id(1);
  const int col0 = get_group_id(0) * TILE, row0 = get_group_id(1) * TILE;

  if (row0 + y < rows && col0 + x < cols)
    tile[y][x] = src[(size_t)(row0 + y) * ld + col0 + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  // Work-item (x, y) now writes element (row0 + x, col0 + y) as dst's (col0 + y, row0 + x).
  if (col0 + y < cols && row0 + x < rows)
    dst[(size_t)(col0 + y) * dst_ld + row0 + x] = tile[x][y];
}

__kernel void pack(__global const REALTYPE *src, __global REALTYPE *dst, ulong offset,
                   ulong stride, int ld, int rows, int cols, int dst_ld) {
  const size_t product = get_global_id(2);
  const int col = get_global_id(0), row = get_global_id(1);
  if (row < rows && col < cols)
    dst[product * rows * (size_t)dst_ld + (size_t)row * dst_ld + col] =
        src[offset + product * stride + (size_t)row * ld + col];
}
