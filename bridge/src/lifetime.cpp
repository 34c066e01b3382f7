// How the library tells an unload from a process exit on Linux, and what it does in each case.
// Two ways out of a process, two behaviours, as on Windows (dllmain_windows.cpp), both in
// process_state.hpp:
//  - dlclose: the process and its OpenCL driver live on, so every live object is released here,
//    whichever thread calls dlclose (no thread_local of the bridge pins the library: errors.hpp),
//    and the bridge's memory is freed (release_at_unload).
//  - Process exit (return from main, exit() from any thread): other threads may still be running
//    inside the bridge, the driver may still be copying into the bridge's memory, and the
//    driver's exit handlers may have run (PoCL's compiler, LLVM, is torn down by then), so the
//    bridge makes no OpenCL call and frees nothing (leave_state_at_exit): the operating system
//    reclaims it all.
// glibc runs this library's destructor in both cases. Telling them apart: when the bridge first
// holds something (process_wide), a handler is registered with __cxa_atexit under a DSO handle
// that belongs to no library. exit() runs every handler, latest first, before the destructors of
// libraries (_dl_fini, registered as the process started); dlclose runs only the handlers
// registered for the library it closes (__cxa_finalize), never this one. Not at load: a linked
// library's constructor runs before _dl_fini is registered, so its handler would run after the
// destructors. The handler stays registered after an unload, so it must outlive the library: it
// is libc's sem_post on a semaphore on the heap, never freed.
#include "process_state.hpp"

#if !defined(_WIN32)
#include <semaphore.h>

#include <atomic>
#include <cstdlib>

extern "C" int __cxa_atexit(void (*function)(void *), void *argument, void *dso_handle);
#endif

namespace mqlcl {

#if defined(_WIN32)
void watch_for_process_exit() noexcept {} // DllMain is told which it is
bool exit_has_begun() noexcept {
  return false;
}
#else
namespace {

// Posted by exit(); nullptr when the handler could not be registered.
sem_t *register_exit_flag() noexcept {
  auto *flag = static_cast<sem_t *>(std::malloc(sizeof(sem_t)));
  if (flag == nullptr || sem_init(flag, 0, 0) != 0) {
    std::free(flag);
    return nullptr;
  }
  // sem_post's result is ignored, so calling it as void(void *) is safe on glibc's ABIs.
  auto post = reinterpret_cast<void (*)(void *)>(reinterpret_cast<void (*)()>(&sem_post));
  // The DSO handle is the semaphore's own address, which no library has, so no dlclose runs the
  // handler (__cxa_finalize runs those of the closing library's handle); exit() runs them all.
  // Not nullptr ("the main program"): ThreadSanitizer then calls the handler without its
  // argument.
  if (__cxa_atexit(post, flag, flag) != 0) {
    sem_destroy(flag);
    std::free(flag);
    return nullptr;
  }
  mark_kept(flag); // libc's exit list holds it, where LeakSanitizer does not look
  return flag;
}

std::atomic<sem_t *> exit_flag{nullptr};

// Also when a loader held in a static object unloads the library during exit: that counts as
// exit, after the handler has run.
__attribute__((destructor)) void at_unload_or_exit() {
  if (exit_has_begun())
    leave_state_at_exit();
  else
    release_at_unload();
}

} // namespace

bool exit_has_begun() noexcept {
  sem_t *flag = exit_flag.load();
  int posts = 0;
  return flag != nullptr && sem_getvalue(flag, &posts) == 0 && posts > 0;
}

void watch_for_process_exit() noexcept {
  static sem_t *const registered = register_exit_flag();
  exit_flag.store(registered);
}
#endif

} // namespace mqlcl
