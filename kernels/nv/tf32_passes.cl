// The operand passes of matr_mul_wgmma_tf32.cl, which the host runs on A and B before the
// product: round_to_tf32 (PARTS 1) and tile_operand (TILED 1, and B's for TMA 1 with MODE 3).
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
