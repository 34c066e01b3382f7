// Handles left alive when the library unloads are released. The shipped libmqlcl.so is loaded
// with dlopen, used, and unloaded with dlclose while every kind of handle is still alive; the
// fault layer (fault_layer.hpp) sits in the ICD loader's chain (OPENCL_LAYERS, set by ctest) and
// counts what the driver handed out and got back.
//
// Whichever thread calls dlclose, and whatever errors it or others recorded, the library unloads:
// glibc keeps a library loaded while a live thread has one of its thread_local objects to destroy,
// so the bridge keeps no such object (bridge/src/errors.hpp). The cases below unload from a
// thread that has ended, from the very thread that made the objects and saw errors, and while
// another thread that saw errors still lives.
#define BOOST_TEST_MODULE reliability_unload
#include "dlopened_bridge.hpp"
#include "fault_layer.hpp"
#include "test_kernels.hpp"

#include <mqlcl/mqlcl.h>

#include <boost/test/unit_test.hpp>

#include <dlfcn.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using mqlcl_fault::Call;
using mqlcl_fault::Kind;

namespace {

// The exports this test calls, resolved from the loaded file as a host program would.
struct Bridge : mqlcl_test::DlopenedBridge {
  bool load() { return DlopenedBridge::load(MQLCL_LIBRARY_PATH); }
};

bool library_is_loaded() {
  void *probe = dlopen(MQLCL_LIBRARY_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (probe != nullptr)
    dlclose(probe);
  return probe != nullptr;
}

// What one run left alive, by the bridge's count and the driver's.
struct Alive {
  bool ran = false;
  int64_t handles = 0;
};

// Creates every kind of object (a launch too, so an event is held) and frees none of them.
Alive leave_everything_alive(Bridge &bridge) {
  Alive alive;
  int32_t context = bridge.CLContextCreate(MQLCL_USE_ANY);
  int32_t program = bridge.CLProgramCreate(context, mqlcl_test::kTestKernels);
  int32_t axpy = bridge.CLKernelCreate(program, u"axpy");
  int32_t spare = bridge.CLKernelCreate(program, u"coordinates");
  int32_t x = bridge.CLBufferCreate(context, 1024, 0);
  int32_t y = bridge.CLBufferCreate(context, 1024, 0);
  int32_t extra = bridge.CLBufferCreate(context, 64, 0);
  if (context < 0 || program < 0 || axpy < 0 || spare < 0 || x < 0 || y < 0 || extra < 0)
    return alive;
  std::vector<float> host(256, 1.0f);
  const float a = 2.0f;
  const uint32_t global[1] = {256};
  alive.ran = bridge.CLBufferWrite(x, host.data(), 0, 0, 256, 4) == 256 &&
              bridge.CLSetKernelArgMem(axpy, 0, x) && bridge.CLSetKernelArgMem(axpy, 1, y) &&
              bridge.CLSetKernelArg(axpy, 2, &a, 4) &&
              bridge.CLExecute(axpy, 1, nullptr, global, nullptr) &&
              bridge.CLBufferRead(y, host.data(), 0, 0, 256, 4) == 256 && host[0] == 2.0f;
  alive.handles = bridge.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT);
  return alive;
}

void expect_nothing_live() {
  for (int k = 0; k < static_cast<int>(Kind::count); ++k) {
    Kind kind = static_cast<Kind>(k);
    BOOST_TEST(mqlcl_fault::live(kind) == 0,
               mqlcl_fault::name_of(kind) << ": " << mqlcl_fault::acquired(kind) << " acquired, "
                                          << mqlcl_fault::released(kind) << " released");
  }
}

} // namespace

BOOST_AUTO_TEST_CASE(handles_left_alive_are_released_when_the_library_unloads) {
  BOOST_TEST_REQUIRE(!library_is_loaded());
  Bridge bridge;
  Alive alive;
  std::thread([&] {
    if (bridge.load())
      alive = leave_everything_alive(bridge);
  }).join();
  BOOST_TEST_REQUIRE(bridge.library != nullptr, dlerror());
  BOOST_TEST_REQUIRE(alive.ran, "the bridge did not run a kernel");
  BOOST_TEST_REQUIRE(mqlcl_fault::calls(Call::clCreateContext) > 0u,
                     "the fault layer is not in the ICD loader's chain (OPENCL_LAYERS)");
  BOOST_TEST(alive.handles == 7);
  BOOST_TEST(mqlcl_fault::live(Kind::context) == 1);
  BOOST_TEST(mqlcl_fault::live(Kind::queue) == 1);
  BOOST_TEST(mqlcl_fault::live(Kind::program) == 1);
  BOOST_TEST(mqlcl_fault::live(Kind::kernel) == 2);
  BOOST_TEST(mqlcl_fault::live(Kind::memory) == 3);
  BOOST_TEST(mqlcl_fault::live(Kind::event) == 1); // the kernel's last launch

  BOOST_TEST(dlclose(bridge.library) == 0);
  BOOST_TEST(!library_is_loaded(), "dlclose did not unload the library");
  expect_nothing_live();
  BOOST_TEST(mqlcl_fault::released(Kind::memory) == 3);
}

// A fresh load after an unload starts from nothing and works (no state survived the unload).
BOOST_AUTO_TEST_CASE(the_library_loads_again_and_works) {
  Bridge bridge;
  Alive alive;
  std::thread([&] {
    if (bridge.load())
      alive = leave_everything_alive(bridge);
  }).join();
  BOOST_TEST_REQUIRE(alive.ran);
  BOOST_TEST(alive.handles == 7); // none of the first load's handles are here
  BOOST_TEST(dlclose(bridge.library) == 0);
  BOOST_TEST(!library_is_loaded());
  expect_nothing_live();
}

// The thread that made the objects has recorded errors (a stale handle, a wrong argument size),
// and that same thread unloads: the library goes, with everything it held.
BOOST_AUTO_TEST_CASE(dlclose_by_the_thread_that_saw_errors_unloads_and_releases) {
  BOOST_TEST_REQUIRE(!library_is_loaded());
  Bridge bridge;
  BOOST_TEST_REQUIRE(bridge.load(), dlerror());
  bridge.CLBufferFree(-1);
  BOOST_TEST_REQUIRE(bridge.CLGetLastError() == MQLCL_ERR_OPENCL_INVALID_HANDLE);
  Alive alive = leave_everything_alive(bridge);
  BOOST_TEST_REQUIRE(alive.ran);
  BOOST_TEST(alive.handles == 7);
  bridge.CLBufferFree(-1);
  BOOST_TEST(dlclose(bridge.library) == 0);
  BOOST_TEST(!library_is_loaded(), "dlclose did not unload the library");
  expect_nothing_live();

  // A fresh load holds nothing of the old one: no object, and no error for this thread.
  Bridge again;
  BOOST_TEST_REQUIRE(again.load(), dlerror());
  BOOST_TEST(again.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == 0);
  BOOST_TEST(again.CLGetLastError() == 0);
  BOOST_TEST(dlclose(again.library) == 0);
  BOOST_TEST(!library_is_loaded());
}

// Another thread made the objects, saw an error and is still alive, waiting, when this one
// unloads; it ends afterwards, with nothing of the library left to run at its exit.
BOOST_AUTO_TEST_CASE(dlclose_while_a_thread_that_saw_errors_lives_on) {
  BOOST_TEST_REQUIRE(!library_is_loaded());
  Bridge bridge;
  BOOST_TEST_REQUIRE(bridge.load(), dlerror());
  std::mutex mutex;
  std::condition_variable changed;
  bool ready = false, unloaded = false;
  Alive alive;
  int32_t error_seen = 0;
  std::thread worker([&] {
    alive = leave_everything_alive(bridge);
    bridge.CLBufferFree(-1);
    error_seen = bridge.CLGetLastError();
    std::unique_lock<std::mutex> lock(mutex);
    ready = true;
    changed.notify_all();
    changed.wait(lock, [&] { return unloaded; });
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return ready; });
  }
  BOOST_TEST(alive.ran);
  BOOST_TEST(error_seen == MQLCL_ERR_OPENCL_INVALID_HANDLE);
  BOOST_TEST(dlclose(bridge.library) == 0);
  BOOST_TEST(!library_is_loaded(), "dlclose did not unload the library");
  expect_nothing_live();
  {
    std::lock_guard<std::mutex> lock(mutex);
    unloaded = true;
  }
  changed.notify_all();
  worker.join();
}

namespace {
// The process's threads named "mqlcl": the bridge's own (os::Thread names them).
int bridge_threads() {
  int count = 0;
  for (const auto &task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (std::getline(comm, name) && name == "mqlcl")
      ++count;
  }
  return count;
}
} // namespace

// Staged transfers leave the bridge's lane threads parked for the next (bridge/src/lane_pool.hpp);
// dlclose wakes and joins them before the code goes, and the library unloads.
BOOST_AUTO_TEST_CASE(dlclose_ends_the_lane_threads_that_staged_transfers_keep) {
  BOOST_TEST_REQUIRE(!library_is_loaded());
  BOOST_TEST_REQUIRE(bridge_threads() == 0);
  // Staged on any device, in chunks of 256 KiB: read by the library at its first transfer.
  struct Staged {
    Staged() {
      setenv("MQLCL_STAGING", "on", 1);
      setenv("MQLCL_STAGING_CHUNK_KIB", "256", 1);
    }
    ~Staged() {
      unsetenv("MQLCL_STAGING");
      unsetenv("MQLCL_STAGING_CHUNK_KIB");
    }
  } staged;
  Bridge bridge;
  BOOST_TEST_REQUIRE(bridge.load(), dlerror());
  const int32_t context = bridge.CLContextCreate(MQLCL_USE_ANY);
  const uint32_t count = 1u << 20; // 4 MiB: 16 chunks
  const int32_t buffer = bridge.CLBufferCreate(context, count * 4, 0);
  BOOST_TEST_REQUIRE((context >= 0 && buffer >= 0));
  std::vector<float> out(count), in(count);
  for (uint32_t i = 0; i < count; ++i)
    out[i] = float(i);
  BOOST_TEST_REQUIRE(bridge.CLBufferWrite(buffer, out.data(), 0, 0, count, 4) == count);
  BOOST_TEST_REQUIRE(bridge.CLBufferRead(buffer, in.data(), 0, 0, count, 4) == count);
  BOOST_TEST((in == out));
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores > 1)
    BOOST_TEST(bridge_threads() > 0, "no lane thread parked after the transfers");
  else
    BOOST_TEST_MESSAGE("one hardware thread: one lane, no helper thread to check");
  BOOST_TEST(dlclose(bridge.library) == 0);
  BOOST_TEST(!library_is_loaded(), "dlclose did not unload the library");
  BOOST_TEST(bridge_threads() == 0, "a lane thread outlived the unload");
  expect_nothing_live();
}
