// Owner ids are random positive numbers, so a program cannot come upon another's by counting; the
// calling thread's choice is a trivially destructible thread_local (errors.hpp says why nothing
// heavier).
#include "owners.hpp"

#include "errors.hpp"
#include "process_state.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#include <mutex>
#include <random>
#include <unordered_set>

namespace mqlcl {

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

[[noreturn]] void fail_not_live(int32_t owner, const char *function) {
  fail(MQLCL_ERR_OPENCL_NOT_OWNER,
       fmt::format("{}: {} is not a live owner (CLOwnerCreate makes one)", function, owner));
}

} // namespace

int32_t current_owner() noexcept {
  return selected_owner;
}

void check_current_owner_live() {
  int32_t owner = selected_owner;
  if (owner != 0 && !owner_is_live(owner))
    fail(MQLCL_ERR_OPENCL_NOT_OWNER,
         fmt::format("this thread acts for owner {}, which has been freed: select another", owner));
}

int32_t create_owner() {
  Owners &all = owners();
  std::lock_guard<std::mutex> lock(all.mutex);
  std::uniform_int_distribution<int32_t> pick(1, INT32_MAX);
  int32_t owner = pick(all.random);
  while (all.live.count(owner) != 0)
    owner = pick(all.random);
  all.live.insert(owner);
  selected_owner = owner;
  return owner;
}

void select_owner(int32_t owner, const char *function) {
  if (owner != 0 && !owner_is_live(owner))
    fail_not_live(owner, function);
  selected_owner = owner;
}

void retire_owner(int32_t owner, const char *function) {
  {
    Owners &all = owners();
    std::lock_guard<std::mutex> lock(all.mutex);
    if (owner <= 0 || all.live.erase(owner) == 0)
      fail_not_live(owner, function);
  }
  if (selected_owner == owner)
    selected_owner = 0;
}

} // namespace mqlcl
