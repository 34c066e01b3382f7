// Double (and float) products from exact integer products: the Ozaki scheme II
// (kernels/gemm/ozaki.cl says how). The host reads each line's largest element and sum, chooses how
// many bits each operand's lines keep and how many moduli carry the product, runs the integer
// products, and checks the result against the bound below before C is written: a product the scheme
// cannot carry to its bound (FP64's accuracy for double) runs the product it stands in for instead
// (FP64's; for float, 3xTF32 or FP32's), never a less accurate one.
//
// The bound. A line of A whose largest |a| lies in [2^e, 2^(e+1)) keeps `bits_a` bits: each of its
// elements is off by at most 2^(e - bits_a) (likewise B), so every element of the product is off
// by at most 2^(EA - bits_a) NB + 2^(EB - bits_b) NA + k 2^(EA - bits_a + EB - bits_b), EA the
// largest e of A's lines, NA the largest sum of |a| over a line (likewise B). The scheme is kept
// where that is at most 2^-54 of the product's size, the largest sum of |a_ik b_kj| over its
// elements (the largest element of |A| |B|); each element, rebuilt exactly, is then rounded once
// (at most u of itself, u = 2^-53, FP64's unit roundoff), so every element c lies within
// 2^-54 size + u |c| of the exact one, at most 1.5 u size: about the error of rounding one term
// of that size, and 1.5 / k of the bound of an FP64 product's own error (k u |A| |B| elementwise:
// it rounds every term and sum). Where the product
// cancels (its largest element well below its size), the scheme keeps as many bits as that bound
// asks, not as many as its largest element alone would.
// Float products keep the bound at 2^-20 of the size: each element, rebuilt in double, is rounded
// once to float (2^-24 of itself), so it lies within 2^-20 size + 2^-24 |c| of the exact one, the
// error bound of an FP32 product (k 2^-24 |A| |B|, about) at k = 16 and a 512th of it at 8192.
// 2^-22 took 8 moduli at 8192^3 where 2^-20 takes 7, and ran 0.90x as fast on the H100
// (docs/results/ozaki-float-h100.txt).
#pragma once

#include "gemm/forms.hpp"
#include "gemm/gemm.hpp"
#include "gemm/tuning_file.hpp"

#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::gemm {

// The moduli: odd, pairwise coprime, under 256 (their residues fit a char), largest first.
inline constexpr std::array<int, 20> kOzakiModuli{255, 253, 251, 247, 241, 239, 233, 229, 227, 223,
                                                  211, 199, 197, 193, 191, 181, 179, 173, 167, 163};

// Garner's coefficients, as kernels/gemm/ozaki_rebuild.cl takes them: with P_d the product of the
// moduli below d, the digits of x = d_0 + P_1 d_1 + P_2 d_2 + ... are d_l = (r_l g[l][l] + sum
// over d < l of d_d g[d][l]) modulo p_l, r_l = x modulo p_l: g[l][l] = P_l^-1 and g[d][l] = -P_d
// P_l^-1 modulo p_l, symmetric (|g| <= 127), 0 below the diagonal.
using OzakiGarner = std::array<std::array<int, kOzakiModuli.size()>, kOzakiModuli.size()>;
OzakiGarner ozaki_garner();

// log2 of the product of the first `count` moduli.
double ozaki_bits_of(unsigned count);

// The Chinese remainder theorem's reconstruction in double (kernels/gemm/ozaki_rebuild.cl,
// OZAKI_CRT), for the first `count` moduli, P their product: x / P = frac(sum of r_l f_l), f_l =
// (P / p_l)^-1 modulo p_l, over p_l, symmetric (|f_l| < 1/2). Each f_l in three pieces on the grids
// 2^-42, 2^-84 and 2^-126 (so each piece's sum of 16 terms r_l f is exact in double, |r_l| <=
// 127), within 2^-127 of f_l; and P as hi + lo, within 2^-106 of itself.
struct OzakiCrt {
  std::vector<std::array<double, 3>> pieces;
  double modulus_hi = 0, modulus_lo = 0;
};
OzakiCrt ozaki_crt(unsigned count);

// One operand of one product of the batch, from its lines' statistics.
struct OperandSummary {
  int top_exponent = INT_MIN; // the largest ilogb over its lines' largest |x|; INT_MIN: all zero
  double largest_sum = 0;     // the largest sum of |x| over a line
  // The largest sum of |x| / 2^e over a line, e the ilogb of its largest |x|: a line of `bits`
  // bits sums to at most 2^(bits - 1) times this (plus k / 2 for the rounding) in integers.
  double largest_scaled_sum = 0;
  bool finite = true; // no infinity or NaN, and sums that stay finite
};

// Summaries of `products` matrices of `lines` lines each from line_stats' output (largest |x|
// and sum of |x| per line).
std::vector<OperandSummary> summarise(const std::vector<double> &stats, uint32_t products,
                                      uint32_t lines);

// log2 of the bound above relative to the product's size, for double and for float products.
inline constexpr int kOzakiDoubleBoundLog2 = -54, kOzakiFloatBoundLog2 = -20;
inline int ozaki_bound_log2(bool double_precision) {
  return double_precision ? kOzakiDoubleBoundLog2 : kOzakiFloatBoundLog2;
}

// How the scheme carries a call: bits kept per operand, and moduli.
struct OzakiDigits {
  int bits_a = 1, bits_b = 1;
  unsigned count = 1;
};
inline bool operator==(const OzakiDigits &x, const OzakiDigits &y) {
  return x.bits_a == y.bits_a && x.bits_b == y.bits_b && x.count == y.count;
}

// log2 of what the moduli must carry for one product: 2 max |A'B'| + 1 over its elements, A' and
// B' the operands' integers at `digits`' bits (bounded by their lines' largest elements and sums).
double ozaki_product_bits(const OperandSummary &a, const OperandSummary &b, uint32_t k,
                          const OzakiDigits &digits);

// The digits for a call whose products' sizes (the largest element of |A| |B|) are at least
// `size_log2` (log2, one per product; -inf where unknown or zero) within 2^bound_log2 of the size,
// or why none serve: a non-finite operand, or more bits than the moduli carry.
struct OzakiChoice {
  std::optional<OzakiDigits> digits;
  std::string why_not;
};
OzakiChoice choose_digits(const std::vector<OperandSummary> &a,
                          const std::vector<OperandSummary> &b, uint32_t k,
                          const std::vector<double> &size_log2,
                          int bound_log2 = kOzakiDoubleBoundLog2);

// A first guess of log2 of each product's size, from its operands alone: the largest line sums
// over k^1.5, below the size of random and of same-signed inputs alike (too low a guess costs
// bits, too high a second pass). The call takes the higher of this and a lower bound from a few
// lines of |A| |B| (kernels/gemm/ozaki.cl, store_sampled).
std::vector<double> guess_largest_log2(const std::vector<OperandSummary> &a,
                                       const std::vector<OperandSummary> &b, uint32_t k);

// log2 of the bound above for one product; -inf where an operand is zero (the product is exact).
double ozaki_error_bound_log2(const OperandSummary &a, const OperandSummary &b, uint32_t k,
                              const OzakiDigits &digits);

// log2 of the bound on the error the CRT's reconstruction (OzakiCrt) in `pieces` pieces adds to
// an element of one product before its one rounding, in integers 2^-72 P for two (the pieces'
// 20 * 127 * 2^-85) and 2^-104 P for three (2^-116 of the pieces, a few 2^-107 of the pair
// arithmetic and of P's pair), scaled back by the lines' shifts (at least bits - 1 - EA and bits -
// 1 - EB); -inf where an operand is zero.
double ozaki_crt_error_log2(const OperandSummary &a, const OperandSummary &b,
                            const OzakiDigits &digits, unsigned pieces);

// Whether the scheme may stand in for `call`'s product: double products in MQLCL_GEMM_ACCURATE
// and MQLCL_GEMM_FASTEST, float products in MQLCL_GEMM_ACCURATE.
bool ozaki_offered(const Call &call);

// MQLCL_GEMM_KERNEL=ozaki: the products ozaki_offered names run the scheme, in the fastest form
// the device has, whatever their sizes (tests and measurements).
bool ozaki_forced(EnvironmentReader environment);

// The smallest M, N and K from which double products in MQLCL_GEMM_ACCURATE and
// MQLCL_GEMM_FASTEST take the scheme unasked, where its integer products run on Hopper's wgmma
// and no set measured on the device says otherwise (ozaki_unasked): the scheme passed the FP64
// tensor cores' product at 8192^3 on both the H100 and the H200 in every layout, at 4096^3 in NN
// and NT on both and in TN on the H100 only (1.03x there, 0.98x on the H200), so below 8192 a
// card's measured set decides (docs/performance.md).
// Those passes of the scheme that are not its integer products grow with two of the dimensions,
// the products with all three, so its lead grows with each past the corner where it was measured.
inline constexpr uint32_t kOzakiUnaskedFrom = 8192;

// Why `call` takes the scheme unasked, or none: a double product in MQLCL_GEMM_ACCURATE or
// MQLCL_GEMM_FASTEST or a float one in MQLCL_GEMM_ACCURATE, no kernel named by MQLCL_GEMM_KERNEL,
// and either `measured` (the scheme form's set measured on the device at the largest shape within
// the call's, measured_for) says UNASKED=1, or, for double where no such set says either, M, N
// and K are at least kOzakiUnaskedFrom on a device whose integer products run on wgmma (float:
// only where a set says so).
std::optional<std::string> ozaki_unasked(const DeviceLimits &limits, const Call &call,
                                         EnvironmentReader environment,
                                         const std::optional<Tuned> &measured);

// The reconstructions a call may take: the CRT's in `least` to `most` pieces, the fewest that keep
// it within the bound, else Garner's (exact). MQLCL_OZAKI_REBUILD=garner: Garner's alone; =crt3:
// three pieces or Garner's (for measurements and tests); otherwise two or three.
struct RebuildPieces {
  unsigned least = 2, most = 3;
};
RebuildPieces rebuild_pieces(EnvironmentReader environment);

// Runs the call's product by the scheme and writes C, or enqueues nothing that touches C and
// returns why not (the caller then runs the product the scheme stood in for). Waits for the queue
// for the lines' statistics and a lower bound of each product's size; and again for its largest
// element before C is written, unless the digits meet the bound at that lower bound. `taken`: why
// the call runs the scheme (MQLCL_GEMM_KERNEL=ozaki, or ozaki_unasked's reason), which the plan
// says.
std::optional<std::string> run_ozaki_product(const Context &context, ContextState &state,
                                             const Call &call, bool &first,
                                             const std::string &taken, RebuildPieces allowed);

} // namespace mqlcl::gemm
