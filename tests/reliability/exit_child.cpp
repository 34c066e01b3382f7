// A process that leaves the bridge in some state and exits, run as a child by test_exit.cpp,
// which requires exit status 0 within a few seconds. Its main thread has seen an error too. The
// scenario is the first argument:
//   launch_in_flight   a launch just enqueued, then return from main
//   launch_completed   the same launch, run to its end (PoCL keeps what it compiled for it)
//   kernel_running     a kernel that runs for minutes, then return from main
//   exit_from_thread   a kernel that runs for minutes, then exit(0) from another thread
//   read_in_flight     a non-blocking read of 256 MiB (32 under sanitizers; doubled where it
//                      ended before its status was asked) still copying, then return
//   gemm_in_flight     CLGemm products still running (a read of C queued behind them), then return
//   spread_context     a context of MQLCL_USE_SPREAD, then return from main
//   spread_policy      MQLCL_DEVICE_POLICY=spread and a context of MQLCL_USE_ANY, then return
//   owners_race        threads creating, selecting and freeing owners while main returns
//   calls_race         threads writing, launching, reading (blocking and not), multiplying,
//                      creating and freeing buffers, contexts and owners while main returns
// In the two races, an exit handler of the program's own keeps exit going for 100 ms.
// A second argument, close_at_exit (the dlopen build only), has a static object's destructor
// dlclose the bridge during exit, as a loader held in a static object does (Boost.DLL).
// Where no thread races exit, the fault layer in the ICD loader's chain (OPENCL_LAYERS) ends the
// process with status 5 if any OpenCL call reaches it once exit has begun. Exit status 2 or 3:
// it could not load the bridge or set up; 4: the state to exit from was not reached; 6: the layer
// is not in the chain.
// Built twice: linked against libmqlcl.so (MQLCL_EXIT_CHILD_LINKED), and loading it with dlopen.
#include "dlopened_bridge.hpp"
#include "fault_layer.hpp"

#include <mqlcl/mqlcl.h>

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kReady = 0, kSetupFailed = 3, kNotReached = 4;

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

// Built before main, so its destructor runs during exit after the bridge's exit handler.
struct CloseAtExit {
  void *library = nullptr;
  ~CloseAtExit() {
    if (library != nullptr)
      dlclose(library);
  }
} close_at_exit;

// 2^30 iterations per work-item: 1024 of them keep a CPU busy for minutes.
const char16_t *const kSpin = u"__kernel void spin(__global float *out, int n) { float x = "
                              u"get_global_id(0); for (int k = 0; k < n; ++k) x = x * 0.999f + "
                              u"1.0f; out[get_global_id(0)] = x; }";
const char16_t *const kTwice =
    u"__kernel void twice(__global float *x) { x[get_global_id(0)] *= 2.0f; }";

// Polls `kernel`'s launch every 10 ms, for up to a minute, until its status is `until` or later
// (CL_COMPLETE is the last); returns the status it last read.
int32_t poll_status(Bridge &bridge, int32_t kernel, int32_t until) {
  int32_t status = bridge.CLExecutionStatus(kernel);
  for (int tries = 0; tries < 6000 && status > until; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    status = bridge.CLExecutionStatus(kernel);
  }
  return status;
}

// Waits until `kernel`'s launch runs; kReady, or kNotReached when it ended or never started.
// NVIDIA's driver reports a launch CL_SUBMITTED until it is complete, never CL_RUNNING.
int wait_until_running(Bridge &bridge, int32_t kernel) {
  const bool gpu = (bridge.CLGetInfoInteger(kernel, MQLCL_CL_DEVICE_TYPE) & 4) != 0;
  const int32_t running = gpu ? MQLCL_CL_SUBMITTED : MQLCL_CL_RUNNING;
  const int32_t status = poll_status(bridge, kernel, running);
  return status == MQLCL_CL_RUNNING || status == running ? kReady : kNotReached;
}

// The launch of launch_in_flight and launch_completed.
int32_t launch_noargs(Bridge &bridge, int32_t context) {
  int32_t program = bridge.CLProgramCreate(context, u"__kernel void noargs(void) { }");
  int32_t kernel = bridge.CLKernelCreate(program, u"noargs");
  return bridge.CLExecute(kernel, 0, nullptr, nullptr, nullptr) == 1 ? kernel : -1;
}

// launch_completed: the launch, run to its end, so that PoCL keeps what it compiled for it.
int launch_completed(Bridge &bridge) {
  int32_t kernel = launch_noargs(bridge, bridge.CLContextCreate(MQLCL_USE_ANY));
  if (kernel < 0)
    return kSetupFailed;
  return poll_status(bridge, kernel, MQLCL_CL_COMPLETE) == MQLCL_CL_COMPLETE ? kReady : kNotReached;
}

int launch(Bridge &bridge, bool long_running) {
  int32_t context = bridge.CLContextCreate(MQLCL_USE_ANY);
  if (!long_running) // just enqueued: in flight at exit
    return launch_noargs(bridge, context) >= 0 ? kReady : kSetupFailed;
  int32_t program = bridge.CLProgramCreate(context, kSpin);
  int32_t kernel = bridge.CLKernelCreate(program, u"spin");
  int32_t out = bridge.CLBufferCreate(context, 1024 * 4, MQLCL_MEM_READ_WRITE);
  const int32_t iterations = 1 << 30;
  const uint32_t global[1] = {1024};
  bool launched = bridge.CLSetKernelArgMem(kernel, 0, out) == 1 &&
                  bridge.CLSetKernelArg(kernel, 1, &iterations, sizeof iterations) == 1 &&
                  bridge.CLExecute(kernel, 1, nullptr, global, nullptr) == 1;
  return launched ? wait_until_running(bridge, kernel) : kSetupFailed;
}

// The driver copies into the bridge's memory while the process exits. Under ThreadSanitizer,
// which slows every byte copied or filled, and under AddressSanitizer, whose leak check scans the
// kept memory at exit (one run of 6 took over 10 s beside another test), 32 MiB, so the child
// stays within the test's limit.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr uint32_t kReadBytes = 32u << 20;
#else
constexpr uint32_t kReadBytes = 256u << 20;
#endif

// A read that ends before its status is asked (under ASan a 32 MiB one did, once) is followed by
// one twice its size, up to four.
int read_in_flight(Bridge &bridge) {
  int32_t context = bridge.CLContextCreate(MQLCL_USE_ANY);
  for (uint32_t bytes = kReadBytes, tries = 0; tries < 4; bytes *= 2, ++tries) {
    int32_t buffer = bridge.CLBufferCreate(context, bytes, MQLCL_MEM_READ_WRITE);
    if (buffer < 0 || bridge.CLBufferReadStart(buffer, 0, bytes) != 1)
      return kSetupFailed;
    if (bridge.CLBufferReadStatus(buffer) > MQLCL_CL_COMPLETE)
      return kReady;
  }
  return kNotReached;
}

struct Matrices {
  int32_t context = -1, a = -1, b = -1, c = -1;
  uint32_t n = 0;
};

Matrices make_matrices(Bridge &bridge, int32_t context, uint32_t n) {
  Matrices m{context, -1, -1, -1, n};
  m.a = bridge.CLBufferCreate(context, n * n * 4, MQLCL_MEM_READ_WRITE);
  m.b = bridge.CLBufferCreate(context, n * n * 4, MQLCL_MEM_READ_WRITE);
  m.c = bridge.CLBufferCreate(context, n * n * 4, MQLCL_MEM_READ_WRITE);
  return m;
}

bool multiply(Bridge &bridge, const Matrices &m) {
  return bridge.CLGemm(m.a, m.b, m.c, MQLCL_GEMM_FLOAT, MQLCL_GEMM_EXACT, 0, 0, m.n, m.n, m.n, 1.0,
                       0.0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0) == 1;
}

// Products enqueued after one that ran (so PoCL has compiled its kernels), still running at exit:
// a read of C queued behind them has not completed. Where the read ended before its status was
// asked (under ASan, eight products once did), it is taken and twice as many products go before
// the next, up to four tries.
int gemm_in_flight(Bridge &bridge) {
  Matrices m = make_matrices(bridge, bridge.CLContextCreate(MQLCL_USE_ANY), 512);
  if (!multiply(bridge, m))
    return kSetupFailed;
  bridge.CLGetInfoInteger(m.context, MQLCL_CL_GEMM_EXECUTION_TIME); // waits for it
  for (int products = 8, tries = 0; tries < 4; products *= 2, ++tries) {
    for (int product = 0; product < products; ++product)
      if (!multiply(bridge, m))
        return kSetupFailed;
    if (bridge.CLBufferReadStart(m.c, 0, 4) != 1)
      return kSetupFailed;
    if (bridge.CLBufferReadStatus(m.c) > MQLCL_CL_COMPLETE)
      return kReady;
    float first = 0; // one read per buffer at a time: the finished one ends before the next
    if (bridge.CLBufferReadTake(m.c, &first, 0, 1, sizeof first) != 1)
      return kSetupFailed;
  }
  return kNotReached;
}

int spread(Bridge &bridge, bool by_policy) {
  if (by_policy)
    setenv("MQLCL_DEVICE_POLICY", "spread", 1);
  int32_t context = bridge.CLContextCreate(by_policy ? MQLCL_USE_ANY : MQLCL_USE_SPREAD);
  return bridge.CLBufferCreate(context, 64, MQLCL_MEM_READ_WRITE) >= 0 ? kReady : kSetupFailed;
}

// ---- Threads that race exit ---------------------------------------------------------------

// Registered before the bridge's first use, so exit runs it after the bridge's exit handler and
// after every static destructor registered since: a program's own exit handlers may take a
// while, and the racing threads go on calling the bridge meanwhile.
void linger_in_exit() {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

struct Race {
  std::vector<std::atomic<int>> rounds;
  explicit Race(size_t threads) : rounds(threads) {}
  // Waits until every thread has run `enough` rounds; false after a minute.
  bool wait_for(int enough) const {
    for (int tries = 0; tries < 6000; ++tries) {
      bool all = true;
      for (const std::atomic<int> &count : rounds)
        all = all && count.load() >= enough;
      if (all)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

void churn_owners(Bridge &bridge, std::atomic<int> &rounds) {
  for (;;) {
    int32_t owner = bridge.CLOwnerCreate();
    bridge.CLOwnerSelect(0);
    bridge.CLOwnerSelect(owner);
    bridge.CLOwnerFree(owner);
    bridge.CLOwnerFree(owner); // refused: a last error
    ++rounds;
  }
}

// The threads race exit: what they use is never destroyed (`bridge` is a static of main's too).
int owners_race(Bridge &bridge) {
  if (bridge.CLContextCreate(MQLCL_USE_ANY) < 0)
    return kSetupFailed;
  static Race &race = *new Race(4);
  for (std::atomic<int> &rounds : race.rounds)
    std::thread(churn_owners, std::ref(bridge), std::ref(rounds)).detach();
  return race.wait_for(20) ? kReady : kNotReached;
}

struct Shared {
  int32_t context = -1, program = -1;
  Matrices small; // CLGemm's 16 x 16 product
};

constexpr uint32_t kItems = 1024;
constexpr uint32_t kGroup = 64;

// One round of most calls a program makes, on `kernel` and `buffer` of its own.
void calls_round(Bridge &bridge, const Shared &shared, int32_t kernel, int32_t buffer,
                 std::vector<float> &host) {
  const uint32_t global[1] = {kItems}, local[1] = {kGroup};
  bridge.CLBufferWrite(buffer, host.data(), 0, 0, kItems, 4);
  bridge.CLSetKernelArgMem(kernel, 0, buffer);
  bridge.CLExecute(kernel, 1, nullptr, global, local);
  bridge.CLBufferRead(buffer, host.data(), 0, 0, kItems, 4);
  bridge.CLBufferReadStart(buffer, 0, kItems * 4);
  bridge.CLBufferReadStatus(buffer);
  bridge.CLBufferReadTake(buffer, host.data(), 0, kItems, 4);
  bridge.CLBufferReadStart(buffer, 0, kItems * 4); // left pending until the next round
  multiply(bridge, shared.small);
  int32_t spare = bridge.CLBufferCreate(shared.context, 4096, MQLCL_MEM_READ_WRITE);
  bridge.CLBufferFree(spare);
  bridge.CLBufferFree(-1);
  bridge.CLGetLastError();
  bridge.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  bridge.CLOwnerFree(bridge.CLOwnerCreate());
  bridge.CLBufferReadTake(buffer, host.data(), 0, kItems, 4);
}

void make_calls(Bridge &bridge, const Shared &shared, std::atomic<int> &rounds, bool contexts) {
  int32_t kernel = bridge.CLKernelCreate(shared.program, u"twice");
  int32_t buffer = bridge.CLBufferCreate(shared.context, kItems * 4, MQLCL_MEM_READ_WRITE);
  std::vector<float> host(kItems, 1.0f);
  for (;;) {
    calls_round(bridge, shared, kernel, buffer, host);
    if (contexts) // a context of its own, freed: the device list, ~Context
      bridge.CLContextFree(bridge.CLContextCreate(MQLCL_USE_ANY));
    ++rounds;
  }
}

// Every launch and product the threads make ran once before, so PoCL compiles nothing during
// exit (its compiler, LLVM, is torn down by then: docs/api.md).
int calls_race(Bridge &bridge) {
  static Shared shared;
  shared.context = bridge.CLContextCreate(MQLCL_USE_ANY);
  shared.program = bridge.CLProgramCreate(shared.context, kTwice);
  shared.small = make_matrices(bridge, shared.context, 16);
  int32_t kernel = bridge.CLKernelCreate(shared.program, u"twice");
  int32_t buffer = bridge.CLBufferCreate(shared.context, kItems * 4, MQLCL_MEM_READ_WRITE);
  std::vector<float> host(kItems, 1.0f);
  calls_round(bridge, shared, kernel, buffer, host);
  if (bridge.CLBufferRead(buffer, host.data(), 0, 0, kItems, 4) != kItems || host[0] != 2.0f)
    return kSetupFailed;
  static Race &race = *new Race(3);
  for (size_t thread = 0; thread < race.rounds.size(); ++thread)
    std::thread(make_calls, std::ref(bridge), std::cref(shared), std::ref(race.rounds[thread]),
                thread == 0)
        .detach();
  return race.wait_for(3) ? kReady : kNotReached;
}

// kReady once the state to exit from is reached, else the exit status that says why not.
int reach(Bridge &bridge, const std::string &scenario) {
  if (scenario == "launch_in_flight")
    return launch(bridge, false);
  if (scenario == "launch_completed")
    return launch_completed(bridge);
  if (scenario == "kernel_running" || scenario == "exit_from_thread")
    return launch(bridge, true);
  if (scenario == "read_in_flight")
    return read_in_flight(bridge);
  if (scenario == "gemm_in_flight")
    return gemm_in_flight(bridge);
  if (scenario == "spread_context" || scenario == "spread_policy")
    return spread(bridge, scenario == "spread_policy");
  if (scenario == "owners_race")
    return owners_race(bridge);
  if (scenario == "calls_race")
    return calls_race(bridge);
  std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::strcmp(argv[2], "close_at_exit") != 0)) {
    std::fprintf(stderr, "usage: %s SCENARIO [close_at_exit]\n", argv[0]);
    return 2;
  }
  const std::string scenario = argv[1];
  if (scenario.find("_race") != std::string::npos)
    std::atexit(linger_in_exit);
  static Bridge bridge; // threads still use it while main returns
  if (!bridge.load()) {
    std::fprintf(stderr, "cannot load the bridge: %s\n", dlerror());
    return 2;
  }
  if (argc == 3)
    close_at_exit.library = bridge.library; // nullptr (nothing to close) when linked
  bridge.CLBufferFree(-1);                  // this thread has seen an error
  if (int reached = reach(bridge, scenario); reached != kReady)
    return reached;
  std::printf("%s: exiting with %lld live handles\n", scenario.c_str(),
              static_cast<long long>(bridge.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT)));
  std::fflush(stdout);
  if (mqlcl_fault::calls(mqlcl_fault::Call::clCreateContext) == 0)
    return 6; // the fault layer is not in the ICD loader's chain (OPENCL_LAYERS)
  if (scenario.find("_race") == std::string::npos)
    mqlcl_fault::check_no_calls_from_here_to_exit();
  if (scenario == "exit_from_thread")
    std::thread([] { std::exit(0); }).join(); // exit() runs while main still waits here
  return 0;
}
