#include "lane_pool.hpp"

#include "process_state.hpp"

#include <exception>

namespace mqlcl {

LanePool &LanePool::instance() {
#if defined(_WIN32)
  static LanePool &pool = process_wide<LanePool>(std::optional(kWindowsIdle));
#else
  static LanePool &pool = process_wide<LanePool>(std::optional<std::chrono::milliseconds>());
#endif
  return pool;
}

LanePool::~LanePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (auto &worker : workers_)
    if (worker->thread)
      worker->thread->release_at_unload();
}

// One thread's life: waits for a call's lanes, runs its own if the call has that many, and
// leaves at quit_ or after idle_ without a call.
void LanePool::park(size_t index, uint64_t seen) noexcept {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto called = [&] { return quit_ || generation_ != seen; };
  for (;;) {
    if (idle_) {
      if (!wake_.wait_for(lock, *idle_, called))
        break;
    } else {
      wake_.wait(lock, called);
    }
    if (quit_)
      break;
    seen = generation_;
    if (index + 1 >= lanes_)
      continue; // the call has fewer lanes
    const Lane *lane = lane_;
    lock.unlock();
    (*lane)(index + 1);
    lock.lock();
    if (--unfinished_ == 0)
      finished_.notify_all();
  }
  workers_[index]->alive = false;
}

// With mutex_ held: a thread for each of lanes 1 .. lanes - 1 that has none alive. A new thread
// waits for the mutex, then takes the call that run() posts under the same lock.
bool LanePool::start_missing(size_t lanes) noexcept {
  try {
    while (workers_.size() < lanes - 1)
      workers_.push_back(std::make_unique<Worker>());
    for (size_t index = 0; index + 1 < lanes; ++index) {
      Worker &worker = *workers_[index];
      if (worker.alive)
        continue;
      worker.thread.reset(); // joins a thread that left when idle (it no longer needs the lock)
      const uint64_t seen = generation_;
      worker.thread.emplace([this, index, seen] { park(index, seen); });
      worker.alive = true;
      ++started_;
    }
    return true;
  } catch (const std::exception &) { // std::system_error, std::bad_alloc
    return false;
  }
}

bool LanePool::run(size_t lanes, const Lane &lane) noexcept {
  if (lanes <= 1) {
    if (lanes == 1)
      lane(0);
    return true;
  }
  std::unique_lock<std::mutex> use(in_use_, std::try_to_lock);
  if (!use.owns_lock())
    return false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!start_missing(lanes))
      return false;
    lane_ = &lane;
    lanes_ = lanes;
    unfinished_ = lanes - 1;
    ++generation_;
  }
  wake_.notify_all();
  lane(0);
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [&] { return unfinished_ == 0; });
  lane_ = nullptr;
  lanes_ = 0;
  return true;
}

size_t LanePool::threads_alive() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t alive = 0;
  for (const auto &worker : workers_)
    alive += worker->alive ? 1 : 0;
  return alive;
}

uint64_t LanePool::threads_started() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return started_;
}

} // namespace mqlcl
