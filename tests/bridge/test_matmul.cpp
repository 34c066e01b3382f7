// CLMatMul: c = a * b from host arrays to a host array, on the real device, over the fault layer
// (tests/reliability/fault_layer.hpp), which counts the commands each call enqueues (proving the
// path taken) and fails OpenCL calls in the middle of it. ctest runs it with MQLCL_STAGING=on and
// small chunks, so that PoCL takes the pipelined path (side queues, panels, staged chunks) at
// sizes it multiplies quickly, and with the default (auto), where a CPU device writes A and B side
// by side on two queues from 1 MiB of B and otherwise runs the four calls in order.
#define BOOST_TEST_MODULE bridge_matmul
#include "fault_layer.hpp"
#include "leak_check.hpp"
#include "objects.hpp"
#include "opencl_device.hpp"
#include "scoped_environment.hpp"
#include "staging_mode.hpp"
#include "text_count.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace mqlcl_test;
using mqlcl_fault::Call;
using mqlcl_fault::LeakCheck;

namespace {

using mqlcl_fault::InstallOverDriver;
BOOST_TEST_GLOBAL_FIXTURE(InstallOverDriver);

// Multiples of 1/8 in [-1, 1]: every product is a multiple of 1/64 and every sum of up to 2^18 of
// them is exact in float, so the device's product equals the host's bit for bit in any order.
template <class T> std::vector<T> eighths(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> value(-8, 8);
  std::vector<T> values(count);
  for (T &v : values)
    v = static_cast<T>(value(random)) / 8;
  return values;
}

template <class T>
std::vector<T> host_product(const std::vector<T> &a, const std::vector<T> &b, uint32_t m,
                            uint32_t n, uint32_t k) {
  std::vector<T> c(size_t{m} * n);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      double sum = 0;
      for (uint32_t l = 0; l < k; ++l)
        sum += double(a[size_t{i} * k + l]) * double(b[size_t{l} * n + j]);
      c[size_t{i} * n + j] = static_cast<T>(sum);
    }
  return c;
}

template <class T> constexpr int32_t element_type() {
  return sizeof(T) == 8 ? MQLCL_GEMM_DOUBLE : MQLCL_GEMM_FLOAT;
}

// A buffer of `bytes` made with no Boost.Test assertion, whose checks are not thread-safe: the
// caller tests the handle.
Buffer unchecked_buffer(int32_t context, size_t bytes) {
  return Buffer(CLBufferCreate(context, static_cast<uint32_t>(bytes), MQLCL_MEM_READ_WRITE));
}

// One product's operands, its buffers on `context` and the host's answer. `make` makes a buffer:
// make_buffer (checked) on the test's thread, unchecked_buffer on threads of its own.
template <class T> struct Product {
  Product(int32_t context, uint32_t m_, uint32_t n_, uint32_t k_, uint32_t seed,
          Buffer (*make)(int32_t, size_t) = checked_buffer)
      : m(m_), n(n_), k(k_), a(eighths<T>(size_t{m} * k, seed)),
        b(eighths<T>(size_t{k} * n, seed + 1)), want(host_product(a, b, m, n, k)),
        buffer_a(make(context, a.size() * sizeof(T))),
        buffer_b(make(context, b.size() * sizeof(T))),
        buffer_c(make(context, want.size() * sizeof(T))) {}
  static Buffer checked_buffer(int32_t context, size_t bytes) {
    return make_buffer(context, static_cast<uint32_t>(bytes));
  }
  bool made() const {
    return buffer_a.get() != MQLCL_INVALID_HANDLE && buffer_b.get() != MQLCL_INVALID_HANDLE &&
           buffer_c.get() != MQLCL_INVALID_HANDLE;
  }

  int32_t run(std::vector<T> &c, int32_t precision = MQLCL_GEMM_EXACT) const {
    return CLMatMul(buffer_a, buffer_b, buffer_c, element_type<T>(), precision, a.data(), b.data(),
                    c.data(), m, n, k);
  }
  // Elements of `c` that differ from the product.
  size_t wrong(const std::vector<T> &c) const {
    size_t count = 0;
    for (size_t i = 0; i < want.size(); ++i)
      count += c[i] != want[i];
    return count;
  }

  uint32_t m, n, k;
  std::vector<T> a, b, want;
  Buffer buffer_a, buffer_b, buffer_c;
};

bool has_fp64(int32_t context) {
  return CLGetInfoInteger(context, MQLCL_CL_DEVICE_DOUBLE_SUPPORT) == 1;
}

struct Shape {
  uint32_t m, n, k;
};
// Rows in one panel and in several (panels are multiples of 128 rows), a row vector, a column
// vector, and odd sizes whose rows end mid-chunk.
const Shape kShapes[] = {{300, 130, 33}, {129, 1, 7}, {1, 77, 5}, {517, 96, 41}, {256, 256, 64}};

template <class T> void check_every_shape_and_panel_count(int32_t context) {
  for (const char *panels : {"1", "2", "3", "16"}) {
    ScopedEnvironment forced("MQLCL_MATMUL_PANELS", std::string(panels));
    for (const Shape &shape : kShapes) {
      BOOST_TEST_CONTEXT(sizeof(T) * 8 << "-bit " << shape.m << " x " << shape.n << " x " << shape.k
                                       << ", MQLCL_MATMUL_PANELS " << panels) {
        Product<T> product(context, shape.m, shape.n, shape.k, shape.m + shape.k);
        std::vector<T> c(product.want.size(), T(-99));
        const uint64_t reads = mqlcl_fault::calls(Call::clEnqueueReadBuffer);
        BOOST_TEST_REQUIRE(product.run(c) == 1, last_error);
        BOOST_TEST(product.wrong(c) == 0u);
        // Staged: C comes back in chunks, so at least one read per chunk.
        const uint64_t c_bytes = product.want.size() * sizeof(T);
        const uint64_t chunk = mqlcl::Staging::chunk_bytes();
        if (staging_forced())
          BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueReadBuffer) - reads >=
                     (c_bytes + chunk - 1) / chunk);
      }
    }
  }
}

// Whether CLMatMul writes A and B side by side here: on a CPU device (which shares the host's
// memory) under MQLCL_STAGING=auto.
bool writes_side_by_side() {
  if (staging_forced())
    return false;
  const int32_t context = CLContextCreate(device_under_test());
  if (context == MQLCL_INVALID_HANDLE)
    return false;
  const bool cpu = (CLGetInfoInteger(context, MQLCL_CL_DEVICE_TYPE) & 2) != 0;
  CLContextFree(context);
  return cpu;
}

struct writes_are_side_by_side {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result result(writes_side_by_side());
    result.message() << "needs a CPU device (PoCL) and MQLCL_STAGING unset or auto";
    return result;
  }
};

// B of 4 MiB (64 x 1024 times 1024 x 1024, float): past the size from which a CPU device writes
// A and B side by side.
constexpr Shape kSideBySide = {64, 1024, 1024};

// kSideBySide's product in T: the elements of c that differ from it.
template <class T> size_t wrong_in_side_by_side(int32_t context) {
  Product<T> product(context, kSideBySide.m, kSideBySide.n, kSideBySide.k, 5);
  std::vector<T> c(product.want.size(), T(-99));
  BOOST_TEST_REQUIRE(product.run(c) == 1, last_error);
  return product.wrong(c);
}

} // namespace

BOOST_AUTO_TEST_SUITE(matmul, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(the_product_arrives_whole_at_every_shape_and_panel_count) {
  LeakCheck leaks;
  {
    Context context = make_context();
    check_every_shape_and_panel_count<float>(context);
    if (has_fp64(context))
      check_every_shape_and_panel_count<double>(context);
  }
  leaks.verify();
}

// Panels run as one product: CL_GEMM_EXECUTION_TIME covers them, CL_GEMM_PASSES lists each.
BOOST_AUTO_TEST_CASE(the_panels_report_as_one_product) {
  Context context = make_context();
  ScopedEnvironment forced("MQLCL_MATMUL_PANELS", std::string("3"));
  Product<float> product(context, 300, 40, 20, 7);
  std::vector<float> c(product.want.size());
  const uint64_t launches = mqlcl_fault::calls(Call::clEnqueueNDRangeKernel);
  BOOST_TEST_REQUIRE(product.run(c) == 1, last_error);
  const uint64_t made = mqlcl_fault::calls(Call::clEnqueueNDRangeKernel) - launches;
  BOOST_TEST(CLGetInfoInteger(context, MQLCL_CL_GEMM_EXECUTION_TIME) > 0);
  const std::string passes = info_string(context, MQLCL_CL_GEMM_PASSES);
  BOOST_TEST(mqlcl_test::occurrences(passes, " ms") == made, passes);
  // 300 rows in panels of a multiple of 128: three panels where the transfers are staged.
  BOOST_TEST(made >= (staging_forced() ? 3u : 1u), passes);
}

// It refuses what CLGemm refuses, with CLGemm's codes, and NULL arrays; c stays as it was.
BOOST_AUTO_TEST_CASE(refusals_leave_c_as_it_was) {
  Context context = make_context();
  Context other = make_context();
  Product<float> product(context, 64, 32, 16, 3);
  Buffer foreign = make_buffer(other, 64 * 32 * 4);
  Buffer small = make_buffer(context, 64 * 32 * 4 - 4);
  const std::vector<float> before(product.want.size(), 5.0f);
  std::vector<float> c = before;
  const void *a = product.a.data(), *b = product.b.data();
  MQLCL_CHECK_FAILS(CLMatMul(product.buffer_a, product.buffer_b, product.buffer_c, MQLCL_GEMM_FLOAT,
                             MQLCL_GEMM_EXACT, nullptr, b, c.data(), 64, 32, 16),
                    0, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLMatMul(product.buffer_a, product.buffer_b, product.buffer_c, MQLCL_GEMM_FLOAT,
                             MQLCL_GEMM_EXACT, a, b, nullptr, 64, 32, 16),
                    0, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLMatMul(product.buffer_a, product.buffer_b, product.buffer_c, MQLCL_GEMM_FLOAT,
                             MQLCL_GEMM_EXACT, a, b, c.data(), 0, 32, 16),
                    0, MQLCL_ERR_ZEROSIZE_ARRAY);
  MQLCL_CHECK_FAILS(CLMatMul(product.buffer_a, product.buffer_b, product.buffer_c, 2,
                             MQLCL_GEMM_EXACT, a, b, c.data(), 64, 32, 16),
                    0, MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(CLMatMul(product.buffer_a, product.buffer_b, small, MQLCL_GEMM_FLOAT,
                             MQLCL_GEMM_EXACT, a, b, c.data(), 64, 32, 16),
                    0, MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  MQLCL_CHECK_FAILS(CLMatMul(product.buffer_a, foreign, product.buffer_c, MQLCL_GEMM_FLOAT,
                             MQLCL_GEMM_EXACT, a, b, c.data(), 64, 32, 16),
                    0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(CLMatMul(product.buffer_a, product.buffer_a, product.buffer_c, MQLCL_GEMM_FLOAT,
                             MQLCL_GEMM_EXACT, a, b, c.data(), 64, 32, 16),
                    0, MQLCL_ERR_INVALID_PARAMETER); // A and B one buffer
  Buffer both = make_buffer(context, 64 * 32 * 4);   // holds A (64 x 16) and C (64 x 32) alike
  MQLCL_CHECK_FAILS(CLMatMul(both, product.buffer_b, both, MQLCL_GEMM_FLOAT, MQLCL_GEMM_EXACT, a, b,
                             c.data(), 64, 32, 16),
                    0, MQLCL_ERR_INVALID_PARAMETER); // C overlaps A
  MQLCL_CHECK_FAILS(CLMatMul(-5, product.buffer_b, product.buffer_c, MQLCL_GEMM_FLOAT,
                             MQLCL_GEMM_EXACT, a, b, c.data(), 64, 32, 16),
                    0, MQLCL_ERR_OPENCL_INVALID_HANDLE);
  BOOST_TEST(std::memcmp(c.data(), before.data(), c.size() * sizeof(float)) == 0);
}

// On a CPU device A's and B's writes run at once, each on a queue of its own, without blocking,
// the product behind a barrier on B's; in either precision the product is exact and nothing is
// left behind.
BOOST_AUTO_TEST_CASE(a_cpu_device_writes_a_and_b_side_by_side,
                     *boost::unit_test::precondition(writes_are_side_by_side())) {
  LeakCheck leaks;
  {
    Context context = make_context();
    for (const bool use_double : {false, true}) {
      if (use_double && !has_fp64(context))
        continue;
      BOOST_TEST_CONTEXT((use_double ? "double" : "float")) {
        const uint64_t writes = mqlcl_fault::calls(Call::clEnqueueWriteBuffer),
                       barriers = mqlcl_fault::calls(Call::clEnqueueBarrierWithWaitList),
                       markers = mqlcl_fault::calls(Call::clEnqueueMarkerWithWaitList);
        const size_t wrong = use_double ? wrong_in_side_by_side<double>(context)
                                        : wrong_in_side_by_side<float>(context);
        BOOST_TEST(wrong == 0u);
        BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueWriteBuffer) - writes == 2u);
        BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueBarrierWithWaitList) - barriers == 1u);
        BOOST_TEST(mqlcl_fault::calls(Call::clEnqueueMarkerWithWaitList) - markers == 1u);
      }
    }
  }
  leaks.verify();
}

// Threads multiply at once on one context (one pipeline, or one pair of side-by-side writes, at a
// time on its side queues) and on contexts of their own. The threads make no Boost.Test assertion
// (not thread-safe): they note what went wrong, and the test's thread checks.
BOOST_AUTO_TEST_CASE(threads_multiply_at_once_on_shared_and_own_contexts) {
  constexpr int kThreads = 4, kRounds = 3;
  ScopedEnvironment forced("MQLCL_MATMUL_PANELS", std::string("2"));
  Context shared = make_context();
  std::atomic<int> failures{0};
  std::vector<std::string> messages(kThreads);
  auto worker = [&](int id) {
    Context own;
    int32_t context = shared;
    if (id % 2 == 1) {
      own = Context(CLContextCreate(device_under_test()));
      context = own;
    }
    for (int round = 0; round < kRounds; ++round) {
      // The last round's B is 4 MiB: on a CPU device, A and B are written side by side.
      const bool big = round == kRounds - 1;
      const uint32_t m = big ? kSideBySide.m : 200 + 37 * id + round;
      const uint32_t n = big ? kSideBySide.n : 48 + id, k = big ? kSideBySide.k : 24 + round;
      Product<float> product(context, m, n, k, static_cast<uint32_t>(id * 10 + round),
                             unchecked_buffer);
      std::vector<float> c(product.want.size());
      if (!product.made() || product.run(c) != 1 || product.wrong(c) != 0) {
        messages[id] = "thread " + std::to_string(id) + " round " + std::to_string(round) + ": " +
                       last_error_text();
        ++failures;
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id)
    threads.emplace_back(worker, id);
  for (std::thread &thread : threads)
    thread.join();
  BOOST_TEST(failures.load() == 0);
  for (const std::string &message : messages)
    BOOST_TEST(message.empty(), message);
}

BOOST_AUTO_TEST_SUITE_END()

// OpenCL failures in the middle of a call: it fails with the failing step's code, no element of c
// holds anything but what it held or the product's, nothing is left behind, and the same call
// then succeeds.
namespace {

struct Scenario {
  const char *what;
  Call call;
  uint64_t nth; // 0: the call's last one
  cl_int injected;
  int32_t code;
};

void check_failure(const Scenario &scenario, const Shape &shape) {
  LeakCheck leaks;
  {
    Context context = make_context();
    Product<float> product(context, shape.m, shape.n, shape.k, 21);
    std::vector<float> c(product.want.size(), -1.5f);
    const uint64_t calls_before = mqlcl_fault::calls(scenario.call);
    BOOST_TEST_REQUIRE(product.run(c) == 1, last_error); // the programs built
    const uint64_t nth =
        scenario.nth != 0 ? scenario.nth : mqlcl_fault::calls(scenario.call) - calls_before;
    std::fill(c.begin(), c.end(), -1.5f);
    const uint64_t injected_before = mqlcl_fault::faults_injected(scenario.call);
    mqlcl_fault::fail_call(scenario.call, nth, scenario.injected);
    CLResetLastError();
    const int32_t result = product.run(c);
    const int32_t code = CLGetLastError();
    const int64_t cl_status = CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR);
    const std::string description = last_error_text();
    mqlcl_fault::clear_faults();

    BOOST_TEST(mqlcl_fault::faults_injected(scenario.call) == injected_before + 1);
    BOOST_TEST(result == 0);
    BOOST_TEST(code == scenario.code, description);
    BOOST_TEST(cl_status == scenario.injected);
    BOOST_TEST(description.find(mqlcl_fault::name_of(scenario.call)) != std::string::npos,
               description);
    size_t neither = 0;
    for (size_t i = 0; i < c.size(); ++i)
      neither += c[i] != -1.5f && c[i] != product.want[i];
    BOOST_TEST(neither == 0u);

    CLResetLastError();
    BOOST_TEST(product.run(c) == 1, last_error);
    BOOST_TEST(product.wrong(c) == 0u);
  }
  mqlcl_fault::release_refused();
  leaks.verify();
}

} // namespace

// Where the pipeline runs.
BOOST_AUTO_TEST_SUITE(matmul_failures, *boost::unit_test::precondition(needs_device()) *
                                           boost::unit_test::precondition(staging_is_forced()))

BOOST_AUTO_TEST_CASE(a_failure_mid_pipeline_fails_the_call_and_the_next_succeeds) {
  const Scenario scenarios[] = {
      {"B's first chunk", Call::clEnqueueWriteBuffer, 1, CL_OUT_OF_RESOURCES,
       MQLCL_ERR_OPENCL_INTERNAL},
      {"a chunk of A's second panel", Call::clEnqueueWriteBuffer, 9,
       CL_MEM_OBJECT_ALLOCATION_FAILURE, MQLCL_ERR_OPENCL_INTERNAL},
      {"the first panel's product", Call::clEnqueueNDRangeKernel, 1, CL_OUT_OF_RESOURCES,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"the third panel's product", Call::clEnqueueNDRangeKernel, 3, CL_INVALID_KERNEL_ARGS,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"the marker after earlier work", Call::clEnqueueMarkerWithWaitList, 1, CL_OUT_OF_RESOURCES,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"a panel's wait for its rows", Call::clEnqueueBarrierWithWaitList, 2, CL_OUT_OF_HOST_MEMORY,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"C's first chunk", Call::clEnqueueReadBuffer, 1, CL_OUT_OF_RESOURCES,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"a later chunk of C", Call::clEnqueueReadBuffer, 5, CL_OUT_OF_HOST_MEMORY,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"the wait for C's last chunk", Call::clWaitForEvents, 0,
       CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, MQLCL_ERR_OPENCL_EXECUTE},
  };
  ScopedEnvironment forced("MQLCL_MATMUL_PANELS", std::string("3"));
  for (const Scenario &scenario : scenarios)
    BOOST_TEST_CONTEXT(scenario.what) {
      check_failure(scenario, {384, 300, 160}); // C: 450 KiB, A 240 KiB, B 188 KiB
    }
}

BOOST_AUTO_TEST_SUITE_END()

// Where A and B are written side by side: a failure while B's write may still run leaves nothing
// running when the call returns.
BOOST_AUTO_TEST_SUITE(matmul_side_by_side_failures,
                      *boost::unit_test::precondition(needs_device()) *
                          boost::unit_test::precondition(writes_are_side_by_side()))

BOOST_AUTO_TEST_CASE(a_failure_beside_a_running_write_fails_the_call_and_the_next_succeeds) {
  const Scenario scenarios[] = {
      {"the marker after earlier work", Call::clEnqueueMarkerWithWaitList, 1, CL_OUT_OF_RESOURCES,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"B's write", Call::clEnqueueWriteBuffer, 1, CL_MEM_OBJECT_ALLOCATION_FAILURE,
       MQLCL_ERR_OPENCL_INTERNAL},
      {"A's write, beside B's", Call::clEnqueueWriteBuffer, 2, CL_OUT_OF_RESOURCES,
       MQLCL_ERR_OPENCL_INTERNAL},
      {"the product's wait for B", Call::clEnqueueBarrierWithWaitList, 1, CL_OUT_OF_HOST_MEMORY,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"the product", Call::clEnqueueNDRangeKernel, 1, CL_OUT_OF_RESOURCES,
       MQLCL_ERR_OPENCL_EXECUTE},
      {"C's read", Call::clEnqueueReadBuffer, 1, CL_OUT_OF_RESOURCES, MQLCL_ERR_OPENCL_EXECUTE},
  };
  for (const Scenario &scenario : scenarios)
    BOOST_TEST_CONTEXT(scenario.what) {
      check_failure(scenario, kSideBySide);
    }
}

BOOST_AUTO_TEST_SUITE_END()
