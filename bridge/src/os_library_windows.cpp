#include "os_library.hpp"

#include <windows.h>

#include <string>

namespace mqlcl::os {

namespace {
std::wstring widen(const std::string &utf8) {
  if (utf8.empty())
    return {};
  int units =
      MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), nullptr, 0);
  std::wstring wide(static_cast<size_t>(units), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, utf8.data(), static_cast<int>(utf8.size()), wide.data(), units);
  return wide;
}

std::string narrow(const std::wstring &wide) {
  int bytes = WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), nullptr,
                                  0, nullptr, nullptr);
  std::string utf8(static_cast<size_t>(bytes), '\0');
  WideCharToMultiByte(CP_UTF8, 0, wide.data(), static_cast<int>(wide.size()), utf8.data(), bytes,
                      nullptr, nullptr);
  return utf8;
}
} // namespace

void *open_library(const std::string &utf8_name, std::string &error) noexcept {
  try {
    HMODULE library = LoadLibraryW(widen(utf8_name).c_str());
    if (library == nullptr)
      error = "LoadLibraryW(" + utf8_name + ") failed with error " + std::to_string(GetLastError());
    return reinterpret_cast<void *>(library);
  } catch (...) {
    return nullptr;
  }
}

void *find_symbol(void *library, const char *name) noexcept {
  return reinterpret_cast<void *>(GetProcAddress(static_cast<HMODULE>(library), name));
}

bool process_opencl(void *&library, std::string &where) noexcept {
  HMODULE module = nullptr;
  // Flags 0: takes a reference, so the DLL stays loaded while the table points into it.
  if (!GetModuleHandleExW(0, L"OpenCL.dll", &module))
    return false;
  library = reinterpret_cast<void *>(module);
  try {
    std::wstring path(MAX_PATH, L'\0');
    DWORD units = GetModuleFileNameW(module, path.data(), static_cast<DWORD>(path.size()));
    path.resize(units < path.size() ? units : 0);
    where = path.empty() ? "OpenCL.dll" : narrow(path);
  } catch (...) {
  }
  return true;
}

void keep_loaded(void *symbol) noexcept {
  HMODULE module = nullptr;
  GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS, reinterpret_cast<LPCWSTR>(symbol),
                     &module);
}

const char *const *default_opencl_library_names() noexcept {
  static const char *const names[] = {"OpenCL.dll", nullptr};
  return names;
}

const char *cuda_driver_library_name() noexcept {
  return "nvcuda.dll";
}

std::string environment(const char *name) {
  std::wstring wide_name = widen(name);
  DWORD units = GetEnvironmentVariableW(wide_name.c_str(), nullptr, 0);
  if (units == 0)
    return {};
  std::wstring value(units, L'\0');
  units = GetEnvironmentVariableW(wide_name.c_str(), value.data(), units);
  value.resize(units);
  return narrow(value);
}

} // namespace mqlcl::os
