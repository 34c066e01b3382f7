// Host matrices in a step's layouts, filled like the article's genMatrices(), and the article's
// single-core CPU loops over them.
#pragma once

#include "catalogue.hpp"

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace mqlcl::replay {

// A rows x cols matrix stored in a stored_rows x stored_cols buffer (the padding is zero).
template <class T> struct Matrix {
  uint32_t rows = 0, cols = 0;
  uint32_t stored_rows = 0, stored_cols = 0;
  Layout layout = Layout::row_major;
  std::vector<T> data;

  Matrix() = default;
  Matrix(uint32_t rows_, uint32_t cols_, uint32_t stored_rows_, uint32_t stored_cols_,
         Layout layout_)
      : rows(rows_), cols(cols_), stored_rows(stored_rows_), stored_cols(stored_cols_),
        layout(layout_), data(size_t{stored_rows_} * stored_cols_, T(0)) {}

  // Element strides of a row step and of a column step (the article's Fig. 13 as arithmetic).
  size_t row_stride() const { return layout == Layout::row_major ? stored_cols : 1; }
  size_t col_stride() const { return layout == Layout::row_major ? 1 : stored_rows; }
  size_t index(uint32_t r, uint32_t c) const { return r * row_stride() + c * col_stride(); }
  T &at(uint32_t r, uint32_t c) { return data[index(r, c)]; }
  const T &at(uint32_t r, uint32_t c) const { return data[index(r, c)]; }
  uint32_t bytes() const { return static_cast<uint32_t>(data.size() * sizeof(T)); }
};

// MQL5's MathRand() (15 bits) from a seeded std::mt19937, whose output the C++ standard fixes, so
// a seed gives the same matrices with every compiler. genVal() and genRnd() are the article's.
class ArticleRandom {
public:
  explicit ArticleRandom(uint64_t seed) : engine_(static_cast<std::mt19937::result_type>(seed)) {}
  int math_rand() { return static_cast<int>(engine_() & 0x7FFF); }
  // Uniform in [-0.5, 0.5], as genVal().
  double gen_val() { return (math_rand() - 16383.5) / 32767.; }
  // Uniform in [0, max); the article's (int)(MathRand() / 32767. * max) can return max itself.
  uint32_t gen_rnd(uint32_t max) {
    return static_cast<uint32_t>(static_cast<uint64_t>(math_rand()) * max / 32768);
  }

private:
  std::mt19937 engine_;
};

template <class T> struct Inputs {
  Matrix<T> first;  // ROWS1 x COLSROWS
  Matrix<T> second; // COLSROWS x COLS2
};

// genMatrices(): first, then second, each row by row, whatever the layout, so a seed gives the
// same matrices to every step.
template <class T>
Inputs<T> generate_inputs(const Sizes &sizes, const Sizes &padded, Layout layout_first,
                          Layout layout_second, ArticleRandom &random) {
  Inputs<T> in{
      Matrix<T>(sizes.rows1, sizes.colsrows, padded.rows1, padded.colsrows, layout_first),
      Matrix<T>(sizes.colsrows, sizes.cols2, padded.colsrows, padded.cols2, layout_second)};
  for (uint32_t r = 0; r < sizes.rows1; ++r)
    for (uint32_t c = 0; c < sizes.colsrows; ++c)
      in.first.at(r, c) = static_cast<T>(random.gen_val());
  for (uint32_t r = 0; r < sizes.colsrows; ++r)
    for (uint32_t c = 0; c < sizes.cols2; ++c)
      in.second.at(r, c) = static_cast<T>(random.gen_val());
  return in;
}

// Called once per outer iteration of a CPU loop with (done, total).
using Progress = std::function<void(uint32_t, uint32_t)>;

// The article's single-core loops, compiled without vectorisation (cpu_loops.cpp). `third` must
// be zero; it receives the product.
template <class T>
void cpu_loop(CpuLoop loop, const Inputs<T> &in, Matrix<T> &third, const Progress &progress);

} // namespace mqlcl::replay
