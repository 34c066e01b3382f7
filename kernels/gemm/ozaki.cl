// The library's GEMM (bridge/src/gemm/ozaki.cpp): a double product from exact integer products,
// the Ozaki scheme II (Ozaki, Uchino, Imamura, arXiv 2504.08009); with OZAKI_FLOAT 1 a float
// product (float operands and C, the same sums in double: ozaki_common.cl). The integer products
// are plain OpenCL C dot products, or NVIDIA's INT8 tensor cores: TENSOR_CORES 1 mma.sync
// (ozaki_int8.cl), TENSOR_CORES 2 Hopper's wgmma (ozaki_wgmma.cl).
//
// Each line of K (A's rows, B's columns) is scaled by a power of two so that its largest element
// reaches 2^(BITS - 1) at most, and rounded to integers: the only rounding of the scheme. The
// integer product A'B' is then computed exactly modulo each of `count` odd, pairwise coprime
// moduli under 256 (residues in [-127, 127], chars), and rebuilt from its residues
// (ozaki_rebuild.cl): by the Chinese remainder theorem in double where its error fits the bound,
// else by Garner's mixed-radix algorithm with symmetric digits, exact; either while |A'B'| <=
// (P - 1) / 2, P the moduli's product (the host chooses BITS and count so). Scaled back, it is
// C's product.
//
// An operand's element h of line `line` of the batch's product `product` lies at
// offset + product * stride + line * line_step + h * step (elements). Its residues are planes of
// `lines` lines of `padded` chars (K rounded up to 16, zeros past K), plane z = modulus *
// products + product; for wgmma's form (TENSOR_CORES 2) laid out in its tiles (residue_at).
//
// line_stats(src, offset, stride, line_step, step, lines, length, stats, samples, sampled): per
// line, the largest |x| and the sum of |x| (non-finite values make the largest infinite); and
// the lines 0, 1/4, 1/2, 3/4 (SAMPLES of them) as |x| into samples, 4 * length doubles per
// product. swept_line_stats, run after it on the other operand: the same statistics, and a lower
// bound of each product's size (the largest element of |A| |B|) from every line of its operand
// against those SAMPLES lines: each line's sums of |x y| less their FP64 rounding bound, the
// largest as the high word of the double, into sampled (zeros before). For lines along K (step
// 1) a work-group per line: global (64 * lines, products), local (64, 1); line_stats_across and
// swept_line_stats_across, the same for lines side by side (line_step 1), with one more argument,
// group_lines (8, 16 or 32), the lines of a work-group of ACROSS_GROUP work-items, each line in
// ACROSS_GROUP / group_lines parts of K: global (ACROSS_GROUP * ceil(lines / group_lines), 1,
// products), local (ACROSS_GROUP, 1, 1).
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
// Then ozaki_rebuild.cl, a program per count of moduli, rebuilds C from the planes.
//
// Tried and not kept: residue_products on 16 x 16 tiles in local memory, an element per work-item
// (PoCL 3.1, 2 cores, 256^3: 1.5x the time of BLOCK 4 from global memory).

#include "ozaki_common.cl" // the moduli, line_shift, store_largest

#ifndef TENSOR_CORES // residue_products on INT8 tensor cores: 1 mma.sync, 2 wgmma (inline PTX)
#define TENSOR_CORES 0
#endif
#ifndef BLOCK // portable form: the residue products' elements per work-item, in each dimension
#define BLOCK 4
#endif
#define REDUCE_EVERY 8192 // 8192 * 127^2 < 2^31
#define STATS_GROUP 64
#define ACROSS_GROUP 512 // an across work-group: group_lines lines side by side, each in parts of K
#define RESIDUE_TILE 32
#define RESIDUE_ROWS 8
#define SAMPLES 4 // the fixed operand's lines against which the swept one's are summed (a double4)

// x modulo p in [-(p - 1) / 2, (p - 1) / 2], for |x| < 2p.
int symmetric(int x, int p) {
  const int most = (p - 1) / 2;
  return x > most ? x - p : (x < -most ? x + p : x);
}

// x modulo p in [-(p - 1) / 2, (p - 1) / 2] for any int x, `inverse` 1.0 / p: x less p times the
// quotient rounded to nearest in double. x / p is never a half (p is odd), at least 1 / 2p from
// one, and the product misses it by under 2^-20 (|x| < 2^31, double's 2^-52), so the rounding
// picks the nearest quotient exactly. (An int's % by a p known only at run time is a division
// routine: the integer products' stores of their sums took about a third of their time with it.
// Barrett's quotient in integers, mul_hi of x plus a multiple of p by ceil(2^32 / p), then one
// step: wgmma's products 2.07 ms against 1.59 at 4096^3, 16.0 against 13.0 at 8192^3 on the H200.)
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

// The sum of |x y| less the bound of its rounding in FP64 (at most (length + 2^7) u of itself, u
// = 2^-53, doubled for safety): never above the exact sum. 0 for NaN.
double below_size(double size, uint length) {
  return fmax(size - (length + 128.0) * 0x1p-52 * size, 0.0);
}

// The host's first guess of a product's size, from its operands' line sums alone, is below the
// true one by about half of log2(k) bits on random inputs, which can cost moduli; a few lines of
// |A| |B| give a lower bound that is nearly the size, so the digits never need a second pass for
// it. They are summed while the swept operand's statistics read its lines, the fixed lines' |x|
// packed side by side by the fixed operand's statistics before (one 32-byte load an element,
// the same for a warp's lines across): the swept operand is read once, not twice. On an H100,
// NN, the statistics of both and the sampled sums take 0.13 ms at 4096^3 (0.18 with 32 lines to
// every work-group across and the fixed loop in two).
// (Tried and not kept, on the H200, where the statistics with 32 lines to every group took 0.16 /
// 0.38 ms at 4096^3 / 8192^3: a pass of its own, sampled_largest, 0.20 / 0.64 ms with the
// statistics; the fixed lines read in place, four loads an element, 0.36 / 0.80 with 8 parts of
// K a work-group across and 0.21 / 0.49 with 16; packed, 8 parts, 0.24 / 0.53. In the pass of
// its own, the fixed operand's lines side by side, its loads strided in every work-group, 0.32 ms
// alone at 4096^3; across in work-groups of 64, 8 parts of K each, 0.35 ms: too few loads in
// flight.)

// A line's part in the sampled sums (role): the fixed operand's lines s * lines / SAMPLES (s <
// SAMPLES) leave their |x| in `samples`, side by side, element h of product p at samples[p *
// length + h]; the swept operand's lines, read after them, sum |x y| against them, a double4 per
// element.
#define FIXED 1
#define SWEPT 2

// The samples a line of the fixed operand is, a bit per sample (lines < SAMPLES: a line may be
// several).
inline uint samples_of(size_t line, uint lines) {
  uint mask = 0;
#pragma unroll
  for (int s = 0; s < SAMPLES; ++s)
    mask |= (size_t)s * lines / SAMPLES == line ? 1u << s : 0;
  return mask;
}

// The statistics of `length` elements of a line, each `step` apart from x, from element `from`
// on, every `every`-th; as `role` and `mask` (samples_of) say, its |x| left in `samples` or its
// sums of |x y| against them added to size.
inline void walk_line(__global const element *x, ulong step, size_t from, size_t every, uint length,
                      int role, uint mask, __global double4 *samples, double *top, double *total,
                      double *size) {
  if (role == SWEPT) {
#pragma unroll 4
    for (size_t h = from; h < length; h += every) {
      const double y = x[h * step];
      take(y, top, total);
      const double4 f = samples[h];
      size[0] = fma(f.s0, fabs(y), size[0]);
      size[1] = fma(f.s1, fabs(y), size[1]);
      size[2] = fma(f.s2, fabs(y), size[2]);
      size[3] = fma(f.s3, fabs(y), size[3]);
    }
  } else {
    // One loop whether or not the line is a sample: lines side by side share a warp, and a
    // second loop for a sample's lanes ran after the first, the pass waiting for it (TN's A at
    // 4096^2 in groups of 32 lines, H100: 0.153 ms, the swept B beside it 0.105). Unrolled as the
    // swept loop is: NN's A along K 0.062 ms against 0.074.
#pragma unroll 4
    for (size_t h = from; h < length; h += every) {
      const double y = x[h * step];
      take(y, top, total);
      if (mask) {
        __global double *at = (__global double *)(samples + h);
#pragma unroll
        for (int s = 0; s < SAMPLES; ++s)
          if (mask >> s & 1)
            at[s] = fabs(y);
      }
    }
  }
}

// A line's SAMPLES sums from those of `count` work-items, `spacing` apart in local memory (t: this
// work-item's place among them; sizes: a row of the work-group's size per sample), summed; the
// first's lower bound of them (below_size), where `keep`, into the product's largest (`sampled`)
// by the work-group's maximum. Every work-item of the group calls it.
void store_sampled(const double *size, __local double *sizes, __local double *top, int t,
                   int count, int spacing, bool keep, uint length, volatile __global uint *sampled) {
  const int group = get_local_size(0) * get_local_size(1);
  const int id = get_local_id(1) * get_local_size(0) + get_local_id(0);
  __local double *line = sizes + id - t * spacing; // the line's first work-item's place
#pragma unroll
  for (int s = 0; s < SAMPLES; ++s)
    sizes[s * group + id] = size[s];
  for (int width = count / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < width)
#pragma unroll
      for (int s = 0; s < SAMPLES; ++s)
        line[s * group + t * spacing] += line[s * group + (t + width) * spacing];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  double lower = 0;
  if (t == 0 && keep)
#pragma unroll
    for (int s = 0; s < SAMPLES; ++s)
      lower = fmax(lower, below_size(line[s * group], length));
  store_largest(top, id, group, lower, sampled);
}

// The statistics of a line along K (step 1), a work-group per line, in the role `role` (a
// constant in each kernel below, so that each carries only its own path). sizes and top: local
// memory for the swept role's sums.
inline void along(__global const element *src, ulong offset, ulong stride, ulong line_step,
                  ulong step, uint lines, uint length, __global double *stats, const int role,
                  __global double4 *samples, volatile __global uint *sampled,
                  __local double *largest, __local double *sum, __local double *sizes,
                  __local double *top_of_group) {
  const size_t line = get_group_id(0), product = get_group_id(1), t = get_local_id(0);
  __global const element *x = src + offset + product * stride + line * line_step;
  double top = 0, total = 0, size[SAMPLES] = {0};
  walk_line(x, step, t, STATS_GROUP, length, role, role == FIXED ? samples_of(line, lines) : 0,
            samples + product * length, &top, &total, size);
  largest[t] = top;
  sum[t] = total;
  store_stats(largest, sum, t, STATS_GROUP, 1, true, stats + 2 * (product * lines + line));
  if (role == SWEPT)
    store_sampled(size, sizes, top_of_group, t, STATS_GROUP, 1, true, length, sampled + product);
}

// The same for lines side by side: neighbouring work-items read neighbouring lines (coalesced),
// each of the work-group's parts (ACROSS_GROUP / group_lines of them) every parts-th element of K.
inline void across(__global const element *src, ulong offset, ulong stride, ulong line_step,
                   ulong step, uint lines, uint length, __global double *stats, const int role,
                   __global double4 *samples, volatile __global uint *sampled, uint group_lines,
                   __local double *largest, __local double *sum, __local double *sizes,
                   __local double *top_of_group) {
  const int u = get_local_id(0) % group_lines, part = get_local_id(0) / group_lines;
  const int parts = ACROSS_GROUP / group_lines;
  const size_t line = get_group_id(0) * group_lines + u, product = get_global_id(2);
  const size_t kept = min(line, (size_t)lines - 1); // lines past the end repeat the last
  __global const element *x = src + offset + product * stride + kept * line_step;
  double top = 0, total = 0, size[SAMPLES] = {0};
  walk_line(x, step, part, parts, length, role,
            role == FIXED && line < lines ? samples_of(line, lines) : 0,
            samples + product * length, &top, &total, size);
  largest[get_local_id(0)] = top;
  sum[get_local_id(0)] = total;
  store_stats(largest + u, sum + u, part, parts, group_lines, line < lines,
              stats + 2 * (product * lines + kept));
  if (role == SWEPT)
    store_sampled(size, sizes, top_of_group, part, parts, group_lines, line < lines, length,
                  sampled + product);
}

__kernel __attribute__((reqd_work_group_size(STATS_GROUP, 1, 1))) void
line_stats(__global const element *src, ulong offset, ulong stride, ulong line_step, ulong step,
           uint lines, uint length, __global double *stats, __global double4 *samples,
           volatile __global uint *sampled) {
  __local double largest[STATS_GROUP], sum[STATS_GROUP];
  along(src, offset, stride, line_step, step, lines, length, stats, FIXED, samples, sampled,
        largest, sum, 0, 0);
}

__kernel __attribute__((reqd_work_group_size(STATS_GROUP, 1, 1))) void
swept_line_stats(__global const element *src, ulong offset, ulong stride, ulong line_step,
                 ulong step, uint lines, uint length, __global double *stats,
                 __global double4 *samples, volatile __global uint *sampled) {
  __local double largest[STATS_GROUP], sum[STATS_GROUP], sizes[SAMPLES * STATS_GROUP],
      top_of_group[STATS_GROUP];
  along(src, offset, stride, line_step, step, lines, length, stats, SWEPT, samples, sampled,
        largest, sum, sizes, top_of_group);
}

// across() with group_lines a constant in each of its three forms, so that its strides and its
// reductions' widths fold (read at run time, the swept pass took 0.26 ms at 8192^2 in groups of 32
// lines, where the form before, 32 lines a constant, took 0.23; H100).
#define ACROSS_AS(lines_constant, role, sizes, top_of_group)                                        \
  across(src, offset, stride, line_step, step, lines, length, stats, role, samples, sampled,       \
         lines_constant, largest, sum, sizes, top_of_group)
#define ACROSS_WITH_CONSTANT_LINES(role, sizes, top_of_group)                                      \
  if (group_lines == 32)                                                                           \
    ACROSS_AS(32, role, sizes, top_of_group);                                                      \
  else if (group_lines == 16)                                                                      \
    ACROSS_AS(16, role, sizes, top_of_group);                                                      \
  else                                                                                             \
    ACROSS_AS(8, role, sizes, top_of_group)

__kernel __attribute__((reqd_work_group_size(ACROSS_GROUP, 1, 1))) void
line_stats_across(__global const element *src, ulong offset, ulong stride, ulong line_step,
                  ulong step, uint lines, uint length, __global double *stats,
                  __global double4 *samples, volatile __global uint *sampled, uint group_lines) {
  __local double largest[ACROSS_GROUP], sum[ACROSS_GROUP];
  ACROSS_WITH_CONSTANT_LINES(FIXED, 0, 0);
}

__kernel __attribute__((reqd_work_group_size(ACROSS_GROUP, 1, 1))) void
swept_line_stats_across(__global const element *src, ulong offset, ulong stride,
                        ulong line_step, ulong step, uint lines, uint length,
                        __global double *stats, __global double4 *samples,
                        volatile __global uint *sampled, uint group_lines) {
  __local double largest[ACROSS_GROUP], sum[ACROSS_GROUP], sizes[SAMPLES * ACROSS_GROUP],
      top_of_group[ACROSS_GROUP];
  ACROSS_WITH_CONSTANT_LINES(SWEPT, sizes, top_of_group);
}

// The residues of four consecutive integers of a line, `scaled`, for each of the first `count`
// moduli: a uchar4 per plane, planes `plane` uchar4s apart. Below 2^62 from two halves: y = hi (2^32
// mod p) + lo, below 2^39, exact in double; its quotient round(y / p) by adding 1.5 * 2^52, which
// leaves the integer in the double's low bits; then y - p round(y / p), symmetric at once, in
// 32-bit words (exact modulo 2^32: the residue is under 2^7), whose low byte is the char: two
// multiply-adds in double a modulus and two in int. fmod, exact but slower, above 2^62. (Tried and
// not kept, on the H200: y - p round(y / p) in double too, five multiply-adds in double a modulus,
// 0.181 and 0.195 ms for NN's A and B at 4096^2 and 16 moduli against 0.168 and 0.186 now, 0.79 and
// 0.85 against 0.73 and 0.80 at 8192^2; two or four 32 x 32 blocks per work-group in residues(),
// 0.194 / 0.196 and 0.182 / 0.186 ms at 4096^2. At 4096^2 and 17 moduli: an element per
// work-item, a byte stored per plane, 0.26 ms; 32-bit remainders by the constant moduli, three per
// modulus, 0.43 with 18 moduli; the moduli past 10 in float arithmetic on 13-bit fields, 0.19, where
// four per work-item in double took 0.17. On the H100, 4096^2, 16 moduli: 8 or 16 consecutive
// elements a work-item, a uchar8 or uchar16 per plane from a block of 32 lines by 64 or 128 of K,
// 0.23-0.27 and 0.21-0.23 ms an operand against 0.18-0.20; the block read in one loop for both
// directions, lines side by side 0.20 ms against 0.18 in a loop of their own, and lines along K
// 0.24 where a loop of their own walked K in steps of 32 inside, against 0.17-0.18:
// docs/results/ozaki-residue-runs-h100.txt.)
void store_residues(double4 scaled, uint count, __global uchar4 *out, size_t plane) {
  const double round_double = 0x1.8p52;
  const double4 magnitude = fabs(scaled);
  if (fmax(fmax(magnitude.x, magnitude.y), fmax(magnitude.z, magnitude.w)) < 0x1p62) {
    const double4 hi = floor(scaled * 0x1p-32); // |hi| <= 2^30
    const double4 lo = scaled - hi * 0x1p32;    // exact: integers in [0, 2^32)
    // Their words modulo 2^32 by the same 1.5 * 2^52 (a conversion's pipe is a quarter of the fma's).
    const uint4 hi_word = convert_uint4(as_ulong4(hi + round_double));
    const uint4 lo_word = convert_uint4(as_ulong4(lo + round_double));
#pragma unroll
    for (int l = 0; l < OZAKI_COUNT; ++l)
      if (l < (int)count) {
        const uint p = moduli[l], wrap = (uint)(0x100000000L % moduli[l]); // 2^32 mod p
        const double4 y = fma(hi, (double4)((double)wrap), lo); // exact, |y| < 2^39
        const uint4 quotient = convert_uint4(
            as_ulong4(fma(y, (double4)(1.0 / (double)p), (double4)round_double)));
        out[l * plane] = convert_uchar4(hi_word * wrap + lo_word - quotient * p);
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
residues(__global const element *src, ulong offset, ulong stride, ulong line_step, ulong step,
         uint lines, uint length, uint padded, __global const double *stats, int bits, uint count,
         __global char *out, uint tile_lines) {
  __local double block[RESIDUE_TILE][RESIDUE_TILE + 1]; // [line][h]
  const size_t h0 = get_group_id(0) * RESIDUE_TILE, line0 = get_group_id(1) * RESIDUE_TILE;
  const size_t product = get_group_id(2), products = get_num_groups(2);
  const int u = get_local_id(0), v = get_local_id(1);
  src += offset + product * stride;
  // A loop for each direction, each work-item's address a plain sum: one loop for both, its
  // indices chosen by the direction, read lines side by side 10% slower (see store_residues).
  if (step == 1) { // lines along K: u walks K
    for (int r = v; r < RESIDUE_TILE; r += RESIDUE_ROWS) {
      const size_t h = h0 + u, line = line0 + r;
      block[r][u] = h < length && line < lines ? src[line * line_step + h] : 0;
    }
  } else { // lines side by side: u walks the lines
    for (int r = v; r < RESIDUE_TILE; r += RESIDUE_ROWS) {
      const size_t h = h0 + r, line = line0 + u;
      block[u][r] = h < length && line < lines ? src[line * line_step + h * step] : 0;
    }
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
