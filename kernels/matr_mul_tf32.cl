// Step 15 (beyond the article): the product on NVIDIA tensor cores, through inline PTX.
//
// MODE 3 (3xTF32) keeps FP32 accuracy: each operand is split into a TF32 head and a tail,
// a = a_hi + a_lo (a_hi is a with its 13 low mantissa bits cleared, so a_lo is exact and below
// 2^-10 a), and C = a_hi*b_hi + a_hi*b_lo + a_lo*b_hi (a_lo*b_lo is below FP32's precision).
// Tensor cores round their sums toward zero, so the products of FLUSH slices of K go into a
// scratch accumulator that starts at zero, and that is added into the FP32 accumulator with an
// ordinary, round-to-nearest addition (Ootomo and Yokota, 2022).
// MODE 2 is the same split with the two small terms on BF16 tensor cores: a_hi*b_lo + a_lo*b_hi
// is one m16n8k16 BF16 product over the pairs (a_hi, a_lo) and (b_lo, b_hi), which the H100
// runs at twice the TF32 rate. The terms are below 2^-10 of each product, so rounding their
// factors to BF16's 8 bits costs about 2^-18 of it: FP32-level accuracy from two tensor-core
// products instead of three.
// MODE 1 (plain TF32) multiplies the heads only: relative errors near 1e-3, for users who accept
// them. Needs mma.sync with TF32 (compute capability 8.0 or later) and NVIDIA's OpenCL compiler,
// which accepts inline PTX; the host checks both before building this file.
//
// Layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major; out = C, ROWS1 x COLS2, row-major. Both operands are
// K-contiguous, which is what mma's row.col operands want, so tiles go to local memory as they
// are in global memory: with cp.async, straight from global memory without passing through
// registers, STAGES slices in flight. Rows of a tile are 16-byte chunks permuted by an XOR of the
// row (no padding), so the ldmatrix reads of 8 rows hit 8 different bank groups. Any sizes:
// loads past an edge read zeros.
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
#ifndef MODE // 3: 3xTF32, 2: TF32 + BF16 corrections (both FP32 accuracy), 1: plain TF32
#define MODE 3
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK // a multiple of 8 (the mma's K)
#define BK 16
#endif
#ifndef WM // rows of C per warp, a multiple of 16
#define WM 64
#endif
#ifndef WN // columns of C per warp, a multiple of 16
#define WN 32
#endif
#ifndef STAGES // slices of K in local memory at once, 2 or more
#define STAGES 2
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef FLUSH // MODE 2 and 3: slices summed on the tensor cores before an FP32 addition
#define FLUSH 4
#endif
// Tests only: with LEAVE_OUT set, the first work-group leaves slice LEAVE_OUT of K out of its
// block of C, a wrong product that the host's verification must refuse (docs/replay.md).
#ifdef LEAVE_OUT
#define LEFT_OUT(s) ((s) == LEAVE_OUT && get_group_id(0) == 0)
#else
#define LEFT_OUT(s) 0
#endif

#define M_ ROWS1
#define N_ COLS2
#define K_ COLSROWS
#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (WARPS * 32)
#define MT (WM / 16) // mma tiles per warp along M
#define NT (WN / 8)  // and along N
#define CHUNKS (BK / 4) // 16-byte chunks per tile row
#define A_COPIES (BM * CHUNKS / THREADS)
#define B_COPIES (BN * CHUNKS / THREADS)

#if (BM % WM) || (BN % WN) || (WM % 16) || (WN % 16) || (BK % 8) || STAGES < 2
#error "BM, BN must be multiples of WM, WN; WM and WN of 16, BK of 8; STAGES at least 2"
#endif
#if (BM * CHUNKS) % THREADS || (BN * CHUNKS) % THREADS
#error "the A and B tiles must split evenly into 16-byte copies over the work-group"
#endif

// Float k of tile row r: chunk k/4 of the row is stored at chunk (k/4) ^ (the row's group), so
// the 8 rows one ldmatrix phase reads never share a bank.
#if CHUNKS >= 8
#define SWIZZLE(r) ((r) % CHUNKS)
#else
#define SWIZZLE(r) (((r) / (8 / CHUNKS)) % CHUNKS)
#endif
#define TILE_AT(r, k) ((r) * BK + ((((k) >> 2) ^ SWIZZLE(r)) << 2) + ((k) & 3))

// Waits for copies (copies_wait) until at most STAGES - 2 groups of them are still in flight.
#if STAGES == 2
#define COPIES_IN_FLIGHT 0
#elif STAGES == 3
#define COPIES_IN_FLIGHT 1
#elif STAGES == 4
#define COPIES_IN_FLIGHT 2
#else
#error "STAGES is 2, 3 or 4"
#endif

// shared_address, cp.async's copy_tile_chunk and copies_commit / copies_wait, load_matrices
// (ldmatrix), bf16_pair: shared with the wgmma kernels.
#include "nv/ptx_helpers.cl"

// TF32 rounding on the integer pipe: tensor cores ignore the 13 low mantissa bits of a TF32
// operand, so adding half of their weight is rounding to nearest (ties away from zero), what
// cvt.rna.tf32.f32 does on the slower conversion unit. (An infinite input turns into a NaN here,
// and in the split modes, as inf - inf; finite inputs are exact or rounded as documented.)
inline uint tf32_operand(float x) { return as_uint(x) + 0x1000u; }
// The TF32 head of x, truncated: one logical operation, and x - head is exact (below 2^-10 x).
inline uint tf32_head(float x) { return as_uint(x) & 0xffffe000u; }

// d += a * b for one 16x8x8 TF32 tile, a warp-wide operation.
inline void mma_tf32(float4 *d, const uint a[4], const uint b[2]) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d->x), "+f"(d->y), "+f"(d->z), "+f"(d->w)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// d += a * b for one 16x8x16 BF16 tile.
inline void mma_bf16(float4 *d, const uint a[4], const uint b[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d->x), "+f"(d->y), "+f"(d->z), "+f"(d->w)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
matricesMul(__global const float *in1, __global const float *in2, __global float *out) {
  __local float As[STAGES * BM * BK] __attribute__((aligned(128)));
  __local float Bs[STAGES * BN * BK] __attribute__((aligned(128)));

  const int blocks_m = (M_ + BM - 1) / BM, blocks_n = (N_ + BN - 1) / BN;
  const int block = get_group_id(0);
  const int group = block / (GROUP_M * blocks_n);
  const int first_m = group * GROUP_M;
  const int group_rows = min(blocks_m - first_m, GROUP_M);
  const int block_m = (first_m + block % group_rows) * BM;
  const int block_n = (block % (GROUP_M * blocks_n)) / group_rows * BN;

  const int tid = get_local_id(0), lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / (BN / WN) * WM, warp_n = warp % (BN / WN) * WN;

  float4 acc[MT][NT];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
      acc[i][j] = (float4)(0);

#if MODE != 1
  // Products of FLUSH slices, summed by the tensor cores (rounding toward zero) before they go
  // into acc: the truncation then costs about 2^-24 of a part of the sum, not of all of it.
  float4 part[MT][NT];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
      part[i][j] = (float4)(0);
#endif

  const int slices = (K_ + BK - 1) / BK;
  // Slice s goes to stage s % STAGES; a group of copies is committed for every slice, empty past
  // the end, so the wait below always counts the same way.
#define COPY_SLICE(s)                                                                              \
  {                                                                                                \
    const int stage = (s) % STAGES, k0 = (s) * BK;                                                 \
    if ((s) < slices) {                                                                            \
      _Pragma("unroll") for (int l = 0; l < A_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = u / CHUNKS, k = (u % CHUNKS) * 4;                     \
        copy_tile_chunk(&As[stage * BM * BK + TILE_AT(r, k)], in1, block_m + r, M_, k0 + k);       \
      }                                                                                            \
      _Pragma("unroll") for (int l = 0; l < B_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = u / CHUNKS, k = (u % CHUNKS) * 4;                     \
        copy_tile_chunk(&Bs[stage * BN * BK + TILE_AT(r, k)], in2, block_n + r, N_, k0 + k);       \
      }                                                                                            \
    }                                                                                              \
    copies_commit();                                                                               \
  }

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s)
    COPY_SLICE(s)

  // This lane's row addresses for ldmatrix: tiles of A as (rows 0-7, k 0-3), (rows 8-15, k 0-3),
  // (rows 0-7, k 4-7), (rows 8-15, k 4-7): the m16n8k8 A fragment; two tiles of B as
  // (columns 0-7, k 0-3), (0-7, k 4-7), (8-15, k 0-3), (8-15, k 4-7): two B fragments.
  const int a_row = warp_m + lane % 8 + (lane / 8) % 2 * 8, a_k = lane / 16 * 4;
  const int b_row = warp_n + lane % 8 + lane / 16 * 8, b_k = (lane / 8) % 2 * 4;

  for (int s = 0; s < slices; ++s) {
    copies_wait();
    barrier(CLK_LOCAL_MEM_FENCE); // slice s is in place; stage (s-1) % STAGES is free again
    COPY_SLICE(s + STAGES - 1)

    const __local float *as = As + (s % STAGES) * BM * BK;
    const __local float *bs = Bs + (s % STAGES) * BN * BK;
#pragma unroll
    for (int k = 0; k < BK; k += 8) {
      uint a[MT][4], b[NT][2];
#pragma unroll
      for (int i = 0; i < MT; ++i)
        load_matrices(a[i], &as[TILE_AT(a_row + i * 16, k + a_k)]);
#pragma unroll
      for (int j = 0; j < NT; j += 2) {
        uint r[4];
        load_matrices(r, &bs[TILE_AT(b_row + j * 8, k + b_k)]);
        b[j][0] = r[0];
        b[j][1] = r[1];
        b[j + 1][0] = r[2];
        b[j + 1][1] = r[3];
      }
#if MODE == 1
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q)
          a[i][q] = tf32_operand(as_float(a[i][q]));
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int q = 0; q < 2; ++q)
          b[j][q] = tf32_operand(as_float(b[j][q]));
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
          if (!LEFT_OUT(s))
            mma_tf32(&acc[i][j], a[i], b[j]);
#else
      // Heads in a and b, tails (MODE 3) or BF16 pairs (MODE 2) in a_lo and b_lo.
      uint a_lo[MT][4], b_lo[NT][2];
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float x = as_float(a[i][q]);
          a[i][q] = tf32_head(x);
          const float tail = x - as_float(a[i][q]);
#if MODE == 3
          a_lo[i][q] = tf32_operand(tail);
#else
          a_lo[i][q] = bf16_pair(as_float(a[i][q]), tail); // K order: head, then tail
#endif
        }
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int q = 0; q < 2; ++q) {
          const float x = as_float(b[j][q]);
          b[j][q] = tf32_head(x);
          const float tail = x - as_float(b[j][q]);
#if MODE == 3
          b_lo[j][q] = tf32_operand(tail);
#else
          b_lo[j][q] = bf16_pair(tail, as_float(b[j][q])); // pairs a_hi with b_lo, a_lo with b_hi
#endif
        }
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) {
#if MODE == 3 // small terms first
          mma_tf32(&part[i][j], a_lo[i], b[j]);
          mma_tf32(&part[i][j], a[i], b_lo[j]);
#else
          mma_bf16(&part[i][j], a_lo[i], b_lo[j]);
#endif
          mma_tf32(&part[i][j], a[i], b[j]);
        }
#endif
    }
#if MODE != 1
    if ((s + 1) % FLUSH == 0 || s + 1 == slices) {
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          acc[i][j] += part[i][j]; // round-to-nearest FP32 additions
          part[i][j] = (float4)(0);
        }
    }
#endif
  }

  // Each lane holds C(g, 2t..2t+1) and C(g+8, 2t..2t+1) of every 16x8 tile.
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const int col = block_n + warp_n + j * 8 + 2 * t;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = block_m + warp_m + i * 16 + g + 8 * h;
        const float2 v = h == 0 ? acc[i][j].xy : acc[i][j].zw;
        if (row >= M_)
          continue;
        __global float *c = out + (size_t)row * N_ + col;
#if N_ % 2 == 0
        if (col < N_)
          *(__global float2 *)c = v;
#else
        if (col < N_)
          c[0] = v.x;
        if (col + 1 < N_)
          c[1] = v.y;
#endif
      }
    }
}
