// Loading a shared library and finding a symbol in it: one implementation per OS.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace mqlcl::os {

// Returns nullptr on failure and puts the system's reason into `error`.
void *open_library(const std::string &utf8_name, std::string &error) noexcept;
void *find_symbol(void *library, const char *name) noexcept;

// The OpenCL entry points the process already provides, before the bridge opens a library: on
// POSIX, clGetPlatformIDs in the process's global scope (a runtime or layer in LD_PRELOAD, a
// program linked against OpenCL, a library opened RTLD_GLOBAL); on Windows, an OpenCL.dll already
// loaded. Returns false when there are none; else sets `library` to a handle for find_symbol
// (which then resolves as the program's own calls do) and `where` to the file that provides
// clGetPlatformIDs.
bool process_opencl(void *&library, std::string &where) noexcept;

// Takes a reference to the library that defines `symbol`, for good: the process may close a
// library it opened while the bridge still calls into it.
void keep_loaded(void *symbol) noexcept;

// The OpenCL library names tried in order when MQLCL_OPENCL_LIBRARY is not set and the process
// provides no OpenCL.
const char *const *default_opencl_library_names() noexcept;

// The CUDA driver's library name (libcuda.so.1, nvcuda.dll).
const char *cuda_driver_library_name() noexcept;

// Value of an environment variable, empty when unset.
std::string environment(const char *name);

// Folders for the bridge's own files, UTF-8, empty when the system names none. The cache folder
// keeps built programs between runs (program_cache.cpp): on Linux $XDG_CACHE_HOME/mqlcl or
// ~/.cache/mqlcl; on Windows <MetaTrader data folder>\mqlcl-cache when the DLL sits in
// <data folder>\MQL5\Libraries, else %LOCALAPPDATA%\mqlcl. The runtime folder holds the device
// slots of live processes (device_spread.cpp): $XDG_RUNTIME_DIR/mqlcl, else /tmp/mqlcl-<uid>;
// on Windows %LOCALAPPDATA%\mqlcl\run, else %TEMP%\mqlcl-run.
std::string default_cache_folder();
std::string default_runtime_folder();

// Releases a lock that PrivateFolder::lock took (private_folder.hpp) and closes its file; nullptr
// is ignored.
void unlock_file(void *lock) noexcept;

// This process's id.
unsigned long process_id() noexcept;

// A thread of the bridge's own, started by the constructor (std::system_error when it cannot
// start) and joined by join() or the destructor; `body` must not throw. Its stack is 1 MiB: glibc
// gives a std::thread 8 MiB, more than its cache of stacks keeps for the 7 helpers of a staged
// transfer, so starting them mapped and unmapped stacks (measured on an H200's host with NVIDIA's
// OpenCL loaded: 7 threads started and joined in 170 us, 89 us with 1 MiB). On Windows the thread
// holds the DLL loaded until its very end (it leaves by FreeLibraryAndExitThread), so a
// FreeLibrary while it runs cannot unload the code under it. On Linux it is named "mqlcl".
class Thread {
public:
  explicit Thread(std::function<void()> body);
  Thread(Thread &&other) noexcept;
  Thread(const Thread &) = delete;
  Thread &operator=(const Thread &) = delete;
  Thread &operator=(Thread &&) = delete;
  ~Thread();
  void join() noexcept;
  // At an unload, for a thread whose body has returned or is about to: POSIX joins it; Windows
  // only closes its handle, because under DLL_PROCESS_DETACH's loader lock a wait for a thread
  // that is ending (and needs that lock for its DLL_THREAD_DETACH) would never return, and a
  // thread that still holds the DLL cannot exist then.
  void release_at_unload() noexcept;

  struct Native; // per OS

private:
  std::unique_ptr<Native> native_;
};

} // namespace mqlcl::os
