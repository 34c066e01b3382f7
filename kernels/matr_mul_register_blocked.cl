// Step 12 (beyond the article): 2-D register blocking with vector loads.
//
// Same layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major (in2[k + n * COLSROWS]); out = C, ROWS1 x COLS2, row-major.
//
// A work-group of (BM/TM)*(BN/TN) work-items computes a BM x BN tile of C; each work-item
// accumulates a TM x TN block in registers. Per BK-deep slice of K, the group stages a BM x BK
// tile of A and a BK x BN tile of B in local memory, transposed so the inner loop reads float4s
// along M and N: each value loaded from local memory now feeds TM or TN multiply-adds instead of
// one, and global memory is read with 16-byte loads. One buffer: the group waits for the loads
// before computing and for the computation before loading again (step 13 overlaps the two).
// Any sizes work: loads past an edge read zeros and stores past an edge are skipped.
//
// Launch: 1-D, global = ceil(ROWS1/BM) * ceil(COLS2/BN) * THREADS, local = THREADS.

#ifndef ROWS1
#define ROWS1 2000
#endif
#ifndef COLSROWS
#define COLSROWS 2000
#endif
#ifndef COLS2
#define COLS2 2000
#endif
#ifndef REALTYPE
#define REALTYPE float
#endif
#ifndef BM // rows of C per work-group
#define BM 128
#endif
#ifndef BN // columns of C per work-group
#define BN 128
#endif
#ifndef BK // depth of one K slice
#define BK 8
#endif
#ifndef TM // rows per work-item (a multiple of 4)
#define TM 8
#endif
#ifndef TN // columns per work-item (a multiple of 4)
#define TN 8
#endif
#ifndef PAD // extra local columns (a multiple of 4): keeps the transposing stores off one bank
#define PAD 4
#endif

#define M_ ROWS1
#define N_ COLS2
#define K_ COLSROWS
#define THREADS_M (BM / TM)
#define THREADS_N (BN / TN)
#define THREADS (THREADS_M * THREADS_N)
#define A_LOADS (BM * BK / 4 / THREADS) // float4 loads of A per work-item and slice
#define B_LOADS (BN * BK / 4 / THREADS)

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define REALTYPE4 CONCAT(REALTYPE, 4)

#if (BM % TM) || (BN % TN) || (TM % 4) || (TN % 4) || (BK % 4)
#error "BM, BN must be multiples of TM, TN; TM, TN and BK multiples of 4"
#endif
#if PAD % 4
#error "PAD must be a multiple of 4: local rows stay 16-byte aligned for float4 accesses"
#endif
#if (BM * BK / 4) % THREADS || (BN * BK / 4) % THREADS
#error "the A and B tiles must split evenly into float4 loads over the work-group"
#endif

// Four consecutive elements of a K-contiguous row, zero past the matrix; 16-byte loads when
// every row starts 16-byte aligned (K a multiple of 4).
inline REALTYPE4 load_k4(const __global REALTYPE *matrix, int line, int lines, int k) {
#if K_ % 4 == 0
  if (line < lines && k < K_)
    return *(const __global REALTYPE4 *)(matrix + (size_t)line * K_ + k);
  return (REALTYPE4)(0);
#else
  const __global REALTYPE *p = matrix + (size_t)line * K_ + k;
  bool in = line < lines;
  return (REALTYPE4)(in && k < K_ ? p[0] : 0, in && k + 1 < K_ ? p[1] : 0,
                     in && k + 2 < K_ ? p[2] : 0, in && k + 3 < K_ ? p[3] : 0);
#endif
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
matricesMul(__global const REALTYPE *in1, __global const REALTYPE *in2, __global REALTYPE *out) {
  // 16-byte aligned, so the float4 reads below are single 128-bit local loads.
  __local REALTYPE As[BK][BM + PAD] __attribute__((aligned(16)));
  __local REALTYPE Bs[BK][BN + PAD] __attribute__((aligned(16)));

  // Tiles of C row by row (step 13 groups rows so B's tiles stay in cache).
  const int blocks_n = (N_ + BN - 1) / BN;
  const int block_m = get_group_id(0) / blocks_n * BM, block_n = get_group_id(0) % blocks_n * BN;

  const int tid = get_local_id(0);
  const int tm = tid / THREADS_N, tn = tid % THREADS_N;

  REALTYPE acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0;

  const int slices = (K_ + BK - 1) / BK;
  for (int s = 0; s < slices; ++s) {
    // The group's float4 pieces along K of BM rows of A and BN columns of B, stored transposed.
    for (int l = 0; l < A_LOADS; ++l) {
      int u = tid + l * THREADS, row = u / (BK / 4), k = (u % (BK / 4)) * 4;
      REALTYPE4 v = load_k4(in1, block_m + row, M_, s * BK + k);
      As[k][row] = v.x;
      As[k + 1][row] = v.y;
      As[k + 2][row] = v.z;
      As[k + 3][row] = v.w;
    }
    for (int l = 0; l < B_LOADS; ++l) {
      int u = tid + l * THREADS, col = u / (BK / 4), k = (u % (BK / 4)) * 4;
      REALTYPE4 v = load_k4(in2, block_n + col, N_, s * BK + k);
      Bs[k][col] = v.x;
      Bs[k + 1][col] = v.y;
      Bs[k + 2][col] = v.z;
      Bs[k + 3][col] = v.w;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // Work-item rows tm*4.. in TM/4 groups spaced THREADS_M*4 apart (likewise columns), so a
      // warp's float4 reads cover consecutive local addresses.
      REALTYPE a[TM], b[TN];
      for (int g = 0; g < TM / 4; ++g) {
        REALTYPE4 v = *(__local REALTYPE4 *)&As[k][g * THREADS_M * 4 + tm * 4];
        a[g * 4] = v.x;
        a[g * 4 + 1] = v.y;
        a[g * 4 + 2] = v.z;
        a[g * 4 + 3] = v.w;
      }
      for (int g = 0; g < TN / 4; ++g) {
        REALTYPE4 v = *(__local REALTYPE4 *)&Bs[k][g * THREADS_N * 4 + tn * 4];
        b[g * 4] = v.x;
        b[g * 4 + 1] = v.y;
        b[g * 4 + 2] = v.z;
        b[g * 4 + 3] = v.w;
      }
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
          acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int i = 0; i < TM; ++i) {
    const int row = block_m + (i / 4) * THREADS_M * 4 + tm * 4 + i % 4;
    if (row >= M_)
      continue;
    for (int g = 0; g < TN / 4; ++g) {
      const int col = block_n + g * THREADS_N * 4 + tn * 4;
      __global REALTYPE *c = out + (size_t)row * N_ + col;
      REALTYPE4 v =
          (REALTYPE4)(acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
#if N_ % 4 == 0
      if (col < N_) {
        *(__global REALTYPE4 *)c = v;
        continue;
      }
#endif
      if (col < N_)
        c[0] = v.x;
      if (col + 1 < N_)
        c[1] = v.y;
      if (col + 2 < N_)
        c[2] = v.z;
      if (col + 3 < N_)
        c[3] = v.w;
    }
  }
}
