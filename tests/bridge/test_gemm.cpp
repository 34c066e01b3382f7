// CLGemm on the real device: every layout, alpha and beta, offsets, leading dimensions, batches,
// float and double, checked element by element against an fp64 product with a per-element
// bound; and every refusal of docs/errors.md's CLGemm section, each leaving C as it was.
#define BOOST_TEST_MODULE bridge_gemm
#include "opencl_device.hpp"
#include "scoped_environment.hpp"
#include "text_count.hpp"

#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <sstream>
#include <vector>

using namespace mqlcl_test;

namespace {

// One call of CLGemm, in its own terms; 0 for a leading dimension or stride means "packed".
struct Case {
  uint32_t m, n, k;
  bool transpose_a = false, transpose_b = false;
  bool double_precision = false;
  double alpha = 1, beta = 0;
  uint32_t batch = 1;
  uint32_t pad = 0;      // extra elements per stored row of A, B and C (ld = width + pad)
  uint64_t offset = 0;   // elements before each operand's first matrix
  bool shared_a = false; // stride_a 0: every product of the batch reads the same A
  int32_t precision = MQLCL_GEMM_EXACT;
};

std::ostream &operator<<(std::ostream &out, const Case &c) {
  return out << c.m << "x" << c.n << "x" << c.k << (c.transpose_a ? " At" : "")
             << (c.transpose_b ? " Bt" : "") << (c.double_precision ? " double" : " float")
             << " alpha " << c.alpha << " beta " << c.beta << " batch " << c.batch << " pad "
             << c.pad << " offset " << c.offset << (c.shared_a ? " shared A" : "") << " precision "
             << c.precision;
}

// `shape` in layout `t` (bit 0: A transposed, bit 1: B transposed) and precision `dp`; the two
// mixed layouts also scale (alpha -1.5, `beta`) and run a batch of 2 with rows `pad` elements
// longer than the matrix and operands from element `offset`.
Case in_layout(Case shape, int t, bool dp, uint32_t pad, uint64_t offset, double beta) {
  shape.transpose_a = t & 1;
  shape.transpose_b = t & 2;
  shape.double_precision = dp;
  if (t == 1 || t == 2) {
    shape.alpha = -1.5;
    shape.beta = beta;
    shape.batch = 2;
    shape.pad = pad;
    shape.offset = offset;
  }
  return shape;
}

// A matrix as CLGemm sees it in a buffer: `rows` x `cols` stored with rows `ld` apart, from
// element `offset`, the batch's matrices `stride` apart; `elements` in the buffer.
struct Stored {
  uint64_t rows, cols, ld, stride, elements, offset = 0;
};

Stored stored(uint64_t rows, uint64_t cols, const Case &c, bool shared) {
  Stored s{rows, cols, cols + c.pad, 0, 0, c.offset};
  s.stride = shared ? 0 : rows * s.ld;
  s.elements = c.offset + (c.batch - 1) * s.stride + rows * s.ld;
  return s;
}

// Values with few significant bits, so that the fp64 reference is exact and the bound below
// measures the device's accumulation alone.
std::vector<double> random_values(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> value(-256, 256);
  std::vector<double> values(count);
  for (double &v : values)
    v = value(random) / 64.0;
  return values;
}

template <class T> struct Run { std::vector<T> a, b, c_before, c_after; };

template <class T> int32_t make_filled(int32_t context, const std::vector<T> &values) {
  int32_t buffer = CLBufferCreate(context, static_cast<uint32_t>(values.size() * sizeof(T)),
                                  MQLCL_MEM_READ_WRITE);
  BOOST_TEST_REQUIRE(buffer != MQLCL_INVALID_HANDLE, last_error);
  BOOST_TEST_REQUIRE(CLBufferWrite(buffer, values.data(), 0, 0,
                                   static_cast<uint32_t>(values.size()),
                                   sizeof(T)) == values.size());
  return buffer;
}

template <class T> std::vector<T> converted(const std::vector<double> &values) {
  return std::vector<T>(values.begin(), values.end());
}

// Checks C after the call against alpha * op(A) * op(B) + beta * C in fp64, element by element:
// |error| <= 2 (k + 2) u (|alpha| sum |a||b| + |beta c|), u the unit roundoff of T; TF32 adds
// 2^-10 |alpha| sum |a||b|, the rounding of both factors of each product to TF32's 10 bits.
// Elements of C outside the product (padding, before the offset) must be untouched.
template <class T>
void check_product(const Case &c, const Stored &sa, const Stored &sb, const Stored &sc,
                   const Run<T> &run) {
  const double u = std::numeric_limits<T>::epsilon() / 2;
  size_t wrong = 0, checked = 0;
  double worst = 0;
  std::vector<bool> inside(run.c_after.size(), false);
  for (uint32_t p = 0; p < c.batch; ++p)
    for (uint32_t i = 0; i < c.m; ++i)
      for (uint32_t j = 0; j < c.n; ++j) {
        double sum = 0, magnitude = 0;
        for (uint32_t l = 0; l < c.k; ++l) {
          double x =
              run.a[sa.offset + p * sa.stride + (c.transpose_a ? l * sa.ld + i : i * sa.ld + l)];
          double y =
              run.b[sb.offset + p * sb.stride + (c.transpose_b ? j * sb.ld + l : l * sb.ld + j)];
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        size_t at = sc.offset + p * sc.stride + i * sc.ld + j;
        inside[at] = true;
        double scaled_c = c.beta != 0 ? c.beta * run.c_before[at] : 0; // C is NaN when beta is 0
        double want = c.alpha * sum + scaled_c;
        double bound = 2 * (c.k + 2) * u * (std::fabs(c.alpha) * magnitude + std::fabs(scaled_c));
        if (c.precision == MQLCL_GEMM_TF32)
          bound += std::ldexp(1.0, -10) * std::fabs(c.alpha) * magnitude;
        double error = std::fabs(run.c_after[at] - want);
        worst = std::max(worst, error / std::max(bound, 1e-300));
        wrong += !(error <= bound) ? 1 : 0; // a NaN is wrong too
        ++checked;
      }
  size_t touched = 0;
  for (size_t at = 0; at < inside.size(); ++at)
    if (!inside[at] && std::memcmp(&run.c_after[at], &run.c_before[at], sizeof(T)) != 0)
      ++touched;
  BOOST_TEST(wrong == 0u, c << ": " << wrong << " of " << checked
                            << " elements off; worst error / bound " << worst);
  BOOST_TEST(touched == 0u, c << ": " << touched << " elements outside C's matrices changed");
}

// The product of `c` on operands stored as `sa`, `sb` and `sc` (c's offset and padding unused).
template <class T>
void run_stored(int32_t context, const Case &c, const Stored &sa, const Stored &sb,
                const Stored &sc) {
  const uint32_t type = c.double_precision ? MQLCL_GEMM_DOUBLE : MQLCL_GEMM_FLOAT;
  Run<T> run{converted<T>(random_values(sa.elements, 1)),
             converted<T>(random_values(sb.elements, 2)),
             converted<T>(random_values(sc.elements, 3)),
             {}};
  if (c.beta == 0) // C is not read when beta is 0: NaNs there must not reach the product
    for (T &value : run.c_before)
      value = std::numeric_limits<T>::quiet_NaN();
  Buffer a(make_filled(context, run.a)), b(make_filled(context, run.b)),
      cb(make_filled(context, run.c_before));
  int32_t done = CLGemm(a, b, cb, type, c.precision, c.transpose_a, c.transpose_b, c.m, c.n, c.k,
                        c.alpha, c.beta, sa.offset, uint32_t(sa.ld), sb.offset, uint32_t(sb.ld),
                        sc.offset, uint32_t(sc.ld), c.batch, sa.stride, sb.stride, sc.stride);
  BOOST_TEST_REQUIRE(done == 1, c << ": " << last_error);
  run.c_after.resize(sc.elements);
  BOOST_TEST_REQUIRE(CLBufferRead(cb, run.c_after.data(), 0, 0, uint32_t(sc.elements), sizeof(T)) ==
                     sc.elements);
  check_product(c, sa, sb, sc, run);
}

void run_stored(int32_t context, const Case &c, const Stored &sa, const Stored &sb,
                const Stored &sc) {
  if (c.double_precision)
    run_stored<double>(context, c, sa, sb, sc);
  else
    run_stored<float>(context, c, sa, sb, sc);
}

void run_case(int32_t context, const Case &c) {
  Stored sa = c.transpose_a ? stored(c.k, c.m, c, c.shared_a) : stored(c.m, c.k, c, c.shared_a);
  Stored sb = c.transpose_b ? stored(c.n, c.k, c, false) : stored(c.k, c.n, c, false);
  run_stored(context, c, sa, sb, stored(c.m, c.n, c, false));
}

std::vector<Case> layouts_and_sizes() {
  std::vector<Case> cases;
  for (uint32_t size : {1u, 7u, 37u, 64u})
    for (int t = 0; t < 4; ++t)
      for (bool dp : {false, true}) {
        Case c{size, size, size};
        c.transpose_a = t & 1;
        c.transpose_b = t & 2;
        c.double_precision = dp;
        cases.push_back(c);
      }
  Case odd{37, 7, 64};
  cases.push_back(odd);
  odd.transpose_b = true;
  cases.push_back(odd);
  return cases;
}

std::vector<Case> scaled_padded_and_batched() {
  std::vector<Case> cases;
  for (bool dp : {false, true}) {
    Case scaled{37, 64, 7};
    scaled.double_precision = dp;
    scaled.alpha = 1.5;
    scaled.beta = -0.75;
    cases.push_back(scaled);
    Case padded{64, 37, 37, true, false, dp};
    padded.pad = 3;
    padded.offset = 5;
    padded.beta = 1;
    cases.push_back(padded);
    Case batched{37, 7, 64, false, true, dp};
    batched.batch = 5;
    batched.offset = 2;
    batched.pad = 1;
    batched.alpha = -2;
    cases.push_back(batched);
    // A and B copied transposed in whole 64 x 64 blocks of 4-aligned rows (as vectors) and in
    // edge blocks (element by element), for each matrix of the batch.
    Case aligned{140, 196, 100, true, false, dp};
    aligned.batch = 3;
    aligned.offset = 4;
    aligned.pad = 4;
    aligned.beta = 0.5;
    cases.push_back(aligned);
    Case shared{64, 64, 37, false, false, dp};
    shared.batch = 3;
    shared.shared_a = true;
    cases.push_back(shared);
  }
  return cases;
}

} // namespace

BOOST_AUTO_TEST_SUITE(gemm, *boost::unit_test::precondition(needs_device()))

BOOST_DATA_TEST_CASE(every_layout_and_small_size_verifies, layouts_and_sizes(), c) {
  Context context = make_context();
  run_case(context, c);
}

BOOST_DATA_TEST_CASE(alpha_beta_offsets_leading_dimensions_and_batches_verify,
                     scaled_padded_and_batched(), c) {
  Context context = make_context();
  run_case(context, c);
}

BOOST_AUTO_TEST_CASE(a_product_of_odd_sizes_verifies_in_float_and_double) {
  Context context = make_context();
  Case c{1023, 1000, 517};
  run_case(context, c);
  c.double_precision = true;
  c.transpose_a = true;
  c.alpha = 0.5;
  c.beta = 2;
  run_case(context, c);
}

BOOST_AUTO_TEST_CASE(every_precision_the_device_offers_verifies) {
  Context context = make_context();
  for (int32_t precision : {MQLCL_GEMM_EXACT, MQLCL_GEMM_ACCURATE, MQLCL_GEMM_FASTEST}) {
    Case c{64, 37, 100, false, true};
    c.precision = precision;
    run_case(context, c);
  }
}

// Whether the device runs MQLCL_GEMM_TF32 (NVIDIA sm_90); elsewhere it is refused with 5100.
bool offers_tf32(int32_t context) {
  Buffer x = make_buffer(context, 64);
  if (CLGemm(x, x, make_buffer(context, 64), MQLCL_GEMM_FLOAT, MQLCL_GEMM_TF32, 0, 0, 4, 4, 1, 1, 0,
             0, 0, 0, 0, 0, 0, 1, 0, 0, 0) == 1)
    return true;
  BOOST_TEST_REQUIRE(CLGetLastError() == MQLCL_ERR_OPENCL_NOT_SUPPORTED, last_error);
  return false;
}

// The float cases again in FP32-accurate and TF32 precision (on NVIDIA sm_90, the tensor-core
// products with their copies, maps and B's pass; elsewhere FP32-accurate is the exact product).
std::vector<Case> tensor_core_cases() {
  std::vector<Case> cases;
  std::vector<Case> all = layouts_and_sizes();
  for (const Case &c : scaled_padded_and_batched())
    all.push_back(c);
  all.push_back(Case{1023, 1000, 517, true, false});
  all.push_back(Case{300, 200, 96, false, true});
  for (Case c : all)
    if (!c.double_precision)
      for (int32_t precision : {MQLCL_GEMM_ACCURATE, MQLCL_GEMM_TF32}) {
        c.precision = precision;
        cases.push_back(c);
      }
  return cases;
}

BOOST_DATA_TEST_CASE(tensor_core_precisions_verify_in_every_layout, tensor_core_cases(), c) {
  Context context = make_context();
  if (!offers_tf32(context)) {
    // No tensor cores: TF32 is refused with 5100 (precisions_the_device_lacks_are_refused), and
    // FP32-accurate runs the exact product's plan, which the cases above verify in every layout
    // (every_precision_the_device_offers_verifies asks for it by its name).
    BOOST_TEST_MESSAGE("no tensor-core precisions on this device: " << c);
    return;
  }
  run_case(context, c);
}

BOOST_AUTO_TEST_CASE(the_same_shape_runs_again_and_its_time_is_readable) {
  Context context = make_context();
  MQLCL_CHECK_FAILS(CLGetInfoInteger(context, MQLCL_CL_GEMM_EXECUTION_TIME), -1,
                    MQLCL_ERR_OPENCL_EXECUTE);
  Case c{64, 64, 64};
  for (int i = 0; i < 3; ++i) {
    c.transpose_b = i == 1;
    run_case(context, c);
    BOOST_TEST(CLGetInfoInteger(context, MQLCL_CL_GEMM_EXECUTION_TIME) > 0);
  }
}

BOOST_AUTO_TEST_CASE(the_last_call_reports_its_plan) {
  Context context = make_context();
  std::vector<char16_t> text(4096);
  MQLCL_CHECK_FAILS(CLGetInfoString(context, MQLCL_CL_GEMM_PLAN, text.data(), 4096), 0,
                    MQLCL_ERR_OPENCL_EXECUTE);
  run_case(context, Case{37, 7, 64});
  const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
  BOOST_TEST_MESSAGE("37x7x64: " << plan);
  BOOST_TEST((plan.rfind("matr_mul_", 0) == 0 && plan.find(".cl ") != std::string::npos &&
              plan.back() == ')'),
             plan);
}

// CL_GEMM_PASSES: each kernel the last call ran and its time, in order, the product's last; the
// times adding up to at most CL_GEMM_EXECUTION_TIME. Operands stored with K down their rows may
// take a transposing copy first (device and form decide), so NT runs no more passes than NN, and
// NN no more than TN.
BOOST_AUTO_TEST_CASE(the_last_call_reports_its_passes) {
  Context context = make_context();
  std::vector<char16_t> text(4096);
  MQLCL_CHECK_FAILS(CLGetInfoString(context, MQLCL_CL_GEMM_PASSES, text.data(), 4096), 0,
                    MQLCL_ERR_OPENCL_EXECUTE);
  std::vector<size_t> counts;
  for (const char *layout : {"NT", "NN", "TN"}) {
    Case c{37, 7, 64};
    c.transpose_a = layout[0] == 'T';
    c.transpose_b = layout[1] == 'T';
    run_case(context, c);
    const std::string passes = info_string(context, MQLCL_CL_GEMM_PASSES);
    BOOST_TEST_MESSAGE("37x7x64 " << layout << ": " << passes);
    double total_ms = 0;
    std::string kernel;
    size_t count = 0;
    std::istringstream parts(passes);
    for (std::string part; std::getline(parts, part, ';'); ++count) {
      std::istringstream fields(part);
      std::string unit;
      double ms = -1;
      fields >> kernel >> ms >> unit;
      BOOST_TEST((!kernel.empty() && ms >= 0 && unit == "ms"), part);
      total_ms += ms;
    }
    BOOST_TEST((count >= 1 && kernel != "transpose"), passes);
    const int64_t nanoseconds = CLGetInfoInteger(context, MQLCL_CL_GEMM_EXECUTION_TIME);
    BOOST_TEST(total_ms <= double(nanoseconds) * 1e-6 + 0.001 * double(count), passes);
    counts.push_back(count);
  }
  BOOST_TEST((counts[0] <= counts[1] && counts[1] <= counts[2]));
}

// Where the CUDA driver writes no tensor map (no libcuda, as under Wine; MQLCL_CUDA_DRIVER=off
// makes the bridge behave so, read at each call), TF32 and FP32-accurate stay on the tensor cores:
// the same products after passes that lay the tiles out (TMA=0), and the plan says why. With the
// switch gone, the next call reads maps again where the driver exists.
// (test_bridge_gemm_no_cuda_driver runs the tensor-core cases above in every layout with the switch
// on.)
BOOST_AUTO_TEST_CASE(without_tensor_maps_the_tensor_core_products_stay_offered) {
  Context context = make_context();
  if (!offers_tf32(context)) {
    BOOST_TEST_MESSAGE("no tensor-core precisions on this device");
    return;
  }
  for (bool maps : {false, true}) {
    ScopedEnvironment driver("MQLCL_CUDA_DRIVER",
                             maps ? std::nullopt : std::optional<std::string>("off"));
    for (int32_t precision : {MQLCL_GEMM_ACCURATE, MQLCL_GEMM_TF32}) {
      Case c{300, 200, 96, false, true};
      c.precision = precision;
      run_case(context, c);
      const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
      BOOST_TEST_MESSAGE(c << ": " << plan);
      BOOST_TEST(plan.rfind("matr_mul_wgmma_tf32.cl ", 0) == 0, plan);
      // Windows without nvcuda.dll (Wine) has no maps either way; Linux's NVIDIA OpenCL driver
      // comes with libcuda.so.1.
      const bool no_driver =
          plan.find("; no tensor maps: the CUDA driver (nvcuda.dll)") != std::string::npos;
#ifndef _WIN32
      BOOST_TEST(!no_driver, plan);
#endif
      BOOST_TEST((plan.find(" TMA=0 ") != std::string::npos) == (!maps || no_driver), plan);
      BOOST_TEST((plan.find("; no tensor maps: MQLCL_CUDA_DRIVER=off") != std::string::npos) ==
                     !maps,
                 plan);
    }
  }
}

// C's matrices of a batch side by side in one row (the heads of multi-head attention: ldc a
// multiple of the stride) share no element: the batch is accepted and each matrix written.
BOOST_AUTO_TEST_CASE(batches_whose_c_matrices_interleave_verify) {
  Context context = make_context();
  for (bool dp : {false, true}) {
    Case c{5, 8, 7, false, true, dp};
    c.batch = 3;
    c.beta = 0.5;
    const Stored sa{5, 7, 7, 35, 3 * 35}, sb{8, 7, 7, 56, 3 * 56};
    const Stored sc{5, 8, 24, 8, 2 * 8 + 4 * 24 + 8}; // rows 24 apart, the heads 8 apart
    run_stored(context, c, sa, sb, sc);
  }
}

// The kernels' 64-bit form (INDEX64, taken from 2^29 elements of a size or leading dimension),
// forced at small sizes so that every layout is checked on any device, in float, and in double
// with A as stored and transposed (the copies' two kernels).
BOOST_AUTO_TEST_CASE(the_64_bit_kernels_verify_in_every_layout) {
  ScopedEnvironment index64("MQLCL_GEMM_INDEX64", "1");
  Context context = make_context();
  for (int t = 0; t < 4; ++t)
    for (bool dp : {false, true}) {
      if (dp && t >= 2)
        continue;
      Case c{37, 29, 41, (t & 1) != 0, (t & 2) != 0, dp};
      c.batch = 2;
      c.pad = 3;
      c.offset = 5;
      c.beta = -1;
      run_case(context, c);
      const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
      BOOST_TEST(plan.find(" INDEX64=1") != std::string::npos, c << ": " << plan);
    }
}

// A batch whose B matrices overlap, a window sliding one column per product (NN: K runs down B's
// rows), is read in place by step 13's tiles: copied K-contiguous once per product, 65535 windows
// of 256 x 256 floats took 17 GB of scratch. On a CPU device, whose own form copies such operands,
// the plan shows the form that reads them as they are.
BOOST_AUTO_TEST_CASE(a_batch_of_overlapping_b_matrices_is_read_in_place) {
  Context context = make_context();
  const uint32_t m = 4, n = 64, k = 64, batch = 1000, ldb = n + batch - 1;
  const std::vector<float> a = converted<float>(random_values(size_t{m} * k, 11));
  const std::vector<float> b = converted<float>(random_values(size_t{k} * ldb, 12));
  Buffer da(make_filled(context, a)), db(make_filled(context, b));
  Buffer dc = make_buffer(context, uint32_t(size_t{batch} * m * n * 4));
  BOOST_TEST_REQUIRE(CLGemm(da, db, dc, MQLCL_GEMM_FLOAT, MQLCL_GEMM_EXACT, 0, 0, m, n, k, 1, 0, 0,
                            k, 0, ldb, 0, n, batch, 0, 1, size_t{m} * n) == 1,
                     last_error);
  const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
  BOOST_TEST(plan.rfind("matr_mul_double_buffered.cl", 0) == 0, plan); // the form that reads B
  std::vector<float> c(size_t{batch} * m * n);
  BOOST_TEST_REQUIRE(CLBufferRead(dc, c.data(), 0, 0, uint32_t(c.size()), 4) == c.size());
  std::vector<uint32_t> products{batch - 1}; // every 97th and the last, against the host's sums
  for (uint32_t p = 0; p < batch; p += 97)
    products.push_back(p);
  size_t wrong = 0;
  for (uint32_t p : products)
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        double want = 0; // exact: the values have few bits
        for (uint32_t l = 0; l < k; ++l)
          want += double(a[i * k + l]) * b[size_t{l} * ldb + p + j];
        wrong += c[(size_t{p} * m + i) * n + j] != want ? 1 : 0;
      }
  BOOST_TEST(wrong == 0u);
}

// An operand of huge extent in a buffer of its own: only its matrices' rows are written (and C's
// read back), each row with the elements before and after it, which must stay as they were.
template <class T> struct SparseOperand {
  Stored stored;
  uint32_t batch;
  Buffer buffer;
  std::vector<T> values; // [product][row][col]

  T &at(uint32_t p, uint64_t row, uint64_t col) {
    return values[(p * stored.rows + row) * stored.cols + col];
  }
  uint64_t address(uint32_t p, uint64_t row) const {
    return stored.offset + p * stored.stride + row * stored.ld;
  }
  bool inside(uint64_t element) const {
    for (uint32_t p = 0; p < batch; ++p)
      for (uint64_t r = 0; r < stored.rows; ++r)
        if (element >= address(p, r) && element < address(p, r) + stored.cols)
          return true;
    return false;
  }
  // The elements just before and after each row that belong to no matrix: the guards.
  std::vector<uint64_t> guards() const {
    std::vector<uint64_t> found;
    for (uint32_t p = 0; p < batch; ++p)
      for (uint64_t r = 0; r < stored.rows; ++r)
        for (uint64_t element : {address(p, r) - 1, address(p, r) + stored.cols})
          if (element < stored.elements && !inside(element)) // (0 - 1 wraps past the end)
            found.push_back(element);
    return found;
  }
  void write_rows() {
    const T guard(7);
    for (uint64_t element : guards())
      BOOST_TEST_REQUIRE(CLBufferWrite64(buffer, &guard, element * sizeof(T), 0, 1, sizeof(T)) ==
                         1u);
    for (uint32_t p = 0; p < batch; ++p)
      for (uint64_t r = 0; r < stored.rows; ++r)
        BOOST_TEST_REQUIRE(CLBufferWrite64(buffer, &at(p, r, 0), address(p, r) * sizeof(T), 0,
                                           stored.cols, sizeof(T)) == stored.cols,
                           last_error);
  }
  // Reads the rows back; returns how many guards changed.
  size_t read_rows() {
    for (uint32_t p = 0; p < batch; ++p)
      for (uint64_t r = 0; r < stored.rows; ++r)
        BOOST_TEST_REQUIRE(CLBufferRead64(buffer, &at(p, r, 0), address(p, r) * sizeof(T), 0,
                                          stored.cols, sizeof(T)) == stored.cols,
                           last_error);
    size_t changed = 0;
    for (uint64_t element : guards()) {
      T value{};
      BOOST_TEST_REQUIRE(CLBufferRead64(buffer, &value, element * sizeof(T), 0, 1, sizeof(T)) ==
                         1u);
      changed += value != T(7) ? 1 : 0;
    }
    return changed;
  }
};

template <class T>
SparseOperand<T> sparse_operand(int32_t context, const Stored &stored, uint32_t batch,
                                uint32_t seed) {
  Buffer buffer(CLBufferCreate64(context, stored.elements * sizeof(T), MQLCL_MEM_READ_WRITE));
  BOOST_TEST_REQUIRE(buffer.get() != MQLCL_INVALID_HANDLE, last_error);
  SparseOperand<T> operand{stored, batch, std::move(buffer),
                           converted<T>(random_values(batch * stored.rows * stored.cols, seed))};
  operand.write_rows();
  return operand;
}

// `c` on operands stored as `sa`, `sb` and `sc` of any extent, against the host's sums.
template <class T>
void run_sparse(int32_t context, const Case &c, const Stored &sa, const Stored &sb,
                const Stored &sc) {
  SparseOperand<T> a = sparse_operand<T>(context, sa, c.batch, 1);
  SparseOperand<T> b = sparse_operand<T>(context, sb, c.batch, 2);
  SparseOperand<T> cc = sparse_operand<T>(context, sc, c.batch, 3);
  const std::vector<T> before = cc.values;
  const uint32_t type = c.double_precision ? MQLCL_GEMM_DOUBLE : MQLCL_GEMM_FLOAT;
  BOOST_TEST_REQUIRE(CLGemm(a.buffer, b.buffer, cc.buffer, type, c.precision, c.transpose_a,
                            c.transpose_b, c.m, c.n, c.k, c.alpha, c.beta, sa.offset,
                            uint32_t(sa.ld), sb.offset, uint32_t(sb.ld), sc.offset, uint32_t(sc.ld),
                            c.batch, sa.stride, sb.stride, sc.stride) == 1,
                     c << ": " << last_error);
  BOOST_TEST(cc.read_rows() == 0u, c << ": an element next to C's rows changed");
  size_t wrong = 0;
  for (uint32_t p = 0; p < c.batch; ++p)
    for (uint32_t i = 0; i < c.m; ++i)
      for (uint32_t j = 0; j < c.n; ++j) {
        double sum = 0, magnitude = 0;
        for (uint32_t l = 0; l < c.k; ++l) {
          double x = c.transpose_a ? a.at(p, l, i) : a.at(p, i, l);
          double y = c.transpose_b ? b.at(p, j, l) : b.at(p, l, j);
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        const size_t at = (size_t{p} * c.m + i) * c.n + j;
        const double want = c.alpha * sum + c.beta * before[at];
        const double bound = 2.0 * (c.k + 2) * double(std::numeric_limits<T>::epsilon()) *
                             (std::fabs(c.alpha) * magnitude + std::fabs(c.beta * before[at]));
        wrong += !(std::fabs(cc.values[at] - want) <= bound) ? 1 : 0;
      }
  BOOST_TEST(wrong == 0u, c << ": " << wrong << " elements off");
}

// Leading dimensions, offsets and batch strides past 2^31 elements (the kernels' 32-bit form
// would wrap them and fault the device): each case in buffers of 8 to 16 GiB, so on devices whose
// largest allocation is smaller (PoCL on a small machine) it is left out, and says so.
BOOST_AUTO_TEST_CASE(leading_dimensions_offsets_and_strides_past_2_31_elements_verify) {
  Context context = make_context();
  const uint64_t huge = (uint64_t{1} << 31) + 8,
                 largest = uint64_t(CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  struct Huge {
    const char *what;
    Case c;
    Stored a, b, c_stored;
  };
  auto packed = [](uint64_t rows, uint64_t cols) {
    return Stored{rows, cols, cols, 0, rows * cols};
  };
  auto wide = [&](uint64_t rows, uint64_t cols) {
    return Stored{rows, cols, huge, 0, (rows - 1) * huge + cols};
  };
  Case batched{3, 2, 5};
  batched.batch = 3;
  batched.beta = 1;
  Stored strided_a{3, 5, 5, huge + 56, 2 * (huge + 56) + 15}, strided_c{3, 2, 2, huge + 24, 0};
  strided_c.elements = 2 * strided_c.stride + 6;
  Stored packed_b = packed(5, 2);
  packed_b.stride = 10;
  packed_b.elements = 30;
  Stored offset_a{2, 6, 6, 0, (uint64_t{1} << 32) + 3 + 12, (uint64_t{1} << 32) + 3};
  std::vector<Huge> cases{
      {"lda", Case{2, 3, 6}, wide(2, 6), packed(6, 3), packed(2, 3)},
      {"ldb, K down B's rows", Case{3, 5, 2}, packed(3, 2), wide(2, 5), packed(3, 5)},
      {"ldb, B transposed", Case{3, 2, 5, false, true}, packed(3, 5), wide(2, 5), packed(3, 2)},
      {"lda, A transposed", Case{5, 3, 2, true, false}, wide(2, 5), packed(2, 3), packed(5, 3)},
      {"ldc", Case{2, 3, 4}, packed(2, 4), packed(4, 3), wide(2, 3)},
      {"offset_a past 2^32", Case{2, 3, 6}, offset_a, packed(6, 3), packed(2, 3)},
      {"stride_a and stride_c", batched, strided_a, packed_b, strided_c},
      {"lda, double", Case{2, 3, 6, false, false, true}, wide(2, 6), packed(6, 3), packed(2, 3)}};
  for (const Huge &h : cases) {
    const size_t element = h.c.double_precision ? 8 : 4;
    const uint64_t biggest = std::max({h.a.elements, h.b.elements, h.c_stored.elements}) * element;
    if (biggest > largest) {
      BOOST_TEST_MESSAGE(h.what << ": left out, it needs a buffer of " << biggest
                                << " bytes and the device's largest is " << largest);
      continue;
    }
    for (int32_t precision : {MQLCL_GEMM_EXACT, MQLCL_GEMM_ACCURATE}) {
      if (h.c.double_precision && precision != MQLCL_GEMM_EXACT)
        continue;
      Case c = h.c;
      c.precision = precision;
      BOOST_TEST_CONTEXT(h.what) {
        if (c.double_precision)
          run_sparse<double>(context, c, h.a, h.b, h.c_stored);
        else
          run_sparse<float>(context, c, h.a, h.b, h.c_stored);
      }
    }
  }
}

// A tuned set of step 13's kernel in the user's tuning cache says whether an operand with K down
// its rows is copied first: both (COPY=1), neither (0), A's only (2) or B's only (3); every way
// the product verifies, and CL_GEMM_PASSES shows those copies only. A set tuned for the call's
// layout ("matr_mul_tuned TN") comes before one of any layout.
std::string tiles_entry(int bk, int copy) {
  return "{\"64x64x64\": {\"kernel_file\": \"matr_mul_double_buffered.cl\", \"params\": {"
         "\"BM\": 64, \"BN\": 64, \"BK\": " +
         std::to_string(bk) +
         ", \"TM\": 8, \"TN\": 8, \"PAD\": 4, \"GROUP_M\": 8, \"WARP_ROWS\": 4, "
         "\"COPY\": " +
         std::to_string(copy) + "}}}";
}

// The tuning cache's key of the test device: "NAME | DRIVER", as the tuner writes it.
std::string tuning_key() {
  Context probe = make_context();
  return mqlcl_test::tuning_key(probe);
}

BOOST_AUTO_TEST_CASE(a_tuned_set_says_whether_operands_are_copied) {
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-copy-" + std::to_string(std::random_device{}()) + ".json");
  const std::string key = tuning_key();
  for (int copy : {0, 1, 2, 3}) {
    std::ofstream(cache) << "{\"" << key << "\": {\"matr_mul_tuned\": " << tiles_entry(8, copy)
                         << ", \"matr_mul_tuned TN\": " << tiles_entry(16, copy) << "}}";
    ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
    Context context = make_context(); // reads the cache at its first CLGemm
    for (int t = 0; t < 4; ++t) {
      Case c{64, 64, 64, bool(t & 1), bool(t & 2)};
      run_case(context, c);
      const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
      BOOST_TEST(plan.rfind("matr_mul_double_buffered.cl ", 0) == 0, c << ": " << plan);
      BOOST_TEST(plan.find(" COPY=" + std::to_string(copy) + " ") != std::string::npos, plan);
      BOOST_TEST(plan.find(t == 1 ? " BK=16 " : " BK=8 ") != std::string::npos, plan);
      BOOST_TEST(plan.find("(tuning cache") != std::string::npos, plan);
      // K runs down A's rows where A is transposed, down B's where B is not.
      const bool a_copied = c.transpose_a && (copy == 1 || copy == 2);
      const bool b_copied = !c.transpose_b && (copy == 1 || copy == 3);
      const std::string passes = info_string(context, MQLCL_CL_GEMM_PASSES);
      BOOST_TEST(mqlcl_test::occurrences(passes, "transpose") ==
                     size_t(a_copied) + size_t(b_copied),
                 c << ", COPY=" << copy << ": " << passes);
    }
  }
  std::filesystem::remove(cache);
}

// Step 13's tiles reading every operand as stored (COPY=0), in 32 x 32 tiles, where C's lines are a
// multiple of 4 but not of the tiles (36 x 40) or not of 4 either (35), and K not of the 8-deep
// slices: a gathered piece of four lines past the edge reads the last four lines
// (kernels/tiles/slice_copies.cl), the other loads read zeros there. Every layout verifies, both
// ways of loading (GATHER), float and double, scaled, in a padded batch whose rows stay 16-byte
// aligned; test_reliability_oclgrind runs this case to see that no load leaves a matrix.
std::string small_tiles_entry(int gather) {
  return "{\"32x32x32\": {\"kernel_file\": \"matr_mul_double_buffered.cl\", \"params\": {"
         "\"BM\": 32, \"BN\": 32, \"BK\": 8, \"TM\": 4, \"TN\": 4, \"PAD\": 4, "
         "\"GROUP_M\": 8, \"WARP_ROWS\": 4, \"COPY\": 0, \"GATHER\": " +
         std::to_string(gather) + "}}}";
}

BOOST_AUTO_TEST_CASE(lines_past_the_tiles_edge_reach_only_what_is_never_stored) {
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-lines-" + std::to_string(std::random_device{}()) + ".json");
  const std::string key = tuning_key();
  ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
  ScopedEnvironment tiles("MQLCL_GEMM_KERNEL", std::string("tiles"));
  ScopedEnvironment whole("MQLCL_GEMM_EDGES", std::string("tiles"));
  for (int gather : {0, 1}) {
    std::ofstream(cache) << "{\"" << key << "\": {\"matr_mul_tuned\": " << small_tiles_entry(gather)
                         << ", \"matr_mul_tuned double\": " << small_tiles_entry(gather) << "}}";
    Context context = make_context(); // reads the cache at its first CLGemm
    for (const Case &shape : {Case{36, 40, 20}, Case{35, 40, 20}})
      for (int t = 0; t < 4; ++t)
        for (bool dp : {false, true}) {
          if (shape.m % 4 && (t != 0 || dp))
            continue; // each line guarded, as in every layout: once is enough
          const Case c = in_layout(shape, t, dp, 4, 8, 0.5); // rows stay 16-byte aligned
          run_case(context, c);
          const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
          BOOST_TEST(plan.rfind("matr_mul_double_buffered.cl ", 0) == 0, c << ": " << plan);
          BOOST_TEST(plan.find(" BM=32 ") != std::string::npos, c << ": " << plan);
          BOOST_TEST(plan.find(" COPY=0 ") != std::string::npos, c << ": " << plan);
          BOOST_TEST(plan.find(" GATHER=" + std::to_string(gather) + " ") != std::string::npos,
                     c << ": " << plan);
          BOOST_TEST(plan.find("(tuning cache") != std::string::npos, c << ": " << plan);
          BOOST_TEST(plan.find("thin.cl") == std::string::npos, c << ": " << plan);
        }
  }
  std::filesystem::remove(cache);
}

// Whether the double product runs step 19 on the test device (an NVIDIA Hopper GPU, no kernel
// forced); where not, says why.
bool step_19_runs_here() {
  if (Context probe = make_context(); !is_nvidia_hopper(probe)) {
    BOOST_TEST_MESSAGE("not an NVIDIA Hopper GPU: the double product runs step 13's tiles here");
    return false;
  }
  if (const char *forced = std::getenv("MQLCL_GEMM_KERNEL"); forced != nullptr && *forced) {
    BOOST_TEST_MESSAGE("MQLCL_GEMM_KERNEL=" << forced << " runs that kernel instead of step 19");
    return false;
  }
  return true;
}

// Step 19 (FP64 tensor cores) reads an operand with K down its rows in place (A_LINES, B_LINES)
// unless its tuned set copies it first (COPY=1 both, 2 A's, 3 B's): NN's B and TN's A and B;
// every way the product verifies, and CL_GEMM_PASSES shows the transposing copy only where the set
// asks for it. Runs on an NVIDIA Hopper GPU, where the double product runs step 19 (step 13's tiles
// elsewhere).
BOOST_AUTO_TEST_CASE(step_19_reads_operands_with_k_down_their_rows_in_place_unless_told) {
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-fp64-copy-" + std::to_string(std::random_device{}()) + ".json");
  const std::string key = tuning_key();
  if (!step_19_runs_here())
    return;
  for (int copy : {0, 1, 2, 3}) {
    const std::string entry =
        "{\"64x64x64\": {\"kernel_file\": \"matr_mul_dmma.cl\", \"params\": {\"BM\": 64, "
        "\"BN\": 64, \"BK\": 16, \"WM\": 32, \"WN\": 32, \"MMA_K\": 16, \"STAGES\": 3, "
        "\"GROUP_M\": 8, \"COPY\": " +
        std::to_string(copy) + "}}}";
    std::ofstream(cache) << "{\"" << key << "\": {\"matr_mul_dmma double NN\": " << entry
                         << ", \"matr_mul_dmma double TN\": " << entry << "}}";
    ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
    Context context = make_context();
    for (bool transpose_a : {false, true}) {
      Case c{64, 37, 64, transpose_a};
      c.double_precision = true;
      run_case(context, c);
      const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
      BOOST_TEST_REQUIRE(plan.rfind("matr_mul_dmma.cl ", 0) == 0, plan);
      BOOST_TEST(plan.find(" COPY=" + std::to_string(copy) + " ") != std::string::npos, plan);
      const std::string passes = info_string(context, MQLCL_CL_GEMM_PASSES);
      // K runs down TN's A and B, NN's B.
      const int copies = (transpose_a && (copy == 1 || copy == 2)) + (copy == 1 || copy == 3);
      BOOST_TEST(mqlcl_test::occurrences(passes, "transpose") == size_t(copies),
                 c << ", COPY=" << copy << ": " << passes);
    }
  }
  std::filesystem::remove(cache);
}

// Step 19 copies its tiles through tensor maps where the CUDA driver writes them and every operand
// it maps starts its rows and matrices on 16-byte boundaries: unasked (TMA=2), the copy engine
// fills the tiles of operands with K down their rows (NN's B, TN's A and B, TT's A) and the
// work-items the rest (NT's: all); a tuned set's TMA=1 maps both, TMA=3 both with the K-contiguous
// tiles swizzled. An odd offset where an operand is mapped, or no maps (MQLCL_CUDA_DRIVER=off),
// leaves the copies to the work-items (TMA=0). Every layout, edges in M, N and K, a batch, alpha
// and beta: each element verifies every way. Runs on an NVIDIA Hopper GPU, where double runs step
// 19.
BOOST_AUTO_TEST_CASE(step_19_copies_its_tiles_through_tensor_maps_where_rows_align) {
  if (!step_19_runs_here())
    return;
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-fp64-maps-" + std::to_string(std::random_device{}()) + ".json");
  // A set of each copy-engine form (1: padded boxes, 3: K-contiguous tiles swizzled), or one that
  // names no TMA (the planner's choice, whatever the database's nearest set says).
  for (std::optional<int> set_tma : {std::optional<int>(), std::optional(1), std::optional(3)}) {
    const std::string entry =
        "{\"128x64x64\": {\"kernel_file\": \"matr_mul_dmma.cl\", \"params\": {\"BM\": 64, "
        "\"BN\": 64, \"BK\": 16, \"WM\": 32, \"WN\": 32, \"MMA_K\": 16, \"STAGES\": 3, "
        "\"GROUP_M\": 8" +
        (set_tma ? ", \"TMA\": " + std::to_string(*set_tma) : std::string()) + "}}}";
    {
      std::ofstream out(cache);
      out << "{\"" << tuning_key() << "\": {";
      for (const char *layout : {"NN", "NT", "TN", "TT"})
        out << (layout[0] == 'N' && layout[1] == 'N' ? "" : ", ") << "\"matr_mul_dmma double "
            << layout << "\": " << entry;
      out << "}}";
    }
    for (bool maps : {true, false}) {
      ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
      ScopedEnvironment driver("MQLCL_CUDA_DRIVER",
                               maps ? std::nullopt : std::optional<std::string>("off"));
      Context context = make_context();
      for (uint64_t offset : {2u, 1u})
        for (int t = 0; t < 4; ++t) {
          Case c{130, 68, 52, bool(t & 1), bool(t & 2), true, -1.5, 0.5, 3};
          c.offset = offset;
          run_case(context, c);
          const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
          BOOST_TEST_REQUIRE(plan.rfind("matr_mul_dmma.cl ", 0) == 0, plan);
          // Unasked, NT maps nothing: its odd offset changes nothing.
          const bool k_down = c.transpose_a || !c.transpose_b, aligned = offset % 2 == 0;
          const int tma = !maps     ? 0
                          : set_tma ? (aligned ? *set_tma : 0)
                                    : (aligned || !k_down ? 2 : 0);
          BOOST_TEST(plan.find(" TMA=" + std::to_string(tma) + " ") != std::string::npos,
                     c << ", a set of TMA=" << (set_tma ? std::to_string(*set_tma) : "(none)")
                       << ": " << plan);
        }
    }
  }
  std::filesystem::remove(cache);
}

// Step 19's distinct sets in the H100's and the H200's tuning files, from which the database is
// compiled.
std::vector<nlohmann::json> step_19_sets_of_record() {
  std::vector<nlohmann::json> sets;
  for (const char *card : {"h100", "h200"}) {
    std::ifstream in(std::string(MQLCL_TEST_TUNINGS) + "/tuning-" + card + ".json");
    const nlohmann::json file = nlohmann::json::parse(in); // outlives the loop's items()
    for (const auto &[device, steps] : file.items())
      for (const auto &[step, shapes] : steps.items())
        if (step.rfind("matr_mul_dmma double ", 0) == 0)
          for (const auto &[shape, entry] : shapes.items())
            if (std::find(sets.begin(), sets.end(), entry.at("params")) == sets.end())
              sets.push_back(entry.at("params"));
  }
  return sets;
}

// A parameter's value as the plan writes it (the files hold numbers, or numbers as strings).
std::string text_of(const nlohmann::json &value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// Step 19's sets of record (the H100's and the H200's tuning files, from which the database is
// compiled), each at a small shape with edges in M, N and K, every layout, a batch, alpha and
// beta: rows aligned for the copy engine (offset 2), and an odd offset with odd leading dimensions
// (what 4097 meets, the work-items copying). The database's sets serve those shapes only on the
// cards they were tuned for, and tests elsewhere run forms of their own choosing: here each set
// that ships verifies on any Hopper GPU. Runs on an NVIDIA Hopper GPU.
BOOST_AUTO_TEST_CASE(every_set_of_record_of_step_19_verifies) {
  if (!step_19_runs_here())
    return;
  const std::vector<nlohmann::json> sets = step_19_sets_of_record();
  BOOST_TEST_REQUIRE(sets.size() >= 10u, "the tuning files of record hold step 19's sets");
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-fp64-record-" + std::to_string(std::random_device{}()) + ".json");
  for (const nlohmann::json &params : sets) {
    nlohmann::json file, entry;
    entry["130x68x52"] = {{"kernel_file", "matr_mul_dmma.cl"}, {"params", params}};
    for (const char *layout : {"NN", "NT", "TN", "TT"})
      file[tuning_key()][std::string("matr_mul_dmma double ") + layout] = entry;
    std::ofstream(cache) << file.dump();
    ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
    Context context = make_context();
    for (uint32_t odd : {0u, 1u})
      for (int t = 0; t < 4; ++t) {
        Case c{130, 68, 52, bool(t & 1), bool(t & 2), true, -1.5, 0.5, 3};
        c.offset = 2 - odd;
        c.pad = odd;
        run_case(context, c);
        const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
        BOOST_TEST_REQUIRE(plan.rfind("matr_mul_dmma.cl ", 0) == 0, plan);
        BOOST_TEST(plan.find("(tuning cache") != std::string::npos, c << ": " << plan);
        BOOST_TEST(plan.find(" BM=" + text_of(params.at("BM")) + " BN=" + text_of(params.at("BN")) +
                             " ") != std::string::npos,
                   c << ", the set " << params.dump() << ": " << plan);
      }
  }
  std::filesystem::remove(cache);
}

// TF32 reads a B stored K x N (NN) through its map as it is where its tuned set says B_MN=1,
// computing C^T with B's tile as the register operand (kernels/nv/wgmma_tiles.cl) and storing it
// transposed, also where C's rows end inside a 16-byte piece or start off 16-byte boundaries;
// where B's rows are not on 16-byte boundaries, or the set says B_MN=0, B is copied K-contiguous
// first. Either way every element verifies and nothing outside C changes. Runs where TF32 is
// offered (NVIDIA Hopper) with tensor maps.
BOOST_AUTO_TEST_CASE(tf32_reads_b_stored_k_by_n_as_it_is_where_its_set_says_so) {
  if (Context probe = make_context(); !offers_tf32(probe)) {
    BOOST_TEST_MESSAGE("no TF32 on this device: nothing reads B as stored");
    return;
  }
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-b-mn-" + std::to_string(std::random_device{}()) + ".json");
  const std::string key = tuning_key();
  // Two tile shapes: 128 columns of C by 256 rows, one group in flight; 64 by 64, none.
  const std::string sets[] = {"\"BM\": 128, \"BN\": 256, \"BK\": 32, \"STAGES\": 3, "
                              "\"INFLIGHT\": 1, \"GROUP_M\": 16",
                              "\"BM\": 64, \"BN\": 64, \"BK\": 16, \"STAGES\": 2, "
                              "\"INFLIGHT\": 0, \"GROUP_M\": 8"};
  Case batched{37, 196, 100}; // B's rows 200 floats apart from element 4, 3 products
  batched.batch = 3;
  batched.offset = 4;
  batched.pad = 4;
  batched.alpha = -2;
  batched.beta = 0.5;
  Case scaled{300, 200, 96};
  scaled.beta = 1;
  Case edge{300, 202, 96}; // C's rows end 2 floats into a 16-byte piece (rows 204 floats apart)
  edge.pad = 2;
  edge.beta = -1;
  const Case aligned[] = {Case{1023, 1000, 517}, scaled, edge, batched, Case{64, 64, 64}};
  // C's rows not on 16-byte boundaries (ld n + 1, from element 1).
  Case unaligned_c{100, 96, 64};
  unaligned_c.beta = 2;
  unaligned_c.precision = MQLCL_GEMM_TF32;
  const Stored sc{100, 96, 97, 100 * 97, 1 + 100 * 97, 1};
  for (const std::string &set : sets)
    for (int b_mn : {1, 0}) {
      // At 64^3 and at the largest call's shape (M x K x N), where the database's sets are nearer.
      const std::string entry =
          "{\"kernel_file\": \"matr_mul_wgmma_tf32.cl\", \"params\": {" + set +
          ", \"TMA\": 2, \"MODE\": 1, \"B_MN\": " + std::to_string(b_mn) + "}}";
      std::ofstream(cache) << "{\"" << key
                           << "\": {\"matr_mul_wgmma_tma_tf32 NN\": {\"64x64x64\": " << entry
                           << ", \"1023x517x1000\": " << entry << "}}}";
      ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
      Context context = make_context();
      for (Case c : aligned) {
        c.precision = MQLCL_GEMM_TF32;
        run_case(context, c);
        const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
        const std::string passes = info_string(context, MQLCL_CL_GEMM_PASSES);
        BOOST_TEST(plan.find(" B_MN=" + std::to_string(b_mn) + " ") != std::string::npos,
                   c << ": " << plan);
        BOOST_TEST((passes.find("transpose") == std::string::npos) == (b_mn == 1),
                   c << ": " << passes);
      }
      run_stored(context, unaligned_c, stored(100, 64, unaligned_c, false),
                 stored(64, 96, unaligned_c, false), sc);
      BOOST_TEST(info_string(context, MQLCL_CL_GEMM_PLAN).find(" B_MN=" + std::to_string(b_mn)) !=
                 std::string::npos);
      Case odd{37, 37, 37}; // B's rows 37 floats apart: copied whatever the set
      odd.precision = MQLCL_GEMM_TF32;
      run_case(context, odd);
      const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
      BOOST_TEST(plan.find(" B_MN=0 ") != std::string::npos, plan);
    }
  std::filesystem::remove(cache);
}

// Where 3xTF32's set measured on the device says EXACT_FASTER=1 (`tune matr_mul_wgmma_tma_3xtf32
// --gemm TN` timed the FP32 product faster there), float ACCURATE calls of its layout, one matrix
// each, whose M, N and K are within it and within no smaller set run the FP32 product, and the
// plan says why; a smaller set saying EXACT_FASTER=0, another layout, a batch, a call past every
// set, and FASTEST keep the tensor cores. Every product verifies. Runs where they are offered.
BOOST_AUTO_TEST_CASE(float_accurate_runs_the_fp32_product_where_it_was_measured_faster) {
  if (Context probe = make_context(); !offers_tf32(probe)) {
    BOOST_TEST_MESSAGE("no tensor-core precisions on this device: ACCURATE is the FP32 product");
    return;
  }
  const auto cache =
      std::filesystem::temp_directory_path() /
      ("mqlcl-test-exact-faster-" + std::to_string(std::random_device{}()) + ".json");
  const std::string key = tuning_key();
  const auto set = [](int exact_faster) {
    return "{\"kernel_file\": \"matr_mul_wgmma_tf32.cl\", \"params\": {\"EXACT_FASTER\": " +
           std::to_string(exact_faster) + "}}";
  };
  std::ofstream(cache) << "{\"" << key
                       << "\": {\"matr_mul_wgmma_tma_3xtf32 TN\": {\"40x40x40\": " << set(0)
                       << ", \"64x64x64\": " << set(1) << ", \"96x96x96\": " << set(0) << "}}}";
  ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
  Context context = make_context(); // reads the cache at its first CLGemm
  Case batched{64, 64, 64, true, false};
  batched.batch = 2;
  Case fastest{64, 64, 64, true, false};
  fastest.precision = MQLCL_GEMM_FASTEST;
  const struct {
    Case c;
    bool fp32;
  } calls[] = {{Case{64, 64, 64, true, false}, true},
               {Case{50, 60, 41, true, false}, true},
               {Case{40, 40, 40, true, false}, false},
               {Case{80, 70, 90, true, false}, false},
               {Case{100, 100, 1040, true, false}, false}, // past the database's sets too
               {Case{64, 64, 64, false, true}, false},
               {batched, false},
               {fastest, false}};
  for (auto [c, fp32] : calls) {
    if (c.precision == MQLCL_GEMM_EXACT)
      c.precision = MQLCL_GEMM_ACCURATE;
    run_case(context, c);
    const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
    BOOST_TEST((plan.rfind("matr_mul_wgmma_tf32.cl ", 0) != 0) == fp32, c << ": " << plan);
    BOOST_TEST((plan.find(" [the FP32 product: measured faster than 3xTF32 (tuning cache: ") !=
                std::string::npos) == fp32,
               c << ": " << plan);
    if (fp32)
      BOOST_TEST(plan.find(" at 64x64x64 TN)]") != std::string::npos, plan);
  }
  std::filesystem::remove(cache);
}

// The double product takes the sets tuned for it (`tune --gemm LAYOUT --double`, "matr_mul_tuned
// double NN", or on FP64 tensor cores "matr_mul_dmma double NN"), and the FP32 product does not:
// the same shape in float runs its own plan.
BOOST_AUTO_TEST_CASE(the_double_product_takes_its_own_tuned_sets) {
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-double-" + std::to_string(std::random_device{}()) + ".json");
  const std::string key = tuning_key();
  // Step 13's set, and step 19's where the device has FP64 tensor cores (both 16-deep).
  const std::string fp64_entry =
      "{\"64x64x64\": {\"kernel_file\": \"matr_mul_dmma.cl\", \"params\": {\"BM\": 64, "
      "\"BN\": 64, \"BK\": 16, \"WM\": 32, \"WN\": 32, \"MMA_K\": 16, \"STAGES\": 2, "
      "\"GROUP_M\": 8}}}";
  std::ofstream(cache) << "{\"" << key
                       << "\": {\"matr_mul_tuned double NN\": " << tiles_entry(16, 1)
                       << ", \"matr_mul_dmma double NN\": " << fp64_entry << "}}";
  ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
  Context context = make_context();
  for (bool double_precision : {true, false}) {
    Case c{64, 64, 64};
    c.double_precision = double_precision;
    run_case(context, c);
    const std::string plan = info_string(context, MQLCL_CL_GEMM_PLAN);
    const bool tuned = plan.find("(tuning cache") != std::string::npos &&
                       plan.find(" BK=16 ") != std::string::npos;
    BOOST_TEST(tuned == double_precision, c << ": " << plan);
  }
  std::filesystem::remove(cache);
}

// Thin edges (bridge/src/gemm/edges.hpp): with step 13's 64 x 64 x 16 set pinned and the split
// forced at these small sizes (MQLCL_GEMM_EDGES=split), C's last rows, its last columns and K's
// rest each run on their own beside the whole tiles, in every layout, in float and double, with
// alpha, beta (0 with NaNs in C), batches, offsets and leading dimensions; edges wider than
// kThinLines stay in the tiles, and MQLCL_GEMM_EDGES=tiles keeps them all there.
BOOST_AUTO_TEST_CASE(thin_edges_run_apart_from_the_whole_tiles_and_verify) {
  const auto cache = std::filesystem::temp_directory_path() /
                     ("mqlcl-test-edges-" + std::to_string(std::random_device{}()) + ".json");
  const std::string key = tuning_key();
  std::ofstream(cache) << "{\"" << key << "\": {\"matr_mul_tuned\": " << tiles_entry(16, 0)
                       << ", \"matr_mul_tuned double\": " << tiles_entry(16, 0) << "}}";
  ScopedEnvironment overlay("MQLCL_TUNE_CACHE", cache.string());
  ScopedEnvironment tiles("MQLCL_GEMM_KERNEL", std::string("tiles"));
  const auto plan_after = [](int32_t context, const Case &c) {
    run_case(context, c);
    return info_string(context, MQLCL_CL_GEMM_PLAN);
  };
  {
    ScopedEnvironment split("MQLCL_GEMM_EDGES", std::string("split"));
    Context context = make_context();
    const Case shapes[] = {{66, 67, 70}, {64, 67, 64}, {65, 64, 64}, {64, 64, 71}, {68, 68, 79}};
    for (const Case &shape : shapes)
      for (int t = 0; t < 4; ++t)
        for (bool dp : {false, true}) {
          const Case c = in_layout(shape, t, dp, 3, 5, t == 1 ? 0.5 : 0);
          const std::string plan = plan_after(context, c);
          BOOST_TEST(plan.find(" + thin.cl for ") != std::string::npos, c << ": " << plan);
          BOOST_TEST(plan.find(" BM=64 ") != std::string::npos, c << ": " << plan);
          // The block reads A and B from rows on 16-byte boundaries, copied where they are not.
          const auto unaligned = [&](uint32_t cols) { return (cols + c.pad) % 4 || c.offset % 4; };
          const int copies =
              unaligned(c.transpose_a ? c.m : c.k) + unaligned(c.transpose_b ? c.k : c.n);
          const std::string passes = info_string(context, MQLCL_CL_GEMM_PASSES);
          BOOST_TEST(mqlcl_test::occurrences(passes, "pack ") == size_t(copies),
                     c << ": " << passes);
        }
    Case wide{69, 64, 64}; // 5 lines past the tiles
    BOOST_TEST(plan_after(context, wide).find("thin.cl") == std::string::npos);
    // A set that copies operands with K down their rows transposed (COPY=1): the block copies
    // those once, transposed, and packs only the others (every operand here is unaligned).
    std::ofstream(cache) << "{\"" << key << "\": {\"matr_mul_tuned\": " << tiles_entry(16, 1)
                         << "}}";
    Context copying = make_context();
    for (int t = 0; t < 4; ++t) {
      Case c{66, 67, 70, bool(t & 1), bool(t & 2)};
      c.pad = 3;
      const std::string plan = plan_after(copying, c);
      BOOST_TEST(plan.find(" + thin.cl for ") != std::string::npos, c << ": " << plan);
      const int k_down = int(c.transpose_a) + int(!c.transpose_b);
      const std::string passes = info_string(copying, MQLCL_CL_GEMM_PASSES);
      BOOST_TEST(mqlcl_test::occurrences(passes, "transpose") == size_t(k_down),
                 c << ": " << passes);
      BOOST_TEST(mqlcl_test::occurrences(passes, "pack ") == size_t(2 - k_down),
                 c << ": " << passes);
    }
  }
  for (const char *mode : {"", "tiles"}) { // unset: too small to split
    ScopedEnvironment whole("MQLCL_GEMM_EDGES",
                            *mode ? std::optional<std::string>(mode) : std::nullopt);
    Context context = make_context();
    Case kept{66, 67, 70};
    BOOST_TEST(plan_after(context, kept).find("thin.cl") == std::string::npos, mode);
  }
  std::filesystem::remove(cache);
}

BOOST_AUTO_TEST_SUITE_END()

// The refusals: each returns 0 with its code, and C keeps its values.
namespace {

struct Hostile {
  Context context = make_context();
  Buffer a = make_buffer(context, 16 * 16 * 4);
  Buffer b = make_buffer(context, 16 * 16 * 4);
  Buffer c = make_buffer(context, 16 * 16 * 4);
  std::vector<float> before = std::vector<float>(256, 3.0f);
  Hostile() { BOOST_TEST_REQUIRE(CLBufferWrite(c, before.data(), 0, 0, 256, 4) == 256u); }
  // A 16 x 16 x 16 float product with one argument changed by `change`.
  struct Args {
    int32_t a, b, c, type = MQLCL_GEMM_FLOAT, precision = MQLCL_GEMM_EXACT, ta = 0, tb = 0;
    uint32_t m = 16, n = 16, k = 16;
    double alpha = 1, beta = 0;
    uint64_t offset_a = 0;
    uint32_t lda = 0;
    uint64_t offset_b = 0;
    uint32_t ldb = 0;
    uint64_t offset_c = 0;
    uint32_t ldc = 0, batch = 1;
    uint64_t stride_a = 0, stride_b = 0, stride_c = 0;
  };
  Args args() const { return Args{a, b, c}; }
  static int32_t call(const Args &x) {
    return CLGemm(x.a, x.b, x.c, x.type, x.precision, x.ta, x.tb, x.m, x.n, x.k, x.alpha, x.beta,
                  x.offset_a, x.lda, x.offset_b, x.ldb, x.offset_c, x.ldc, x.batch, x.stride_a,
                  x.stride_b, x.stride_c);
  }
  void expect_unchanged() {
    std::vector<float> after(256);
    BOOST_TEST_REQUIRE(CLBufferRead(c, after.data(), 0, 0, 256, 4) == 256u);
    BOOST_TEST(after == before, boost::test_tools::per_element());
  }
};

template <class Change> void expect_refused(Hostile &h, Change change, int32_t code) {
  Hostile::Args x = h.args();
  change(x);
  MQLCL_CHECK_FAILS(Hostile::call(x), 0, code);
}

} // namespace

BOOST_AUTO_TEST_SUITE(gemm_refusals, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(bad_choices_and_sizes_are_refused) {
  Hostile h;
  expect_refused(
      h, [](auto &x) { x.type = 2; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [](auto &x) { x.precision = -1; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [](auto &x) { x.precision = 4; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [](auto &x) { x.ta = 2; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [](auto &x) { x.tb = -1; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [](auto &x) { x.m = 0; }, MQLCL_ERR_ZEROSIZE_ARRAY);
  expect_refused(
      h, [](auto &x) { x.n = 0; }, MQLCL_ERR_ZEROSIZE_ARRAY);
  expect_refused(
      h, [](auto &x) { x.k = 0; }, MQLCL_ERR_ZEROSIZE_ARRAY);
  expect_refused(
      h, [](auto &x) { x.batch = 0; }, MQLCL_ERR_ZEROSIZE_ARRAY);
  expect_refused(
      h, [](auto &x) { x.batch = 65536; }, MQLCL_ERR_INVALID_PARAMETER);
  h.expect_unchanged();
}

BOOST_AUTO_TEST_CASE(operands_past_their_buffers_are_refused) {
  Hostile h;
  expect_refused(
      h, [](auto &x) { x.m = 17; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  expect_refused(
      h, [](auto &x) { x.k = 17; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  expect_refused(
      h, [](auto &x) { x.n = 17; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  expect_refused(
      h, [](auto &x) { x.offset_b = 1; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  expect_refused(
      h, [](auto &x) { x.offset_c = 256; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
  expect_refused(
      h, [](auto &x) { x.offset_a = ~uint64_t{0}; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
  expect_refused(
      h, [](auto &x) { x.lda = 17; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  expect_refused(
      h, [](auto &x) { x.ldc = 15; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [](auto &x) { x.m = x.k = 8, x.ta = 1, x.lda = 7; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [](auto &x) { x.batch = 2, x.stride_b = 1; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  // Products whose extents overflow 64 bits.
  expect_refused(
      h, [](auto &x) { x.batch = 3, x.stride_a = ~uint64_t{0} / 2; },
      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  expect_refused(
      h, [](auto &x) { x.lda = ~uint32_t{0}; }, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  // A's extent (batch 2: stride_a, then 15 rows of 16 and a row of 16) ends at 2^64 - 1, past
  // its buffer, and at 2^64, past 64 bits.
  expect_refused(
      h, [](auto &x) { x.batch = 2, x.stride_a = ~uint64_t{0} - 256; },
      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  BOOST_TEST(last_error_text().find("needs 18446744073709551615 elements") != std::string::npos);
  expect_refused(
      h, [](auto &x) { x.batch = 2, x.stride_a = ~uint64_t{0} - 255; },
      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  BOOST_TEST(last_error_text().find("a's extent overflows") != std::string::npos);
  h.expect_unchanged();
}

BOOST_AUTO_TEST_CASE(overlaps_and_buffer_kinds_are_refused) {
  Hostile h;
  expect_refused(
      h, [&](auto &x) { x.a = h.c; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [&](auto &x) { x.b = h.c, x.m = x.n = x.k = 8, x.ldc = 8, x.offset_c = 60; },
      MQLCL_ERR_INVALID_PARAMETER); // B covers 0..63, C 60..123
  expect_refused(
      h, [](auto &x) { x.m = 4, x.batch = 2, x.stride_c = 16; },
      MQLCL_ERR_INVALID_PARAMETER); // C's two matrices overlap
  Buffer read_only = make_buffer(h.context, 1024, MQLCL_MEM_READ_ONLY);
  Buffer write_only = make_buffer(h.context, 1024, MQLCL_MEM_WRITE_ONLY);
  expect_refused(
      h, [&](auto &x) { x.c = read_only; }, MQLCL_ERR_INVALID_PARAMETER);
  expect_refused(
      h, [&](auto &x) { x.a = write_only; }, MQLCL_ERR_INVALID_PARAMETER);
  h.expect_unchanged();
}

BOOST_AUTO_TEST_CASE(foreign_freed_and_wrong_handles_are_refused) {
  Hostile h;
  Context other = make_context();
  Buffer foreign = make_buffer(other, 1024);
  expect_refused(
      h, [&](auto &x) { x.b = foreign; }, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  int32_t freed = CLBufferCreate(h.context, 1024, MQLCL_MEM_READ_WRITE);
  CLBufferFree(freed);
  expect_refused(
      h, [&](auto &x) { x.a = freed; }, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  expect_refused(
      h, [&](auto &x) { x.c = h.context; }, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  expect_refused(
      h, [&](auto &x) { x.a = -1; }, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  h.expect_unchanged();
}

BOOST_AUTO_TEST_CASE(precisions_the_device_lacks_are_refused) {
  Hostile h;
  if (CLGetInfoInteger(h.context, MQLCL_CL_DEVICE_VENDOR_ID) != 0x10DE) // TF32: NVIDIA sm_90
    expect_refused(
        h, [](auto &x) { x.precision = MQLCL_GEMM_TF32; }, MQLCL_ERR_OPENCL_NOT_SUPPORTED);
  expect_refused(
      h,
      [](auto &x) {
        x.type = MQLCL_GEMM_DOUBLE;
        x.precision = MQLCL_GEMM_TF32;
      },
      MQLCL_ERR_OPENCL_NOT_SUPPORTED);
  if (CLGetInfoInteger(h.context, MQLCL_CL_DEVICE_DOUBLE_SUPPORT) == 0)
    expect_refused(
        h, [](auto &x) { x.type = MQLCL_GEMM_DOUBLE; }, MQLCL_ERR_OPENCL_NOT_SUPPORTED);
  h.expect_unchanged();
}

BOOST_AUTO_TEST_SUITE_END()
