// No usable OpenCL (run by ctest three ways: the library is missing, the library is not OpenCL,
// the ICD loader has no driver). The library still loads, every call that needs OpenCL fails with
// ERR_OPENCL_NOT_SUPPORTED (5100) and says why, CL_DEVICE_COUNT is 0, and the calls that need no
// OpenCL work. With no OpenCL no handle can ever be live, so calls on a handle fail with 5102.
#define BOOST_TEST_MODULE reliability_no_opencl
#include "opencl_device.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>
#include <vector>

using namespace mqlcl_test;

namespace {

std::string expected_reason() {
  const char *reason = std::getenv("MQLCL_EXPECT_REASON");
  return reason != nullptr ? reason : "";
}

// CL_LAST_ERROR: 0 when no OpenCL library loaded, the loader's code when one did.
int64_t expected_cl_status() {
  const char *status = std::getenv("MQLCL_EXPECT_CL_STATUS");
  return status != nullptr ? std::atoll(status) : 0;
}

// A handle of each type, as if one had been live: there is none.
const int32_t kForged[] = {0x10010000, 0x20010000, 0x30010000, 0x40010000};

} // namespace

BOOST_AUTO_TEST_CASE(the_environment_names_a_reason) {
  BOOST_TEST_REQUIRE(!expected_reason().empty(), "run through ctest (MQLCL_EXPECT_REASON)");
}

BOOST_AUTO_TEST_CASE(device_counts_are_zero_and_not_errors) {
  CLResetLastError();
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT) == 0);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_PLATFORM_COUNT) == 0);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == 0);
  BOOST_TEST(CLGetLastError() == 0);
}

BOOST_AUTO_TEST_CASE(everything_that_needs_opencl_fails_with_5100_and_says_why) {
  for (int32_t device :
       {MQLCL_USE_ANY, MQLCL_USE_CPU_ONLY, MQLCL_USE_GPU_ONLY, MQLCL_USE_GPU_DOUBLE_ONLY, 0, 1}) {
    MQLCL_CHECK_FAILS(CLContextCreate(device), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_NOT_SUPPORTED);
    BOOST_TEST(last_error_text().find(expected_reason()) != std::string::npos, last_error);
  }
  std::vector<char16_t> text(256, u'#');
  for (int32_t property : {MQLCL_CL_DEVICE_TYPE, MQLCL_CL_DEVICE_VENDOR_ID,
                           MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE, MQLCL_CL_DEVICE_ORDINAL})
    MQLCL_CHECK_FAILS(CLGetInfoInteger(0, property), int64_t{-1}, MQLCL_ERR_OPENCL_NOT_SUPPORTED);
  for (int32_t property : {MQLCL_CL_DEVICE_NAME, MQLCL_CL_PLATFORM_NAME, MQLCL_CL_DEVICE_LIST}) {
    MQLCL_CHECK_FAILS(CLGetInfoString(0, property, text.data(), 256), 0,
                      MQLCL_ERR_OPENCL_NOT_SUPPORTED);
    BOOST_TEST(text[0] == u'\0'); // the output is an empty string, never stale memory
  }
  uint8_t raw[64];
  uint32_t size = 99;
  MQLCL_CHECK_FAILS(CLGetDeviceInfo(0, 0x102B /* CL_DEVICE_NAME */, raw, &size, sizeof(raw)), 0,
                    MQLCL_ERR_OPENCL_NOT_SUPPORTED);
  BOOST_TEST(size == 0u);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR) == expected_cl_status());
}

BOOST_AUTO_TEST_CASE(calls_on_handles_fail_with_5102) {
  const float value = 1.0f;
  const uint32_t global[1] = {1};
  float data[4] = {};
  std::vector<char16_t> log(64);
  for (int32_t handle : kForged) {
    BOOST_TEST(CLHandleType(handle) == MQLCL_OPENCL_INVALID);
    MQLCL_CHECK_FAILS(CLProgramCreate(handle, u"__kernel void k() {}"), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLProgramCreateEx(handle, u"__kernel void k() {}", u"", log.data(), 64),
                      MQLCL_INVALID_HANDLE, MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLKernelCreate(handle, u"k"), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLBufferCreate(handle, 64, 0), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLSetKernelArg(handle, 0, &value, 4), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLSetKernelArgMem(handle, 0, handle), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLSetKernelArgMemLocal(handle, 0, 64), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLBufferWrite(handle, data, 0, 0, 4, 4), 0u, MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLBufferRead(handle, data, 0, 0, 4, 4), 0u, MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(
        CLBufferTensorMap(handle, 0, handle, 0, 8, 8, 32, 8, 8, 32, MQLCL_TENSOR_FLOAT32), 0,
        MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLExecute(handle, 1, nullptr, global, nullptr), 0,
                      MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLExecutionStatus(handle), -1, MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLGetInfoInteger(handle, MQLCL_CL_BUFFER_SIZE), int64_t{-1},
                      MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FREE_FAILS(CLContextFree(handle), MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FREE_FAILS(CLProgramFree(handle), MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FREE_FAILS(CLKernelFree(handle), MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FREE_FAILS(CLBufferFree(handle), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  }
}

BOOST_AUTO_TEST_CASE(what_needs_no_opencl_still_works) {
  std::vector<char16_t> text(256);
  BOOST_TEST(CLGetInfoString(0, MQLCL_CL_BRIDGE_VERSION, text.data(), 256) == 1);
  BOOST_TEST(to_utf8(text.data()).rfind("mqlcl ", 0) == 0u);
  BOOST_TEST(CLGetInfoString(-30 /* CL_INVALID_VALUE */, MQLCL_CL_ERROR_DESCRIPTION, text.data(),
                             256) == 1);
  BOOST_TEST(to_utf8(text.data()) == "CL_INVALID_VALUE");
  CLResetLastError();
  BOOST_TEST(CLGetLastError() == 0);
  BOOST_TEST(last_error_text() == "no error");
}
