// The Ozaki scheme's integer products on NVIDIA's INT8 tensor cores (gemm/ozaki.cl with
// TENSOR_CORES 1): mma.sync m16n8k32 s8 x s8 -> s32, through inline PTX (compute capability 8.0
// or later; the host checks before it builds this). The same kernel, residue_products(a, b, c,
// m, n, padded, products), as the portable form's: each plane's m x n product of A's and B's
// residue lines (K-contiguous chars, `padded` a multiple of 16, zeros past K), reduced modulo the
// plane's modulus into chars.
//
// In 4-byte words, an m16n8k32 s8 fragment is laid out as an m16n8k8 TF32 one (matr_mul_tf32.cl):
// tiles of BK chars go to local memory with cp.async as they lie in global memory, rows of 16-byte
// chunks permuted by an XOR of the row, read by ldmatrix. The sums are reduced modulo p every
// REDUCE_EVERY chars of K, so an int never passes 2^31.
//
// Launch: global (ceil(m / BM) * ceil(n / BN) * THREADS, planes), local (THREADS, 1).
//
// Tile sets tried and not kept (NVIDIA H200, 4096^3 with 18 moduli, against the defaults' 6.69
// ms): STAGES 2 7.03 ms; WN 32 7.18; BM 64 with WM 32 7.23; BM 256 7.45; BK 128 7.59; BM 256 with
// WN 32 8.15. STAGES 4 (6.61) is within the noise and needs more than 48 KiB of local memory.

#ifndef BM // rows of the plane per work-group
#define BM 128
#endif
#ifndef BN // columns per work-group
#define BN 128
#endif
#ifndef BK // chars of K per slice, a multiple of 32 (the mma's K)
#define BK 64
#endif
#ifndef WM // rows per warp, a multiple of 16
#define WM 64
#endif
#ifndef WN // columns per warp, a multiple of 16
#define WN 64
#endif
#ifndef STAGES // slices in local memory at once, 2 to 4
#define STAGES 3
#endif
#ifndef GROUP_M // block rows visited together, so tiles of B stay in cache
#define GROUP_M 8
#endif

#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (WARPS * 32)
#define MT (WM / 16)    // mma tiles per warp along M
#define NT (WN / 8)     // and along N
#define WORDS (BK / 4)  // 4-byte words per tile row
#define CHUNKS (BK / 16) // 16-byte chunks per tile row
#define A_COPIES (BM * CHUNKS / THREADS)
#define B_COPIES (BN * CHUNKS / THREADS)
#define REDUCE_SLICES (REDUCE_EVERY / BK)

#if (BM % WM) || (BN % WN) || (WM % 16) || (WN % 16) || (BK % 32) || REDUCE_EVERY % BK
#error "BM, BN must be multiples of WM, WN; WM and WN of 16; BK of 32 and a divisor of 8192"
#endif
#if (BM * CHUNKS) % THREADS || (BN * CHUNKS) % THREADS
#error "the A and B tiles must split evenly into 16-byte copies over the work-group"
#endif
#if STAGES == 2
#define COPIES_IN_FLIGHT 0
#elif STAGES == 3
#define COPIES_IN_FLIGHT 1
#elif STAGES == 4
#define COPIES_IN_FLIGHT 2
#else
#error "STAGES is 2, 3 or 4"
#endif

// Word w of tile row r: chunk w/4 of the row stored at chunk (w/4) ^ (the row's group), so the
// 8 rows one ldmatrix phase reads never share a bank.
#if CHUNKS >= 8
#define SWIZZLE(r) ((r) % CHUNKS)
#else
#define SWIZZLE(r) (((r) / (8 / CHUNKS)) % CHUNKS)
#endif
#define TILE_AT(r, w) ((r) * WORDS + ((((w) >> 2) ^ SWIZZLE(r)) << 2) + ((w) & 3))

// ozaki.cl has included nv/ptx_helpers.cl (cp.async, ldmatrix) and ozaki_tiles.cl.

// Chunk k (16 chars) of line `line` of `lines` residue lines of `padded` chars, into a tile slot;
// zeros past the last line or K.
inline void copy_residues(__local uint *dst, __global const char *residues, size_t line,
                          size_t lines, uint padded, uint k) {
  const bool in = line < lines && k < padded;
  __global const char *src = residues + (in ? line * padded + k : 0);
  copy_chunk((__local float *)dst, (__global const float *)src, in);
}

// Copies slice s of K of the work-group's tiles of A and B (lines of BK chars, WORDS words, CHUNKS
// 16-byte chunks, laid out by TILE_AT) into stage s % STAGES of As and Bs, and commits them as a
// group: one group for every slice, empty past the last (`slices`), so waiting for copies always
// counts the same way. A macro over the kernel's variables (tid, a, b, m, n,
// padded, block_m, block_n), expanded where the kernel uses it.
#define COPY_RESIDUE_SLICE(s)                                                                      \
  {                                                                                                \
    const int stage = (s) % STAGES;                                                                \
    const uint k0 = (uint)(s) * BK;                                                                \
    if ((s) < slices) {                                                                            \
      _Pragma("unroll") for (int l = 0; l < A_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = u / CHUNKS, w = (u % CHUNKS) * 4;                     \
        copy_residues(&As[stage * BM * WORDS + TILE_AT(r, w)], a, block_m + r, m, padded,          \
                      k0 + 4 * w);                                                                 \
      }                                                                                            \
      _Pragma("unroll") for (int l = 0; l < B_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = u / CHUNKS, w = (u % CHUNKS) * 4;                     \
        copy_residues(&Bs[stage * BN * WORDS + TILE_AT(r, w)], b, block_n + r, n, padded,          \
                      k0 + 4 * w);                                                                 \
      }                                                                                            \
    }                                                                                              \
    copies_commit();                                                                               \
  }

// d += a * b for one 16 x 8 x 32 tile of chars, a warp-wide operation.
inline void mma_s8(int4 *d, const uint a[4], const uint b[2]) {
  asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+r"(d->x), "+r"(d->y), "+r"(d->z), "+r"(d->w)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
residue_products(__global const char *a, __global const char *b, __global char *c, uint m, uint n,
                 uint padded, uint products) {
  __local uint As[STAGES * BM * WORDS] __attribute__((aligned(128)));
  __local uint Bs[STAGES * BN * WORDS] __attribute__((aligned(128)));
  const size_t z = get_group_id(1);
  a += z * m * padded;
  b += z * n * padded;
  const int p = moduli[z / products];
  const double inverse = 1.0 / p;

  const ulong2 origin = tile_origin(m, n, BM, BN, GROUP_M);
  const size_t block_m = origin.x, block_n = origin.y;

  const int tid = get_local_id(0), lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / (BN / WN) * WM, warp_n = warp % (BN / WN) * WN;

  int4 acc[MT][NT];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
      acc[i][j] = (int4)(0);

  const int slices = (padded + BK - 1) / BK;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s)
    COPY_RESIDUE_SLICE(s)

  // This lane's row addresses for ldmatrix, as the TF32 kernel's (in words): A's fragment from
  // tiles (rows 0-7, words 0-3), (8-15, 0-3), (0-7, 4-7), (8-15, 4-7); two of B's from (columns
  // 0-7, words 0-3), (0-7, 4-7), (8-15, 0-3), (8-15, 4-7).
  const int a_row = warp_m + lane % 8 + (lane / 8) % 2 * 8, a_w = lane / 16 * 4;
  const int b_row = warp_n + lane % 8 + lane / 16 * 8, b_w = (lane / 8) % 2 * 4;

  for (int s = 0; s < slices; ++s) {
    copies_wait();
    barrier(CLK_LOCAL_MEM_FENCE); // slice s is in place; stage (s-1) % STAGES is free again
    COPY_RESIDUE_SLICE(s + STAGES - 1)

    const __local uint *as = As + (s % STAGES) * BM * WORDS;
    const __local uint *bs = Bs + (s % STAGES) * BN * WORDS;
#pragma unroll
    for (int w = 0; w < WORDS; w += 8) {
      uint fa[MT][4], fb[NT][2];
#pragma unroll
      for (int i = 0; i < MT; ++i)
        load_matrices(fa[i], (const __local float *)&as[TILE_AT(a_row + i * 16, w + a_w)]);
#pragma unroll
      for (int j = 0; j < NT; j += 2) {
        uint r[4];
        load_matrices(r, (const __local float *)&bs[TILE_AT(b_row + j * 8, w + b_w)]);
        fb[j][0] = r[0];
        fb[j][1] = r[1];
        fb[j + 1][0] = r[2];
        fb[j + 1][1] = r[3];
      }
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
          mma_s8(&acc[i][j], fa[i], fb[j]);
    }
    if ((s + 1) % REDUCE_SLICES == 0) {
#pragma unroll
      for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
          acc[i][j] = (int4)(nearest_remainder(acc[i][j].x, p, inverse),
                             nearest_remainder(acc[i][j].y, p, inverse),
                             nearest_remainder(acc[i][j].z, p, inverse),
                             nearest_remainder(acc[i][j].w, p, inverse));
    }
  }

  // Each lane holds elements (g, 2t..2t+1) and (g+8, 2t..2t+1) of every 16 x 8 tile.
  __global char *plane = c + z * m * n;
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const size_t col = block_n + warp_n + j * 8 + 2 * t;
#pragma unroll
      for (int h = 0; h < 2; ++h)
        store_residue_pair(plane, block_m + warp_m + i * 16 + g + 8 * h, col,
                           h == 0 ? acc[i][j].xy : acc[i][j].zw, p, inverse, m, n);
    }
}
