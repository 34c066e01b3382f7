// The double-precision reference product that every replay is checked against, element by element.
#pragma once

#include "matrices.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace mqlcl::replay {

struct Reference {
  uint32_t rows = 0, cols = 0;
  InputRounding rounding = InputRounding::none; // how the inputs were rounded before multiplying
  std::vector<double> product;                  // rows x cols, row-major
  double max_abs_first = 0;                     // max |a| over the first matrix (as multiplied)
  double max_abs_second = 0;                    // max |b| over the second matrix
  double max_abs_product = 0;                   // max |c|
  // Rounded to nearest: how far any element can move if every input that lies exactly halfway
  // between two TF32 values rounds the other way (a tie rule other than ties-away); else 0.
  double tie_spread = 0;
  double at(uint32_t r, uint32_t c) const { return product[size_t{r} * cols + c]; }
};

// x rounded to TF32 (10 mantissa bits) as `rounding` says (nearest: ties away from zero).
float tf32_rounded(float x, InputRounding rounding);

// C (m x n) = A (m x k) B (k x n), every matrix row-major and C overwritten: blocked for the
// caches, split over `threads` std::threads (0: all hardware threads). The harness's own fp64
// product, where OpenBLAS is not installed.
void multiply_blocked(const double *a, const double *b, double *c, uint32_t m, uint32_t n,
                      uint32_t k, unsigned threads = 0);

// The same product by OpenBLAS's cblas_dgemm on `threads` threads (0: all hardware threads) where
// the library loads (libopenblas.so.0: 89 GFLOPS against multiply_blocked's 12 at 2048^3 on 2
// cores; an 8192^3 reference is 1.1 TFLOP), else by multiply_blocked. What every fp64 reference
// of the harness multiplies with.
void multiply_fp64(const double *a, const double *b, double *c, uint32_t m, uint32_t n, uint32_t k,
                   unsigned threads = 0);

// What multiply_fp64 runs: "OpenBLAS dgemm (PATH)" or "the harness's blocked product".
std::string fp64_product_name();

// C = A B in double by multiply_fp64 on `threads` threads (0: all hardware threads), of the
// inputs rounded to TF32 as `rounding` says (float inputs only).
template <class T>
Reference reference_product(const Inputs<T> &in, InputRounding rounding = InputRounding::none,
                            unsigned threads = 0);

} // namespace mqlcl::replay
