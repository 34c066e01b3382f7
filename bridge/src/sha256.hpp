// SHA-256 (FIPS 180-4), for the program cache's entry names and checksums (program_cache.cpp):
// a few lines of our own rather than a crypto library, so the DLL gains no runtime dependency.
// Tested against the standard's vectors (tests/bridge/test_core_units.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace mqlcl {

using Sha256Digest = std::array<uint8_t, 32>;

// Feed bytes in any number of pieces, then take the digest once.
class Sha256 {
public:
  Sha256();
  Sha256 &update(std::string_view bytes);
  Sha256Digest digest();

private:
  void compress(const uint8_t *block);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> block_{};
  size_t block_size_ = 0;
  uint64_t total_bytes_ = 0;
};

Sha256Digest sha256(std::string_view bytes);

// The digest as 64 lowercase hex digits.
std::string to_hex(const Sha256Digest &digest);

} // namespace mqlcl
