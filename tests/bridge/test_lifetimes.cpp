// Handle lifetimes: every create/free order, double free, use after free, wrong types, forged
// integers, parents freed under live children, and 10 000 create/free cycles without growth.
#define BOOST_TEST_MODULE bridge_lifetimes
#include "opencl_device.hpp"
#include "test_kernels.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <set>
#include <vector>

using namespace mqlcl_test;

namespace {

struct Handles {
  int32_t context, program, kernel, buffer;
};

Handles create_all() {
  Handles h{};
  h.context = CLContextCreate(device_under_test());
  h.program = CLProgramCreate(h.context, kTestKernels);
  h.kernel = CLKernelCreate(h.program, u"axpy");
  h.buffer = CLBufferCreate(h.context, 1024, MQLCL_MEM_READ_WRITE);
  BOOST_TEST_REQUIRE(h.buffer != MQLCL_INVALID_HANDLE, last_error);
  BOOST_TEST_REQUIRE(h.kernel != MQLCL_INVALID_HANDLE, last_error);
  return h;
}

void free_in_order(const Handles &h, const std::array<int, 4> &order) {
  for (int which : order) {
    CLResetLastError();
    switch (which) {
    case 0:
      CLContextFree(h.context);
      break;
    case 1:
      CLProgramFree(h.program);
      break;
    case 2:
      CLKernelFree(h.kernel);
      break;
    case 3:
      CLBufferFree(h.buffer);
      break;
    }
    BOOST_TEST(CLGetLastError() == 0, "free #" << which << ": " << last_error);
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(lifetimes, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(every_free_order_releases_everything) {
  int64_t baseline = CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  std::array<int, 4> order{0, 1, 2, 3};
  int orders = 0;
  do {
    Handles h = create_all();
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == baseline + 4);
    free_in_order(h, order);
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == baseline);
    for (int32_t handle : {h.context, h.program, h.kernel, h.buffer})
      BOOST_TEST(CLHandleType(handle) == MQLCL_OPENCL_INVALID);
    ++orders;
  } while (std::next_permutation(order.begin(), order.end()));
  BOOST_TEST(orders == 24);
}

BOOST_AUTO_TEST_CASE(handle_types_are_reported) {
  Handles h = create_all();
  BOOST_TEST(CLHandleType(h.context) == MQLCL_OPENCL_CONTEXT);
  BOOST_TEST(CLHandleType(h.program) == MQLCL_OPENCL_PROGRAM);
  BOOST_TEST(CLHandleType(h.kernel) == MQLCL_OPENCL_KERNEL);
  BOOST_TEST(CLHandleType(h.buffer) == MQLCL_OPENCL_BUFFER);
  free_in_order(h, {2, 3, 1, 0});
}

BOOST_AUTO_TEST_CASE(double_free_and_use_after_free_fail_with_5102) {
  Handles h = create_all();
  free_in_order(h, {2, 3, 1, 0});
  MQLCL_CHECK_FREE_FAILS(CLKernelFree(h.kernel), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FREE_FAILS(CLBufferFree(h.buffer), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FREE_FAILS(CLProgramFree(h.program), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FREE_FAILS(CLContextFree(h.context), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  float value = 1;
  const uint32_t global[1] = {4};
  MQLCL_CHECK_FAILS(CLSetKernelArg(h.kernel, 2, &value, 4), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLExecute(h.kernel, 1, nullptr, global, nullptr), 0,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLBufferWrite(h.buffer, &value, 0, 0, 1, 4), 0u,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLKernelCreate(h.program, u"axpy"), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLBufferCreate(h.context, 4, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLGetInfoInteger(h.buffer, MQLCL_CL_BUFFER_SIZE), int64_t{-1},
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
}

BOOST_AUTO_TEST_CASE(stale_handles_never_alias_new_objects) {
  Context context = make_context();
  int32_t first = CLBufferCreate(context, 16, 0);
  CLBufferFree(first);
  std::set<int32_t> seen{first};
  for (int i = 0; i < 100; ++i) {
    int32_t next = CLBufferCreate(context, 16, 0);
    BOOST_TEST(seen.insert(next).second, "handle " << next << " was handed out twice");
    BOOST_TEST(CLHandleType(first) == MQLCL_OPENCL_INVALID);
    MQLCL_CHECK_FAILS(CLGetInfoInteger(first, MQLCL_CL_BUFFER_SIZE), int64_t{-1},
                      MQLCL_ERR_OPENCL_INVALID_HANDLE);
    CLBufferFree(next);
  }
}

BOOST_AUTO_TEST_CASE(wrong_type_handles_are_rejected) {
  Handles h = create_all();
  float value = 0;
  MQLCL_CHECK_FAILS(CLProgramCreate(h.buffer, kTestKernels), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLKernelCreate(h.context, u"axpy"), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLBufferCreate(h.program, 4, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLSetKernelArgMem(h.kernel, 0, h.context), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLSetKernelArgMem(h.buffer, 0, h.buffer), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLBufferWrite(h.kernel, &value, 0, 0, 1, 4), 0u,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLExecutionStatus(h.buffer), -1, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  // Freeing with the wrong function neither frees nor corrupts anything.
  MQLCL_CHECK_FREE_FAILS(CLContextFree(h.kernel), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FREE_FAILS(CLBufferFree(h.context), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FREE_FAILS(CLKernelFree(h.program), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FREE_FAILS(CLProgramFree(h.buffer), MQLCL_ERR_OPENCL_INVALID_HANDLE);
  BOOST_TEST(CLHandleType(h.kernel) == MQLCL_OPENCL_KERNEL);
  BOOST_TEST(CLHandleType(h.context) == MQLCL_OPENCL_CONTEXT);
  free_in_order(h, {3, 2, 1, 0});
}

BOOST_AUTO_TEST_CASE(forged_integers_are_rejected) {
  Handles h = create_all();
  std::vector<int32_t> forged{0,
                              1,
                              -1,
                              -2,
                              INT32_MIN,
                              INT32_MAX,
                              h.kernel ^ 1,
                              h.kernel + (1 << 16),
                              h.buffer - (1 << 16),
                              0x10000000,
                              0x40000000,
                              0x7FFFFFFF,
                              0x5FFF0000,
                              h.context | 0x0FFF0000};
  for (int32_t handle : forged) {
    if (handle == h.context || handle == h.program || handle == h.kernel || handle == h.buffer)
      continue;
    BOOST_TEST(CLHandleType(handle) == MQLCL_OPENCL_INVALID, "forged " << handle);
    MQLCL_CHECK_FREE_FAILS(CLKernelFree(handle), MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FREE_FAILS(CLBufferFree(handle), MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLExecutionStatus(handle), -1, MQLCL_ERR_OPENCL_INVALID_HANDLE);
    MQLCL_CHECK_FAILS(CLSetKernelArgMem(h.kernel, 0, handle), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  }
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) >= 4);
  free_in_order(h, {2, 3, 1, 0});
}

// Freeing a parent retires its handle only: children keep it alive, as OpenCL's retain counts do.
BOOST_AUTO_TEST_CASE(children_keep_freed_parents_alive) {
  Handles h = create_all();
  const uint32_t n = 256;
  std::vector<float> x(n, 1.0f), y(n, 2.0f), out(n);
  Buffer bx = make_buffer(h.context, n * 4);
  CLContextFree(h.context);
  CLProgramFree(h.program);
  BOOST_TEST(CLHandleType(h.context) == MQLCL_OPENCL_INVALID);
  BOOST_TEST(CLHandleType(h.program) == MQLCL_OPENCL_INVALID);
  MQLCL_CHECK_FAILS(CLBufferCreate(h.context, 16, 0), MQLCL_INVALID_HANDLE,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  // The kernel and buffers still work, on the freed context's device and queue.
  BOOST_TEST(CLBufferWrite(bx, x.data(), 0, 0, n, 4) == n);
  BOOST_TEST(CLBufferWrite(h.buffer, y.data(), 0, 0, n, 4) == n);
  const float a = 3.0f;
  BOOST_TEST(CLSetKernelArgMem(h.kernel, 0, bx) == 1);
  BOOST_TEST(CLSetKernelArgMem(h.kernel, 1, h.buffer) == 1);
  BOOST_TEST(CLSetKernelArg(h.kernel, 2, &a, 4) == 1);
  const uint32_t global[1] = {n};
  BOOST_TEST(CLExecute(h.kernel, 1, nullptr, global, nullptr) == 1, last_error);
  BOOST_TEST(CLBufferRead(h.buffer, out.data(), 0, 0, n, 4) == n);
  BOOST_TEST(std::all_of(out.begin(), out.end(), [](float v) { return v == 5.0f; }));
  BOOST_TEST(CLGetInfoInteger(h.kernel, MQLCL_CL_DEVICE_ORDINAL) >= 0);
  CLKernelFree(h.kernel);
  CLBufferFree(h.buffer);
}

// A buffer freed while bound to a kernel argument stays alive until the kernel lets go of it.
BOOST_AUTO_TEST_CASE(buffers_bound_to_kernels_outlive_their_handles) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel kernel = make_kernel(program, u"axpy");
  const uint32_t n = 64;
  std::vector<float> ones(n, 1.0f), result(n);
  Buffer y = make_buffer(context, n * 4);
  int32_t x = CLBufferCreate(context, n * 4, 0);
  BOOST_TEST(CLBufferWrite(x, ones.data(), 0, 0, n, 4) == n);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, x) == 1);
  BOOST_TEST(CLSetKernelArgMem(kernel, 1, y) == 1);
  const float a = 4.0f;
  BOOST_TEST(CLSetKernelArg(kernel, 2, &a, 4) == 1);
  CLBufferFree(x); // the handle dies; the kernel's binding keeps the memory
  const uint32_t global[1] = {n};
  BOOST_TEST(CLExecute(kernel, 1, nullptr, global, nullptr) == 1);
  BOOST_TEST(CLBufferRead(y, result.data(), 0, 0, n, 4) == n);
  BOOST_TEST(std::all_of(result.begin(), result.end(), [](float v) { return v == 4.0f; }));
}

BOOST_AUTO_TEST_CASE(ten_thousand_create_free_cycles_do_not_grow) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  int64_t baseline = CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  std::set<uint32_t> slots;
  for (int i = 0; i < 10000; ++i) {
    int32_t buffer = CLBufferCreate(context, 64, 0);
    int32_t kernel = CLKernelCreate(program, u"axpy");
    BOOST_TEST_REQUIRE(buffer != MQLCL_INVALID_HANDLE, last_error);
    BOOST_TEST_REQUIRE(kernel != MQLCL_INVALID_HANDLE, last_error);
    BOOST_TEST_REQUIRE(CLSetKernelArgMem(kernel, 0, buffer) == 1);
    slots.insert(static_cast<uint32_t>(buffer) & 0xFFFF); // the slot field of the handle
    CLKernelFree(kernel);
    CLBufferFree(buffer);
  }
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == baseline);
  // Freed slots are reused (oldest first), so the slots touched stay within the few that earlier
  // tests of this process freed; without reuse there would be 10 000.
  BOOST_TEST(slots.size() <= 16u, "handle slots are reused, not accumulated: " << slots.size());
  // Contexts too (each has its own queue).
  for (int i = 0; i < 200; ++i) {
    int32_t extra = CLContextCreate(device_under_test());
    BOOST_TEST_REQUIRE(extra != MQLCL_INVALID_HANDLE);
    CLContextFree(extra);
  }
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == baseline);
}

BOOST_AUTO_TEST_SUITE_END()
