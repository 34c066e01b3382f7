// The Ozaki scheme's integer products on Hopper's warpgroup instruction (gemm/ozaki.cl with
// TENSOR_CORES 2): wgmma.mma_async m64nBNk32 s8 x s8 -> s32, through inline PTX behind the
// "//@sm_90a " marker, so the host builds it with -mqlcl-nv-sm90a (matr_mul_wgmma_tf32.cl says
// how) on compute capability 9.0 only. The same kernel, residue_products(a, b, c, m, n, padded,
// products), as the other forms: each plane's m x n product of A's and B's residue lines
// (K-contiguous chars, `padded` a multiple of 16, zeros past K), reduced modulo the plane's
// modulus into chars.
//
// Both operands are K-major, the only layout wgmma takes for 8-bit integers, and a row of BK chars
// is a row of BK / 4 words: the tiles are step 16's (nv/wgmma_core.cl), copied by the work-items
// with cp.async, STAGES slices at once, and read by the tensor cores from local memory. A
// work-group is BM / 64 warpgroups; warpgroup w computes rows 64w..64w+63 of the BM x BN tile, one
// wgmma per 32 chars of K, INFLIGHT groups of them left running across the next slice's barrier.
// The sums are reduced modulo p every REDUCE_EVERY chars of K, once the warpgroup's wgmmas are
// done, so an int never passes 2^31.
//
// Launch: global (ceil(m / BM) * ceil(n / BN) * BM * 2, planes), local (BM * 2, 1).
//
// Tile sets tried and not kept (NVIDIA H200, the whole product at 4096^3 with 18 moduli, against
// the defaults' 4.75 ms; the integer products alone take 2.66 ms of it): BN 128 5.32 ms (with
// STAGES 5 5.19, with INFLIGHT 0 5.92); STAGES 3 5.38; BK 64 with STAGES 5 4.84; BM 256 with
// BN 128 4.91; BM 64 7.92; GROUP_M 16 4.75, no gain.

#ifndef BM // rows of the plane per work-group: 64 per warpgroup
#define BM 128
#endif
#ifndef BN // columns per work-group: the wgmma's N, 64, 128 or 256
#define BN 256
#endif
#ifndef BK // chars of K per slice: 32, 64 or 128 (the swizzle follows the row length)
#define BK 128
#endif
#ifndef STAGES // slices in local memory at once, INFLIGHT + 2 to 5
#define STAGES 4
#endif
#ifndef INFLIGHT // groups of wgmmas left running across the next slice's barrier: 0 or 1
#define INFLIGHT 1
#endif
#ifndef GROUP_M // tile rows visited together, so tiles of B stay in cache
#define GROUP_M 8
#endif

#define THREADS (BM * 2) // a warpgroup (128) per 64 rows
#define WORDS (BK / 4)   // 4-byte words per tile row
#define CHUNKS (BK / 16) // 16-byte chunks per tile row
#define A_COPIES (BM * CHUNKS / THREADS)
#define B_COPIES (BN * CHUNKS / THREADS)
#define ACC (BN / 2) // accumulators per work-item
#define AHEAD (STAGES - 1 - INFLIGHT) // slices copied ahead of the one multiplied
#define REDUCE_SLICES (REDUCE_EVERY / BK)

#if (BM % 64) || (BN != 64 && BN != 128 && BN != 256) || REDUCE_EVERY % BK
#error "BM is a multiple of 64; BN is 64, 128 or 256; BK divides 8192"
#endif
#if (BM * CHUNKS) % THREADS || (BN * CHUNKS) % THREADS
#error "the A and B tiles must split evenly into 16-byte copies over the work-group"
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
#if INFLIGHT < 0 || INFLIGHT > 1 || STAGES > 5
#error "INFLIGHT is 0 or 1; STAGES at most 5"
#endif
// copies_wait: slice s is in place once at most AHEAD - 1 later groups of copies are in flight.
#if AHEAD == 1
#define COPIES_IN_FLIGHT 0
#elif AHEAD == 2
#define COPIES_IN_FLIGHT 1
#elif AHEAD == 3
#define COPIES_IN_FLIGHT 2
#elif AHEAD == 4
#define COPIES_IN_FLIGHT 3
#else
#error "STAGES must be at least INFLIGHT + 2"
#endif

// ozaki.cl has included nv/ptx_helpers.cl, nv/wgmma_core.cl (int accumulators) and
// ozaki_tiles.cl.

#define TILE_AT(r, w) SWIZZLED_AT(r, w, WORDS)

inline ulong tile_descriptor(const __local uint *start) {
  return descriptor_of((const __local float *)start, WORDS, SWIZZLE_MODE);
}

// d += a * b over 64 x BN x 32 chars, a warpgroup-wide asynchronous operation.
inline void wgmma_s8(int *d, ulong a, ulong b) {
  asm volatile("//@sm_90a { .reg .pred p; setp.eq.u32 p, 1, 1; "
               "wgmma.mma_async.sync.aligned.m64n" STRINGIFY(BN) "k32.s32.s8.s8 " WGMMA_D
               ", p; }"
               : WGMMA_OUT
               : "l"(a), "l"(b)
               : "memory");
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
residue_products(__global const char *a, __global const char *b, __global char *c, uint m, uint n,
                 uint padded, uint products) {
  __local uint tiles[STAGES * (BM + BN) * WORDS] __attribute__((aligned(1024)));
  __local uint *const As = tiles, *const Bs = tiles + STAGES * BM * WORDS;
  const size_t z = get_group_id(1);
  a += z * m * padded;
  b += z * n * padded;
  const int p = moduli[z / products];
  const ulong2 origin = tile_origin(m, n, BM, BN, GROUP_M);
  const size_t block_m = origin.x, block_n = origin.y;
  const int tid = get_local_id(0), warpgroup = tid / 128;

  int acc[ACC];
#pragma unroll
  for (int i = 0; i < ACC; ++i)
    acc[i] = 0;

  const int slices = (padded + BK - 1) / BK;

#pragma unroll
  for (int s = 0; s < AHEAD; ++s)
    COPY_RESIDUE_SLICE(s)

  for (int s = 0; s < slices; ++s) {
    copies_wait(); // this work-item's copies of slice s are in place
    fence_to_async();
    // Everyone's copies of slice s are in place, and every warpgroup's wgmmas of the slice whose
    // stage the next copies refill (s - 1 - INFLIGHT) are done.
    barrier(CLK_LOCAL_MEM_FENCE);
    COPY_RESIDUE_SLICE(s + AHEAD)

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
        acc[i] %= p;
    }
  }

  wgmma_wait_all();
  // Warp w of the warpgroup holds rows 16w + g and 16w + g + 8; accumulator pair i, columns
  // 8(i/2) + 2t and the next, of row g for even i and of row g + 8 for odd i.
  __global char *plane = c + z * m * n;
  const int lane = tid % 32, warp = (tid / 32) % 4, g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < ACC / 2; ++i)
    store_residue_pair(plane, block_m + warpgroup * 64 + warp * 16 + g + (i % 2) * 8,
                       block_n + (i / 2) * 8 + 2 * t, (int2)(acc[2 * i], acc[2 * i + 1]), p, m,
                       n);
}
