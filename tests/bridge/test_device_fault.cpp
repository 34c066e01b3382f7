// A kernel that writes far outside its buffer faults an NVIDIA GPU, and NVIDIA's driver (580)
// then ends every OpenCL context of the process on that device and refuses new ones. The bridge
// answers every later call on the device's objects, in every context, with one code (65539,
// MQLCL_ERR_OPENCL_DEVICE_LOST), whose message says what happened and what to do, and
// CLContextCreate tries the device again once the process holds no context on it (docs/api.md,
// "A device that faults"). A process of its own: the device stays lost for the rest of it.
//
// NVIDIA GPUs only: a CPU device (PoCL) runs kernels inside the process, where such a write is a
// crash of the process, and other GPUs' drivers are not known to contain it. The same logic over
// a driver that plays the fault runs everywhere (test_fault_injection.cpp).
#define BOOST_TEST_MODULE bridge_device_fault
#include "opencl_device.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <thread>

using namespace mqlcl_test;

namespace {

struct nvidia_gpu {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    Context context(CLContextCreate(device_under_test()));
    if (context.get() != MQLCL_INVALID_HANDLE &&
        CLGetInfoInteger(context, MQLCL_CL_DEVICE_VENDOR_ID) == 0x10DE)
      return true;
    boost::test_tools::assertion_result result(false);
    result.message() << "the device is no NVIDIA GPU: a kernel that writes outside its buffers "
                        "would crash the process (a CPU device) or is not known to be contained";
    return result;
  }
};

constexpr const char16_t *kStray =
    u"__kernel void stray(__global float *x, ulong far) { x[get_global_id(0) + far] = 1; }";

// Launches `stray` 2^38 floats past its buffer and waits for the launch to end.
void fault(int32_t context, int32_t buffer) {
  Program program = make_program(context, kStray);
  Kernel kernel = make_kernel(program, u"stray");
  BOOST_TEST_REQUIRE(CLSetKernelArgMem(kernel, 0, buffer) == 1, last_error);
  const uint64_t far = uint64_t{1} << 38;
  BOOST_TEST_REQUIRE(CLSetKernelArg(kernel, 1, &far, sizeof(far)) == 1, last_error);
  const uint32_t global[1] = {1024};
  BOOST_TEST_REQUIRE(CLExecute(kernel, 1, nullptr, global, nullptr) == 1, last_error);
  int32_t status = MQLCL_CL_QUEUED;
  const auto start = std::chrono::steady_clock::now();
  while (status > MQLCL_CL_COMPLETE &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    CLResetLastError();
    status = CLExecutionStatus(kernel);
  }
  BOOST_TEST(status == -1, "CLExecutionStatus " << status);
  BOOST_TEST(CLGetLastError() == MQLCL_ERR_OPENCL_DEVICE_LOST, last_error);
  BOOST_TEST_MESSAGE("CLExecutionStatus after the fault: " << last_error);
}

} // namespace

BOOST_AUTO_TEST_CASE(a_kernel_that_faults_loses_the_device_with_one_code,
                     *boost::unit_test::precondition(nvidia_gpu())) {
  Context bystander = make_context(); // another program's context on the same device
  Buffer kept = make_buffer(bystander, 1024);
  float out[4] = {};
  {
    Context context = make_context();
    Buffer buffer = make_buffer(context, 4096);
    fault(context, buffer);
    MQLCL_CHECK_FAILS(CLBufferRead(buffer, out, 0, 0, 4, 4), 0u, MQLCL_ERR_OPENCL_DEVICE_LOST);
    MQLCL_CHECK_FAILS(CLBufferRead(kept, out, 0, 0, 4, 4), 0u, MQLCL_ERR_OPENCL_DEVICE_LOST);
    MQLCL_CHECK_FAILS(CLBufferCreate(bystander, 64, 0), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_DEVICE_LOST);
    MQLCL_CHECK_FAILS(CLContextCreate(device_under_test()), MQLCL_INVALID_HANDLE,
                      MQLCL_ERR_OPENCL_DEVICE_LOST);
    BOOST_TEST(last_error_text().find("still holds 2 context(s)") != std::string::npos, last_error);
  }
  kept = Buffer();
  bystander = Context();
  // Every context freed: the bridge tries the device again, and the driver decides.
  Context fresh(CLContextCreate(device_under_test()));
  if (fresh.get() == MQLCL_INVALID_HANDLE) {
    BOOST_TEST(CLGetLastError() == MQLCL_ERR_OPENCL_DEVICE_LOST);
    BOOST_TEST(last_error_text().find("only a restart of the process") != std::string::npos,
               last_error);
    BOOST_TEST_MESSAGE("with no context left, the driver still refuses one: " << last_error);
    return;
  }
  Buffer buffer = make_buffer(fresh, 16);
  const float in[4] = {1, 2, 3, 4};
  BOOST_TEST_REQUIRE(CLBufferWrite(buffer, in, 0, 0, 4, 4) == 4u, last_error);
  BOOST_TEST_REQUIRE(CLBufferRead(buffer, out, 0, 0, 4, 4) == 4u, last_error);
  BOOST_TEST(out[3] == 4.0f);
  BOOST_TEST_MESSAGE("with no context left, the device works again");
}
