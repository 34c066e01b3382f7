// How often a piece of text occurs in another, as the tests count passes in CL_GEMM_PASSES and
// calls in a kernel's source.
#pragma once

#include <cstddef>
#include <string>

namespace mqlcl_test {

// Occurrences of `part` in `text`, overlapping ones included.
inline size_t occurrences(const std::string &text, const std::string &part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

} // namespace mqlcl_test
