// Step 16 (beyond the article): the product on Hopper's warpgroup tensor-core instruction,
// wgmma.mma_async, through inline PTX.
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
// PARTS 1 has the host run round_to_tf32 (at the end of this file) on both operands first and
// multiply its copies: rounded inputs, with cuBLAS's TF32 errors, at 0.84-0.91x of the speed on
// an H100 at 4096-8192, the pass included (and faster where K is no multiple of 4, since the
// copies' rows are padded to whole 16-byte chunks). ROUND 1 rounds the chunks each work-item
// copied in local memory instead: two-thirds of the speed (any write of the work-items to local
// memory that the tensor cores then read costs about a third there).
// MODE 3 (3xTF32) and MODE 2 (TF32 + BF16) keep FP32 accuracy. The head a_hi of an operand is
// what the tensor cores read of it, and a_lo = a - a_hi is exact (below 2^-10 a); C = a_hi*b_hi
// + a_hi*b_lo + a_lo*b_hi.
// MODE 3 writes nothing to local memory but the copies: wgmma can take its first operand from
// registers, so each warp loads its rows of both tiles with ldmatrix and keeps their tails there.
// a_lo*b_hi is then a product of registers and B's tile; a_hi*b_lo is computed transposed, as
// b_lo^T * a_hi^T, with A's tile as the second operand, into an accumulator of C^T that is added
// to C at the end. (It needs BM = BN. Writing the tails to local memory instead, for the tensor
// cores to read, ran 11% slower on an H100.)
// MODE 2 stores, for every float of a slice, the BF16 pair (a_hi, a_lo) of A and (b_lo, b_hi) of
// B in local memory, so one BF16 m64nBNk16 product over the pairs is both small terms, at twice
// the TF32 rate. (Rounding the factors of the small terms to BF16's 8 bits costs about 2^-18 of
// each product.)
// Tensor cores round their sums toward zero, so FLUSH slices are summed into a scratch
// accumulator, which is then added into the FP32 one with round-to-nearest additions (Ootomo and
// Yokota, 2022); FLUSH 0 accumulates directly. (The C^T accumulator holds terms 2^-10 of the
// product and needs no such care.)
//
// Layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major; out = C, ROWS1 x COLS2, row-major. Both operands are
// K-contiguous, which is what wgmma's K-major TF32 operands need. Tiles go to local memory with
// cp.async, STAGES slices at once. Any sizes: loads past an edge read zeros.
//
// TILED 1 (step 17, after step 16's kernel below) takes both operands as tile_operand (at the end
// of this file) has laid them out, tile by tile, rounded (MODE 1) or split (MODE 3), and copies
// each slice of a tile with one bulk copy awaited on an mbarrier: no loads by the work-items.
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
#define BULK (TILED || TMA) // step 17's product: tiles copied whole by the copy engine
#ifndef GEMM
#define GEMM 0
#endif
#if GEMM && !TMA
#error "GEMM: the tensor-map product (TMA 1 or 2)"
#endif
// Step 18's 3xTF32: A through its tensor map as it is, split in registers; B split and tiled by
// step 17's pass.
#define SPLIT_B (TMA && MODE == 3)

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
#if TILED && TMA
#error "TILED and TMA exclude each other"
#endif
#if TMA && (ROUND || BK < 16 || (COLSROWS % 4 && !GEMM) || (MODE == 1 && PARTS) ||                \
            (MODE == 3 && (TMA != 1 || PARTS != 2 || (COLSROWS % BK && !GEMM) || INFLIGHT)) ||     \
            (MODE != 1 && MODE != 3))
#error "TMA: ROUND 0, BK 16 or 32, rows of whole 16-byte chunks (COLSROWS % 4 == 0); MODE 1 with PARTS 0, or MODE 3 with FP32 maps (TMA 1), B split by the pass (PARTS 2), K a multiple of BK, INFLIGHT 0"
#endif
#if TILED && ((MODE != 1 && MODE != 3) || PARTS != (MODE == 3 ? 2 : 1) || ROUND || BK != 16)
#error "TILED: MODE 1 with PARTS 1 or MODE 3 with PARTS 2 (the pass's floats per float), BK 16"
#endif
#if BULK
#if STAGES < (TMA ? 1 : 2) || INFLIGHT < 0 || INFLIGHT > 1 || INFLIGHT >= STAGES ||             \
    (MODE == 3 && (FLUSH < 1 || BN > 128))
#error "TILED: STAGES at least 2 (TMA: 1), INFLIGHT 0 or 1 and below STAGES; MODE 3: FLUSH at least 1, BN at most 128"
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

// Float k of tile row r in wgmma's canonical swizzled K-major layout: rows of BK floats, the
// 16-byte chunks of a row permuted by an XOR with bits of the row (the 32, 64 or 128-byte swizzle
// for BK = 8, 16, 32), so the tensor cores read 8 rows without bank conflicts. Each 32-byte piece
// of a global row stays together: cp.async into the no-swizzle layout, which puts a row's chunks
// 128 bytes apart, ran at a third of the speed on the H100.
#if CHUNKS == 2
#define SWIZZLE_MODE 3 // 32-byte swizzle
#elif CHUNKS == 4
#define SWIZZLE_MODE 2 // 64-byte
#elif CHUNKS == 8
#define SWIZZLE_MODE 1 // 128-byte
#else
#error "BK is 8, 16 or 32"
#endif
// The same for rows of `row` floats (8, 16 or 32): TILE_AT is that of the product's BK.
#define SWIZZLED_AT(r, k, row)                                                                     \
  ((r) * (row) + ((((k) >> 2) ^ (((r) / (32 / (row))) % ((row) / 4))) << 2) + ((k) & 3))
#define TILE_AT(r, k) SWIZZLED_AT(r, k, BK)
// Copy u of a slice, row-major: consecutive work-items copy consecutive 16-byte chunks.
#define CHUNK_ROW(u) ((u) / CHUNKS)
#define CHUNK_K(u) ((u) % CHUNKS * 4)

inline uint shared_address(const __local float *p) { return (uint)(size_t)p; }

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

// 16 bytes from `src` to local memory, or zeros when `in` is false (then nothing is read).
inline void copy_chunk(__local float *dst, const __global float *src, bool in) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared_address(dst)),
               "l"(src), "r"(in ? 16 : 0)
               : "memory");
}

// One float, for rows that are not 16-byte aligned (K not a multiple of 4).
inline void copy_float(__local float *dst, const __global float *src, bool in) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(shared_address(dst)),
               "l"(src), "r"(in ? 4 : 0)
               : "memory");
}

inline void copies_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
// Slice s is complete once at most AHEAD - 1 later groups of copies are still in flight.
#if BULK
#define LATER_GROUPS 0 // (no cp.async)
#elif AHEAD == 1
#define LATER_GROUPS 0
#elif AHEAD == 2
#define LATER_GROUPS 1
#elif AHEAD == 3
#define LATER_GROUPS 2
#elif AHEAD == 4
#define LATER_GROUPS 3
#else
#error "at most 4 slices ahead"
#endif
inline void copies_wait(void) {
  asm volatile("cp.async.wait_group " STRINGIFY(LATER_GROUPS) ";" ::: "memory");
}

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
// Four 8x4 tiles of 32-bit elements, one row address per lane (lanes 8i..8i+7 give tile i):
// lane l receives element (l/4, l%4) of each tile.
inline void load_matrices(uint r[4], const __local float *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
// The rounded TF32 tails of 4 fragment values.
inline void tails(uint r[4]) {
  for (int q = 0; q < 4; ++q) {
    const float x = as_float(r[q]);
    r[q] = as_uint(x - as_float(as_uint(x) & 0xffffe000u)) + 0x1000u;
  }
}
#endif

// Chunk of row `row` at k of a K-contiguous matrix with `lines` rows, into a tile slot.
inline void copy_tile_chunk(__local float *dst, const __global float *matrix, int row, int lines,
                            int k) {
  const bool row_in = row < lines;
  const __global float *src = matrix + (size_t)(row_in ? row : 0) * K_;
#if K_ % 4 == 0
  copy_chunk(dst, src + (k < K_ ? k : 0), row_in && k < K_);
#else
  for (int e = 0; e < 4; ++e)
    copy_float(dst + e, src + (k + e < K_ ? k + e : 0), row_in && k + e < K_);
#endif
}

// Rounds this work-item's chunks of a slice to TF32 in place: adding half the weight of the 13
// dropped bits makes the tensor cores' truncation a rounding to nearest (ties away from zero).
inline void round_chunk(__local float *p) {
  __local uint4 *q = (__local uint4 *)p;
  *q = *q + (uint4)(0x1000u);
}

#if MODE == 2 && !TILED
// What the tensor cores read of x as a TF32 operand.
inline float tf32_head(float x) { return as_float(as_uint(x) & 0xffffe000u); }

// Two floats as a BF16 pair rounded to nearest: `low` in the low half (the smaller K).
inline uint bf16_pair(float low, float high) {
  uint r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(high), "f"(low));
  return r;
}

// The split of 4 floats of a tile as BF16 pairs: the head first (A, whose pairs meet B's (tail,
// head)) or the tail first (B).
inline float4 split4(float4 x, bool head_first) {
  const float4 head = (float4)(tf32_head(x.x), tf32_head(x.y), tf32_head(x.z), tf32_head(x.w));
  const float4 tail = x - head;
  return head_first ? as_float4((uint4)(bf16_pair(head.x, tail.x), bf16_pair(head.y, tail.y),
                                        bf16_pair(head.z, tail.z), bf16_pair(head.w, tail.w)))
                    : as_float4((uint4)(bf16_pair(tail.x, head.x), bf16_pair(tail.y, head.y),
                                        bf16_pair(tail.z, head.z), bf16_pair(tail.w, head.w)));
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

// PASSES_ONLY 1 leaves the products out, so that the passes build on any device (the tests check
// them on PoCL).
#ifndef PASSES_ONLY
#define PASSES_ONLY 0
#endif

#if !BULK && !PASSES_ONLY
__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
matricesMul(__global const float *in1, __global const float *in2, __global float *out) {
  // The stages of A's tiles, then of B's (MODE 3 reuses them for C^T at the end).
  __local float tiles[STAGES * (BM + BN) * BK] __attribute__((aligned(1024)));
  __local float *const As = tiles, *const Bs = tiles + STAGES * BM * BK;
#if MODE == 2
  __local float As_split[BM * BK] __attribute__((aligned(1024)));
  __local float Bs_split[BN * BK] __attribute__((aligned(1024)));
#endif

  const int2 origin = block_origin();
  const int block_m = origin.x, block_n = origin.y;
  const int tid = get_local_id(0), warpgroup = tid / 128;

  float acc[ACC];
#pragma unroll
  for (int i = 0; i < ACC; ++i)
    acc[i] = 0.0f;
#if MODE == 3
  float acc_t[BM / 2]; // C^T: the a_hi * b_lo products, as b_lo^T * a_hi^T
#pragma unroll
  for (int i = 0; i < BM / 2; ++i)
    acc_t[i] = 0.0f;
  // This lane's row and k within its warpgroup's 64 rows for ldmatrix: 8 x 4 tiles (rows 0-7,
  // k 0-3), (8-15, 0-3), (0-7, 4-7), (8-15, 4-7) of the warp's 16 rows, the m16n8k8 A fragment
  // that wgmma takes from registers.
  const int f_row = (tid / 32) % 4 * 16 + tid % 8 + tid % 32 / 8 % 2 * 8, f_k = tid % 32 / 16 * 4;
#endif
#if MODE != 1 && FLUSH > 0
  float part[ACC]; // the tensor cores' sums of FLUSH slices
#pragma unroll
  for (int i = 0; i < ACC; ++i)
    part[i] = 0.0f;
#else
#define part acc
#endif

  const int slices = (K_ + BK - 1) / BK;
  // Slice s goes to stage s % STAGES; a group of copies is committed for every slice, empty past
  // the end, so the wait below always counts the same way.
#define COPY_SLICE(s)                                                                              \
  {                                                                                                \
    const int stage = (s) % STAGES, k0 = (s) * BK;                                                 \
    if ((s) < slices) {                                                                            \
      _Pragma("unroll") for (int l = 0; l < A_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = CHUNK_ROW(u), k = CHUNK_K(u);                         \
        copy_tile_chunk(&As[stage * BM * BK + TILE_AT(r, k)], in1, block_m + r, M_, k0 + k);       \
      }                                                                                            \
      _Pragma("unroll") for (int l = 0; l < B_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = CHUNK_ROW(u), k = CHUNK_K(u);                         \
        copy_tile_chunk(&Bs[stage * BN * BK + TILE_AT(r, k)], in2, block_n + r, N_, k0 + k);       \
      }                                                                                            \
    }                                                                                              \
    copies_commit();                                                                               \
  }

#pragma unroll
  for (int s = 0; s < AHEAD; ++s)
    COPY_SLICE(s)
#if ROUNDING
#define ROUND_SLICE(s)                                                                             \
  {                                                                                                \
    _Pragma("unroll") for (int l = 0; l < A_COPIES; ++l) round_chunk(                              \
        &As[((s) % STAGES) * BM * BK +                                                             \
            TILE_AT(CHUNK_ROW(tid + l * THREADS), CHUNK_K(tid + l * THREADS))]);                   \
    _Pragma("unroll") for (int l = 0; l < B_COPIES; ++l) round_chunk(                              \
        &Bs[((s) % STAGES) * BN * BK +                                                             \
            TILE_AT(CHUNK_ROW(tid + l * THREADS), CHUNK_K(tid + l * THREADS))]);                   \
  }
  copies_wait();
  ROUND_SLICE(0)
#endif

  for (int s = 0; s < slices; ++s) {
#if ROUNDING
    // Slice s was waited for and rounded while slice s - 1 was being multiplied.
#else
    copies_wait(); // this work-item's copies of slice s are in place
#endif
    fence_to_async();
    // Everyone's copies of slice s are in place, and every warpgroup has waited for the wgmma
    // groups that last read the stage the next copies refill (and, MODE 2, the split).
    barrier(CLK_LOCAL_MEM_FENCE);
    COPY_SLICE(s + AHEAD)

    const __local float *as = As + (s % STAGES) * BM * BK + warpgroup * 64 * BK;
    const __local float *bs = Bs + (s % STAGES) * BN * BK;
#if MODE == 2
    // Each work-item splits the chunks it copied (its own copies are complete).
#pragma unroll
    for (int l = 0; l < A_COPIES; ++l) {
      const int at = TILE_AT(CHUNK_ROW(tid + l * THREADS), CHUNK_K(tid + l * THREADS));
      *(__local float4 *)&As_split[at] =
          split4(*(__local float4 *)&As[(s % STAGES) * BM * BK + at], true);
    }
#pragma unroll
    for (int l = 0; l < B_COPIES; ++l) {
      const int at = TILE_AT(CHUNK_ROW(tid + l * THREADS), CHUNK_K(tid + l * THREADS));
      *(__local float4 *)&Bs_split[at] =
          split4(*(__local float4 *)&Bs[(s % STAGES) * BN * BK + at], false);
    }
    fence_to_async();
    barrier(CLK_LOCAL_MEM_FENCE);
    const __local float *as_split = As_split + warpgroup * 64 * BK;
#endif

#if MODE == 3
    uint a_lo[BK / 8][4], b_lo[BK / 8][4];
#pragma unroll
    for (int j = 0; j < BK / 8; ++j) {
      // The warpgroup's 64 rows of A (for C) and of B (for C^T).
      load_matrices(a_lo[j], &as[TILE_AT(f_row, j * 8 + f_k)]);
      load_matrices(b_lo[j], &bs[TILE_AT(warpgroup * 64 + f_row, j * 8 + f_k)]);
      tails(a_lo[j]);
      tails(b_lo[j]);
    }
#endif
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < BK; k += 8) {
#if MODE == 3
      wgmma_tf32_rs(part, a_lo[k / 8], descriptor(bs + k));
      wgmma_tf32_rs(acc_t, b_lo[k / 8], descriptor(as - warpgroup * 64 * BK + k)); // all of A
#endif
#if MODE == 2
      wgmma_bf16(part, descriptor(as_split + k), descriptor(Bs_split + k));
#endif
      if (!LEFT_OUT(s))
        wgmma_tf32(part, descriptor(as + k), descriptor(bs + k));
    }
    wgmma_commit();
#if ROUNDING
    if (s + 1 < slices) { // round the next slice while the tensor cores work on this one
      copies_wait(); // slice s + 1 (the copies of slice s + AHEAD are committed now)
      ROUND_SLICE(s + 1)
    }
#endif
    wgmma_wait();
#if MODE != 1 && FLUSH > 0
    if ((s + 1) % FLUSH == 0 || s + 1 == slices) {
#pragma unroll
      for (int i = 0; i < ACC; ++i) {
        acc[i] += part[i]; // round-to-nearest FP32 additions
        part[i] = 0.0f;
      }
    }
#endif
  }
  wgmma_wait_all();

#if MODE == 3
  // C^T's block, transposed through local memory (rows padded by one against bank conflicts),
  // added to C's before the store (the accumulators' layout: store_block).
  const int lane = tid % 32, warp = (tid / 32) % 4, g = lane / 4, t = lane % 4;
  __local float *const ct = tiles;
  barrier(CLK_LOCAL_MEM_FENCE); // every warpgroup's wgmma groups are done with the tiles
#pragma unroll
  for (int i = 0; i < BM / 2; ++i) {
    const int n = warpgroup * 64 + warp * 16 + g + (i % 2) * 8, m = (i / 2) * 8 + 2 * t;
    ct[m * (BN + 1) + n] = acc_t[2 * i];
    ct[(m + 1) * (BN + 1) + n] = acc_t[2 * i + 1];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int i = 0; i < ACC / 2; ++i) {
    const int m = warpgroup * 64 + warp * 16 + g + (i % 2) * 8, n = (i / 2) * 8 + 2 * t;
    acc[2 * i] += ct[m * (BN + 1) + n];
    acc[2 * i + 1] += ct[m * (BN + 1) + n + 1];
  }
#endif
  store_block(out, acc, block_m + warpgroup * 64, block_n, tid);
}
#endif // !BULK && !PASSES_ONLY

// ---- Step 17: operands tiled beforehand (TILED 1); step 18: tiles through tensor maps (TMA) ----
// tile_operand (below) has rewritten each operand as the product reads it: for every block of BM
// rows of A (BN columns of B) and every slice of K, one tile of 64-byte rows, already in the
// swizzled layout above, the slices of a block one after another. So a slice of a tile is one
// contiguous run of global memory, and one work-item copies it with one cp.async.bulk (the copy
// engine of Hopper's TMA, without a tensor map), whose completion
// counts down the stage's mbarrier. Nobody else issues loads or waits at a barrier per slice:
// the work-items wait on the mbarrier, multiply, and the stage is refilled once the products that
// read it are done. MODE 1: a row is 16 values of K, rounded to TF32. MODE 3: a row is 8 values
// of K, their heads and then their tails, so the three products of 3xTF32 each read local memory
// filled by the copy alone (none of step 16's register splits or C^T). With A_REGS 1, MODE 3 loads
// A's heads and tails into registers with ldmatrix and multiplies them from there (wgmma's
// register operand): A is then read from local memory once per slice instead of three times,
// which is what the local memory's bandwidth was short of (1-2.5% faster on an H100).
//
// TMA (step 18) needs no pass: the copy engine's tensor-map form (cp.async.bulk.tensor) reads a
// BM x BK box of A (BN x BK of B) straight from the row-major operand, writes it into local memory
// in the swizzle of its row length, and fills zeros past the matrix's edges. The maps (128 bytes
// each, A's then B's) come in a fourth argument, written by the bridge (CLBufferTensorMap); OpenCL
// has no way to make them. TMA 1 types them FP32, and the tensor cores truncate the inputs as in
// step 16; TMA 2 types them TF32, and the copy rounds each value to nearest on its way (cuBLAS's
// TF32 errors, at no cost). On an H100, 64-byte rows (BK 16) ran at 229-232 TFLOP/s at 4096 in two
// stages, where step 17's contiguous copies of the same tiles ran at 279: the copy engine is
// slower at gathering short rows. 128-byte rows (BK 32) fill 48 KiB in two stages, so they run in
// one (STAGES 1: the slice is multiplied, then refilled), the work-groups on a compute unit taking
// turns: 240-244 TFLOP/s with 128 x 128 tiles, 257-270 with 64 x 256 and GROUP_M 64.
//
// SPLIT_B (TMA 1 with MODE 3, step 18's 3xTF32) reads A through its map as it is, each slice BK
// deep, and splits it in registers after ldmatrix: its head is the raw value (the tensor cores
// truncate it), its tail the rest, rounded. B comes from step 17's pass, split into heads and
// tails, BK / 8 of its 8-deep slices per stage, one bulk copy. So only B has a pass, and A's tile
// is read from local memory once per slice, by ldmatrix, and written by the copy at half the size
// of step 17's heads and tails. On an H100 at 4096: 110-116 TFLOP/s with the pass, where step 17
// ran at 97-99 in the same runs; 64 x 128 tiles, 16-deep stages, two of them (48 KiB allow no
// third), GROUP_M 64.
#if TILED || SPLIT_B
#define KPS (16 / PARTS) // values of K per slice of a tiled operand (the pass's)
#elif TMA
#define KPS BK
#endif
#if BULK
#define STAGE_K (TILED ? KPS : BK) // values of K per fill of a stage
#define FILLS ((COLSROWS + STAGE_K - 1) / STAGE_K)
#define SLICES (FILLS * (STAGE_K / KPS)) // slices of a tiled operand's block: whole fills
#define TILE_A (BM * BK) // floats per stage of A's tile
#if SPLIT_B
#define TILE_B (BN * 16 * (BK / 8)) // BK / 8 tiled slices with rows of 16 floats
#else
#define TILE_B (BN * BK)
#endif
#endif

#if BULK && !PASSES_ONLY
inline uint barrier_address(const __local ulong *bar) { return (uint)(size_t)bar; }

inline void mbarrier_init(__local ulong *bar, uint count) {
  asm volatile("//@sm_90a mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier_address(bar)),
               "r"(count)
               : "memory");
}
// Makes the initialised mbarriers visible to the copy engine.
inline void mbarrier_init_fence(void) {
  asm volatile("//@sm_90a fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Arrives on `bar` and tells it `bytes` more are coming: the phase ends when they have.
inline void mbarrier_expect(__local ulong *bar, uint bytes) {
  asm volatile("//@sm_90a mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   barrier_address(bar)),
               "r"(bytes)
               : "memory");
}
// Waits until the phase of `bar` with this parity is complete.
inline void mbarrier_wait(__local ulong *bar, uint parity) {
  uint done = 0;
  while (!done)
    asm volatile("//@sm_90a { .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(barrier_address(bar)), "r"(parity)
                 : "memory");
}
#if TMA
// The box of the tensor `map` at (row, k) from global memory to local memory by the copy engine,
// counted on `bar`; zeros where it lies past the tensor's edges.
inline void tensor_copy(__local float *dst, const __global ulong *map, int k, int row,
                        __local ulong *bar) {
  asm volatile("//@sm_90a cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx"
               "::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(dst)),
               "l"(map), "r"(k), "r"(row), "r"(barrier_address(bar))
               : "memory");
}
// The maps were written by the host: ordered before the copy engine reads them.
inline void tensor_map_acquire(const __global ulong *map) {
  asm volatile("//@sm_90a fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map)
               : "memory");
}
#endif
// `bytes` from global memory to local memory by the copy engine, counted on `bar`.
inline void bulk_copy(__local float *dst, const __global float *src, uint bytes,
                      __local ulong *bar) {
  asm volatile("//@sm_90a cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], "
               "[%1], %2, [%3];" ::"r"(shared_address(dst)),
               "l"(src), "r"(bytes), "r"(barrier_address(bar))
               : "memory");
}

#ifndef A_REGS
#define A_REGS 0
#endif
#if (A_REGS || SPLIT_B) && (MODE != 3 || INFLIGHT)
#error "A_REGS and SPLIT_B: MODE 3 with INFLIGHT 0 (the next slice's fragments overwrite the registers)"
#endif
#if MODE == 3
#define RS_KEEP_64 "%37"
#define RS_KEEP_128 "%69"
inline void wgmma_tf32_rs_keep(float *d, const uint a[4], ulong b, uint keep) {
  asm volatile("//@sm_90a { .reg .pred p; setp.ne.u32 p, " CAT(RS_KEEP_, BN) ", 0; "
               "wgmma.mma_async.sync.aligned.m64n" STRINGIFY(BN) "k8.f32.tf32.tf32 " CAT(REGS_, BN)
                   CAT(RS_, BN) ", p, 1, 1; }"
               : CAT(OUT_, BN)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(keep)
               : "memory");
}
#define KEEP_64 "%34"
#define KEEP_128 "%66"
// d = a * b, plus d unless `keep` is 0: the first product of a FLUSH group starts the sum afresh.
inline void wgmma_tf32_keep(float *d, ulong a, ulong b, uint keep) {
  asm volatile("//@sm_90a { .reg .pred p; setp.ne.u32 p, " CAT(KEEP_, BN) ", 0; "
               "wgmma.mma_async.sync.aligned.m64n" STRINGIFY(BN) "k8.f32.tf32.tf32 " WGMMA_D
               ", p, 1, 1; }"
               : WGMMA_OUT
               : "l"(a), "l"(b), "r"(keep)
               : "memory");
}
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
matricesMul(__global const float *in1, __global const float *in2, __global float *out
#if TMA
            ,
            __global const ulong *maps // A's tensor map, then B's
#endif
#if GEMM
            ,
            ulong c_offset, ulong c_stride, float alpha, float beta
#endif
) {
#if GEMM
  const size_t product = get_group_id(1); // of the batch
  maps += product * 32;
  out += c_offset + product * c_stride;
#if SPLIT_B && !B_TILES_SHARED
  in2 += product * (size_t)((N_ + BN - 1) / BN) * SLICES * BN * 16;
#endif
#endif
  __local float tiles[STAGES * (TILE_A + TILE_B)] __attribute__((aligned(1024)));
  __local ulong full[STAGES]; // a phase per fill of the stage
  __local float *const As = tiles, *const Bs = tiles + STAGES * TILE_A;

  const int2 origin = block_origin();
  const int block_m = origin.x, block_n = origin.y;
  const int tid = get_local_id(0), warpgroup = tid / 128;

  float acc[ACC];
#pragma unroll
  for (int i = 0; i < ACC; ++i)
    acc[i] = 0.0f;
#if MODE == 3
  float part[ACC]; // the tensor cores' sums of FLUSH slices
#pragma unroll
  for (int i = 0; i < ACC; ++i)
    part[i] = 0.0f;
  const int f_row = (tid / 32) % 4 * 16 + tid % 8 + tid % 32 / 8 % 2 * 8, f_k = tid % 32 / 16 * 4;
#endif

  if (tid == 0) {
    for (int stage = 0; stage < STAGES; ++stage)
      mbarrier_init(&full[stage], 1);
    mbarrier_init_fence();
#if TMA
    tensor_map_acquire(maps);
#if !SPLIT_B
    tensor_map_acquire(maps + 16);
#endif
#endif
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if TMA
#define COPY_A(s, bar) tensor_copy(As + (s) % STAGES * TILE_A, maps, (s) * BK, block_m, bar)
#else
  const __global float *const a_tiles = in1 + (size_t)(block_m / BM) * SLICES * TILE_A;
#define COPY_A(s, bar)                                                                             \
  bulk_copy(As + (s) % STAGES * TILE_A, a_tiles + (size_t)(s) * TILE_A, TILE_A * 4, bar)
#endif
#if TMA && !SPLIT_B
#define COPY_B(s, bar) tensor_copy(Bs + (s) % STAGES * TILE_B, maps + 16, (s) * BK, block_n, bar)
#else // the pass's tiles: SLICES slices of BN rows of 16 floats per block
  const __global float *const b_tiles = in2 + (size_t)(block_n / BN) * SLICES * BN * 16;
#define COPY_B(s, bar)                                                                             \
  bulk_copy(Bs + (s) % STAGES * TILE_B, b_tiles + (size_t)(s) * TILE_B, TILE_B * 4, bar)
#endif
#define FILL(s)                                                                                    \
  if (tid == 0) {                                                                                  \
    __local ulong *const bar = &full[(s) % STAGES];                                                \
    mbarrier_expect(bar, (TILE_A + TILE_B) * 4);                                                   \
    COPY_A(s, bar);                                                                                \
    COPY_B(s, bar);                                                                                \
  }
  for (int s = 0; s < STAGES && s < FILLS; ++s)
    FILL(s)
  for (int s = 0; s < FILLS; ++s) {
    mbarrier_wait(&full[s % STAGES], (s / STAGES) & 1);
    const __local float *as = As + (s % STAGES) * TILE_A + warpgroup * 64 * BK;
    const __local float *bs = Bs + (s % STAGES) * TILE_B;
#if MODE == 3
    // The small products first; every slice's three go into the same FLUSH sum.
#if SPLIT_B
    uint a_hi[BK / 8][4], a_lo[BK / 8][4];
#pragma unroll
    for (int j = 0; j < BK / 8; ++j) {
      load_matrices(a_hi[j], &as[TILE_AT(f_row, j * 8 + f_k)]);
#pragma unroll
      for (int q = 0; q < 4; ++q)
        a_lo[j][q] = a_hi[j][q];
      tails(a_lo[j]);
    }
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < BK / 8; ++j) {
      const __local float *const b = bs + j * BN * 16; // 8 heads, then their 8 tails, per row
      wgmma_tf32_rs_keep(part, a_lo[j], pass_descriptor(b), j > 0 || s % FLUSH != 0); // a_lo b_hi
      wgmma_tf32_rs(part, a_hi[j], pass_descriptor(b + 8));                            // a_hi b_lo
      wgmma_tf32_rs(part, a_hi[j], pass_descriptor(b));                                // a_hi b_hi
    }
#elif A_REGS
    uint a_hi[4], a_lo[4];
    load_matrices(a_hi, &as[TILE_AT(f_row, f_k)]);
    load_matrices(a_lo, &as[TILE_AT(f_row, 8 + f_k)]);
    wgmma_fence();
    wgmma_tf32_rs_keep(part, a_lo, descriptor(bs), s % FLUSH != 0); // a_lo b_hi
    wgmma_tf32_rs(part, a_hi, descriptor(bs + 8));                   // a_hi b_lo
    wgmma_tf32_rs(part, a_hi, descriptor(bs));                       // a_hi b_hi
#else
    wgmma_fence();
    wgmma_tf32_keep(part, descriptor(as + 8), descriptor(bs), s % FLUSH != 0); // a_lo b_hi
    wgmma_tf32(part, descriptor(as), descriptor(bs + 8));                      // a_hi b_lo
    wgmma_tf32(part, descriptor(as), descriptor(bs));                          // a_hi b_hi
#endif
    wgmma_commit();
    if ((s + 1) % FLUSH == 0 || s + 1 == FILLS) {
      wgmma_wait_all();
#pragma unroll
      for (int i = 0; i < ACC; ++i)
        acc[i] += part[i]; // round-to-nearest FP32 additions
    } else {
      wgmma_wait();
    }
#else
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < BK; k += 8)
      if (!LEFT_OUT(s))
        wgmma_tf32(acc, descriptor(as + k), descriptor(bs + k));
    wgmma_commit();
    wgmma_wait();
#endif
    // The products of slice s - INFLIGHT are done in this warpgroup; once they are in every
    // warpgroup, its stage takes the slice STAGES later.
    const int next = s - INFLIGHT + STAGES;
    if (s >= INFLIGHT && next < FILLS) {
      if (BM > 64)
        barrier(CLK_LOCAL_MEM_FENCE);
      FILL(next)
    }
  }
  wgmma_wait_all();

#if GEMM
  store_gemm_block(out, acc, block_m + warpgroup * 64, block_n, tid, alpha, beta);
#else
  store_block(out, acc, block_m + warpgroup * 64, block_n, tid);
#endif
}
#endif // BULK && !PASSES_ONLY

// The operand pass of PARTS 1: a copy of a K-contiguous matrix (`lines` rows of COLSROWS floats)
// rounded to TF32, to nearest (ties away from zero), each row padded with zeros to whole groups
// of 8 floats, so that the product's copies are all 16 bytes whatever K is. One work-item per
// group.
inline float4 tf32_rounded(float4 x) {
  return as_float4((as_uint4(x) + (uint4)(0x1000u)) & (uint4)(0xffffe000u));
}

__kernel void round_to_tf32(__global const float *in, __global float *out, int lines) {
  const int groups = (COLSROWS + 7) / 8, g = get_global_id(0);
  if (g >= lines * groups)
    return;
  const int line = g / groups, k0 = g % groups * 8;
  const __global float *src = in + (size_t)line * COLSROWS + k0;
  __global float4 *dst = (__global float4 *)(out + (size_t)line * groups * 8 + k0);
#if COLSROWS % 8 == 0 // whole groups, 16-byte aligned
  dst[0] = tf32_rounded(((const __global float4 *)src)[0]);
  dst[1] = tf32_rounded(((const __global float4 *)src)[1]);
#else
  float v[8];
#pragma unroll
  for (int e = 0; e < 8; ++e)
    v[e] = k0 + e < COLSROWS ? src[e] : 0.0f;
  dst[0] = tf32_rounded((float4)(v[0], v[1], v[2], v[3]));
  dst[1] = tf32_rounded((float4)(v[4], v[5], v[6], v[7]));
#endif
}

#if TILED || SPLIT_B
// The operand pass of TILED 1: a K-contiguous matrix (`lines` rows of COLSROWS floats) as the
// product reads it, in tiles of `block` rows (BM for A, BN for B), zeros past the edges. MODE 1
// rounds each value to TF32; MODE 3 splits it into a head rounded to TF32 and the rest, also
// rounded (a - head is exact; its rounding costs 2^-22 of a). One work-item per 4 floats of a
// line, neighbours reading neighbours, so a warp reads 512 contiguous bytes and writes whole
// 64-byte tile rows. (One work-item per tile row, neighbours writing neighbouring rows, took
// 1.7 times as long on an H100; one per row with neighbours reading neighbouring slices, 3 times.)
// 1-D: ceil(lines / block) * block * ceil(COLSROWS / 4) work-items.
#if GEMM // lines zero-padded to whole slices of the product's fills, read LDB apart
#define LINE_CHUNKS (SLICES * KPS / 4)
#define IN_LD LDB
#define IN_ALIGNED (B_ALIGNED && LDB % 4 == 0)
#else
#define LINE_CHUNKS ((COLSROWS + 3) / 4)
#define IN_LD COLSROWS
#define IN_ALIGNED (COLSROWS % 4 == 0)
#endif
__kernel void tile_operand(__global const float *in, __global float *out, int lines, int block
#if GEMM
                           ,
                           ulong offset, ulong stride
#endif
) {
  const int g = get_global_id(0);
  if (g >= (lines + block - 1) / block * block * LINE_CHUNKS)
    return;
#if GEMM
  const size_t product = get_global_id(1); // of the batch
  in += offset + product * stride;
  out += product * (size_t)((lines + block - 1) / block) * SLICES * block * 16;
#endif
  const int line = g / LINE_CHUNKS, k = g % LINE_CHUNKS * 4, r = line % block;
  const __global float *src = in + (size_t)line * IN_LD + k;
  float4 v = (float4)(0.0f);
  if (line < lines && k < COLSROWS) {
#if IN_ALIGNED
    if (k + 4 <= COLSROWS)
      v = *(const __global float4 *)src;
    else
#endif
      v = (float4)(src[0], k + 1 < COLSROWS ? src[1] : 0.0f, k + 2 < COLSROWS ? src[2] : 0.0f,
                   k + 3 < COLSROWS ? src[3] : 0.0f);
  }
  __global float *const tile = out + ((size_t)(line / block) * SLICES + k / KPS) * block * 16;
  // The last chunk of a line also zeroes the rest of its slice.
  const int end = k + 4 < COLSROWS ? k % KPS + 4 : KPS;
  for (int kk = k % KPS; kk < end; kk += 4) {
    const float4 head = tf32_rounded(v);
    *(__global float4 *)(tile + SWIZZLED_AT(r, kk, 16)) = head;
#if MODE == 3
    *(__global float4 *)(tile + SWIZZLED_AT(r, 8 + kk, 16)) = tf32_rounded(v - head);
#endif
    v = (float4)(0.0f);
  }
}
#endif
