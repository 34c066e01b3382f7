// Steps 17 and 18's products of matr_mul_wgmma_tf32.cl: each slice of a tile is copied whole
// into local memory by Hopper's copy engine, awaited on an mbarrier.
//
// Step 17, operands tiled beforehand (TILED 1): tile_operand (nv/tf32_passes.cl) has rewritten each
// operand as the product reads it: for every block of BM rows of A (BN columns of B) and every
// slice of K, one tile of 64-byte rows, already in the swizzled layout of nv/wgmma_tiles.cl, the
// slices of a block one after another. So a slice of a tile is one contiguous run of global memory,
// and one work-item copies it with one cp.async.bulk (the copy engine of Hopper's TMA, without a
// tensor map), whose completion counts down the stage's mbarrier. Nobody else issues loads or waits
// at a barrier per slice: the work-items wait on the mbarrier, multiply, and the stage is refilled
// once the products that read it are done. MODE 1: a row is 16 values of K, rounded to TF32.
// MODE 3: a row is 8 values of K, their heads and then their tails, so the three products of
// 3xTF32 each read local memory filled by the copy alone (none of step 16's register splits or
// C^T). With A_REGS 1, MODE 3 loads A's heads and tails into registers with ldmatrix and
// multiplies them from there (wgmma's register operand): A is then read from local memory once per
// slice instead of three times, which is what the local memory's bandwidth was short of (1-2.5%
// faster on an H100).
//
// Step 18, tiles through tensor maps (TMA 1 or 2), needs no pass: the copy engine's tensor-map form
// (cp.async.bulk.tensor) reads a BM x BK box of A (BN x BK of B) straight from the row-major
// operand, writes it into local memory in the swizzle of its row length, and fills zeros past the
// matrix's edges. The maps (128 bytes each, A's then B's) come in a fourth argument, written by the
// bridge (CLBufferTensorMap); OpenCL has no way to make them. TMA 1 types them FP32, and the tensor
// cores truncate the inputs as in step 16; TMA 2 types them TF32, and the copy rounds each value to
// nearest on its way (cuBLAS's TF32 errors, at no cost). On an H100, 64-byte rows (BK 16) ran at
// 229-232 TFLOP/s at 4096 in two stages, where step 17's contiguous copies of the same tiles ran at
// 279: the copy engine is slower at gathering short rows. 128-byte rows (BK 32) of 64 x 256 tiles
// take 40 KiB a stage. NVIDIA's OpenCL reports 48 KiB of local memory but runs kernels whose own
// __local arrays take up to 227 KiB on Hopper (MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE): on an
// H200, through CLGemm at 4096, two stages ran at 351 TFLOP/s where one (STAGES 1: the slice is
// multiplied, then refilled, the work-groups on a compute unit taking turns) ran at 283.
//
// SPLIT_B (TMA 1 with MODE 3, step 18's 3xTF32) reads A through its map as it is, each slice BK
// deep, and splits it in registers after ldmatrix: its head is the raw value (the tensor cores
// truncate it), its tail the rest, rounded. B comes from step 17's pass, split into heads and
// tails, BK / 8 of its 8-deep slices per stage, one bulk copy. So only B has a pass, and A's tile
// is read from local memory once per slice, by ldmatrix, and written by the copy at half the size
// of step 17's heads and tails. On an H100 at 4096: 110-116 TFLOP/s with the pass, where step 17
// ran at 97-99 in the same runs, with 64 x 128 tiles in two 16-deep stages (48 KiB); on an H200
// through CLGemm, two 32-deep stages (80 KiB) ran at 133 against 120.
#if TILED || SPLIT_B
#define KPS (16 / PARTS) // values of K per slice of a tiled operand (the pass's)
#else
#define KPS BK
#endif
#if BULK
#define STAGE_K (TILED ? KPS : BK) // values of K per fill of a stage
#define FILLS ((COLSROWS + STAGE_K - 1) / STAGE_K)
#define SLICES (FILLS * (STAGE_K / KPS)) // slices of a tiled operand's block: whole fills
// The fills the main loop multiplies: B_MN takes them in pairs, an odd count rounded up by a fill
// past K, which the maps read as zeros (an early exit from the pair left the compiler moving the
// accumulators while the last wgmmas still wrote them: wrong sums wherever FILLS was odd).
#define LOOP_FILLS (B_MN ? (FILLS + 1) / 2 * 2 : FILLS)
#define TILE_A (BM * BK) // floats per stage of A's tile
#if SPLIT_B
#define TILE_B (BN * 16 * (BK / 8)) // BK / 8 tiled slices with rows of 16 floats
#else
#define TILE_B (BN * BK)
#endif
#endif

#if BULK && !PASSES_ONLY

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
  out += c_offset + product * c_stride;
#if TMA
  maps += product * 32;
#elif !A_TILES_SHARED // tile_lines' tiles of each A one after another
  in1 += product * (size_t)((M_ + BM - 1) / BM) * FILLS * TILE_A;
#endif
#if (SPLIT_B || !TMA) && !B_TILES_SHARED // the pass's tiles of each B
  in2 += product * (size_t)((N_ + BN - 1) / BN) * FILLS * TILE_B;
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
#if B_MN // the stage's A holds B's BM columns, in boxes of 32 columns; its B holds A's BN rows
#define COPY_A(s, bar)                                                                             \
  for (int box = 0; box < BM / 32; ++box)                                                          \
  tensor_copy(shared_address(As + (s) % STAGES * TILE_A + box * 32 * BK), maps + 16,                 \
              block_m + 32 * box, (s) * BK, bar)
#elif TMA
#define COPY_A(s, bar)                                                                             \
  tensor_copy(shared_address(As + (s) % STAGES * TILE_A), maps, (s) * BK, block_m, bar)
#else // a pass's tiles: FILLS slices of BM rows per block
  const __global float *const a_tiles = in1 + (size_t)(block_m / BM) * FILLS * TILE_A;
#define COPY_A(s, bar)                                                                             \
  bulk_copy(As + (s) % STAGES * TILE_A, a_tiles + (size_t)(s) * TILE_A, TILE_A * 4, bar)
#endif
#if B_MN
#define COPY_B(s, bar)                                                                             \
  tensor_copy(shared_address(Bs + (s) % STAGES * TILE_B), maps, (s) * BK, block_n, bar)
#elif TMA && !SPLIT_B
#define COPY_B(s, bar)                                                                             \
  tensor_copy(shared_address(Bs + (s) % STAGES * TILE_B), maps + 16, (s) * BK, block_n, bar)
#else // a pass's tiles: FILLS slices of BN rows per block
  const __global float *const b_tiles = in2 + (size_t)(block_n / BN) * FILLS * TILE_B;
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
  for (int s = 0; s < STAGES && s < LOOP_FILLS; ++s)
    FILL(s)
  // B_MN takes slices in pairs, the loop over the pair unrolled, so that each slice of a pair loads
  // its fragments into registers of its own: with INFLIGHT 1 the next slice's loads must not
  // overwrite those its predecessor's wgmmas may still be reading.
#if B_MN
  for (int s0 = 0; s0 < LOOP_FILLS; s0 += 2)
#pragma unroll
    for (int s = s0; s < s0 + 2; ++s) {
#else
  for (int s = 0; s < FILLS; ++s) {
#endif
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
#elif B_MN
    uint a[BK / 8][4]; // B^T's fragments, from the warpgroup's two boxes of B (as)
#pragma unroll
    for (int j = 0; j < BK / 8; ++j)
      fragments_of_b(a[j], as, j * 8, tid);
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < BK / 8; ++j)
      if (!LEFT_OUT(s))
        wgmma_tf32_rs(acc, a[j], descriptor(bs + j * 8));
    wgmma_commit();
    wgmma_wait();
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
    if (s >= INFLIGHT && next < LOOP_FILLS) {
      if (BM > 64)
        barrier(CLK_LOCAL_MEM_FENCE);
      FILL(next)
    }
  }
  wgmma_wait_all();

#if B_MN
  store_gemm_block_t(out, acc, block_m + warpgroup * 64, block_n, tid, alpha, beta);
#elif GEMM
  store_gemm_block(out, acc, block_m + warpgroup * 64, block_n, tid, alpha, beta);
#else
  store_block(out, acc, block_m + warpgroup * 64, block_n, tid);
#endif
}
#endif // BULK && !PASSES_ONLY
