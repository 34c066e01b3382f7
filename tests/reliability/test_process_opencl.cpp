// Which OpenCL the shipped library uses: the entry points the process already provides (a
// preloaded runtime or layer, a program linked against OpenCL), all of them or none, unless
// MQLCL_OPENCL_LIBRARY names a library. The process's OpenCL here is a tracing layer
// (opencl_tracer.cpp) opened RTLD_GLOBAL, which counts the calls that reach it and forwards them
// to the real driver. Each test loads libmqlcl.so afresh with dlopen, runs a kernel through it,
// and unloads it, so each one's bridge chooses its OpenCL anew.
#define BOOST_TEST_MODULE reliability_process_opencl
#include "dlopened_bridge.hpp"
#include "opencl_device.hpp"
#include "scoped_environment.hpp"
#include "test_kernels.hpp"

#include <mqlcl/mqlcl.h>

#include <boost/test/unit_test.hpp>

#include <dlfcn.h>

#include <string>
#include <thread>
#include <vector>

using mqlcl_test::ScopedEnvironment;

namespace {

// The exports a run calls, resolved from the loaded file as a host program would.
struct Bridge : mqlcl_test::DlopenedBridge {
  bool load() { return DlopenedBridge::load(MQLCL_LIBRARY_PATH); }
};

bool is_loaded(const char *path) {
  void *probe = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (probe != nullptr)
    dlclose(probe);
  return probe != nullptr;
}

enum class Run { ran, no_device, failed };

// y = 2x + y on 256 floats, every object freed. The worker thread ends before the caller's
// dlclose: glibc keeps a library while a live thread holds one of its thread_local objects.
Run run_axpy(Bridge &bridge) {
  if (bridge.CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT) <= 0)
    return Run::no_device;
  int32_t context = bridge.CLContextCreate(mqlcl_test::device_under_test());
  int32_t program = bridge.CLProgramCreate(context, mqlcl_test::kTestKernels);
  int32_t axpy = bridge.CLKernelCreate(program, u"axpy");
  int32_t x = bridge.CLBufferCreate(context, 1024, MQLCL_MEM_READ_WRITE);
  int32_t y = bridge.CLBufferCreate(context, 1024, MQLCL_MEM_READ_WRITE);
  std::vector<float> ones(256, 1.0f), result(256, 0.0f);
  const float a = 2.0f;
  const uint32_t global[1] = {256};
  bool ran = context >= 0 && program >= 0 && axpy >= 0 && x >= 0 && y >= 0 &&
             bridge.CLBufferWrite(x, ones.data(), 0, 0, 256, 4) == 256 &&
             bridge.CLBufferWrite(y, ones.data(), 0, 0, 256, 4) == 256 &&
             bridge.CLSetKernelArgMem(axpy, 0, x) && bridge.CLSetKernelArgMem(axpy, 1, y) &&
             bridge.CLSetKernelArg(axpy, 2, &a, 4) &&
             bridge.CLExecute(axpy, 1, nullptr, global, nullptr) &&
             bridge.CLBufferRead(y, result.data(), 0, 0, 256, 4) == 256 && result[0] == 3.0f &&
             result[255] == 3.0f;
  bridge.CLBufferFree(y);
  bridge.CLBufferFree(x);
  bridge.CLKernelFree(axpy);
  bridge.CLProgramFree(program);
  bridge.CLContextFree(context);
  return ran ? Run::ran : Run::failed;
}

// Loads the bridge, runs the kernel, unloads the bridge. Skips (or, with MQLCL_REQUIRE_DEVICE=1,
// fails) without a device.
bool loaded_run_and_unloaded() {
  BOOST_TEST_REQUIRE(!is_loaded(MQLCL_LIBRARY_PATH));
  Bridge bridge;
  bool loaded = false;
  Run run = Run::failed;
  std::thread([&] {
    loaded = bridge.load();
    if (loaded)
      run = run_axpy(bridge);
  }).join();
  BOOST_TEST_REQUIRE(loaded, dlerror());
  BOOST_TEST(dlclose(bridge.library) == 0);
  BOOST_TEST_REQUIRE(!is_loaded(MQLCL_LIBRARY_PATH), "dlclose did not unload the library");
  if (run == Run::no_device && !mqlcl_test::device_required()) {
    std::cout << "SKIPPED: no OpenCL platform or device is present (install pocl-opencl-icd)"
              << std::endl;
    return false;
  }
  BOOST_TEST_REQUIRE((run == Run::ran), "the kernel did not run through the bridge");
  return true;
}

// A tracer opened RTLD_GLOBAL for the scope: its entry points are the process's OpenCL.
class Tracer {
public:
  explicit Tracer(const char *path) {
    library_ = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    BOOST_TEST_REQUIRE(library_ != nullptr, dlerror());
    calls_ = reinterpret_cast<Calls>(dlsym(library_, "mqlcl_tracer_calls"));
    BOOST_TEST_REQUIRE(calls_ != nullptr);
  }
  ~Tracer() { dlclose(library_); }
  Tracer(const Tracer &) = delete;
  Tracer &operator=(const Tracer &) = delete;

  int64_t calls(const char *function) const { return calls_(function); }
  int64_t total() const {
    int64_t sum = 0;
    for (const char *function : kCalledByARun)
      sum += calls(function);
    return sum;
  }

  // What a run of the kernel calls at least once.
  static constexpr const char *kCalledByARun[] = {"clGetPlatformIDs",
                                                  "clGetDeviceIDs",
                                                  "clCreateContext",
                                                  "clCreateCommandQueue",
                                                  "clCreateProgramWithSource",
                                                  "clBuildProgram",
                                                  "clCreateKernel",
                                                  "clCreateBuffer",
                                                  "clEnqueueWriteBuffer",
                                                  "clSetKernelArg",
                                                  "clEnqueueNDRangeKernel",
                                                  "clEnqueueReadBuffer",
                                                  "clReleaseMemObject",
                                                  "clReleaseKernel",
                                                  "clReleaseProgram",
                                                  "clReleaseCommandQueue",
                                                  "clReleaseContext"};

private:
  using Calls = int64_t (*)(const char *);
  void *library_ = nullptr;
  Calls calls_ = nullptr;
};

} // namespace

// A process whose OpenCL lacks entry points the bridge needs: the bridge takes none of them and
// loads the ICD loader, whose functions are all one driver's. (First: the whole tracer of the next
// tests stays in the process's global scope.)
BOOST_AUTO_TEST_CASE(a_process_opencl_that_lacks_functions_is_not_used) {
  ScopedEnvironment library("MQLCL_OPENCL_LIBRARY", std::nullopt);
  {
    Tracer tracer(MQLCL_PARTIAL_TRACER_PATH);
    BOOST_TEST_REQUIRE(tracer.calls("clCreateContext") == 0); // counted, never exported
    if (!loaded_run_and_unloaded())
      return;
    BOOST_TEST(tracer.calls("clGetPlatformIDs") == 0, "the bridge mixed two OpenCLs");
  }
  BOOST_TEST(!is_loaded(MQLCL_PARTIAL_TRACER_PATH), "the bridge kept an OpenCL it did not use");
}

BOOST_AUTO_TEST_CASE(the_process_opencl_takes_every_call) {
  ScopedEnvironment library("MQLCL_OPENCL_LIBRARY", std::nullopt);
  {
    Tracer tracer(MQLCL_TRACER_PATH);
    if (!loaded_run_and_unloaded())
      return;
    for (const char *function : Tracer::kCalledByARun)
      BOOST_TEST(tracer.calls(function) > 0, function << " did not reach the process's OpenCL");
  }
  // Closed by the process, but the bridge holds a reference to what it called.
  BOOST_TEST(is_loaded(MQLCL_TRACER_PATH), "the bridge let the process's OpenCL unload");
}

BOOST_AUTO_TEST_CASE(mqlcl_opencl_library_wins_over_the_process_opencl) {
  ScopedEnvironment library("MQLCL_OPENCL_LIBRARY", std::string("libOpenCL.so.1"));
  Tracer tracer(MQLCL_TRACER_PATH);
  int64_t before = tracer.total();
  if (!loaded_run_and_unloaded())
    return;
  BOOST_TEST(tracer.total() == before, "the bridge called the process's OpenCL");
}
