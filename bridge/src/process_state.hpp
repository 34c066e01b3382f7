// The bridge's process-wide state, and the one rule it follows.
//
// Everything the bridge keeps for the whole process (the handle registry, the owners, every
// thread's last error, the device list, the spread placements, ...) is made on first use by
// process_wide<T>() and lives on the heap until the library unloads:
//  - an unload (dlclose, FreeLibrary) runs release_at_unload(), which destroys it all, newest
//    first: every OpenCL object is released and nothing is left behind for a later load;
//  - process exit (return from main, exit() from any thread, ExitProcess) destroys and frees
//    nothing, and calls no OpenCL: other threads may still be inside the bridge, and the driver
//    may still be copying into memory the bridge holds (a pending read). The operating system
//    takes it all back. leave_state_at_exit() only tells LeakSanitizer that it is kept.
// So a static object with a non-trivial destructor, at namespace scope or in a function, is a
// bug: exit() would destroy it under other threads. A static is trivially destructible (an
// atomic, a pointer, a reference, a std::mutex) or made by process_wide<T>(), and a
// thread_local is trivially destructible (errors.hpp says why). test_bridge_exit_destructors
// checks the built library for any static destructor.
#pragma once

#include <utility>

namespace mqlcl {

namespace detail {
// One object of the state on the heap, linked to the one made before it.
struct StateBlock {
  StateBlock *older = nullptr;
  void (*destroy)(StateBlock *) noexcept = nullptr;
};
void keep_until_unload(StateBlock *block) noexcept;
} // namespace detail

// Called when the bridge first holds something that an exit must leave alone (lifetime.cpp).
void watch_for_process_exit() noexcept;

// A new T made of `args`, kept until the library unloads. Call it from the initialiser of a
// function-local static reference, which makes the first use thread-safe and the object one per
// process:
//   Owners &owners() { static Owners &all = process_wide<Owners>(); return all; }
// Throws what T's constructor throws, and std::bad_alloc.
template <class T, class... Args> T &process_wide(Args &&...args) {
  struct Block : detail::StateBlock {
    explicit Block(Args &&...made_of) : object(std::forward<Args>(made_of)...) {}
    T object;
  };
  watch_for_process_exit();
  auto *block = new Block(std::forward<Args>(args)...);
  block->destroy = [](detail::StateBlock *self) noexcept { delete static_cast<Block *>(self); };
  detail::keep_until_unload(block);
  return block->object;
}

// The library's two ways out (lifetime.cpp on Linux, dllmain_windows.cpp).
// At an unload: destroys every process_wide object, newest first. The registry's destructor
// releases every live OpenCL object, waiting for each context's queue.
void release_at_unload() noexcept;
// At process exit: from now on the bridge makes no release or wait in OpenCL (the driver may be
// half torn down, and the operating system reclaims its objects), and everything is left where
// it is.
void leave_state_at_exit() noexcept;
// True once exit has begun (the exit handler has run, or leave_state_at_exit()): releases and
// waits are skipped.
bool process_is_exiting() noexcept;
// The exit handler's part of it (lifetime.cpp; false on Windows, where DllMain is told).
bool exit_has_begun() noexcept;
// A heap block the bridge keeps on purpose and never frees (state left at exit, a pending read's
// memory the driver may still write into, the exit handler's semaphore): LeakSanitizer, in
// sanitizer builds, is told so and scans it as it scans what is reachable.
void mark_kept(const void *heap_block) noexcept;

} // namespace mqlcl
