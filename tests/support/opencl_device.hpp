// Shared by the device tests: skip cleanly when no OpenCL platform is present (or fail, when
// MQLCL_REQUIRE_DEVICE=1 says one must be), plus small RAII owners for bridge handles.
#pragma once

#include "../../harness/src/utf16_text.hpp"

#include <mqlcl/mqlcl.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace mqlcl_test {

inline bool device_required() {
  const char *value = std::getenv("MQLCL_REQUIRE_DEVICE");
  return value != nullptr && std::string(value) == "1";
}

// The device every test runs on: MQLCL_TEST_DEVICE (an ordinal) or the bridge's default choice.
inline int32_t device_under_test() {
  const char *value = std::getenv("MQLCL_TEST_DEVICE");
  return value != nullptr ? std::atoi(value) : MQLCL_USE_ANY;
}

using mqlcl::replay::to_utf8; // the harness's: one conversion on the callers' side

inline std::string last_error_text() {
  std::vector<char16_t> text(1 << 16);
  if (!CLGetInfoString(MQLCL_CL_LAST_ERROR, MQLCL_CL_ERROR_DESCRIPTION, text.data(),
                       static_cast<uint32_t>(text.size())))
    return "(no description)";
  return to_utf8(text.data());
}

// The last error's text as a check's message: fetched when the message is printed, after the
// checked call. (Boost.Test may evaluate a message's arguments before the checked expression, so a
// message of last_error_text() could describe the error before the call: "no error", or a stale
// one.)
struct LastError {};
inline constexpr LastError last_error{};
inline std::ostream &operator<<(std::ostream &out, LastError) {
  return out << last_error_text();
}

// CLGetInfoString's text for `handle`; the calling test fails where the call does.
inline std::string info_string(int32_t handle, int32_t property) {
  std::vector<char16_t> text(4096);
  BOOST_TEST_REQUIRE(CLGetInfoString(handle, property, text.data(), uint32_t(text.size())) == 1,
                     last_error);
  return to_utf8(text.data());
}

// The tuning cache's key of the context's device: "NAME | DRIVER", as the tuner writes it.
inline std::string tuning_key(int32_t context) {
  std::string key = info_string(context, MQLCL_CL_DEVICE_NAME);
  while (!key.empty() && key.back() == ' ')
    key.pop_back();
  return key + " | " + info_string(context, MQLCL_CL_DRIVER_VERSION);
}

// Whether the context's device has FP64: CL_DEVICE_DOUBLE_FP_CONFIG is 0 where it has not.
inline bool has_double(int32_t context) {
  uint8_t raw[8] = {};
  uint32_t size = 0;
  return CLGetDeviceInfo(context, 0x1032, raw, &size, sizeof(raw)) == 1 &&
         std::any_of(raw, raw + size, [](uint8_t byte) { return byte != 0; });
}

// An NVIDIA device of compute capability 9.x (cl_nv_device_attribute_query), as the harness asks.
inline bool is_nvidia_hopper(int32_t context) {
  if (CLGetInfoInteger(context, MQLCL_CL_DEVICE_VENDOR_ID) != 0x10DE)
    return false;
  uint8_t raw[4] = {};
  uint32_t size = 0, major = 0;
  if (CLGetDeviceInfo(context, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */, raw, &size,
                      sizeof(raw)) == 1 &&
      size == sizeof(major))
    std::memcpy(&major, raw, sizeof(major));
  CLResetLastError();
  return major == 9;
}

// Boost.Test precondition: runs the test only when a device can be used.
struct needs_device {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    if (device_required() || CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT) > 0)
      return true;
    static bool said = false;
    if (!said) {
      std::cout << "SKIPPED: no OpenCL platform or device is present (install pocl-opencl-icd)"
                << std::endl;
      said = true;
    }
    boost::test_tools::assertion_result result(false);
    result.message() << "no OpenCL platform or device is present";
    return result;
  }
};

template <void (*Free)(int32_t)> class Owned {
public:
  explicit Owned(int32_t handle = MQLCL_INVALID_HANDLE) : handle_(handle) {}
  ~Owned() {
    if (handle_ != MQLCL_INVALID_HANDLE)
      Free(handle_);
  }
  Owned(Owned &&other) noexcept : handle_(other.release()) {}
  Owned &operator=(Owned &&other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  int32_t get() const { return handle_; }
  operator int32_t() const { return handle_; }
  int32_t release() {
    int32_t handle = handle_;
    handle_ = MQLCL_INVALID_HANDLE;
    return handle;
  }

private:
  int32_t handle_;
};

using Context = Owned<CLContextFree>;
using Program = Owned<CLProgramFree>;
using Kernel = Owned<CLKernelFree>;
using Buffer = Owned<CLBufferFree>;

inline Context make_context() {
  Context context(CLContextCreate(device_under_test()));
  BOOST_TEST_REQUIRE(context.get() != MQLCL_INVALID_HANDLE, "CLContextCreate: " << last_error);
  return context;
}

inline Program make_program(int32_t context, const char16_t *source) {
  Program program(CLProgramCreate(context, source));
  BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, "CLProgramCreate: " << last_error);
  return program;
}

inline Kernel make_kernel(int32_t program, const char16_t *name) {
  Kernel kernel(CLKernelCreate(program, name));
  BOOST_TEST_REQUIRE(kernel.get() != MQLCL_INVALID_HANDLE, "CLKernelCreate: " << last_error);
  return kernel;
}

inline Buffer make_buffer(int32_t context, uint32_t bytes, uint32_t flags = MQLCL_MEM_READ_WRITE) {
  Buffer buffer(CLBufferCreate(context, bytes, flags));
  BOOST_TEST_REQUIRE(buffer.get() != MQLCL_INVALID_HANDLE, "CLBufferCreate: " << last_error);
  return buffer;
}

// Asserts that `call` returned the failure value and set exactly `code`.
#define MQLCL_CHECK_FAILS(call, failure_value, code)                                               \
  do {                                                                                             \
    CLResetLastError();                                                                            \
    auto mqlcl_result_ = (call);                                                                   \
    int32_t mqlcl_error_ = CLGetLastError();                                                       \
    BOOST_TEST(mqlcl_result_ == (failure_value), #call " returned " << mqlcl_result_);             \
    BOOST_TEST(mqlcl_error_ == (code), #call " set " << mqlcl_error_ << ", expected " << (code)    \
                                                     << " (" << mqlcl_test::last_error << ")");    \
  } while (false)

// For the void CL*Free functions: only the last error tells.
#define MQLCL_CHECK_FREE_FAILS(call, code)                                                         \
  do {                                                                                             \
    CLResetLastError();                                                                            \
    call;                                                                                          \
    BOOST_TEST(CLGetLastError() == (code), #call " set " << CLGetLastError());                     \
  } while (false)

} // namespace mqlcl_test
