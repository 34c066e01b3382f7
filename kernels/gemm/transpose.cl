// The library's GEMM (bridge/src/gemm): copies of operands the products cannot read as they are.
//
// transpose(src, dst, offset, stride, ld, rows, cols, dst_ld): src holds `batch` matrices of
// rows x cols, row-major, rows ld elements apart, the first at element `offset`, each `stride`
// after the last; dst receives each as cols x rows, row-major, rows dst_ld apart, one matrix
// after another (cols * dst_ld elements each). An operand whose K runs down its columns (A
// transposed, or B as row-major K x N) is copied so, for the products that read K-contiguous
// lines. Launch: 3-D, global = (cols, rows) rounded up to TILE and divided by 4, then the batch;
// local = (TILE / 4, TILE / 4, 1). With IN_REGISTERS 1 (devices whose local memory is a part of
// global memory: CPUs), the same launch moves each work-item's 4 x 4 block through registers, with
// no local tile and no barrier.
//
// pack(src, dst, offset, stride, ld, rows, cols, dst_ld): the same matrices copied as they are,
// rows dst_ld apart (rows * dst_ld elements per matrix): for tensor maps, whose rows must start
// on 16-byte boundaries, and for step 13's whole tiles (bridge/src/gemm/edges.hpp). Launch: 3-D,
// global = (cols / 4 rounded up, rows) rounded up to the local size, then the batch; any local
// size.

#ifndef REALTYPE
#define REALTYPE float
#endif
#ifndef TILE // a TILE x TILE block per work-group: 64, 32 or 16
#define TILE 64
#endif
#ifndef IN_REGISTERS // 1: each work-item's 4 x 4 block through registers (CPUs)
#define IN_REGISTERS 0
#endif
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#include "index_type.cl" // index_t: ld, rows, cols and dst_ld

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define REAL4 CONCAT(REALTYPE, 4)
#define LANES_X (TILE / 4) // work-items along a block's rows, each moving 4 adjacent elements
// Local memory answers 32 four-byte banks at once: a warp's 32 floats, or half a warp's 16 doubles
// on 16 bank pairs. Those lanes span BANKS / LANES_X rows y of the work-group, and their columns 4x
// wrap around the banks every BANKS / 4 lanes of x: each wrap and each row starts its 4 elements at
// a different one of them (the rotation below), so no two lanes meet on a bank.
#define BANKS (sizeof(REALTYPE) == 8 ? 16 : 32)
#define ROTATE4(v, r) ((r) == 0 ? (v) : (r) == 1 ? (v).yzwx : (r) == 2 ? (v).zwxy : (v).wxyz)

#if IN_REGISTERS
// Work-item (x, y) moves the 4 x 4 block at row 4y, column 4x: four rows read as vectors, written
// as four vectors of dst's rows; blocks at an edge element by element. On a CPU the local tile and
// its barrier only add work: PoCL on 2 cores of an AMD EPYC took 0.9-1.9 ms for 1000 x 1000 floats
// and 3.7-5.3 for 2000 x 2000 in CLGemm's NN, where the local tile's form took 1.8-2.6 and 6.3-8.4.
__kernel void transpose(__global const REALTYPE *src, __global REALTYPE *dst, ulong offset,
                        ulong stride, index_t ld, index_t rows, index_t cols, index_t dst_ld) {
  const size_t product = get_global_id(2);
  src += offset + product * stride;
  dst += product * (size_t)cols * dst_ld;
  const index_t col = (index_t)get_global_id(0) * 4, row = (index_t)get_global_id(1) * 4;
  if (row + 4 <= rows && col + 4 <= cols) {
    REAL4 v[4];
    for (int i = 0; i < 4; ++i)
      v[i] = CONCAT(vload, 4)(0, src + (size_t)(row + i) * ld + col);
    CONCAT(vstore, 4)((REAL4)(v[0].x, v[1].x, v[2].x, v[3].x), 0, dst + (size_t)col * dst_ld + row);
    CONCAT(vstore, 4)((REAL4)(v[0].y, v[1].y, v[2].y, v[3].y), 0,
                      dst + (size_t)(col + 1) * dst_ld + row);
    CONCAT(vstore, 4)((REAL4)(v[0].z, v[1].z, v[2].z, v[3].z), 0,
                      dst + (size_t)(col + 2) * dst_ld + row);
    CONCAT(vstore, 4)((REAL4)(v[0].w, v[1].w, v[2].w, v[3].w), 0,
                      dst + (size_t)(col + 3) * dst_ld + row);
    return;
  }
  for (index_t r = row; r < min(row + 4, rows); ++r)
    for (index_t c = col; c < min(col + 4, cols); ++c)
      dst[(size_t)c * dst_ld + r] = src[(size_t)r * ld + c];
}
#else
// Each work-group moves a TILE x TILE block through a TILE x (TILE + 1) local tile; each work-item
// reads 4 rows' 4-element vectors (all in flight before the barrier) and writes 4 vectors of the
// block's columns. The padding puts a tile row one bank after the last, and each work-item takes
// its 4 elements in an order rotated by its place (rotation), so that the lanes of one bank group
// meet distinct banks both when they store rows and when they read columns. About 0.97 of the
// device's buffer-copy rate at 2000-8192 on an H200 (tried, not kept: 32 x 8 work-items moving
// one element at a time, 0.76 of it). Partial blocks and rows that are not 4-aligned move element
// by element, 16 per work-item, adjacent lanes on adjacent elements of a row (at 4097, rows 4097
// apart: 0.75 of the copy rate on an H200, the old form 0.70).
__kernel __attribute__((reqd_work_group_size(LANES_X, LANES_X, 1))) void
transpose(__global const REALTYPE *src, __global REALTYPE *dst, ulong offset, ulong stride,
          index_t ld, index_t rows, index_t cols, index_t dst_ld) {
  __local REALTYPE tile[TILE][TILE + 1];
  const size_t product = get_global_id(2);
  const ulong first = offset + product * stride;
  src += first;
  dst += product * (size_t)cols * dst_ld;
  const int x = get_local_id(0), y = get_local_id(1);
  const int rotation = (x / (BANKS / 4) * (BANKS / LANES_X)) & 3;
  const index_t col0 = (index_t)get_group_id(0) * TILE, row0 = (index_t)get_group_id(1) * TILE;
  // Whole blocks of 4-aligned rows move as vectors; the others element by element.
  const bool whole = row0 + TILE <= rows && col0 + TILE <= cols;
  const bool vectors_in = whole && first % 4 == 0 && ld % 4 == 0;
  const bool vectors_out = whole && dst_ld % 4 == 0;

  if (vectors_in) {
    REAL4 v[4];
    for (int i = 0; i < 4; ++i)
      v[i] = *(__global const REAL4 *)(src + (size_t)(row0 + y + LANES_X * i) * ld + col0 + 4 * x);
    for (int i = 0; i < 4; ++i) {
      const REAL4 s = ROTATE4(v[i], rotation);
      __local REALTYPE *row = tile[y + LANES_X * i] + 4 * x;
      row[rotation] = s.x;
      row[(rotation + 1) & 3] = s.y;
      row[(rotation + 2) & 3] = s.z;
      row[(rotation + 3) & 3] = s.w;
    }
  } else { // element by element, adjacent lanes on adjacent elements
    REALTYPE e[4][4];
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const index_t r = row0 + y + LANES_X * i, c = col0 + x + LANES_X * j;
        e[i][j] = r < rows && c < cols ? src[(size_t)r * ld + c] : 0;
      }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        tile[y + LANES_X * i][x + LANES_X * j] = e[i][j];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Column c of the block becomes dst's row col0 + c.
  for (int i = 0; i < 4; ++i) {
    const int c = y + LANES_X * i;
    __global REALTYPE *out = dst + (size_t)(col0 + c) * dst_ld + row0;
    if (vectors_out) { // elements 4x ... 4x + 3 of the row
      const int r = 4 * x;
      const REAL4 s = (REAL4)(tile[r + rotation][c], tile[r + ((rotation + 1) & 3)][c],
                              tile[r + ((rotation + 2) & 3)][c], tile[r + ((rotation + 3) & 3)][c]);
      *(__global REAL4 *)(out + r) = ROTATE4(s, (4 - rotation) & 3);
    } else if (col0 + c < cols) {
      for (int j = 0; j < 4; ++j) {
        const int r = x + LANES_X * j;
        if (row0 + r < rows)
          out[r] = tile[r][c];
      }
    }
  }
}
#endif // IN_REGISTERS

// Four adjacent elements of a row a work-item, stored as one vector where dst's rows start on
// 16-byte boundaries (tried, not kept: one element a work-item, 0.065 ms where this form takes
// 0.037 for 4096 x 4096 floats from rows 4097 apart on an H200).
__kernel void pack(__global const REALTYPE *src, __global REALTYPE *dst, ulong offset,
                   ulong stride, index_t ld, index_t rows, index_t cols, index_t dst_ld) {
  const size_t product = get_global_id(2);
  const index_t col = (index_t)get_global_id(0) * 4, row = get_global_id(1);
  if (row >= rows || col >= cols)
    return;
  __global const REALTYPE *in = src + offset + product * stride + (size_t)row * ld + col;
  __global REALTYPE *out = dst + product * rows * (size_t)dst_ld + (size_t)row * dst_ld + col;
  if (col + 4 <= cols && dst_ld % 4 == 0) {
    *(__global REAL4 *)out = (REAL4)(in[0], in[1], in[2], in[3]);
    return;
  }
  for (int j = 0; j < 4 && col + j < cols; ++j)
    out[j] = in[j];
}
