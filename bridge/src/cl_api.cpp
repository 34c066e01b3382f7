#include "cl_api.hpp"

#include "errors.hpp"
#include "os_library.hpp"

#include <mqlcl/mqlcl.h>

#include <atomic>
#include <string>

namespace mqlcl {

namespace {

struct LoadedApi {
  ClApi api;
  bool loaded = false;
  std::string error;
};

bool load_from(const std::string &name, LoadedApi &out) {
  std::string reason;
  void *library = os::open_library(name, reason);
  if (library == nullptr) {
    out.error += (out.error.empty() ? "" : "; ") + name + ": " + reason;
    return false;
  }
  ClApi api;
  const char *missing = nullptr;
#define MQLCL_RESOLVE(fn)                                                                          \
  api.fn = reinterpret_cast<decltype(api.fn)>(os::find_symbol(library, #fn));                      \
  if (api.fn == nullptr && missing == nullptr)                                                     \
    missing = #fn;
  MQLCL_CL_FUNCTIONS(MQLCL_RESOLVE)
#undef MQLCL_RESOLVE
  if (missing != nullptr) {
    // An OpenCL 1.0/1.1-only library: keep it loaded (unloading an ICD is never safe) but unused.
    out.error += (out.error.empty() ? "" : "; ") + name + ": lacks " + missing + " (OpenCL 1.2)";
    return false;
  }
  out.api = api;
  out.loaded = true;
  return true;
}

const LoadedApi &loaded_api() {
  // Loaded once, on first use, and never unloaded: the driver may hold threads of its own.
  // Never destroyed either: the Registry's destructor releases objects through this table when
  // the library unloads, and it may run after this function's statics are gone (when the
  // registry was built first, by a call such as CLHandleType that needs no OpenCL).
  static const LoadedApi &loaded = *new LoadedApi([] {
    LoadedApi result;
    std::string chosen = os::environment("MQLCL_OPENCL_LIBRARY");
    if (!chosen.empty()) {
      load_from(chosen, result);
      return result;
    }
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
         "OpenCL not found, please install OpenCL drivers (" + loaded.error + ")");
  return loaded.api;
}

const char *cl_api_load_error() noexcept {
  try {
    return loaded_api().error.c_str();
  } catch (...) {
    return "OpenCL library loading failed";
  }
}

void set_cl_api_for_testing(const ClApi *api) noexcept {
  test_api.store(api, std::memory_order_release);
}

} // namespace mqlcl
