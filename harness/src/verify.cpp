#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mqlcl::replay {

template <class T> double tolerance_for(uint32_t colsrows, double max_abs_a, double max_abs_b) {
  return kToleranceFactor * colsrows * std::numeric_limits<T>::epsilon() * max_abs_a * max_abs_b;
}

double tolerance_of(const Arithmetic &arithmetic, uint32_t colsrows, const Reference &reference) {
  const double eps = std::numeric_limits<float>::epsilon();
  double tolerance =
      tolerance_for<float>(colsrows, reference.max_abs_first, reference.max_abs_second);
  if (arithmetic.tensor_core_sums)
    tolerance += (colsrows + 7) / 8 * eps * 2 * reference.max_abs_product;
  if (arithmetic.inputs == InputRounding::nearest)
    tolerance += reference.tie_spread;
  return tolerance;
}

namespace {

double error_of(double value, double expected) {
  double error = std::fabs(value - expected);
  return std::isfinite(error) ? error : std::numeric_limits<double>::infinity();
}

} // namespace

template <class T>
Verification verify(const Matrix<T> &got, const Reference &reference, double tolerance,
                    const Reference *unrounded) {
  Verification v;
  v.done = true;
  v.tolerance = tolerance;
  v.rounding = reference.rounding;
  v.max_error = -1;
  for (uint32_t r = 0; r < reference.rows; ++r)
    for (uint32_t c = 0; c < reference.cols; ++c) {
      double value = static_cast<double>(got.at(r, c));
      double expected = reference.at(r, c);
      double error = error_of(value, expected);
      if (unrounded != nullptr)
        v.max_error_unrounded =
            std::max(v.max_error_unrounded, error_of(value, unrounded->at(r, c)));
      if (!(error <= tolerance))
        ++v.mismatches;
      if (error > v.max_error) {
        v.max_error = error;
        v.worst_row = r;
        v.worst_col = c;
        v.worst_got = value;
        v.worst_expected = expected;
      }
    }
  v.checked = uint64_t{reference.rows} * reference.cols;
  if (v.max_error < 0)
    v.max_error = 0;
  return v;
}

void merge(Verification &into, const Verification &other) {
  if (!other.done)
    return;
  if (!into.done || other.max_error > into.max_error) {
    into.max_error = other.max_error;
    into.worst_row = other.worst_row;
    into.worst_col = other.worst_col;
    into.worst_got = other.worst_got;
    into.worst_expected = other.worst_expected;
  }
  into.max_error_unrounded = std::max(into.max_error_unrounded, other.max_error_unrounded);
  into.rounding = other.rounding;
  into.checked += other.checked;
  into.mismatches += other.mismatches;
  into.tolerance = other.tolerance;
  into.done = true;
}

template double tolerance_for<float>(uint32_t, double, double);
template double tolerance_for<double>(uint32_t, double, double);
template Verification verify<float>(const Matrix<float> &, const Reference &, double,
                                    const Reference *);
template Verification verify<double>(const Matrix<double> &, const Reference &, double,
                                     const Reference *);

} // namespace mqlcl::replay
