// Every element of a product against the double-precision reference.
#pragma once

#include "matrices.hpp"
#include "reference.hpp"

#include <cstdint>

namespace mqlcl::replay {

// The tolerance is kToleranceFactor * COLSROWS * eps * max|a| * max|b|, eps being the machine
// epsilon of the replay's type (FLT_EPSILON or DBL_EPSILON). Each of the COLSROWS additions of a
// dot product rounds once, by at most eps/2 of the running sum, so the error grows with COLSROWS;
// on random data it stays far below this bound. docs/replay.md ("Verification") has the figures
// behind the factor.
constexpr double kToleranceFactor = 4.0;

template <class T> double tolerance_for(uint32_t colsrows, double max_abs_a, double max_abs_b);
// The same bound for a kernel whose every product is rounded by `rounding` (TF32 inputs: 2^-10),
// with FP32 accumulation on top.
double tolerance_with(double rounding, uint32_t colsrows, double max_abs_a, double max_abs_b);

struct Verification {
  bool done = false;
  uint64_t checked = 0;    // elements compared (every element of every replay)
  uint64_t mismatches = 0; // elements off by more than the tolerance (or not finite)
  double tolerance = 0;
  double max_error = 0; // the largest |got - expected| seen
  uint32_t worst_row = 0, worst_col = 0;
  double worst_got = 0, worst_expected = 0;
  bool passed() const { return done && mismatches == 0; }
};

template <class T>
Verification verify(const Matrix<T> &got, const Reference &reference, double tolerance);

// Folds `other` into `into`: counts add up, the worst element wins.
void merge(Verification &into, const Verification &other);

} // namespace mqlcl::replay
