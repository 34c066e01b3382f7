// The Ozaki scheme's reconstruction (bridge/src/gemm/ozaki.cpp; the scheme: gemm/ozaki.cl): each
// element of C rebuilt from its residues modulo the first OZAKI_DIGITS moduli, in the planes of
// ozaki.cl's residue_products (plane z = modulus * products + product, m x n chars each), and
// scaled back by its lines' shifts. A program per count of moduli, OZAKI_DIGITS the call's: the
// digits are arrays of that size, nothing computed for the moduli past it. Two forms of
// rebuilt_pair: with OZAKI_CRT (its constants, OZAKI_CRT_PIECES, OZAKI_MODULUS_HI and _LO) the
// Chinese remainder theorem in double, within 2^-72 P or 2^-104 P, where the host finds that
// within the bound; without it Garner's, exact.
//
// reconstruct(planes, stats_a, stats_b, bits_a, bits_b, m, n, values, largest): each element
// rebuilt and scaled back, into values (m x n per product), and the largest |value| of each
// product as the high word of the double, into largest (zeros before). Launch: global (n / 4
// rounded up, then up to 64, m, products), local (64, 1, 1).
// reconstruct_into_c(planes, stats_a, stats_b, bits_a, bits_b, m, n, C, offset, stride, ld, alpha,
// beta): the same values straight into C as apply puts them, where the call's digits are
// certified before the products run (no check of the largest element to wait for). Launch as
// reconstruct.
// apply(values, c, offset, stride, ld, alpha, beta, m, n): C = alpha * values + beta * C (C not
// read when beta is 0). Launch: global (n, m, products), any local.

#include "ozaki_common.cl" // the moduli, line_shift, store_largest

#ifndef OZAKI_GARNER
#error "OZAKI_GARNER: Garner's coefficients, row d, column l >= d (bridge/src/gemm/ozaki.hpp)"
#endif
#if !defined(OZAKI_DIGITS) || OZAKI_DIGITS < 1 || OZAKI_DIGITS > OZAKI_COUNT
#error "OZAKI_DIGITS: the call's count of moduli, 1 to OZAKI_COUNT"
#endif

__constant float garner[OZAKI_COUNT][OZAKI_COUNT] = {OZAKI_GARNER};

#define LARGEST_GROUP 64 // the work-groups of reconstruct and reconstruct_into_c

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

#ifdef OZAKI_CRT
// Two adjacent elements of one product of C, as integers, from their residues r, rounded once to
// double, by the Chinese remainder theorem in double arithmetic (bridge/src/gemm/ozaki.hpp,
// OzakiCrt): x / P = t - round(t), t the sum of r_l f_l. Each f_l comes in three pieces whose
// sums over the digits are exact, of which OZAKI_CRT_PIECES (2 or 3) are summed; the first sum's
// fraction, exact, is joined to the others as a pair, and P t taken as a pair: within 2^-72 P
// (two pieces) or 2^-104 P (three) of x before its rounding (the host runs this where that fits
// the bound, Garner's otherwise). O(count) multiply-adds in double, where Garner's are O(count^2)
// in float.
__constant double crt_pieces[OZAKI_DIGITS][3] = {OZAKI_CRT};

// Residues r as doubles without an int-to-double conversion (a pipe a quarter of the multiply-
// add's): the words 0x43380000, 2^31 + r are the double 1.5 * 2^52 + 2^31 + r, exact.
inline double2 as_doubles(int2 r) {
  const uint2 low = as_uint2(r) + 0x80000000u;
  return (double2)(as_double(upsample(0x43380000u, low.x)),
                   as_double(upsample(0x43380000u, low.y))) -
         (0x1.8p52 + 0x1p31);
}

inline double2 rebuilt_pair(const int2 *r) {
  double2 s1 = 0, s2 = 0, s3 = 0;
#pragma unroll
  for (int l = 0; l < OZAKI_DIGITS; ++l) {
    const double2 x = as_doubles(r[l]);
    s1 = fma(x, (double2)crt_pieces[l][0], s1);
    s2 = fma(x, (double2)crt_pieces[l][1], s2);
#if OZAKI_CRT_PIECES > 2
    s3 = fma(x, (double2)crt_pieces[l][2], s3);
#endif
  }
  const double2 whole = s1 - rint(s1); // exact: s1 lies on the grid 2^-42
  double2 hi = whole + s2;               // a two-sum: hi + lo is whole + s2 exactly
  const double2 z = hi - whole;
  double2 lo = (whole - (hi - z)) + (s2 - z) + s3;
  hi -= rint(hi); // |x| < P / 2: a t past 1/2 by the pieces' error wraps (exact)
  const double2 modulus = OZAKI_MODULUS_HI;
  const double2 top = modulus * hi, top_error = fma(modulus, hi, -top);
  return top + (top_error + fma(modulus, lo, OZAKI_MODULUS_LO * hi));
}
#else
// The digits in arrays, every loop of OZAKI_DIGITS unrolled, so the arrays live in registers
// (NVIDIA's compiler kept a form that left its loop at a run-time count in memory: 320 bytes a
// work-item).
inline float modulus(int l) { return l < OZAKI_DIGITS ? moduli[l] : 1; }

// The chunk of three digits from `first` on (exact in float: |chunk| < 255 * 253 * 251 / 2 <
// 2^23; digits past OZAKI_DIGITS are 0), and its radix, the product of their moduli (under 2^24;
// exact in double).
inline float2 chunk_of(const float2 *digit, int first) {
  const float2 d1 = first + 1 < OZAKI_DIGITS ? digit[first + 1] : 0;
  const float2 d2 = first + 2 < OZAKI_DIGITS ? digit[first + 2] : 0;
  return fma(fma(d2, (float2)modulus(first + 1), d1), (float2)modulus(first), digit[first]);
}
inline double radix_of(int first) {
  return (double)modulus(first) * modulus(first + 1) * modulus(first + 2);
}

// Two adjacent elements of one product of C, as integers, from their residues r, rounded once to
// double. Garner's mixed radix, x = d_0 + p_0 (d_1 + p_1 (d_2 + ...)), each digit the dot product
// of its residue and the digits below, modulo its modulus: d_l = (r_l g_ll + sum over d < l of
// d_d g_dl) mod p_l (OZAKI_GARNER). Every term is at most 127^2 and every sum under 20 * 127^2 <
// 2^19: exact in float. Every other term into each of two sums, two chains of fmas instead of
// one. Then Horner's rule: three digits at a time in float, the chunks in two doubles
// (horner_step), the integer rounded once at the end. (In one double, each step past 2^53
// rounded: several units of the last place on the largest elements.)
inline double2 rebuilt_pair(const int2 *r) {
  float2 digit[OZAKI_DIGITS];
#pragma unroll
  for (int l = 0; l < OZAKI_DIGITS; ++l) {
    float2 even = times(r[l], garner[l][l]), odd = 0;
#pragma unroll
    for (int d = 0; d < l; ++d)
      if (d % 2 == 0)
        even = fma(digit[d], (float2)garner[d][l], even);
      else
        odd = fma(digit[d], (float2)garner[d][l], odd);
    digit[l] = remainder_of(even + odd, moduli[l]);
  }
  double2 high = 0, low = 0;
#pragma unroll
  for (int first = (OZAKI_DIGITS - 1) / 3 * 3; first >= 0; first -= 3)
    horner_step(&high, &low, chunk_of(digit, first), radix_of(first));
  return high + low;
}
#endif

// The residues of plane l for four adjacent columns of C from `at` (j ... j + 3 of a row of n;
// zeros past n), as ints: one char4 where n is a multiple of 4 (so the four lie in the row,
// 4-byte aligned), else byte by byte. A warp's load is 128 contiguous bytes of the plane.
inline int4 residue_quad(__global const char *planes, size_t at, size_t plane, int l, uint n,
                         size_t j) {
  __global const char *r = planes + l * plane + at;
  if (n % 4 == 0)
    return convert_int4(*(__global const char4 *)r);
  return (int4)(r[0], j + 1 < n ? r[1] : 0, j + 2 < n ? r[2] : 0, j + 3 < n ? r[3] : 0);
}

// The work-item's four columns of C, j ... j + 3 of row i of product `product` (j < n), rebuilt
// and scaled back; 0 past n.
inline double4 quad_of_c(__global const char *planes, __global const double *stats_a,
                         __global const double *stats_b, int bits_a, int bits_b, uint m, uint n,
                         size_t i, size_t j, size_t product) {
  const size_t plane = (size_t)m * n * get_global_size(2), at = (product * m + i) * n + j;
  int2 low[OZAKI_DIGITS], high[OZAKI_DIGITS];
#pragma unroll
  for (int l = 0; l < OZAKI_DIGITS; ++l) {
    const int4 r = residue_quad(planes, at, plane, l, n, j);
    low[l] = r.xy;
    high[l] = r.zw;
  }
  const double2 first = rebuilt_pair(low), second = rebuilt_pair(high);
  const double value[4] = {first.s0, first.s1, second.s0, second.s1};
  const int shift = line_shift(stats_a[2 * (product * m + i)], bits_a);
  double scaled[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    const size_t column = min(j + c, (size_t)n - 1);
    scaled[c] = j + c < n ? ldexp(value[c], -(shift + line_shift(stats_b[2 * (product * n + column)],
                                                                  bits_b)))
                          : 0;
  }
  return (double4)(scaled[0], scaled[1], scaled[2], scaled[3]);
}

// C = alpha * value + beta * C at `at` (C not read when beta is 0).
inline void update_c(__global element *at, double value, double alpha, double beta) {
  *at = (element)(beta != 0 ? fma(alpha, value, beta * *at) : alpha * value);
}

// Four adjacent columns of C per work-item, a char4 per plane read straight from global memory
// (quad_of_c), rebuilt as two pairs. Measured on the H200, 16 moduli, the pass alone at 4096^2 /
// 8192^2: the CRT in two pieces 0.16 / 0.68-0.72 ms (Garner's in this form verified, not timed).
// Tried and not kept: two columns per work-item, a work-group's 128 bytes of each plane staged in
// local memory first (16 bytes a load), the CRT 0.19 / 0.82-0.88, Garner's 0.30 / 1.30-1.35
// (before the CRT, 17 moduli: 0.34 / 1.43-1.47). Earlier forms, Garner's alone: one program for
// every count, the digits past the call's masked, 0.41 / 1.79-1.85 (with ldexp replaced by
// products with powers of two, no faster); each work-item reading its char2 per plane from global
// memory (a warp's load 64 contiguous bytes), the digits in arrays, masked or a uniform branch
// per digit, 0.45-0.48 / 2.0-2.1, Garner by rows 0.49 / 2.08; the same with a break past the
// count, 1.17 / 4.99; named variables, no arrays, a uniform branch per digit, 0.62 / 2.53;
// Garner updating every later digit after each, int-to-float conversions, Horner digit by digit
// in two doubles, 0.50 / 2.15. Earlier, 4096^2 and 18 moduli, Garner's: one column per work-item 0.63
// ms against two 0.53, four (char4) 0.57; Garner pair by pair, a rint per pair, 1.14 ms, the same
// rounding by 1.5 * 2^23 1.16; in integers, by % 2.01 and by a fixed-point reciprocal 1.78.
// reconstruct_into_c storing its four columns as one double4 where 32-byte aligned (H100, 16
// moduli): 0.168-0.172 / 0.716 ms against 0.170-0.171 / 0.724, even.
__kernel __attribute__((reqd_work_group_size(LARGEST_GROUP, 1, 1))) void
reconstruct(__global const char *planes, __global const double *stats_a,
            __global const double *stats_b, int bits_a, int bits_b, uint m, uint n,
            __global double *values, volatile __global uint *largest) {
  __local double top[LARGEST_GROUP];
  const size_t j = 4 * get_global_id(0), i = get_global_id(1), product = get_global_id(2);
  double4 value = 0;
  if (j < n) {
    value = quad_of_c(planes, stats_a, stats_b, bits_a, bits_b, m, n, i, j, product);
    __global double *at = values + (product * m + i) * n + j;
    if (n % 4 == 0)
      *(__global double4 *)at = value;
    else {
      const double v[4] = {value.s0, value.s1, value.s2, value.s3};
      for (int c = 0; c < 4 && j + c < n; ++c)
        at[c] = v[c];
    }
  }
  const double4 magnitude = fabs(value);
  store_largest(top, get_local_id(0), LARGEST_GROUP,
                fmax(fmax(magnitude.s0, magnitude.s1), fmax(magnitude.s2, magnitude.s3)),
                largest + product);
}

// reconstruct's values straight into C, C = alpha * value + beta * C (C not read when beta is 0),
// for a call whose bound its digits already meet at a proven lower bound of the largest element:
// no values to keep for a check, no apply. Launch as reconstruct.
__kernel __attribute__((reqd_work_group_size(LARGEST_GROUP, 1, 1))) void
reconstruct_into_c(__global const char *planes, __global const double *stats_a,
                   __global const double *stats_b, int bits_a, int bits_b, uint m, uint n,
                   __global element *c, ulong offset, ulong stride, ulong ld, double alpha,
                   double beta) {
  const size_t j = 4 * get_global_id(0), i = get_global_id(1), product = get_global_id(2);
  if (j >= n)
    return;
  const double4 value = quad_of_c(planes, stats_a, stats_b, bits_a, bits_b, m, n, i, j, product);
  const double v[4] = {value.s0, value.s1, value.s2, value.s3};
  __global element *at = c + offset + product * stride + i * ld + j;
  for (int column = 0; column < 4 && j + column < n; ++column)
    update_c(at + column, v[column], alpha, beta);
}

__kernel void apply(__global const double *values, __global element *c, ulong offset, ulong stride,
                    ulong ld, double alpha, double beta, uint m, uint n) {
  const size_t j = get_global_id(0), i = get_global_id(1), product = get_global_id(2);
  if (i >= m || j >= n)
    return;
  update_c(c + offset + product * stride + i * ld + j, values[(product * m + i) * n + j], alpha,
           beta);
}
