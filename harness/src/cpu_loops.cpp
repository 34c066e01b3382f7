// The article's single-core CPU baselines, kept as they are: they are what "CPUTime" measures.
// This file is compiled with -fno-tree-vectorize (harness/CMakeLists.txt), so GCC's -O2 does not
// turn the loops into SIMD code that MetaTrader's 2012 compiler never produced.
#include "matrices.hpp"

namespace mqlcl::replay {

namespace {

// Listing 1's mul(): r-cr-c on 2-D row-major arrays, the fastest order of the three loops.
template <class T>
void r_cr_c(const Matrix<T> &first, const Matrix<T> &second, Matrix<T> &third,
            const Progress &progress) {
  const T *a = first.data.data();
  const T *b = second.data.data();
  T *out = third.data.data();
  const size_t a_row = first.row_stride(), a_col = first.col_stride();
  const size_t b_row = second.row_stride(), b_col = second.col_stride();
  const size_t c_row = third.row_stride(), c_col = third.col_stride();
  for (uint32_t r = 0; r < first.rows; r++) {
    for (uint32_t cr = 0; cr < first.cols; cr++)
      for (uint32_t c = 0; c < second.cols; c++)
        out[r * c_row + c * c_col] += a[r * a_row + cr * a_col] * b[cr * b_row + c * b_col];
    if (progress)
      progress(r + 1, first.rows);
  }
}

// mulCPUOneCore(): c-r-cr over linear buffers, each indexed in its own layout (row-major second
// for matr_mul_1dim, column-major from the coalesced step on).
template <class T>
void c_r_cr(const Matrix<T> &first, const Matrix<T> &second, Matrix<T> &third,
            const Progress &progress) {
  const T *a = first.data.data();
  const T *b = second.data.data();
  T *out = third.data.data();
  const size_t a_row = first.row_stride(), a_col = first.col_stride();
  const size_t b_row = second.row_stride(), b_col = second.col_stride();
  const size_t c_row = third.row_stride(), c_col = third.col_stride();
  for (uint32_t c = 0; c < second.cols; c++) {
    for (uint32_t r = 0; r < first.rows; r++)
      for (uint32_t cr = 0; cr < first.cols; cr++)
        out[r * c_row + c * c_col] += a[r * a_row + cr * a_col] * b[cr * b_row + c * b_col];
    if (progress)
      progress(c + 1, second.cols);
  }
}

} // namespace

template <class T>
void cpu_loop(CpuLoop loop, const Inputs<T> &in, Matrix<T> &third, const Progress &progress) {
  if (loop == CpuLoop::r_cr_c)
    r_cr_c(in.first, in.second, third, progress);
  else
    c_r_cr(in.first, in.second, third, progress);
}

template void cpu_loop<float>(CpuLoop, const Inputs<float> &, Matrix<float> &, const Progress &);
template void cpu_loop<double>(CpuLoop, const Inputs<double> &, Matrix<double> &, const Progress &);

} // namespace mqlcl::replay
