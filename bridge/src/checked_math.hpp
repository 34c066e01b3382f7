// Arithmetic on the 64-bit counts, offsets and sizes callers pass, for the range checks that run
// before OpenCL sees a call: each says when its result would pass 2^64 - 1 instead of wrapping,
// so a count whose bytes overflow is refused, never cut to what fits.
#pragma once

#include <cstdint>
#include <limits>

namespace mqlcl {

// a * b into `product`; false, leaving it alone, when the product passes 2^64 - 1.
constexpr bool multiply_fits(uint64_t a, uint64_t b, uint64_t &product) noexcept {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
    return false;
  product = a * b;
  return true;
}

// True when `bytes` at element `first_element` of `element_size` bytes (not 0) past `data` end
// within the address space.
inline bool host_range_fits(const void *data, uint64_t first_element, uint64_t bytes,
                            uint64_t element_size) noexcept {
  const uint64_t room = std::numeric_limits<uintptr_t>::max() - reinterpret_cast<uintptr_t>(data);
  return bytes <= room && first_element <= (room - bytes) / element_size;
}

} // namespace mqlcl
