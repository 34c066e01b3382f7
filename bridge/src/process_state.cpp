// process_state.hpp: the list of process-wide objects, and what each way out does with it.
#include "process_state.hpp"

#include <atomic>

#if !defined(_WIN32)
// LeakSanitizer's, present only in sanitizer builds.
extern "C" void __lsan_ignore_object(const void *pointer) __attribute__((weak));
#endif

namespace mqlcl {

namespace {
std::atomic<detail::StateBlock *> newest{nullptr};
std::atomic<bool> left_at_exit{false};
} // namespace

void detail::keep_until_unload(StateBlock *block) noexcept {
  block->older = newest.load(std::memory_order_relaxed);
  while (!newest.compare_exchange_weak(block->older, block, std::memory_order_release,
                                       std::memory_order_relaxed)) {
  }
}

void release_at_unload() noexcept {
  // Newest first, as statics go: an object's destructor may use what was made before it.
  detail::StateBlock *block = newest.exchange(nullptr, std::memory_order_acquire);
  while (block != nullptr) {
    detail::StateBlock *older = block->older;
    block->destroy(block);
    block = older;
  }
}

void leave_state_at_exit() noexcept {
  left_at_exit.store(true);
  // A loader held in a static object may unload the library during exit: its statics then no
  // longer point at the blocks, which are kept all the same.
  for (auto *block = newest.load(std::memory_order_acquire); block != nullptr; block = block->older)
    mark_kept(block);
}

bool process_is_exiting() noexcept {
  return left_at_exit.load() || exit_has_begun();
}

void mark_kept(const void *heap_block) noexcept {
#if !defined(_WIN32)
  if (__lsan_ignore_object != nullptr && heap_block != nullptr)
    __lsan_ignore_object(heap_block);
#else
  (void)heap_block;
#endif
}

} // namespace mqlcl
