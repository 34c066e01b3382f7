// Step 16 (beyond the article): the product on Hopper's warpgroup tensor-core instruction,
// wgmma.mma_async, through inline PTX; steps 17 and 18 build on it (TILED, TMA below).
//
// wgmma exists only for the sm_90a target, and NVIDIA's OpenCL compiler emits PTX for sm_90,
// whose assembler refuses it. So the instructions that need sm_90a are written behind the
// marker "//@sm_90a " at the start of their inline-asm text: a PTX comment, which the first
// build (for sm_90) skips. The bridge's build option -mqlcl-nv-sm90a then takes the driver's
// PTX, retargets it to sm_90a, removes the markers and builds that (docs/api.md). Built any
// other way the kernel computes nothing, so the host only builds it with that option.
//
// One work-group is BM / 64 warpgroups of 128 work-items. Warpgroup w computes rows
// 64w..64w+63 of the BM x BN block of C, one m64nBN wgmma per 8 values of K; the tensor cores
// read both operands straight from local memory, described by 64-bit matrix descriptors.
//
// MODE 1 (plain TF32): the tensor cores read the top 19 bits of each FP32 operand, truncating
// it: relative errors near 1e-3 (2.7-3x those of rounded inputs), for users who accept them.
// PARTS 1 has the host run round_to_tf32 (nv/tf32_passes.cl) on both operands first and
// multiply its copies: rounded inputs, with cuBLAS's TF32 errors, at 0.84-0.91x of the speed on
// an H100 at 4096-8192, the pass included (and faster where K is no multiple of 4, since the
// copies' rows are padded to whole 16-byte chunks). ROUND 1 rounds the chunks each work-item
// copied in local memory instead: two-thirds of the speed (any write of the work-items to local
// memory that the tensor cores then read costs about a third there).
// MODE 3 (3xTF32) and MODE 2 (TF32 + BF16) keep FP32 accuracy. The head a_hi of an operand is
// what the tensor cores read of it, and a_lo = a - a_hi is exact (below 2^-10 a); C = a_hi*b_hi
// + a_hi*b_lo + a_lo*b_hi.
// (How step 16's product computes the small terms: nv/wgmma_cp_async.cl.)
// Tensor cores round their sums toward zero, so FLUSH slices are summed into a scratch
// accumulator, which is then added into the FP32 one with round-to-nearest additions (Ootomo and
// Yokota, 2022); FLUSH 0 accumulates directly.
//
// Layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major; out = C, ROWS1 x COLS2, row-major. Both operands are
// K-contiguous, which is what wgmma's K-major TF32 operands need. Tiles go to local memory with
// cp.async, STAGES slices at once. Any sizes: loads past an edge read zeros.
//
// TILED 1 (step 17) takes both operands as tile_operand (nv/tf32_passes.cl) has laid them out,
// tile by tile, rounded (MODE 1) or split (MODE 3), and copies each slice of a tile with one bulk
// copy awaited on an mbarrier: no loads by the work-items.
// TMA 1 or 2 (step 18) is the same product with no pass: each slice of a tile is copied straight
// from in1 and in2 through tensor maps, which the kernel takes as a fourth argument, `maps`.
// TMA 1 with MODE 3 (step 18's 3xTF32) copies only A through its map and B from the pass.
//
// Launch: 1-D, global = ceil(ROWS1/BM) * ceil(COLS2/BN) * BM * 2, local = BM * 2. With PARTS 1,
// first round_to_tf32(in, copy, lines) for each operand: 1-D, lines * ceil(COLSROWS/8)
// work-items, lines = ROWS1 for A and COLS2 for B. With TILED 1, first tile_operand(in, tiles,
// lines, block) for each operand, block = BM for A and BN for B: 1-D,
// ceil(lines/block) * block * ceil(COLSROWS/4) work-items. With TMA 1 and MODE 3, that pass for B
// alone (block = BN).
//
// Built with -DGEMM (and TMA), the file is the library's tensor-core GEMM (bridge/src/gemm): the
// maps (written by the bridge) carry A's and B's leading dimensions, so K need not be a multiple
// of 4 (the maps read zeros past it); matricesMul takes a strided batch as the launch's second
// dimension (each product's two maps 256 bytes apart in `maps`; with MODE 3, the pass's tiles of
// each B one after another), C's rows LDC apart from c_offset, each product c_stride further, and
// C = alpha * A * B + beta * C, C unread when beta is 0. tile_operand then reads B's lines LDB
// apart from offset + product * stride (B_ALIGNED 1: all multiples of 4) and zero-pads them to
// whole fills of K.
// Built with -DGEMM and TMA 0, it is the same product where no tensor map can be written (no CUDA
// driver: MetaTrader under Wine): a pass, tile_lines, lays A out (and with MODE 1, B) in the very
// tiles a map's copies would write, BK-deep and swizzled, rounded to TF32 with MODE 1; each slice
// of a tile is then one contiguous bulk copy, as in step 17, and there is no `maps` argument.
//
// This file holds the design and the parameters; the code is in parts under nv/, included at
// its end in this order. The host inlines them as it reads the file (harness/src/kernel_source.cpp;
// cmake/KernelIncludes.cmake for the library, which embeds its kernels and has no folder for the
// OpenCL compiler's -I).

#ifndef ROWS1
#define ROWS1 2000
#endif
#ifndef COLSROWS
#define COLSROWS 2000
#endif
#ifndef COLS2
#define COLS2 2000
#endif
#ifndef MODE // 1: plain TF32, 2: TF32 + BF16 corrections, 3: 3xTF32 (2 and 3: FP32 accuracy)
#define MODE 1
#endif
#ifndef PARTS // MODE 1: in1 and in2 hold the operands (0) or round_to_tf32's copies of them (1)
#define PARTS 0
#endif
#ifndef BM // rows of C per work-group: 64 per warpgroup
#define BM 128
#endif
#ifndef BN // columns of C per work-group: the wgmma's N, 64, 128 or 256
#define BN 128
#endif
#ifndef BK // 8, 16 or 32 (the local-memory swizzle follows the row length)
#define BK 16
#endif
#ifndef STAGES // slices of K in local memory at once
#define STAGES 3
#endif
#ifndef INFLIGHT // wgmma groups left running across the next barrier: 0 or 1 (MODE 1 only)
#define INFLIGHT 0
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif
#ifndef ROUND // MODE 1: round each operand to TF32 in local memory (1) or let the tensor cores
#define ROUND 0 // truncate it (0), whose errors all lean the same way
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
#ifndef TILED // 1: the operands come tiled by tile_operand, one bulk copy per tile (step 17)
#define TILED 0
#endif
#ifndef TMA // 1 or 2 (FP32 or TF32-typed maps): tiles copied from in1 and in2 through tensor maps
#define TMA 0
#endif
#ifndef GEMM
#define GEMM 0
#endif
// Steps 17 and 18's products, and CLGemm's (GEMM, through maps or passes): tiles copied whole by
// the copy engine.
#define BULK (TILED || TMA || GEMM)
#if GEMM && TILED
#error "GEMM: the tensor-map product (TMA 1 or 2) or the one after tile_lines (TMA 0)"
#endif
// Step 18's 3xTF32 (and CLGemm's without maps): A as it is, split in registers; B split and tiled
// by step 17's pass.
#define SPLIT_B ((TMA || GEMM) && MODE == 3)

#define ROUNDING (MODE == 1 && ROUND)
#define M_ ROWS1
#define N_ COLS2
#ifndef LDC // GEMM: C's rows, and B's lines for the pass, this many floats apart
#define LDC N_
#endif
#ifndef LDB
#define LDB COLSROWS
#endif
#ifndef C_PAIRS // GEMM: LDC, C's offset and stride are even
#define C_PAIRS 0
#endif
#ifndef B_ALIGNED // GEMM: B's offset and stride are multiples of 4
#define B_ALIGNED 0
#endif
#ifndef B_TILES_SHARED // GEMM: the batch shares one B, tiled once
#define B_TILES_SHARED 0
#endif
// GEMM with TF32 maps (TMA 2, MODE 1): B_MN 1 reads a B stored K x N (N along its rows, as NN
// has it) through its map as it is, with no transposing copy. TF32 wgmma reads only K-major
// operands from local memory, and MN-major ones only from registers, so the kernel computes C^T =
// B^T A^T: B's tile is the register operand, loaded by the work-items from boxes of 32 columns
// (nv/wgmma_tiles.cl, fragments_of_b), A's tile the K-major one; C^T is stored transposed. BM then
// counts C's columns per work-group (the warpgroups' 64 rows of C^T each), BN C's rows (the
// wgmma's N). On an H200 at 4096 NN: 0.369 ms where the copy of B and the K-major product took
// 0.039 + 0.343. Tried and not kept: one set of fragment registers for every slice with INFLIGHT 1
// (the next slice's loads overwrote fragments still being read: wrong sums; slices in pairs now);
// INFLIGHT 0, 0.459 ms; C^T staged through the idle stages and stored in whole rows of C (16
// bytes a work-item), 0.364-0.369 ms in one run (no gain on the direct store's 0.369).
#ifndef B_MN
#define B_MN 0
#endif
#ifndef A_TILES_SHARED // GEMM without maps: the batch shares one A, tiled once
#define A_TILES_SHARED 0
#endif
// Floats per row of in1 and in2: round_to_tf32 pads its copies' rows to whole groups of 8.
#define K_ (PARTS ? (COLSROWS + 7) / 8 * 8 : COLSROWS)
#define THREADS (BM * 2) // a warpgroup (128) per 64 rows
#define CHUNKS (BK / 4)  // 16-byte chunks per tile row
#define A_COPIES (BM * CHUNKS / THREADS)
#define B_COPIES (BN * CHUNKS / THREADS)
#define ACC (BN / 2) // accumulator floats per work-item
#define AHEAD (STAGES - 1 - INFLIGHT) // slices copied ahead of the one being multiplied

#if (BM % 64) || (BN != 64 && BN != 128 && BN != 256)
#error "BM is a multiple of 64; BN is 64, 128 or 256"
#endif
#if B_MN && !(GEMM && TMA == 2 && MODE == 1)
#error "B_MN: the GEMM through TF32 maps (TMA 2, MODE 1)"
#endif
// The grid of work-groups' blocks, in rows of BM and columns of BN: C's, or with B_MN C^T's.
#if B_MN
#define GRID_ROWS N_
#define GRID_COLS M_
#else
#define GRID_ROWS M_
#define GRID_COLS N_
#endif
#if TILED && TMA
#error "TILED and TMA exclude each other"
#endif
#if (TMA || GEMM) &&                                                                              \
    (ROUND || BK < 16 || (COLSROWS % 4 && !GEMM) || (MODE == 1 && PARTS) ||                        \
     (MODE == 3 && (TMA > 1 || PARTS != 2 || (COLSROWS % BK && !GEMM) || INFLIGHT)) ||             \
     (MODE != 1 && MODE != 3))
#error "TMA: ROUND 0, BK 16 or 32, rows of whole 16-byte chunks (COLSROWS % 4 == 0); MODE 1 with PARTS 0, or MODE 3 with FP32 maps (TMA 1) or none, B split by the pass (PARTS 2), K a multiple of BK, INFLIGHT 0"
#endif
#if TILED && ((MODE != 1 && MODE != 3) || PARTS != (MODE == 3 ? 2 : 1) || ROUND || BK != 16)
#error "TILED: MODE 1 with PARTS 1 or MODE 3 with PARTS 2 (the pass's floats per float), BK 16"
#endif
#if BULK
#if STAGES < (TILED ? 2 : 1) || INFLIGHT < 0 || INFLIGHT > 1 || INFLIGHT >= STAGES ||             \
    (MODE == 3 && (FLUSH < 1 || BN > 128))
#error "TILED: STAGES at least 2 (TMA, GEMM: 1), INFLIGHT 0 or 1 and below STAGES; MODE 3: FLUSH at least 1, BN at most 128"
#endif
#else
#if MODE == 3 && (BM != BN || BM * (BN + 1) > STAGES * (BM + BN) * BK)
#error "MODE 3 needs BM == BN, and local memory for a BM x (BN + 1) tile of C^T"
#endif
#if PARTS < 0 || PARTS > 1 || (PARTS && (MODE != 1 || ROUND))
#error "PARTS 1 (operands rounded beforehand) is a form of MODE 1, in place of ROUND"
#endif
#if AHEAD < 1 || INFLIGHT < 0 || INFLIGHT > 1 || (MODE != 1 && INFLIGHT != 0)
#error "STAGES must be at least INFLIGHT + 2; INFLIGHT is 0 or 1, and 0 when MODE is not 1"
#endif
#endif
#if (BM * CHUNKS) % THREADS || (BN * CHUNKS) % THREADS
#error "the A and B tiles must split evenly into 16-byte copies over the work-group"
#endif

// The swizzle of the tiles' rows of BK floats (nv/wgmma_tiles.cl's TILE_AT and descriptors).
#if CHUNKS == 2
#define SWIZZLE_MODE 3 // 32-byte swizzle
#elif CHUNKS == 4
#define SWIZZLE_MODE 2 // 64-byte
#elif CHUNKS == 8
#define SWIZZLE_MODE 1 // 128-byte
#else
#error "BK is 8, 16 or 32"
#endif
// Step 16's copies (copies_wait): slice s is complete once at most AHEAD - 1 later groups of
// copies are still in flight.
#if BULK
#define COPIES_IN_FLIGHT 0 // (no cp.async)
#elif AHEAD == 1
#define COPIES_IN_FLIGHT 0
#elif AHEAD == 2
#define COPIES_IN_FLIGHT 1
#elif AHEAD == 3
#define COPIES_IN_FLIGHT 2
#elif AHEAD == 4
#define COPIES_IN_FLIGHT 3
#else
#error "at most 4 slices ahead"
#endif

// PASSES_ONLY 1 leaves the products out, so that the passes build on any device (the tests check
// them on PoCL).
#ifndef PASSES_ONLY
#define PASSES_ONLY 0
#endif

#include "nv/ptx_helpers.cl"    // cp.async copies, ldmatrix, BF16 pairs (as matr_mul_tf32.cl)
#include "nv/wgmma_tiles.cl"    // tiles, descriptors, the wgmma instructions, C's stores
#include "nv/wgmma_cp_async.cl" // step 16: tiles copied by the work-items with cp.async
#if BULK && !PASSES_ONLY
#include "nv/bulk_copy.cl" // the copy engine's bulk copies and their mbarriers
#endif
#include "nv/wgmma_bulk.cl"     // steps 17 and 18: tiles copied whole by the copy engine
#include "nv/tf32_passes.cl"    // the operand passes round_to_tf32 and tile_operand
