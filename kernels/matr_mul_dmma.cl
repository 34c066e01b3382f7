// Step 19 (beyond the article): the double product on Hopper's FP64 tensor cores, through inline
// PTX: mma.sync m16n8k16 (or m16n8k8) f64, the instructions cuBLAS's DGEMM runs on (there is no
// wgmma for FP64). Each multiply-add of the tensor cores is an FP64 fused multiply-add, so the
// product keeps FP64 accuracy. Needs compute capability 9.0 (m8n8k4, the only f64 shape of 8.x,
// runs at half the rate on Hopper) and NVIDIA's OpenCL compiler, which accepts inline PTX: the
// host checks both before it builds this file.
//
// Layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major; out = C, ROWS1 x COLS2, row-major. Tiles go to local memory as
// they are in global memory, with cp.async (straight from global memory, not through registers),
// STAGES slices in flight; each work-item's copies of a tile start at one pointer, a fixed
// distance apart. Tile rows are padded by PAD doubles, so the 16 lanes of a half-warp, which read
// 4 rows at 4 adjacent K (or 4 Ks at 4 adjacent rows), hit 16 different pairs of banks, and every
// fragment read is at a fixed offset from one address. Any sizes: loads past an edge read zeros.
//
// A work-group of (BM/WM) x (BN/WN) warps computes a BM x BN tile of C, each warp WM x WN of it
// in (WM/16) x (WN/8) accumulators of 16 x 8.
//
// Built with -DGEMM, the file's kernel is CLGemm's double product (bridge/src/gemm): `gemm` takes
// A's rows and B's columns LDA and LDB elements apart, or with A_LINES / B_LINES 1 an operand
// stored with K down its rows (NN's B, TN's A), read as it is: its tile holds BK rows of K; C's
// rows LDC apart, element offsets, a strided batch (the launch's second dimension) and
// C = alpha * A * B + beta * C, C left unread when beta is 0.
//
// With TMA 1 (CLGemm where the CUDA driver writes tensor maps; built for sm_90a), Hopper's copy
// engine fills the tiles instead of the work-items: per slice, one work-item asks for A's box and
// B's through their tensor maps (an argument after the GEMM's, written by the bridge: A's, then
// B's, per product of the batch), counted on the stage's mbarrier. The boxes are the padded tiles
// as they are: BK + PAD Ks of BM lines (160-byte rows for BK 16; the PAD columns hold the next
// slice's Ks, or zeros past K, and are never read), or for an operand with K down its rows BK rows
// of BM + PAD lines (1056-byte rows for 128 lines). The copy engine fills zeros past the edges, so
// nothing is checked. With TMA 2 it fills only the tiles of operands with K down their rows, the
// work-items copy the others: the engine is slow where a slice is many short rows (H200, CLGemm at
// 4096, 64 x 128 tiles: NT's 192 rows of 160 bytes ran at 0.85x cuBLAS DGEMM through maps against
// 0.89x with the work-items' copies; NN's 64 of 160 and 16 of 1056 bytes at 0.93x against 0.90x;
// TN's 32 of 544 and 1056 bytes at 1.01x against 0.95x: docs/results/step19-copy-engine-h200.txt).
// The work-items' copies took ~10% of the time (docs/results/step19-where-time-goes-h200.txt).
// With TMA 3 the engine fills both tiles, those of operands with K along their rows as unpadded
// rows of BK = 16 doubles (128 bytes) that it swizzles (16-byte chunk c of row r at c ^ (r % 8))
// in place of the padding; the lanes take their Ks in an order that keeps a half-warp's reads on
// 16 bank pairs in swizzled and padded tiles alike (lane_k below). NT's tuned sets take it: 0.93-
// 0.97x cuBLAS DGEMM at 2000-8192 against 0.85-0.91x with TMA 2.
//
// Tried, not kept (H200, 4096^3, 64 x 128 tiles in two stages unless said): rows of 32-byte
// granules swizzled by an XOR of the row instead of padding, 49.1 TFLOP/s against 53.2 (the
// swizzled offsets held registers: 255); a copy address per copy instead of one pointer, 52.6
// (255 registers, 227 now); each lane's K of a fragment adjacent (K permuted alike in A and B),
// read 16 bytes at a time, 46.5; 32-deep slices, 50.8; 128 x 128 tiles of 8 warps in three
// stages, 45.7 against 54.7. Against 54.7 for 1 x 4 warps of 64 x 32 in three stages
// (mqlcl-ptx-replay, B as lines of K; cuBLAS DGEMM 62.4):
//   16-byte fragment reads, rows padded by 2 (no conflicts), K rows placed by slot, 47.2
//   two sets of fragments, the next K step's read during this one's MMAs (m16n8k8), 36.3 to
//   50.3 over 13 tile shapes and stages
//   B's next fragments only, read before a slice's last row of MMAs, 50.9 (CLGemm NN; 54.4)
//   the loop unrolled by STAGES (stage offsets constant), copies inside unchecked, 52.6
//   cuBLAS's own tiles (2 x 2 warps of 32 x 64, m16n8k8, 64 x 128 x 16, 3 stages), 50.9
//   a cp.async.bulk per tile row on mbarriers, 25.6 (the copy engine is slow at 128-byte rows;
//   37.0 with 256-byte rows, BK 32 in two stages)
//   slices wholly inside the matrices copied unchecked (the checked copies are 197 of the loop's
//   336 instructions, 80 unchecked), 54.5 and 54.8 against 54.5 and 54.7; issued after the first
//   row of MMAs, 53.6 and 53.8
// TMA 3 for NN (A's tile swizzled, B's K-down tile padded), CLGemm at 4096: 45.2 TFLOP/s with
// NN's 64 x 128 tiles of 2 x 4 warps, 56.3 with NT's 64 x 64 of 1 x 2, against TMA 1's 57.3.
// Against 54.8 (docs/results/step19-where-time-goes-h200.txt; cuBLAS 62.4; without the copies,
// wrong products, 61.1):
//   the next row's A fragments read before this row's MMAs, 54.8 (ptxas already does); with the
//   copies after them, 53.1
//   one copy after each MMA (the mma asm volatile), 54.9; m16n8k8 51.7
//   cp.async with an L2 prefetch of 128 or 256 bytes, 54.7 and 54.6
//   4 stages with rows padded by 2 (two work-groups fit; 2-way conflicts), 46.6; 8-deep slices
//   in 4 or 5 stages, 50.6 and 48.7
//   8 warps of 32 x 32 or 64 x 16, two work-groups a unit (the PTX given .minnctapersm 2: 128
//   registers), 50.7 to 53.7; 64 x 64 tiles of 4 warps of 32 x 32, three or four a unit, 52.8
//   to 54.2
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
#ifndef A_LINES // 1: A stored with K down its rows (the library's GEMM sets it per call)
#define A_LINES 0
#endif
#ifndef B_LINES // 1: B stored with K down its rows
#define B_LINES 0
#endif
#ifndef TMA // tiles copied through tensor maps (CLGemm; sm_90a): 1 both, 2 those with X_LINES 1,
#define TMA 0 // 3 both, tiles of K-contiguous operands swizzled (BK 16)
#endif
#if TMA && !defined(GEMM)
#error "TMA reads the maps CLGemm writes: build it with -DGEMM"
#endif
#if TMA < 0 || TMA > 3
#error "TMA is 0, 1, 2 or 3"
#endif
#if TMA == 3 && BK != 16
#error "TMA 3 swizzles rows of 16 doubles: BK 16"
#endif
// Which tiles the copy engine fills (A_MAP, B_MAP), which the work-items; which of them are rows
// of BK Ks swizzled by the copy engine (A_SWIZZLED, B_SWIZZLED).
#define A_MAP (TMA == 1 || TMA == 3 || (TMA == 2 && A_LINES))
#define B_MAP (TMA == 1 || TMA == 3 || (TMA == 2 && B_LINES))
#define A_SWIZZLED (TMA == 3 && !A_LINES)
#define B_SWIZZLED (TMA == 3 && !B_LINES)
#define MAPPED (A_MAP || B_MAP)
#define WORK_ITEM_COPIES (!A_MAP || !B_MAP)

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
// Doubles after each tile row: rows BK + 4 (or BM + 4, BN + 4) doubles apart, 4 or 12 past a
// multiple of 16, put a half-warp's reads of 4 rows at 4 adjacent columns on 16 bank pairs.
#define PAD 4
// A's tile: BM lines of BK doubles, or with A_LINES BK rows of BM (K down the rows); B's alike.
// A swizzled tile's rows are not padded: the copy engine's 128-byte swizzle moves 16-byte chunk
// c of row r to chunk c ^ (r % 8), which spreads the same reads over the banks.
#if A_LINES
#define A_AT(m, k) ((k) * (BM + PAD) + (m))
#define A_ROWS BK
#define A_ROW BM
#else
#define A_AT(m, k) ((m) * (BK + PAD) + (k))
#define A_ROWS BM
#define A_ROW BK
#endif
#if B_LINES
#define B_AT(n, k) ((k) * (BN + PAD) + (n))
#define B_ROWS BK
#define B_ROW BN
#else
#define B_AT(n, k) ((n) * (BK + PAD) + (k))
#define B_ROWS BN
#define B_ROW BK
#endif
#define A_TILE (A_ROWS * (A_ROW + (A_SWIZZLED ? 0 : PAD)))
#define B_TILE (B_ROWS * (B_ROW + (B_SWIZZLED ? 0 : PAD)))
// A work-item copies 16 bytes of every (THREADS / (ROW / 2))th row of a tile.
#define A_COPIES (A_ROWS * A_ROW / 2 / THREADS)
#define B_COPIES (B_ROWS * B_ROW / 2 / THREADS)
// An operand's rows start 16-byte aligned: copied 16 bytes at a time, else 8.
#define A_PAIRS (LDA % 2 == 0 && ALIGNED)
#define B_PAIRS (LDB % 2 == 0 && ALIGNED)
// C's rows 16-byte aligned, stored two doubles at a time.
#define C_PAIRS (N_ % 2 == 0 && LDC % 2 == 0 && ALIGNED)

#if (BM % WM) || (BN % WN) || (WM % 16) || (WN % 8) || (BK % MMA_K)
#error "BM, BN must be multiples of WM, WN; WM of 16, WN of 8, BK of MMA_K"
#endif
#if MMA_K != 8 && MMA_K != 16
#error "MMA_K is 8 or 16"
#endif
#if (A_ROWS * A_ROW / 2) % THREADS || (B_ROWS * B_ROW / 2) % THREADS || THREADS % (A_ROW / 2) ||   \
    THREADS % (B_ROW / 2)
#error "the A and B tiles must split evenly into 16-byte copies over the work-group"
#endif
#if A_COPIES > 32 || B_COPIES > 32
#error "a work-item's copies of a tile are bits of a uint"
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

// copies_commit / copies_wait (cp.async groups): shared with the TF32 kernels.
#include "nv/ptx_helpers.cl"
#if MAPPED
#include "nv/bulk_copy.cl" // the copy engine's tensor-map copies and their mbarriers
#define MAPS_ARG , __global const ulong *maps // A's tensor map, then B's, per product
#else
#define MAPS_ARG
#endif

inline uint local_address(const __local double *p) {
  return (uint)(size_t)p;
}

// Elements `col` and col + 1 of a row of a matrix `cols` wide, at `src`, to local memory:
// zeros past the edge, and nothing read where `row_in` is false or col is past it (`any` stands
// for src then: an address inside the matrix). With `pairs`, one 16-byte copy (8 bytes read at
// the last column); else two of 8 bytes, for rows not 16-byte aligned.
inline void copy_pair(__local double *dst, const __global double *src, const __global double *any,
                      bool row_in, index_t col, index_t cols, bool pairs) {
  if (pairs) {
    const int bytes = !row_in || col >= cols ? 0 : col + 1 < cols ? 16 : 8;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(local_address(dst)),
                 "l"(bytes ? src : any), "r"(bytes)
                 : "memory");
    return;
  }
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    const bool in = row_in && col + e < cols;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(local_address(dst + e)),
                 "l"(in ? src + e : any), "r"(in ? 8 : 0)
                 : "memory");
  }
}

// One operand's share of a slice for this work-item: tile rows first_row + l * step (l <
// copies, a constant), from `src` on, `ld` apart in global memory; row l is in the matrix where
// ROW_IN (an expression of l) holds, and its elements from column `col` of `cols`. A macro, so
// that the loop is unrolled whatever the compiler inlines.
#define COPY_ROWS(tile, pitch, first_row, step, copies, src, ld, any, ROW_IN, col, cols, pairs)    \
  _Pragma("unroll") for (int l = 0; l < (copies); ++l)                                             \
      copy_pair((tile) + ((first_row) + l * (step)) * (pitch),                                     \
                (src) + (size_t)(l * (step)) * (ld), any, ROW_IN, col, cols, pairs)

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
            __global double *out GEMM_ARGS MAPS_ARG) {
#ifdef GEMM
  const size_t product = get_group_id(1); // of the batch
  in1 += offset_a + product * stride_a;
  in2 += offset_b + product * stride_b;
  out += offset_c + product * stride_c;
#endif
#if MAPPED
  maps += product * 32;
#endif
  // 1024: where the copy engine swizzles, by the address's bits (a stage is whole 1024 bytes).
  __local double As[STAGES * A_TILE] __attribute__((aligned(1024)));
  __local double Bs[STAGES * B_TILE] __attribute__((aligned(1024)));

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
#if TMA == 3
  // The lane's K of register p (kk = 4p below), the same in A and B, in place of t + 4p: K mod 4
  // differs across a quad's lanes (K-down tiles' rows lie 4 bank pairs apart, as with t + 4p),
  // and lanes t, t ^ 1 (whose Ks share a 16-byte chunk's half) differ in K's bit 3, so that after
  // the copy engine's swizzle (chunk c of row r at c ^ (r % 8); r % 8 is g) a half-warp reads 16
  // different bank pairs of a swizzled tile too.
  int lane_k[4], swizzled_k[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    lane_k[p] = 8 * ((t & 1) ^ (p >> 1)) + 4 * (p & 1) + 2 * (t & 1) + (t >> 1);
    swizzled_k[p] = (((lane_k[p] >> 1) ^ g) << 1) + (t >> 1);
  }
#define LANE_K(kk) lane_k[(kk) / 4]
#else
#define LANE_K(kk) ((kk) + t)
#endif
// A lane's element of A's tile `as` at line warp_m + g + m and its K of kk (m, kk: constants of
// the unrolled loops, kk a multiple of 4); B's of `bs` at line warp_n + g + n alike.
#if A_SWIZZLED
#define A_READ(m, kk) as[(warp_m + g + (m)) * BK + swizzled_k[(kk) / 4]]
#else
#define A_READ(m, kk) as[A_AT(warp_m + g + (m), LANE_K(kk))]
#endif
#if B_SWIZZLED
#define B_READ(n, kk) bs[(warp_n + g + (n)) * BK + swizzled_k[(kk) / 4]]
#else
#define B_READ(n, kk) bs[B_AT(warp_n + g + (n), LANE_K(kk))]
#endif

  double acc[MT][NT][4];
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int q = 0; q < 4; ++q)
        acc[i][j][q] = 0;

  const int slices = (K_ + BK - 1) / BK;
#if MAPPED
  __local ulong full[STAGES]; // a phase per fill of the stage
  if (tid == 0) {
    for (int stage = 0; stage < STAGES; ++stage)
      mbarrier_init(&full[stage], 1);
    mbarrier_init_fence();
    if (A_MAP)
      tensor_map_acquire(maps);
    if (B_MAP)
      tensor_map_acquire(maps + 16);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // An operand's box for the slice at k0: its corner at (k0, the block's first line), or at (the
  // block's first line, k0) where K runs down its rows.
#define BOX_CORNER(X, block, k0) X##_LINES ? (int)(block) : (k0), X##_LINES ? (k0) : (int)(block)
#define MAP_FILL(s)                                                                                \
  if (tid == 0 && (s) < slices) {                                                                  \
    __local ulong *const bar = &full[(s) % STAGES];                                                \
    mbarrier_expect(bar, ((A_MAP ? A_TILE : 0) + (B_MAP ? B_TILE : 0)) * 8);                       \
    if (A_MAP)                                                                                     \
      tensor_copy(local_address(As + (s) % STAGES * A_TILE), maps, BOX_CORNER(A, block_m, (s)*BK), \
                  bar);                                                                            \
    if (B_MAP)                                                                                     \
      tensor_copy(local_address(Bs + (s) % STAGES * B_TILE), maps + 16,                            \
                  BOX_CORNER(B, block_n, (s)*BK), bar);                                            \
  }
#define MAP_WAIT(s) mbarrier_wait(&full[(s) % STAGES], ((s) / STAGES) & 1);
#else
#define MAP_FILL(s)
#define MAP_WAIT(s)
#endif
#if WORK_ITEM_COPIES
  // This work-item's copies: 16 bytes at column a_col of tile rows a_row + l * a_step of A's
  // tile (l < A_COPIES), from a_src on (plus the slice's K); B's alike.
  const int a_row = tid / (A_ROW / 2), a_step = THREADS / (A_ROW / 2),
            a_col = tid % (A_ROW / 2) * 2;
  const int b_row = tid / (B_ROW / 2), b_step = THREADS / (B_ROW / 2),
            b_col = tid % (B_ROW / 2) * 2;
  // Where this work-item's first copy of an operand's tile starts in global memory.
#define FIRST_COPY(x, X, matrix, ld, block)                                                        \
  ((matrix) +                                                                                      \
   (X##_LINES ? (size_t)x##_row * (ld) + (block) : (size_t)((block) + x##_row) * (ld)) + x##_col)
  const __global double *a_src = FIRST_COPY(a, A, in1, LDA, block_m);
  const __global double *b_src = FIRST_COPY(b, B, in2, LDB, block_n);
  // Bit l: the line of copy l is in the matrix (where tile rows are lines: X_LINES 0).
  uint a_in = 0, b_in = 0;
#pragma unroll
  for (int l = 0; l < A_COPIES; ++l) {
    a_in |= (uint)(block_m + a_row + l * a_step < M_) << l;
  }
#pragma unroll
  for (int l = 0; l < B_COPIES; ++l) {
    b_in |= (uint)(block_n + b_row + l * b_step < N_) << l;
  }
  // One operand's copies (x: a or b, X: A or B) for the slice at k0: with X_LINES, tile rows are
  // Ks and a row's columns lines. Slice s goes to stage s % STAGES; a group of copies is
  // committed for every slice, empty past the end, so the wait below always counts the same way.
#define COPY_OPERAND(x, X, tiles, matrix, ld, block, lines, stage, k0)                             \
  COPY_ROWS((tiles) + (stage)*X##_TILE + x##_col, X##_ROW + PAD, x##_row, x##_step, X##_COPIES,    \
            x##_src + (X##_LINES ? (size_t)(k0) * (ld) : (size_t)(k0)), ld, matrix,                \
            X##_LINES ? (k0) + x##_row + l * x##_step < K_ : (x##_in >> l) & 1,                    \
            X##_LINES ? (block) + x##_col : (k0) + x##_col, X##_LINES ? (lines) : K_, X##_PAIRS)
#define COPY_SLICE(s)                                                                              \
  {                                                                                                \
    if ((s) < slices) {                                                                            \
      if (!A_MAP)                                                                                  \
        COPY_OPERAND(a, A, As, in1, LDA, block_m, M_, (s) % STAGES, (s)*BK);                       \
      if (!B_MAP)                                                                                  \
        COPY_OPERAND(b, B, Bs, in2, LDB, block_n, N_, (s) % STAGES, (s)*BK);                       \
    }                                                                                              \
    copies_commit();                                                                               \
  }

#define COPIES_WAIT() copies_wait()
#else
#define COPY_SLICE(s)
#define COPIES_WAIT()
#endif
#define FILL(s)                                                                                    \
  {                                                                                                \
    MAP_FILL(s)                                                                                    \
    COPY_SLICE(s)                                                                                  \
  }
  // Slice s - 1 is done (and the work-items' copies of slice s are in place): its stage takes
  // slice s + STAGES - 1; then the copy engine's part of slice s is awaited.
#define NEXT_SLICE(s)                                                                              \
  COPIES_WAIT();                                                                                   \
  barrier(CLK_LOCAL_MEM_FENCE);                                                                    \
  FILL((s) + STAGES - 1)                                                                           \
  MAP_WAIT(s)

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s)
    FILL(s)

  for (int s = 0; s < slices; ++s) {
    NEXT_SLICE(s)

    const __local double *as = As + (s % STAGES) * A_TILE;
    const __local double *bs = Bs + (s % STAGES) * B_TILE;
#pragma unroll
    for (int k = 0; k < BK; k += MMA_K) {
      // B's fragments of the warp's columns; A's one row tile at a time (registers: the
      // accumulators take 8 * MT * NT of them).
      double b[NT][B_REGS];
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int q = 0; q < B_REGS; ++q)
          b[j][q] = B_READ(j * 8, k + 4 * q);
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        double a[A_REGS];
#pragma unroll
        for (int q = 0; q < A_REGS; ++q)
          a[q] = A_READ(i * 16 + 8 * (q % 2), k + 4 * (q / 2));
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
