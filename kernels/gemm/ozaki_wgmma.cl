// The Ozaki scheme's integer products on Hopper's warpgroup instruction (gemm/ozaki.cl with
// TENSOR_CORES 2): wgmma.mma_async m64nBNk32 s8 x s8 -> s32, through inline PTX behind the
// "//@sm_90a " marker, so the host builds it with -mqlcl-nv-sm90a (matr_mul_wgmma_tf32.cl says
// how) on compute capability 9.0 only. The same kernel, residue_products(a, b, c, m, n, padded,
// products), as the other forms: each plane's m x n product of A's and B's residues, reduced
// modulo the plane's modulus into chars.
//
// Both operands are K-major, the only layout wgmma takes for 8-bit integers, and a row of BK chars
// is a row of BK / 4 words in step 16's swizzled tiles (nv/wgmma_core.cl). residues() (ozaki.cl,
// residue_at) writes each plane in these tiles: for every block of BM lines of A (BN of B), its
// slices of BK chars one after another, `padded` a whole number of slices and the lines whole
// blocks (zeros past K, m and n). So a slice of a tile is one contiguous run, which one work-item
// copies with one cp.async.bulk (the copy engine of Hopper's TMA; no tensor map, so no CUDA driver,
// and it runs under Wine) counted down on the stage's mbarrier; nobody else issues a copy, and
// the work-items wait on the mbarrier, not at a barrier, for a slice. STAGES slices are in local
// memory at once. A work-group is BM / 64 warpgroups; warpgroup w computes rows 64w..64w+63 of the
// BM x BN tile, one wgmma per 32 chars of K, INFLIGHT groups of them left running while the next
// slice's are issued; a stage is refilled once the wgmmas that read it are done in every
// warpgroup. The sums are reduced modulo p every REDUCE_EVERY chars of K, once the warpgroup's
// wgmmas are done, so an int never passes 2^31; at the end, into chars by nearest_remainder.
//
// Launch: global (ceil(m / BM) * ceil(n / BN) * BM * 2, planes), local (BM * 2, 1).
//
// Three warpgroups on 192 x 256 tiles copy 448 lines of a slice per 192 x 256 sums where two on 128
// x 256 copy 384 per 128 x 256: by arithmetic 22% less read from L2 per product. Measured (NVIDIA
// H200, 16 moduli, the integer products' time): 11.6-12.3 ms against 12.7-12.8 at 8192^3, 4.97
// against 5.17-5.18 at 6144^3, even at 4096^3 (1.57-1.59 ms, its tiles 3% past m).
//
// Tried and not kept (NVIDIA H200, 8192^3, 16 moduli): BM 192 with BK 128 in 4 stages 12.3-12.5 ms,
// in 3 12.1, with GROUP_M 12 12.2, GROUP_M 16 12.3; with BK 64, GROUP_M 16 12.0 (even), GROUP_M 4
// 12.4, 4 stages 12.5, INFLIGHT 0 15.0-15.3. 2-CTA clusters, one operand's slices multicast to
// both: NVIDIA's OpenCL (driver 580) launches an entry with .reqnctapercluster 2 as clusters of one
// CTA (%cluster_nctarank 1), so no multicast reaches a second one
// (tools/probes/cluster_launch.cpp).
// Earlier, against two warpgroups on 128 x 256 tiles of 128-deep slices in 4 stages (4096^3, 17
// moduli; the integer products' time): the tiles copied by the work-items with cp.async from
// residue lines, 1.96 ms against 1.70 (2.50 against 2.29 before the stores' remainders were rounded
// quotients); tile sets that fit two work-groups on a compute unit: BN 128 in 3 stages 1.90, in 2
// with INFLIGHT 0 1.90, with BK 64 in 5 stages 1.90; BM 64 in 2 stages with INFLIGHT 0 2.28, with
// BK 64 in 4 stages 2.13; 3 stages 1.69 (no gain); a warp of its own filling the stages, the
// warpgroups freeing them on mbarriers instead of a barrier per slice, 1.67 (13.9 ms at 8192^3
// against 13.6: even). With cp.async, before: BN 128 (also with STAGES 5 or INFLIGHT 0), STAGES 3,
// BK 64 with STAGES 5, BM 256 with BN 128, BM 64 and GROUP_M 16 were all slower than or even with
// those.

#ifndef BM // rows of the plane per work-group: 64 per warpgroup
#define BM 192
#endif
#ifndef BN // columns per work-group: the wgmma's N, 64, 128 or 256
#define BN 256
#endif
#ifndef BK // chars of K per slice: 32, 64 or 128 (the swizzle follows the row length)
#define BK 64
#endif
#ifndef STAGES // slices in local memory at once, INFLIGHT + 2 to 5
#define STAGES 5
#endif
#ifndef INFLIGHT // groups of wgmmas left running while the next slice's are issued: 0 or 1
#define INFLIGHT 1
#endif
#ifndef GROUP_M // tile rows visited together, so tiles of B stay in cache
#define GROUP_M 8
#endif

#define THREADS (BM * 2) // a warpgroup (128) per 64 rows
#define WORDS (BK / 4)   // 4-byte words per tile row
#define CHUNKS (BK / 16) // 16-byte chunks per tile row
#define ACC (BN / 2)     // accumulators per work-item
#define REDUCE_SLICES (REDUCE_EVERY / BK)

#if (BM % 64) || (BN != 64 && BN != 128 && BN != 256) || REDUCE_EVERY % BK
#error "BM is a multiple of 64; BN is 64, 128 or 256; BK divides 8192"
#endif
#if CHUNKS == 2
#define SWIZZLE_MODE 3 // 32-byte swizzle
#elif CHUNKS == 4
#define SWIZZLE_MODE 2 // 64-byte
#elif CHUNKS == 8
#define SWIZZLE_MODE 1 // 128-byte
#else
#error "BK is 32, 64 or 128"
#endif
#if INFLIGHT < 0 || INFLIGHT > 1 || STAGES < INFLIGHT + 2 || STAGES > 5
#error "INFLIGHT is 0 or 1; STAGES from INFLIGHT + 2 to 5"
#endif

// ozaki.cl has included nv/ptx_helpers.cl, nv/wgmma_core.cl (int accumulators) and
// ozaki_tiles.cl.
#include "../nv/bulk_copy.cl" // the copy engine's bulk copies and their mbarriers

#define TILE_AT(r, w) SWIZZLED_AT(r, w, WORDS)

inline ulong tile_descriptor(const __local uint *start) {
  return descriptor_of((const __local float *)start, WORDS, SWIZZLE_MODE);
}

// d += a * b over 64 x BN x 32 chars, a warpgroup-wide asynchronous operation.
inline void wgmma_s8(int *d, ulong a, ulong b) {
  asm volatile("//@sm_90a { .reg .pred p; setp.eq.u32 p, 1, 1; "
               "wgmma.mma_async.sync.aligned.m64n" STRINGIFY(BN) "k32.s32.s8.s8 " WGMMA_D ", p; }"
               : WGMMA_OUT
               : "l"(a), "l"(b)
               : "memory");
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
residue_products(__global const char *a, __global const char *b, __global char *c, uint m, uint n,
                 uint padded, uint products) {
  __local uint tiles[STAGES * (BM + BN) * WORDS] __attribute__((aligned(1024)));
  __local ulong full[STAGES]; // a phase per fill of the stage
  __local uint *const As = tiles, *const Bs = tiles + STAGES * BM * WORDS;
  const size_t z = get_group_id(1);
  const int p = moduli[z / products];
  const double inverse = 1.0 / p;
  const ulong2 origin = tile_origin(m, n, BM, BN, GROUP_M);
  const size_t block_m = origin.x, block_n = origin.y;
  const int tid = get_local_id(0), warpgroup = tid / 128;
  // This work-group's blocks of tiles: their slices one after another.
  const size_t planes_m = (m + BM - 1) / BM * BM, planes_n = (n + BN - 1) / BN * BN;
  const __global float *const a_tiles =
      (const __global float *)(a + (z * planes_m + block_m) * padded);
  const __global float *const b_tiles =
      (const __global float *)(b + (z * planes_n + block_n) * padded);
  const int slices = padded / BK;

  int acc[ACC];
#pragma unroll
  for (int i = 0; i < ACC; ++i)
    acc[i] = 0;

  if (tid == 0) {
    for (int stage = 0; stage < STAGES; ++stage)
      mbarrier_init(&full[stage], 1);
    mbarrier_init_fence();
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#define FILL(s)                                                                                    \
  if (tid == 0) {                                                                                  \
    const int stage = (s) % STAGES;                                                                \
    __local ulong *const bar = &full[stage];                                                       \
    mbarrier_expect(bar, (BM + BN) * BK);                                                          \
    bulk_copy((__local float *)(As + stage * BM * WORDS), a_tiles + (size_t)(s) * BM * WORDS,     \
              BM * BK, bar);                                                                       \
    bulk_copy((__local float *)(Bs + stage * BN * WORDS), b_tiles + (size_t)(s) * BN * WORDS,     \
              BN * BK, bar);                                                                       \
  }
  for (int s = 0; s < STAGES && s < slices; ++s)
    FILL(s)
  for (int s = 0; s < slices; ++s) {
    mbarrier_wait(&full[s % STAGES], (s / STAGES) & 1);
    const __local uint *as = As + (s % STAGES) * BM * WORDS + warpgroup * 64 * WORDS;
    const __local uint *bs = Bs + (s % STAGES) * BN * WORDS;
    wgmma_fence();
#pragma unroll
    for (int w = 0; w < WORDS; w += 8)
      wgmma_s8(acc, tile_descriptor(as + w), tile_descriptor(bs + w));
    wgmma_commit();
    wgmma_wait();
    if ((s + 1) % REDUCE_SLICES == 0) {
      wgmma_wait_all(); // the sums are in the registers
#pragma unroll
      for (int i = 0; i < ACC; ++i)
        acc[i] = nearest_remainder(acc[i], p, inverse);
    }
    // The wgmmas of slice s - INFLIGHT are done in this warpgroup; once they are in every
    // warpgroup, its stage takes the slice STAGES later.
    const int next = s - INFLIGHT + STAGES;
    if (s >= INFLIGHT && next < slices) {
      if (BM > 64)
        barrier(CLK_LOCAL_MEM_FENCE);
      FILL(next)
    }
  }
#undef FILL

  wgmma_wait_all();
  // Warp w of the warpgroup holds rows 16w + g and 16w + g + 8; accumulator pair i, columns
  // 8(i/2) + 2t and the next, of row g for even i and of row g + 8 for odd i.
  __global char *plane = c + z * m * n;
  const int lane = tid % 32, warp = (tid / 32) % 4, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < ACC / 2; ++i)
    store_residue_pair(plane, block_m + warpgroup * 64 + warp * 16 + g + (i % 2) * 8,
                       block_n + (i / 2) * 8 + 2 * t, (int2)(acc[2 * i], acc[2 * i + 1]), p,
                       inverse, m, n);
}
