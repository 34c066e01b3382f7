// Loads the bridge with Boost.DLL, the way MetaTrader's #import loads a DLL: by path, at run time,
// resolving every export up front and failing clearly when one is missing.
#include "bridge.hpp"

#include "error.hpp"
#include "platform.hpp"

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include <string_view>
#include <type_traits>
#include <vector>

namespace mqlcl::replay {

struct Bridge::Library {
  boost::dll::shared_library library;
};

Bridge::Bridge(const std::filesystem::path &library) : path_(library) {
  std::error_code exists_error;
  if (!std::filesystem::is_regular_file(library, exists_error))
    throw Error(ExitCode::bad_input,
                fmt::format("the bridge library {} does not exist (set it with --library PATH or "
                            "MQLCL_LIBRARY)",
                            library.string()));
  library_ = std::make_unique<Library>();
  boost::dll::fs::error_code load_error;
  library_->library.load(library, load_error, boost::dll::load_mode::default_mode);
  if (load_error)
    throw Error(ExitCode::bridge_failure,
                fmt::format("cannot load the bridge library {}: {}", library.string(),
                            library_load_error(library)));

  std::vector<std::string_view> missing;
#define MQLCL_REPLAY_RESOLVE(name)                                                                 \
  if (library_->library.has(#name))                                                                \
    api_.name = &library_->library.get<std::remove_pointer_t<decltype(api_.name)>>(#name);         \
  else                                                                                             \
    missing.push_back(#name);
  MQLCL_BRIDGE_EXPORTS(MQLCL_REPLAY_RESOLVE)
#undef MQLCL_REPLAY_RESOLVE
#define MQLCL_REPLAY_COUNT(name) +1
  constexpr size_t exports = 0 MQLCL_BRIDGE_EXPORTS(MQLCL_REPLAY_COUNT);
#undef MQLCL_REPLAY_COUNT
  if (!missing.empty())
    throw Error(ExitCode::bridge_failure,
                fmt::format("{} is not the mqlcl bridge: it lacks {} of the {} exports ({})",
                            library.string(), missing.size(), exports, fmt::join(missing, ", ")));
}

Bridge::~Bridge() = default;

namespace {

const char *error_name(int32_t code) {
  switch (code) {
  case MQLCL_ERR_INTERNAL_ERROR:
    return "ERR_INTERNAL_ERROR";
  case MQLCL_ERR_INVALID_PARAMETER:
    return "ERR_INVALID_PARAMETER";
  case MQLCL_ERR_NOT_ENOUGH_MEMORY:
    return "ERR_NOT_ENOUGH_MEMORY";
  case MQLCL_ERR_SMALL_ARRAY:
    return "ERR_SMALL_ARRAY";
  case MQLCL_ERR_ZEROSIZE_ARRAY:
    return "ERR_ZEROSIZE_ARRAY";
  case MQLCL_ERR_OPENCL_NOT_SUPPORTED:
    return "ERR_OPENCL_NOT_SUPPORTED";
  case MQLCL_ERR_OPENCL_INTERNAL:
    return "ERR_OPENCL_INTERNAL";
  case MQLCL_ERR_OPENCL_INVALID_HANDLE:
    return "ERR_OPENCL_INVALID_HANDLE";
  case MQLCL_ERR_OPENCL_CONTEXT_CREATE:
    return "ERR_OPENCL_CONTEXT_CREATE";
  case MQLCL_ERR_OPENCL_QUEUE_CREATE:
    return "ERR_OPENCL_QUEUE_CREATE";
  case MQLCL_ERR_OPENCL_PROGRAM_CREATE:
    return "ERR_OPENCL_PROGRAM_CREATE";
  case MQLCL_ERR_OPENCL_TOO_LONG_KERNEL_NAME:
    return "ERR_OPENCL_TOO_LONG_KERNEL_NAME";
  case MQLCL_ERR_OPENCL_KERNEL_CREATE:
    return "ERR_OPENCL_KERNEL_CREATE";
  case MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER:
    return "ERR_OPENCL_SET_KERNEL_PARAMETER";
  case MQLCL_ERR_OPENCL_EXECUTE:
    return "ERR_OPENCL_EXECUTE";
  case MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE:
    return "ERR_OPENCL_WRONG_BUFFER_SIZE";
  case MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET:
    return "ERR_OPENCL_WRONG_BUFFER_OFFSET";
  case MQLCL_ERR_OPENCL_BUFFER_CREATE:
    return "ERR_OPENCL_BUFFER_CREATE";
  case MQLCL_ERR_OPENCL_TOO_MANY_OBJECTS:
    return "ERR_OPENCL_TOO_MANY_OBJECTS";
  case MQLCL_ERR_OPENCL_SELECTDEVICE:
    return "ERR_OPENCL_SELECTDEVICE";
  default:
    return "unknown error";
  }
}

} // namespace

std::string Bridge::last_error_text() const {
  int32_t code = api_.CLGetLastError();
  // Descriptions can carry a whole build log.
  std::vector<char16_t> text(1 << 18);
  std::string description = "(no description)";
  if (api_.CLGetInfoString(MQLCL_CL_LAST_ERROR, MQLCL_CL_ERROR_DESCRIPTION, text.data(),
                           static_cast<uint32_t>(text.size())) != 0)
    description = to_utf8(text.data());
  return fmt::format("{} ({}): {}", code, error_name(code), description);
}

void Bridge::fail(const std::string &what) const {
  throw Error(ExitCode::bridge_failure, fmt::format("{} failed: {}", what, last_error_text()));
}

std::string Bridge::info_string(int32_t handle, int32_t property, const char *what) const {
  std::vector<char16_t> text(1 << 16);
  api_.CLResetLastError();
  if (api_.CLGetInfoString(handle, property, text.data(), static_cast<uint32_t>(text.size())) == 0)
    fail(fmt::format("CLGetInfoString({})", what));
  return to_utf8(text.data());
}

int64_t Bridge::info_integer(int32_t handle, int32_t property, const char *what) const {
  api_.CLResetLastError();
  int64_t value = api_.CLGetInfoInteger(handle, property);
  if (value == -1 && api_.CLGetLastError() != MQLCL_ERR_SUCCESS)
    fail(fmt::format("CLGetInfoInteger({})", what));
  return value;
}

} // namespace mqlcl::replay
