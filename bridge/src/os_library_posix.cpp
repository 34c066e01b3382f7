#include "os_library.hpp"

#include <cstdlib>
#include <dlfcn.h>
#include <pthread.h>
#include <system_error>
#include <unistd.h>

namespace mqlcl::os {

void *open_library(const std::string &utf8_name, std::string &error) noexcept {
  void *library = dlopen(utf8_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char *reason = dlerror();
    try {
      error = reason != nullptr ? reason : "dlopen failed";
    } catch (...) {
    }
  }
  return library;
}

void *find_symbol(void *library, const char *name) noexcept {
  return dlsym(library, name);
}

bool process_opencl(void *&library, std::string &where) noexcept {
  // RTLD_DEFAULT sees the global scope, not the libraries the bridge opened RTLD_LOCAL: only what
  // the process itself provides.
  void *probe = dlsym(RTLD_DEFAULT, "clGetPlatformIDs");
  if (probe == nullptr)
    return false;
  library = RTLD_DEFAULT;
  Dl_info info{};
  try {
    bool named = dladdr(probe, &info) != 0 && info.dli_fname != nullptr && *info.dli_fname != 0;
    where = named ? info.dli_fname : "the program";
  } catch (...) {
  }
  return true;
}

void keep_loaded(void *symbol) noexcept {
  Dl_info info{};
  if (dladdr(symbol, &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD); // a reference, never loads anything
}

const char *const *default_opencl_library_names() noexcept {
  static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so", nullptr};
  return names;
}

const char *cuda_driver_library_name() noexcept {
  return "libcuda.so.1";
}

std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string default_cache_folder() {
  std::string base = environment("XDG_CACHE_HOME");
  if (!base.empty() && base.front() == '/')
    return base + "/mqlcl";
  std::string home = environment("HOME");
  return home.empty() ? std::string() : home + "/.cache/mqlcl";
}

std::string default_runtime_folder() {
  std::string base = environment("XDG_RUNTIME_DIR");
  if (!base.empty() && base.front() == '/')
    return base + "/mqlcl";
  return "/tmp/mqlcl-" + std::to_string(static_cast<unsigned long>(getuid()));
}

void unlock_file(void *lock) noexcept {
  if (lock != nullptr)
    close(static_cast<int>(reinterpret_cast<intptr_t>(lock) - 1)); // drops the flock
}

unsigned long process_id() noexcept {
  return static_cast<unsigned long>(getpid());
}

struct Thread::Native {
  pthread_t id{};
  bool joinable = false;
  std::function<void()> body;
};

namespace {
void *run_thread(void *native) {
  static_cast<Thread::Native *>(native)->body();
  return nullptr;
}
} // namespace

Thread::Thread(std::function<void()> body) : native_(std::make_unique<Native>()) {
  native_->body = std::move(body);
  pthread_attr_t attributes;
  int status = pthread_attr_init(&attributes);
  if (status != 0)
    throw std::system_error(status, std::generic_category(), "pthread_attr_init");
  status = pthread_attr_setstacksize(&attributes, size_t{1} << 20);
  if (status == 0)
    status = pthread_create(&native_->id, &attributes, run_thread, native_.get());
  pthread_attr_destroy(&attributes);
  if (status != 0)
    throw std::system_error(status, std::generic_category(), "pthread_create");
  native_->joinable = true;
#if defined(__linux__)
  pthread_setname_np(native_->id, "mqlcl"); // in top -H, gdb and /proc/<pid>/task/*/comm
#endif
}

Thread::Thread(Thread &&other) noexcept = default;

Thread::~Thread() {
  join();
}

void Thread::join() noexcept {
  if (native_ && native_->joinable) {
    pthread_join(native_->id, nullptr);
    native_->joinable = false;
  }
}

void Thread::release_at_unload() noexcept {
  join();
}

} // namespace mqlcl::os
