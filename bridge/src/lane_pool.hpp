// The staged transfers' helper threads, kept parked between calls.
//
// A staged transfer runs its lanes on several threads at once (staging.cpp). Started and joined
// per call, 7 helper threads cost a 16 MiB write half its time on an H200's host (0.51 ms against
// 0.27 ms with threads kept parked; waking 7 parked threads costs 23 us, starting them 109 us).
// So the threads stay, parked on a condition variable, until the library unloads:
//  - on POSIX they park for good; the pool's destructor (at dlclose, release_at_unload) wakes and
//    joins them, and at process exit they are left to the operating system like the rest;
//  - on Windows each holds the DLL loaded while it lives (os::Thread), so FreeLibrary cannot
//    unload the code under it; a thread idle for kWindowsIdle leaves, and the DLL unloads when
//    the last one has left.
// One call uses the pool at a time; a concurrent call (another context's transfer) starts threads
// of its own, as the bridge did before the pool.
#pragma once

#include "os_library.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace mqlcl {

class LanePool {
public:
  using Lane = std::function<void(size_t)>;
  // The process's pool (process_wide): parked for good on POSIX, kWindowsIdle on Windows.
  static LanePool &instance();
  static constexpr std::chrono::milliseconds kWindowsIdle{1000};

  // Threads that leave after `idle` without work; nullopt: never (until the pool is destroyed).
  explicit LanePool(std::optional<std::chrono::milliseconds> idle) : idle_(idle) {}
  LanePool(const LanePool &) = delete;
  LanePool &operator=(const LanePool &) = delete;
  ~LanePool(); // wakes every thread and joins it

  // Runs lane(0) .. lane(lanes - 1) at once: lane 0 on the caller, the others on the pool's
  // threads, started where missing. Returns when every lane has ended. False, having run
  // nothing, when another call holds the pool or a thread cannot start: the caller then runs
  // the lanes itself. `lane` must not throw.
  bool run(size_t lanes, const Lane &lane) noexcept;

  // Threads alive now (parked or working), and how many were started since the pool was made.
  size_t threads_alive() const;
  uint64_t threads_started() const;

private:
  struct Worker {
    std::optional<os::Thread> thread;
    bool alive = false; // false once its loop has ended (it may still be finishing)
  };
  void park(size_t index, uint64_t seen) noexcept;
  bool start_missing(size_t lanes) noexcept;

  const std::optional<std::chrono::milliseconds> idle_;
  std::mutex in_use_; // held by the one call that uses the pool
  mutable std::mutex mutex_;
  std::condition_variable wake_, finished_;
  std::vector<std::unique_ptr<Worker>> workers_; // worker i runs lane i + 1
  const Lane *lane_ = nullptr;
  size_t lanes_ = 0, unfinished_ = 0;
  uint64_t generation_ = 0, started_ = 0;
  bool quit_ = false;
};

} // namespace mqlcl
