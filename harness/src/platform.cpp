#include "platform.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <cstdint>

#if defined(__SANITIZE_THREAD__)
#define MQLCL_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MQLCL_THREAD_SANITIZER 1
#endif
#endif

#ifdef _WIN32
#include <io.h>
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace mqlcl::replay {

std::filesystem::path executable_path() {
  boost::dll::fs::error_code error;
  std::filesystem::path path = boost::dll::program_location(error);
  return error ? std::filesystem::path() : path;
}

bool is_terminal(std::FILE *stream) {
#ifdef _WIN32
  return _isatty(_fileno(stream)) != 0;
#else
  return isatty(fileno(stream)) != 0;
#endif
}

std::string library_load_error(const std::filesystem::path &library) {
#ifdef _WIN32
  HMODULE module = LoadLibraryW(library.wstring().c_str());
  if (module != nullptr) {
    FreeLibrary(module);
    return "it loads now";
  }
  DWORD code = GetLastError();
  char text[512] = {};
  FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr, code, 0, text,
                 sizeof(text), nullptr);
  std::string message = text;
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r'))
    message.pop_back();
  return "error " + std::to_string(code) + ": " + message;
#else
  void *handle = dlopen(library.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (handle != nullptr) {
    dlclose(handle);
    return "it loads now";
  }
  const char *error = dlerror();
  return error != nullptr ? error : "unknown reason";
#endif
}

std::optional<uint64_t> default_thread_stack_bytes() {
#ifdef _WIN32
  return std::nullopt;
#else
  struct rlimit limit {};
  if (getrlimit(RLIMIT_STACK, &limit) != 0)
    return std::nullopt;
  uint64_t bytes =
      limit.rlim_cur == RLIM_INFINITY ? uint64_t{2} << 20 : static_cast<uint64_t>(limit.rlim_cur);
#ifdef MQLCL_THREAD_SANITIZER
  // ThreadSanitizer runs every thread of the process, PoCL's workers too, and takes about 1 MiB
  // of each one's stack: with 8 MiB, groups of 900 x 8000 bytes of private arrays ran under it
  // and 950 x 8000 crashed (without it, 1046 x 8000 ran).
  bytes = bytes > (uint64_t{1} << 20) ? bytes - (uint64_t{1} << 20) : 0;
#endif
  return bytes;
#endif
}

} // namespace mqlcl::replay
