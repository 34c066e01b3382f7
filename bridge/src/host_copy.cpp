#include "host_copy.hpp"

#include "os_library.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define MQLCL_STREAMING_STORES 1
#endif

namespace mqlcl {

void copy_streaming(void *target, const void *source, size_t bytes) noexcept {
#if defined(MQLCL_STREAMING_STORES)
  auto *to = static_cast<char *>(target);
  const auto *from = static_cast<const char *>(source);
  // Up to the first 16-byte boundary of the target, as memcpy does; then 64 bytes (a cache
  // line) per step; the rest, under 64 bytes, as memcpy does.
  size_t head = (16 - (reinterpret_cast<uintptr_t>(to) & 15)) & 15;
  head = head < bytes ? head : bytes;
  std::memcpy(to, from, head);
  to += head;
  from += head;
  bytes -= head;
  for (; bytes >= 64; bytes -= 64, to += 64, from += 64) {
    const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from));
    const __m128i second = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + 16));
    const __m128i third = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + 32));
    const __m128i fourth = _mm_loadu_si128(reinterpret_cast<const __m128i *>(from + 48));
    _mm_stream_si128(reinterpret_cast<__m128i *>(to), first);
    _mm_stream_si128(reinterpret_cast<__m128i *>(to + 16), second);
    _mm_stream_si128(reinterpret_cast<__m128i *>(to + 32), third);
    _mm_stream_si128(reinterpret_cast<__m128i *>(to + 48), fourth);
  }
  std::memcpy(to, from, bytes);
  _mm_sfence(); // non-temporal stores are weakly ordered: all of them visible before the DMA
#else
  std::memcpy(target, source, bytes);
#endif
}

StagingCopy staging_copy() noexcept {
  static const StagingCopy copy = [] {
    try {
      const std::string value = os::environment("MQLCL_STAGING_COPY");
      return value == "memcpy"   ? StagingCopy::cached
             : value == "stream" ? StagingCopy::streaming
                                 : StagingCopy::automatic;
    } catch (...) {
      return StagingCopy::automatic;
    }
  }();
  return copy;
}

void copy_for_staged_write(void *pinned, const void *source, size_t bytes) noexcept {
  if (staging_copy() == StagingCopy::streaming)
    copy_streaming(pinned, source, bytes);
  else
    std::memcpy(pinned, source, bytes);
}

void copy_for_staged_read(void *target, const void *pinned, size_t bytes) noexcept {
  if (staging_copy() == StagingCopy::cached)
    std::memcpy(target, pinned, bytes);
  else
    copy_streaming(target, pinned, bytes);
}

} // namespace mqlcl
