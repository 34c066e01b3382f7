// Bytes from a seeded generator, as the staging tests write and read back.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace mqlcl_test {

inline std::vector<uint8_t> random_bytes(size_t count, uint32_t seed) {
  std::vector<uint8_t> bytes(count);
  std::mt19937 random(seed);
  for (size_t i = 0; i < count; i += 4) {
    auto value = static_cast<uint32_t>(random());
    std::memcpy(bytes.data() + i, &value, std::min<size_t>(4, count - i));
  }
  return bytes;
}

} // namespace mqlcl_test
