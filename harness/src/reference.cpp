#include "reference.hpp"

#include "anchors.hpp"

#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>

namespace mqlcl::replay {

namespace {

uint32_t bits_of(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

float float_of(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// Whether x lies exactly halfway between two TF32 values, and then their distance.
bool is_tf32_tie(float x) {
  return (bits_of(x) & 0x1fffu) == 0x1000u;
}
double tf32_step(float x) {
  return std::ldexp(1.0, std::ilogb(x) - 10);
}

template <class T> double rounded(T value, InputRounding rounding) {
  if constexpr (std::is_same_v<T, float>)
    return static_cast<double>(tf32_rounded(value, rounding));
  if (rounding != InputRounding::none)
    throw std::logic_error("TF32 rounding of double inputs");
  return static_cast<double>(value);
}

// Row-major double copy of a matrix's logical part, whatever its layout and padding, each value
// rounded as `rounding` says. `ties` (when given) receives, for each line of K (a row of the first
// matrix, `by_rows`, or a column of the second), the distance its ties may move: sum of steps.
template <class T>
std::vector<double> dense(const Matrix<T> &m, InputRounding rounding, double &max_abs,
                          std::vector<double> *ties = nullptr, bool by_rows = true) {
  std::vector<double> out(size_t{m.rows} * m.cols);
  max_abs = 0;
  if (ties != nullptr)
    ties->assign(by_rows ? m.rows : m.cols, 0.0);
  for (uint32_t r = 0; r < m.rows; ++r)
    for (uint32_t c = 0; c < m.cols; ++c) {
      const T raw = m.at(r, c);
      double value = rounded(raw, rounding);
      out[size_t{r} * m.cols + c] = value;
      max_abs = std::max(max_abs, std::fabs(value));
      if constexpr (std::is_same_v<T, float>)
        if (ties != nullptr && is_tf32_tie(raw))
          (*ties)[by_rows ? r : c] += tf32_step(raw);
    }
  return out;
}

// Blocks: a strip of rows shares each KB x JB block of B (256 KiB of doubles, L2-sized); the
// innermost loop is an axpy over JB contiguous doubles, which the compiler vectorises.
constexpr uint32_t kRowStrip = 32;
constexpr uint32_t kBlockK = 128;
constexpr uint32_t kBlockJ = 256;

void multiply_strip(const double *a, const double *b, double *c, uint32_t row_begin,
                    uint32_t row_end, uint32_t k_size, uint32_t n_size) {
  for (uint32_t j0 = 0; j0 < n_size; j0 += kBlockJ) {
    const uint32_t j1 = std::min(n_size, j0 + kBlockJ);
    for (uint32_t k0 = 0; k0 < k_size; k0 += kBlockK) {
      const uint32_t k1 = std::min(k_size, k0 + kBlockK);
      for (uint32_t r = row_begin; r < row_end; ++r) {
        double *c_row = c + size_t{r} * n_size;
        for (uint32_t k = k0; k < k1; ++k) {
          const double a_rk = a[size_t{r} * k_size + k];
          const double *b_row = b + size_t{k} * n_size;
          for (uint32_t j = j0; j < j1; ++j)
            c_row[j] += a_rk * b_row[j];
        }
      }
    }
  }
}

} // namespace

float tf32_rounded(float x, InputRounding rounding) {
  switch (rounding) {
  case InputRounding::none:
    return x;
  case InputRounding::nearest_away: // add half the weight of the 13 dropped bits, then drop them
  case InputRounding::nearest:
    return float_of((bits_of(x) + 0x1000u) & 0xffffe000u);
  case InputRounding::truncated:
    return float_of(bits_of(x) & 0xffffe000u);
  }
  return x;
}

void multiply_blocked(const double *a, const double *b, double *c, uint32_t m, uint32_t n,
                      uint32_t k, unsigned threads) {
  std::fill(c, c + size_t{m} * n, 0.0);
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  const uint32_t strips = (m + kRowStrip - 1) / kRowStrip;
  threads = std::min<unsigned>(threads, std::max<uint32_t>(strips, 1));
  std::atomic<uint32_t> next_strip{0};
  auto work = [&] {
    for (uint32_t strip = next_strip++; strip < strips; strip = next_strip++) {
      uint32_t begin = strip * kRowStrip;
      multiply_strip(a, b, c, begin, std::min(m, begin + kRowStrip), k, n);
    }
  };
  std::vector<std::thread> pool;
  try {
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back(work);
  } catch (...) { // no more threads: the ones started and this one finish the work
  }
  work();
  for (std::thread &thread : pool)
    thread.join();
}

namespace {

// OpenBLAS's cblas_dgemm, loaded once per process where the library is installed.
struct OpenBlasDgemm {
  using Gemm = void(int, int, int, int, int, int, double, const double *, int, const double *, int,
                    double, double *, int);
  std::optional<boost::dll::shared_library> library;
  Gemm *gemm = nullptr;
  void (*set_threads)(int) = nullptr;
};

const OpenBlasDgemm &openblas_dgemm() {
  static const OpenBlasDgemm loaded = [] {
    OpenBlasDgemm found;
    std::string tried;
    found.library = load_openblas(tried);
    if (found.library && found.library->has("cblas_dgemm")) {
      found.gemm = &found.library->get<OpenBlasDgemm::Gemm>("cblas_dgemm");
      if (found.library->has("openblas_set_num_threads"))
        found.set_threads = &found.library->get<void(int)>("openblas_set_num_threads");
    }
    return found;
  }();
  return loaded;
}

// OpenBLAS's thread count belongs to the process: one product at a time sets it and runs.
std::mutex dgemm_mutex;

} // namespace

void multiply_fp64(const double *a, const double *b, double *c, uint32_t m, uint32_t n, uint32_t k,
                   unsigned threads) {
  constexpr int kRowMajor = 101, kNoTrans = 111;
  const OpenBlasDgemm &blas = openblas_dgemm();
  const bool in_int = std::max({m, n, k}) <= uint32_t{INT_MAX};
  if (blas.gemm == nullptr || m == 0 || n == 0 || k == 0 || !in_int) {
    multiply_blocked(a, b, c, m, n, k, threads);
    return;
  }
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  std::lock_guard<std::mutex> lock(dgemm_mutex);
  if (blas.set_threads != nullptr)
    blas.set_threads(static_cast<int>(std::min<unsigned>(threads, INT_MAX)));
  blas.gemm(kRowMajor, kNoTrans, kNoTrans, static_cast<int>(m), static_cast<int>(n),
            static_cast<int>(k), 1.0, a, static_cast<int>(k), b, static_cast<int>(n), 0.0, c,
            static_cast<int>(n));
}

std::string fp64_product_name() {
  const OpenBlasDgemm &blas = openblas_dgemm();
  if (blas.gemm == nullptr)
    return "the harness's blocked product";
  return "OpenBLAS dgemm (" + blas.library->location().string() + ")";
}

template <class T>
Reference reference_product(const Inputs<T> &in, InputRounding rounding, unsigned threads) {
  Reference ref;
  ref.rows = in.first.rows;
  ref.cols = in.second.cols;
  ref.rounding = rounding;
  const uint32_t k_size = in.first.cols;
  const bool to_nearest =
      rounding == InputRounding::nearest || rounding == InputRounding::nearest_away;
  std::vector<double> ties_a, ties_b;
  std::vector<double> a =
      dense(in.first, rounding, ref.max_abs_first, to_nearest ? &ties_a : nullptr, true);
  std::vector<double> b =
      dense(in.second, rounding, ref.max_abs_second, to_nearest ? &ties_b : nullptr, false);
  if (to_nearest) {
    // A tie rounded the other way moves its product by a step times the other factor, which is
    // at most the other matrix's largest value, rounded up by a step of its own.
    const double widest = 1 + std::ldexp(1.0, -10);
    const double row = ties_a.empty() ? 0 : *std::max_element(ties_a.begin(), ties_a.end());
    const double col = ties_b.empty() ? 0 : *std::max_element(ties_b.begin(), ties_b.end());
    ref.tie_spread = (row * ref.max_abs_second + col * ref.max_abs_first) * widest;
  }
  ref.product.resize(size_t{ref.rows} * ref.cols);
  multiply_fp64(a.data(), b.data(), ref.product.data(), ref.rows, ref.cols, k_size, threads);
  for (double value : ref.product)
    ref.max_abs_product = std::max(ref.max_abs_product, std::fabs(value));
  return ref;
}

template Reference reference_product<float>(const Inputs<float> &, InputRounding, unsigned);
template Reference reference_product<double>(const Inputs<double> &, InputRounding, unsigned);

} // namespace mqlcl::replay
