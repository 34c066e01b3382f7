// The bridge as MetaTrader sees it: a DLL loaded at run time by path, used only through the
// exported C functions that bridge_exports.hpp lists. Boost.DLL stays inside bridge.cpp.
#pragma once

#include "bridge_exports.hpp"
#include "utf16_text.hpp" // the strings the exports take and give

#include <mqlcl/mqlcl.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace mqlcl::replay {

// The exports as plain C function pointers; the signatures come from the header itself.
struct BridgeApi {
#define MQLCL_REPLAY_POINTER(name) decltype(&::name) name = nullptr;
  MQLCL_BRIDGE_EXPORTS(MQLCL_REPLAY_POINTER)
#undef MQLCL_REPLAY_POINTER
};

// The loaded library. It stays loaded for the Bridge's lifetime; every export is looked up when
// it is loaded, and a missing one fails the load (Error with ExitCode::bridge_failure).
class Bridge {
public:
  explicit Bridge(const std::filesystem::path &library);
  ~Bridge();
  Bridge(const Bridge &) = delete;
  Bridge &operator=(const Bridge &) = delete;

  const BridgeApi &api() const { return api_; }
  const std::filesystem::path &path() const { return path_; }

  // CLGetInfoString as UTF-8; throws Error(bridge_failure) naming `what` when the call fails.
  std::string info_string(int32_t handle, int32_t property, const char *what) const;
  // CLGetInfoInteger; throws Error(bridge_failure) naming `what` on -1 with an error set.
  int64_t info_integer(int32_t handle, int32_t property, const char *what) const;
  // "5105 (ERR_OPENCL_PROGRAM_CREATE): <the bridge's description of this thread's last error>"
  std::string last_error_text() const;
  // Throws Error(bridge_failure): "<what> failed: <last_error_text()>".
  [[noreturn]] void fail(const std::string &what) const;

private:
  struct Library;
  std::filesystem::path path_;
  std::unique_ptr<Library> library_;
  BridgeApi api_;
};

// An owned bridge handle, freed with its CL*Free export when it goes out of scope, so a replay
// frees in the reverse order of creation even when it stops half-way.
class Handle {
public:
  using Free = void (*)(int32_t);
  Handle() = default;
  Handle(Free free, int32_t handle) : free_(free), handle_(handle) {}
  ~Handle() { reset(); }
  Handle(Handle &&other) noexcept : free_(other.free_), handle_(other.handle_) {
    other.handle_ = MQLCL_INVALID_HANDLE;
  }
  Handle &operator=(Handle &&other) noexcept {
    if (this != &other) {
      reset();
      free_ = other.free_;
      handle_ = other.handle_;
      other.handle_ = MQLCL_INVALID_HANDLE;
    }
    return *this;
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  int32_t get() const { return handle_; }
  void reset() {
    if (handle_ != MQLCL_INVALID_HANDLE && free_ != nullptr)
      free_(handle_);
    handle_ = MQLCL_INVALID_HANDLE;
  }

private:
  Free free_ = nullptr;
  int32_t handle_ = MQLCL_INVALID_HANDLE;
};

} // namespace mqlcl::replay
