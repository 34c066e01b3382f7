// The 64-bit buffer calls (CLBufferCreate64, CLBufferWrite64, CLBufferRead64): their refusals,
// round trips at any offset, and a buffer past what the 32-bit calls can name.
//
// The last case makes a buffer of MQLCL_TEST_BIG_BUFFER_BYTES (default: 4 GiB, none under a
// sanitizer), where the device allows that much and has twice as much memory; else it says why it
// does not run. With
// MQLCL_TEST_BIG_BUFFER_FULL=1 the whole buffer is written, changed by a kernel and read back;
// otherwise a window at each end and one across the 4 GiB mark (when there is one).
// tools/gpu-big-buffer.sh runs it on a GPU with 5 GiB.
#define BOOST_TEST_MODULE bridge_big_buffers
#include "opencl_device.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

using namespace mqlcl_test;

namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

// value[i] += add for i in [first, first + n): indices past 2^32 bytes reach the far end.
constexpr const char16_t *kAddAt = u"__kernel void add_at(__global uint *value, ulong first, "
                                   u"uint add) { value[first + get_global_id(0)] += add; }";

// A pattern that tells every 4-byte word of a buffer from every other one of its first 16 GiB.
uint32_t pattern(uint64_t word) {
  return static_cast<uint32_t>(word * 2654435761u) ^ static_cast<uint32_t>(word >> 32);
}

uint64_t environment_bytes(const char *name, uint64_t fallback) {
  const char *value = std::getenv(name);
  return value != nullptr && *value != 0 ? std::strtoull(value, nullptr, 0) : fallback;
}

struct Window {
  uint64_t first_word;
  uint64_t words;
};

// The windows a partial check covers: both ends and, past 4 GiB, the 4 GiB mark.
std::vector<Window> windows_of(uint64_t words, bool full) {
  if (full)
    return {{0, words}};
  const uint64_t window = std::min<uint64_t>(words, uint64_t{1} << 20); // 4 MiB
  std::vector<Window> result{{0, window}, {words - window, window}};
  const uint64_t mark = (uint64_t{4} * kGiB) / 4;
  if (words > mark + window / 2)
    result.push_back({mark - window / 2, window});
  return result;
}

} // namespace

BOOST_AUTO_TEST_SUITE(big_buffers, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(create64_refusals) {
  Context context = make_context();
  const uint64_t max_alloc =
      static_cast<uint64_t>(CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  MQLCL_CHECK_FAILS(CLBufferCreate64(context, 0, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  MQLCL_CHECK_FAILS(CLBufferCreate64(context, max_alloc + 1, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -61); // CL_INVALID_BUFFER_SIZE
  MQLCL_CHECK_FAILS(CLBufferCreate64(context, UINT64_MAX, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  MQLCL_CHECK_FAILS(CLBufferCreate64(context, 16, 8), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLBufferCreate64(context, 16, MQLCL_MEM_READ_ONLY | MQLCL_MEM_WRITE_ONLY),
                    MQLCL_INVALID_HANDLE, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLBufferCreate64(-1, 16, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  Buffer buffer(CLBufferCreate64(context, 48, MQLCL_MEM_READ_ONLY));
  BOOST_TEST(buffer.get() != MQLCL_INVALID_HANDLE);
  BOOST_TEST(CLGetInfoInteger(buffer, MQLCL_CL_BUFFER_SIZE) == 48);
  BOOST_TEST(CLGetInfoInteger(buffer, MQLCL_CL_BUFFER_FLAGS) == MQLCL_MEM_READ_ONLY);
}

BOOST_AUTO_TEST_CASE(write64_and_read64_refusals) {
  Context context = make_context();
  Buffer buffer(CLBufferCreate64(context, 256, 0));
  BOOST_TEST_REQUIRE(buffer.get() != MQLCL_INVALID_HANDLE);
  std::vector<uint8_t> data(1024, 0xAB);
  for (auto transfer : {+[](int32_t b, uint8_t *d, uint64_t bo, uint64_t doff, uint64_t n,
                            uint32_t es) { return CLBufferWrite64(b, d, bo, doff, n, es); },
                        +[](int32_t b, uint8_t *d, uint64_t bo, uint64_t doff, uint64_t n,
                            uint32_t es) { return CLBufferRead64(b, d, bo, doff, n, es); }}) {
    const uint64_t none = 0;
    MQLCL_CHECK_FAILS(transfer(buffer, nullptr, 0, 0, 1, 4), none, MQLCL_ERR_INVALID_PARAMETER);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, 0, 0, 4), none, MQLCL_ERR_ZEROSIZE_ARRAY);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, 0, 4, 0), none, MQLCL_ERR_ZEROSIZE_ARRAY);
    MQLCL_CHECK_FAILS(transfer(context, data.data(), 0, 0, 1, 4), none,
                      MQLCL_ERR_OPENCL_INVALID_HANDLE);
    // 2^32 would be offset 0 if it were cut to 32 bits.
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), uint64_t{1} << 32, 0, 1, 1), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), UINT64_MAX, 0, 1, 1), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -30); // CL_INVALID_VALUE
    // Byte counts that wrap in 64 bits, or in 32 (2^32 + 1 elements would be 1 byte).
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, 0, (uint64_t{1} << 62) + 1, 4), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, 0, UINT64_MAX, UINT32_MAX), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, 0, (uint64_t{1} << 32) + 1, 1), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    // Bytes of 2^64 - 1, (2^32 + 1) x (2^32 - 1): past the buffer. Bytes of 2^64, 2^48 x 2^16,
    // and of 2^64 + 2^16, (2^32 + 2^16) x (2^32 - 2^16 + 1): past 64 bits, refused whatever the
    // buffer (test_big_counts.cpp has them on a buffer past 4 GiB).
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, 0, (uint64_t{1} << 32) + 1, UINT32_MAX),
                      none, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, 0, uint64_t{1} << 48, 1u << 16), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    BOOST_TEST(last_error_text().find("more than 2^64 - 1 bytes") != std::string::npos);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, 0, (uint64_t{1} << 32) + 65536, 4294901761u),
                      none, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    BOOST_TEST(last_error_text().find("more than 2^64 - 1 bytes") != std::string::npos);
    MQLCL_CHECK_FAILS(transfer(context, data.data(), 0, 0, uint64_t{1} << 48, 1u << 16), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE); // before the handle is looked at
    // buffer_offset + bytes past the end, and past 2^64.
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 255, 0, 2, 1), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 255, 0, UINT64_MAX - 254, 1), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -30);
    // A host range past the end of the address space, refused before the pointer is used.
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, UINT64_MAX, 1, 1), none,
                      MQLCL_ERR_INVALID_PARAMETER);
    MQLCL_CHECK_FAILS(transfer(buffer, data.data(), 0, UINT64_MAX / 8, 1, 8), none,
                      MQLCL_ERR_INVALID_PARAMETER);
    BOOST_TEST(transfer(buffer, data.data(), 252, 0, 1, 4) == 1u); // the last element fits
  }
}

BOOST_AUTO_TEST_CASE(round_trips_agree_with_the_32_bit_calls) {
  Context context = make_context();
  Buffer buffer(CLBufferCreate64(context, 4096, 0));
  BOOST_TEST_REQUIRE(buffer.get() != MQLCL_INVALID_HANDLE);
  std::vector<uint32_t> source(2048);
  for (size_t i = 0; i < source.size(); ++i)
    source[i] = pattern(i);
  // 64-bit write from host element 1000 to byte 100; 32-bit read of the same bytes.
  BOOST_TEST(CLBufferWrite64(buffer, source.data(), 100, 1000, 900, 4) == 900u);
  std::vector<uint32_t> back(900);
  BOOST_TEST(CLBufferRead(buffer, back.data(), 100, 0, 900, 4) == 900u);
  BOOST_TEST(std::equal(back.begin(), back.end(), source.begin() + 1000));
  // 32-bit write, 64-bit read into host element 7.
  BOOST_TEST(CLBufferWrite(buffer, source.data(), 0, 0, 16, 4) == 16u);
  std::vector<uint32_t> more(32, 0);
  BOOST_TEST(CLBufferRead64(buffer, more.data(), 0, 7, 16, 4) == 16u);
  BOOST_TEST(std::equal(more.begin() + 7, more.begin() + 23, source.begin()));
  BOOST_TEST(more[6] == 0u);
  BOOST_TEST(more[23] == 0u);
}

BOOST_AUTO_TEST_CASE(a_buffer_past_the_32_bit_calls) {
  Context context = make_context();
  const uint64_t max_alloc =
      static_cast<uint64_t>(CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  const uint64_t memory =
      static_cast<uint64_t>(CLGetInfoInteger(context, MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE));
  // Under a sanitizer the 4 GiB default is left out (the other cases check the same arithmetic);
  // a size given in the environment still runs.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr uint64_t kDefault = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  constexpr uint64_t kDefault = 0;
#else
  constexpr uint64_t kDefault = 4 * kGiB;
#endif
#else
  constexpr uint64_t kDefault = 4 * kGiB;
#endif
  const uint64_t bytes = environment_bytes("MQLCL_TEST_BIG_BUFFER_BYTES", kDefault) & ~uint64_t{3};
  if (bytes == 0) {
    BOOST_TEST_MESSAGE("not run under a sanitizer without MQLCL_TEST_BIG_BUFFER_BYTES");
    return;
  }
  const bool full = environment_bytes("MQLCL_TEST_BIG_BUFFER_FULL", 0) != 0;
  if (bytes > max_alloc || bytes * 2 > memory) {
    BOOST_TEST_MESSAGE("not run: " << bytes << " bytes need CL_DEVICE_MAX_MEM_ALLOC_SIZE "
                                   << max_alloc << " and twice that in CL_DEVICE_GLOBAL_MEM_SIZE "
                                   << memory);
    return;
  }
  Buffer buffer(CLBufferCreate64(context, bytes, 0));
  BOOST_TEST_REQUIRE(buffer.get() != MQLCL_INVALID_HANDLE,
                     "CLBufferCreate64(" << bytes << "): " << last_error);
  BOOST_TEST(static_cast<uint64_t>(CLGetInfoInteger(buffer, MQLCL_CL_BUFFER_SIZE)) == bytes);
  Program program = make_program(context, kAddAt);
  Kernel add_at = make_kernel(program, u"add_at");
  const uint32_t add = 7;
  for (const Window &window : windows_of(bytes / 4, full)) {
    BOOST_TEST_MESSAGE("words " << window.first_word << " to " << window.first_word + window.words);
    std::vector<uint32_t> host(window.words);
    for (uint64_t i = 0; i < window.words; ++i)
      host[i] = pattern(window.first_word + i);
    BOOST_TEST_REQUIRE(CLBufferWrite64(buffer, host.data(), window.first_word * 4, 0, window.words,
                                       4) == window.words,
                       last_error);
    const uint64_t first = window.first_word;
    BOOST_TEST_REQUIRE(CLSetKernelArgMem(add_at, 0, buffer) == 1);
    BOOST_TEST_REQUIRE(CLSetKernelArg(add_at, 1, &first, sizeof(first)) == 1);
    BOOST_TEST_REQUIRE(CLSetKernelArg(add_at, 2, &add, sizeof(add)) == 1);
    const uint32_t global[1] = {static_cast<uint32_t>(window.words)};
    BOOST_TEST_REQUIRE(CLExecute(add_at, 1, nullptr, global, nullptr) == 1, last_error);
    std::fill(host.begin(), host.end(), 0u);
    BOOST_TEST_REQUIRE(CLBufferRead64(buffer, host.data(), window.first_word * 4, 0, window.words,
                                      4) == window.words,
                       last_error);
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < window.words; ++i)
      wrong += host[i] != pattern(window.first_word + i) + add;
    BOOST_TEST(wrong == 0u, wrong << " of " << window.words << " words differ");
  }
  // The 32-bit read still reaches the first 4 GiB of the same buffer.
  uint32_t word = 0;
  BOOST_TEST(CLBufferRead(buffer, &word, 4, 0, 1, 4) == 1u);
  BOOST_TEST(word == pattern(1) + add);
}

BOOST_AUTO_TEST_SUITE_END()
