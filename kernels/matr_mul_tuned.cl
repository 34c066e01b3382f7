// Step 14 (beyond the article): launch geometry and tiles tuned per device.
//
// `mqlcl-replay tune matr_mul_tuned` measures, on the device at hand, the parameters of step 13's
// kernel (tile sizes, slice depth, work-group shape) and of the CPU form in this file, and caches
// the fastest, keyed by device and driver. This file holds the CPU form, the article's own lesson
// carried through: where local memory is only a part of global memory (CL_DEVICE_LOCAL_MEM_TYPE
// = CL_GLOBAL, as on the HD 4870 and on every CPU), staging tiles there is pure overhead. Here
// each work-item keeps an RM x RN block of C in registers as VK-wide partial sums along K, which
// is the contiguous direction of both A's rows and B's columns, so every load is one wide vector.
//
// Layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major; out = C, ROWS1 x COLS2, row-major. Any sizes.
//
// Launch: 2-D, global = (ceil(COLS2 / RN), ceil(ROWS1 / RM)), any local size (tuned).
//
// Built with -DGEMM, the kernel is the library's GEMM on CPUs (bridge/src/gemm), as step 13's is on
// GPUs: `gemm` takes A's rows and B's columns LDA and LDB elements apart, C's rows LDC apart,
// element offsets, a strided batch (the launch's third dimension) and C = alpha * A * B + beta * C,
// with C left unread when beta is 0; REALTYPE may be double.

#ifndef ROWS1
#define ROWS1 2000
#endif
#ifndef COLSROWS
#define COLSROWS 2000
#endif
#ifndef COLS2
#define COLS2 2000
#endif
#ifndef RM // rows of C per work-item
#define RM 4
#endif
#ifndef RN // columns of C per work-item
#define RN 4
#endif
#ifndef VK // vector width along K: 4, 8 or 16
#define VK 16
#endif
#ifndef REALTYPE
#define REALTYPE float
#endif
#ifndef INDEX64 // 1: rows, columns and k in 64 bits, for sizes whose indices pass 2^31 (the
#define INDEX64 0 // library's GEMM sets it per call); 0 keeps the faster 32-bit arithmetic
#endif

#define M_ ROWS1
#define N_ COLS2
#define K_ COLSROWS
// KERNEL_NAME, GEMM_ARGS, LDA ... ALIGNED without -DGEMM, index_t, RESULT: shared with steps 13
// and 19.
#include "gemm/interface.cl"

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define realVK CONCAT(REALTYPE, VK)
#define real8 CONCAT(REALTYPE, 8)
#define real4 CONCAT(REALTYPE, 4)
#define real2 CONCAT(REALTYPE, 2)
#define vloadVK CONCAT(vload, VK)

inline REALTYPE horizontal_sum(realVK v) {
#if VK == 16
  real8 h8 = v.lo + v.hi;
  real4 h4 = h8.lo + h8.hi;
#elif VK == 8
  real4 h4 = v.lo + v.hi;
#else
  real4 h4 = v;
#endif
  real2 h2 = h4.lo + h4.hi;
  return h2.x + h2.y;
}

// vec_type_hint: the code is already vectorized, so PoCL does not scalarize it to vectorize
// across work-items instead (which put the accumulators in memory).
__kernel __attribute__((vec_type_hint(realVK))) void
KERNEL_NAME(__global const REALTYPE *in1, __global const REALTYPE *in2,
            __global REALTYPE *out GEMM_ARGS) {
#ifdef GEMM
  const size_t product = get_global_id(2); // of the batch
  in1 += offset_a + product * stride_a;
  in2 += offset_b + product * stride_b;
  out += offset_c + product * stride_c;
#endif
  const index_t n0 = (index_t)get_global_id(0) * RN, m0 = (index_t)get_global_id(1) * RM;
  if (n0 >= COLS2 || m0 >= ROWS1)
    return;
  // Rows and columns past the edge repeat the last one: loads stay in bounds, stores skip them.
  const __global REALTYPE *a[RM], *b[RN];
#pragma unroll
  for (int i = 0; i < RM; ++i)
    a[i] = in1 + (size_t)min(m0 + i, (index_t)(ROWS1 - 1)) * LDA;
#pragma unroll
  for (int j = 0; j < RN; ++j)
    b[j] = in2 + (size_t)min(n0 + j, (index_t)(COLS2 - 1)) * LDB;

  realVK acc[RM][RN];
#pragma unroll
  for (int i = 0; i < RM; ++i)
#pragma unroll
    for (int j = 0; j < RN; ++j)
      acc[i][j] = (realVK)(0);

  index_t k = 0;
  for (; k + VK <= COLSROWS; k += VK) {
    realVK av[RM], bv[RN];
#pragma unroll
    for (int i = 0; i < RM; ++i)
      av[i] = vloadVK(0, a[i] + k);
#pragma unroll
    for (int j = 0; j < RN; ++j)
      bv[j] = vloadVK(0, b[j] + k);
#pragma unroll
    for (int i = 0; i < RM; ++i)
#pragma unroll
      for (int j = 0; j < RN; ++j)
        acc[i][j] = fma(av[i], bv[j], acc[i][j]);
  }

#pragma unroll
  for (int i = 0; i < RM; ++i)
#pragma unroll
    for (int j = 0; j < RN; ++j) {
      REALTYPE sum = horizontal_sum(acc[i][j]);
      for (index_t kk = k; kk < COLSROWS; ++kk) // the K tail, shorter than one vector
        sum = fma(a[i][kk], b[j][kk], sum);
      if (m0 + i < ROWS1 && n0 + j < COLS2) {
        __global REALTYPE *c = out + (size_t)(m0 + i) * LDC + n0 + j;
        *c = RESULT(sum, *c);
      }
    }
}
