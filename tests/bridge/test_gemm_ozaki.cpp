// The Ozaki scheme's double product (bridge/src/gemm/ozaki.hpp): its choices checked on their own
// (moduli, Garner's constants, bits and moduli for given operands, the bound), then its portable
// form run by CLGemm on the real device under MQLCL_GEMM_KERNEL=ozaki, against a reference
// accurate to twice FP64's precision and next to the FP64 product on the same inputs: in every
// layout, with offsets, leading dimensions, a batch, alpha and beta; with lines spanning many
// binades (more bits); and where no moduli suffice or values are not finite (the FP64 product).
// Float products by the scheme (float operands and C, FP32's bound) likewise, forced.
#define BOOST_TEST_MODULE bridge_gemm_ozaki
#include "gemm/ozaki.hpp"

#include "embedded_program.hpp"
#include "opencl_device.hpp"
#include "scoped_environment.hpp"

#include <boost/test/unit_test.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace mqlcl_test;
namespace gemm = mqlcl::gemm;

namespace {

constexpr double kUnitRoundoff = 0x1p-53;

gemm::OperandSummary summary(int top_exponent, double largest_sum) {
  gemm::OperandSummary s;
  s.top_exponent = top_exponent;
  s.largest_sum = largest_sum;
  s.largest_scaled_sum = std::ldexp(largest_sum, -top_exponent); // as if one line held both
  return s;
}

} // namespace

BOOST_AUTO_TEST_SUITE(choices)

BOOST_AUTO_TEST_CASE(the_moduli_are_odd_coprime_chars) {
  for (size_t l = 0; l < gemm::kOzakiModuli.size(); ++l) {
    const int p = gemm::kOzakiModuli[l];
    BOOST_TEST((p % 2 == 1 && p < 256), p);
    for (size_t d = 0; d < l; ++d)
      BOOST_TEST(std::gcd(p, gemm::kOzakiModuli[d]) == 1, p << " and " << gemm::kOzakiModuli[d]);
  }
}

// Garner's digits as the kernel computes them (dot products of the residue and the digits below,
// in float, one rint per digit) rebuild random integers of up to 123 bits from 16 moduli exactly,
// and every sum stays under 2^19, where float is exact.
__extension__ typedef __int128 Wide; // GCC's and Clang's, as on every platform the tests build for

BOOST_AUTO_TEST_CASE(garners_coefficients_rebuild_integers_from_their_residues) {
  const gemm::OzakiGarner g = gemm::ozaki_garner();
  constexpr int kCount = 16; // the product of 16 moduli passes 2^124
  std::mt19937_64 random(11);
  for (int trial = 0; trial < 2000; ++trial) {
    Wide x = (Wide(random() >> 5) << 64) | random(); // 123 bits, under P / 2
    x = (trial % 3 == 0 ? -x : x) >> (trial % 120);  // magnitudes from 2^123 down
    float rest[kCount];
    for (int l = 0; l < kCount; ++l) {
      const int p = gemm::kOzakiModuli[l];
      int r = int(((x % p) + p) % p);
      r = r > (p - 1) / 2 ? r - p : r;
      rest[l] = float(r) * float(g[l][l]);
    }
    for (int d = 0; d < kCount; ++d) {
      const float p = float(gemm::kOzakiModuli[d]);
      BOOST_TEST_REQUIRE(std::fabs(rest[d]) < 524288.0f); // 2^19
      rest[d] = std::fma(-std::rint(rest[d] * (1.0f / p)), p, rest[d]);
      BOOST_TEST_REQUIRE(std::fabs(rest[d]) <= (p - 1) / 2);
      for (int l = d + 1; l < kCount; ++l)
        rest[l] = std::fma(rest[d], float(g[d][l]), rest[l]);
    }
    Wide rebuilt = 0;
    for (int d = kCount - 1; d >= 0; --d)
      rebuilt = rebuilt * gemm::kOzakiModuli[d] + Wide(rest[d]);
    BOOST_TEST_REQUIRE((rebuilt == x), "trial " << trial);
  }
  for (size_t l = 0; l < g.size(); ++l)
    for (size_t d = 0; d < g.size(); ++d)
      BOOST_TEST((d > l ? g[d][l] == 0 : std::abs(g[d][l]) <= 127));
}

// The fewest moduli that carry the product's bits, and the bound then within 2^-54 of the size
// the digits were chosen for.
BOOST_AUTO_TEST_CASE(the_digits_are_the_fewest_that_meet_the_bound) {
  const uint32_t k = 1000;
  const std::vector<gemm::OperandSummary> a{summary(-1, 500)}, b{summary(3, 4000)};
  const double largest_log2 = std::log2(300.0);
  const gemm::OzakiChoice choice = gemm::choose_digits(a, b, k, {largest_log2});
  BOOST_TEST_REQUIRE(choice.digits.has_value(), choice.why_not);
  const gemm::OzakiDigits digits = *choice.digits;
  const double needed = gemm::ozaki_product_bits(a[0], b[0], k, digits);
  // Integers of bits_a and bits_b bits, k of them: never more than that to carry, and here less
  // (the lines' sums are half of k times their largest elements).
  BOOST_TEST(needed <= digits.bits_a + digits.bits_b + std::log2(2.0 * k) + 1e-9);
  BOOST_TEST(needed < digits.bits_a + digits.bits_b + std::log2(2.0 * k) - 0.5);
  BOOST_TEST(gemm::ozaki_bits_of(digits.count) > needed);
  BOOST_TEST(gemm::ozaki_bits_of(digits.count - 1) <= needed);
  BOOST_TEST(gemm::ozaki_error_bound_log2(a[0], b[0], k, digits) <= largest_log2 - 54);
  // Not wasteful: a bit fewer on either side takes the bound past its budget.
  for (int side = 0; side < 2; ++side) {
    gemm::OzakiDigits fewer = digits;
    (side == 0 ? fewer.bits_a : fewer.bits_b) -= 1;
    BOOST_TEST(gemm::ozaki_error_bound_log2(a[0], b[0], k, fewer) > largest_log2 - 54);
  }
}

BOOST_AUTO_TEST_CASE(zero_operands_pass_and_the_rest_say_why_not) {
  const gemm::OperandSummary zero, some = summary(0, 10);
  BOOST_TEST(gemm::choose_digits({zero}, {some}, 8, {-INFINITY}).digits.has_value());
  BOOST_TEST(gemm::ozaki_error_bound_log2(zero, some, 8, {}) == -INFINITY);
  // Operands that are not zero, a product that is: nothing certifies it.
  BOOST_TEST(!gemm::choose_digits({some}, {some}, 8, {-INFINITY}).digits.has_value());
  gemm::OperandSummary infinite = some;
  infinite.finite = false;
  const gemm::OzakiChoice not_finite = gemm::choose_digits({infinite}, {some}, 8, {0});
  BOOST_TEST(!not_finite.digits.has_value());
  BOOST_TEST(not_finite.why_not.find("NaN") != std::string::npos, not_finite.why_not);
  // A largest element 2^-200 below what the lines' sums allow: more bits than the moduli carry.
  const gemm::OzakiChoice too_wide = gemm::choose_digits({some}, {some}, 8, {-200});
  BOOST_TEST(!too_wide.digits.has_value());
  BOOST_TEST(too_wide.why_not.find("binades") != std::string::npos, too_wide.why_not);
}

namespace {

std::string no_kernel_named(const char *) {
  return {};
}
std::string kernel_named_tiles(const char *name) {
  return std::string(name) == "MQLCL_GEMM_KERNEL" ? "tiles" : "";
}

} // namespace

// Where no set measured on the device says either way.
BOOST_AUTO_TEST_CASE(large_double_products_take_the_scheme_unasked_only_on_wgmma) {
  gemm::DeviceLimits hopper;
  hopper.int8_tensor_cores = hopper.int8_wgmma = true;
  gemm::Call call;
  call.double_precision = true;
  call.precision = gemm::Precision::accurate;
  call.m = call.n = call.k = gemm::kOzakiUnaskedFrom;
  const auto unasked = [](const gemm::DeviceLimits &limits, const gemm::Call &c,
                          gemm::EnvironmentReader environment = no_kernel_named) {
    return gemm::ozaki_unasked(limits, c, environment, std::nullopt).has_value();
  };
  BOOST_TEST(unasked(hopper, call));
  call.precision = gemm::Precision::fastest;
  BOOST_TEST(unasked(hopper, call));
  // A kernel the user named, a smaller dimension, FP64's own multiply-adds, float, or integer
  // products on mma.sync alone: not unasked.
  BOOST_TEST(!unasked(hopper, call, kernel_named_tiles));
  for (uint32_t gemm::Call::*dimension : {&gemm::Call::m, &gemm::Call::n, &gemm::Call::k}) {
    gemm::Call smaller = call;
    smaller.*dimension = gemm::kOzakiUnaskedFrom - 1;
    BOOST_TEST(!unasked(hopper, smaller));
  }
  gemm::Call exact = call, single = call;
  exact.precision = gemm::Precision::exact;
  single.double_precision = false;
  BOOST_TEST(!unasked(hopper, exact));
  BOOST_TEST(!unasked(hopper, single));
  gemm::DeviceLimits ampere = hopper;
  ampere.int8_wgmma = false;
  BOOST_TEST(!unasked(ampere, call));
}

// A set of the scheme measured on the device (`tune --gemm LAYOUT [--double] --accurate`) decides
// with its UNASKED, on any device and at any size, where it says; one that does not say leaves
// double to the sizes, float to the product it stands in for. Never for EXACT, float FASTEST, or a
// kernel the user named.
BOOST_AUTO_TEST_CASE(a_set_measured_on_the_device_decides_the_unasked_scheme) {
  gemm::DeviceLimits hopper, portable;
  hopper.int8_tensor_cores = hopper.int8_wgmma = true;
  gemm::Call call;
  call.double_precision = true;
  call.precision = gemm::Precision::accurate;
  call.m = call.n = call.k = gemm::kOzakiUnaskedFrom;
  const auto measured = [](std::optional<int64_t> unasked) {
    gemm::Tuned tuned;
    tuned.entry.m = tuned.entry.n = tuned.entry.k = 4096;
    tuned.entry.params = {{"BM", 128}};
    if (unasked)
      tuned.entry.params[gemm::kUnaskedParam] = *unasked;
    tuned.origin = "database, this device: NVIDIA H200 at 4096x4096x4096 NN";
    return std::optional(tuned);
  };
  const auto why = gemm::ozaki_unasked(portable, call, no_kernel_named, measured(1));
  BOOST_TEST_REQUIRE(why.has_value());
  BOOST_TEST(*why == "measured faster than the FP64 product (database, this device: NVIDIA H200 "
                     "at 4096x4096x4096 NN)");
  BOOST_TEST(!gemm::ozaki_unasked(hopper, call, no_kernel_named, measured(0)));
  BOOST_TEST(*gemm::ozaki_unasked(hopper, call, no_kernel_named, measured(std::nullopt)) ==
             "M, N and K from 8192");
  BOOST_TEST(!gemm::ozaki_unasked(portable, call, no_kernel_named, measured(std::nullopt)));
  BOOST_TEST(!gemm::ozaki_unasked(hopper, call, kernel_named_tiles, measured(1)));
  gemm::Call exact = call, single = call;
  exact.precision = gemm::Precision::exact;
  single.double_precision = false;
  BOOST_TEST(!gemm::ozaki_unasked(hopper, exact, no_kernel_named, measured(1)));
  BOOST_TEST(*gemm::ozaki_unasked(hopper, single, no_kernel_named, measured(1)) ==
             "measured faster than the float product (database, this device: NVIDIA H200 at "
             "4096x4096x4096 NN)");
  BOOST_TEST(!gemm::ozaki_unasked(hopper, single, no_kernel_named, measured(0)));
  BOOST_TEST(!gemm::ozaki_unasked(hopper, single, no_kernel_named, measured(std::nullopt)));
  single.precision = gemm::Precision::fastest;
  BOOST_TEST(!gemm::ozaki_unasked(hopper, single, no_kernel_named, measured(1)));
  BOOST_TEST(gemm::step_of(gemm::scheme_form(hopper)) == std::string(gemm::kWgmmaInt8Step));
  BOOST_TEST(gemm::step_of(gemm::scheme_form(portable)) == std::string(gemm::kIntegerResiduesStep));
}

BOOST_AUTO_TEST_CASE(summaries_read_the_lines_statistics) {
  // Three products of two lines: (largest, sum) per line.
  const std::vector<double> stats{0.75, 3, 4, 10, 0, 0, 0, 0, INFINITY, 1, 2, 5};
  const auto s = gemm::summarise(stats, 3, 2);
  BOOST_TEST(s[0].top_exponent == 2); // 4 = 1 * 2^2; 0.75 = 1.5 * 2^-1
  BOOST_TEST(s[0].largest_sum == 10);
  // Sums over 2^e of each line's own largest: 3 / 2^-1 = 6 beats 10 / 2^2 = 2.5.
  BOOST_TEST(s[0].largest_scaled_sum == 6);
  BOOST_TEST(s[1].top_exponent == INT_MIN); // all zero
  BOOST_TEST(!s[2].finite);
}

// The CRT's constants: each piece on its grid, the three within 2^-127 of f_l = v / p_l (each a
// rounded quotient: the remainders at most p_l / 2), v the inverse of P / p_l modulo p_l; and
// the modulus's pair P (to long double's precision here), lo below hi's last bit.
BOOST_AUTO_TEST_CASE(the_crt_constants_are_as_the_reconstruction_needs) {
  for (unsigned count : {1u, 2u, 9u, 16u, 20u}) {
    const gemm::OzakiCrt crt = gemm::ozaki_crt(count);
    BOOST_TEST_REQUIRE(crt.pieces.size() == count);
    long double product = 1;
    for (unsigned l = 0; l < count; ++l)
      product *= gemm::kOzakiModuli[l];
    BOOST_TEST(std::fabs((long double)crt.modulus_hi + crt.modulus_lo - product) <=
               std::ldexp(product, -58));
    BOOST_TEST(std::fabs(crt.modulus_lo) <= std::ldexp(crt.modulus_hi, -52));
    for (unsigned l = 0; l < count; ++l) {
      const int64_t p = gemm::kOzakiModuli[l];
      int64_t others = 1; // P / p_l modulo p_l
      for (unsigned d = 0; d < count; ++d)
        if (d != l)
          others = others * gemm::kOzakiModuli[d] % p;
      int64_t quotient[3];
      for (int piece = 0; piece < 3; ++piece) {
        const double scaled = std::ldexp(crt.pieces[l][piece], 42 * (piece + 1));
        BOOST_TEST_REQUIRE(scaled == std::nearbyint(scaled)); // on its grid
        BOOST_TEST_REQUIRE(std::fabs(scaled) < 0x1p42);
        quotient[piece] = int64_t(scaled);
      }
      // v 2^42 = q_0 p + r_0, r_0 2^42 = q_1 p + r_1, r_1 2^42 = q_2 p + r_2, each |r| <= p / 2.
      int inverses = 0;
      for (int64_t v = -(p - 1) / 2; v <= (p - 1) / 2; ++v) {
        if (((v % p + p) * others) % p != 1 % p)
          continue;
        ++inverses;
        int64_t rest = v;
        for (int piece = 0; piece < 3; ++piece) {
          rest = rest * (int64_t(1) << 42) - quotient[piece] * p;
          BOOST_TEST(2 * std::abs(rest) <= p, "modulus " << p << ", piece " << piece);
        }
      }
      BOOST_TEST(inverses == 1);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// An operand stored for CLGemm: rows x cols with rows ld apart, from `offset`, `batch` matrices
// `stride` apart.
struct Stored {
  uint32_t rows, cols, ld;
  uint64_t offset, stride;
  uint32_t batch;
  size_t elements() const { return offset + (batch - 1) * stride + size_t(rows) * ld; }
  size_t at(uint32_t p, uint32_t r, uint32_t c) const {
    return offset + p * stride + size_t(r) * ld + c;
  }
};

Stored stored(uint32_t rows, uint32_t cols, uint32_t batch, uint32_t pad, uint64_t offset) {
  return {rows, cols, cols + pad, offset, uint64_t(rows) * (cols + pad), batch};
}

struct Case {
  uint32_t m, n, k;
  bool transpose_a = false, transpose_b = false;
  uint32_t batch = 1, pad = 0;
  uint64_t offset = 0;
  double alpha = 1, beta = 0;
};

// x * y + the sum so far, kept as a pair (Ogita, Rump and Oishi's Dot2): as if in twice FP64's
// precision.
struct Dot2 {
  double sum = 0, carry = 0;
  void add(double x, double y) {
    const double product = x * y, product_error = std::fma(x, y, -product);
    const double s = sum + product, z = s - sum;
    carry += product_error + ((sum - (s - z)) + (product - z));
    sum = s;
  }
  double value() const { return sum + carry; }
};

struct Operands {
  Case c;
  Stored sa, sb, sc;
  std::vector<double> a, b, c_before;
};

// A's element (i, h) of product p, as op(A) has it; likewise B's (h, j).
double a_of(const Operands &o, uint32_t p, uint32_t i, uint32_t h) {
  return o.a[o.c.transpose_a ? o.sa.at(p, h, i) : o.sa.at(p, i, h)];
}
double b_of(const Operands &o, uint32_t p, uint32_t h, uint32_t j) {
  return o.b[o.c.transpose_b ? o.sb.at(p, j, h) : o.sb.at(p, h, j)];
}

// Full-precision values (53 random bits), each times 2^e with e uniform in [-spread, spread].
std::vector<double> random_values(size_t count, int spread, uint32_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::uniform_int_distribution<int> exponent(-spread, spread);
  std::vector<double> values(count);
  for (double &v : values)
    v = std::ldexp(value(random), exponent(random));
  return values;
}

Operands operands(const Case &c, int spread, uint32_t seed) {
  Operands o{c,
             c.transpose_a ? stored(c.k, c.m, c.batch, c.pad, c.offset)
                           : stored(c.m, c.k, c.batch, c.pad, c.offset),
             c.transpose_b ? stored(c.n, c.k, c.batch, c.pad, c.offset)
                           : stored(c.k, c.n, c.batch, c.pad, c.offset),
             stored(c.m, c.n, c.batch, c.pad, c.offset),
             {},
             {},
             {}};
  o.a = random_values(o.sa.elements(), spread, seed);
  o.b = random_values(o.sb.elements(), spread, seed + 1);
  o.c_before = random_values(o.sc.elements(), 0, seed + 2);
  return o;
}

struct Result {
  std::vector<double> c;
  std::string plan, passes;
};

int32_t filled(int32_t context, const std::vector<double> &values) {
  const int32_t buffer = CLBufferCreate(context, uint32_t(values.size() * 8), MQLCL_MEM_READ_WRITE);
  BOOST_TEST_REQUIRE(buffer != MQLCL_INVALID_HANDLE, last_error);
  BOOST_TEST_REQUIRE(CLBufferWrite(buffer, values.data(), 0, 0, uint32_t(values.size()), 8) ==
                     values.size());
  return buffer;
}

Result run(int32_t context, const Operands &o, int32_t precision) {
  const Buffer a(filled(context, o.a)), b(filled(context, o.b)), c(filled(context, o.c_before));
  const Case &k = o.c;
  BOOST_TEST_REQUIRE(CLGemm(a, b, c, MQLCL_GEMM_DOUBLE, precision, k.transpose_a, k.transpose_b,
                            k.m, k.n, k.k, k.alpha, k.beta, k.offset, o.sa.ld, k.offset, o.sb.ld,
                            k.offset, o.sc.ld, k.batch, o.sa.stride, o.sb.stride, o.sc.stride) == 1,
                     last_error);
  Result result{std::vector<double>(o.c_before.size()), {}, {}};
  BOOST_TEST_REQUIRE(CLBufferRead(c, result.c.data(), 0, 0, uint32_t(result.c.size()), 8) ==
                     result.c.size());
  result.plan = info_string(context, MQLCL_CL_GEMM_PLAN);
  result.passes = info_string(context, MQLCL_CL_GEMM_PASSES);
  return result;
}

// The largest sum of |a_ik b_kj| over the elements of A B (every product of the batch): the size
// the scheme's bound is relative to.
double size_of(const Operands &o) {
  const Case &c = o.c;
  double size = 0;
  for (uint32_t p = 0; p < c.batch; ++p)
    for (uint32_t i = 0; i < c.m; ++i)
      for (uint32_t j = 0; j < c.n; ++j) {
        double sum = 0;
        for (uint32_t h = 0; h < c.k; ++h)
          sum += std::fabs(a_of(o, p, i, h) * b_of(o, p, h, j));
        size = std::max(size, sum);
      }
  return size;
}

struct Errors {
  double relative; // max |C - ref| / max |ref| over the product's elements
  double worst;    // max |C - ref|
  // max |C - ref| / (2^-54 size + u |ref|) against ref in twice the precision, where a size is
  // given: the scheme's bound (api.md) where it ran C = A B, at most 1 (and u^2 size).
  double of_bound;
};

// C's errors against `o`'s product; elements of C's buffer outside the product must be untouched
// (`untouched` false otherwise). `size`: the product's (size_of), for Errors::of_bound; 0: none.
Errors errors_of(const Operands &o, const std::vector<double> &c_after, bool &untouched,
                 double size = 0) {
  const Case &c = o.c;
  double worst = 0, largest = 0, of_bound = 0;
  std::vector<bool> inside(c_after.size());
  for (uint32_t p = 0; p < c.batch; ++p)
    for (uint32_t i = 0; i < c.m; ++i)
      for (uint32_t j = 0; j < c.n; ++j) {
        Dot2 dot;
        for (uint32_t h = 0; h < c.k; ++h)
          dot.add(a_of(o, p, i, h), b_of(o, p, h, j));
        const size_t at = o.sc.at(p, i, j);
        Dot2 want; // alpha * product + beta * C, still in twice the precision
        want.add(c.alpha, dot.sum);
        want.add(c.alpha, dot.carry);
        if (c.beta != 0)
          want.add(c.beta, o.c_before[at]);
        inside[at] = true;
        worst = std::max(worst, std::fabs(c_after[at] - want.value()));
        largest = std::max(largest, std::fabs(want.value()));
        if (size > 0) { // C less the pair, without rounding the pair to one double first
          const double off = std::fabs((c_after[at] - want.sum) - want.carry);
          of_bound =
              std::max(of_bound, off / (0x1p-54 * size + kUnitRoundoff * std::fabs(want.value())));
        }
        if (std::isnan(c_after[at]))
          worst = of_bound = INFINITY;
      }
  untouched = true;
  for (size_t at = 0; at < c_after.size(); ++at)
    if (!inside[at] && c_after[at] != o.c_before[at])
      untouched = false;
  return {worst / largest, worst, of_bound};
}

int bits_in(const std::string &plan, const char *name) {
  const size_t at = plan.find(name);
  return at == std::string::npos ? -1 : std::atoi(plan.c_str() + at + std::strlen(name));
}

struct Compared {
  double scheme, fp64;
  Result ours;
};

bool ran_the_scheme(const Result &result);

// The product by the scheme (MQLCL_GEMM_KERNEL=ozaki, ACCURATE) and by FP64 (EXACT), their errors.
// Where the scheme ran C = A B, its every element within 2^-54 of the product's size of the exact
// element before its one rounding, so within 2^-54 size + u |ref| after it (api.md).
Compared compare(int32_t context, const Operands &o) {
  Compared out{};
  {
    ScopedEnvironment ozaki("MQLCL_GEMM_KERNEL", "ozaki");
    out.ours = run(context, o, MQLCL_GEMM_ACCURATE);
  }
  const Result fp64 = run(context, o, MQLCL_GEMM_EXACT);
  bool untouched = false;
  const double size = size_of(o);
  const Errors scheme = errors_of(o, out.ours.c, untouched, size);
  BOOST_TEST(untouched, "the scheme wrote outside C's elements");
  out.scheme = scheme.relative;
  out.fp64 = errors_of(o, fp64.c, untouched).relative;
  BOOST_TEST_MESSAGE(o.c.m << "x" << o.c.n << "x" << o.c.k << ": scheme " << out.scheme << ", FP64 "
                           << out.fp64 << ", the scheme's error / size " << scheme.worst / size
                           << ", / its bound " << scheme.of_bound << " (" << out.ours.plan << ")");
  // The slack: the reference's own error, under u^2 K^2 size (K 450 001: 2^-68 size).
  if (ran_the_scheme(out.ours) && o.c.alpha == 1 && o.c.beta == 0)
    BOOST_TEST(scheme.of_bound <= 1 + 0x1p-10, out.ours.plan);
  return out;
}

bool ran_the_scheme(const Result &result) {
  return result.plan.rfind("ozaki.cl MODULI=", 0) == 0;
}

// The layout tests' product: 37 x 29 x 83, A transposed where bit 0 of `layout` is set, B where
// bit 1 is; layout 3 also with a batch of 3, padded rows, an offset, alpha and beta.
Case layout_case(int layout) {
  Case c{37, 29, 83, (layout & 1) != 0, (layout & 2) != 0};
  if (layout == 3) {
    c.batch = 3;
    c.pad = 5;
    c.offset = 11;
    c.alpha = -1.5;
    c.beta = 0.75;
  }
  return c;
}

// A cl_uint of the context's device (CL_DEVICE_*); 0 where the device has no such property.
uint32_t device_uint(int32_t context, uint32_t property) {
  uint32_t value = 0, size = 0;
  const bool read = CLGetDeviceInfo(context, property, reinterpret_cast<uint8_t *>(&value), &size,
                                    sizeof(value)) == 1;
  return read && size == sizeof(value) ? value : 0;
}

// How CL_GEMM_PLAN names the form of the integer products that the device should run: the
// fastest it has (NVIDIA's compute capability, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR/MINOR_NV).
std::string expected_products(int32_t context) {
  const uint32_t capability = device_uint(context, 0x4000) * 10 + device_uint(context, 0x4001);
  if (device_uint(context, 0x1001) != 0x10DE) // CL_DEVICE_VENDOR_ID
    return "in portable OpenCL C";
  return capability == 90   ? "on the INT8 tensor cores by wgmma"
         : capability >= 80 ? "on the INT8 tensor cores by mma.sync"
                            : "in portable OpenCL C";
}

// Boost.Test precondition: a device, and FP64 on it (a context that cannot be made runs the
// tests, which then fail saying why).
struct needs_fp64 {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id unit) const {
    boost::test_tools::assertion_result device = needs_device()(unit);
    const int32_t context = device ? CLContextCreate(device_under_test()) : MQLCL_INVALID_HANDLE;
    if (context == MQLCL_INVALID_HANDLE)
      return device;
    boost::test_tools::assertion_result result(has_double(context));
    CLContextFree(context);
    if (!result)
      result.message() << "the device has no FP64";
    return result;
  }
};

// The step of the integer products' form the device runs (expected_products), whose measured sets
// decide whether the scheme runs unasked.
const char *scheme_step(int32_t context) {
  const std::string form = expected_products(context);
  return form.find("wgmma") != std::string::npos      ? gemm::kWgmmaInt8Step
         : form.find("mma.sync") != std::string::npos ? gemm::kTensorInt8Step
                                                      : gemm::kIntegerResiduesStep;
}

// A's rows alternate in sign around 1 (each off by up to 2^-8), B's columns are each one value
// near 1: the product cancels to about 2^-8 of its size.
Operands cancelling_operands() {
  const Case c{16, 272, 64};
  Operands o = operands(c, 0, 13);
  for (double &a : o.a)
    a = 1 + std::ldexp(a, -8);
  for (uint32_t i = 0; i < c.m; ++i)
    for (uint32_t h = 1; h < c.k; h += 2)
      o.a[o.sa.at(0, i, h)] *= -1;
  for (uint32_t h = 0; h < c.k; ++h)
    for (uint32_t j = 0; j < c.n; ++j)
      o.b[o.sb.at(0, h, j)] = 1 + std::ldexp(j, -12);
  return o;
}

} // namespace

BOOST_AUTO_TEST_SUITE(products, *boost::unit_test::precondition(needs_fp64()))

// Every layout, odd sizes, padding, offsets, a batch, alpha and beta: the scheme's error no larger
// than the FP64 product's (nor than 2^-52: an element or two of rounding), C's other elements
// untouched.
BOOST_AUTO_TEST_CASE(the_scheme_is_as_accurate_as_fp64_in_every_layout) {
  Context context = make_context();
  uint32_t seed = 7;
  for (int layout = 0; layout < 4; ++layout) {
    const Case c = layout_case(layout);
    const Compared r = compare(context, operands(c, 0, seed++));
    BOOST_TEST(ran_the_scheme(r.ours), r.ours.plan);
    // Written into C by the reconstruction itself, with alpha, beta, offsets and batch.
    BOOST_TEST(r.ours.passes.find("reconstruct_into_c") != std::string::npos, r.ours.passes);
    BOOST_TEST(r.scheme <= std::max(r.fp64, 2 * kUnitRoundoff));
  }
}

// The reconstructions of the same integer products: the CRT's in double in two pieces (where its
// error fits the bound), in three (MQLCL_OZAKI_REBUILD=crt3) and Garner's (=garner), each within
// the bound (compare checks every element).
BOOST_AUTO_TEST_CASE(the_crt_and_garner_rebuild_within_the_bound) {
  Context context = make_context();
  const Case c{70, 90, 110};
  const Operands o = operands(c, 0, 23);
  Compared crt, garner, crt3;
  {
    ScopedEnvironment the_default("MQLCL_OZAKI_REBUILD", std::nullopt); // whatever the run set
    crt = compare(context, o);
  }
  {
    ScopedEnvironment only_garner("MQLCL_OZAKI_REBUILD", "garner");
    garner = compare(context, o);
  }
  {
    ScopedEnvironment three_pieces("MQLCL_OZAKI_REBUILD", "crt3");
    crt3 = compare(context, o);
  }
  BOOST_TEST(crt3.ours.plan.find(" REBUILD=crt3 ") != std::string::npos, crt3.ours.plan);
  BOOST_TEST(crt3.scheme <= std::max(crt3.fp64, 2 * kUnitRoundoff));
  BOOST_TEST(crt.ours.plan.find(" REBUILD=crt2 ") != std::string::npos, crt.ours.plan);
  BOOST_TEST(garner.ours.plan.find(" REBUILD=garner ") != std::string::npos, garner.ours.plan);
  BOOST_TEST(crt.scheme <= std::max(crt.fp64, 2 * kUnitRoundoff));
  BOOST_TEST(garner.scheme <= std::max(garner.fp64, 2 * kUnitRoundoff));
}

// Several of the tensor-core form's 128 x 128 tiles with partial ones at both edges, and a K that
// fills no whole number of its 64-deep slices (nor the residues' 16-byte lines), in the layouts
// that read A and B each both ways.
BOOST_AUTO_TEST_CASE(products_of_several_tiles_are_as_accurate_as_fp64) {
  Context context = make_context();
  for (bool transposed : {false, true}) {
    const Case c{260, 200, 300, transposed, !transposed};
    const Compared r = compare(context, operands(c, 0, transposed ? 41 : 43));
    BOOST_TEST(ran_the_scheme(r.ours), r.ours.plan);
    BOOST_TEST(r.scheme <= std::max(r.fp64, 2 * kUnitRoundoff));
  }
}

// The reconstruction's work-items take four columns of a row each, 256 a work-group; where N is a
// multiple of 4 they read a char4 of each plane, else a byte a column, the last one short of four
// columns. Both, each with a whole work-group and a partial one, in a batch (the planes of each
// product), with alpha and beta.
BOOST_AUTO_TEST_CASE(whole_and_partial_groups_of_columns_rebuild_alike) {
  Context context = make_context();
  for (uint32_t n : {272u, 271u}) {
    Case c{24, n, 48};
    c.batch = 2;
    c.alpha = 0.5;
    c.beta = -2;
    const Compared r = compare(context, operands(c, 0, 53));
    BOOST_TEST(ran_the_scheme(r.ours), r.ours.plan);
    BOOST_TEST(r.ours.passes.find("reconstruct_into_c") != std::string::npos, r.ours.passes);
    BOOST_TEST(r.scheme <= std::max(r.fp64, 2 * kUnitRoundoff), "N = " << n);
  }
}

// Whether `passes` (CL_GEMM_PASSES) names `kernels` in that order, each as a whole name.
bool ran_in_order(const std::string &passes, std::initializer_list<const char *> kernels) {
  const std::string spaced = " " + passes;
  size_t at = 0;
  for (const char *kernel : kernels) {
    at = spaced.find(std::string(" ") + kernel + " ", at);
    if (at == std::string::npos)
      return false;
    ++at;
  }
  return true;
}

// An operand whose lines lie side by side (line_step 1) as the statistics across read them: K
// rows of 37 lines (a partial work-group) for K = 29, in a batch of 2, with an offset, a leading
// dimension past the lines and a gap between the products.
Stored across_operand() {
  const uint32_t k = 29, lines = 37, ld = 41;
  return {k, lines, ld, 3, uint64_t(k) * ld + 5, 2};
}

// The buffers a pass of the statistics across writes.
struct AcrossOutputs {
  int32_t stats, samples, sampled;
};

// Runs kernel `name` of `program` over `x` in work-groups of `group_lines` lines, as ozaki.cpp
// launches it; checks each line's largest |x| and sum of |x| against the host's.
void run_across(int32_t context, int32_t program, const char16_t *name, const Stored &o,
                const std::vector<double> &x, uint32_t group_lines, const AcrossOutputs &out) {
  Kernel kernel = make_kernel(program, name);
  const Buffer src(filled(context, x));
  const uint64_t line_step = 1, step = o.ld;
  BOOST_TEST_REQUIRE(CLSetKernelArgMem(kernel.get(), 0, src.get()) == 1);
  for (const auto &[index, value] :
       {std::pair{1u, o.offset}, {2u, o.stride}, {3u, line_step}, {4u, step}})
    BOOST_TEST_REQUIRE(CLSetKernelArg(kernel.get(), index, &value, 8) == 1);
  BOOST_TEST_REQUIRE(CLSetKernelArg(kernel.get(), 5, &o.cols, 4) == 1);
  BOOST_TEST_REQUIRE(CLSetKernelArg(kernel.get(), 6, &o.rows, 4) == 1);
  for (const auto &[index, buffer] :
       {std::pair{7u, out.stats}, {8u, out.samples}, {9u, out.sampled}})
    BOOST_TEST_REQUIRE(CLSetKernelArgMem(kernel.get(), index, buffer) == 1);
  BOOST_TEST_REQUIRE(CLSetKernelArg(kernel.get(), 10, &group_lines, 4) == 1);
  const uint32_t groups = (o.cols + group_lines - 1) / group_lines;
  const uint32_t global[] = {512 * groups, 1, o.batch}, local[] = {512, 1, 1};
  const int32_t launched = CLExecute(kernel.get(), 3, nullptr, global, local);
  BOOST_TEST_REQUIRE(launched == 1, last_error); // read after the call
  std::vector<double> got(2 * o.cols * o.batch);
  BOOST_TEST_REQUIRE(CLBufferRead(out.stats, got.data(), 0, 0, uint32_t(got.size()), 8) ==
                     got.size());
  for (uint32_t p = 0; p < o.batch; ++p)
    for (uint32_t line = 0; line < o.cols; ++line) {
      double top = 0, sum = 0;
      for (uint32_t h = 0; h < o.rows; ++h)
        top = std::max(top, std::fabs(x[o.at(p, h, line)])), sum += std::fabs(x[o.at(p, h, line)]);
      const size_t i = 2 * (size_t(p) * o.cols + line);
      BOOST_TEST(got[i] == top, group_lines << " lines, product " << p << ", line " << line);
      BOOST_TEST(std::fabs(got[i + 1] - sum) <= 1e-13 * sum, "sum of line " << line);
    }
}

// ozaki.cl built as the library builds it (plain source, the moduli as options); nothing where
// the device runs fewer work-items than the statistics across require. NVIDIA's OpenCL reports
// 256 for them, as for the article's one-line kernels (replay.md), though CLGemm's own launches of
// them in 512 run on Hopper: CLExecute keeps to what the driver reports, so there these kernels
// are checked only through CLGemm.
std::optional<Program> across_program(int32_t context) {
  Program program =
      embedded_program(context, "ozaki.cl",
                       fmt::format("-DOZAKI_COUNT={} -DOZAKI_MODULI={}", gemm::kOzakiModuli.size(),
                                   fmt::join(gemm::kOzakiModuli, ",")));
  const int64_t allowed = CLGetInfoInteger(make_kernel(program.get(), u"line_stats_across").get(),
                                           MQLCL_CL_KERNEL_WORK_GROUP_SIZE);
  if (allowed >= 512)
    return program;
  BOOST_TEST_MESSAGE("the device reports work-groups of at most " << allowed
                                                                  << " for line_stats_across");
  return std::nullopt;
}

// The statistics of lines side by side (NN's B, TN's A and B) in each work-group shape the
// library launches (32, 16 and 8 lines of 512 work-items, ozaki.cpp's lines_per_group), from the
// embedded kernel file: the fixed operand's largest and sum per line and its sampled lines' |x|;
// then the swept operand's, and each product's lower bound of the size from its lines against
// those samples: never above the exact largest sum, within its rounding bound and the high word's
// truncation below it.
BOOST_AUTO_TEST_CASE(statistics_across_agree_with_the_host_in_every_group_shape) {
  Context context = make_context();
  const std::optional<Program> program = across_program(context.get());
  if (!program)
    return;
  const Stored o = across_operand();
  const std::vector<double> fixed = random_values(o.elements(), 6, 71),
                            swept = random_values(o.elements(), 6, 72);
  for (uint32_t group_lines : {32u, 16u, 8u}) {
    const Buffer stats = make_buffer(context.get(), 2 * o.cols * o.batch * 8);
    const Buffer samples = make_buffer(context.get(), 4 * o.rows * o.batch * 8);
    const Buffer sampled(filled(context.get(), std::vector<double>(o.batch, 0.0))); // a uint each
    const AcrossOutputs out{stats.get(), samples.get(), sampled.get()};
    run_across(context.get(), program->get(), u"line_stats_across", o, fixed, group_lines, out);
    std::vector<double> packed(4 * o.rows * o.batch);
    BOOST_TEST_REQUIRE(CLBufferRead(samples.get(), packed.data(), 0, 0, uint32_t(packed.size()),
                                    8) == packed.size());
    for (uint32_t p = 0; p < o.batch; ++p)
      for (uint32_t h = 0; h < o.rows; ++h)
        for (uint32_t s = 0; s < 4; ++s)
          BOOST_TEST(packed[(size_t(p) * o.rows + h) * 4 + s] ==
                     std::fabs(fixed[o.at(p, h, s * o.cols / 4)]));
    run_across(context.get(), program->get(), u"swept_line_stats_across", o, swept, group_lines,
               out);
    std::vector<uint32_t> high_words(o.batch);
    BOOST_TEST_REQUIRE(CLBufferRead(sampled.get(), high_words.data(), 0, 0, o.batch, 4) == o.batch);
    for (uint32_t p = 0; p < o.batch; ++p) {
      double size = 0;
      for (uint32_t line = 0; line < o.cols; ++line)
        for (uint32_t s = 0; s < 4; ++s) {
          Dot2 sum;
          for (uint32_t h = 0; h < o.rows; ++h)
            sum.add(std::fabs(fixed[o.at(p, h, s * o.cols / 4)]),
                    std::fabs(swept[o.at(p, h, line)]));
          size = std::max(size, sum.value());
        }
      const uint64_t bits = uint64_t(high_words[p]) << 32;
      double got = 0;
      std::memcpy(&got, &bits, sizeof(got));
      BOOST_TEST(got <= size, group_lines << " lines, product " << p);
      BOOST_TEST(got >= size * (1 - 0x1p-19 - (o.rows + 128) * 0x1p-51),
                 got << " against " << size);
    }
  }
}

// The integer products run on the fastest form the device has, not on a slower one that its
// build failed over to. Uniform values: the sampled lower bound of the largest element certifies
// the digits before the products run, so the reconstruction writes C itself (no apply).
BOOST_AUTO_TEST_CASE(the_integer_products_run_on_the_fastest_form_the_device_has) {
  Context context = make_context();
  const Compared r = compare(context, operands(Case{70, 90, 110}, 0, 47));
  BOOST_TEST(r.ours.plan.find(expected_products(context)) != std::string::npos, r.ours.plan);
  // Its kernels in order, each timed (CL_GEMM_PASSES).
  BOOST_TEST_MESSAGE("passes: " << r.ours.passes);
  BOOST_TEST(ran_in_order(r.ours.passes, {"line_stats", "swept_line_stats_across", "residues",
                                          "residue_products", "reconstruct_into_c"}),
             r.ours.passes);
  BOOST_TEST(r.ours.passes.find("apply") == std::string::npos, r.ours.passes);
  BOOST_TEST(r.scheme <= std::max(r.fp64, 2 * kUnitRoundoff));
}

// B's columns are A's rows, so the diagonal's residue products are squares: over K = 450001
// (not a multiple of 4) their sum passes 2^31 unless reduced on the way, as it is every 8192 terms.
BOOST_AUTO_TEST_CASE(a_long_k_of_squares_is_summed_exactly) {
  Context context = make_context();
  const Case c{2, 2, 450001};
  Operands o = operands(c, 0, 31);
  for (uint32_t j = 0; j < c.n; ++j)
    for (uint32_t h = 0; h < c.k; ++h)
      o.b[o.sb.at(0, h, j)] = o.a[o.sa.at(0, j, h)];
  const Compared r = compare(context, o);
  BOOST_TEST(ran_the_scheme(r.ours), r.ours.plan);
  BOOST_TEST(r.scheme <= std::max(r.fp64, 2 * kUnitRoundoff));
}

// A shape whose calls took the same digits twice running begins the next call's integer products
// with them before the statistics are read back; where the new operands need other digits, those
// products are spent and the call runs its own. Every product within the bound either way.
BOOST_AUTO_TEST_CASE(a_shapes_repeated_digits_begin_its_next_products) {
  Context context = make_context();
  const Case c{70, 90, 110};
  const char *served = "[products begun with the shape's last digits]";
  const char *missed = "[products begun with the shape's last digits, not these]";
  const Operands narrow = operands(c, 0, 31), wide = operands(c, 24, 31);
  std::vector<Compared> runs;
  for (const Operands *o : {&narrow, &narrow, &narrow, &narrow, &wide, &wide, &wide})
    runs.push_back(compare(context, *o));
  for (const Compared &r : runs) {
    BOOST_TEST_REQUIRE(ran_the_scheme(r.ours), r.ours.plan);
    BOOST_TEST(r.scheme <= std::max(r.fp64, 2 * kUnitRoundoff), r.ours.plan);
  }
  for (size_t call : {0, 1, 5})
    BOOST_TEST(runs[call].ours.plan.find("[products begun") == std::string::npos,
               runs[call].ours.plan);
  for (size_t call : {2, 3, 6})
    BOOST_TEST(runs[call].ours.plan.find(served) != std::string::npos, runs[call].ours.plan);
  BOOST_TEST(bits_in(runs[4].ours.plan, "BITS_A=") > bits_in(runs[3].ours.plan, "BITS_A="));
  BOOST_TEST(runs[4].ours.plan.find(missed) != std::string::npos, runs[4].ours.plan);
}

// Lines whose elements span 2^-24 ... 2^24: more bits per line than uniform values take, the
// error still FP64's. Then lines of uniform values at scales 2^1000 apart.
BOOST_AUTO_TEST_CASE(lines_spanning_many_binades_keep_more_bits) {
  Context context = make_context();
  const Case c{48, 40, 64};
  const Compared narrow = compare(context, operands(c, 0, 21));
  const Compared wide = compare(context, operands(c, 24, 21));
  BOOST_TEST_REQUIRE(ran_the_scheme(narrow.ours), narrow.ours.plan);
  BOOST_TEST_REQUIRE(ran_the_scheme(wide.ours), wide.ours.plan);
  BOOST_TEST(bits_in(wide.ours.plan, "BITS_A=") > bits_in(narrow.ours.plan, "BITS_A="));
  BOOST_TEST(bits_in(wide.ours.plan, "MODULI=") >= bits_in(narrow.ours.plan, "MODULI="));
  BOOST_TEST(wide.scheme <= std::max(wide.fp64, 2 * kUnitRoundoff));
  // Rows 2^-500 and 2^500 apart, each narrow: every line scaled on its own, nothing overflows.
  Operands far = operands(c, 0, 22);
  for (uint32_t i = 0; i < c.m; ++i)
    for (uint32_t h = 0; h < c.k; ++h)
      far.a[far.sa.at(0, i, h)] = std::ldexp(far.a[far.sa.at(0, i, h)], 500 * (int(i % 3) - 1));
  const Compared apart = compare(context, far);
  BOOST_TEST_REQUIRE(ran_the_scheme(apart.ours), apart.ours.plan);
  BOOST_TEST(apart.scheme <= std::max(apart.fp64, 2 * kUnitRoundoff));
}

// Each product's line statistics (largest |x|, sum of |x|) as line_stats makes them, from the host.
std::pair<gemm::OperandSummary, gemm::OperandSummary> host_summaries(const Operands &o) {
  const Case &c = o.c;
  // Largest |x| and sum of |x| of `lines` lines of K, element h of line `line` at(line, h).
  const auto summary_of = [&](uint32_t lines, auto at) {
    std::vector<double> stats;
    for (uint32_t line = 0; line < lines; ++line) {
      double top = 0, sum = 0;
      for (uint32_t h = 0; h < c.k; ++h)
        top = std::max(top, std::fabs(at(line, h))), sum += std::fabs(at(line, h));
      stats.insert(stats.end(), {top, sum});
    }
    return gemm::summarise(stats, 1, lines)[0];
  };
  return {summary_of(c.m, [&](uint32_t i, uint32_t h) { return a_of(o, 0, i, h); }),
          summary_of(c.n, [&](uint32_t j, uint32_t h) { return b_of(o, 0, h, j); })};
}

// Uniform values: the first guess from the line sums is about half of log2(k) bits below the
// product's size and would cost moduli; a few lines of |A| |B| give it back, in every layout (each
// sweeps a different operand). Never fewer moduli than the size itself needs.
BOOST_AUTO_TEST_CASE(sampled_lines_spare_the_moduli_the_line_sums_cost) {
  Context context = make_context();
  for (int layout = 0; layout < 4; ++layout) {
    Case c{96, 80, 2000};
    c.transpose_a = layout & 1;
    c.transpose_b = layout & 2;
    const Operands o = operands(c, 0, 40 + layout);
    const auto [a, b] = host_summaries(o);
    const auto moduli = [&](double size_log2) {
      const gemm::OzakiChoice choice = gemm::choose_digits({a}, {b}, c.k, {size_log2});
      BOOST_TEST_REQUIRE(choice.digits.has_value(), choice.why_not);
      return int(choice.digits->count);
    };
    const int by_sums = moduli(gemm::guess_largest_log2({a}, {b}, c.k)[0]);
    const int by_size = moduli(std::log2(size_of(o)));
    BOOST_TEST_REQUIRE(by_sums > by_size, "the case no longer shows the gap: " << by_sums);
    const Compared r = compare(context, o);
    BOOST_TEST_REQUIRE(ran_the_scheme(r.ours), r.ours.plan);
    BOOST_TEST(bits_in(r.ours.plan, "MODULI=") == by_size,
               "layout " << layout << ": " << r.ours.plan);
    BOOST_TEST(r.ours.passes.find("swept_line_stats") != std::string::npos, r.ours.passes);
    BOOST_TEST(r.scheme <= std::max(r.fp64, 2 * kUnitRoundoff));
  }
}

// A's rows: 1, then values of 2^-70; B's columns: 0 against the 1, then ones. The product is the
// sum of the small values, 2^-70 of A's largest element: more bits than the moduli carry. The
// first pass (its guess of the product too high) is caught by the check, and the FP64 product
// runs: as accurate as ever, and the plan says why.
BOOST_AUTO_TEST_CASE(a_product_no_moduli_carry_runs_in_fp64) {
  Context context = make_context();
  Case c{16, 16, 32};
  c.beta = 2; // C is still as it was when the scheme declines
  Operands o = operands(c, 0, 5);
  for (uint32_t i = 0; i < c.m; ++i)
    for (uint32_t h = 0; h < c.k; ++h) {
      o.a[o.sa.at(0, i, h)] = h == 0 ? 1 : std::ldexp(1.0 + i * 0.01 + h * 1e-3, -70);
      o.b[o.sb.at(0, h, i)] = h == 0 ? 0 : 1.0 + h * 1e-3;
    }
  const Compared r = compare(context, o);
  BOOST_TEST(!ran_the_scheme(r.ours), r.ours.plan);
  BOOST_TEST(r.ours.plan.find("[the Ozaki scheme declined: ") != std::string::npos, r.ours.plan);
  BOOST_TEST(r.scheme == r.fp64);
}

// The product cancels to about 2^-8 of its size (cancelling_operands). The bound is relative to
// the size, so the digits the sampled lines certify serve at once: one pass, C written by the
// reconstruction, with fewer moduli than the largest element alone would ask for, every element
// within the bound relative to the size (compare checks it).
BOOST_AUTO_TEST_CASE(a_cancelling_product_keeps_the_bits_its_size_asks) {
  Context context = make_context();
  Operands o = cancelling_operands();
  const Case &c = o.c;
  const Compared r = compare(context, o);
  BOOST_TEST_REQUIRE(ran_the_scheme(r.ours), r.ours.plan);
  BOOST_TEST(r.ours.plan.find("a second pass") == std::string::npos, r.ours.plan);
  BOOST_TEST(r.ours.passes.find("reconstruct_into_c") != std::string::npos, r.ours.passes);
  const auto [a, b] = host_summaries(o);
  double largest = 0;
  for (uint32_t i = 0; i < c.m; ++i)
    for (uint32_t j = 0; j < c.n; ++j) {
      Dot2 dot;
      for (uint32_t h = 0; h < c.k; ++h)
        dot.add(a_of(o, 0, i, h), b_of(o, 0, h, j));
      largest = std::max(largest, std::fabs(dot.value()));
    }
  const gemm::OzakiChoice by_largest = gemm::choose_digits({a}, {b}, c.k, {std::log2(largest)});
  BOOST_TEST_REQUIRE(by_largest.digits.has_value(), by_largest.why_not);
  BOOST_TEST(bits_in(r.ours.plan, "MODULI=") < int(by_largest.digits->count), r.ours.plan);
}

// A's rows near 1 in the first half of K and 2^-8-small in the second, B's columns the other way
// round: the line sums (half of K each) guess a size about 2^4 above the true one, which the
// sampled lines cannot lower. The check after the first pass catches it, and a second pass keeps
// more bits. 272 columns: the reconstruction's work-groups of 256 columns, one whole and one
// partial.
BOOST_AUTO_TEST_CASE(a_product_smaller_than_guessed_takes_a_second_pass) {
  Context context = make_context();
  const Case c{16, 272, 64};
  Operands o = operands(c, 0, 17);
  for (uint32_t i = 0; i < c.m; ++i)
    for (uint32_t h = 0; h < c.k; ++h) {
      double &a = o.a[o.sa.at(0, i, h)];
      a = h < c.k / 2 ? 1 + std::ldexp(a, -8) : std::ldexp(a, -8);
    }
  for (uint32_t h = 0; h < c.k; ++h)
    for (uint32_t j = 0; j < c.n; ++j) {
      double &b = o.b[o.sb.at(0, h, j)];
      b = h < c.k / 2 ? std::ldexp(b, -8) : 1 + std::ldexp(j, -12); // columns told apart
    }
  const Compared r = compare(context, o);
  BOOST_TEST(ran_the_scheme(r.ours), r.ours.plan);
  BOOST_TEST(r.ours.plan.find("a second pass") != std::string::npos, r.ours.plan);
  // Each pass rebuilt its values for the check, and the second's went into C.
  BOOST_TEST(ran_in_order(r.ours.passes, {"residue_products", "reconstruct", "residue_products",
                                          "reconstruct", "apply"}),
             r.ours.passes);
  BOOST_TEST(r.scheme <= std::max(r.fp64, 2 * kUnitRoundoff));
}

// An infinity in A: the scheme cannot carry it; the FP64 product does, as the exact call would.
BOOST_AUTO_TEST_CASE(values_that_are_not_finite_run_in_fp64) {
  Context context = make_context();
  const Case c{8, 8, 8};
  Operands o = operands(c, 0, 9);
  o.a[3] = INFINITY;
  Result ours;
  {
    ScopedEnvironment ozaki("MQLCL_GEMM_KERNEL", "ozaki");
    ours = run(context, o, MQLCL_GEMM_FASTEST);
  }
  const Result fp64 = run(context, o, MQLCL_GEMM_EXACT);
  BOOST_TEST(ours.plan.find("infinities, NaNs") != std::string::npos, ours.plan);
  for (size_t at = 0; at < ours.c.size(); ++at)
    BOOST_TEST((ours.c[at] == fp64.c[at] || (std::isnan(ours.c[at]) && std::isnan(fp64.c[at]))),
               "element " << at);
}

// Sets of the scheme measured on the device, as `tune --gemm NN --double --accurate` writes them,
// decide for ACCURATE double calls of their layout: the largest set within the call's M, N and K
// says, UNASKED=1 the scheme and 0 the FP64 product; a call below every set, or of another
// layout, is left to kOzakiUnaskedFrom (far above these sizes). The scheme so taken keeps its
// bound.
BOOST_AUTO_TEST_CASE(sets_measured_on_the_device_take_the_scheme_unasked) {
  if (const char *named = std::getenv("MQLCL_GEMM_KERNEL"); named != nullptr && *named) {
    BOOST_TEST_MESSAGE("MQLCL_GEMM_KERNEL=" << named << " decides instead of the measured sets");
    return;
  }
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-unasked-" + std::to_string(std::random_device{}()) + ".json");
  std::string key, step;
  {
    Context probe = make_context();
    key = tuning_key(probe);
    step = scheme_step(probe);
  }
  const auto set = [](int unasked) {
    return "{\"kernel_file\": \"ozaki.cl\", \"params\": {\"UNASKED\": " + std::to_string(unasked) +
           "}}";
  };
  std::ofstream(cache) << "{\"" << key << "\": {\"" << step
                       << " double NN\": {\"64x64x64\": " << set(1) << ", \"96x96x96\": " << set(0)
                       << "}}}";
  ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
  Context context = make_context(); // reads the cache at its first CLGemm
  const struct {
    Case c;
    bool scheme;
  } calls[] = {{Case{64, 64, 64}, true},
               {Case{80, 70, 90}, true},
               {Case{100, 100, 100}, false},
               {Case{100, 100, 63}, false},
               {Case{64, 64, 64, false, true}, false}};
  for (const auto &call : calls) {
    const Operands o = operands(call.c, 0, 5);
    const Result ours = run(context, o, MQLCL_GEMM_ACCURATE);
    BOOST_TEST(ran_the_scheme(ours) == call.scheme, ours.plan);
    if (!call.scheme)
      continue;
    BOOST_TEST(ours.plan.find("measured faster than the FP64 product (tuning cache: ") !=
                   std::string::npos,
               ours.plan);
    BOOST_TEST(ours.plan.find(" at 64x64x64 NN))") != std::string::npos, ours.plan);
    bool untouched = false;
    BOOST_TEST(errors_of(o, ours.c, untouched, size_of(o)).of_bound <= 1 + 0x1p-10, ours.plan);
    BOOST_TEST(untouched);
  }
  std::filesystem::remove(cache);
}

// MQLCL_GEMM_EXACT asks for FP64's own multiply-adds: the scheme never runs for it.
BOOST_AUTO_TEST_CASE(exact_double_products_never_run_the_scheme) {
  Context context = make_context();
  ScopedEnvironment ozaki("MQLCL_GEMM_KERNEL", "ozaki");
  const Result exact = run(context, operands(Case{8, 8, 8}, 0, 3), MQLCL_GEMM_EXACT);
  BOOST_TEST(!ran_the_scheme(exact), exact.plan);
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

// A float call's operands and C as CLGemm reads them (each double of `o` rounded to float), and
// `o` rounded alike, so that its Dot2 reference is the product of what CLGemm was given.
std::vector<float> as_floats(std::vector<double> &values) {
  std::vector<float> floats(values.begin(), values.end());
  std::copy(floats.begin(), floats.end(), values.begin());
  return floats;
}

int32_t filled(int32_t context, const std::vector<float> &values) {
  const int32_t buffer = CLBufferCreate(context, uint32_t(values.size() * 4), MQLCL_MEM_READ_WRITE);
  BOOST_TEST_REQUIRE(buffer != MQLCL_INVALID_HANDLE, last_error);
  BOOST_TEST_REQUIRE(CLBufferWrite(buffer, values.data(), 0, 0, uint32_t(values.size()), 4) ==
                     values.size());
  return buffer;
}

// `o`'s product in float (its values rounded to float first, in `o` too).
Result run_float(int32_t context, Operands &o, int32_t precision) {
  const Buffer a(filled(context, as_floats(o.a))), b(filled(context, as_floats(o.b))),
      c(filled(context, as_floats(o.c_before)));
  const Case &k = o.c;
  BOOST_TEST_REQUIRE(CLGemm(a, b, c, MQLCL_GEMM_FLOAT, precision, k.transpose_a, k.transpose_b, k.m,
                            k.n, k.k, k.alpha, k.beta, k.offset, o.sa.ld, k.offset, o.sb.ld,
                            k.offset, o.sc.ld, k.batch, o.sa.stride, o.sb.stride, o.sc.stride) == 1,
                     last_error);
  std::vector<float> after(o.c_before.size());
  BOOST_TEST_REQUIRE(CLBufferRead(c, after.data(), 0, 0, uint32_t(after.size()), 4) ==
                     after.size());
  return {std::vector<double>(after.begin(), after.end()), info_string(context, MQLCL_CL_GEMM_PLAN),
          info_string(context, MQLCL_CL_GEMM_PASSES)};
}

// The float product by the scheme (MQLCL_GEMM_KERNEL=ozaki, ACCURATE): every element within
// 2^kOzakiFloatBoundLog2 (2^-20) of the product's size of the exact one before its rounding to
// float, so within that plus 2^-24 |ref| after it, where it ran C = A B; C's other elements
// untouched.
Result float_scheme(int32_t context, Operands &o) {
  Result ours;
  {
    ScopedEnvironment ozaki("MQLCL_GEMM_KERNEL", "ozaki");
    ours = run_float(context, o, MQLCL_GEMM_ACCURATE);
  }
  bool untouched = false;
  const double size = size_of(o);
  const Errors errors = errors_of(o, ours.c, untouched);
  BOOST_TEST(untouched, "the scheme wrote outside C's elements");
  const double bound = std::ldexp(size, gemm::kOzakiFloatBoundLog2);
  double of_bound = 0;
  if (o.c.alpha == 1 && o.c.beta == 0)
    for (uint32_t p = 0; p < o.c.batch; ++p)
      for (uint32_t i = 0; i < o.c.m; ++i)
        for (uint32_t j = 0; j < o.c.n; ++j) {
          Dot2 dot;
          for (uint32_t h = 0; h < o.c.k; ++h)
            dot.add(a_of(o, p, i, h), b_of(o, p, h, j));
          const double off = std::fabs((ours.c[o.sc.at(p, i, j)] - dot.sum) - dot.carry);
          of_bound = std::max(of_bound, off / (bound + 0x1p-24 * std::fabs(dot.value())));
        }
  BOOST_TEST_MESSAGE(o.c.m << "x" << o.c.n << "x" << o.c.k << " float: error " << errors.relative
                           << ", / the bound " << of_bound << " (" << ours.plan << ")");
  if (ran_the_scheme(ours))
    BOOST_TEST(of_bound <= 1 + 0x1p-10, ours.plan);
  return ours;
}

} // namespace

BOOST_AUTO_TEST_SUITE(float_products, *boost::unit_test::precondition(needs_device()))

// Every layout, odd sizes, padding, offsets, a batch, alpha and beta: float operands and C, the
// scheme's error within its bound (float_scheme) and within MQLCL_GEMM_ACCURATE's documented 1e-5
// of the largest element (at these small K an FP32 product is often closer: the scheme's bound is
// an FP32 product's own at K = 16, api.md).
BOOST_AUTO_TEST_CASE(float_products_run_the_scheme_within_its_bound_in_every_layout) {
  Context context = make_context();
  uint32_t seed = 41;
  for (int layout = 0; layout < 4; ++layout) {
    const Case c = layout_case(layout);
    Operands o = operands(c, 3, seed++);
    const Result ours = float_scheme(context, o);
    BOOST_TEST(ran_the_scheme(ours), ours.plan);
    BOOST_TEST(ours.passes.find("reconstruct_into_c") != std::string::npos, ours.passes);
    bool untouched = false;
    BOOST_TEST(errors_of(o, ours.c, untouched).relative <= 1e-5);
  }
}

// The float bound asks for fewer bits, so fewer moduli, than double's on the same operands.
BOOST_AUTO_TEST_CASE(float_products_take_fewer_moduli_than_double) {
  Context context = make_context();
  Operands o = operands(Case{24, 40, 256}, 0, 61);
  const Result ours = float_scheme(context, o);
  BOOST_TEST_REQUIRE(ran_the_scheme(ours), ours.plan);
  if (has_double(context)) {
    ScopedEnvironment ozaki("MQLCL_GEMM_KERNEL", "ozaki");
    const Result fp64 = run(context, o, MQLCL_GEMM_ACCURATE);
    BOOST_TEST(bits_in(ours.plan, "MODULI=") < bits_in(fp64.plan, "MODULI="),
               ours.plan << " against " << fp64.plan);
  }
}

// Lines that span more binades than 20 moduli carry: the scheme declines, C is left as it was for
// the float product that runs instead, and the plan says why.
BOOST_AUTO_TEST_CASE(a_float_product_no_moduli_carry_runs_without_the_scheme) {
  Context context = make_context();
  Case c{16, 16, 32};
  c.beta = 2;
  Operands o = operands(c, 0, 5);
  for (uint32_t i = 0; i < c.m; ++i)
    for (uint32_t h = 0; h < c.k; ++h) {
      o.a[o.sa.at(0, i, h)] = h == 0 ? 1 : std::ldexp(1.0 + i * 0.01 + h * 1e-3, -100);
      o.b[o.sb.at(0, h, i)] = h == 0 ? 0 : 1.0 + h * 1e-3;
    }
  const Result ours = float_scheme(context, o);
  BOOST_TEST(!ran_the_scheme(ours), ours.plan);
  BOOST_TEST(ours.plan.find("[the Ozaki scheme declined: ") != std::string::npos, ours.plan);
  bool untouched = false;
  BOOST_TEST(errors_of(o, ours.c, untouched).relative <= 0x1p-20);
}

// The cancelling product above in float: every element within the float bound relative to the
// size (float_scheme checks it: relative to the largest element that is up to 2^8 times more), the
// digits the sampled lines certify serving at once.
BOOST_AUTO_TEST_CASE(a_cancelling_float_product_stays_within_its_bound) {
  Context context = make_context();
  Operands o = cancelling_operands();
  const Result ours = float_scheme(context, o);
  BOOST_TEST_REQUIRE(ran_the_scheme(ours), ours.plan);
  BOOST_TEST(ours.plan.find("a second pass") == std::string::npos, ours.plan);
  BOOST_TEST(ours.passes.find("reconstruct_into_c") != std::string::npos, ours.passes);
}

BOOST_AUTO_TEST_CASE(exact_float_products_never_run_the_scheme) {
  Context context = make_context();
  ScopedEnvironment ozaki("MQLCL_GEMM_KERNEL", "ozaki");
  Operands o = operands(Case{8, 8, 8}, 0, 3);
  const Result exact = run_float(context, o, MQLCL_GEMM_EXACT);
  BOOST_TEST(!ran_the_scheme(exact), exact.plan);
}

BOOST_AUTO_TEST_SUITE_END()
