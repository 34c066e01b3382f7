// The library's GEMM (bridge/src/gemm/ozaki.cpp): a double product from exact integer products,
// the Ozaki scheme II (Ozaki, Uchino, Imamura, arXiv 2504.08009), in portable OpenCL C: an integer
// dot product stands where the tensor cores' INT8 instruction will.
//
// Each line of K (A's rows, B's columns) is scaled by a power of two so that its largest element
// reaches 2^(BITS - 1) at most, and rounded to integers: the only rounding of the scheme. The
// integer product A'B' is then computed exactly modulo each of `count` odd, pairwise coprime
// moduli under 256 (residues in [-127, 127], chars), and rebuilt from its residues by Garner's
// mixed-radix algorithm with symmetric digits, exact while |A'B'| <= (P - 1) / 2, P the moduli's
// product (the host chooses BITS and count so). Scaled back, it is C's product.
//
// An operand's element h of line `line` of the batch's product `product` lies at
// offset + product * stride + line * line_step + h * step (elements).
//
// line_stats(src, offset, stride, line_step, step, lines, length, stats): per line, the largest
// |x| and the sum of |x| (non-finite values make the largest infinite). Launch: global (64 * lines,
// products), local (64, 1).
// residues(src, offset, stride, line_step, step, lines, length, stats, bits, modulus, out): the
// line's integers modulo moduli[modulus], as chars, lines of `length` one after another, the
// products' matrices one after another. Launch: global (length, lines, products), any local.
// residue_products(a, b, c, m, n, k, modulus): each product's m x n integer product of A's and
// B's residue lines modulo moduli[modulus], as chars, into c's plane `modulus`. Launch: global
// (n, m) over BLOCK, rounded up to the work-group, then the products; any work-group.
// reconstruct(c, stats_a, stats_b, bits_a, bits_b, m, n, count, values, largest): each element
// rebuilt from its `count` residues and scaled back, into values (m x n per product), and the
// largest |value| of each work-group. Launch: global (n rounded up to 64, m, products), local
// (64, 1, 1).
// apply(values, c, offset, stride, ld, m, n, alpha, beta): C = alpha * values + beta * C (C not
// read when beta is 0). Launch: global (n, m, products), any local.
//
// Tried and not kept: residue_products on 16 x 16 tiles in local memory, an element per work-item
// (PoCL 3.1, 2 cores, 256^3: 1.5x the time of BLOCK 4 from global memory).

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#ifndef OZAKI_MODULI
#error "OZAKI_MODULI: the moduli, odd, pairwise coprime and under 256 (bridge/src/gemm/ozaki.hpp)"
#endif
#ifndef OZAKI_INVERSES
#error "OZAKI_INVERSES: the inverse of the product of the moduli before each, modulo it"
#endif
#ifndef OZAKI_COUNT
#error "OZAKI_COUNT: how many moduli OZAKI_MODULI lists"
#endif
#ifndef BLOCK // the residue products' elements per work-item, in each dimension
#define BLOCK 4
#endif
#define REDUCE_EVERY 8192 // 8192 * 127^2 < 2^31
#define STATS_GROUP 64
#define RECONSTRUCT_GROUP 64

__constant int moduli[OZAKI_COUNT] = {OZAKI_MODULI};
__constant int inverses[OZAKI_COUNT] = {OZAKI_INVERSES};

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

__kernel __attribute__((reqd_work_group_size(STATS_GROUP, 1, 1))) void
line_stats(__global const double *src, ulong offset, ulong stride, ulong line_step, ulong step,
           uint lines, uint length, __global double *stats) {
  __local double largest[STATS_GROUP], sum[STATS_GROUP];
  const size_t line = get_group_id(0), product = get_group_id(1), t = get_local_id(0);
  __global const double *x = src + offset + product * stride + line * line_step;
  double top = 0, total = 0;
  for (size_t h = t; h < length; h += STATS_GROUP) {
    const double v = fabs(x[h * step]);
    top = isfinite(v) ? fmax(top, v) : INFINITY; // fmax would drop a NaN
    total += v;
  }
  largest[t] = top;
  sum[t] = total;
  for (int width = STATS_GROUP / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < width) {
      largest[t] = fmax(largest[t], largest[t + width]);
      sum[t] += sum[t + width];
    }
  }
  if (t == 0) {
    stats[2 * (product * lines + line)] = largest[0];
    stats[2 * (product * lines + line) + 1] = sum[0];
  }
}

__kernel void residues(__global const double *src, ulong offset, ulong stride, ulong line_step,
                       ulong step, uint lines, uint length, __global const double *stats, int bits,
                       uint modulus, __global char *out) {
  const size_t h = get_global_id(0), line = get_global_id(1), product = get_global_id(2);
  if (h >= length || line >= lines)
    return;
  const int shift = line_shift(stats[2 * (product * lines + line)], bits);
  const double x = src[offset + product * stride + line * line_step + h * step];
  const double scaled = rint(ldexp(x, shift)); // an integer of at most 2^bits, exact
  const int p = moduli[modulus];
  // fmod is exact; the result lies in (-p, p) with the sign of `scaled`.
  out[(product * lines + line) * length + h] = (char)symmetric((int)fmod(scaled, (double)p), p);
}

// Each work-item sums a BLOCK x BLOCK block of one product's plane from A's and B's residue lines
// (both K-contiguous), four residues at a time; the sums (each term at most 127^2) are reduced
// modulo p every REDUCE_EVERY terms, so an int never passes 2^31. Lines past the edge read the
// last line again; their sums are not stored.
__kernel void residue_products(__global const char *a, __global const char *b, __global char *c,
                               uint m, uint n, uint k, uint modulus) {
  const size_t product = get_global_id(2), products = get_global_size(2);
  const size_t i0 = get_global_id(1) * BLOCK, j0 = get_global_id(0) * BLOCK;
  if (i0 >= m || j0 >= n)
    return;
  a += product * (size_t)m * k;
  b += product * (size_t)n * k;
  __global const char *a_lines[BLOCK], *b_lines[BLOCK];
  for (int r = 0; r < BLOCK; ++r) {
    a_lines[r] = a + min(i0 + r, (size_t)m - 1) * k;
    b_lines[r] = b + min(j0 + r, (size_t)n - 1) * k;
  }
  const int p = moduli[modulus];
  int sums[BLOCK][BLOCK];
  for (int r = 0; r < BLOCK; ++r)
    for (int s = 0; s < BLOCK; ++s)
      sums[r][s] = 0;
  for (size_t h0 = 0; h0 < k; h0 += REDUCE_EVERY) {
    const size_t h1 = min(h0 + REDUCE_EVERY, (size_t)k);
    size_t h = h0;
    for (; h + 4 <= h1; h += 4) {
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
    for (; h < h1; ++h)
      for (int r = 0; r < BLOCK; ++r)
        for (int s = 0; s < BLOCK; ++s)
          sums[r][s] += a_lines[r][h] * b_lines[s][h];
    for (int r = 0; r < BLOCK; ++r)
      for (int s = 0; s < BLOCK; ++s)
        sums[r][s] %= p;
  }
  __global char *plane = c + ((size_t)modulus * products + product) * m * n;
  for (int r = 0; r < BLOCK && i0 + r < m; ++r)
    for (int s = 0; s < BLOCK && j0 + s < n; ++s)
      plane[(i0 + r) * n + j0 + s] = (char)symmetric(sums[r][s], p);
}

__kernel __attribute__((reqd_work_group_size(RECONSTRUCT_GROUP, 1, 1))) void
reconstruct(__global const char *c, __global const double *stats_a, __global const double *stats_b,
            int bits_a, int bits_b, uint m, uint n, uint count, __global double *values,
            __global double *largest) {
  __local double top[RECONSTRUCT_GROUP];
  const size_t j = get_global_id(0), i = get_global_id(1), product = get_global_id(2);
  const size_t products = get_global_size(2), t = get_local_id(0);
  double value = 0;
  if (j < n) {
    // Garner: digit l makes sum_{s <= l} digit_s * p_0 ... p_(s-1) congruent to residue l.
    int digits[OZAKI_COUNT];
    for (uint l = 0; l < count; ++l) {
      const int p = moduli[l];
      int below = 0; // the digits so far, modulo p (Horner from the top)
      for (int s = (int)l - 1; s >= 0; --s)
        below = (below * moduli[s] + digits[s]) % p;
      const int residue = c[((size_t)l * products + product) * m * n + i * n + j];
      digits[l] = symmetric((residue - below) % p * inverses[l] % p, p);
    }
    // Horner's rule in two doubles (each step's product and sum error-free): the integer rounded
    // once, at the end. (In one double, each step past 2^53 rounded: several units of the last
    // place on the largest elements.)
    double high = digits[count - 1], low = 0;
    for (int s = (int)count - 2; s >= 0; --s) {
      const double p = moduli[s], digit = digits[s];
      const double product = high * p, product_error = fma(high, p, -product);
      const double sum = product + digit, b = sum - product;
      low = low * p + (product_error + ((product - (sum - b)) + (digit - b)));
      high = sum;
    }
    const int shift = line_shift(stats_a[2 * (product * m + i)], bits_a) +
                      line_shift(stats_b[2 * (product * n + j)], bits_b);
    value = ldexp(high + low, -shift);
    values[(product * m + i) * n + j] = value;
  }
  top[t] = fabs(value);
  for (int width = RECONSTRUCT_GROUP / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < width)
      top[t] = fmax(top[t], top[t + width]);
  }
  if (t == 0)
    largest[(product * m + i) * get_num_groups(0) + get_group_id(0)] = top[0];
}

__kernel void apply(__global const double *values, __global double *c, ulong offset, ulong stride,
                    ulong ld, uint m, uint n, double alpha, double beta) {
  const size_t j = get_global_id(0), i = get_global_id(1), product = get_global_id(2);
  if (i >= m || j >= n)
    return;
  __global double *at = c + offset + product * stride + i * ld + j;
  const double value = values[(product * m + i) * n + j];
  *at = beta != 0 ? fma(alpha, value, beta * *at) : alpha * value;
}
