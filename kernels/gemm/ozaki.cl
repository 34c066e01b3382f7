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
// (n, m) rounded up to PRODUCT_TILE, then the products; local (PRODUCT_TILE, PRODUCT_TILE, 1).
// reconstruct(c, stats_a, stats_b, bits_a, bits_b, m, n, count, values, largest): each element
// rebuilt from its `count` residues and scaled back, into values (m x n per product), and the
// largest |value| of each work-group. Launch: global (n rounded up to 64, m, products), local
// (64, 1, 1).
// apply(values, c, offset, stride, ld, m, n, alpha, beta): C = alpha * values + beta * C (C not
// read when beta is 0). Launch: global (n, m, products), any local.
//
// Forms tried and not kept: none yet (the tensor-core form replaces residue_products).

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#ifndef OZAKI_MODULI
#error "OZAKI_MODULI: the moduli, odd, pairwise coprime and under 256 (bridge/src/gemm/ozaki.cpp)"
#endif
#ifndef OZAKI_INVERSES
#error "OZAKI_INVERSES: the inverse of the product of the moduli before each, modulo it"
#endif
#ifndef OZAKI_COUNT
#error "OZAKI_COUNT: how many moduli OZAKI_MODULI lists"
#endif
#ifndef PRODUCT_TILE
#define PRODUCT_TILE 16
#endif
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

// Sums of PRODUCT_TILE products of residues (each at most 127^2) are reduced modulo p once per
// tile, so the int never passes 2^31.
__kernel __attribute__((reqd_work_group_size(PRODUCT_TILE, PRODUCT_TILE, 1))) void
residue_products(__global const char *a, __global const char *b, __global char *c, uint m, uint n,
                 uint k, uint modulus) {
  __local int a_tile[PRODUCT_TILE][PRODUCT_TILE], b_tile[PRODUCT_TILE][PRODUCT_TILE + 1];
  const size_t product = get_global_id(2), products = get_global_size(2);
  const size_t j = get_global_id(0), i = get_global_id(1);
  const int x = get_local_id(0), y = get_local_id(1);
  const size_t i0 = get_group_id(1) * PRODUCT_TILE, j0 = get_group_id(0) * PRODUCT_TILE;
  a += product * (size_t)m * k;
  b += product * (size_t)n * k;
  const int p = moduli[modulus];
  int sum = 0;
  for (size_t h0 = 0; h0 < k; h0 += PRODUCT_TILE) {
    // a_tile[y][x] = A'(i0 + y, h0 + x); b_tile[y][x] = B'(h0 + y, j0 + x), B' stored as lines.
    a_tile[y][x] = i0 + y < m && h0 + x < k ? a[(i0 + y) * k + h0 + x] : 0;
    b_tile[x][y] = j0 + y < n && h0 + x < k ? b[(j0 + y) * k + h0 + x] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = 0; h < PRODUCT_TILE; ++h)
      sum += a_tile[y][h] * b_tile[h][x];
    sum %= p;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < m && j < n)
    c[((size_t)modulus * products + product) * m * n + i * n + j] = (char)symmetric(sum, p);
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
