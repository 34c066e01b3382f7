// The host's side of a replay: the article's random generator and CPU loops, the reference and its
// rounding, verification.
#include "catalogue.hpp"
#include "gemm_product.hpp"
#include "host_to_host.hpp"
#include "matrices.hpp"
#include "reference.hpp"
#include "units_support.hpp"
#include "verify.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace mqlcl::replay;
using namespace harness_units;

namespace {

// Naive long double product, the referee of the reference.
template <class T> std::vector<long double> naive_product(const Inputs<T> &in) {
  std::vector<long double> c(size_t{in.first.rows} * in.second.cols, 0.0L);
  for (uint32_t r = 0; r < in.first.rows; ++r)
    for (uint32_t j = 0; j < in.second.cols; ++j)
      for (uint32_t k = 0; k < in.first.cols; ++k)
        c[size_t{r} * in.second.cols + j] +=
            static_cast<long double>(in.first.at(r, k)) * in.second.at(k, j);
  return c;
}

} // namespace

BOOST_AUTO_TEST_SUITE(host_side)

BOOST_AUTO_TEST_CASE(article_random_is_seeded_and_in_the_articles_range) {
  ArticleRandom a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 10000; ++i) {
    double x = a.gen_val();
    BOOST_TEST_REQUIRE(x >= -0.5);
    BOOST_TEST_REQUIRE(x <= 0.5);
    BOOST_TEST_REQUIRE(x == b.gen_val());
    differs = differs || x != c.gen_val();
    BOOST_TEST_REQUIRE(a.gen_rnd(37) < 37u);
    b.gen_rnd(37);
    c.gen_rnd(37);
  }
  BOOST_TEST(differs);
  // std::mt19937's 10000th output is fixed by the C++ standard, so seeds mean the same matrices
  // with every compiler and on every platform.
  std::mt19937 engine(5489u);
  engine.discard(9999);
  BOOST_TEST(engine() == 4123659995u);
}

BOOST_AUTO_TEST_CASE(layouts_hold_the_same_matrices) {
  Sizes sizes{5, 7, 3}, padded{8, 8, 4};
  ArticleRandom r1(3), r2(3);
  Inputs<float> rows =
      generate_inputs<float>(sizes, sizes, Layout::row_major, Layout::row_major, r1);
  Inputs<float> cols =
      generate_inputs<float>(sizes, padded, Layout::row_major, Layout::column_major, r2);
  BOOST_TEST(cols.second.data.size() == 8u * 4u);
  for (uint32_t r = 0; r < 7; ++r)
    for (uint32_t c = 0; c < 3; ++c) {
      BOOST_TEST(rows.second.at(r, c) == cols.second.at(r, c));
      BOOST_TEST(cols.second.data[r + c * 8u] == cols.second.at(r, c)); // Fig. 13, column-major
    }
  BOOST_TEST(cols.first.at(4, 6) == rows.first.data[4 * 7 + 6]);
  BOOST_TEST(cols.first.data[5 * 8 + 0] == 0.0f); // padding rows are zero
  BOOST_TEST(cols.second.data[7 + 0 * 8] == 0.0f);
}

BOOST_AUTO_TEST_CASE(reference_matches_a_naive_product_at_odd_sizes_and_any_thread_count) {
  Sizes sizes{37, 301, 45}, padded{40, 304, 48};
  ArticleRandom random(11);
  Inputs<float> in =
      generate_inputs<float>(sizes, padded, Layout::row_major, Layout::column_major, random);
  std::vector<long double> naive = naive_product(in);
  Reference one = reference_product(in, InputRounding::none, 1);
  Reference three = reference_product(in, InputRounding::none, 3);
  BOOST_TEST(one.rows == 37u);
  BOOST_TEST(one.cols == 45u);
  double worst = 0; // OpenBLAS's sums may differ in their last bits with the thread count
  for (size_t i = 0; i < naive.size(); ++i)
    for (const Reference *ref : {&one, &three})
      worst = std::max(worst, static_cast<double>(std::fabs(ref->product[i] - naive[i])));
  BOOST_TEST(worst < 1e-13);
  BOOST_TEST(one.max_abs_first <= 0.5);
  BOOST_TEST(one.max_abs_first > 0.49);
}

// Both fp64 products, the harness's own and the one every reference takes (OpenBLAS's where it is
// installed, as on the GPU hosts), lie within the sums' rounding of a naive long double product;
// K = 0 writes zeros and an empty C nothing.
BOOST_AUTO_TEST_CASE(both_fp64_products_match_a_naive_product) {
  const uint32_t m = 37, n = 45, k = 301;
  ArticleRandom random(13);
  std::vector<double> a(size_t{m} * k), b(size_t{k} * n);
  for (double &x : a)
    x = random.gen_val();
  for (double &x : b)
    x = random.gen_val();
  std::vector<double> blocked(size_t{m} * n, 7.0), blocked_alone(size_t{m} * n, 7.0);
  std::vector<double> taken(size_t{m} * n, 7.0);
  multiply_blocked(a.data(), b.data(), blocked.data(), m, n, k, 3);
  multiply_blocked(a.data(), b.data(), blocked_alone.data(), m, n, k, 1);
  BOOST_TEST(blocked == blocked_alone); // the same sums in the same order on any thread count
  multiply_fp64(a.data(), b.data(), taken.data(), m, n, k, 2);
  double worst_blocked = 0, worst_taken = 0;
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      long double sum = 0;
      for (uint32_t l = 0; l < k; ++l)
        sum += static_cast<long double>(a[size_t{i} * k + l]) * b[size_t{l} * n + j];
      const size_t at = size_t{i} * n + j;
      worst_blocked = std::max(worst_blocked, double(std::fabs(blocked[at] - sum)));
      worst_taken = std::max(worst_taken, double(std::fabs(taken[at] - sum)));
    }
  BOOST_TEST(worst_blocked < 1e-13);
  BOOST_TEST(worst_taken < 1e-13, fp64_product_name());
  std::vector<double> empty_k(size_t{m} * n, 7.0);
  multiply_fp64(a.data(), b.data(), empty_k.data(), m, n, 0);
  BOOST_TEST(std::count(empty_k.begin(), empty_k.end(), 0.0) == ptrdiff_t(empty_k.size()));
  std::vector<double> untouched(4, 7.0);
  multiply_fp64(a.data(), b.data(), untouched.data(), 0, n, k);
  BOOST_TEST(std::count(untouched.begin(), untouched.end(), 7.0) == 4);
}

BOOST_AUTO_TEST_CASE(the_articles_cpu_loops_compute_the_product_in_every_layout) {
  Sizes sizes{19, 23, 17};
  for (Layout second : {Layout::row_major, Layout::column_major})
    for (CpuLoop loop : {CpuLoop::r_cr_c, CpuLoop::c_r_cr}) {
      ArticleRandom random(5);
      Inputs<float> in = generate_inputs<float>(sizes, sizes, Layout::row_major, second, random);
      Matrix<float> third(19, 17, 19, 17, Layout::row_major);
      uint32_t calls = 0, last_total = 0;
      cpu_loop(loop, in, third, [&](uint32_t done, uint32_t total) {
        ++calls;
        last_total = total;
        BOOST_TEST_REQUIRE(done <= total);
      });
      BOOST_TEST((calls == (loop == CpuLoop::r_cr_c ? 19u : 17u)));
      BOOST_TEST(last_total == calls);
      Reference ref = reference_product(in);
      Verification v = verify(third, ref, tolerance_for<float>(23, 0.5, 0.5));
      BOOST_TEST(v.passed());
      BOOST_TEST(v.checked == 19u * 17u);
    }
}

// How each TF32 kernel rounds and sums, with its parameters: what its product is checked against.
BOOST_AUTO_TEST_CASE(each_tf32_step_is_checked_with_its_kernels_rounding) {
  struct Expected {
    const char *step;
    const char *param; // one parameter changed, or nullptr
    int64_t value;
    InputRounding inputs;
    bool tensor_core_sums;
  };
  for (const Expected &e :
       {Expected{"matr_mul_tf32", nullptr, 0, InputRounding::nearest_away, true},
        Expected{"matr_mul_tf32", "MODE", 3, InputRounding::none, false},
        Expected{"matr_mul_3xtf32", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_tf32_bf16", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_wgmma_tf32", nullptr, 0, InputRounding::truncated, true},
        Expected{"matr_mul_wgmma_tf32", "ROUND", 1, InputRounding::nearest_away, true},
        Expected{"matr_mul_wgmma_tf32_rounded", nullptr, 0, InputRounding::nearest_away, true},
        Expected{"matr_mul_wgmma_tiled_tf32", nullptr, 0, InputRounding::nearest_away, true},
        Expected{"matr_mul_wgmma_tma_tf32", nullptr, 0, InputRounding::nearest, true},
        Expected{"matr_mul_wgmma_tma_tf32", "TMA", 1, InputRounding::truncated, true},
        Expected{"matr_mul_wgmma_3xtf32", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_wgmma_3xtf32", "FLUSH", 0, InputRounding::none, true},
        Expected{"matr_mul_wgmma_tiled_3xtf32", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_wgmma_tma_3xtf32", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_tuned", nullptr, 0, InputRounding::none, false},
        Expected{"matr_mul_vect_v2", nullptr, 0, InputRounding::none, false}}) {
    Step step = *find_step(replay_steps(), e.step);
    if (e.param != nullptr)
      step.params[e.param] = e.value;
    const Arithmetic arithmetic = arithmetic_of(step);
    BOOST_TEST((arithmetic.inputs == e.inputs), e.step << " " << (e.param ? e.param : ""));
    BOOST_TEST(arithmetic.tensor_core_sums == e.tensor_core_sums, e.step);
  }
}

BOOST_AUTO_TEST_CASE(tf32_rounding_keeps_ten_mantissa_bits) {
  const float one_and_half_step = 1.0f + 0x1p-11f; // exactly halfway between 1 and 1 + 2^-10
  BOOST_TEST(tf32_rounded(one_and_half_step, InputRounding::nearest_away) == 1.0f + 0x1p-10f);
  BOOST_TEST(tf32_rounded(-one_and_half_step, InputRounding::nearest_away) == -1.0f - 0x1p-10f);
  BOOST_TEST(tf32_rounded(one_and_half_step, InputRounding::truncated) == 1.0f);
  BOOST_TEST(tf32_rounded(1.0f + 0x1p-11f + 0x1p-20f, InputRounding::truncated) == 1.0f);
  BOOST_TEST(tf32_rounded(1.0f + 0x1p-11f - 0x1p-20f, InputRounding::nearest_away) == 1.0f);
  BOOST_TEST(tf32_rounded(0.3f, InputRounding::none) == 0.3f);
  BOOST_TEST(tf32_rounded(0.0f, InputRounding::truncated) == 0.0f);
}

// The reference of rounded inputs is the product of the rounded values.
BOOST_AUTO_TEST_CASE(a_rounded_reference_multiplies_the_rounded_inputs) {
  Sizes sizes{9, 700, 7};
  ArticleRandom random(3);
  Inputs<float> in =
      generate_inputs<float>(sizes, sizes, Layout::row_major, Layout::column_major, random);
  for (InputRounding rounding : {InputRounding::nearest_away, InputRounding::truncated}) {
    Inputs<float> rounded = in;
    for (float &a : rounded.first.data)
      a = tf32_rounded(a, rounding);
    for (float &b : rounded.second.data)
      b = tf32_rounded(b, rounding);
    Reference ref = reference_product(in, rounding);
    Reference exact = reference_product(rounded);
    BOOST_TEST((ref.rounding == rounding));
    BOOST_TEST(ref.product == exact.product); // the same sums of the same exact products
    BOOST_TEST(ref.product != reference_product(in).product);
    BOOST_TEST(ref.max_abs_product > 0.0);
    BOOST_TEST(ref.tie_spread >= 0.0);
    if (rounding == InputRounding::truncated)
      BOOST_TEST(ref.tie_spread == 0.0);
  }
}

// An input halfway between two TF32 values (4 of the generator's 32768 values are) widens a
// rounded-to-nearest reference by what rounding it the other way could change.
BOOST_AUTO_TEST_CASE(a_tie_widens_the_rounded_reference_by_its_step) {
  Inputs<float> in{Matrix<float>(2, 3, 2, 3, Layout::row_major),
                   Matrix<float>(3, 2, 3, 2, Layout::column_major)};
  const float tie = 1.0f + 0x1p-11f; // its TF32 step is 2^-10
  for (uint32_t k = 0; k < 3; ++k) {
    in.first.at(0, k) = 0.25f;
    in.first.at(1, k) = 0.25f;
    in.second.at(k, 0) = 0.5f;
    in.second.at(k, 1) = 0.5f;
  }
  in.first.at(1, 0) = tie;
  in.first.at(1, 2) = -tie;
  Reference ref = reference_product(in, InputRounding::nearest);
  // Row 1 holds two ties: moved the other way, each changes its product by 2^-10 times |b| <= 0.5.
  BOOST_TEST(ref.tie_spread == 2 * 0x1p-10 * 0.5 * (1 + 0x1p-10));
  BOOST_TEST(reference_product(in, InputRounding::nearest_away).tie_spread == ref.tie_spread);
  BOOST_TEST(reference_product(in, InputRounding::truncated).tie_spread == 0.0);
}

BOOST_AUTO_TEST_CASE(the_tf32_tolerance_is_fp32s_plus_what_the_tensor_cores_and_ties_add) {
  Reference ref;
  ref.max_abs_first = 0.5;
  ref.max_abs_second = 0.25;
  ref.max_abs_product = 30;
  ref.tie_spread = 1e-3;
  const double eps = std::numeric_limits<float>::epsilon();
  const double fp32 = tolerance_for<float>(4096, 0.5, 0.25);
  BOOST_TEST(tolerance_of({InputRounding::nearest_away, false}, 4096, ref) == fp32);
  BOOST_TEST(tolerance_of({InputRounding::truncated, true}, 4096, ref) ==
             fp32 + 512 * eps * 2 * 30);
  BOOST_TEST(tolerance_of({InputRounding::nearest, true}, 4096, ref) ==
             fp32 + 512 * eps * 2 * 30 + 1e-3);
  BOOST_TEST(tolerance_of({InputRounding::nearest, true}, 4097, ref) ==
             tolerance_for<float>(4097, 0.5, 0.25) + 513 * eps * 2 * 30 + 1e-3);
}

BOOST_AUTO_TEST_CASE(verification_finds_every_wrong_element_and_the_worst) {
  Sizes sizes{16, 64, 12};
  ArticleRandom random(2);
  Inputs<float> in =
      generate_inputs<float>(sizes, sizes, Layout::row_major, Layout::row_major, random);
  Reference ref = reference_product(in);
  Matrix<float> got(16, 12, 16, 12, Layout::row_major);
  for (uint32_t r = 0; r < 16; ++r)
    for (uint32_t c = 0; c < 12; ++c)
      got.at(r, c) = static_cast<float>(ref.at(r, c));
  double tolerance = tolerance_for<float>(64, ref.max_abs_first, ref.max_abs_second);
  BOOST_TEST(tolerance == kToleranceFactor * 64 * std::numeric_limits<float>::epsilon() *
                              ref.max_abs_first * ref.max_abs_second);
  BOOST_TEST(verify(got, ref, tolerance).passed());

  got.at(3, 5) += static_cast<float>(3 * tolerance);
  got.at(9, 1) = std::numeric_limits<float>::quiet_NaN();
  Verification v = verify(got, ref, tolerance);
  BOOST_TEST(!v.passed());
  BOOST_TEST(v.mismatches == 2u);
  BOOST_TEST(v.worst_row == 9u);
  BOOST_TEST(v.worst_col == 1u);
  BOOST_TEST(std::isinf(v.max_error));

  Verification merged;
  merge(merged, verify(got, ref, tolerance));
  merge(merged, v);
  BOOST_TEST(merged.checked == 2u * 16u * 12u);
  BOOST_TEST(merged.mismatches == 4u);
  BOOST_TEST(tolerance_for<double>(64, 0.5, 0.5) < tolerance_for<float>(64, 0.5, 0.5) * 1e-8);
}

BOOST_AUTO_TEST_SUITE_END()

// The crossover bench reports: the smallest size from which the GPU stays ahead.
BOOST_AUTO_TEST_CASE(the_gpu_wins_from_the_size_after_which_it_stays_ahead) {
  using mqlcl::replay::gpu_wins_from;
  using mqlcl::replay::SizeTimes;
  const std::vector<SizeTimes> ahead_then_behind_then_ahead{
      {256, 1.0, 0.5}, {512, 1.0, 2.0}, {1024, 3.0, 2.0}, {2048, 1.0, 4.0}, {4096, 2.0, 9.0}};
  BOOST_TEST(gpu_wins_from(ahead_then_behind_then_ahead).value_or(0) == 2048u);
  const std::vector<SizeTimes> always{{256, 0.1, 0.5}, {512, 0.2, 2.0}};
  BOOST_TEST(gpu_wins_from(always).value_or(0) == 256u);
  const std::vector<SizeTimes> behind_at_the_largest{{256, 0.1, 0.5}, {512, 2.0, 2.0}};
  BOOST_TEST(!gpu_wins_from(behind_at_the_largest).has_value());
  const std::vector<SizeTimes> without_a_cpu{{256, 0.1, 0.5}, {512, 0.2, std::nullopt}};
  BOOST_TEST(!gpu_wins_from(without_a_cpu).has_value());
  BOOST_TEST(!gpu_wins_from({}).has_value());
}

// bench's host section fails a wrong C: one element off by more than the bound, or not finite.
BOOST_AUTO_TEST_CASE(the_host_sections_check_finds_a_wrong_product) {
  using mqlcl::replay::check_host_product;
  const uint32_t n = 17;
  std::vector<float> a(n * n), b(n * n), c(n * n, 0.0f);
  for (uint32_t i = 0; i < n * n; ++i) {
    a[i] = float(int(i % 7) - 3) / 4;
    b[i] = float(int(i % 5) - 2) / 3;
  }
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      double sum = 0;
      for (uint32_t l = 0; l < n; ++l)
        sum += double(a[i * n + l]) * b[l * n + j];
      c[i * n + j] = float(sum);
    }
  const auto right = check_host_product<float>(n, a, b, c, nullptr);
  BOOST_TEST(right.checked);
  BOOST_TEST(right.verified, right.how);
  std::vector<float> off = c;
  off[5 * n + 11] += 1e-3f;
  const auto wrong = check_host_product<float>(n, a, b, off, nullptr);
  BOOST_TEST(wrong.checked);
  BOOST_TEST(!wrong.verified);
  BOOST_TEST(wrong.error_ratio > 1e-4);
  std::vector<float> not_finite = c;
  not_finite[0] = std::numeric_limits<float>::quiet_NaN();
  BOOST_TEST(!check_host_product<float>(n, a, b, not_finite, nullptr).verified);
}

// Past 4096 the host reference takes too long: C is checked against OpenBLAS's product within
// twice the bound, and without one it is not checked (nor counted as wrong).
BOOST_AUTO_TEST_CASE(past_4096_the_host_sections_check_takes_openblass_product) {
  using mqlcl::replay::check_host_product;
  const uint32_t n = 4097;
  const std::vector<float> a(size_t{n} * n, 0.5f), b(size_t{n} * n, 0.25f);
  std::vector<float> c(size_t{n} * n, float(0.125 * n)), cpu_c = c;
  const auto same = check_host_product<float>(n, a, b, c, &cpu_c);
  BOOST_TEST(same.checked);
  BOOST_TEST(same.verified, same.how);
  BOOST_TEST(same.how.find("OpenBLAS") != std::string::npos, same.how);
  cpu_c[size_t{n} * 7 + 3] += 1.0f;
  BOOST_TEST(!check_host_product<float>(n, a, b, c, &cpu_c).verified);
  const auto without = check_host_product<float>(n, a, b, c, nullptr);
  BOOST_TEST(!without.checked);
  BOOST_TEST(!without.verified);
}

// gemm's fp64 reference reads each layout as CLGemm stores it (A k x m when transposed, B n x k)
// and each product of a batch at its own offset: a product summed here element by element from
// those layouts verifies for every layout, also at sizes that fill no block of the reference's,
// and one wrong element of the last product of the batch fails it.
BOOST_AUTO_TEST_CASE(gemms_reference_reads_every_layout_and_every_product_of_a_batch) {
  for (const char *layout : {"NN", "NT", "TN", "TT"}) {
    const GemmProduct product(GeneralGemm{37, 29, 131, 3, layout[0] == 'T', layout[1] == 'T'},
                              MQLCL_GEMM_EXACT);
    const GeneralGemm &g = product.shape();
    std::vector<double> c(size_t{g.m} * g.n * g.batch);
    for (uint32_t p = 0; p < g.batch; ++p)
      for (uint32_t i = 0; i < g.m; ++i)
        for (uint32_t j = 0; j < g.n; ++j) {
          double sum = 0;
          for (uint32_t l = 0; l < g.k; ++l) {
            const size_t ia = g.transpose_a ? size_t{l} * g.m + i : size_t{i} * g.k + l;
            const size_t ib = g.transpose_b ? size_t{j} * g.k + l : size_t{l} * g.n + j;
            sum += (*g.a)[size_t{p} * g.m * g.k + ia] * (*g.b)[size_t{p} * g.k * g.n + ib];
          }
          c[(size_t{p} * g.m + i) * g.n + j] = sum;
        }
    const Checked right = product.check(c);
    BOOST_TEST(right.verified, layout);
    BOOST_TEST(right.error_ratio <= 1e-12, layout);
    c.back() += 1e-2;
    BOOST_TEST(!product.check(c).verified, layout);
  }
}

// A TF32 product is checked against the product of its inputs rounded to TF32, read in each
// layout as stored: such a product verifies for every layout, and one wrong element fails it.
BOOST_AUTO_TEST_CASE(gemms_tf32_reference_reads_every_layout) {
  for (const char *layout : {"NN", "NT", "TN", "TT"}) {
    const GemmProduct product(GeneralGemm{37, 29, 131, 1, layout[0] == 'T', layout[1] == 'T'},
                              MQLCL_GEMM_TF32);
    const GeneralGemm &g = product.shape();
    auto tf32 = [](double x) { return double(tf32_rounded(float(x), InputRounding::nearest)); };
    std::vector<double> c(size_t{g.m} * g.n);
    for (uint32_t i = 0; i < g.m; ++i)
      for (uint32_t j = 0; j < g.n; ++j) {
        double sum = 0;
        for (uint32_t l = 0; l < g.k; ++l) {
          const size_t ia = g.transpose_a ? size_t{l} * g.m + i : size_t{i} * g.k + l;
          const size_t ib = g.transpose_b ? size_t{j} * g.k + l : size_t{l} * g.n + j;
          sum += tf32((*g.a)[ia]) * tf32((*g.b)[ib]);
        }
        c[size_t{i} * g.n + j] = sum;
      }
    BOOST_TEST(product.check(c).verified, layout);
    c.back() += 1e-2;
    BOOST_TEST(!product.check(c).verified, layout);
  }
}

// gemm's check of a double product verifies every element against the fp64 reference, and
// reports the error on up to 32 rows against sums in long double: a wrong element in a row of the
// 40 that the report leaves out (row 4) still fails the product, and leaves the report as it was.
BOOST_AUTO_TEST_CASE(a_double_products_check_verifies_every_row_it_does_not_report) {
  const GemmProduct product(GeneralGemm{40, 24, 24, 1, false, false, true}, MQLCL_GEMM_EXACT);
  const GeneralGemm &g = product.shape();
  std::vector<double> c(size_t{g.m} * g.n);
  for (uint32_t i = 0; i < g.m; ++i)
    for (uint32_t j = 0; j < g.n; ++j) {
      long double sum = 0;
      for (uint32_t l = 0; l < g.k; ++l)
        sum += static_cast<long double>((*g.a)[i * g.k + l]) * (*g.b)[l * g.n + j];
      c[i * g.n + j] = static_cast<double>(sum);
    }
  const Checked exact = product.check(c);
  BOOST_TEST(exact.verified);
  BOOST_TEST(exact.error_ratio <= std::ldexp(1.0, -53));
  c[4 * g.n] += 1e-3;
  const Checked wrong = product.check(c);
  BOOST_TEST(!wrong.verified);
  BOOST_TEST(wrong.error_ratio == exact.error_ratio);
}
