#include "gemm_product.hpp"

#include "error.hpp"
#include "reference.hpp"
#include "verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

namespace mqlcl::replay {

namespace {

using Clock = std::chrono::steady_clock;

// op(X), `rows` x `cols`, row-major, from X stored so or (`stored_transposed`) as its transpose,
// starting at `first`.
std::vector<double> row_major(const std::vector<double> &x, uint32_t rows, uint32_t cols,
                              bool stored_transposed, size_t first) {
  std::vector<double> out(size_t{rows} * cols);
  for (uint32_t i = 0; i < rows; ++i)
    for (uint32_t l = 0; l < cols; ++l)
      out[size_t{i} * cols + l] =
          stored_transposed ? x[first + size_t{l} * rows + i] : x[first + size_t{i} * cols + l];
  return out;
}

// work(0) ... work(tasks - 1) spread over the hardware threads, each thread every threads-th.
template <class Work> void on_every_thread(uint32_t tasks, const Work &work) {
  const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), tasks));
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (uint32_t task = t; task < tasks; task += threads)
        work(task);
    });
  for (std::thread &worker : workers)
    worker.join();
}

// The fp64 product of every matrix of the batch, by reference.hpp's multiply_fp64.
std::vector<double> reference_product(const GeneralGemm &g, const std::vector<double> &a,
                                      const std::vector<double> &b) {
  std::vector<double> c(size_t{g.m} * g.n * g.batch);
  if (g.m == 0 || g.n == 0)
    return c;
  for (uint32_t p = 0; p < g.batch; ++p) {
    const std::vector<double> op_a = row_major(a, g.m, g.k, g.transpose_a, size_t{p} * g.m * g.k);
    const std::vector<double> op_b = row_major(b, g.k, g.n, g.transpose_b, size_t{p} * g.n * g.k);
    multiply_fp64(op_a.data(), op_b.data(), c.data() + size_t{p} * g.m * g.n, g.m, g.n, g.k);
  }
  return c;
}

// Rows of each product of the batch whose error a double product's check measures: up to this
// many, spread over M.
constexpr uint32_t kExactRows = 32;

uint32_t exact_row(const GeneralGemm &g, uint32_t r) {
  const uint32_t rows = std::min(g.m, kExactRows);
  return uint32_t(uint64_t{r} * g.m / rows);
}

// The sampled rows of every product, n values each, summed in long double (x87's 64-bit
// significand: on uniform inputs about 1e-18 of the largest element, where FP64's sums are
// 1e-16 to 1e-15 off), on every hardware thread.
std::vector<double> exact_rows(const GeneralGemm &g, const std::vector<double> &a,
                               const std::vector<double> &b) {
  const uint32_t rows = std::min(g.m, kExactRows);
  std::vector<double> out(size_t{rows} * g.n * g.batch);
  auto row_of = [&](uint32_t p, uint32_t r) {
    const size_t first_a = size_t{p} * g.m * g.k, first_b = size_t{p} * g.n * g.k;
    const uint32_t i = exact_row(g, r);
    std::vector<long double> sums(g.n, 0.0L);
    for (uint32_t l = 0; l < g.k; ++l) {
      const long double x =
          a[first_a + (g.transpose_a ? size_t{l} * g.m + i : size_t{i} * g.k + l)];
      for (uint32_t j = 0; j < g.n; ++j)
        sums[j] += x * b[first_b + (g.transpose_b ? size_t{j} * g.k + l : size_t{l} * g.n + j)];
    }
    std::copy(sums.begin(), sums.end(), out.begin() + ptrdiff_t((size_t{p} * rows + r) * g.n));
  };
  on_every_thread(rows * g.batch, [&](uint32_t task) { row_of(task / rows, task % rows); });
  return out;
}

// The fp64 product of the inputs rounded to TF32 as the tensor maps round them (to nearest; NVIDIA
// does not say how ties break), and verify.hpp's tolerance for sums on the tensor cores.
std::pair<std::vector<double>, double> tf32_reference(const GeneralGemm &g) {
  Inputs<float> in{Matrix<float>(g.m, g.k, g.m, g.k, Layout::row_major),
                   Matrix<float>(g.k, g.n, g.k, g.n, Layout::row_major)};
  const std::vector<double> op_a = row_major(*g.a, g.m, g.k, g.transpose_a, 0);
  const std::vector<double> op_b = row_major(*g.b, g.k, g.n, g.transpose_b, 0);
  for (uint32_t i = 0; i < g.m; ++i)
    for (uint32_t l = 0; l < g.k; ++l)
      in.first.at(i, l) = float(op_a[size_t{i} * g.k + l]);
  for (uint32_t l = 0; l < g.k; ++l)
    for (uint32_t j = 0; j < g.n; ++j)
      in.second.at(l, j) = float(op_b[size_t{l} * g.n + j]);
  Reference reference = reference_product(in, InputRounding::nearest);
  const double tolerance = tolerance_of(Arithmetic{InputRounding::nearest, true}, g.k, reference);
  return {std::move(reference.product), tolerance};
}

template <class T> std::vector<T> narrowed(const std::vector<double> &values) {
  return std::vector<T>(values.begin(), values.end());
}

template <class T>
LibraryRun run_typed(const Bridge &bridge, int32_t device, const GeneralGemm &g, int32_t precision,
                     const std::vector<T> &host_a, const std::vector<T> &host_b, uint32_t repeat) {
  const BridgeApi &cl = bridge.api();
  LibraryRun run;
  std::vector<T> host_c(size_t{g.m} * g.n * g.batch);
  std::optional<double> first;
  {
    const ProductOnDevice<T> product(cl, device, g, precision);
    first = product.write_inputs(host_a.data(), host_b.data()) ? product.first_call(host_c)
                                                               : std::nullopt;
    bool ok = first.has_value();
    if (ok)
      run.plan = bridge.info_string(product.context(), MQLCL_CL_GEMM_PLAN, "CL_GEMM_PLAN");
    for (uint32_t r = 0; ok && r < repeat; ++r) {
      ok = product.call();
      int64_t nanoseconds =
          ok ? cl.CLGetInfoInteger(product.context(), MQLCL_CL_GEMM_EXECUTION_TIME) : -1;
      ok = ok && nanoseconds > 0;
      if (ok)
        run.seconds.values.push_back(double(nanoseconds) * 1e-9);
    }
    if (ok)
      run.passes = bridge.info_string(product.context(), MQLCL_CL_GEMM_PASSES, "CL_GEMM_PASSES");
    if (!ok || !product.read(host_c.data())) {
      run.why_not = bridge.last_error_text();
      return run;
    }
  }
  // A new context's first call: the program cache now holds what the first call built.
  std::vector<T> again(host_c.size());
  const ProductOnDevice<T> warm(cl, device, g, precision);
  std::optional<double> warm_first =
      warm.write_inputs(host_a.data(), host_b.data()) ? warm.first_call(again) : std::nullopt;
  if (!warm_first || again != host_c) {
    run.why_not =
        warm_first ? "a new context's first call gave another C" : bridge.last_error_text();
    return run;
  }
  run.first_call_seconds = *first;
  run.warm_first_call_seconds = *warm_first;
  run.ok = true;
  run.product.assign(host_c.begin(), host_c.end());
  return run;
}

} // namespace

template <class T> std::vector<T> random_values(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<T> values(count);
  for (T &v : values)
    v = T(value(random));
  return values;
}

template std::vector<float> random_values<float>(size_t, uint32_t);
template std::vector<double> random_values<double>(size_t, uint32_t);

template <class T>
ProductOnDevice<T>::ProductOnDevice(const BridgeApi &cl, int32_t device, const GeneralGemm &g,
                                    int32_t precision)
    : cl_(cl), g_(g), precision_(precision),
      context_(cl.CLContextFree, cl.CLContextCreate(device)) {
  const size_t batch = g.batch;
  auto buffer = [&](size_t elements, uint32_t flags) {
    return Handle(cl.CLBufferFree,
                  cl.CLBufferCreate(context_.get(), uint32_t(elements * batch * sizeof(T)), flags));
  };
  a_ = buffer(size_t{g.m} * g.k, MQLCL_MEM_READ_ONLY);
  b_ = buffer(size_t{g.k} * g.n, MQLCL_MEM_READ_ONLY);
  c_ = buffer(size_t{g.m} * g.n, MQLCL_MEM_READ_WRITE);
}

template <class T> bool ProductOnDevice<T>::ok() const {
  return a_.get() >= 0 && b_.get() >= 0 && c_.get() >= 0;
}

template <class T> bool ProductOnDevice<T>::write_a(const T *a) const {
  return cl_.CLBufferWrite(a_.get(), a, 0, 0, uint32_t(size_t{g_.m} * g_.k * g_.batch),
                           sizeof(T)) != 0;
}

template <class T> bool ProductOnDevice<T>::write_b(const T *b) const {
  return cl_.CLBufferWrite(b_.get(), b, 0, 0, uint32_t(size_t{g_.k} * g_.n * g_.batch),
                           sizeof(T)) != 0;
}

template <class T> bool ProductOnDevice<T>::write_inputs(const T *a, const T *b) const {
  return ok() && write_a(a) && write_b(b);
}

template <class T> bool ProductOnDevice<T>::call() const {
  const GeneralGemm &g = g_;
  return cl_.CLGemm(a_.get(), b_.get(), c_.get(),
                    g.double_precision ? MQLCL_GEMM_DOUBLE : MQLCL_GEMM_FLOAT, precision_,
                    g.transpose_a, g.transpose_b, g.m, g.n, g.k, 1.0, 0.0, 0, 0, 0, 0, 0, 0,
                    g.batch, g.batch > 1 ? uint64_t{g.m} * g.k : 0,
                    g.batch > 1 ? uint64_t{g.n} * g.k : 0,
                    g.batch > 1 ? uint64_t{g.m} * g.n : 0) != 0;
}

template <class T> bool ProductOnDevice<T>::read(T *c) const {
  return cl_.CLBufferRead(c_.get(), c, 0, 0, uint32_t(size_t{g_.m} * g_.n * g_.batch), sizeof(T)) !=
         0;
}

template <class T> bool ProductOnDevice<T>::mat_mul(const T *a, const T *b, T *c) const {
  const GeneralGemm &g = g_;
  return cl_.CLMatMul(a_.get(), b_.get(), c_.get(),
                      g.double_precision ? MQLCL_GEMM_DOUBLE : MQLCL_GEMM_FLOAT, precision_, a, b,
                      c, g.m, g.n, g.k) != 0;
}

template <class T>
std::optional<double> ProductOnDevice<T>::first_call(std::vector<T> &host_c) const {
  auto start = Clock::now();
  if (!call() || !read(host_c.data()))
    return std::nullopt;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template class ProductOnDevice<float>;
template class ProductOnDevice<double>;

GemmProduct::GemmProduct(const GeneralGemm &shape, int32_t precision)
    : shape_(shape), precision_(precision),
      a_(random_values<double>(size_t{shape.m} * shape.k * shape.batch, 1)),
      b_(random_values<double>(size_t{shape.k} * shape.n * shape.batch, 2)) {
  if (!shape.double_precision) { // the inputs as the float product sees them
    for (double &v : a_)
      v = float(v);
    for (double &v : b_)
      v = float(v);
  }
  shape_.a = &a_;
  shape_.b = &b_;
  shape_.tf32 = precision == MQLCL_GEMM_TF32;
  reference_ = reference_product(shape_, a_, b_);
  if (shape_.double_precision && shape_.m > 0)
    exact_rows_ = exact_rows(shape_, a_, b_);
  if (shape_.tf32 && shape_.batch == 1)
    std::tie(tf32_reference_, tf32_tolerance_) = tf32_reference(shape_);
}

std::string gemm_case_label(const GeneralGemm &g, int32_t precision) {
  std::string label = fmt::format("{}x{}x{} {}{}", g.m, g.n, g.k, g.transpose_a ? "T" : "N",
                                  g.transpose_b ? "T" : "N");
  if (g.batch > 1)
    label += fmt::format(" batch {}", g.batch);
  label += g.double_precision ? " double" : " float";
  if (precision == MQLCL_GEMM_ACCURATE)
    label += " accurate";
  if (precision == MQLCL_GEMM_TF32)
    label += " tf32";
  return label;
}

std::string GemmProduct::label() const {
  return gemm_case_label(shape_, precision_);
}

Checked GemmProduct::check(const std::vector<double> &product) const {
  const GeneralGemm &g = shape_;
  double tolerance =
      g.double_precision ? tolerance_for<double>(g.k, 1, 1) : tolerance_for<float>(g.k, 1, 1);
  Checked result;
  if (product.size() != reference_.size())
    return result;
  double worst = 0, largest = 0;
  bool finite = true;
  for (size_t i = 0; i < product.size(); ++i) {
    finite = finite && std::isfinite(product[i]);
    worst = std::max(worst, std::fabs(product[i] - reference_[i]));
    largest = std::max(largest, std::fabs(reference_[i]));
  }
  // Every element is verified against the fp64 reference; a double product's reported error is
  // the one on the sampled rows against sums in long double.
  const double ratio = largest > 0 ? worst / largest : worst;
  const double reported = exact_rows_.empty() ? worst : worst_on_exact_rows(product);
  result.error_ratio = largest > 0 ? reported / largest : reported;
  if (precision_ == MQLCL_GEMM_TF32) {
    bool within = tf32_reference_.size() == product.size();
    for (size_t i = 0; within && i < product.size(); ++i)
      within = std::fabs(product[i] - tf32_reference_[i]) <= tf32_tolerance_;
    result.verified = finite && within;
  } else {
    result.verified = finite && worst <= tolerance &&
                      (precision_ != MQLCL_GEMM_ACCURATE || ratio <= kAccurateError);
  }
  return result;
}

double GemmProduct::worst_on_exact_rows(const std::vector<double> &product) const {
  const GeneralGemm &g = shape_;
  const uint32_t rows = std::min(g.m, kExactRows);
  double worst = 0;
  for (uint32_t p = 0; p < g.batch; ++p)
    for (uint32_t r = 0; r < rows; ++r)
      for (uint32_t j = 0; j < g.n; ++j) {
        const double exact = exact_rows_[(size_t{p} * rows + r) * g.n + j];
        const double value = product[(size_t{p} * g.m + exact_row(g, r)) * g.n + j];
        worst = std::max(worst, std::fabs(value - exact));
      }
  return worst;
}

LibraryRun GemmProduct::run_library(const Bridge &bridge, int32_t device, uint32_t repeat) const {
  if (shape_.double_precision)
    return run_typed(bridge, device, shape_, precision_, a_, b_, repeat);
  return run_typed(bridge, device, shape_, precision_, narrowed<float>(a_), narrowed<float>(b_),
                   repeat);
}

AnchorResult library_gemm(const Bridge &bridge, int32_t device, const GemmProblem &problem,
                          int32_t precision, uint32_t repeat) {
  const GeneralGemm shape{problem.m, problem.n, problem.k, 1, false, true};
  LibraryRun run = run_typed(bridge, device, shape, precision, *problem.a, *problem.b, repeat);
  AnchorResult result;
  result.name = "CLGemm";
  result.available = run.ok;
  result.note =
      run.ok ? fmt::format("the first call {:.3f} s, its build included; {:.3f} s on a new context",
                           run.first_call_seconds, run.warm_first_call_seconds)
             : run.why_not;
  result.seconds = run.seconds;
  result.timing = "CL_GEMM_EXECUTION_TIME";
  result.product.assign(run.product.begin(), run.product.end());
  return result;
}

} // namespace mqlcl::replay
