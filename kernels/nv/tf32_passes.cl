// The operand passes of matr_mul_wgmma_tf32.cl, which the host runs on A and B before the
// product: round_to_tf32 (PARTS 1), tile_operand (TILED 1, and B's for 3xTF32 in CLGemm) and
// tile_lines (CLGemm without tensor maps).
// They take the product's parameters and layout (SWIZZLED_AT, SLICES, KPS): included after it.

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

#if TILED || SPLIT_B || (GEMM && !TMA)
// Four floats of a line from its value k on, zeros past K; one 16-byte load where `aligned` says
// the line starts on a 16-byte boundary.
inline float4 line_chunk(const __global float *src, int k, bool aligned) {
  if (aligned && k + 4 <= COLSROWS)
    return *(const __global float4 *)src;
  return (float4)(src[0], k + 1 < COLSROWS ? src[1] : 0.0f, k + 2 < COLSROWS ? src[2] : 0.0f,
                  k + 3 < COLSROWS ? src[3] : 0.0f);
}
#endif

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
  if (line < lines && k < COLSROWS)
    v = line_chunk(src, k, IN_ALIGNED);
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

#if GEMM && !TMA
// The operand pass of CLGemm's product without tensor maps: an operand's `lines` lines of K, from
// offset + product * stride, as a tensor map's copies would have written them: per block of
// `block` lines (BM for A, BN for B), FILLS tiles of BK-deep rows in TILE_AT's swizzle one after
// another, zeros past the edges. MODE 1 rounds each value to TF32, as TMA 2's TF32-typed maps do;
// MODE 3 copies A's values as they are (the product splits them). One work-item per 4 values of a
// line. K-contiguous lines (`k_down` 0) are `ld` floats apart, and neighbours read neighbouring
// chunks of a line, as in tile_operand; lines with K down the stored rows (`k_down` 1, rows `ld`
// apart) are read in place, so the pass is the transposing copy too: each 32 neighbours take 8
// lines by 4 chunks, reading whole 32-byte sectors of 16 stored rows and writing whole sectors of
// 8 tile rows. (Neighbours on neighbouring lines, one chunk each, wrote 16 bytes per sector and
// ran slower than a transposing copy and the pass on an H200.) 2-D: ceil(lines / block) * block *
// FILLS * BK / 4 work-items, then the batch.
__kernel void tile_lines(__global const float *in, __global float *out, int lines, int block,
                         ulong offset, ulong stride, ulong ld, int k_down) {
  const int line_chunks = FILLS * BK / 4, blocks = (lines + block - 1) / block;
  const int g = get_global_id(0);
  if (g >= blocks * block * line_chunks)
    return;
  const size_t product = get_global_id(1); // of the batch
  in += offset + product * stride;
  out += product * (size_t)blocks * FILLS * block * BK;
  const int octets = blocks * block / 8, group = g / 32, lane = g % 32;
  const int line = k_down ? group % octets * 8 + lane % 8 : g / line_chunks;
  const int k = (k_down ? group / octets * 4 + lane / 8 : g % line_chunks) * 4;
  const bool aligned = offset % 4 == 0 && stride % 4 == 0 && ld % 4 == 0;
  float4 v = (float4)(0.0f);
  if (line < lines && k < COLSROWS && !k_down)
    v = line_chunk(in + line * ld + k, k, aligned);
  if (line < lines && k < COLSROWS && k_down) {
    const __global float *const src = in + k * ld + line;
    v = (float4)(src[0], k + 1 < COLSROWS ? src[ld] : 0.0f, k + 2 < COLSROWS ? src[2 * ld] : 0.0f,
                 k + 3 < COLSROWS ? src[3 * ld] : 0.0f);
  }
#if MODE == 1
  v = tf32_rounded(v);
#endif
  __global float *const tile = out + ((size_t)(line / block) * FILLS + k / BK) * block * BK;
  *(__global float4 *)(tile + TILE_AT(line % block, k % BK)) = v;
}
#endif
