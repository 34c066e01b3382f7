// The wgmma products' local memory and instructions (matr_mul_wgmma_tf32.cl, steps 16-18): the
// swizzled layout of the tiles and their matrix descriptors, the wgmma instructions behind the
// "//@sm_90a " marker, and where a work-group's block of C lies and how it is stored.

#include "wgmma_core.cl" // layout, descriptors, fences, the accumulators' operand lists

// Float k of tile row r of the product's tiles, rows of BK floats.
#define TILE_AT(r, k) SWIZZLED_AT(r, k, BK)
// Copy u of a slice, row-major: consecutive work-items copy consecutive 16-byte chunks.
#define CHUNK_ROW(u) ((u) / CHUNKS)
#define CHUNK_K(u) ((u) % CHUNKS * 4)

// The descriptor of a tile of the product's BK-float rows.
inline ulong descriptor(const __local float *start) {
  return descriptor_of(start, BK, SWIZZLE_MODE);
}
// The same for the tiles of step 17's pass: rows of 16 floats, the 64-byte swizzle, whatever BK.
inline ulong pass_descriptor(const __local float *start) { return descriptor_of(start, 16, 2); }

// d += a * b over 64 x BN x 8 TF32, a warpgroup-wide asynchronous operation.
inline void wgmma_tf32(float *d, ulong a, ulong b) {
  asm volatile("//@sm_90a { .reg .pred p; setp.eq.u32 p, 1, 1; "
               "wgmma.mma_async.sync.aligned.m64n" STRINGIFY(BN) "k8.f32.tf32.tf32 " WGMMA_D
               ", p, 1, 1; }"
               : WGMMA_OUT
               : "l"(a), "l"(b)
               : "memory");
}

// d += a * b over 64 x BN x 16 BF16 (K-major operands, so no transposes).
inline void wgmma_bf16(float *d, ulong a, ulong b) {
  asm volatile("//@sm_90a { .reg .pred p; setp.eq.u32 p, 1, 1; "
               "wgmma.mma_async.sync.aligned.m64n" STRINGIFY(BN) "k16.f32.bf16.bf16 " WGMMA_D
               ", p, 1, 1, 0, 0; }"
               : WGMMA_OUT
               : "l"(a), "l"(b)
               : "memory");
}

#if MODE == 3 || B_MN
// d += a * b over 64 x BN x 8 TF32 with a from registers (the m16n8k8 A fragment of each warp):
// MODE 3's, also its C^T products, whose N is BM (MODE 3 has BM = BN); B_MN's, a being B^T's.
inline void wgmma_tf32_rs(float *d, const uint a[4], ulong b) {
  asm volatile("//@sm_90a { .reg .pred p; setp.eq.u32 p, 1, 1; "
               "wgmma.mma_async.sync.aligned.m64n" STRINGIFY(BN) "k8.f32.tf32.tf32 " CAT(REGS_, BN)
                   CAT(RS_, BN) ", p, 1, 1; }"
               : CAT(OUT_, BN)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b)
               : "memory");
}
// The rounded TF32 tails of 4 fragment values.
inline void tails(uint r[4]) {
  for (int q = 0; q < 4; ++q) {
    const float x = as_float(r[q]);
    r[q] = as_uint(x - as_float(as_uint(x) & 0xffffe000u)) + 0x1000u;
  }
}
#endif

#if B_MN
// Which of the warpgroup's 64 columns of B (rows of C^T) row g + 8 * upper of warp `warp`'s 16
// holds: columns 32 * (warp / 2) on, in the box of 32 columns that the copy engine wrote with the
// 128-byte swizzle (16-byte chunk c of row k at chunk c ^ k % 8). The rows are spread over chunks
// 2 * (warp % 2) + upper + 4 * (g / 4) so that a fragment's 32 loads (rows g, K t or t + 4) meet
// on no bank: chunk c ^ t with c's bit 2 from g / 4, four floats each.
inline int b_column(int warp, int g, int upper) {
  return warp / 2 * 32 + 4 * (2 * (warp % 2) + upper + 4 * (g / 4)) + g % 4;
}

// This work-item's m16n8k8 A fragment of B^T for K k0 .. k0 + 7 of the slice: (row g, K t), (g +
// 8, t), (g, t + 4), (g + 8, t + 4) of its warp's rows, from the warpgroup's two boxes of BK rows
// of 32 floats.
inline void fragments_of_b(uint a[4], const __local float *boxes, int k0, int tid) {
  const int lane = tid % 32, warp = (tid / 32) % 4, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const int column = b_column(warp, g, q % 2), k = k0 + t + 4 * (q / 2);
    const int in_box = column % 32, chunk = (in_box / 4) ^ (k % 8);
    a[q] = as_uint(boxes[column / 32 * 32 * BK + k * 32 + chunk * 4 + in_box % 4]);
  }
}
#endif


// The first row and column of this work-group's block of C. Work-groups go down GROUP_M block
// rows before the next block column, so those running together share tiles of B in L2.
inline int2 block_origin(void) {
  const int blocks_m = (GRID_ROWS + BM - 1) / BM, blocks_n = (GRID_COLS + BN - 1) / BN;
  const int block = get_group_id(0);
  const int first_m = block / (GROUP_M * blocks_n) * GROUP_M;
  const int group_rows = min(blocks_m - first_m, GROUP_M);
  return (int2)((first_m + block % group_rows) * BM,
                (block % (GROUP_M * blocks_n)) / group_rows * BN);
}

// Stores a warpgroup's accumulators: its 64 rows from row0, BN columns from col0. Warp w of the
// warpgroup holds rows 16w + g and 16w + g + 8; element pair i holds columns 8(i/2) + 2t and the
// next, of row g for even i and of row g + 8 for odd i.
inline __attribute__((always_inline)) void store_block(__global float *out, const float *acc,
                                                       int row0, int col0, int tid) {
  const int lane = tid % 32, warp = (tid / 32) % 4, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < ACC / 2; ++i) {
    const int row = row0 + warp * 16 + g + (i % 2) * 8;
    const int col = col0 + (i / 2) * 8 + 2 * t;
    if (row >= M_)
      continue;
    __global float *c = out + (size_t)row * N_ + col;
#if N_ % 2 == 0
    if (col < N_)
      *(__global float2 *)c = (float2)(acc[2 * i], acc[2 * i + 1]);
#else
    if (col < N_)
      c[0] = acc[2 * i];
    if (col + 1 < N_)
      c[1] = acc[2 * i + 1];
#endif
  }
}

#if GEMM
// The GEMM's store: alpha times the accumulators, plus beta times C unless beta is 0, rows LDC
// apart. C_PAIRS 1 (LDC, C's offset and stride even) writes each pair of columns as a float2.
inline __attribute__((always_inline)) void store_gemm_block(__global float *out, const float *acc,
                                                            int row0, int col0, int tid,
                                                            float alpha, float beta) {
  const int lane = tid % 32, warp = (tid / 32) % 4, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < ACC / 2; ++i) {
    const int row = row0 + warp * 16 + g + (i % 2) * 8;
    const int col = col0 + (i / 2) * 8 + 2 * t;
    if (row >= M_ || col >= N_)
      continue;
    __global float *c = out + (size_t)row * LDC + col;
    float2 v = (float2)(alpha * acc[2 * i], alpha * acc[2 * i + 1]);
#if C_PAIRS && N_ % 2 == 0
    if (beta != 0.0f)
      v += beta * *(__global float2 *)c;
    *(__global float2 *)c = v;
#else
    c[0] = beta != 0.0f ? v.x + beta * c[0] : v.x;
    if (col + 1 < N_)
      c[1] = beta != 0.0f ? v.y + beta * c[1] : v.y;
#endif
  }
}

#if B_MN
// The same for C^T's accumulators: its 64 rows from row0 are C's columns (b_column), its BN
// columns from col0 C's rows, each pair of a row of C^T two rows of C.
inline __attribute__((always_inline)) void store_gemm_block_t(__global float *out,
                                                              const float *acc, int row0, int col0,
                                                              int tid, float alpha, float beta) {
  const int lane = tid % 32, warp = (tid / 32) % 4, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < ACC / 2; ++i) {
    const int column = row0 + b_column(warp, g, i % 2), row = col0 + (i / 2) * 8 + 2 * t;
    if (column >= N_)
      continue;
#pragma unroll
    for (int e = 0; e < 2; ++e)
      if (row + e < M_) {
        __global float *c = out + (size_t)(row + e) * LDC + column;
        const float v = alpha * acc[2 * i + e];
        *c = beta != 0.0f ? v + beta * *c : v;
      }
  }
}
#endif
#endif
