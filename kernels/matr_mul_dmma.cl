// Step 19 (beyond the article): the double product on Hopper's FP64 tensor cores, through inline
// PTX: mma.sync m16n8k16 (or m16n8k8) f64, the instructions cuBLAS's DGEMM runs on (there is no
// wgmma for FP64). Each multiply-add of the tensor cores is an FP64 fused multiply-add, so the
// product keeps FP64 accuracy. Needs compute capability 9.0 (m8n8k4, the only f64 shape of 8.x,
// runs at half the rate on Hopper) and NVIDIA's OpenCL compiler, which accepts inline PTX: the
// host checks both before it builds this file.
//
// Layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major; out = C, ROWS1 x COLS2, row-major. Both operands are
// K-contiguous, which is what mma's row.col operands want, so tiles go to local memory as they are
// in global memory, with cp.async, straight from global memory without passing through registers,
// STAGES slices in flight. Each lane reads its fragments as 8-byte words: rows of a tile are
// 32-byte granules permuted by an XOR of the row (no padding), so the 4 rows a half-warp reads at
// once never share a bank. Any sizes: loads past an edge read zeros.
//
// A work-group of (BM/WM) x (BN/WN) warps computes a BM x BN tile of C, each warp WM x WN of it
// in (WM/16) x (WN/8) accumulators of 16 x 8.
//
// Built with -DGEMM, the file's kernel is CLGemm's double product (bridge/src/gemm): `gemm` takes
// A's rows and B's columns LDA and LDB elements apart (the host copies an operand stored with K
// down its rows first), C's rows LDC apart, element offsets, a strided batch (the launch's second
// dimension) and C = alpha * A * B + beta * C, C left unread when beta is 0.
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
#ifndef BM // rows of C per work-group
#define BM 128
#endif
#ifndef BN // columns of C per work-group
#define BN 128
#endif
#ifndef BK // depth of one K slice, a multiple of MMA_K
#define BK 16
#endif
#ifndef WM // rows of C per warp, a multiple of 16
#define WM 64
#endif
#ifndef WN // columns of C per warp, a multiple of 8
#define WN 32
#endif
#ifndef MMA_K // the mma's K: 16 (m16n8k16) or 8 (m16n8k8)
#define MMA_K 16
#endif
#ifndef STAGES // slices of K in local memory at once, 2 to 4
#define STAGES 3
#endif
#ifndef GROUP_M // block rows visited together, so tiles of B stay in cache
#define GROUP_M 8
#endif
#ifndef INDEX64 // 1: rows and leading dimensions in 64 bits (the library's GEMM sets it per call)
#define INDEX64 0
#endif

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define M_ ROWS1
#define N_ COLS2
#define K_ COLSROWS
#ifndef REALTYPE // CLGemm passes double (its only element type here); the replay, nothing
#define REALTYPE double
#endif
// KERNEL_NAME, GEMM_ARGS, LDA ... ALIGNED without -DGEMM, index_t, RESULT: shared with step 13.
#include "gemm/interface.cl"

#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (WARPS * 32)
#define MT (WM / 16)       // accumulators per warp along M
#define NT (WN / 8)        // and along N
#define A_REGS (MMA_K / 2) // an A fragment's doubles per lane
#define B_REGS (MMA_K / 4) // a B fragment's
#define CHUNKS (BK / 2)    // 16-byte chunks per tile row
#define A_COPIES (BM * CHUNKS / THREADS)
#define B_COPIES (BN * CHUNKS / THREADS)
// Rows of A and B that start 16-byte aligned, copied 16 bytes at a time; else 8.
#define PAIRS (K_ % 2 == 0 && LDA % 2 == 0 && LDB % 2 == 0 && ALIGNED)
// C's rows 16-byte aligned, stored two doubles at a time.
#define C_PAIRS (N_ % 2 == 0 && LDC % 2 == 0 && ALIGNED)

#if (BM % WM) || (BN % WN) || (WM % 16) || (WN % 8) || (BK % MMA_K)
#error "BM, BN must be multiples of WM, WN; WM of 16, WN of 8, BK of MMA_K"
#endif
#if MMA_K != 8 && MMA_K != 16
#error "MMA_K is 8 or 16"
#endif
#if (BM * CHUNKS) % THREADS || (BN * CHUNKS) % THREADS
#error "the A and B tiles must split evenly into 16-byte copies over the work-group"
#endif
// Waits for copies (copies_wait) until at most STAGES - 2 groups of them are still in flight (a
// literal: it is pasted into the PTX).
#if STAGES == 2
#define COPIES_IN_FLIGHT 0
#elif STAGES == 3
#define COPIES_IN_FLIGHT 1
#elif STAGES == 4
#define COPIES_IN_FLIGHT 2
#else
#error "STAGES is 2, 3 or 4"
#endif

// Double k of tile row r: the row's 32-byte granule k/4 is stored at granule (k/4) ^ (the row's
// group), counted in 128-byte lines of local memory, so rows g..g+3 of a fragment read hit
// 4 different granules of the 32 banks.
#if BK >= 16
#define SWIZZLE(r) ((r) % 4)
#else
#define SWIZZLE(r) (((r) / (16 / BK)) % 4)
#endif
#define TILE_AT(r, k) ((r)*BK + ((((k) >> 2) ^ SWIZZLE(r)) << 2) + ((k)&3))

// copies_commit / copies_wait (cp.async groups): shared with the TF32 kernels.
#include "nv/ptx_helpers.cl"

inline uint local_address(const __local double *p) {
  return (uint)(size_t)p;
}

// `bytes` (16 or 8) from `src` to local memory, or zeros when `in` is false (nothing is read).
inline void copy_doubles(__local double *dst, const __global double *src, bool in) {
#if PAIRS
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(local_address(dst)), "l"(src),
               "r"(in ? 16 : 0)
               : "memory");
#else
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(local_address(dst)), "l"(src),
               "r"(in ? 8 : 0)
               : "memory");
#endif
}

// Chunk k (2 doubles) of line `line` of a K-contiguous operand with `lines` lines `ld` apart.
inline void copy_line_chunk(__local double *dst, const __global double *matrix, index_t line,
                            index_t lines, size_t ld, int k) {
  const bool line_in = line < lines;
  const __global double *src = matrix + (size_t)(line_in ? line : 0) * ld;
#if PAIRS
  copy_doubles(dst, src + (k < K_ ? k : 0), line_in && k < K_);
#else
  for (int e = 0; e < 2; ++e)
    copy_doubles(dst + e, src + (k + e < K_ ? k + e : 0), line_in && k + e < K_);
#endif
}

// d += a * b for one 16 x 8 x MMA_K tile, a warp-wide operation. Lane (g, t) = (lane / 4,
// lane % 4) gives A's rows g and g + 8 and B's column g; which K each of its registers holds
// matters only in that A's and B's agree (the loads below give register q the same K in both).
inline void mma_f64(double d[4], const double a[A_REGS], const double b[B_REGS]) {
#if MMA_K == 16
  asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
      "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
        "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#else
  asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#endif
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
KERNEL_NAME(__global const double *in1, __global const double *in2,
            __global double *out GEMM_ARGS) {
#ifdef GEMM
  const size_t product = get_group_id(1); // of the batch
  in1 += offset_a + product * stride_a;
  in2 += offset_b + product * stride_b;
  out += offset_c + product * stride_c;
#endif
  __local double As[STAGES * BM * BK] __attribute__((aligned(128)));
  __local double Bs[STAGES * BN * BK] __attribute__((aligned(128)));

  // Which tile of C: block rows in groups of GROUP_M, column by column inside a group.
  const int blocks_m = (M_ + BM - 1) / BM, blocks_n = (N_ + BN - 1) / BN;
  const int block = get_group_id(0);
  const int group = block / (GROUP_M * blocks_n);
  const int first_m = group * GROUP_M;
  const int group_rows = min(blocks_m - first_m, GROUP_M);
  const index_t block_m = (index_t)(first_m + block % group_rows) * BM;
  const index_t block_n = (index_t)((block % (GROUP_M * blocks_n)) / group_rows) * BN;

  const int tid = get_local_id(0), lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / (BN / WN) * WM, warp_n = warp % (BN / WN) * WN;
  const int g = lane / 4, t = lane % 4;

  double acc[MT][NT][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q)
        acc[i][j][q] = 0;

  const int slices = (K_ + BK - 1) / BK;
  // Slice s goes to stage s % STAGES; a group of copies is committed for every slice, empty past
  // the end, so the wait below always counts the same way.
#define COPY_SLICE(s)                                                                              \
  {                                                                                                \
    const int stage = (s) % STAGES, k0 = (s)*BK;                                                   \
    if ((s) < slices) {                                                                            \
      _Pragma("unroll") for (int l = 0; l < A_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = u / CHUNKS, k = (u % CHUNKS) * 2;                     \
        copy_line_chunk(&As[stage * BM * BK + TILE_AT(r, k)], in1, block_m + r, M_, LDA, k0 + k);  \
      }                                                                                            \
      _Pragma("unroll") for (int l = 0; l < B_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = u / CHUNKS, k = (u % CHUNKS) * 2;                     \
        copy_line_chunk(&Bs[stage * BN * BK + TILE_AT(r, k)], in2, block_n + r, N_, LDB, k0 + k);  \
      }                                                                                            \
    }                                                                                              \
    copies_commit();                                                                               \
  }

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s)
    COPY_SLICE(s)

  for (int s = 0; s < slices; ++s) {
    copies_wait();
    barrier(CLK_LOCAL_MEM_FENCE); // slice s is in place; stage (s-1) % STAGES is free again
    COPY_SLICE(s + STAGES - 1)

    const __local double *as = As + (s % STAGES) * BM * BK;
    const __local double *bs = Bs + (s % STAGES) * BN * BK;
#pragma unroll
    for (int k = 0; k < BK; k += MMA_K) {
      // B's fragments of the warp's columns; A's one row tile at a time (registers: the
      // accumulators take 8 * MT * NT of them).
      double b[NT][B_REGS];
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int q = 0; q < B_REGS; ++q)
          b[j][q] = bs[TILE_AT(warp_n + j * 8 + g, k + t + 4 * q)];
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        double a[A_REGS];
#pragma unroll
        for (int q = 0; q < A_REGS; ++q)
          a[q] = as[TILE_AT(warp_m + i * 16 + g + 8 * (q % 2), k + t + 4 * (q / 2))];
#pragma unroll
        for (int j = 0; j < NT; ++j)
          mma_f64(acc[i][j], a, b[j]);
      }
    }
  }

  // Each lane holds C(g, 2t..2t+1) and C(g+8, 2t..2t+1) of every 16 x 8 tile.
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const index_t col = block_n + warp_n + j * 8 + 2 * t;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const index_t row = block_m + warp_m + i * 16 + g + 8 * h;
        if (row >= M_ || col >= N_)
          continue;
        __global double *c = out + (size_t)row * LDC + col;
        const double2 v = (double2)(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
#if C_PAIRS
        *(__global double2 *)c = RESULT(v, *(__global double2 *)c);
#else
        c[0] = RESULT(v.x, c[0]);
        if (col + 1 < N_)
          c[1] = RESULT(v.y, c[1]);
#endif
      }
    }
}
