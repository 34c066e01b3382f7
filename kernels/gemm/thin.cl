// The library's GEMM (bridge/src/gemm/edges.cpp): the parts of a product that step 13's whole tiles
// leave when C's last rows or columns are a few lines past the tiles, or K a few past its last
// whole slice. Each is C[p][q] = alpha * sum_k X[p][k] Y[k][q] + beta * C[p][q] over P x Q
// elements, X, Y and C read through element strides, so one kernel serves every layout and
// both strips (the columns' strip is the rows' with the operands' roles swapped):
// - a strip: P of 1 .. ROWS lines, Q and K long. A work-group takes WIDTH of Q and all of K,
//   split SPLIT ways among its work-items and summed in local memory: the strip's Q / WIDTH
//   work-groups then read its long operand once, all at once, where tiles of 64 lines would
//   walk K in 65 work-groups (a 1 x 4097 x 4097 strip on an H200: 0.036-0.050 ms here, 0.26 as
//   step 13's product of its own).
// - K's rest: K under a slice, P and Q long (SPLIT 1): a rank-K update of C, read and written
//   once (4096 x 4096 with K 1: 0.05 ms).
//
// Tried, not kept: K's rest writing each element of C right after reading it (0.13 ms at 4096:
// each load waited for the store before it).
//
// thin(x, y, c, offset_x, offset_y, offset_c, stride_x, stride_y, stride_c, p_count, q_count,
//      k_count, x_p, x_k, y_k, y_q, c_p, c_q, alpha, beta): X[p][k] is x[offset_x + p * x_p +
// k * x_k], likewise Y and C; the batch's matrices are stride_x (y, c) elements apart.
// Launch: 3-D, global = (Q rounded up to WIDTH, times SPLIT; P rounded up to ROWS, over ROWS;
// batch), local = (WIDTH * SPLIT, 1, 1).

#ifndef REALTYPE
#define REALTYPE float
#endif
#ifndef ROWS // lines of P per work-item
#define ROWS 1
#endif
#ifndef WIDTH // elements of Q per work-group
#define WIDTH 32
#endif
#ifndef SPLIT // parts of K per work-group, summed in local memory
#define SPLIT 8
#endif
#ifndef LANES_ALONG_K // 1: neighbouring work-items take neighbouring k of one q (Y contiguous in
#define LANES_ALONG_K 0 // K), 0: neighbouring q at one k (Y contiguous in Q)
#endif
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#include "index_type.cl" // index_t: sizes and strides

#define THREADS (WIDTH * SPLIT)
#define UNROLL 8

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
thin(__global const REALTYPE *x, __global const REALTYPE *y, __global REALTYPE *c, ulong offset_x,
     ulong offset_y, ulong offset_c, ulong stride_x, ulong stride_y, ulong stride_c,
     index_t p_count, index_t q_count, index_t k_count, index_t x_p, index_t x_k, index_t y_k,
     index_t y_q, index_t c_p, index_t c_q, REALTYPE alpha, REALTYPE beta) {
  const size_t product = get_group_id(2); // of the batch
  x += offset_x + product * stride_x;
  y += offset_y + product * stride_y;
  c += offset_c + product * stride_c;
  const int t = get_local_id(0);
#if LANES_ALONG_K
  const int q_local = t / SPLIT, part = t % SPLIT;
#else
  const int q_local = t % WIDTH, part = t / WIDTH;
#endif
  const index_t q = (index_t)get_group_id(0) * WIDTH + q_local;
  const index_t p0 = (index_t)get_group_id(1) * ROWS;

  // Lines past P read line P - 1 and are never stored: the loop needs no guard.
  __global const REALTYPE *xs[ROWS];
  for (int r = 0; r < ROWS; ++r)
    xs[r] = x + (size_t)min(p0 + r, p_count - 1) * x_p + (size_t)part * x_k;
  __global const REALTYPE *ys = y + (size_t)min(q, q_count - 1) * y_q + (size_t)part * y_k;
  const size_t x_step = (size_t)SPLIT * x_k, y_step = (size_t)SPLIT * y_k;

  REALTYPE acc[ROWS];
  for (int r = 0; r < ROWS; ++r)
    acc[r] = 0;
  // UNROLL k at a time, their loads issued together: a strip's work-items wait on memory.
  index_t k = part;
  for (; k + (UNROLL - 1) * SPLIT < k_count; k += UNROLL * SPLIT) {
    REALTYPE v[UNROLL], w[ROWS][UNROLL];
    for (int u = 0; u < UNROLL; ++u)
      v[u] = ys[u * y_step];
    for (int r = 0; r < ROWS; ++r)
      for (int u = 0; u < UNROLL; ++u)
        w[r][u] = xs[r][u * x_step];
    ys += UNROLL * y_step;
    for (int r = 0; r < ROWS; ++r) {
      xs[r] += UNROLL * x_step;
      for (int u = 0; u < UNROLL; ++u)
        acc[r] = fma(w[r][u], v[u], acc[r]);
    }
  }
  for (; k < k_count; k += SPLIT) {
    const REALTYPE v = *ys;
    ys += y_step;
    for (int r = 0; r < ROWS; ++r) {
      acc[r] = fma(*xs[r], v, acc[r]);
      xs[r] += x_step;
    }
  }

#if SPLIT > 1
  __local REALTYPE partial[SPLIT][ROWS][WIDTH + 1]; // + 1: lanes along K store off one bank
  for (int r = 0; r < ROWS; ++r)
    partial[part][r][q_local] = acc[r];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = t; i < ROWS * WIDTH; i += THREADS) {
    const int r = i / WIDTH, ql = i % WIDTH;
    const index_t p = p0 + r, qq = (index_t)get_group_id(0) * WIDTH + ql;
    if (p >= p_count || qq >= q_count)
      continue;
    REALTYPE sum = 0;
    for (int s = 0; s < SPLIT; ++s)
      sum += partial[s][r][ql];
    __global REALTYPE *out = c + (size_t)p * c_p + (size_t)qq * c_q;
    *out = beta != 0 ? alpha * sum + beta * *out : alpha * sum;
  }
#else
  if (q >= q_count)
    return;
  // C's elements all read before any is written: loads after a store would wait for it.
  __global REALTYPE *out = c + (size_t)p0 * c_p + (size_t)q * c_q;
  REALTYPE old[ROWS];
  for (int r = 0; r < ROWS; ++r)
    old[r] = beta != 0 && p0 + r < p_count ? out[(size_t)r * c_p] : 0;
  for (int r = 0; r < ROWS; ++r)
    if (p0 + r < p_count)
      out[(size_t)r * c_p] = beta != 0 ? alpha * acc[r] + beta * old[r] : alpha * acc[r];
#endif
}
