// The library's GEMM (bridge/src/gemm): copies of operands the products cannot read as they are.
//
// transpose(src, dst, offset, stride, ld, rows, cols, dst_ld): src holds `batch` matrices of
// rows x cols, row-major, rows ld elements apart, the first at element `offset`, each `stride`
// after the last; dst receives each as cols x rows, row-major, rows dst_ld apart, one matrix
// after another (cols * dst_ld elements each). An operand whose K runs down its columns (A
// transposed, or B as row-major K x N) is copied so, for the products that read K-contiguous
// lines. Launch: 3-D, global = (cols rounded up to TILE, rows rounded up to TILE, divided by
// TILE / TILE_ROWS), then the batch; local = (TILE, TILE_ROWS, 1).
//
// pack(src, dst, offset, stride, ld, rows, cols, dst_ld): the same matrices copied as they are,
// rows dst_ld apart (rows * dst_ld elements per matrix): for tensor maps, whose rows must start
// on 16-byte boundaries. Launch: 3-D, global = (cols, rows) rounded up to (TILE, TILE_ROWS), then
// the batch; local = (TILE, TILE_ROWS, 1).

#ifndef REALTYPE
#define REALTYPE float
#endif
#ifndef TILE // a TILE x TILE block per work-group
#define TILE 32
#endif
#ifndef TILE_ROWS // work-items per column of the block, each moving TILE / TILE_ROWS elements
#define TILE_ROWS 8
#endif
#ifndef INDEX64 // 1: ld, rows, cols and dst_ld are longs, for sizes whose indices pass 2^31 (the
#define INDEX64 0 // library sets it per call); 0: ints, and 32-bit index arithmetic
#endif
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if INDEX64
typedef long index_t;
#else
typedef int index_t;
#endif

// Each work-group moves a TILE x TILE block with TILE x TILE_ROWS work-items, TILE / TILE_ROWS
// elements each, through a TILE x (TILE + 1) local tile: reads and writes run along rows, and the
// padding keeps the column reads off one bank. (16 x 16 blocks of one element per work-item ran
// at about 1.3 TB/s on an H100.)
__kernel __attribute__((reqd_work_group_size(TILE, TILE_ROWS, 1))) void
transpose(__global const REALTYPE *src, __global REALTYPE *dst, ulong offset, ulong stride,
          index_t ld, index_t rows, index_t cols, index_t dst_ld) {
  __local REALTYPE tile[TILE][TILE + 1];
  const size_t product = get_global_id(2);
  src += offset + product * stride;
  dst += product * (size_t)cols * dst_ld;
  const int x = get_local_id(0), y = get_local_id(1);
  const index_t col0 = (index_t)get_group_id(0) * TILE, row0 = (index_t)get_group_id(1) * TILE;

  for (int r = y; r < TILE; r += TILE_ROWS)
    if (row0 + r < rows && col0 + x < cols)
      tile[r][x] = src[(size_t)(row0 + r) * ld + col0 + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  // Element (row0 + x, col0 + r) goes to dst's (col0 + r, row0 + x).
  for (int r = y; r < TILE; r += TILE_ROWS)
    if (col0 + r < cols && row0 + x < rows)
      dst[(size_t)(col0 + r) * dst_ld + row0 + x] = tile[x][r];
}

__kernel void pack(__global const REALTYPE *src, __global REALTYPE *dst, ulong offset,
                   ulong stride, index_t ld, index_t rows, index_t cols, index_t dst_ld) {
  const size_t product = get_global_id(2);
  const index_t col = get_global_id(0), row = get_global_id(1);
  if (row < rows && col < cols)
    dst[product * rows * (size_t)dst_ld + (size_t)row * dst_ld + col] =
        src[offset + product * stride + (size_t)row * ld + col];
}
