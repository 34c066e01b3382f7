#include "gemm/ozaki.hpp"

#include "cl_api.hpp"
#include "errors.hpp"
#include "gemm/forms.hpp"
#include "gemm/operands.hpp"
#include "gemm/planner.hpp"
#include "gemm/runtime.hpp"
#include "process_state.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <utility>

namespace mqlcl::gemm {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
constexpr int kMostBits = 120; // a line's integers stay far inside double's exponents
constexpr const char *kFile = "ozaki.cl", *kRebuildFile = "ozaki_rebuild.cl";
// The work-groups' shapes kernels/gemm/ozaki.cl and ozaki_rebuild.cl require.
constexpr size_t kStatsGroup = 64, kAcrossGroup = 512, kResidueTile = 32, kResidueRows = 8,
                 kLargestGroup = 64;
// The fixed operand's lines the swept one's are summed against (ozaki.cl's SAMPLES), packed as a
// double4 per element of K.
constexpr size_t kSampledLines = 4;

// x^-1 modulo p, for x coprime to p (extended Euclid).
int inverse_modulo(int x, int p) {
  int r0 = p, r1 = ((x % p) + p) % p, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const int q = r0 / r1;
    std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
    std::tie(t0, t1) = std::make_pair(t1, t0 - q * t1);
  }
  return ((t0 % p) + p) % p;
}

// x modulo p in [-(p - 1) / 2, (p - 1) / 2], p odd.
int symmetric_modulo(int x, int p) {
  const int r = ((x % p) + p) % p;
  return r > (p - 1) / 2 ? r - p : r;
}

// log2(2^x + 2^y + ...), without overflow.
double log2_sum(std::initializer_list<double> terms) {
  const double top = std::max(terms);
  if (top == kMinusInfinity)
    return top;
  double sum = 0;
  for (double term : terms)
    sum += std::exp2(term - top);
  return top + std::log2(sum);
}

bool is_zero(const OperandSummary &operand) {
  return operand.top_exponent == INT_MIN;
}

// The fewest bits an operand's lines can keep for `share` of the bound in one product (the other
// operand's term and the third the rest).
int bits_needed(const OperandSummary &operand, const OperandSummary &other, double size_log2,
                double share, int bound_log2) {
  const double needed = operand.top_exponent + std::log2(other.largest_sum) -
                        (bound_log2 + std::log2(share) + size_log2);
  return std::max(1, static_cast<int>(std::ceil(needed)));
}

// The largest sum of |x'| over a line of `operand` at `bits` bits: each |x'| is at most 2^bits,
// and at most |x| 2^(bits - 1 - e) + 1/2 (rounded to nearest), e the ilogb of its line's largest.
double largest_integer_sum(const OperandSummary &operand, uint32_t k, int bits) {
  const double summed = operand.largest_scaled_sum * (1 + (k + 128.0) * 0x1p-52); // its rounding
  return std::min(std::ldexp(double(k), bits), std::ldexp(summed, bits - 1) + 0.5 * k);
}

} // namespace

OzakiGarner ozaki_garner() {
  OzakiGarner g{};
  for (size_t l = 0; l < kOzakiModuli.size(); ++l) {
    const int p = kOzakiModuli[l];
    int below = 1; // the product of the moduli below d, modulo p, for d = 0 .. l
    std::vector<int> products_below;
    for (size_t d = 0; d <= l; ++d) {
      products_below.push_back(below);
      below = below * kOzakiModuli[d] % p;
    }
    const int inverse = inverse_modulo(products_below[l], p);
    g[l][l] = symmetric_modulo(inverse, p);
    for (size_t d = 0; d < l; ++d)
      g[d][l] = symmetric_modulo(-products_below[d] * inverse, p);
  }
  return g;
}

double ozaki_bits_of(unsigned count) {
  double bits = 0;
  for (unsigned l = 0; l < count && l < kOzakiModuli.size(); ++l)
    bits += std::log2(static_cast<double>(kOzakiModuli[l]));
  return bits;
}

namespace {

// An unsigned integer in 32-bit limbs, least significant first: the moduli's product.
using Limbs = std::vector<uint32_t>;

void multiply(Limbs &x, uint32_t factor) {
  uint64_t carry = 0;
  for (uint32_t &limb : x) {
    const uint64_t product = uint64_t(limb) * factor + carry;
    limb = uint32_t(product);
    carry = product >> 32;
  }
  if (carry != 0)
    x.push_back(uint32_t(carry));
}

int bit_length(const Limbs &x) {
  int length = int(x.size()) * 32;
  for (int i = length - 1; i >= 0 && !((x[i / 32] >> (i % 32)) & 1); --i)
    --length;
  return length;
}

// x's `count` bits from bit `from` up (bits below 0 are 0), as a double times 2^from: x truncated.
double bits_of(const Limbs &x, int from, int count) {
  uint64_t value = 0;
  for (int i = from + count - 1; i >= from; --i)
    value = value << 1 | (i >= 0 && i < int(x.size()) * 32 ? (x[i / 32] >> (i % 32)) & 1 : 0);
  return std::ldexp(double(value), from);
}

// x / p rounded to nearest, p odd (never a tie).
int64_t rounded_quotient(int64_t x, int64_t p) {
  int64_t quotient = x / p;
  const int64_t rest = x - quotient * p;
  if (2 * rest > p)
    ++quotient;
  else if (2 * rest < -p)
    --quotient;
  return quotient;
}

} // namespace

OzakiCrt ozaki_crt(unsigned count) {
  OzakiCrt crt;
  Limbs product{1};
  for (unsigned l = 0; l < count; ++l)
    multiply(product, uint32_t(kOzakiModuli[l]));
  const int length = bit_length(product);
  crt.modulus_hi = bits_of(product, length - 53, 53);
  crt.modulus_lo = bits_of(product, length - 106, 53); // the 53 below: within 2^-105 P of it
  for (unsigned l = 0; l < count; ++l) {
    const int p = kOzakiModuli[l];
    int others = 1; // P / p_l modulo p_l
    for (unsigned d = 0; d < count; ++d)
      if (d != l)
        others = others * kOzakiModuli[d] % p;
    int64_t rest = symmetric_modulo(inverse_modulo(others, p), p); // f_l = rest / p
    std::array<double, 3> pieces{};
    for (size_t piece = 0; piece < pieces.size(); ++piece) {
      const int64_t scaled = rest * (int64_t(1) << 42), quotient = rounded_quotient(scaled, p);
      pieces[piece] = std::ldexp(double(quotient), -42 * int(piece + 1));
      rest = scaled - quotient * p;
    }
    crt.pieces.push_back(pieces);
  }
  return crt;
}

std::vector<OperandSummary> summarise(const std::vector<double> &stats, uint32_t products,
                                      uint32_t lines) {
  std::vector<OperandSummary> summaries(products);
  for (uint32_t p = 0; p < products; ++p)
    for (uint32_t line = 0; line < lines; ++line) {
      const double largest = stats[2 * (size_t(p) * lines + line)];
      const double sum = stats[2 * (size_t(p) * lines + line) + 1];
      OperandSummary &summary = summaries[p];
      if (!std::isfinite(largest) || !std::isfinite(sum))
        summary.finite = false;
      else if (largest > 0) {
        summary.top_exponent = std::max(summary.top_exponent, std::ilogb(largest));
        summary.largest_scaled_sum =
            std::max(summary.largest_scaled_sum, std::ldexp(sum, -std::ilogb(largest)));
      }
      summary.largest_sum = std::max(summary.largest_sum, sum);
    }
  return summaries;
}

std::vector<double> guess_largest_log2(const std::vector<OperandSummary> &a,
                                       const std::vector<OperandSummary> &b, uint32_t k) {
  std::vector<double> guesses(a.size(), kMinusInfinity);
  for (size_t p = 0; p < a.size(); ++p)
    if (!is_zero(a[p]) && !is_zero(b[p]))
      guesses[p] = std::log2(a[p].largest_sum) + std::log2(b[p].largest_sum) - 1.5 * std::log2(k);
  return guesses;
}

double ozaki_error_bound_log2(const OperandSummary &a, const OperandSummary &b, uint32_t k,
                              const OzakiDigits &digits) {
  if (is_zero(a) || is_zero(b))
    return kMinusInfinity;
  const double a_off = a.top_exponent - digits.bits_a, b_off = b.top_exponent - digits.bits_b;
  return log2_sum({a_off + std::log2(b.largest_sum), b_off + std::log2(a.largest_sum),
                   std::log2(k) + a_off + b_off});
}

double ozaki_crt_error_log2(const OperandSummary &a, const OperandSummary &b,
                            const OzakiDigits &digits, unsigned pieces) {
  if (is_zero(a) || is_zero(b))
    return kMinusInfinity;
  return (pieces >= 3 ? -104 : -72) + ozaki_bits_of(digits.count) +
         (a.top_exponent + 1 - digits.bits_a) + (b.top_exponent + 1 - digits.bits_b);
}

double ozaki_product_bits(const OperandSummary &a, const OperandSummary &b, uint32_t k,
                          const OzakiDigits &digits) {
  if (is_zero(a) || is_zero(b))
    return 0;
  const double largest =
      std::min(std::ldexp(largest_integer_sum(b, k, digits.bits_b), digits.bits_a),
               std::ldexp(largest_integer_sum(a, k, digits.bits_a), digits.bits_b));
  return std::log2(2 * largest + 1);
}

namespace {

// log2 of what the moduli must carry for every product of the batch.
double batch_product_bits(const std::vector<OperandSummary> &a,
                          const std::vector<OperandSummary> &b, uint32_t k,
                          const OzakiDigits &digits) {
  double bits = 0;
  for (size_t p = 0; p < a.size(); ++p)
    bits = std::max(bits, ozaki_product_bits(a[p], b[p], k, digits));
  return bits;
}

bool meets_bound(const std::vector<OperandSummary> &a, const std::vector<OperandSummary> &b,
                 uint32_t k, const std::vector<double> &size_log2, const OzakiDigits &digits,
                 int bound_log2) {
  for (size_t p = 0; p < a.size(); ++p)
    if (ozaki_error_bound_log2(a[p], b[p], k, digits) > bound_log2 + size_log2[p])
      return false;
  return true;
}

// The fewest bits in all that meet the bound in every product (their sum sets the moduli), each
// operand's between `least` and `most` (`most` meets it but for the third term): rounding each
// operand's share up on its own can cost two bits, a modulus in four. Of splits of one sum, the
// one whose products carry the fewest bits.
OzakiDigits fewest_bits(const std::vector<OperandSummary> &a, const std::vector<OperandSummary> &b,
                        uint32_t k, const std::vector<double> &size_log2, OzakiDigits least,
                        OzakiDigits most, int bound_log2) {
  while (most.bits_a <= kMostBits && !meets_bound(a, b, k, size_log2, most, bound_log2))
    ++most.bits_a, ++most.bits_b; // the third term, at very few bits
  for (int total = least.bits_a + least.bits_b; total < most.bits_a + most.bits_b; ++total) {
    std::optional<OzakiDigits> best;
    double best_needed = 0;
    for (int bits_a = least.bits_a; bits_a <= std::min(most.bits_a, total - least.bits_b);
         ++bits_a) {
      const OzakiDigits split{bits_a, total - bits_a, 1};
      if (split.bits_b > most.bits_b || !meets_bound(a, b, k, size_log2, split, bound_log2))
        continue;
      const double needed = batch_product_bits(a, b, k, split);
      if (!best || needed < best_needed)
        best = split, best_needed = needed;
    }
    if (best)
      return *best;
  }
  return most;
}

} // namespace

OzakiChoice choose_digits(const std::vector<OperandSummary> &a,
                          const std::vector<OperandSummary> &b, uint32_t k,
                          const std::vector<double> &size_log2, int bound_log2) {
  OzakiDigits least, most; // each operand's bits: with all of the bound, with 0.49 of it
  for (size_t p = 0; p < a.size(); ++p) {
    if (!a[p].finite || !b[p].finite)
      return {std::nullopt, "an operand holds infinities, NaNs or sums past the largest double"};
    if (is_zero(a[p]) || is_zero(b[p]))
      continue; // a zero operand: the product is exactly zero at any bits
    if (size_log2[p] == kMinusInfinity)
      return {std::nullopt, fmt::format("product {} of the batch is zero from operands that are "
                                        "not: it cancels past what any bound certifies",
                                        p)};
    least.bits_a = std::max(least.bits_a, bits_needed(a[p], b[p], size_log2[p], 1, bound_log2));
    least.bits_b = std::max(least.bits_b, bits_needed(b[p], a[p], size_log2[p], 1, bound_log2));
    most.bits_a = std::max(most.bits_a, bits_needed(a[p], b[p], size_log2[p], 0.49, bound_log2));
    most.bits_b = std::max(most.bits_b, bits_needed(b[p], a[p], size_log2[p], 0.49, bound_log2));
  }
  OzakiDigits digits = fewest_bits(a, b, k, size_log2, least, most, bound_log2);
  const double needed = batch_product_bits(a, b, k, digits);
  if (digits.bits_a > kMostBits || digits.bits_b > kMostBits ||
      needed >= ozaki_bits_of(kOzakiModuli.size()))
    return {std::nullopt,
            fmt::format("the operands' lines span too many binades: {} and {} bits per line and "
                        "{:.0f} bits of product, past the {:.0f} that {} moduli carry",
                        digits.bits_a, digits.bits_b, needed, ozaki_bits_of(kOzakiModuli.size()),
                        kOzakiModuli.size())};
  while (ozaki_bits_of(digits.count) <= needed + 1e-9)
    ++digits.count;
  return {digits, {}};
}

RebuildPieces rebuild_pieces(EnvironmentReader environment) {
  const std::string choice = environment("MQLCL_OZAKI_REBUILD");
  if (choice == "garner")
    return {0, 0};
  if (choice == "crt3")
    return {3, 3};
  return {};
}

bool ozaki_offered(const Call &call) {
  return call.precision == Precision::accurate ||
         (call.double_precision && call.precision == Precision::fastest);
}

bool ozaki_forced(EnvironmentReader environment) {
  return environment("MQLCL_GEMM_KERNEL") == "ozaki";
}

std::optional<std::string> ozaki_unasked(const DeviceLimits &limits, const Call &call,
                                         EnvironmentReader environment,
                                         const std::optional<Tuned> &measured) {
  if (!ozaki_offered(call) || !environment("MQLCL_GEMM_KERNEL").empty())
    return std::nullopt;
  if (measured) {
    const auto said = measured->entry.params.find(kUnaskedParam);
    if (said != measured->entry.params.end())
      return said->second == 1
                 ? std::optional(fmt::format("measured faster than the {} product ({})",
                                             call.double_precision ? "FP64" : "float",
                                             measured->origin))
                 : std::nullopt;
  }
  if (call.double_precision && limits.int8_wgmma &&
      std::min({call.m, call.n, call.k}) >= kOzakiUnaskedFrom)
    return fmt::format("M, N and K from {}", kOzakiUnaskedFrom);
  return std::nullopt;
}

namespace {

// The kernels, and the form of the integer products with its parameters (forms.hpp).
struct OzakiKernels {
  cl_kernel stats, stats_across, swept_stats, swept_stats_across, residues, products;
  const Form *form;
  Params params;
  std::string origin; // of the parameters: "defaults", or the tuned set's
};

// The moduli and Garner's constants as build options, the same for every call: made once, by
// process_wide (process_state.hpp), since CLGemm may still run on other threads while the process
// exits.
std::string make_moduli_options() {
  std::vector<int> garner;
  for (const auto &row : ozaki_garner())
    garner.insert(garner.end(), row.begin(), row.end());
  return fmt::format("-DOZAKI_COUNT={} -DOZAKI_MODULI={} -DOZAKI_GARNER={}", kOzakiModuli.size(),
                     fmt::join(kOzakiModuli, ","), fmt::join(garner, ","));
}

const std::string &moduli_options() {
  static const std::string &options = process_wide<std::string>(make_moduli_options());
  return options;
}

// The build option of the operands' and C's element type (ozaki_common.cl).
const char *element_option(bool double_precision) {
  return double_precision ? "" : " -DOZAKI_FLOAT=1";
}

// The forms of the integer products, fastest first, and where each runs: whether the device has
// what it needs, and the context's record of whether it built (nothing for the portable form).
struct Candidate {
  Family family;
  bool on_device;
  ContextState::TensorCores *built;
};

OzakiKernels ozaki_kernels(const Context &context, ContextState &state, const Form &form,
                           const Params &params, bool double_precision) {
  std::string options = moduli_options() + element_option(double_precision);
  for (const auto &[name, value] : params)
    if (name != "GROUP") // the portable form's launch, not its kernel's
      options += fmt::format(" -D{}={}", name, value);
  OzakiKernels kernels{};
  kernels.form = &form;
  kernels.params = params;
  // wgmma exists only for sm_90a (kernels/matr_mul_wgmma_tf32.cl says how the bridge builds it).
  const bool sm90a = form.family == Family::wgmma_int8;
  // The integer products first: where the tensor cores' build fails, nothing else was built.
  kernels.products = kernel_for(context, state, kFile, options, "residue_products", sm90a);
  kernels.stats = kernel_for(context, state, kFile, options, "line_stats", sm90a);
  kernels.stats_across = kernel_for(context, state, kFile, options, "line_stats_across", sm90a);
  kernels.swept_stats = kernel_for(context, state, kFile, options, "swept_line_stats", sm90a);
  kernels.swept_stats_across =
      kernel_for(context, state, kFile, options, "swept_line_stats_across", sm90a);
  kernels.residues = kernel_for(context, state, kFile, options, "residues", sm90a);
  return kernels;
}

// The reconstruction's kernels (kernels/gemm/ozaki_rebuild.cl), a program per count of moduli:
// built for the call's, nothing is computed for the moduli past it.
struct RebuildKernels {
  cl_kernel reconstruct, reconstruct_into_c, apply;
};

// The CRT's constants for `count` moduli as build options (ozaki_rebuild.cl, OZAKI_CRT).
std::string make_crt_options(unsigned count, unsigned used) {
  const OzakiCrt crt = ozaki_crt(count);
  std::vector<std::string> pieces;
  for (const auto &modulus : crt.pieces)
    for (double piece : modulus)
      pieces.push_back(fmt::format("{:a}", piece));
  return fmt::format(
      " -DOZAKI_CRT={} -DOZAKI_CRT_PIECES={} -DOZAKI_MODULUS_HI={:a} -DOZAKI_MODULUS_LO={:a}",
      fmt::join(pieces, ","), used, crt.modulus_hi, crt.modulus_lo);
}

// Every count's and both piece counts' options, made once (as moduli_options), not at each call.
using CrtOptions = std::array<std::array<std::string, 2>, kOzakiModuli.size()>;
const std::string &crt_options(unsigned count, unsigned used) {
  static const CrtOptions &options = process_wide<CrtOptions>([] {
    CrtOptions made;
    for (unsigned moduli = 1; moduli <= made.size(); ++moduli)
      for (unsigned pieces = 2; pieces <= 3; ++pieces)
        made[moduli - 1][pieces - 2] = make_crt_options(moduli, pieces);
    return made;
  }());
  return options.at(count - 1).at(used - 2);
}

RebuildKernels rebuild_kernels(const Context &context, ContextState &state, const Call &call,
                               unsigned count, unsigned pieces) {
  const std::string options = fmt::format("{}{} -DOZAKI_DIGITS={}{}", moduli_options(),
                                          element_option(call.double_precision), count,
                                          pieces > 0 ? crt_options(count, pieces) : std::string());
  return {kernel_for(context, state, kRebuildFile, options, "reconstruct", false),
          kernel_for(context, state, kRebuildFile, options, "reconstruct_into_c", false),
          kernel_for(context, state, kRebuildFile, options, "apply", false)};
}

// The parameters of `form` for this call: a tuned set over its defaults where one is valid here,
// else the defaults; and their origin.
std::pair<Params, std::string> params_for(const Context &context, ContextState &state,
                                          const Call &call, const Form &form,
                                          const DeviceLimits &limits) {
  if (auto tuned = tuned_for(context, state, call, step_of(form.family)))
    if (std::optional<Params> set = scheme_set(form, tuned->entry, limits))
      return {std::move(*set), tuned->origin};
  return {defaults_of(form), "defaults"};
}

// The form the device runs (the first of: Hopper's wgmma, the INT8 tensor cores' mma.sync, the
// portable one, that it has and that built in this context), its parameters (a tuned set over
// its defaults) and kernels; nothing where the device's work-groups take none.
std::optional<OzakiKernels> kernels_for(const Context &context, ContextState &state,
                                        const Call &call) {
  const DeviceLimits limits = limits_of(*context.device);
  const Candidate candidates[] = {
      {Family::wgmma_int8, limits.int8_wgmma, &state.int8_wgmma},
      {Family::tensor_int8, limits.int8_tensor_cores, &state.int8_tensor_cores},
      {Family::integer_residues, true, nullptr}};
  for (const Candidate &candidate : candidates) {
    if (!candidate.on_device ||
        (candidate.built && *candidate.built == ContextState::TensorCores::unavailable))
      continue;
    const Form &form = form_of(candidate.family);
    auto [params, origin] = params_for(context, state, call, form, limits);
    if (!form.valid(params, limits, 1))
      continue;
    try {
      OzakiKernels kernels = ozaki_kernels(context, state, form, params, call.double_precision);
      kernels.origin = origin;
      if (candidate.built)
        *candidate.built = ContextState::TensorCores::built;
      return kernels;
    } catch (const Failure &failure) {
      if (!candidate.built || failure.code() != MQLCL_ERR_OPENCL_PROGRAM_CREATE ||
          *candidate.built == ContextState::TensorCores::built)
        throw;
      *candidate.built = ContextState::TensorCores::unavailable; // a driver without them
    }
  }
  return std::nullopt;
}

// How the residues lie in their planes (kernels/gemm/ozaki.cl, residue_at): lines of `padded`
// chars (K rounded up to whole 16-byte chunks), or, for wgmma's bulk copies, tiles of BM lines of
// A and BN of B, K rounded up to whole BK slices and the lines to whole tiles.
struct ResidueLayout {
  uint32_t padded;
  uint32_t tile_a, tile_b; // lines per tile; 0: lines one after another
  size_t lines_a, lines_b; // per plane and product
};

ResidueLayout layout_of(const OzakiKernels &k, const Call &call) {
  const Form &form = *k.form;
  if (form.family != Family::wgmma_int8)
    return {uint32_t(round_up(call.k, 16)), 0, 0, call.m, call.n};
  const auto bm = uint32_t(value_of(form, k.params, "BM")),
             bn = uint32_t(value_of(form, k.params, "BN")),
             bk = uint32_t(value_of(form, k.params, "BK"));
  return {uint32_t(round_up(call.k, bk)), bm, bn, round_up(call.m, bm), round_up(call.n, bn)};
}

// Where element h of line `line` of an operand lies: line * line_step + h * step.
struct LineWalk {
  const Lines *lines;
  cl_ulong line_step, step;
};

LineWalk walk_of(const Lines &lines) {
  return {&lines, lines.k_runs_down ? 1 : lines.ld, lines.k_runs_down ? lines.ld : 1};
}

// An operand's six arguments (src, offset, stride, line_step, step, lines) from `first` on.
void set_line_args(cl_kernel kernel, cl_uint first, const LineWalk &walk) {
  set_arg(kernel, first, walk.lines->memory);
  set_arg(kernel, first + 1, cl_ulong(walk.lines->offset));
  set_arg(kernel, first + 2, cl_ulong(walk.lines->stride));
  set_arg(kernel, first + 3, walk.line_step);
  set_arg(kernel, first + 4, walk.step);
  set_arg(kernel, first + 5, cl_uint(walk.lines->lines));
}

void set_walk_args(cl_kernel kernel, const LineWalk &walk, uint32_t k) {
  set_line_args(kernel, 0, walk);
  set_arg(kernel, 6, cl_uint(k));
}

// Waits for the queue and reads `count` values of `memory` (`what`, for the error's message).
template <class T>
std::vector<T> read_all(const Context &context, cl_mem memory, size_t count, const char *what) {
  std::vector<T> values(count);
  check_cl(cl_api().clEnqueueReadBuffer(context.queue, memory, CL_TRUE, 0, count * sizeof(T),
                                        values.data(), 0, nullptr, nullptr),
           fmt::format("CLGemm: clEnqueueReadBuffer of {}", what).c_str(),
           MQLCL_ERR_OPENCL_EXECUTE);
  return values;
}

// Zeros `largest`, a word per product, for an atomic maximum of high words (store_largest).
void zero_largest(const Context &context, cl_mem largest, uint32_t batch) {
  const cl_uint zero = 0;
  check_cl(cl_api().clEnqueueFillBuffer(context.queue, largest, &zero, sizeof(zero), 0,
                                        sizeof(zero) * batch, 0, nullptr, nullptr),
           "CLGemm: clEnqueueFillBuffer of the Ozaki scheme's largest elements",
           MQLCL_ERR_OPENCL_EXECUTE);
}

// The lines side by side in one work-group of the statistics across: the most, 32, that still
// gives 256 work-groups (two on each SM of a 132-SM Hopper; fewer leave SMs idle, the pass bound
// by its loads in flight), down to 8 (a warp's lines then span 64 bytes). On an H100, 4096^2 B
// of NN: 0.069 ms in work-groups of 16 lines, 0.078 of 8, 0.102-0.106 of 32; 8192^2: 0.23 of 32,
// 0.27 of 16, 0.30 of 8.
uint32_t lines_per_group(uint32_t lines, size_t batch) {
  uint32_t group_lines = 32;
  while (group_lines > 8 && round_up(lines, group_lines) / group_lines * batch < 256)
    group_lines /= 2;
  return group_lines;
}

// Enqueues the statistics of one operand's lines: largest |x| and sum of |x| per line; and, for
// the fixed operand, its sampled lines' |x| into `samples`, or for the swept one (`swept`) its
// sums against them into `sampled`.
void line_stats(const Context &context, ContextState &state, const OzakiKernels &k,
                const LineWalk &walk, bool swept, const Call &call, cl_mem stats, cl_mem samples,
                cl_mem sampled, bool &first) {
  const uint32_t lines = walk.lines->lines;
  const bool across = walk.line_step == 1 && walk.step != 1; // lines side by side
  const cl_kernel kernel =
      across ? (swept ? k.swept_stats_across : k.stats_across) : (swept ? k.swept_stats : k.stats);
  set_walk_args(kernel, walk, call.k);
  set_arg(kernel, 7, stats);
  set_arg(kernel, 8, samples);
  set_arg(kernel, 9, sampled);
  if (across) {
    const uint32_t group_lines = lines_per_group(lines, call.batch);
    set_arg(kernel, 10, group_lines);
    const size_t global[] = {kAcrossGroup / group_lines * round_up(lines, group_lines), 1,
                             call.batch};
    const size_t local[] = {kAcrossGroup, 1, 1};
    launch(context, state, kernel, 3, global, local, first);
  } else {
    const size_t global[] = {kStatsGroup * lines, call.batch};
    const size_t local[] = {kStatsGroup, 1};
    launch(context, state, kernel, 2, global, local, first);
  }
}

// Enqueues both operands' statistics, and a lower bound of each product's size into `sampled`
// from a few lines of one operand, the fixed one, against every line of the other, the swept
// one, summed as its statistics read it (so it is read once, coalesced): one whose lines lie side
// by side (B's first), else both run along K. The fixed operand's statistics run first.
void operand_stats(const Context &context, ContextState &state, const OzakiKernels &k,
                   const LineWalk &a, const LineWalk &b, const Call &call, cl_mem stats_a,
                   cl_mem stats_b, cl_mem sampled, bool &first) {
  const bool sweep_a = b.line_step != 1 && a.line_step == 1;
  const cl_mem samples = scratch(context, state, ScratchSlot::ozaki_samples,
                                 kSampledLines * sizeof(double) * call.batch * size_t(call.k));
  zero_largest(context, sampled, call.batch);
  line_stats(context, state, k, sweep_a ? b : a, false, call, sweep_a ? stats_b : stats_a, samples,
             sampled, first);
  line_stats(context, state, k, sweep_a ? a : b, true, call, sweep_a ? stats_a : stats_b, samples,
             sampled, first);
}

// log2 of each product's value in `high_words` (a largest element or a size, the high word of
// its double), -inf where zero.
std::vector<double> largest_log2_of(const std::vector<cl_uint> &high_words) {
  std::vector<double> largest_log2(high_words.size(), kMinusInfinity);
  for (size_t p = 0; p < high_words.size(); ++p) {
    const uint64_t bits = uint64_t(high_words[p]) << 32;
    double top = 0;
    std::memcpy(&top, &bits, sizeof(top));
    largest_log2[p] = top > 0 ? std::log2(top) : kMinusInfinity;
  }
  return largest_log2;
}

// Reads `largest` back (waiting for the queue): log2 of each product's value there.
std::vector<double> read_largest_log2(const Context &context, cl_mem largest, uint32_t batch) {
  return largest_log2_of(
      read_all<cl_uint>(context, largest, batch, "the Ozaki scheme's largest elements"));
}

// The queue the statistics are read back on: the state's own second queue, made once, so that
// the residues queued behind the statistics start while the reads run; the context's queue where
// the driver would not make one.
cl_command_queue reading_queue(const Context &context, ContextState &state) {
  if (!state.ozaki_reads_tried) {
    state.ozaki_reads_tried = true;
    try {
      state.ozaki_reads = create_queue(context, "CLGemm");
    } catch (...) {
      state.ozaki_reads = nullptr;
    }
  }
  return state.ozaki_reads != nullptr ? state.ozaki_reads : context.queue;
}

// The lines' statistics and the sampled bound, read back without blocking on `queue`, behind
// `after` (the statistics' last kernel): the integer products can be queued before the host waits
// for them. Its destructor waits for reads still in flight, so none lands in freed vectors.
class Readings {
public:
  Readings(const Context &context, cl_command_queue queue, cl_event after, const Call &call,
           cl_mem stats_a, cl_mem stats_b, cl_mem sampled)
      : queue_(queue), stats_a_(size_t(2) * call.m * call.batch),
        stats_b_(size_t(2) * call.n * call.batch), sampled_(call.batch) {
    try {
      enqueue(stats_a, stats_a_, after, nullptr);
      enqueue(stats_b, stats_b_, nullptr, nullptr);
      enqueue(sampled, sampled_, nullptr, &done_); // the queue is in order: the last to land
      for (cl_command_queue q : {context.queue, queue_})
        check_cl(cl_api().clFlush(q), "CLGemm: clFlush", MQLCL_ERR_OPENCL_EXECUTE);
    } catch (...) {
      finish();
      cl_api().clFinish(queue_); // a read queued before the failure lands first
      throw;
    }
  }
  ~Readings() { finish(); }
  Readings(const Readings &) = delete;
  Readings &operator=(const Readings &) = delete;

  // Waits for the reads; then the summaries of the operands and the sampled lower bound of each
  // product's size, log2.
  void wait(const Call &call, std::vector<OperandSummary> &a, std::vector<OperandSummary> &b,
            std::vector<double> &lower_log2) {
    check_cl(finish(), "CLGemm: clWaitForEvents of the Ozaki scheme's statistics",
             MQLCL_ERR_OPENCL_EXECUTE);
    a = summarise(stats_a_, call.batch, call.m);
    b = summarise(stats_b_, call.batch, call.n);
    lower_log2 = largest_log2_of(sampled_);
  }

private:
  template <class T>
  void enqueue(cl_mem memory, std::vector<T> &into, cl_event after, cl_event *event) {
    check_cl(
        cl_api().clEnqueueReadBuffer(queue_, memory, CL_FALSE, 0, into.size() * sizeof(T),
                                     into.data(), after ? 1 : 0, after ? &after : nullptr, event),
        "CLGemm: clEnqueueReadBuffer of the Ozaki scheme's statistics", MQLCL_ERR_OPENCL_EXECUTE);
  }
  // Waits for the last read (where one was queued) and lets its event go.
  cl_int finish() noexcept {
    if (done_ == nullptr)
      return CL_SUCCESS;
    const cl_int status = cl_api().clWaitForEvents(1, &done_);
    cl_api().clReleaseEvent(done_);
    done_ = nullptr;
    return status;
  }
  cl_command_queue queue_;
  std::vector<double> stats_a_, stats_b_;
  std::vector<cl_uint> sampled_;
  cl_event done_ = nullptr;
};

struct Scratch {
  cl_mem stats_a, stats_b, residues_a, residues_b, planes, values, largest;
};

// The operands' residues for every modulus, laid out as `layout` says, then their integer
// products, into s.planes.
void residue_products(const Context &context, ContextState &state, const OzakiKernels &k,
                      const Call &call, const LineWalk &a, const LineWalk &b,
                      const ResidueLayout &layout, const Scratch &s, const OzakiDigits &digits,
                      bool &first) {
  const uint32_t padded = layout.padded;
  for (const auto &[walk, stats, out, bits, tile, lines] :
       {std::make_tuple(a, s.stats_a, s.residues_a, digits.bits_a, layout.tile_a, layout.lines_a),
        std::make_tuple(b, s.stats_b, s.residues_b, digits.bits_b, layout.tile_b,
                        layout.lines_b)}) {
    set_walk_args(k.residues, walk, call.k);
    set_arg(k.residues, 7, cl_uint(padded));
    set_arg(k.residues, 8, stats);
    set_arg(k.residues, 9, cl_int(bits));
    set_arg(k.residues, 10, cl_uint(digits.count));
    set_arg(k.residues, 11, out);
    set_arg(k.residues, 12, cl_uint(tile));
    const size_t global[] = {round_up(padded, kResidueTile),
                             round_up(lines, kResidueTile) / kResidueTile * kResidueRows,
                             call.batch};
    const size_t local[] = {kResidueTile, kResidueRows, 1};
    launch(context, state, k.residues, 3, global, local, first);
  }
  const cl_uint sizes[] = {call.m, call.n, padded, call.batch};
  set_arg(k.products, 0, s.residues_a);
  set_arg(k.products, 1, s.residues_b);
  set_arg(k.products, 2, s.planes);
  for (cl_uint i = 0; i < 4; ++i)
    set_arg(k.products, 3 + i, sizes[i]);
  // Every plane in one launch: the form's batch is the moduli times the call's.
  const Launch planes =
      k.form->launch(k.params, Shape{call.m, call.n, call.k, digits.count * call.batch, 1});
  launch(context, state, k.products, planes.dimensions, planes.global.data(), planes.local.data(),
         first);
}

// reconstruct's and reconstruct_into_c's first arguments: the planes, the lines' statistics,
// the bits and the sizes.
void set_rebuild_args(cl_kernel kernel, const Call &call, const Scratch &s,
                      const OzakiDigits &digits) {
  const cl_mem buffers[] = {s.planes, s.stats_a, s.stats_b};
  for (cl_uint i = 0; i < 3; ++i)
    set_arg(kernel, i, buffers[i]);
  set_arg(kernel, 3, cl_int(digits.bits_a));
  set_arg(kernel, 4, cl_int(digits.bits_b));
  set_arg(kernel, 5, cl_uint(call.m));
  set_arg(kernel, 6, cl_uint(call.n));
}

// Launches reconstruct or reconstruct_into_c: four columns per work-item.
void launch_rebuild(const Context &context, ContextState &state, cl_kernel kernel, const Call &call,
                    bool &first) {
  const size_t global[] = {round_up((size_t(call.n) + 3) / 4, kLargestGroup), call.m, call.batch};
  const size_t local[] = {kLargestGroup, 1, 1};
  launch(context, state, kernel, 3, global, local, first);
}

// The products' values rebuilt from s.planes into s.values, and, read back, log2 of each
// product's largest |element| (-inf where it is zero), from the high word of its double: at most
// the largest, by less than 2^-20 of it, so the bound it certifies holds for the largest itself.
std::vector<double> reconstruct(const Context &context, ContextState &state,
                                const RebuildKernels &k, const Call &call, const Scratch &s,
                                const OzakiDigits &digits, bool &first) {
  zero_largest(context, s.largest, call.batch);
  set_rebuild_args(k.reconstruct, call, s, digits);
  set_arg(k.reconstruct, 7, s.values);
  set_arg(k.reconstruct, 8, s.largest);
  launch_rebuild(context, state, k.reconstruct, call, first);
  return read_largest_log2(context, s.largest, call.batch);
}

// C's place and alpha, beta as apply and reconstruct_into_c take them, from argument `from` on.
void set_c_args(cl_kernel kernel, cl_uint from, const Call &call) {
  set_arg(kernel, from, call.c.buffer->memory);
  const cl_ulong places[] = {call.c.offset, call.c.stride, call.c.ld};
  for (cl_uint i = 0; i < 3; ++i)
    set_arg(kernel, from + 1 + i, places[i]);
  set_arg(kernel, from + 4, call.alpha);
  set_arg(kernel, from + 5, call.beta);
}

// The products' values rebuilt from s.planes straight into C, for digits certified in advance.
void reconstruct_into_c(const Context &context, ContextState &state, const RebuildKernels &k,
                        const Call &call, const Scratch &s, const OzakiDigits &digits,
                        bool &first) {
  set_rebuild_args(k.reconstruct_into_c, call, s, digits);
  set_c_args(k.reconstruct_into_c, 7, call);
  launch_rebuild(context, state, k.reconstruct_into_c, call, first);
}

// Why the digits do not certify every product of the batch at (a lower bound of) its size; empty
// if they do. With `crt` pieces (2 or 3), the CRT's reconstruction's error is added to the inputs'
// rounding; 0: Garner's, exact, adds none.
std::string uncertified(const std::vector<OperandSummary> &a, const std::vector<OperandSummary> &b,
                        uint32_t k, const OzakiDigits &digits, const std::vector<double> &size_log2,
                        int bound_log2, unsigned crt = 0) {
  for (size_t p = 0; p < a.size(); ++p) {
    const double inputs = ozaki_error_bound_log2(a[p], b[p], k, digits);
    const double bound =
        crt > 0 ? log2_sum({inputs, ozaki_crt_error_log2(a[p], b[p], digits, crt)}) : inputs;
    if (bound != kMinusInfinity && !(bound <= bound_log2 + size_log2[p]))
      return fmt::format("product {}'s bound 2^{:.1f} passes 2^{} of its size 2^{:.1f}", p, bound,
                         bound_log2, size_log2[p]);
  }
  return {};
}

// The fewest pieces of the CRT's reconstruction (2 or 3, as `allowed`) whose error keeps every
// product within the bound at sizes of at least `size_log2`, with the inputs' rounding: at most
// the bound of the size together; 0 where none does (Garner's reconstruction, exact, then runs).
unsigned crt_pieces(const std::vector<OperandSummary> &a, const std::vector<OperandSummary> &b,
                    uint32_t k, const OzakiDigits &digits, const std::vector<double> &size_log2,
                    int bound_log2, RebuildPieces allowed) {
  for (unsigned pieces = std::max(allowed.least, 2u); pieces <= std::min(allowed.most, 3u);
       ++pieces)
    if (uncertified(a, b, k, digits, size_log2, bound_log2, pieces).empty())
      return pieces;
  return 0;
}

void apply_to_c(const Context &context, ContextState &state, const RebuildKernels &k,
                const Call &call, cl_mem values, bool &first) {
  set_arg(k.apply, 0, values);
  set_c_args(k.apply, 1, call);
  set_arg(k.apply, 7, cl_uint(call.m));
  set_arg(k.apply, 8, cl_uint(call.n));
  const size_t global[] = {call.n, call.m, call.batch};
  launch(context, state, k.apply, 3, global, nullptr, first);
}

// The lines' statistics' scratch of one operand: largest |x| and sum of |x| per line.
cl_mem stats_scratch(const Context &context, ContextState &state, ScratchSlot slot,
                     const Call &call, uint32_t lines) {
  return scratch(context, state, slot, 2 * sizeof(double) * call.batch * size_t(lines));
}

// The rest of the scratch of a pass of `count` moduli, beside the statistics already read; the
// values only for a pass that checks them before C is written (`checked`).
Scratch scratch_for(const Context &context, ContextState &state, const Call &call,
                    const ResidueLayout &layout, unsigned count, bool checked, cl_mem stats_a,
                    cl_mem stats_b) {
  const size_t products = call.batch, m = call.m, n = call.n, k = layout.padded;
  return {
      stats_a,
      stats_b,
      scratch(context, state, ScratchSlot::ozaki_residues_a, count * products * layout.lines_a * k),
      scratch(context, state, ScratchSlot::ozaki_residues_b, count * products * layout.lines_b * k),
      scratch(context, state, ScratchSlot::ozaki_planes, count * products * m * n),
      checked ? scratch(context, state, ScratchSlot::ozaki_values, 8 * products * m * n) : nullptr,
      scratch(context, state, ScratchSlot::ozaki_largest, sizeof(cl_uint) * products)};
}

const char *products_text(Family family) {
  switch (family) {
  case Family::wgmma_int8:
    return "on the INT8 tensor cores by wgmma";
  case Family::tensor_int8:
    return "on the INT8 tensor cores by mma.sync";
  default:
    return "in portable OpenCL C";
  }
}

// Whether a call began its integer products with its shape's recent digits (recent_digits).
enum class Begun { no, served, missed };

std::string plan_of(const OzakiDigits &digits, const OzakiKernels &k, unsigned pieces,
                    bool second_pass, const std::string &taken, Begun begun) {
  std::string text =
      fmt::format("{} MODULI={} BITS_A={} BITS_B={} REBUILD={}", kFile, digits.count, digits.bits_a,
                  digits.bits_b, pieces > 0 ? fmt::format("crt{}", pieces) : "garner");
  for (const auto &[name, value] : k.params)
    text += fmt::format(" {}={}", name, value);
  return text +
         fmt::format(" ({}; Ozaki scheme II, integer products {}, {}{})", k.origin,
                     products_text(k.form->family), taken,
                     second_pass ? "; a second pass, the first's bits too few" : "") +
         (begun == Begun::served   ? " [products begun with the shape's last digits]"
          : begun == Begun::missed ? " [products begun with the shape's last digits, not these]"
                                   : "");
}

// The context's record of its last calls (ContextState::OzakiRecent): of the call's shape; its
// digits.
bool of_shape(const ContextState::OzakiRecent &r, const Call &call) {
  return r.m == call.m && r.n == call.n && r.k == call.k && r.batch == call.batch &&
         r.double_precision == call.double_precision;
}
OzakiDigits digits_of(const ContextState::OzakiRecent &r) {
  OzakiDigits digits;
  digits.bits_a = r.bits_a;
  digits.bits_b = r.bits_b;
  digits.count = r.count;
  return digits;
}

// The digits this context's last calls of the call's shape took, where they took the same ones
// twice running: the integer products can begin with them while the host reads the statistics.
// (Where they serve, the host's wait for the statistics no longer leaves the device idle; where
// they do not, their residues and products were spent.)
std::optional<OzakiDigits> recent_digits(const ContextState &state, const Call &call) {
  const ContextState::OzakiRecent &r = state.ozaki_recent;
  if (r.calls < 2 || !of_shape(r, call))
    return std::nullopt;
  return digits_of(r);
}

// Notes the digits the call chose first (before any second pass).
void note_digits(ContextState &state, const Call &call, const OzakiDigits &digits) {
  ContextState::OzakiRecent &r = state.ozaki_recent;
  const bool same = of_shape(r, call) && digits_of(r) == digits;
  r = {call.m,
       call.n,
       call.k,
       call.batch,
       call.double_precision,
       digits.bits_a,
       digits.bits_b,
       digits.count,
       same ? std::min(r.calls + 1, 2u) : 1};
}

} // namespace

// Enqueues the integer products with the shape's recent digits, where there are any, behind the
// statistics' reads; returns the digits begun.
std::optional<OzakiDigits> begin_products(const Context &context, ContextState &state,
                                          const OzakiKernels &kernels, const Call &call,
                                          const LineWalk &a, const LineWalk &b,
                                          const ResidueLayout &layout, cl_mem stats_a,
                                          cl_mem stats_b, bool &first) {
  const std::optional<OzakiDigits> recent = recent_digits(state, call);
  if (recent) {
    const Scratch s =
        scratch_for(context, state, call, layout, recent->count, false, stats_a, stats_b);
    residue_products(context, state, kernels, call, a, b, layout, s, *recent, first);
  }
  return recent;
}

std::optional<std::string> run_ozaki_product(const Context &context, ContextState &state,
                                             const Call &call, bool &first,
                                             const std::string &taken, RebuildPieces allowed) {
  const std::optional<OzakiKernels> found = kernels_for(context, state, call);
  if (!found)
    return std::string("the device's work-groups take neither form of the integer products");
  const OzakiKernels &kernels = *found;
  const Lines a_lines = lines_of_a(call), b_lines = lines_of_b(call);
  const LineWalk a = walk_of(a_lines), b = walk_of(b_lines);
  // Only the statistics' scratch before the scheme is known to run.
  const cl_mem stats_a = stats_scratch(context, state, ScratchSlot::ozaki_stats_a, call, call.m);
  const cl_mem stats_b = stats_scratch(context, state, ScratchSlot::ozaki_stats_b, call, call.n);
  const cl_mem sampled =
      scratch(context, state, ScratchSlot::ozaki_largest, sizeof(cl_uint) * call.batch);
  operand_stats(context, state, kernels, a, b, call, stats_a, stats_b, sampled, first);
  Readings readings(context, reading_queue(context, state), state.passes.back().event, call,
                    stats_a, stats_b, sampled);
  const ResidueLayout layout = layout_of(kernels, call);
  const std::optional<OzakiDigits> begun =
      begin_products(context, state, kernels, call, a, b, layout, stats_a, stats_b, first);
  std::vector<OperandSummary> a_summary, b_summary;
  std::vector<double> lower;
  readings.wait(call, a_summary, b_summary, lower);
  // The guess from the line sums can be too high (then a second pass), the sampled bound never:
  // the higher of the two.
  std::vector<double> guess = guess_largest_log2(a_summary, b_summary, call.k);
  for (size_t p = 0; p < guess.size(); ++p)
    guess[p] = std::max(guess[p], lower[p]);
  const int bound = ozaki_bound_log2(call.double_precision);
  OzakiChoice choice = choose_digits(a_summary, b_summary, call.k, guess, bound);
  // Digits that meet the bound at the sampled lower bound meet it at the size itself: the
  // reconstruction then writes C, with no check to wait for and no values to keep.
  const bool certified =
      choice.digits &&
      uncertified(a_summary, b_summary, call.k, *choice.digits, lower, bound).empty();
  if (choice.digits)
    note_digits(state, call, *choice.digits);
  for (int pass = 0; pass < 2 && choice.digits; ++pass) {
    const OzakiDigits digits = *choice.digits;
    const Begun products_begun = pass > 0 || !begun ? Begun::no
                                 : *begun == digits ? Begun::served
                                                    : Begun::missed;
    // The CRT where its error fits at the sampled lower bound of the size, so at the size too.
    const unsigned pieces = crt_pieces(a_summary, b_summary, call.k, digits, lower, bound, allowed);
    const RebuildKernels rebuild = rebuild_kernels(context, state, call, digits.count, pieces);
    const Scratch s =
        scratch_for(context, state, call, layout, digits.count, !certified, stats_a, stats_b);
    if (products_begun != Begun::served)
      residue_products(context, state, kernels, call, a, b, layout, s, digits, first);
    if (certified) {
      reconstruct_into_c(context, state, rebuild, call, s, digits, first);
      state.last_plan = plan_of(digits, kernels, pieces, false, taken, products_begun);
      return std::nullopt;
    }
    // The size is at least the largest element and at least the sampled bound.
    std::vector<double> size = reconstruct(context, state, rebuild, call, s, digits, first);
    for (size_t p = 0; p < size.size(); ++p)
      size[p] = std::max(size[p], lower[p]);
    const std::string why = uncertified(a_summary, b_summary, call.k, digits, size, bound);
    if (why.empty()) {
      apply_to_c(context, state, rebuild, call, s.values, first);
      state.last_plan = plan_of(digits, kernels, pieces, pass > 0, taken, products_begun);
      return std::nullopt;
    }
    choice = choose_digits(a_summary, b_summary, call.k, size, bound);
    if (pass > 0 || (choice.digits && choice.digits->bits_a <= digits.bits_a &&
                     choice.digits->bits_b <= digits.bits_b))
      return why; // a second pass would keep no more bits
  }
  return choice.why_not;
}

} // namespace mqlcl::gemm
