// mqlcl.dll loaded the way MetaTrader 5 loads an #import DLL: LoadLibraryW on its full path,
// then GetProcAddress per function. Nothing here links against the DLL, so FreeLibrary really
// unloads it. Shared by the loader test and the process-exit child.
#pragma once

#include "../../harness/src/bridge_exports.hpp"
#include "../../harness/src/utf16_text.hpp"

#include <mqlcl/mqlcl.h>

#include <windows.h>

#include <string>
#include <vector>

namespace mqlcl_windows {

// The folder of the running executable, with a trailing backslash: the tests, the child and
// the DLLs all sit in the build's bin folder.
inline std::wstring executable_folder() {
  std::vector<wchar_t> path(32768);
  DWORD length = GetModuleFileNameW(nullptr, path.data(), static_cast<DWORD>(path.size()));
  std::wstring folder(path.data(), length);
  return folder.substr(0, folder.find_last_of(L"\\/") + 1);
}

// The mqlcl.dll under test: MQLCL_TEST_DLL (a full Windows path, such as a data folder's
// MQL5\Libraries\mqlcl.dll unpacked from the zip), else the one next to the executable.
inline std::wstring bridge_path() {
  std::vector<wchar_t> path(32768);
  DWORD length =
      GetEnvironmentVariableW(L"MQLCL_TEST_DLL", path.data(), static_cast<DWORD>(path.size()));
  if (length > 0 && length < path.size())
    return std::wstring(path.data(), length);
  return executable_folder() + L"mqlcl.dll";
}

using mqlcl::replay::to_utf8; // the harness's: one conversion on the callers' side

// A wide (UTF-16) string as UTF-8, for messages and narrow file names.
inline std::string narrow(const std::wstring &text) {
  return to_utf8(std::u16string(text.begin(), text.end()).c_str());
}

class LoadedBridge {
public:
#define MQLCL_POINTER(name) decltype(&::name) name = nullptr;
  MQLCL_BRIDGE_EXPORTS(MQLCL_POINTER)
#undef MQLCL_POINTER

  explicit LoadedBridge(const std::wstring &path) : module_(LoadLibraryW(path.c_str())) {
    if (module_ == nullptr) {
      load_error_ =
          "LoadLibraryW(" + narrow(path) + ") failed with error " + std::to_string(GetLastError());
      return;
    }
#define MQLCL_RESOLVE(name)                                                                        \
  name =                                                                                           \
      reinterpret_cast<decltype(name)>(reinterpret_cast<void *>(GetProcAddress(module_, #name)));  \
  if (name == nullptr)                                                                             \
    missing_.push_back(#name);
    MQLCL_BRIDGE_EXPORTS(MQLCL_RESOLVE)
#undef MQLCL_RESOLVE
  }
  ~LoadedBridge() {
    unload();
  }
  LoadedBridge(const LoadedBridge &) = delete;
  LoadedBridge &operator=(const LoadedBridge &) = delete;

  bool loaded() const {
    return module_ != nullptr && missing_.empty();
  }
  const std::string &load_error() const {
    return load_error_;
  }
  const std::vector<std::string> &missing() const {
    return missing_;
  }

  // FreeLibrary; true when it succeeded (the DLL is then gone unless loaded elsewhere too).
  bool unload() {
    if (module_ == nullptr)
      return false;
    BOOL freed = FreeLibrary(module_);
    module_ = nullptr;
    return freed != FALSE;
  }

  std::string last_error_text() const {
    std::vector<char16_t> text(4096);
    if (!CLGetInfoString(MQLCL_CL_LAST_ERROR, MQLCL_CL_ERROR_DESCRIPTION, text.data(),
                         static_cast<uint32_t>(text.size())))
      return "(no description)";
    return to_utf8(text.data());
  }

private:
  HMODULE module_ = nullptr;
  std::string load_error_;
  std::vector<std::string> missing_;
};

// A kernel that keeps PoCL busy for a while, so a launch is still queued or running when the
// DLL is unloaded or the process exits; and a vector addition for the round trip.
inline constexpr const char16_t *kKernels = uR"CL(
__kernel void add(__global const float *a, __global const float *b, __global float *sum)
{
  size_t i = get_global_id(0);
  sum[i] = a[i] + b[i];
}

__kernel void spin(__global float *out, int iterations)
{
  size_t i = get_global_id(0);
  float x = (float)i;
  for (int k = 0; k < iterations; ++k)
    x = x * 0.999f + 1.0f;
  out[i] = x;
}
)CL";

inline constexpr uint32_t kSpinItems = 4096;
inline constexpr int32_t kSpinIterations = 200000;

} // namespace mqlcl_windows
