#include "cl_api.hpp"

#include "errors.hpp"
#include "os_library.hpp"

#include <mqlcl/mqlcl.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>

namespace mqlcl {

namespace {

// Trivially destructible and never on the heap (see loaded_api()): the reason loading failed is
// kept in a fixed array, truncated if need be, so nothing of it outlives an unload of the bridge.
struct LoadedApi {
  ClApi api{};
  bool loaded = false;
  char error[1024] = {};

  void add_error(const std::string &text) {
    size_t used = std::strlen(error);
    std::string piece = (used == 0 ? "" : "; ") + text;
    size_t room = sizeof(error) - 1 - used;
    std::memcpy(error + used, piece.data(), std::min(room, piece.size()));
  }
};
static_assert(std::is_trivially_destructible_v<LoadedApi>);

// Takes every entry point from `library` (`name` in messages), or none when one is missing.
bool resolve_from(void *library, const std::string &name, LoadedApi &out) {
  ClApi api;
  const char *missing = nullptr;
#define MQLCL_RESOLVE(fn)                                                                          \
  api.fn = reinterpret_cast<decltype(api.fn)>(os::find_symbol(library, #fn));                      \
  if (api.fn == nullptr && missing == nullptr)                                                     \
    missing = #fn;
  MQLCL_CL_FUNCTIONS(MQLCL_RESOLVE)
#undef MQLCL_RESOLVE
  if (missing != nullptr) {
    out.add_error(name + ": lacks " + missing + " (OpenCL 1.2)");
    return false;
  }
  out.api = api;
  out.loaded = true;
  return true;
}

bool load_from(const std::string &name, LoadedApi &out) {
  std::string reason;
  void *library = os::open_library(name, reason);
  if (library == nullptr) {
    out.add_error(name + ": " + reason);
    return false;
  }
  // An OpenCL 1.0/1.1-only library stays loaded (unloading an ICD is never safe) but unused.
  return resolve_from(library, name, out);
}

// The entry points the process already provides (a preloaded runtime such as oclgrind's, an
// interception layer, a program linked against OpenCL): objects they create must never reach
// another library's functions, so the bridge takes all of them from there, or none.
bool use_process_opencl(LoadedApi &out) {
  void *library = nullptr;
  std::string where;
  if (!os::process_opencl(library, where) ||
      !resolve_from(library, "the process's OpenCL (" + where + ")", out))
    return false;
#define MQLCL_KEEP(fn) os::keep_loaded(reinterpret_cast<void *>(out.api.fn));
  MQLCL_CL_FUNCTIONS(MQLCL_KEEP)
#undef MQLCL_KEEP
  return true;
}

const LoadedApi &loaded_api() {
  // Loaded once, on first use, and never unloaded: the driver may hold threads of its own.
  // Never destroyed either: the Registry's destructor releases objects through this table when
  // the library unloads, and it may run after this function's statics are gone (when the
  // registry was built first, by a call such as CLHandleType that needs no OpenCL). It is built
  // in static storage, not on the heap, so an unload (dlclose, FreeLibrary) leaves nothing
  // behind: every load of the bridge would otherwise leak a table.
  alignas(LoadedApi) static unsigned char storage[sizeof(LoadedApi)];
  static const LoadedApi &loaded = *new (storage) LoadedApi([] {
    LoadedApi result;
    std::string chosen = os::environment("MQLCL_OPENCL_LIBRARY");
    if (!chosen.empty()) {
      load_from(chosen, result);
      return result;
    }
    if (use_process_opencl(result))
      return result;
    for (const char *const *name = os::default_opencl_library_names(); *name != nullptr; ++name)
      if (load_from(*name, result))
        break;
    return result;
  }());
  return loaded;
}

std::atomic<const ClApi *> test_api{nullptr};

} // namespace

const ClApi &cl_api() {
  if (const ClApi *api = test_api.load(std::memory_order_acquire))
    return *api;
  const LoadedApi &loaded = loaded_api();
  if (!loaded.loaded)
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED,
         "OpenCL not found, please install OpenCL drivers (" + std::string(loaded.error) + ")");
  return loaded.api;
}

int64_t profiled_nanoseconds(cl_event first, cl_event last) {
  const ClApi &cl = cl_api();
  cl_ulong start = 0, end = 0;
  check_cl(
      cl.clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr),
      "clGetEventProfilingInfo(CL_PROFILING_COMMAND_START)", MQLCL_ERR_OPENCL_INTERNAL);
  check_cl(cl.clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr),
           "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)", MQLCL_ERR_OPENCL_INTERNAL);
  return end >= start ? static_cast<int64_t>(end - start) : 0;
}

const char *cl_api_load_error() noexcept {
  try {
    return loaded_api().error;
  } catch (...) {
    return "OpenCL library loading failed";
  }
}

void set_cl_api_for_testing(const ClApi *api) noexcept {
  test_api.store(api, std::memory_order_release);
}

} // namespace mqlcl
