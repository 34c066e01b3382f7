// Step 13 (beyond the article): 2-D register blocking with double-buffered local tiles.
//
// Same layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major (in2[k + n * COLSROWS]); out = C, ROWS1 x COLS2, row-major.
//
// A work-group of (BM/TM)*(BN/TN) work-items computes a BM x BN tile of C; each work-item
// accumulates a TM x TN block in registers. Per BK-deep slice of K, the group stages a BM x BK
// tile of A and a BK x BN tile of B in local memory, transposed so the inner loop reads float4s
// along M and N. Two local buffers alternate: while the group computes from one, each work-item
// has already loaded the next slice from global memory into registers, and stores it into the
// other buffer afterwards, so one barrier per slice suffices and global latency hides behind the
// arithmetic. Any sizes work: loads past K read zeros, loads of rows (columns) past an edge read
// zeros or, in some code forms, the last row (column), which reaches only outputs never stored;
// stores past an edge are skipped. Sizes that are whole multiples of the tiles are built without
// those checks; the library runs larger products whose edges are a few lines wide as whole tiles
// and thin pieces (bridge/src/gemm/edges.hpp, kernels/gemm/thin.cl).
//
// FMA_ORDER, POINTERS, GATHER and CARRY change only the form of the code, not what it computes:
// NVIDIA's compiler schedules each form differently, by several percent and in no predictable
// direction (docs/performance.md), so the tuner tries each form on its fastest tile sets. ROTATE_A,
// ROTATE_B and PAIRED_LANES change where values sit, not what is computed: which register of a
// float4 load holds which line, which sets the register banks the multiply-adds read (banked by
// register number on NVIDIA GPUs, as far as their machine code shows), and which lanes of a warp
// read the same float4, which sets how fast local memory returns it.
//
// Tried, not kept (no tuning on the H100 chose them, at any size of
// bridge/src/gemm/tunings/tuning-h100.json):
// - FMA_ORDER=1: the multiply-adds column by column, every column in the same direction.
// - POINTERS=1 without GATHER: float4s along K read through addresses computed once per work-item.
// - Work-items whose lines of C all lie past the edge skipping their multiply-adds, so that a tile
//   one line wide (65 of 1089 at 4097) costs little: 23% slower at 4097 and 48% at 2000 on an H200,
//   the branch changing how the compiler schedules the loop. Nor with the loop in an inline
//   function, called with the check on for edge tiles and off for the others (a branch taken by
//   whole work-groups): every shape slower (H200): CLGemm 4096 NT 2.86 ms, where the same set with
//   the loop in the kernel ran 2.75-2.77 (the replay's step), 1000 NT 0.60x cuBLAS.
// - K not a multiple of BK run by the host as two products, K's whole slices (no check of K in the
//   loads) and then the rest added to C: 4097^3 on an H200 with the database's sets, NN 3.55 ms
//   against 3.41 in one, NT 3.41 against 3.35, TN 4.30 against 3.34 (the rest's launch 0.12-0.30
//   ms; the whole slices' build no faster, and for TN's set slower). The thin edges add the rest
//   by a rank update of their own instead, 0.05 ms at 4097.
// - GATHER's loads past K reading element K - 1 and dropping it by a select, instead of a branch
//   around them: 4096 x 4097 x 4096 with the H200's 4096 NT set 4.25 ms against 4.17 (4096^3:
//   2.77).
// - The other loads of lines past the edge unguarded, as the gathered ones are (the last line or
//   four read instead of zeros): H100, CLGemm NN 2000 0.481 ms against 0.358 with both; 44.3-44.7
//   against 44.6-45.1 TFLOP/s with the float4s along K alone (docs/results, step13-unguarded-*).
//
// Launch: 1-D, global = ceil(ROWS1/BM) * ceil(COLS2/BN) * THREADS, local = THREADS.
//
// Built with -DGEMM, the file's kernel is the library's GEMM (bridge/src/gemm): `gemm` takes A's
// rows and B's columns LDA and LDB elements apart (K-contiguous as above, or with A_LINES and
// B_LINES stored the other way, K running down the stored rows), C's rows LDC apart, element
// offsets, a strided batch (the launch's second dimension: one product per group row) and
// C = alpha * A * B + beta * C, with C left unread when beta is 0. ALIGNED = 1 promises that every
// offset and stride is a multiple of 4, so rows may be read as float4s.
//
// The copies of each slice from global to local memory are a part, tiles/slice_copies.cl, that
// the host inlines as it reads this file (harness/src/kernel_source.cpp; cmake/KernelIncludes.cmake
// for the library, which embeds its kernels).

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
#define BK 16
#endif
#ifndef TM // rows per work-item (a multiple of 4)
#define TM 8
#endif
#ifndef TN // columns per work-item (a multiple of 4)
#define TN 8
#endif
#ifndef GROUP_M // block rows visited together, so tiles of B stay in cache (1 = row by row)
#define GROUP_M 8
#endif
#ifndef PAD // extra local columns (a multiple of 4): keeps the transposing stores off one bank
#define PAD 4
#endif
#ifndef WARP_ROWS // a warp's 32 work-items cover WARP_ROWS x (32 / WARP_ROWS) of the thread grid
#define WARP_ROWS 2
#endif
#ifndef FMA_ORDER   // the TM x TN multiply-adds of one k: 0 row by row, 2 the same with every other
#define FMA_ORDER 0 // row run backwards, 3 column by column with every other column run backwards
#endif
#ifndef POINTERS // 1 (with GATHER 1): load addresses computed once per work-item, advanced by each
#define POINTERS 0 // slice
#endif
#ifndef GATHER   // 1: each piece of a slice is 4 lines at one k, read 4 bytes at a time and stored
#define GATHER 0 // as one float4, in place of a float4 along K stored as 4 floats
#endif
#ifndef CARRY   // 1: each slice's barrier comes before its last k's multiply-adds, and the next
#define CARRY 0 // slice's first fragments are read after it and carried over (see the loop)
#endif
#ifndef ROTATE_A   // local position 4q+s of A's (B's) tile holds line 4q+((s+ROTATE_A)&3): each
#define ROTATE_A 0 // float4 read in the loop brings its 4 lines in a rotated order
#endif
#ifndef ROTATE_B
#define ROTATE_B 0
#endif
#ifndef A_LINES // 1 (GEMM only): A is stored K x M, rows LDA apart, so its lines run along memory
#define A_LINES 0
#endif
#ifndef B_LINES // 1 (GEMM only): B is stored K x N, rows LDB apart (row-major, not transposed)
#define B_LINES 0
#endif
#ifndef PAIRED_LANES   // 1: lanes n and n^1 of a warp read the same A float4, lanes n and n^2 the
#define PAIRED_LANES 0 // same B float4, so that local memory returns both at twice the rate
#endif
#ifndef INDEX64 // 1: lines, k and leading dimensions in 64 bits, for sizes whose indices pass 2^31
#define INDEX64 0 // (the library's GEMM sets it per call); 0 keeps the faster 32-bit arithmetic
#endif

#define M_ ROWS1
#define N_ COLS2
#define K_ COLSROWS
// KERNEL_NAME, GEMM_ARGS, LDA ... ALIGNED without -DGEMM, index_t, RESULT: shared with step 19.
#include "gemm/interface.cl"
// Rows of A and B that start 16-byte aligned, for float4 loads along K; likewise C's rows.
#define VECTOR_K (K_ % 4 == 0 && LDA % 4 == 0 && LDB % 4 == 0 && ALIGNED)
#define VECTOR_C (N_ % 4 == 0 && LDC % 4 == 0 && ALIGNED)
#define THREADS_M (BM / TM)
#define THREADS_N (BN / TN)
#define THREADS (THREADS_M * THREADS_N)
#define A_LOADS (BM * BK / 4 / THREADS) // float4 loads of A per work-item and slice
#define B_LOADS (BN * BK / 4 / THREADS)
// Sizes that are whole multiples of the tiles need no edge checks, known when the kernel is built.
#define WHOLE_M (M_ % BM == 0)
#define WHOLE_N (N_ % BN == 0)
#if K_ % BK == 0
#define INSIDE_K(k) true
#else
#define INSIDE_K(k) ((k) < K_)
#endif

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define REALTYPE4 CONCAT(REALTYPE, 4)
// A float4 of lines 4q..4q+3 as it is stored rotated by r, and a line's rotated position.
#define ROTATE4(v, r) ((r) == 0 ? (v) : (r) == 1 ? (v).yzwx : (r) == 2 ? (v).zwxy : (v).wxyz)
#define ROTATED_POSITION(line, r) (((line) & ~3) | (((line) - (r)) & 3))

#if (BM % TM) || (BN % TN) || (TM % 4) || (TN % 4) || (BK % 4)
#error "BM, BN must be multiples of TM, TN; TM, TN and BK multiples of 4"
#endif
#if PAD % 4
#error "PAD must be a multiple of 4: local rows stay 16-byte aligned for float4 accesses"
#endif
#if ROTATE_A < 0 || ROTATE_A > 3 || ROTATE_B < 0 || ROTATE_B > 3
#error "ROTATE_A and ROTATE_B are 0 to 3"
#endif
#if CARRY != 0 && CARRY != 1
#error "CARRY is 0 or 1"
#endif
#if FMA_ORDER != 0 && FMA_ORDER != 2 && FMA_ORDER != 3
#error "FMA_ORDER is 0, 2 or 3 (1 was tried and not kept: see the top of the file)"
#endif
#if POINTERS && !GATHER
#error "POINTERS needs GATHER (POINTERS without it was tried and not kept: see the top of the file)"
#endif
#if PAIRED_LANES && (WARP_ROWS < 2 || WARP_ROWS > 16)
#error "PAIRED_LANES needs warps of at least 2 rows and 2 columns of work-items"
#endif
#if THREADS % 32 || (THREADS_N % (32 / WARP_ROWS)) || (THREADS_M % WARP_ROWS)
#error "the work-item grid must split into whole warps of WARP_ROWS x (32 / WARP_ROWS)"
#endif
#if (BM * BK / 4) % THREADS || (BN * BK / 4) % THREADS
#error "the A and B tiles must split evenly into float4 loads over the work-group"
#endif

// How each slice travels from global memory through registers into the local tiles.
#include "tiles/slice_copies.cl" // load_k4, load_lines4, gather_lines4; LOAD_SLICE, STORE_SLICE

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
KERNEL_NAME(__global const REALTYPE *in1, __global const REALTYPE *in2,
            __global REALTYPE *out GEMM_ARGS) {
#ifdef GEMM
  const size_t product = get_group_id(1); // of the batch
  in1 += offset_a + product * stride_a;
  in2 += offset_b + product * stride_b;
  out += offset_c + product * stride_c;
#endif
  // 16-byte aligned, so the float4 reads below are single 128-bit local loads.
  __local REALTYPE As[2][BK][BM + PAD] __attribute__((aligned(16)));
  __local REALTYPE Bs[2][BK][BN + PAD] __attribute__((aligned(16)));

  // Which tile of C: block rows in groups of GROUP_M, column by column inside a group.
  const int blocks_m = (M_ + BM - 1) / BM, blocks_n = (N_ + BN - 1) / BN;
  const int block = get_group_id(0);
  const int group = block / (GROUP_M * blocks_n);
  const int first_m = group * GROUP_M;
  const int group_rows = min(blocks_m - first_m, GROUP_M);
  const index_t block_m = (index_t)(first_m + block % group_rows) * BM;
  const index_t block_n = (index_t)((block % (GROUP_M * blocks_n)) / group_rows) * BN;

  // Warps tile the THREADS_M x THREADS_N grid of work-items in WARP_ROWS x (32/WARP_ROWS)
  // blocks: that shape decides how many distinct float4s one warp reads per local load.
  const int tid = get_local_id(0);
  const int warp_cols = 32 / WARP_ROWS, warps_n = THREADS_N / warp_cols;
  const int warp = tid / 32, lane = tid % 32;
#if PAIRED_LANES
  // Lane bit 0 steps tn and bit 1 steps tm; the other bits fill the warp's rows, then columns.
  const int rest = lane >> 2;
  const int tm = warp / warps_n * WARP_ROWS + (((lane >> 1) & 1) | (rest % (WARP_ROWS / 2)) << 1);
  const int tn = warp % warps_n * warp_cols + ((lane & 1) | (rest / (WARP_ROWS / 2)) << 1);
#else
  const int tm = warp / warps_n * WARP_ROWS + lane / warp_cols;
  const int tn = warp % warps_n * warp_cols + lane % warp_cols;
#endif

  REALTYPE acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0;

  // This work-item's share of the next slice, in flight in registers, and with POINTERS its
  // pieces' addresses (tiles/slice_copies.cl: LOAD_SLICE fills a_next and b_next, STORE_SLICE
  // stores them into local memory).
  REALTYPE4 a_next[A_LOADS], b_next[B_LOADS];
  PIECE_POINTERS

  // One k's fragments from local buffer `buf` into a[] and b[]: work-item rows tm*4.. in TM/4
  // groups spaced THREADS_M*4 apart (likewise columns), so a warp's float4 reads cover
  // consecutive local addresses.
#define LOAD_LINES(frag, tile, buf, k, lines, spacing, first, rotate)                              \
  for (int g = 0; g < lines / 4; ++g) {                                                            \
    REALTYPE4 v = *(__local REALTYPE4 *)&tile[buf][k][g * spacing * 4 + first * 4];                \
    frag[g * 4 + rotate] = v.x;                                                                    \
    frag[g * 4 + (rotate + 1) % 4] = v.y;                                                          \
    frag[g * 4 + (rotate + 2) % 4] = v.z;                                                          \
    frag[g * 4 + (rotate + 3) % 4] = v.w;                                                          \
  }
#define LOAD_FRAGMENTS(a, b, buf, k)                                                               \
  LOAD_LINES(a, As, buf, k, TM, THREADS_M, tm, ROTATE_A)                                           \
  LOAD_LINES(b, Bs, buf, k, TN, THREADS_N, tn, ROTATE_B)

  const int slices = (K_ + BK - 1) / BK;
  LOAD_SLICE(0)
  STORE_SLICE(0)
  barrier(CLK_LOCAL_MEM_FENCE);
#if CARRY
  REALTYPE a_first[TM], b_first[TN]; // the next slice's k = 0 fragments, carried over
  LOAD_FRAGMENTS(a_first, b_first, 0, 0)
#endif

  for (int s = 0; s < slices; ++s) {
    const int buf = s & 1;
    if (s + 1 < slices) {
      LOAD_SLICE((index_t)(s + 1) * BK) // in flight while this slice is computed
    }
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      REALTYPE a[TM], b[TN];
#if CARRY
      if (k == 0) {
        for (int i = 0; i < TM; ++i)
          a[i] = a_first[i];
        for (int j = 0; j < TN; ++j)
          b[j] = b_first[j];
      } else {
        LOAD_FRAGMENTS(a, b, buf, k)
      }
      if (k == BK - 1) {
        // This slice's reads of local memory are done (this k's fragments are in registers):
        // store the next slice, wait for everyone's, and read its first fragments, whose
        // latency then hides behind this k's multiply-adds. The stores are unconditional (the
        // last slice's go to a buffer nobody reads): under a branch, NVIDIA's compiler moves the
        // slice's global loads down next to them, too late to hide their latency.
        STORE_SLICE(buf ^ 1)
        barrier(CLK_LOCAL_MEM_FENCE);
        LOAD_FRAGMENTS(a_first, b_first, buf ^ 1, 0)
      }
#else
      LOAD_FRAGMENTS(a, b, buf, k)
#endif
#if FMA_ORDER == 3
      for (int j = 0; j < TN; ++j)
        for (int ii = 0; ii < TM; ++ii) {
          const int i = FMA_ORDER == 3 && (j & 1) ? TM - 1 - ii : ii;
          acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
#else
      for (int i = 0; i < TM; ++i)
        for (int jj = 0; jj < TN; ++jj) {
          const int j = FMA_ORDER == 2 && (i & 1) ? TN - 1 - jj : jj;
          acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
#endif
    }
#if !CARRY
    if (s + 1 < slices) {
      STORE_SLICE(buf ^ 1)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }

  for (int i = 0; i < TM; ++i) {
    const index_t row = block_m + (i / 4) * THREADS_M * 4 + tm * 4 + i % 4;
    if (row >= M_)
      continue;
    for (int g = 0; g < TN / 4; ++g) {
      const index_t col = block_n + g * THREADS_N * 4 + tn * 4;
      __global REALTYPE *c = out + (size_t)row * LDC + col;
      REALTYPE4 v =
          (REALTYPE4)(acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
#if VECTOR_C
      if (col < N_) {
        *(__global REALTYPE4 *)c = RESULT(v, *(__global REALTYPE4 *)c);
        continue;
      }
#endif
      if (col < N_)
        c[0] = RESULT(v.x, c[0]);
      if (col + 1 < N_)
        c[1] = RESULT(v.y, c[1]);
      if (col + 2 < N_)
        c[2] = RESULT(v.z, c[2]);
      if (col + 3 < N_)
        c[3] = RESULT(v.w, c[3]);
    }
  }
}
