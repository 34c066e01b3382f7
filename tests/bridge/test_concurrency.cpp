// MetaTrader runs each script in its own thread, all sharing one DLL: 8 threads do mixed work on
// shared and private handles, and every result must equal the serial run's; then 12 threads build
// programs, query shared handles and use handles that other threads free under them.
#define BOOST_TEST_MODULE bridge_concurrency
#include "opencl_device.hpp"
#include "test_kernels.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace mqlcl_test;

namespace {

constexpr uint32_t kElements = 4096;
constexpr int kThreads = 8;
constexpr int kRounds = 40;

// One unit of work: y = a*x + y on private buffers with a private kernel from the shared program;
// returns a checksum of the result.
double private_axpy(int32_t context, int32_t program, int seed) {
  Kernel kernel(CLKernelCreate(program, u"axpy"));
  Buffer x(CLBufferCreate(context, kElements * 4, MQLCL_MEM_READ_ONLY));
  Buffer y(CLBufferCreate(context, kElements * 4, MQLCL_MEM_READ_WRITE));
  if (kernel.get() < 0 || x.get() < 0 || y.get() < 0)
    return -1.0;
  std::vector<float> hx(kElements), hy(kElements);
  for (uint32_t i = 0; i < kElements; ++i) {
    hx[i] = static_cast<float>((i * 7 + seed) % 13);
    hy[i] = static_cast<float>((i * 3 + seed) % 5);
  }
  const float a = static_cast<float>(seed % 4 + 1);
  const uint32_t global[1] = {kElements};
  if (CLBufferWrite(x, hx.data(), 0, 0, kElements, 4) != kElements ||
      CLBufferWrite(y, hy.data(), 0, 0, kElements, 4) != kElements ||
      !CLSetKernelArgMem(kernel, 0, x) || !CLSetKernelArgMem(kernel, 1, y) ||
      !CLSetKernelArg(kernel, 2, &a, 4) || !CLExecute(kernel, 1, nullptr, global, nullptr) ||
      CLBufferRead(y, hy.data(), 0, 0, kElements, 4) != kElements)
    return -2.0;
  double sum = 0;
  for (uint32_t i = 0; i < kElements; ++i)
    sum += hy[i] * static_cast<double>(i % 97 + 1);
  return sum;
}

// Work on a kernel shared by all threads: arguments and launch happen under the bridge's
// per-kernel lock, so each thread still reads its own result.
double shared_kernel_round(int32_t context, int32_t shared_kernel, int seed) {
  Buffer x(CLBufferCreate(context, kElements * 4, 0));
  Buffer y(CLBufferCreate(context, kElements * 4, 0));
  std::vector<float> hx(kElements, static_cast<float>(seed)), hy(kElements, 1.0f);
  const float a = 2.0f;
  const uint32_t global[1] = {kElements};
  CLBufferWrite(x, hx.data(), 0, 0, kElements, 4);
  CLBufferWrite(y, hy.data(), 0, 0, kElements, 4);
  // Set-and-launch on a shared kernel is only meaningful as one step; the bridge makes each call
  // atomic, and a caller who shares a kernel must serialise the pair itself, as here.
  static std::mutex pair_lock;
  {
    std::lock_guard<std::mutex> lock(pair_lock);
    if (!CLSetKernelArgMem(shared_kernel, 0, x) || !CLSetKernelArgMem(shared_kernel, 1, y) ||
        !CLSetKernelArg(shared_kernel, 2, &a, 4) ||
        !CLExecute(shared_kernel, 1, nullptr, global, nullptr))
      return -3.0;
  }
  if (CLBufferRead(y, hy.data(), 0, 0, kElements, 4) != kElements)
    return -4.0;
  double sum = 0;
  for (float v : hy)
    sum += v;
  return sum;
}

} // namespace

BOOST_AUTO_TEST_SUITE(concurrency, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(eight_threads_match_the_serial_run) {
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel shared_kernel = make_kernel(program, u"axpy");
  int64_t baseline_objects = CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);

  std::vector<double> serial(kThreads * kRounds * 2);
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kRounds; ++r) {
      int seed = t * 1000 + r;
      serial[(t * kRounds + r) * 2] = private_axpy(context, program, seed);
      serial[(t * kRounds + r) * 2 + 1] = shared_kernel_round(context, shared_kernel, seed);
    }

  std::vector<double> parallel(serial.size(), 0.0);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      // Each thread also owns a context of its own for part of its work.
      Context own(CLContextCreate(device_under_test()));
      Program own_program(CLProgramCreate(own, kTestKernels));
      for (int r = 0; r < kRounds; ++r) {
        int seed = t * 1000 + r;
        int32_t ctx = r % 2 == 0 ? context.get() : own.get();
        int32_t prg = r % 2 == 0 ? program.get() : own_program.get();
        parallel[(t * kRounds + r) * 2] = private_axpy(ctx, prg, seed);
        parallel[(t * kRounds + r) * 2 + 1] = shared_kernel_round(context, shared_kernel, seed);
        // Failures in one thread must not leak into another's last error.
        CLResetLastError();
        CLBufferFree(-1);
        if (CLGetLastError() != MQLCL_ERR_OPENCL_INVALID_HANDLE)
          ++errors;
        CLHandleType(shared_kernel);
      }
    });
  for (auto &thread : threads)
    thread.join();

  BOOST_TEST(errors.load() == 0);
  for (size_t i = 0; i < serial.size(); ++i) {
    BOOST_TEST(serial[i] > 0.0, "serial result " << i << " failed: " << serial[i]);
    BOOST_TEST(parallel[i] == serial[i], "result " << i);
  }
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == baseline_objects);
}

// Collects contract violations from any thread; the first few are kept for the report.
class Violations {
public:
  void add(std::string what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (++count_ <= 10)
      first_.push_back(std::move(what));
  }
  int count() const { return count_; }
  std::string first() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string text;
    for (const std::string &line : first_)
      text += line + "\n";
    return text;
  }

private:
  mutable std::mutex mutex_;
  std::atomic<int> count_{0};
  std::vector<std::string> first_;
};

// A use of a handle another thread may free at any moment: it works in full, or it fails with
// exactly ERR_OPENCL_INVALID_HANDLE, and never with anything else.
template <class Use> void use_or_5102(Violations &violations, const char *what, Use use) {
  CLResetLastError();
  bool worked = use();
  int32_t code = CLGetLastError();
  if (!worked && code != MQLCL_ERR_OPENCL_INVALID_HANDLE)
    violations.add(std::string(what) + " failed with " + std::to_string(code) + ": " +
                   last_error_text());
  if (worked && code != 0)
    violations.add(std::string(what) + " worked but set " + std::to_string(code));
}

BOOST_AUTO_TEST_CASE(twelve_threads_build_query_and_race_frees) {
  constexpr int kManyThreads = 12;
  constexpr int kManyRounds = 16;
  constexpr int kVictims = 4; // buffers freed mid-run by threads 0-3 while all threads use them
  constexpr uint32_t kVictimElements = 64;
  Context context = make_context();
  Program program = make_program(context, kTestKernels);
  Kernel shared_kernel = make_kernel(program, u"axpy");
  const int64_t baseline_objects = CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  const int64_t work_group_size = CLGetInfoInteger(shared_kernel, MQLCL_CL_KERNEL_WORK_GROUP_SIZE);
  const int64_t compute_units = CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS);
  std::vector<char16_t> name(256);
  BOOST_TEST_REQUIRE(CLGetInfoString(context, MQLCL_CL_DEVICE_NAME, name.data(), 256) == 1);
  const std::u16string device_name(name.data());

  std::vector<int32_t> victims;
  for (int v = 0; v < kVictims; ++v) {
    std::vector<float> fill(kVictimElements, static_cast<float>(v + 1));
    int32_t victim = CLBufferCreate(context, kVictimElements * 4, 0);
    BOOST_TEST_REQUIRE(victim != MQLCL_INVALID_HANDLE);
    BOOST_TEST_REQUIRE(CLBufferWrite(victim, fill.data(), 0, 0, kVictimElements, 4) ==
                       kVictimElements);
    victims.push_back(victim);
  }
  // A kernel that threads 0-3 also race to free (only the first free may succeed).
  int32_t victim_kernel = CLKernelCreate(program, u"count_items");
  BOOST_TEST_REQUIRE(victim_kernel != MQLCL_INVALID_HANDLE);

  // The serial reference: the same computations, one after another.
  std::vector<double> serial(kManyThreads * kManyRounds);
  for (int t = 0; t < kManyThreads; ++t)
    for (int r = 0; r < kManyRounds; ++r)
      serial[t * kManyRounds + r] = private_axpy(context, program, 7000 + t * 100 + r);

  std::vector<double> parallel(serial.size(), 0.0);
  Violations violations;
  std::atomic<int> kernel_frees{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kManyThreads; ++t)
    threads.emplace_back([&, t] {
      // Parallel builds: distinct options, so each thread really compiles its own program.
      std::u16string options =
          u"-DMQLCL_BUILDING_THREAD=" + std::u16string(1, static_cast<char16_t>(u'a' + t));
      Program own(CLProgramCreateEx(context, kTestKernels, options.c_str(), nullptr, 0));
      if (own.get() == MQLCL_INVALID_HANDLE)
        violations.add("thread " + std::to_string(t) + ": build failed: " + last_error_text());
      Buffer counter(CLBufferCreate(context, 4, 0));
      std::vector<float> seen(kVictimElements);
      std::vector<char16_t> text(256);
      for (int r = 0; r < kManyRounds; ++r) {
        int32_t prg = r % 2 == 0 ? program.get() : own.get();
        parallel[t * kManyRounds + r] = private_axpy(context, prg, 7000 + t * 100 + r);

        // Queries on shared handles while others launch and free.
        if (CLGetInfoInteger(shared_kernel, MQLCL_CL_KERNEL_WORK_GROUP_SIZE) != work_group_size ||
            CLGetInfoInteger(context, MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS) != compute_units ||
            CLHandleType(program) != MQLCL_OPENCL_PROGRAM ||
            !CLGetInfoString(shared_kernel, MQLCL_CL_DEVICE_NAME, text.data(), 256) ||
            std::u16string(text.data()) != device_name)
          violations.add("thread " + std::to_string(t) + ": a query of a shared handle changed");

        // Uses of handles that threads 0-3 free half-way through.
        for (int v = 0; v < kVictims; ++v) {
          int32_t victim = victims[static_cast<size_t>(v)];
          use_or_5102(violations, "CLBufferRead(victim)", [&] {
            if (CLBufferRead(victim, seen.data(), 0, 0, kVictimElements, 4) != kVictimElements)
              return false;
            for (float value : seen)
              if (value != static_cast<float>(v + 1))
                violations.add("a victim buffer read back wrong data");
            return true;
          });
          use_or_5102(violations, "CLGetInfoInteger(victim, BUFFER_SIZE)", [&] {
            int64_t size = CLGetInfoInteger(victim, MQLCL_CL_BUFFER_SIZE);
            if (size != -1 && size != kVictimElements * 4)
              violations.add("a victim buffer changed size");
            return size != -1;
          });
        }
        use_or_5102(violations, "CLSetKernelArgMem(victim kernel)",
                    [&] { return CLSetKernelArgMem(victim_kernel, 0, counter) == 1; });
        use_or_5102(violations, "CLExecute(victim kernel)",
                    [&] { return CLExecute(victim_kernel, 0, nullptr, nullptr, nullptr) == 1; });
        use_or_5102(violations, "CLGetInfoInteger(victim kernel, NUM_ARGS)",
                    [&] { return CLGetInfoInteger(victim_kernel, MQLCL_CL_KERNEL_NUM_ARGS) == 1; });

        if (t < kVictims && r == kManyRounds / 2) {
          CLResetLastError();
          CLBufferFree(victims[static_cast<size_t>(t)]);
          if (CLGetLastError() != 0)
            violations.add("freeing a victim buffer failed: " + last_error_text());
          CLResetLastError();
          CLKernelFree(victim_kernel);
          if (CLGetLastError() == 0)
            ++kernel_frees;
          else if (CLGetLastError() != MQLCL_ERR_OPENCL_INVALID_HANDLE)
            violations.add("a racing CLKernelFree failed with " + last_error_text());
        }
      }
    });
  for (auto &thread : threads)
    thread.join();

  BOOST_TEST(violations.count() == 0, violations.first());
  BOOST_TEST(kernel_frees.load() == 1);
  for (size_t i = 0; i < serial.size(); ++i) {
    BOOST_TEST(serial[i] > 0.0, "serial result " << i << " failed: " << serial[i]);
    BOOST_TEST(parallel[i] == serial[i], "result " << i);
  }
  for (int32_t victim : victims)
    BOOST_TEST(CLHandleType(victim) == MQLCL_OPENCL_INVALID);
  BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == baseline_objects);
}

BOOST_AUTO_TEST_CASE(racing_frees_free_each_handle_exactly_once) {
  Context context = make_context();
  for (int round = 0; round < 50; ++round) {
    int32_t buffer = CLBufferCreate(context, 64, 0);
    std::atomic<int> succeeded{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&] {
        CLResetLastError();
        CLBufferFree(buffer);
        if (CLGetLastError() == 0)
          ++succeeded;
      });
    for (auto &thread : threads)
      thread.join();
    BOOST_TEST(succeeded.load() == 1);
  }
}

BOOST_AUTO_TEST_SUITE_END()
