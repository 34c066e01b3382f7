// The library's GEMM (bridge/src/gemm/ozaki.cpp): a double product from exact integer products,
// the Ozaki scheme II (Ozaki, Uchino, Imamura, arXiv 2504.08009). The integer products are plain
// OpenCL C dot products, or NVIDIA's INT8 tensor cores: TENSOR_CORES 1 mma.sync (ozaki_int8.cl),
// TENSOR_CORES 2 Hopper's wgmma (ozaki_wgmma.cl).
//
// Each line of K (A's rows, B's columns) is scaled by a power of two so that its largest element
// reaches 2^(BITS - 1) at most, and rounded to integers: the only rounding of the scheme. The
// integer product A'B' is then computed exactly modulo each of `count` odd, pairwise coprime
// moduli under 256 (residues in [-127, 127], chars), and rebuilt from its residues by Garner's
// mixed-radix algorithm with symmetric digits, exact while |A'B'| <= (P - 1) / 2, P the moduli's
// product (the host chooses BITS and count so). Scaled back, it is C's product.
//
// An operand's element h of line `line` of the batch's product `product` lies at
// offset + product * stride + line * line_step + h * step (elements). Its residues are planes of
// `lines` lines of `padded` chars (K rounded up to 16, zeros past K), plane z = modulus *
// products + product; for wgmma's form (TENSOR_CORES 2) laid out in its tiles (residue_at).
//
// line_stats(src, offset, stride, line_step, step, lines, length, stats): per line, the largest
// |x| and the sum of |x| (non-finite values make the largest infinite). For lines along K (step
// 1) a work-group per line: global (64 * lines, products), local (64, 1); line_stats_across, the
// same for lines side by side (line_step 1), 32 lines per work-group in 8 parts of K: global (32
// * ceil(lines / 32), 8, products), local (32, 8, 1).
// sampled_largest(fixed..., fixed_lines, swept..., swept_lines, length, largest): a lower bound of
// each product's largest |element| from SAMPLES lines of C (lines 0, 1/4, 1/2, 3/4 of the fixed
// operand's, against every line of the swept one): each dot product less its FP64 rounding bound,
// the largest as the high word of the double, into largest (zeros before). The operands as
// line_stats takes them (src, offset, stride, line_step, step). Launch: where the swept operand's
// lines run along K (step 1) a work-group per swept line, global (256 * swept_lines, products);
// else 8 swept lines per work-group, global (256 * ceil(swept_lines / 8), products); local (256,
// 1).
// residues(src, offset, stride, line_step, step, lines, length, padded, stats, bits, count, out,
// tile_lines): the lines' integers modulo each of the first `count` moduli, as chars, in lines
// (tile_lines 0) or, for TENSOR_CORES 2, in tiles of tile_lines lines (residue_at), zeros past the
// lines up to whole tiles. A work-group reads a 32 x 32 block of the operand along whichever way is
// contiguous and writes it along K. Launch: global (32 * ceil(padded / 32), 8 * ceil(planes' lines
// / 32), products), local (32, 8, 1).
// residue_products(a, b, c, m, n, padded, products): each plane's m x n integer product of A's
// and B's residue lines modulo its modulus, as chars, into c's plane of m x n. Portable form:
// BLOCK x BLOCK elements per work-item, global (n, m) over BLOCK, rounded up to the work-group,
// then the planes. TENSOR_CORES 1 and 2: on the INT8 tensor cores (ozaki_int8.cl,
// ozaki_wgmma.cl), global (tiles * THREADS, planes), local (THREADS, 1).
// reconstruct(c, stats_a, stats_b, bits_a, bits_b, m, n, count, values, largest): each element
// rebuilt from its `count` residues and scaled back, into values (m x n per product), and the
// largest |value| of each product as the high word of the double, into largest (zeros before).
// Launch: global (n / 2 rounded up, then up to 64, m, products), local (64, 1, 1).
// reconstruct_into_c(c, stats_a, stats_b, bits_a, bits_b, m, n, count, C, offset, stride, ld,
// alpha, beta): the same values straight into C as apply puts them, where the call's digits are
// certified before the products run (no check of the largest element to wait for). Launch as
// reconstruct.
// apply(values, c, offset, stride, ld, alpha, beta, m, n): C = alpha * values + beta * C (C not
// read when beta is 0). Launch: global (n, m, products), any local.
//
// Tried and not kept: residue_products on 16 x 16 tiles in local memory, an element per work-item
// (PoCL 3.1, 2 cores, 256^3: 1.5x the time of BLOCK 4 from global memory).

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// No multiply and add fused but where fma() says so: the reconstruction's error-free sums need
// each product rounded on its own (NVIDIA's compiler fused them, and the result lost its last bit).
#pragma OPENCL FP_CONTRACT OFF

#ifndef OZAKI_MODULI
#error "OZAKI_MODULI: the moduli, odd, pairwise coprime and under 256 (bridge/src/gemm/ozaki.hpp)"
#endif
#ifndef OZAKI_GARNER
#error "OZAKI_GARNER: Garner's coefficients, row d, column l >= d (bridge/src/gemm/ozaki.hpp)"
#endif
#ifndef OZAKI_COUNT
#error "OZAKI_COUNT: how many moduli OZAKI_MODULI lists"
#endif
#ifndef TENSOR_CORES // residue_products on INT8 tensor cores: 1 mma.sync, 2 wgmma (inline PTX)
#define TENSOR_CORES 0
#endif
#ifndef BLOCK // portable form: the residue products' elements per work-item, in each dimension
#define BLOCK 4
#endif
#define REDUCE_EVERY 8192 // 8192 * 127^2 < 2^31
#define STATS_GROUP 64
#define ACROSS_LINES 32
#define ACROSS_PARTS 8
#define RESIDUE_TILE 32
#define RESIDUE_ROWS 8
#define LARGEST_GROUP 64 // reconstruct's work-groups
#define SAMPLES 4
#define SAMPLE_GROUP 256
#define SAMPLE_LINES 8 // sampled_largest across: lines per work-group, in SAMPLE_GROUP / 8 parts

__constant int moduli[OZAKI_COUNT] = {OZAKI_MODULI};
__constant float garner[OZAKI_COUNT][OZAKI_COUNT] = {OZAKI_GARNER};

// The shift that takes a line whose largest |x| is `largest` to at most 2^(bits - 1) before
// rounding (so at most 2^bits after); 0 for a line of zeros.
int line_shift(double largest, int bits) {
  return largest > 0 ? bits - 1 - ilogb(largest) : 0;
}

// x modulo p in [-(p - 1) / 2, (p - 1) / 2], for |x| < 2p.
int symmetric(int x, int p) {
  const int most = (p - 1) / 2;
  return x > most ? x - p : (x < -most ? x + p : x);
}

// x modulo p in [-(p - 1) / 2, (p - 1) / 2] for any int x, `inverse` 1.0 / p: x less p times the
// quotient rounded to nearest in double. x / p is never a half (p is odd), at least 1 / 2p from
// one, and the product misses it by under 2^-20 (|x| < 2^31, double's 2^-52), so the rounding
// picks the nearest quotient exactly. (An int's % by a p known only at run time is a division
// routine: the integer products' stores of their sums took about a third of their time with it.)
inline int nearest_remainder(int x, int p, double inverse) {
  return x - convert_int_rte((double)x * inverse) * p;
}

// A line's statistics from those of `count` work-items, `spacing` apart in local memory (t: this
// work-item's place among them): into stats by the first, where `keep`.
void store_stats(__local double *largest, __local double *sum, int t, int count, int spacing,
                 bool keep, __global double *stats) {
  for (int width = count / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < width) {
      largest[t * spacing] = fmax(largest[t * spacing], largest[(t + width) * spacing]);
      sum[t * spacing] += sum[(t + width) * spacing];
    }
  }
  if (t == 0 && keep) {
    stats[0] = largest[0];
    stats[1] = sum[0];
  }
}

// |x| into a line's largest and sum so far.
void take(double x, double *top, double *total) {
  const double v = fabs(x);
  *top = isfinite(v) ? fmax(*top, v) : INFINITY; // fmax would drop a NaN
  *total += v;
}

__kernel __attribute__((reqd_work_group_size(STATS_GROUP, 1, 1))) void
line_stats(__global const double *src, ulong offset, ulong stride, ulong line_step, ulong step,
           uint lines, uint length, __global double *stats) {
  __local double largest[STATS_GROUP], sum[STATS_GROUP];
  const size_t line = get_group_id(0), product = get_group_id(1), t = get_local_id(0);
  __global const double *x = src + offset + product * stride + line * line_step;
  double top = 0, total = 0;
  for (size_t h = t; h < length; h += STATS_GROUP)
    take(x[h * step], &top, &total);
  largest[t] = top;
  sum[t] = total;
  store_stats(largest, sum, t, STATS_GROUP, 1, true, stats + 2 * (product * lines + line));
}

// Lines side by side: neighbouring work-items read neighbouring lines (coalesced), each of the
// ACROSS_PARTS rows of the work-group every ACROSS_PARTS-th element of K.
__kernel __attribute__((reqd_work_group_size(ACROSS_LINES, ACROSS_PARTS, 1))) void
line_stats_across(__global const double *src, ulong offset, ulong stride, ulong line_step,
                  ulong step, uint lines, uint length, __global double *stats) {
  __local double largest[ACROSS_PARTS * ACROSS_LINES], sum[ACROSS_PARTS * ACROSS_LINES];
  const size_t line = get_global_id(0), product = get_global_id(2);
  const int u = get_local_id(0), part = get_local_id(1);
  const size_t kept = min(line, (size_t)lines - 1); // lines past the end repeat the last
  __global const double *x = src + offset + product * stride + kept * line_step;
  double top = 0, total = 0;
  for (size_t h = part; h < length; h += ACROSS_PARTS)
    take(x[h * step], &top, &total);
  largest[part * ACROSS_LINES + u] = top;
  sum[part * ACROSS_LINES + u] = total;
  store_stats(largest + u, sum + u, part, ACROSS_PARTS, ACROSS_LINES, line < lines,
              stats + 2 * (product * lines + kept));
}

// The residues of four consecutive integers of a line, `scaled`, for each of the first `count`
// moduli: a uchar4 per plane, planes `plane` uchar4s apart. Below 2^62 from two halves in double
// arithmetic that is exact: y = hi (2^32 mod p) + lo, below 2^39, then y - p round(y / p),
// symmetric at once, round(x) being (x + 1.5 * 2^52) - 1.5 * 2^52; adding 1.5 * 2^52 again leaves
// the residue's two's complement in the low bits. fmod, exact but slower, above 2^62. (Tried and
// not kept, 4096^2 and 17 moduli on the H200: an element per work-item, a byte stored per plane,
// 0.26 ms; 32-bit remainders by the constant moduli, three per modulus, 0.43 with 18 moduli; the
// moduli past 10 in float arithmetic on 13-bit fields, 0.19. Four per work-item: 0.17.)
void store_residues(double4 scaled, uint count, __global uchar4 *out, size_t plane) {
  const double round_double = 0x1.8p52;
  const double4 magnitude = fabs(scaled);
  if (fmax(fmax(magnitude.x, magnitude.y), fmax(magnitude.z, magnitude.w)) < 0x1p62) {
    const double4 hi = floor(scaled * 0x1p-32); // |hi| <= 2^30
    const double4 lo = scaled - hi * 0x1p32;    // exact: integers in [0, 2^32)
#pragma unroll
    for (int l = 0; l < OZAKI_COUNT; ++l)
      if (l < (int)count) {
        const double p = moduli[l], wrap = (double)(0x100000000L % moduli[l]); // 2^32 mod p
        const double4 y = fma(hi, (double4)wrap, lo);
        const double4 quotient = fma(y, (double4)(1.0 / p), (double4)round_double) - round_double;
        out[l * plane] = convert_uchar4(as_ulong4(fma(-quotient, (double4)p, y) + round_double));
      }
  } else {
    for (uint l = 0; l < count; ++l) {
      const int p = moduli[l];
      out[l * plane] = convert_uchar4((int4)(symmetric((int)fmod(scaled.x, (double)p), p),
                                             symmetric((int)fmod(scaled.y, (double)p), p),
                                             symmetric((int)fmod(scaled.z, (double)p), p),
                                             symmetric((int)fmod(scaled.w, (double)p), p)));
    }
  }
}

// The largest of a work-group's values >= 0 into *largest, as the high word of the double: it
// orders as the double does and, without its low word, is at most the double. One word per
// product by an atomic, not a partial per work-group read back (2 MiB at 4096).
void store_largest(__local double *top, int t, int group, double value,
                   volatile __global uint *largest) {
  top[t] = value;
  for (int width = group / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < width)
      top[t] = fmax(top[t], top[t + width]);
  }
  if (t == 0)
    atomic_max(largest, convert_uint(as_ulong(top[0]) >> 32));
}

// |dot| less the bound of its rounding in FP64 (at most (length + 2^7) u of the sum of |x y|, u =
// 2^-53, doubled for the rounding of that sum itself): never above the exact |dot|. 0 for NaN.
double below_dot(double dot, double size, uint length) {
  return fmax(fabs(dot) - (length + 128.0) * 0x1p-52 * size, 0.0);
}

// The host's first guess of a product's largest element, from its operands' line sums alone, is
// below the true one by about 3 bits on random inputs, which can cost a modulus; a few exact lines
// of C give a lower bound that is nearly the largest, so the digits never need a second pass for
// it. Two shapes of work-group, whichever reads the swept operand coalesced: across (its lines side
// by side) SAMPLE_LINES lines in SAMPLE_GROUP / SAMPLE_LINES parts of K, every work-item of a
// part reading the same fixed element; along (lines along K, as the fixed operand's then are too)
// one line in SAMPLE_GROUP parts. (Tried and not kept: along with the fixed operand's lines side by side, its
// loads strided in every work-group: 0.32 ms at 4096^3 NN on the H200, the integer products 2.5;
// across in work-groups of 64, 8 parts of K each, 0.35 ms: too few loads in flight.)
__kernel __attribute__((reqd_work_group_size(SAMPLE_GROUP, 1, 1))) void
sampled_largest(__global const double *fixed, ulong fixed_offset, ulong fixed_stride,
                ulong fixed_line_step, ulong fixed_step, uint fixed_lines,
                __global const double *swept, ulong swept_offset, ulong swept_stride,
                ulong swept_line_step, ulong swept_step, uint swept_lines, uint length,
                volatile __global uint *largest) {
  __local double dots[SAMPLES][SAMPLE_GROUP], sizes[SAMPLES][SAMPLE_GROUP];
  const size_t product = get_global_id(1);
  const int t = get_local_id(0);
  const bool along = swept_step == 1; // uniform over the launch
  const int lines = along ? 1 : SAMPLE_LINES, parts = SAMPLE_GROUP / lines;
  const int part = t / lines, u = t % lines; // this work-item's part of K and line
  const size_t line = get_group_id(0) * lines + u;
  fixed += fixed_offset + product * fixed_stride;
  swept +=
      swept_offset + product * swept_stride + min(line, (size_t)swept_lines - 1) * swept_line_step;
  double dot[SAMPLES], size[SAMPLES];
#pragma unroll
  for (int s = 0; s < SAMPLES; ++s)
    dot[s] = size[s] = 0;
#pragma unroll 4
  for (size_t h = part; h < length; h += parts) {
    const double y = swept[h * swept_step];
#pragma unroll
    for (int s = 0; s < SAMPLES; ++s) {
      const double x = fixed[(size_t)s * fixed_lines / SAMPLES * fixed_line_step + h * fixed_step];
      dot[s] = fma(x, y, dot[s]);
      size[s] = fma(fabs(x), fabs(y), size[s]);
    }
  }
  // The parts of each line summed, into dots[s][u] (part 0's place).
#pragma unroll
  for (int s = 0; s < SAMPLES; ++s) {
    dots[s][t] = dot[s];
    sizes[s][t] = size[s];
  }
  for (int width = parts / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (part < width)
#pragma unroll
      for (int s = 0; s < SAMPLES; ++s) {
        dots[s][t] += dots[s][t + width * lines];
        sizes[s][t] += sizes[s][t + width * lines];
      }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  double lower = 0;
  if (part == 0 && line < swept_lines)
#pragma unroll
    for (int s = 0; s < SAMPLES; ++s)
      lower = fmax(lower, below_dot(dots[s][u], sizes[s][u], length));
  barrier(CLK_LOCAL_MEM_FENCE); // dots[0] is store_largest's
  store_largest(dots[0], t, SAMPLE_GROUP, lower, largest + product);
}

#if TENSOR_CORES
// What both tensor-core forms use, included here, outside the choice between them: the library
// inlines each file once (cmake/KernelIncludes.cmake), so a file included in both branches would
// land in the first alone.
#define WGMMA_ACC "+r"          // int accumulators
#include "../nv/ptx_helpers.cl" // cp.async, ldmatrix
#include "../nv/wgmma_core.cl"  // wgmma's tiles, descriptors and fences
#include "ozaki_tiles.cl"       // tile_origin, store_residue_pair
#endif

#if !TENSOR_CORES
// Each work-item sums a BLOCK x BLOCK block of one plane from A's and B's residue lines, four
// residues at a time; the sums (each term at most 127^2) are reduced modulo p every REDUCE_EVERY
// terms, so an int never passes 2^31. Lines past the edge read the last line again; their sums
// are not stored.
__kernel void residue_products(__global const char *a, __global const char *b, __global char *c,
                               uint m, uint n, uint padded, uint products) {
  const size_t z = get_global_id(2);
  const size_t i0 = get_global_id(1) * BLOCK, j0 = get_global_id(0) * BLOCK;
  if (i0 >= m || j0 >= n)
    return;
  a += z * m * padded;
  b += z * n * padded;
  __global const char *a_lines[BLOCK], *b_lines[BLOCK];
  for (int r = 0; r < BLOCK; ++r) {
    a_lines[r] = a + min(i0 + r, (size_t)m - 1) * padded;
    b_lines[r] = b + min(j0 + r, (size_t)n - 1) * padded;
  }
  const int p = moduli[z / products];
  const double inverse = 1.0 / p;
  int sums[BLOCK][BLOCK];
  for (int r = 0; r < BLOCK; ++r)
    for (int s = 0; s < BLOCK; ++s)
      sums[r][s] = 0;
  for (size_t h0 = 0; h0 < padded; h0 += REDUCE_EVERY) {
    const size_t h1 = min(h0 + REDUCE_EVERY, (size_t)padded);
    for (size_t h = h0; h < h1; h += 4) { // padded: a multiple of 16
      int4 x[BLOCK], y[BLOCK];
      for (int r = 0; r < BLOCK; ++r) {
        x[r] = convert_int4(vload4(0, a_lines[r] + h));
        y[r] = convert_int4(vload4(0, b_lines[r] + h));
      }
      for (int r = 0; r < BLOCK; ++r)
        for (int s = 0; s < BLOCK; ++s) {
          const int4 t = x[r] * y[s];
          sums[r][s] += t.x + t.y + t.z + t.w;
        }
    }
    for (int r = 0; r < BLOCK; ++r)
      for (int s = 0; s < BLOCK; ++s)
        sums[r][s] = nearest_remainder(sums[r][s], p, inverse);
  }
  __global char *plane = c + z * m * n;
  for (int r = 0; r < BLOCK && i0 + r < m; ++r)
    for (int s = 0; s < BLOCK && j0 + s < n; ++s)
      plane[(i0 + r) * n + j0 + s] = (char)sums[r][s];
}
#elif TENSOR_CORES == 1
#include "ozaki_int8.cl"
#else
#include "ozaki_wgmma.cl"
#endif

// Where element h of line `line` lies in a plane of residues (chars; `lines` lines in the plane,
// the batch's products one after another): lines of `padded` one after another; or, with
// tile_lines (TENSOR_CORES 2), the tiles wgmma's form copies: for each block of tile_lines lines,
// its slices of BK chars one after another, each tile_lines rows in wgmma's swizzled layout, so
// that a slice of a tile is one contiguous run for one bulk copy (ozaki_wgmma.cl). `lines` and
// `padded` are then whole blocks and slices.
inline size_t residue_at(size_t product, size_t line, size_t h, size_t lines, uint padded,
                         uint tile_lines) {
#if TENSOR_CORES == 2
  if (tile_lines) {
    const size_t r = line % tile_lines, k = h % BK;
    return (product * lines + line - r) * padded + h / BK * tile_lines * BK +
           4 * SWIZZLED_AT(r, k / 4, BK / 4) + k % 4;
  }
#endif
  return (product * lines + line) * padded + h;
}

__kernel __attribute__((reqd_work_group_size(RESIDUE_TILE, RESIDUE_ROWS, 1))) void
residues(__global const double *src, ulong offset, ulong stride, ulong line_step, ulong step,
         uint lines, uint length, uint padded, __global const double *stats, int bits, uint count,
         __global char *out, uint tile_lines) {
  __local double block[RESIDUE_TILE][RESIDUE_TILE + 1]; // [line][h]
  const size_t h0 = get_group_id(0) * RESIDUE_TILE, line0 = get_group_id(1) * RESIDUE_TILE;
  const size_t product = get_group_id(2), products = get_num_groups(2);
  const int u = get_local_id(0), v = get_local_id(1);
  src += offset + product * stride;
  const bool along_k = step == 1; // else lines side by side: u walks the lines
  for (int r = v; r < RESIDUE_TILE; r += RESIDUE_ROWS) {
    const size_t h = h0 + (along_k ? u : r), line = line0 + (along_k ? r : u);
    block[along_k ? r : u][along_k ? u : r] =
        h < length && line < lines ? src[line * line_step + h * step] : 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Four consecutive elements of a line per work-item, one uchar4 per plane (padded is a multiple
  // of 16, so all four lie inside it or none).
  const int t = v * RESIDUE_TILE + u, r = t / (RESIDUE_TILE / 4), at = 4 * (t % (RESIDUE_TILE / 4));
  const size_t h = h0 + at, line = line0 + r;
  const size_t planes_lines =
      tile_lines ? (lines + tile_lines - 1) / tile_lines * tile_lines : lines;
  if (line >= planes_lines || h >= padded)
    return;
  const int shift = line < lines ? line_shift(stats[2 * (product * lines + line)], bits) : 0;
  const double4 x = (double4)(block[r][at], block[r][at + 1], block[r][at + 2], block[r][at + 3]);
  const double4 scaled = rint((double4)(ldexp(x.x, shift), ldexp(x.y, shift), ldexp(x.z, shift),
                                        ldexp(x.w, shift))); // at most 2^bits, exact
  const size_t plane = products * planes_lines * (size_t)padded / 4;
  store_residues(
      scaled, count,
      (__global uchar4 *)(out + residue_at(product, line, h, planes_lines, padded, tile_lines)),
      plane);
}

// The residues of plane l at `at` for two adjacent columns of C (the second `second` chars on:
// 1, or 0 past the end), as ints: one char2 where n is even (`paired`), else two bytes.
inline int2 residue_pair(__global const char *c, size_t at, size_t plane, int l, bool paired,
                         size_t second) {
  __global const char *residues = c + l * plane + at;
  return paired ? convert_int2(*(__global const char2 *)residues)
                : (int2)(residues[0], residues[second]);
}

// The residues r times g, exact in float, without an int-to-float conversion (on NVIDIA's GPUs a
// pipe several times slower than the fma's): the bits 0x4B400000 + r are the float
// 1.5 * 2^23 + r, and one fma takes 1.5 * 2^23 * g (exact: g is at most 127) off its product, left
// with r g, under 2^14.
inline float2 times(int2 r, float g) {
  return fma(as_float2(r + 0x4B400000), (float2)g, (float2)(-0x1.8p23f * g));
}

// x modulo p, symmetric, for x an integer under 2^19 in float: x less p times x / p rounded to
// nearest by adding and taking off 1.5 * 2^23. x / p is at least 1 / 2p from a half and the fma's
// product misses it by under 2^-12 (x / p < 2^12, 1 / p within 2^-24 of itself).
inline float2 remainder_of(float2 x, float p) {
  const float2 quotient = fma(x, (float2)(1.0f / p), (float2)0x1.8p23f) - 0x1.8p23f;
  return fma(-quotient, (float2)p, x);
}

// One step of Horner's rule from the top in two doubles, x = x * radix + v: the product and the
// sum error-free, the sum's larger term the product (|v| < radix / 2 and x an integer), so a
// fast two-sum serves.
inline void horner_step(double2 *high, double2 *low, float2 chunk, double radix) {
  const double2 v = convert_double2(chunk);
  const double2 product = *high * radix, product_error = fma(*high, (double2)radix, -product);
  const double2 sum = product + v, sum_error = v - (sum - product);
  *low = fma(*low, (double2)radix, product_error + sum_error);
  *high = sum;
}

// The reconstruction's digits in arrays, every loop of a fixed count (OZAKI_COUNT) and unrolled,
// so the arrays live in registers (NVIDIA's compiler kept a form that left its loop at `count` in
// memory: 320 bytes a work-item).
inline float modulus(int l) { return l < OZAKI_COUNT ? moduli[l] : 1; }

// The chunk of three digits from `first` on (exact in float: |chunk| < 255 * 253 * 251 / 2 <
// 2^23; digits past OZAKI_COUNT are 0), and its radix, the product of their moduli (under 2^24;
// exact in double).
inline float2 chunk_of(const float2 *digit, int first) {
  const float2 d1 = first + 1 < OZAKI_COUNT ? digit[first + 1] : 0;
  const float2 d2 = first + 2 < OZAKI_COUNT ? digit[first + 2] : 0;
  return fma(fma(d2, (float2)modulus(first + 1), d1), (float2)modulus(first), digit[first]);
}
inline double radix_of(int first) {
  return (double)modulus(first) * modulus(first + 1) * modulus(first + 2);
}

// Two adjacent elements of one product of C, as integers, from their residues r (zeros past
// `count`), rounded once to double. Garner's mixed radix, x = d_0 + p_0 (d_1 + p_1 (d_2 + ...)),
// each digit the dot product of its residue and the digits below, modulo its modulus: d_l = (r_l
// g_ll + sum over d < l of d_d g_dl) mod p_l (OZAKI_GARNER). Every term is at most 127^2 and every
// sum under 20 * 127^2 < 2^19: exact in float. Every other term into each of two sums, two chains
// of fmas instead of one; the digits past `count` computed and masked to 0 (cheaper than a branch
// per digit). Then Horner's rule: three digits at a time in float, the chunks in two doubles
// (horner_step), the integer rounded once at the end. (In one double, each step past 2^53
// rounded: several units of the last place on the largest elements.)
inline double2 rebuilt_pair(const int2 *r, uint count) {
  float2 digit[OZAKI_COUNT];
#pragma unroll
  for (int l = 0; l < OZAKI_COUNT; ++l) {
    float2 even = times(r[l], garner[l][l]), odd = 0;
#pragma unroll
    for (int d = 0; d < l; ++d)
      if (d % 2 == 0)
        even = fma(digit[d], (float2)garner[d][l], even);
      else
        odd = fma(digit[d], (float2)garner[d][l], odd);
    digit[l] = l < (int)count ? remainder_of(even + odd, moduli[l]) : 0;
  }
  double2 high = 0, low = 0;
#pragma unroll
  for (int first = (OZAKI_COUNT - 1) / 3 * 3; first >= 0; first -= 3)
    horner_step(&high, &low, chunk_of(digit, first), radix_of(first));
  return high + low;
}

// A work-group's LARGEST_GROUP work-items rebuild 2 * LARGEST_GROUP columns of one row: 128
// bytes of each plane, which they stage in local memory first, 16 bytes a load where the row's
// run is whole and 16-byte aligned (n a multiple of 16), else two bytes each.
#define STAGED_PIECES (2 * LARGEST_GROUP / 16) // uint4s of a plane per work-group

// The group's residues of the first `count` planes into `stage` (plane l's at l * STAGED_PIECES),
// the work-item's pair at `at` (j, j + `second`; j past n: zeros), then a barrier. Every
// work-item of the group calls it. Declared uint4 for its alignment (a char array cast to uint4
// faulted the GPU).
inline void stage_residues(__local uint4 *stage, __global const char *planes, size_t at,
                           size_t plane, uint count, uint n, size_t j, size_t second) {
  const int t = get_local_id(0);
  if (n % 16 == 0 && (get_group_id(0) + 1) * 2 * LARGEST_GROUP <= n) { // uniform over the group
    const size_t first = at - 2 * t;
    for (int q = t; q < (int)count * STAGED_PIECES; q += LARGEST_GROUP)
      stage[q] = *(__global const uint4 *)(planes + q / STAGED_PIECES * plane + first +
                                           q % STAGED_PIECES * 16);
  } else {
    __local char2 *mine = (__local char2 *)stage + t;
    for (uint l = 0; l < count; ++l)
      mine[l * LARGEST_GROUP] = j < n ? convert_char2(residue_pair(planes, at, plane, l,
                                                                   n % 2 == 0, second))
                                      : (char2)0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// The work-item's pair of C, columns j and j1 (j1 = j past the end: a duplicate changes no
// maximum and is not stored) of row i of product `product`, rebuilt and scaled back; 0 past n.
// Every work-item of the group calls it (a barrier inside).
inline double2 pair_of_c(__local uint4 *stage, __global const char *planes,
                         __global const double *stats_a, __global const double *stats_b,
                         int bits_a, int bits_b, uint m, uint n, uint count, size_t i, size_t j,
                         size_t j1, size_t product) {
  const size_t plane = (size_t)m * n * get_global_size(2), at = (product * m + i) * n + j;
  stage_residues(stage, planes, at, plane, count, n, j, j1 - j);
  if (j >= n)
    return 0;
  __local const char2 *mine = (__local const char2 *)stage + get_local_id(0);
  int2 r[OZAKI_COUNT];
#pragma unroll
  for (int l = 0; l < OZAKI_COUNT; ++l)
    r[l] = l < (int)count ? convert_int2(mine[l * LARGEST_GROUP]) : (int2)0;
  const double2 value = rebuilt_pair(r, count);
  const int shift = line_shift(stats_a[2 * (product * m + i)], bits_a);
  return (double2)(ldexp(value.s0, -(shift + line_shift(stats_b[2 * (product * n + j)], bits_b))),
                   ldexp(value.s1, -(shift + line_shift(stats_b[2 * (product * n + j1)], bits_b))));
}

// C = alpha * value + beta * C at `at` (C not read when beta is 0).
inline void update_c(__global double *at, double value, double alpha, double beta) {
  *at = beta != 0 ? fma(alpha, value, beta * *at) : alpha * value;
}

// Two adjacent columns of C per work-item: a char2 per plane. Measured on the H200, 17 moduli,
// the pass alone at 4096^2 / 8192^2: this form 0.41 / 1.85 ms. Other forms: each work-item
// reading its char2 per plane from global memory (a warp's load 64 contiguous bytes), the digits
// in arrays, masked or a uniform branch per digit, 0.45-0.48 / 2.0-2.1, Garner by rows 0.49 /
// 2.08; the same with a break past `count`, 1.17 / 4.99; named variables, no arrays, a uniform
// branch per digit, 0.62 / 2.53; Garner updating every later digit after each, int-to-float
// conversions, Horner digit by digit in two doubles, 0.50 / 2.15. Earlier, 4096^2 and 18 moduli:
// one column per work-item 0.63 ms against two 0.53, four (char4) 0.57; Garner pair by pair, a
// rint per pair, 1.14 ms, the same rounding by 1.5 * 2^23 1.16; in integers, by % 2.01 and by a
// fixed-point reciprocal 1.78.
__kernel __attribute__((reqd_work_group_size(LARGEST_GROUP, 1, 1))) void
reconstruct(__global const char *c, __global const double *stats_a, __global const double *stats_b,
            int bits_a, int bits_b, uint m, uint n, uint count, __global double *values,
            volatile __global uint *largest) {
  __local uint4 stage[OZAKI_COUNT * STAGED_PIECES];
  __local double top[LARGEST_GROUP];
  const size_t j = 2 * get_global_id(0), i = get_global_id(1), product = get_global_id(2);
  const size_t j1 = j + 1 < n ? j + 1 : j, at = (product * m + i) * n + j;
  const double2 value =
      pair_of_c(stage, c, stats_a, stats_b, bits_a, bits_b, m, n, count, i, j, j1, product);
  if (j < n) {
    if (n % 2 == 0)
      *(__global double2 *)(values + at) = value;
    else {
      values[at] = value.s0;
      if (j1 > j)
        values[at + 1] = value.s1;
    }
  }
  store_largest(top, get_local_id(0), LARGEST_GROUP, fmax(fabs(value.s0), fabs(value.s1)),
                largest + product);
}

// reconstruct's values straight into C, C = alpha * value + beta * C (C not read when beta is 0),
// for a call whose bound its digits already meet at a proven lower bound of the largest element:
// no values to keep for a check, no apply. Launch as reconstruct.
__kernel __attribute__((reqd_work_group_size(LARGEST_GROUP, 1, 1))) void
reconstruct_into_c(__global const char *planes, __global const double *stats_a,
                   __global const double *stats_b, int bits_a, int bits_b, uint m, uint n,
                   uint count, __global double *c, ulong offset, ulong stride, ulong ld,
                   double alpha, double beta) {
  __local uint4 stage[OZAKI_COUNT * STAGED_PIECES];
  const size_t j = 2 * get_global_id(0), i = get_global_id(1), product = get_global_id(2);
  const size_t j1 = j + 1 < n ? j + 1 : j;
  const double2 value =
      pair_of_c(stage, planes, stats_a, stats_b, bits_a, bits_b, m, n, count, i, j, j1, product);
  if (j >= n)
    return;
  __global double *at = c + offset + product * stride + i * ld + j;
  update_c(at, value.s0, alpha, beta);
  if (j1 > j)
    update_c(at + 1, value.s1, alpha, beta);
}

__kernel void apply(__global const double *values, __global double *c, ulong offset, ulong stride,
                    ulong ld, double alpha, double beta, uint m, uint n) {
  const size_t j = get_global_id(0), i = get_global_id(1), product = get_global_id(2);
  if (i >= m || j >= n)
    return;
  update_c(c + offset + product * stride + i * ld + j, values[(product * m + i) * n + j], alpha,
           beta);
}
