#include "device_spread.hpp"

#include "devices.hpp"

#include "os_library.hpp"
#include "private_folder.hpp"
#include "process_state.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

namespace mqlcl {

namespace {

// The folder of the slot files: MQLCL_RUNTIME_DIR, else the system's runtime folder.
std::string runtime_folder() {
  std::string chosen = os::environment("MQLCL_RUNTIME_DIR");
  return chosen.empty() ? os::default_runtime_folder() : chosen;
}

// How long a chooser waits for the others' turns before it takes the fallback. Each turn lasts
// a few file operations, so only a lock that someone holds on for good (a stuck process, or a
// file another user planted) waits this long.
constexpr std::chrono::seconds kChooseWait{10};

// A device's slot files are named by its ordinal and a hash of its names, so processes that see
// other devices (another OpenCL library) never count each other's slots as their own.
std::string slot_name(const Device &device, size_t slot) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : device.match_text() + "|" + device.driver_version)
    hash = (hash ^ c) * 16777619u;
  return fmt::format("device{}-{:08x}.slot{}", device.ordinal, hash, slot);
}

// The slots other open files hold on `device`; `first_free` gets the lowest free slot.
int held_slots(const os::PrivateFolder &folder, const Device &device, size_t &first_free) {
  int held = 0;
  first_free = SIZE_MAX;
  for (size_t slot = 0; folder.exists(slot_name(device, slot)); ++slot) {
    void *lock = folder.lock(slot_name(device, slot), std::chrono::milliseconds(0));
    if (lock == nullptr) {
      ++held;
    } else {
      os::unlock_file(lock);
      first_free = std::min(first_free, slot);
    }
  }
  if (first_free == SIZE_MAX) {
    first_free = 0;
    while (folder.exists(slot_name(device, first_free)))
      ++first_free;
  }
  return held;
}

struct Placement {
  const Device *device = nullptr;
  void *slot = nullptr; // the locked slot file, kept while the process lives
};

// The device each set of candidates got, by the candidates' ordinals. Made on first use by
// process_wide (process_state.hpp): only an unload drops the slots; at exit the OS does.
struct Placements {
  std::mutex mutex;
  std::map<std::string, Placement> by_candidates;
  ~Placements() {
    for (auto &[key, placement] : by_candidates)
      os::unlock_file(placement.slot); // another process may take it
  }
};

Placements &placements() {
  static Placements &instance = process_wide<Placements>();
  return instance;
}

// Takes the least used candidate's slot, under the folder's lock; false when the folder cannot
// be used (it cannot be made, another user owns it or may write it: private_folder.hpp), or the
// choosers' lock is not had within kChooseWait.
bool place_by_slots(const std::vector<const Device *> &candidates, Placement &placement) {
  const os::PrivateFolder folder(runtime_folder());
  // Unlocked however this returns: a turn kept by a throw would make every other chooser wait.
  std::unique_ptr<void, void (*)(void *)> turn(folder.lock("choose.lock", kChooseWait),
                                               os::unlock_file);
  if (turn == nullptr)
    return false;
  const Device *least = nullptr;
  size_t least_slot = 0;
  int least_held = 0;
  for (const Device *device : candidates) {
    size_t free_slot = 0;
    int held = held_slots(folder, *device, free_slot);
    if (least == nullptr || held < least_held) {
      least = device;
      least_held = held;
      least_slot = free_slot;
    }
  }
  placement.slot = folder.lock(slot_name(*least, least_slot), std::chrono::milliseconds(0));
  turn.reset();
  if (placement.slot == nullptr)
    return false;
  placement.device = least;
  return true;
}

} // namespace

std::vector<const Device *> spread_candidates(const DeviceList &list) {
  std::vector<const Device *> candidates;
  std::string named = os::environment("MQLCL_SPREAD_DEVICES");
  if (named.empty()) {
    const Device &first = list.devices.front();
    for (const Device &device : list.devices)
      if (kind_rank(device.type) == kind_rank(first.type) && device.platform == first.platform)
        candidates.push_back(&device);
    return candidates;
  }
  const char *cursor = named.c_str();
  while (*cursor != 0) {
    char *end = nullptr;
    long ordinal = std::strtol(cursor, &end, 10);
    if (end == cursor || ordinal < 0 || static_cast<size_t>(ordinal) >= list.devices.size() ||
        (*end != ',' && *end != 0))
      fail(MQLCL_ERR_OPENCL_SELECTDEVICE,
           fmt::format("MQLCL_SPREAD_DEVICES={} is not a list of device ordinals among the {} "
                       "devices (0-{}), such as 0,1",
                       named, list.devices.size(), list.devices.size() - 1));
    const Device *device = &list.devices[static_cast<size_t>(ordinal)];
    if (std::find(candidates.begin(), candidates.end(), device) == candidates.end())
      candidates.push_back(device);
    cursor = *end == ',' ? end + 1 : end;
  }
  return candidates;
}

const Device *spread_device(const DeviceList &list) {
  std::vector<const Device *> candidates = spread_candidates(list);
  std::string key;
  for (const Device *device : candidates)
    key += std::to_string(device->ordinal) + ",";
  Placements &kept = placements();
  std::lock_guard<std::mutex> lock(kept.mutex);
  auto found = kept.by_candidates.find(key);
  if (found != kept.by_candidates.end())
    return found->second.device;
  Placement placement;
  if (candidates.size() == 1)
    placement.device = candidates.front();
  else if (!place_by_slots(candidates, placement))
    placement.device = candidates[os::process_id() % candidates.size()];
  kept.by_candidates[key] = placement;
  return placement.device;
}

bool policy_spreads() {
  const std::string named = os::environment("MQLCL_DEVICE_POLICY");
  std::string policy = named;
  std::transform(policy.begin(), policy.end(), policy.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (policy.empty())
    return false;
  if (policy == "spread")
    return true;
  fail(MQLCL_ERR_OPENCL_SELECTDEVICE,
       fmt::format("MQLCL_DEVICE_POLICY={} is not a device policy: the one policy is spread "
                   "(unset it for device 0)",
                   named));
}

} // namespace mqlcl
