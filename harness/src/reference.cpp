#include "reference.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace mqlcl::replay {

namespace {

// Row-major double copy of a matrix's logical part, whatever its layout and padding.
template <class T> std::vector<double> dense(const Matrix<T> &m, double &max_abs) {
  std::vector<double> out(size_t{m.rows} * m.cols);
  max_abs = 0;
  for (uint32_t r = 0; r < m.rows; ++r)
    for (uint32_t c = 0; c < m.cols; ++c) {
      double value = static_cast<double>(m.at(r, c));
      out[size_t{r} * m.cols + c] = value;
      max_abs = std::max(max_abs, std::fabs(value));
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

template <class T> Reference reference_product(const Inputs<T> &in, unsigned threads) {
  Reference ref;
  ref.rows = in.first.rows;
  ref.cols = in.second.cols;
  const uint32_t k_size = in.first.cols;
  std::vector<double> a = dense(in.first, ref.max_abs_first);
  std::vector<double> b = dense(in.second, ref.max_abs_second);
  ref.product.assign(size_t{ref.rows} * ref.cols, 0.0);

  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  const uint32_t strips = (ref.rows + kRowStrip - 1) / kRowStrip;
  threads = std::min<unsigned>(threads, std::max<uint32_t>(strips, 1));
  std::atomic<uint32_t> next_strip{0};
  auto work = [&] {
    for (uint32_t strip = next_strip++; strip < strips; strip = next_strip++) {
      uint32_t begin = strip * kRowStrip;
      multiply_strip(a.data(), b.data(), ref.product.data(), begin,
                     std::min(ref.rows, begin + kRowStrip), k_size, ref.cols);
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
  return ref;
}

template Reference reference_product<float>(const Inputs<float> &, unsigned);
template Reference reference_product<double>(const Inputs<double> &, unsigned);

} // namespace mqlcl::replay
