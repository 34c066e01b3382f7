// What PrivateFolder's implementations share (private_folder_posix.cpp,
// private_folder_windows.cpp).
#include "private_folder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

namespace mqlcl::os {

bool retry_until(const std::function<bool()> &attempt, std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  auto pause = std::chrono::milliseconds(5);
  while (!attempt()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      return false;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  return true;
}

std::string unique_temporary_suffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t mix = std::random_device{}();
  mix = mix * 0x9E3779B97F4A7C15ull ^
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  mix ^= std::hash<std::thread::id>{}(std::this_thread::get_id()) + counter.fetch_add(1);
  return fmt::format(".tmp-{:016x}", mix);
}

} // namespace mqlcl::os
