// A process that ends while the bridge holds live objects and device work ends at once and
// cleanly: no call into a driver that exit() is tearing down, no wait for a running kernel.
// Each case runs exit_child.cpp as a child process, built linked against libmqlcl.so and loading
// it with dlopen, and requires exit status 0 within kExitLimit of starting it; the fault layer in
// the ICD loader's chain (OPENCL_LAYERS, set by ctest) turns any OpenCL call made once exit has
// begun into exit status 5.
#define BOOST_TEST_MODULE reliability_exit
#include "fault_layer.hpp"
#include "opencl_device.hpp"
#include "scoped_environment.hpp"

#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

extern char **environ;

namespace {

constexpr std::chrono::seconds kExitLimit{10};

struct ChildOutcome {
  bool finished = false;
  int status = 0;
  double seconds = 0;
};

// `how` is nullptr, or "close_at_exit" (exit_child.cpp).
ChildOutcome run_child(const char *executable, const char *scenario, const char *how = nullptr) {
  ChildOutcome outcome;
  char *argv[] = {const_cast<char *>(executable), const_cast<char *>(scenario),
                  const_cast<char *>(how), nullptr};
  pid_t child = 0;
  int spawned = posix_spawn(&child, executable, nullptr, nullptr, argv, environ);
  BOOST_TEST_REQUIRE(spawned == 0, "posix_spawn " << executable << ": error " << spawned);
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < kExitLimit) {
    if (waitpid(child, &outcome.status, WNOHANG) == child) {
      outcome.finished = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!outcome.finished) {
    kill(child, SIGKILL);
    waitpid(child, &outcome.status, 0);
  }
  return outcome;
}

std::string describe(const ChildOutcome &child) {
  if (!child.finished)
    return "still running after " + std::to_string(kExitLimit.count()) + " s";
  if (WIFSIGNALED(child.status))
    return "killed by signal " + std::to_string(WTERMSIG(child.status));
  int status = WEXITSTATUS(child.status);
  return "exit status " + std::to_string(status) +
         (status == mqlcl_fault::kCalledDuringExit ? " (the bridge called OpenCL during exit)"
                                                   : "") +
         " after " + std::to_string(child.seconds) + " s";
}

bool exited_cleanly(const ChildOutcome &child) {
  return child.finished && WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0;
}

void expect_clean_exit(const char *executable, const char *scenario, const char *how = nullptr) {
  ChildOutcome child = run_child(executable, scenario, how);
  BOOST_TEST(exited_cleanly(child),
             executable << " " << scenario << " " << (how ? how : "") << ": " << describe(child));
}

// `runs` clean exits of each way of holding the bridge: linked, loaded with dlopen, and loaded
// with dlopen and closed by a static object during exit.
void expect_clean_exits(const char *scenario, int runs) {
  for (int run = 0; run < runs; ++run) {
    expect_clean_exit(MQLCL_EXIT_CHILD_LINKED_PATH, scenario);
    expect_clean_exit(MQLCL_EXIT_CHILD_DLOPEN_PATH, scenario);
    expect_clean_exit(MQLCL_EXIT_CHILD_DLOPEN_PATH, scenario, "close_at_exit");
  }
}

// Threads still in the bridge while main returns: each way of holding it but closing it during
// exit, which would unmap the code under them.
void expect_clean_exits_with_threads(const char *scenario, int runs) {
  for (int run = 0; run < runs; ++run) {
    expect_clean_exit(MQLCL_EXIT_CHILD_LINKED_PATH, scenario);
    expect_clean_exit(MQLCL_EXIT_CHILD_DLOPEN_PATH, scenario);
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(process_exit, *boost::unit_test::precondition(mqlcl_test::needs_device()))

// The launch is enqueued, not yet run, when main returns: the old registry destructor waited in
// clFinish during exit (the fault layer now ends such a child with status 5). PoCL compiles a
// launch when it first runs it, and PoCL 3.1 itself crashes when exit tears LLVM down under that
// compile, without the bridge too (raw OpenCL doing the same died in 2 of 40 runs; the children
// aborted in most runs, under AddressSanitizer in every one): so PoCL's kernel cache, a folder of
// the test's own, first holds the launch's compiled form, and every run must exit cleanly.
BOOST_AUTO_TEST_CASE(exit_with_a_launch_in_flight) {
  const auto pocl_cache = std::filesystem::temp_directory_path() /
                          ("mqlcl-test-exit-pocl-" + std::to_string(std::random_device{}()));
  mqlcl_test::ScopedEnvironment cache("POCL_CACHE_DIR", pocl_cache.string());
  expect_clean_exit(MQLCL_EXIT_CHILD_LINKED_PATH, "launch_completed");
  expect_clean_exits("launch_in_flight", 5);
  std::error_code ignored;
  std::filesystem::remove_all(pocl_cache, ignored);
}

// A kernel that runs (compiled, started) and would go on for minutes: exit does not wait for it.
// The bridge's old exit waited in clFinish.
BOOST_AUTO_TEST_CASE(exit_with_a_kernel_running) {
  expect_clean_exit(MQLCL_EXIT_CHILD_LINKED_PATH, "kernel_running");
  expect_clean_exit(MQLCL_EXIT_CHILD_DLOPEN_PATH, "kernel_running");
}

// exit() called by another thread than the one that made the objects.
BOOST_AUTO_TEST_CASE(exit_from_another_thread_with_a_kernel_running) {
  expect_clean_exit(MQLCL_EXIT_CHILD_LINKED_PATH, "exit_from_thread");
  expect_clean_exit(MQLCL_EXIT_CHILD_DLOPEN_PATH, "exit_from_thread");
}

// The driver is still copying into the read's memory, which the bridge owns: exit leaves it be.
// The bridge's old exit freed it under the copy (SIGSEGV every time).
BOOST_AUTO_TEST_CASE(exit_with_a_non_blocking_read_in_flight) {
  expect_clean_exits("read_in_flight", 2);
}

// CLGemm's products still running, each already compiled by PoCL.
BOOST_AUTO_TEST_CASE(exit_with_gemm_products_in_flight) {
  expect_clean_exits("gemm_in_flight", 1);
}

// A spread context: the placements' table outlives exit. The bridge's old exit cleared it after
// exit had destroyed it ("double free or corruption", SIGABRT).
BOOST_AUTO_TEST_CASE(exit_with_a_spread_context) {
  expect_clean_exits("spread_context", 1);
  expect_clean_exits("spread_policy", 1);
}

// Threads creating, selecting and freeing owners while main returns: the owners' table outlives
// exit. Its old static destructor ran under them (SIGSEGV).
BOOST_AUTO_TEST_CASE(exit_while_threads_create_select_and_free_owners) {
  expect_clean_exits_with_threads("owners_race", 5);
}

// Threads in nearly every kind of call (writes, launches, reads blocking and not, products,
// buffers, contexts and owners made and freed, errors) while main returns.
BOOST_AUTO_TEST_CASE(exit_while_threads_make_bridge_calls) {
  expect_clean_exits_with_threads("calls_race", 5);
}

BOOST_AUTO_TEST_SUITE_END()
