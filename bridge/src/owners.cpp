// CLOwnerCreate, CLOwnerSelect, CLOwnerFree. Owner ids are random positive numbers, so a
// program cannot come upon another's by counting; the calling thread's choice is a trivially
// destructible thread_local (errors.hpp says why nothing heavier).
#include "owners.hpp"

#include "boundary.hpp"
#include "objects.hpp"

#include <fmt/format.h>

#include <mutex>
#include <random>
#include <unordered_set>

using namespace mqlcl;

namespace {

thread_local int32_t selected_owner = 0;

struct Owners {
  std::mutex mutex;
  std::unordered_set<int32_t> live;
  std::mt19937 random{std::random_device{}()};
};

// Made on first use by process_wide (process_state.hpp): threads may still create, select and
// free owners while the process exits.
Owners &owners() {
  static Owners &instance = process_wide<Owners>();
  return instance;
}

bool owner_is_live(int32_t owner) {
  Owners &all = owners();
  std::lock_guard<std::mutex> lock(all.mutex);
  return all.live.count(owner) != 0;
}

int32_t new_owner() {
  Owners &all = owners();
  std::lock_guard<std::mutex> lock(all.mutex);
  std::uniform_int_distribution<int32_t> pick(1, INT32_MAX);
  int32_t owner = pick(all.random);
  while (all.live.count(owner) != 0)
    owner = pick(all.random);
  all.live.insert(owner);
  return owner;
}

// Frees every object `owner` holds, children first, so parents go with their last child.
size_t release_owned(int32_t owner) {
  Registry &live = registry();
  auto kernels = live.kernels.take_owned(owner);
  auto buffers = live.buffers.take_owned(owner);
  auto programs = live.programs.take_owned(owner);
  auto contexts = live.contexts.take_owned(owner);
  size_t count = kernels.size() + buffers.size() + programs.size() + contexts.size();
  kernels.clear(); // the releases, in this order, outside the tables' locks
  buffers.clear();
  programs.clear();
  contexts.clear();
  return count;
}

} // namespace

namespace mqlcl {

int32_t current_owner() noexcept {
  return selected_owner;
}

void check_current_owner_live() {
  int32_t owner = selected_owner;
  if (owner != 0 && !owner_is_live(owner))
    fail(MQLCL_ERR_OPENCL_NOT_OWNER,
         fmt::format("this thread acts for owner {}, which has been freed: select another", owner));
}

} // namespace mqlcl

extern "C" {

MQLCL_API int32_t CLOwnerCreate(void) {
  return guarded(-1, [&] {
    int32_t owner = new_owner();
    selected_owner = owner;
    return owner;
  });
}

MQLCL_API int32_t CLOwnerSelect(int32_t owner) {
  return guarded(0, [&] {
    if (owner != 0 && !owner_is_live(owner))
      fail(MQLCL_ERR_OPENCL_NOT_OWNER,
           fmt::format("CLOwnerSelect: {} is not a live owner (CLOwnerCreate makes one)", owner));
    selected_owner = owner;
    return 1;
  });
}

MQLCL_API int32_t CLOwnerFree(int32_t owner) {
  return guarded(-1, [&] {
    {
      Owners &all = owners();
      std::lock_guard<std::mutex> lock(all.mutex);
      if (owner <= 0 || all.live.erase(owner) == 0)
        fail(MQLCL_ERR_OPENCL_NOT_OWNER,
             fmt::format("CLOwnerFree: {} is not a live owner (CLOwnerCreate makes one)", owner));
    }
    if (selected_owner == owner)
      selected_owner = 0;
    return static_cast<int32_t>(release_owned(owner));
  });
}

} // extern "C"
