// 64-bit counts whose bytes pass 2^64 - 1, on a buffer past 4 GiB, where a count alone is not too
// long for the buffer: CLBufferWrite64 and CLBufferRead64 must refuse them (5110), never move the
// bytes left once the product is cut to 64 bits.
//
// No such buffer is needed, nor the memory for one: a dispatch table over the real driver plays a
// device that allocates 64 GiB (CL_DEVICE_MAX_MEM_ALLOC_SIZE) and backs each buffer larger than
// 1 MiB with a real one of 1 MiB, whose fill it trims to match. Every refusal comes before any
// transfer, so nothing reaches past the backing; a count that slipped through would read or write
// the backing's first bytes (the test checks they are unchanged). Linked against the core's
// objects for the dispatch seam (cl_api.hpp).
#define BOOST_TEST_MODULE bridge_big_counts
#include "cl_api.hpp"
#include "devices.hpp"
#include "opencl_device.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

using namespace mqlcl_test;

namespace {

namespace fake {

constexpr cl_ulong kClaimed = cl_ulong{64} << 30; // what the device says it allocates
constexpr size_t kBacking = size_t{1} << 20;      // what a larger buffer really gets

mqlcl::ClApi real;
std::set<cl_mem> stand_ins; // the buffers backed by kBacking bytes

cl_int CL_API_CALL device_info(cl_device_id device, cl_device_info what, size_t size, void *value,
                               size_t *size_ret) {
  if (what != CL_DEVICE_MAX_MEM_ALLOC_SIZE && what != CL_DEVICE_GLOBAL_MEM_SIZE)
    return real.clGetDeviceInfo(device, what, size, value, size_ret);
  if (size_ret != nullptr)
    *size_ret = sizeof(kClaimed);
  if (value != nullptr) {
    if (size < sizeof(kClaimed))
      return CL_INVALID_VALUE;
    std::memcpy(value, &kClaimed, sizeof(kClaimed));
  }
  return CL_SUCCESS;
}

cl_mem CL_API_CALL create_buffer(cl_context context, cl_mem_flags flags, size_t size, void *host,
                                 cl_int *status) {
  if (size <= kBacking)
    return real.clCreateBuffer(context, flags, size, host, status);
  cl_mem memory = real.clCreateBuffer(context, flags, kBacking, host, status);
  if (memory != nullptr)
    stand_ins.insert(memory);
  return memory;
}

cl_int CL_API_CALL fill_buffer(cl_command_queue queue, cl_mem memory, const void *pattern,
                               size_t pattern_size, size_t offset, size_t size, cl_uint waits,
                               const cl_event *wait_list, cl_event *event) {
  if (stand_ins.count(memory) != 0 && offset == 0)
    size = std::min(size, kBacking); // the bridge's zero-fill of the whole buffer
  return real.clEnqueueFillBuffer(queue, memory, pattern, pattern_size, offset, size, waits,
                                  wait_list, event);
}

cl_int CL_API_CALL release_memory(cl_mem memory) {
  cl_int status = real.clReleaseMemObject(memory);
  if (status == CL_SUCCESS)
    stand_ins.erase(memory);
  return status;
}

} // namespace fake

// Installed for one test's life, with the device list enumerated again through it; create every
// bridge object after it and free them before.
struct LargeDevice {
  mqlcl::ClApi table;
  LargeDevice() {
    fake::real = mqlcl::cl_api();
    table = fake::real;
    table.clGetDeviceInfo = fake::device_info;
    table.clCreateBuffer = fake::create_buffer;
    table.clEnqueueFillBuffer = fake::fill_buffer;
    table.clReleaseMemObject = fake::release_memory;
    mqlcl::set_cl_api_for_testing(&table);
    mqlcl::reset_device_list_for_testing();
  }
  ~LargeDevice() {
    mqlcl::set_cl_api_for_testing(nullptr);
    mqlcl::reset_device_list_for_testing();
  }
};

constexpr uint64_t k2To32 = uint64_t{1} << 32;

using Transfer = uint64_t (*)(int32_t, uint8_t *, uint64_t, uint64_t, uint64_t, uint32_t);

uint64_t write64(int32_t buffer, uint8_t *data, uint64_t buffer_offset, uint64_t data_offset,
                 uint64_t data_count, uint32_t element_size) {
  return CLBufferWrite64(buffer, data, buffer_offset, data_offset, data_count, element_size);
}

uint64_t read64(int32_t buffer, uint8_t *data, uint64_t buffer_offset, uint64_t data_offset,
                uint64_t data_count, uint32_t element_size) {
  return CLBufferRead64(buffer, data, buffer_offset, data_offset, data_count, element_size);
}

} // namespace

BOOST_AUTO_TEST_SUITE(big_counts, *boost::unit_test::precondition(needs_device()))

BOOST_FIXTURE_TEST_CASE(counts_whose_bytes_pass_2_to_the_64_are_refused_on_an_8_gib_buffer,
                        LargeDevice) {
  Context context = make_context();
  BOOST_TEST_REQUIRE(static_cast<uint64_t>(CLGetInfoInteger(
                         context, MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE)) == fake::kClaimed);
  const uint64_t size = (uint64_t{8} << 30) + (uint64_t{1} << 17);
  Buffer buffer(CLBufferCreate64(context, size, 0));
  BOOST_TEST_REQUIRE(buffer.get() != MQLCL_INVALID_HANDLE, last_error);
  BOOST_TEST_REQUIRE(static_cast<uint64_t>(CLGetInfoInteger(buffer, MQLCL_CL_BUFFER_SIZE)) == size);
  std::vector<uint8_t> backing(fake::kBacking, 0x5A);
  BOOST_TEST_REQUIRE(CLBufferWrite64(buffer, backing.data(), 0, 0, backing.size(), 1) ==
                     backing.size());
  std::vector<uint8_t> host(fake::kBacking, 0xAB);
  for (Transfer transfer : {&write64, &read64}) {
    const uint64_t none = 0;
    // 2^64 - 1 bytes, (2^32 + 1) x (2^32 - 1): no overflow, past the buffer.
    MQLCL_CHECK_FAILS(transfer(buffer, host.data(), 0, 0, k2To32 + 1, UINT32_MAX), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    // 2^64 bytes, 2^33 x 2^31: 0 once cut to 64 bits.
    MQLCL_CHECK_FAILS(transfer(buffer, host.data(), 0, 0, k2To32 * 2, 1u << 31), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    // 2^64 + 2^16 bytes, (2^32 + 2^16) x (2^32 - 2^16 + 1): 64 KiB once cut to 64 bits.
    MQLCL_CHECK_FAILS(transfer(buffer, host.data(), 0, 0, k2To32 + 65536, 4294901761u), none,
                      MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == -30); // CL_INVALID_VALUE
  }
  BOOST_TEST(std::all_of(host.begin(), host.end(), [](uint8_t byte) { return byte == 0xAB; }),
             "a refused read wrote into the program's array");
  BOOST_TEST_REQUIRE(CLBufferRead64(buffer, host.data(), 0, 0, host.size(), 1) == host.size());
  BOOST_TEST(host == backing, "a refused write changed the buffer");
}

BOOST_AUTO_TEST_SUITE_END()
