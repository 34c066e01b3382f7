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

// The tolerance of a float product made with `arithmetic`, checked against `reference`, the
// product of the inputs rounded as the arithmetic rounds them: what is left is the sums' error.
// FP32's tolerance (tolerance_for<float>, of the rounded inputs); plus, for sums on the tensor
// cores, one unit in the last place of 2 max|C| for each of the COLSROWS / 8 additions, which
// round toward zero and so all err the same way; plus, for a rounding to nearest with unknown
// ties, the reference's tie_spread. docs/replay.md ("Verification") has the figures behind it.
double tolerance_of(const Arithmetic &arithmetic, uint32_t colsrows, const Reference &reference);

struct Verification {
  bool done = false;
  uint64_t checked = 0;    // elements compared (every element of every replay)
  uint64_t mismatches = 0; // elements off by more than the tolerance (or not finite)
  double tolerance = 0;
  double max_error = 0; // the largest |got - expected| seen
  uint32_t worst_row = 0, worst_col = 0;
  double worst_got = 0, worst_expected = 0;
  // How the reference's inputs were rounded (those of a TF32 product: as the kernel rounds them).
  InputRounding rounding = InputRounding::none;
  // With rounded inputs, the largest |got - product of the inputs as they are|: the accuracy a
  // user sees (max_error is against the rounded inputs' product, the one checked); else -1.
  double max_error_unrounded = -1;
  bool passed() const { return done && mismatches == 0; }
  // The accuracy a user sees: max_error_unrounded when measured, else max_error.
  double user_error() const { return max_error_unrounded >= 0 ? max_error_unrounded : max_error; }
};

// Every element of `got` against `reference`; with `unrounded` (the product of the inputs as they
// are, when `reference` rounded them), the error against it too.
template <class T>
Verification verify(const Matrix<T> &got, const Reference &reference, double tolerance,
                    const Reference *unrounded = nullptr);

// Folds `other` into `into`: counts add up, the worst element wins.
void merge(Verification &into, const Verification &other);

} // namespace mqlcl::replay
