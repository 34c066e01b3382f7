// A process that leaves the bridge busy and exits, run as a child by test_exit.cpp, which
// requires exit status 0 within a few seconds. Its thread has seen an error too. The scenario is
// the first argument:
//   launch_in_flight  a launch of a kernel PoCL has not compiled yet, then return from main
//   kernel_running    a kernel that runs for minutes (seconds on a GPU), then return from main
//   exit_from_thread  a kernel that runs for minutes, then exit(0) from another thread
// The fault layer, in the ICD loader's chain (OPENCL_LAYERS), ends the process with status 5 if
// any OpenCL call reaches it once exit has begun. Exit status 2 or 3: it could not load the
// bridge or set up; 4: the kernel was not running; 6: the layer is not in the chain.
// Built twice: linked against libmqlcl.so (MQLCL_EXIT_CHILD_LINKED), and loading it with dlopen
// (never closed).
#include "dlopened_bridge.hpp"
#include "fault_layer.hpp"

#include <mqlcl/mqlcl.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

struct Bridge : mqlcl_test::DlopenedBridge {
#if MQLCL_EXIT_CHILD_LINKED
  bool load() {
    link();
    return true;
  }
#else
  bool load() {
    return DlopenedBridge::load(MQLCL_LIBRARY_PATH);
  }
#endif
};

// Enqueues a launch no one waits for; returns its kernel, or 0 when setting up failed.
int32_t launch_and_leave(Bridge &bridge, bool long_running) {
  int32_t context = bridge.CLContextCreate(MQLCL_USE_ANY);
  if (!long_running) {
    int32_t program = bridge.CLProgramCreate(context, u"__kernel void noargs(void) { }");
    int32_t kernel = bridge.CLKernelCreate(program, u"noargs");
    return bridge.CLExecute(kernel, 0, nullptr, nullptr, nullptr) == 1 ? kernel : 0;
  }
  // 2^30 iterations per work-item: 1024 of them keep a CPU busy for minutes.
  int32_t program = bridge.CLProgramCreate(context, u"__kernel void spin(__global float *out, "
                                                    u"int n) { float x = get_global_id(0); "
                                                    u"for (int k = 0; k < n; ++k) x = x * "
                                                    u"0.999f + 1.0f; out[get_global_id(0)] = x; }");
  int32_t kernel = bridge.CLKernelCreate(program, u"spin");
  int32_t out = bridge.CLBufferCreate(context, 1024 * 4, MQLCL_MEM_READ_WRITE);
  const int32_t iterations = 1 << 30;
  const uint32_t global[1] = {1024};
  bool launched = bridge.CLSetKernelArgMem(kernel, 0, out) == 1 &&
                  bridge.CLSetKernelArg(kernel, 1, &iterations, sizeof iterations) == 1 &&
                  bridge.CLExecute(kernel, 1, nullptr, global, nullptr) == 1;
  return launched ? kernel : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s launch_in_flight|kernel_running|exit_from_thread\n", argv[0]);
    return 2;
  }
  const std::string scenario = argv[1];
  Bridge bridge;
  if (!bridge.load()) {
    std::fprintf(stderr, "cannot load the bridge: %s\n", dlerror());
    return 2;
  }
  bridge.CLBufferFree(-1); // this thread has seen an error
  int32_t launched_kernel = launch_and_leave(bridge, scenario != "launch_in_flight");
  if (launched_kernel == 0) {
    std::fprintf(stderr, "setting up failed\n");
    return 3;
  }
  int32_t status = bridge.CLExecutionStatus(launched_kernel);
  if (scenario != "launch_in_flight") {
    // Exit once the kernel runs, not while PoCL still compiles it (launch_in_flight's case).
    // NVIDIA's driver reports a launch CL_SUBMITTED until it is complete, never CL_RUNNING.
    const bool gpu = (bridge.CLGetInfoInteger(launched_kernel, MQLCL_CL_DEVICE_TYPE) & 4) != 0;
    const int32_t running = gpu ? MQLCL_CL_SUBMITTED : MQLCL_CL_RUNNING;
    for (int tries = 0; tries < 6000 && status > running; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      status = bridge.CLExecutionStatus(launched_kernel);
    }
    if (status != MQLCL_CL_RUNNING && status != running)
      return 4; // ended or never started: this run would prove nothing
  }
  std::printf("exiting with %lld live handles, last launch status %d\n",
              static_cast<long long>(bridge.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT)), status);
  std::fflush(stdout);
  if (mqlcl_fault::calls(mqlcl_fault::Call::clCreateContext) == 0)
    return 6; // the fault layer is not in the ICD loader's chain (OPENCL_LAYERS)
  mqlcl_fault::check_no_calls_from_here_to_exit();
  if (scenario == "exit_from_thread")
    std::thread([] { std::exit(0); }).join(); // exit() runs while main still waits here
  return 0;
}
