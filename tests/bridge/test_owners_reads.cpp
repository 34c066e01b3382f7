// Owners (CLOwnerCreate, CLOwnerSelect, CLOwnerFree) and non-blocking reads (CLBufferReadStart,
// CLBufferReadStatus, CLBufferReadTake) on the real device: what each does, each refusal's code
// (docs/errors.md), threads acting for different owners, and a read left pending when its buffer,
// or the owner of its buffer, is freed.
#define BOOST_TEST_MODULE bridge_owners_reads
#include "opencl_device.hpp"
#include "test_kernels.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstring>
#include <future>
#include <thread>
#include <vector>

using namespace mqlcl_test;

namespace {

int32_t code_of_last_call() {
  return CLGetLastError();
}

// Every thread acts for no owner once a test case ends, whatever it did.
struct NoOwnerAfter {
  ~NoOwnerAfter() { CLOwnerSelect(0); }
};

} // namespace

BOOST_AUTO_TEST_SUITE(owners, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(an_owner_frees_everything_it_made_with_one_call) {
  NoOwnerAfter reset;
  int64_t before = CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  int32_t owner = CLOwnerCreate();
  BOOST_TEST_REQUIRE(owner > 0, last_error);
  int32_t context = CLContextCreate(device_under_test());
  int32_t program = CLProgramCreate(context, kTestKernels);
  int32_t kernel = CLKernelCreate(program, u"axpy");
  int32_t x = CLBufferCreate(context, 64, MQLCL_MEM_READ_WRITE);
  int32_t y = CLBufferCreate(context, 64, MQLCL_MEM_READ_WRITE);
  BOOST_TEST_REQUIRE(y != MQLCL_INVALID_HANDLE, last_error);
  BOOST_TEST(CLSetKernelArgMem(kernel, 0, x) == 1);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == before + 5);
  CLResetLastError();
  BOOST_TEST(CLOwnerFree(owner) == 5, last_error);
  BOOST_TEST(CLGetLastError() == 0);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == before);
  for (int32_t handle : {context, program, kernel, x, y})
    BOOST_TEST(CLHandleType(handle) == MQLCL_OPENCL_INVALID);
  // The thread acts for no owner again, and the freed owner is gone for good.
  int32_t after = CLContextCreate(device_under_test());
  BOOST_TEST(after != MQLCL_INVALID_HANDLE, last_error);
  CLContextFree(after);
  CLResetLastError();
  BOOST_TEST(CLOwnerFree(owner) == -1);
  BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
  CLResetLastError();
  BOOST_TEST(CLOwnerSelect(owner) == 0);
  BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
}

BOOST_AUTO_TEST_CASE(another_owners_handles_are_refused_with_65537) {
  NoOwnerAfter reset;
  int32_t unowned = CLContextCreate(device_under_test());
  int32_t unowned_buffer = CLBufferCreate(unowned, 64, MQLCL_MEM_READ_WRITE);
  BOOST_TEST_REQUIRE(unowned_buffer != MQLCL_INVALID_HANDLE, last_error);
  int32_t a = CLOwnerCreate();
  int32_t a_context = CLContextCreate(device_under_test());
  int32_t a_buffer = CLBufferCreate(a_context, 64, MQLCL_MEM_READ_WRITE);
  BOOST_TEST_REQUIRE(a_buffer != MQLCL_INVALID_HANDLE, last_error);
  int32_t b = CLOwnerCreate();
  BOOST_TEST(b != a);
  float data[16] = {};
  // Owner b: neither a's handles nor those of no owner.
  for (int32_t foreign : {a_buffer, unowned_buffer}) {
    BOOST_TEST(CLHandleType(foreign) == MQLCL_OPENCL_INVALID);
    CLResetLastError();
    BOOST_TEST(CLBufferWrite(foreign, data, 0, 0, 16, 4) == 0u);
    BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
    CLResetLastError();
    CLBufferFree(foreign);
    BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
    CLResetLastError();
    BOOST_TEST(CLGetInfoInteger(foreign, MQLCL_CL_BUFFER_SIZE) == -1);
    BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
  }
  CLResetLastError();
  BOOST_TEST(CLBufferCreate(a_context, 64, MQLCL_MEM_READ_WRITE) == MQLCL_INVALID_HANDLE);
  BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
  CLResetLastError();
  CLContextFree(a_context);
  BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
  // A handle that is nobody's stays 5102.
  CLResetLastError();
  CLBufferFree(0x40000001);
  BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_INVALID_HANDLE);
  // No owner: a's handles are refused too; its own work as before.
  BOOST_TEST(CLOwnerSelect(0) == 1);
  CLResetLastError();
  BOOST_TEST(CLBufferRead(a_buffer, data, 0, 0, 16, 4) == 0u);
  BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
  BOOST_TEST(CLBufferRead(unowned_buffer, data, 0, 0, 16, 4) == 16u, last_error);
  // Back to a: its handles work.
  BOOST_TEST(CLOwnerSelect(a) == 1);
  BOOST_TEST(CLBufferRead(a_buffer, data, 0, 0, 16, 4) == 16u, last_error);
  BOOST_TEST(CLOwnerFree(a) == 2);
  BOOST_TEST(CLOwnerFree(b) == 0);
  CLResetLastError();
  BOOST_TEST(CLOwnerSelect(-5) == 0);
  BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_NOT_OWNER);
  BOOST_TEST(CLOwnerSelect(0) == 1);
  CLBufferFree(unowned_buffer);
  CLContextFree(unowned);
}

BOOST_AUTO_TEST_CASE(a_thread_acting_for_a_freed_owner_creates_nothing) {
  NoOwnerAfter reset;
  int32_t owner = CLOwnerCreate();
  std::promise<void> selected, freed;
  std::atomic<int32_t> code{0}, freed_count{-2};
  std::thread other([&] {
    CLOwnerSelect(owner);
    CLContextFree(CLContextCreate(device_under_test()));
    selected.set_value();
    freed.get_future().wait(); // the main thread frees the owner; this one still acts for it
    CLResetLastError();
    if (CLContextCreate(device_under_test()) == MQLCL_INVALID_HANDLE)
      code = CLGetLastError();
  });
  selected.get_future().wait();
  freed_count = CLOwnerFree(owner);
  freed.set_value();
  other.join();
  BOOST_TEST(freed_count.load() == 0);
  BOOST_TEST(code.load() == MQLCL_ERR_OPENCL_NOT_OWNER);
}

BOOST_AUTO_TEST_CASE(threads_of_many_owners_at_once) {
  NoOwnerAfter reset;
  int64_t before = CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int round = 0; round < 5; ++round) {
        int32_t owner = CLOwnerCreate();
        int32_t context = CLContextCreate(device_under_test());
        int32_t buffer = CLBufferCreate(context, 256, MQLCL_MEM_READ_WRITE);
        int values[64], back[64] = {};
        for (int i = 0; i < 64; ++i)
          values[i] = owner ^ i;
        if (CLBufferWrite(buffer, values, 0, 0, 64, 4) != 64u ||
            CLBufferRead(buffer, back, 0, 0, 64, 4) != 64u ||
            std::memcmp(values, back, sizeof(values)) != 0 || CLOwnerFree(owner) != 2)
          ++failures;
      }
    });
  for (std::thread &t : threads)
    t.join();
  BOOST_TEST(failures.load() == 0);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == before);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(non_blocking_reads, *boost::unit_test::precondition(needs_device()))

namespace {
struct Axpy {
  Owned<CLContextFree> context{CLContextCreate(device_under_test())};
  Owned<CLProgramFree> program{CLProgramCreate(context.get(), kTestKernels)};
  Owned<CLKernelFree> kernel{CLKernelCreate(program.get(), u"axpy")};
  Owned<CLBufferFree> x{CLBufferCreate(context.get(), 4096 * 4, MQLCL_MEM_READ_WRITE)};
  Owned<CLBufferFree> y{CLBufferCreate(context.get(), 4096 * 4, MQLCL_MEM_READ_WRITE)};
  std::vector<float> xs = std::vector<float>(4096), ys = std::vector<float>(4096);
  Axpy() {
    for (int i = 0; i < 4096; ++i) {
      xs[i] = static_cast<float>(i);
      ys[i] = static_cast<float>(3 * i);
    }
    BOOST_TEST_REQUIRE(CLBufferWrite(x.get(), xs.data(), 0, 0, 4096, 4) == 4096u, last_error);
    BOOST_TEST_REQUIRE(CLBufferWrite(y.get(), ys.data(), 0, 0, 4096, 4) == 4096u);
    float a = 2;
    BOOST_TEST_REQUIRE(CLSetKernelArgMem(kernel.get(), 0, x.get()) == 1);
    BOOST_TEST_REQUIRE(CLSetKernelArgMem(kernel.get(), 1, y.get()) == 1);
    BOOST_TEST_REQUIRE(CLSetKernelArg(kernel.get(), 2, &a, sizeof(a)) == 1);
  }
  void launch() {
    uint32_t global[1] = {4096};
    BOOST_TEST_REQUIRE(CLExecute(kernel.get(), 1, nullptr, global, nullptr) == 1);
  }
};
} // namespace

BOOST_AUTO_TEST_CASE(start_poll_take_sees_the_kernel_before_it) {
  Axpy k;
  k.launch();
  BOOST_TEST_REQUIRE(CLBufferReadStart(k.y.get(), 16, 4000 * 4) == 1, last_error);
  int32_t status = CLBufferReadStatus(k.y.get());
  BOOST_TEST((status >= MQLCL_CL_COMPLETE && status <= MQLCL_CL_QUEUED));
  for (int polls = 0; status != MQLCL_CL_COMPLETE && polls < 100000; ++polls) {
    std::this_thread::yield();
    status = CLBufferReadStatus(k.y.get());
  }
  BOOST_TEST(status == MQLCL_CL_COMPLETE);
  std::vector<float> out(4002, -1.0f);
  BOOST_TEST(CLBufferReadTake(k.y.get(), out.data(), 1, 4000, 4) == 4000u, last_error);
  BOOST_TEST(out[0] == -1.0f);
  BOOST_TEST(out[4001] == -1.0f);
  for (int i = 0; i < 4000; ++i)
    BOOST_TEST_REQUIRE(out[i + 1] == 5.0f * static_cast<float>(i + 4));
  // The read has ended.
  CLResetLastError();
  BOOST_TEST(CLBufferReadStatus(k.y.get()) == -1);
  BOOST_TEST(code_of_last_call() == MQLCL_ERR_OPENCL_READ_NOT_STARTED);
}

BOOST_AUTO_TEST_CASE(a_take_before_completion_waits_and_may_take_less) {
  Axpy k;
  for (int i = 0; i < 8; ++i)
    k.launch();
  BOOST_TEST_REQUIRE(CLBufferReadStart(k.y.get(), 0, 4096 * 4) == 1);
  std::vector<double> out(10);
  BOOST_TEST(CLBufferReadTake(k.y.get(), out.data(), 0, 10, 8) == 10u, last_error);
  std::vector<float> floats(20);
  std::memcpy(floats.data(), out.data(), 80);
  for (int i = 0; i < 20; ++i)
    BOOST_TEST(floats[i] == 19.0f * static_cast<float>(i));
}

BOOST_AUTO_TEST_CASE(every_refusal_has_its_code) {
  Axpy k;
  float out[8];
  auto expect = [](auto result, auto failure, int32_t code) {
    BOOST_TEST(result == failure);
    BOOST_TEST(CLGetLastError() == code);
    CLResetLastError();
  };
  CLResetLastError();
  expect(CLBufferReadStatus(k.y.get()), -1, MQLCL_ERR_OPENCL_READ_NOT_STARTED);
  expect(CLBufferReadTake(k.y.get(), out, 0, 8, 4), 0u, MQLCL_ERR_OPENCL_READ_NOT_STARTED);
  expect(CLBufferReadStart(k.y.get(), 0, 0), 0, MQLCL_ERR_ZEROSIZE_ARRAY);
  expect(CLBufferReadStart(k.y.get(), 4096 * 4, 4), 0, MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
  expect(CLBufferReadStart(k.y.get(), 4, 4096 * 4), 0, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  expect(CLBufferReadStart(k.kernel.get(), 0, 4), 0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  expect(CLBufferReadStatus(k.context.get()), -1, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  BOOST_TEST_REQUIRE(CLBufferReadStart(k.y.get(), 0, 32) == 1);
  expect(CLBufferReadStart(k.y.get(), 0, 32), 0, MQLCL_ERR_INVALID_PARAMETER);
  expect(CLBufferReadTake(k.y.get(), nullptr, 0, 8, 4), 0u, MQLCL_ERR_INVALID_PARAMETER);
  expect(CLBufferReadTake(k.y.get(), out, 0, 0, 4), 0u, MQLCL_ERR_ZEROSIZE_ARRAY);
  expect(CLBufferReadTake(k.y.get(), out, 0, 9, 4), 0u, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  // A host range that ends 2^64 - 1 bytes past `out`, (2^32 - 1) + 2 elements of 2^32 - 1 bytes,
  // and one that passes 2^64 by 2^32 - 2 (a range of 4 GiB once cut to 64 bits).
  expect(CLBufferReadTake(k.y.get(), out, UINT32_MAX, 2, UINT32_MAX), 0u,
         MQLCL_ERR_INVALID_PARAMETER);
  expect(CLBufferReadTake(k.y.get(), out, UINT32_MAX, 3, UINT32_MAX), 0u,
         MQLCL_ERR_INVALID_PARAMETER);
  // Each refusal of a take leaves the read pending.
  BOOST_TEST(CLBufferReadTake(k.y.get(), out, 0, 8, 4) == 8u, last_error);
  for (int i = 0; i < 8; ++i)
    BOOST_TEST(out[i] == 3.0f * static_cast<float>(i));
  // Another owner may not start, poll or take a read of this buffer.
  NoOwnerAfter reset;
  int32_t owner = CLOwnerCreate();
  expect(CLBufferReadStart(k.y.get(), 0, 4), 0, MQLCL_ERR_OPENCL_NOT_OWNER);
  expect(CLBufferReadStatus(k.y.get()), -1, MQLCL_ERR_OPENCL_NOT_OWNER);
  CLOwnerFree(owner);
}

BOOST_AUTO_TEST_CASE(a_pending_read_outlives_nothing_it_needs) {
  int64_t before = CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  {
    Axpy k;
    k.launch();
    BOOST_TEST_REQUIRE(CLBufferReadStart(k.y.get(), 0, 4096 * 4) == 1);
  } // the buffer, its context and the rest freed with the read still pending
  NoOwnerAfter reset;
  int32_t owner = CLOwnerCreate();
  {
    Axpy k;
    k.launch();
    BOOST_TEST_REQUIRE(CLBufferReadStart(k.x.get(), 0, 4096 * 4) == 1);
    BOOST_TEST(CLOwnerFree(owner) == 5); // the owner goes with a read pending
    CLOwnerSelect(0);
  } // the Owned wrappers' frees now fail quietly
  CLResetLastError();
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == before);
}

BOOST_AUTO_TEST_SUITE_END()
