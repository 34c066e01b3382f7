// Step 16's product (TILED 0, TMA 0) of matr_mul_wgmma_tf32.cl: the work-items copy each slice
// of the tiles into local memory with cp.async, STAGES slices at once, and the tensor cores
// multiply them there.
//
// MODE 3 writes nothing to local memory but the copies: wgmma can take its first operand from
// registers, so each warp loads its rows of both tiles with ldmatrix and keeps their tails there.
// a_lo*b_hi is then a product of registers and B's tile; a_hi*b_lo is computed transposed, as
// b_lo^T * a_hi^T, with A's tile as the second operand, into an accumulator of C^T that is added
// to C at the end. (It needs BM = BN. Writing the tails to local memory instead, for the tensor
// cores to read, ran 11% slower on an H100.) The C^T accumulator holds terms 2^-10 of the product
// and needs no FLUSH.
// MODE 2 stores, for every float of a slice, the BF16 pair (a_hi, a_lo) of A and (b_lo, b_hi) of
// B in local memory, so one BF16 m64nBNk16 product over the pairs is both small terms, at twice
// the TF32 rate. (Rounding the factors of the small terms to BF16's 8 bits costs about 2^-18 of
// each product.)

// Rounds this work-item's chunks of a slice to TF32 in place: adding half the weight of the 13
// dropped bits makes the tensor cores' truncation a rounding to nearest (ties away from zero).
inline void round_chunk(__local float *p) {
  __local uint4 *q = (__local uint4 *)p;
  *q = *q + (uint4)(0x1000u);
}

#if MODE == 2 && !TILED
// What the tensor cores read of x as a TF32 operand.
inline float tf32_head(float x) { return as_float(as_uint(x) & 0xffffe000u); }

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
