// The double-precision reference product that every replay is checked against, element by element.
#pragma once

#include "matrices.hpp"

#include <cstdint>
#include <vector>

namespace mqlcl::replay {

struct Reference {
  uint32_t rows = 0, cols = 0;
  std::vector<double> product; // rows x cols, row-major
  double max_abs_first = 0;    // max |a| over the first matrix
  double max_abs_second = 0;   // max |b| over the second matrix
  double at(uint32_t r, uint32_t c) const { return product[size_t{r} * cols + c]; }
};

// C = A B in double, blocked for the caches and split over `threads` std::threads (0: all
// hardware threads). 2000^3 takes about a second on two cores.
template <class T> Reference reference_product(const Inputs<T> &in, unsigned threads = 0);

} // namespace mqlcl::replay
