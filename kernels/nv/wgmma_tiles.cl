// The wgmma products' local memory and instructions (matr_mul_wgmma_tf32.cl, steps 16-18): the
// swizzled layout of the tiles and their matrix descriptors, the wgmma instructions behind the
// "//@sm_90a " marker, and where a work-group's block of C lies and how it is stored.

// Float k of tile row r in wgmma's canonical swizzled K-major layout: rows of BK floats, the
// 16-byte chunks of a row permuted by an XOR with bits of the row (the 32, 64 or 128-byte swizzle
// for BK = 8, 16, 32), so the tensor cores read 8 rows without bank conflicts. Each 32-byte piece
// of a global row stays together: cp.async into the no-swizzle layout, which puts a row's chunks
// 128 bytes apart, ran at a third of the speed on the H100. (The descriptors name the swizzle
// with SWIZZLE_MODE, which matr_mul_wgmma_tf32.cl sets for BK.) SWIZZLED_AT is the layout for rows
// of `row` floats (8, 16 or 32); TILE_AT, for the product's BK.
#define SWIZZLED_AT(r, k, row)                                                                     \
  ((r) * (row) + ((((k) >> 2) ^ (((r) / (32 / (row))) % ((row) / 4))) << 2) + ((k) & 3))
#define TILE_AT(r, k) SWIZZLED_AT(r, k, BK)
// Copy u of a slice, row-major: consecutive work-items copy consecutive 16-byte chunks.
#define CHUNK_ROW(u) ((u) / CHUNKS)
#define CHUNK_K(u) ((u) % CHUNKS * 4)

// A wgmma matrix descriptor: start address and the stride between groups of 8 rows in units of
// 16 bytes, the swizzle mode in the top bits. The leading byte offset is unused by swizzled
// K-major layouts (1, as CUTLASS sets it). The swizzle applies to address bits, so tiles start
// on 1024-byte boundaries and a step along K is a plain offset of the start.
inline ulong descriptor_of(const __local float *start, uint row_floats, uint swizzle_mode) {
  return (ulong)((shared_address(start) & 0x3ffff) >> 4) | (1ul << 16) |
         ((ulong)(8 * row_floats * 4 / 16) << 32) | ((ulong)swizzle_mode << 62);
}
inline ulong descriptor(const __local float *start) {
  return descriptor_of(start, BK, SWIZZLE_MODE);
}
// The same for the tiles of step 17's pass: rows of 16 floats, the 64-byte swizzle, whatever BK.
inline ulong pass_descriptor(const __local float *start) { return descriptor_of(start, 16, 2); }

// Makes this work-item's writes to local memory (cp.async included) visible to the tensor
// cores' asynchronous reads; a barrier then extends that to the work-group.
inline void fence_to_async(void) { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

inline void wgmma_fence(void) { asm volatile("//@sm_90a wgmma.fence.sync.aligned;" ::: "memory"); }
inline void wgmma_commit(void) {
  asm volatile("//@sm_90a wgmma.commit_group.sync.aligned;" ::: "memory");
}
inline void wgmma_wait(void) {
  asm volatile("//@sm_90a wgmma.wait_group.sync.aligned " STRINGIFY(INFLIGHT) ";" ::: "memory");
}
inline void wgmma_wait_all(void) {
  asm volatile("//@sm_90a wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// The accumulator operands of an m64nBN wgmma: "{%0,...,%ACC-1}", then the two descriptors.
#define R10(a)                                                                                     \
  "%" #a "0,%" #a "1,%" #a "2,%" #a "3,%" #a "4,%" #a "5,%" #a "6,%" #a "7,%" #a "8,%" #a "9,"
#define D8(i)                                                                                      \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),     \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define D32(i) D8(i), D8(i + 8), D8(i + 16), D8(i + 24)
#define REGS_64 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," R10(1) R10(2) "%30,%31}"
#define SS_64 ", %32, %33"
#define RS_64 ", {%32,%33,%34,%35}, %36"
#define OUT_64 D32(0)
#define REGS_128                                                                                   \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," R10(1) R10(2) R10(3) R10(4) R10(5) "%60,%61,%62,%63}"
#define SS_128 ", %64, %65"
#define RS_128 ", {%64,%65,%66,%67}, %68"
#define OUT_128 D32(0), D32(32)
#define REGS_256                                                                                   \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," R10(1) R10(2) R10(3) R10(4) R10(5) R10(6) R10(7) R10(8) R10(9)  \
      R10(10) R10(11) "%120,%121,%122,%123,%124,%125,%126,%127}"
#define SS_256 ", %128, %129"
#define RS_256 ", {%128,%129,%130,%131}, %132"
#define OUT_256 D32(0), D32(32), D32(64), D32(96)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define WGMMA_D CAT(REGS_, BN) CAT(SS_, BN)
#define WGMMA_OUT CAT(OUT_, BN)

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

#if MODE == 3
// d += a * b over 64 x BN x 8 TF32 with a from registers (the m16n8k8 A fragment of each warp);
// also the C^T products, whose N is BM (MODE 3 has BM = BN).
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


// The first row and column of this work-group's block of C. Work-groups go down GROUP_M block
// rows before the next block column, so those running together share tiles of B in L2.
inline int2 block_origin(void) {
  const int blocks_m = (M_ + BM - 1) / BM, blocks_n = (N_ + BN - 1) / BN;
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
#endif
