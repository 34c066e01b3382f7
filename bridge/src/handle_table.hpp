// Typed, generation-tagged handles. A handle is a positive int32:
//
//   bit 31: 0 | bits 28-30: type (1-4) | bits 16-27: generation (1-4095) | bits 0-15: slot
//
// so a stale, freed, forged or wrong-type handle never matches a live object, and handles never
// collide with device ordinals (they are all >= 2^28). A slot whose generation is used up is
// retired rather than wrapped, so a handle can never alias a newer object; that bounds each type
// to 65536 live objects and about 2^28 creations per process (ERR_OPENCL_TOO_MANY_OBJECTS).
//
// Each slot also records the owner that created it (owners.hpp): a handle is found and removed
// only by threads acting for that same owner (0, none, for callers that never declare one).
#pragma once

#include "errors.hpp"
#include "owners.hpp"

#include <mqlcl/mqlcl.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace mqlcl {

struct HandleBits {
  static constexpr int kTypeShift = 28;
  static constexpr int kGenerationShift = 16;
  static constexpr uint32_t kSlotMask = 0xFFFF;
  static constexpr uint32_t kGenerationMask = 0xFFF;
  static constexpr uint32_t kMaxSlots = kSlotMask + 1;

  static int32_t type_of(int32_t handle) noexcept {
    return handle > 0 ? (handle >> kTypeShift) & 0x7 : 0;
  }
  static uint32_t slot_of(int32_t handle) noexcept {
    return static_cast<uint32_t>(handle) & kSlotMask;
  }
  static uint32_t generation_of(int32_t handle) noexcept {
    return (static_cast<uint32_t>(handle) >> kGenerationShift) & kGenerationMask;
  }
  static int32_t make(int32_t type, uint32_t generation, uint32_t slot) noexcept {
    return static_cast<int32_t>((static_cast<uint32_t>(type) << kTypeShift) |
                                (generation << kGenerationShift) | slot);
  }
};

template <class T> class HandleTable {
public:
  explicit HandleTable(int32_t type) : type_(type) {}

  int32_t insert(std::shared_ptr<T> object) {
    const int32_t owner = current_owner();
    std::lock_guard<std::mutex> lock(mutex_);
    // Under the table's lock: CLOwnerFree retires an owner before it takes its objects, so an
    // object is either refused here or taken there, never left behind under a freed owner.
    check_current_owner_live();
    uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.front(); // oldest first: spreads generations over all slots
      free_slots_.pop_front();
    } else if (slots_.size() < HandleBits::kMaxSlots) {
      slot = static_cast<uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      fail(MQLCL_ERR_OPENCL_TOO_MANY_OBJECTS, "too many live OpenCL objects of one type (65536)");
    }
    Slot &entry = slots_[slot];
    entry.generation += 1;
    entry.object = std::move(object);
    entry.owner = owner;
    ++live_;
    return HandleBits::make(type_, entry.generation, slot);
  }

  // The object behind a live handle of this table's type that the calling thread's owner holds,
  // or nullptr.
  std::shared_ptr<T> find(int32_t handle) const {
    if (HandleBits::type_of(handle) != type_)
      return nullptr;
    const int32_t owner = current_owner();
    std::lock_guard<std::mutex> lock(mutex_);
    const Slot *entry = live_slot(handle, owner);
    return entry != nullptr ? entry->object : nullptr;
  }

  // Removes a live handle of the calling thread's owner and returns its object (so the caller
  // drops the last reference outside the lock), or nullptr when there is no such handle.
  std::shared_ptr<T> remove(int32_t handle) {
    if (HandleBits::type_of(handle) != type_)
      return nullptr;
    const int32_t owner = current_owner();
    std::lock_guard<std::mutex> lock(mutex_);
    Slot *entry = const_cast<Slot *>(live_slot(handle, owner));
    if (entry == nullptr)
      return nullptr;
    std::shared_ptr<T> object = std::move(entry->object);
    entry->object.reset();
    --live_;
    uint32_t slot = HandleBits::slot_of(handle);
    if (entry->generation < HandleBits::kGenerationMask)
      free_slots_.push_back(slot); // else retired for good
    return object;
  }

  // True when `handle` is live but held by an owner other than the calling thread's: the
  // reason a find or remove failed, for the error's code and message.
  bool held_by_another_owner(int32_t handle) const {
    if (HandleBits::type_of(handle) != type_)
      return false;
    const int32_t owner = current_owner();
    std::lock_guard<std::mutex> lock(mutex_);
    const Slot *entry = live_slot(handle, kAnyOwner);
    return entry != nullptr && entry->owner != owner;
  }

  // Takes every live object out of the table (library unload).
  std::vector<std::shared_ptr<T>> take_all() { return take_owned(kAnyOwner); }

  // Takes every live object of `owner` (kAnyOwner: of all owners) out of the table.
  std::vector<std::shared_ptr<T>> take_owned(int32_t owner) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::shared_ptr<T>> objects;
    for (uint32_t slot = 0; slot < slots_.size(); ++slot) {
      if (slots_[slot].object && (owner == kAnyOwner || slots_[slot].owner == owner)) {
        objects.push_back(std::move(slots_[slot].object));
        slots_[slot].object.reset();
        if (slots_[slot].generation < HandleBits::kGenerationMask)
          free_slots_.push_back(slot);
      }
    }
    live_ -= objects.size();
    return objects;
  }

  size_t live_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_;
  }

  size_t slot_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return slots_.size();
  }

private:
  static constexpr int32_t kAnyOwner = -1; // owners are 0 (none) or positive

  struct Slot {
    uint32_t generation = 0;
    int32_t owner = 0;
    std::shared_ptr<T> object;
  };

  const Slot *live_slot(int32_t handle, int32_t owner) const {
    uint32_t slot = HandleBits::slot_of(handle);
    if (slot >= slots_.size())
      return nullptr;
    const Slot &entry = slots_[slot];
    if (!entry.object || entry.generation != HandleBits::generation_of(handle))
      return nullptr;
    if (owner != kAnyOwner && entry.owner != owner)
      return nullptr;
    return &entry;
  }

  const int32_t type_;
  mutable std::mutex mutex_;
  std::deque<Slot> slots_;
  std::deque<uint32_t> free_slots_;
  size_t live_ = 0;
};

} // namespace mqlcl
