#include "os_library.hpp"

#include "utf16.hpp"

#include <windows.h>

#include <string>
#include <system_error>

namespace mqlcl::os {

namespace {
// wchar_t is a UTF-16 unit on Windows: the conversions are utf16.hpp's, unit by unit.
std::wstring widen(const std::string &utf8) {
  const std::u16string wide = utf8_to_utf16(utf8);
  return std::wstring(wide.begin(), wide.end());
}

std::string narrow(const std::wstring &wide) {
  return utf16_to_utf8(std::u16string(wide.begin(), wide.end()).c_str());
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

namespace {
// The folder this DLL was loaded from, UTF-8 with '\\' separators; empty when unknown.
std::string module_folder() {
  static const char anchor = 0; // any address inside this DLL
  HMODULE self = nullptr;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                              GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          reinterpret_cast<LPCWSTR>(&anchor), &self))
    return {};
  std::wstring path(32768, L'\0');
  DWORD units = GetModuleFileNameW(self, path.data(), static_cast<DWORD>(path.size()));
  if (units == 0 || units >= path.size())
    return {};
  path.resize(units);
  size_t slash = path.find_last_of(L"\\/");
  return slash == std::wstring::npos ? std::string() : narrow(path.substr(0, slash));
}

bool ends_with_folders(const std::string &path, const char *tail) {
  std::string lower;
  for (char c : path)
    lower += c == '/' ? '\\' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  std::string wanted = tail;
  return lower.size() > wanted.size() &&
         lower.compare(lower.size() - wanted.size(), wanted.size(), wanted) == 0;
}
} // namespace

std::string default_cache_folder() {
  // MetaTrader loads DLLs from <data folder>\MQL5\Libraries (a tester agent's from its own).
  std::string folder = module_folder();
  const char *tail = "\\mql5\\libraries";
  if (ends_with_folders(folder, tail))
    return folder.substr(0, folder.size() - std::string(tail).size()) + "\\mqlcl-cache";
  std::string local = environment("LOCALAPPDATA");
  return local.empty() ? std::string() : local + "\\mqlcl";
}

std::string default_runtime_folder() {
  std::string local = environment("LOCALAPPDATA");
  if (!local.empty())
    return local + "\\mqlcl\\run";
  std::string temp = environment("TEMP");
  return temp.empty() ? std::string() : temp + "\\mqlcl-run";
}

void unlock_file(void *lock) noexcept {
  if (lock != nullptr)
    CloseHandle(reinterpret_cast<HANDLE>(lock)); // closing the handle drops its lock
}

unsigned long process_id() noexcept {
  return static_cast<unsigned long>(GetCurrentProcessId());
}

struct Thread::Native {
  HANDLE handle = nullptr;
  HMODULE module = nullptr; // the reference the thread holds on the DLL
  std::function<void()> body;
};

namespace {
DWORD WINAPI run_thread(void *native_pointer) {
  auto *native = static_cast<Thread::Native *>(native_pointer);
  const HMODULE module = native->module;
  native->body();
  FreeLibraryAndExitThread(module, 0); // the DLL may unload here: no code of it runs after
  return 0;                            // not reached
}
} // namespace

Thread::Thread(std::function<void()> body) : native_(std::make_unique<Native>()) {
  native_->body = std::move(body);
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
                          reinterpret_cast<LPCWSTR>(&run_thread), &native_->module))
    throw std::system_error(static_cast<int>(GetLastError()), std::system_category(),
                            "GetModuleHandleExW");
  native_->handle = CreateThread(nullptr, size_t{1} << 20, run_thread, native_.get(),
                                 STACK_SIZE_PARAM_IS_A_RESERVATION, nullptr);
  if (native_->handle == nullptr) {
    const auto error = static_cast<int>(GetLastError());
    FreeLibrary(native_->module);
    throw std::system_error(error, std::system_category(), "CreateThread");
  }
}

Thread::Thread(Thread &&other) noexcept = default;

Thread::~Thread() {
  join();
}

void Thread::join() noexcept {
  if (native_ && native_->handle != nullptr) {
    WaitForSingleObject(native_->handle, INFINITE);
    CloseHandle(native_->handle);
    native_->handle = nullptr;
  }
}

void Thread::release_at_unload() noexcept {
  if (native_ && native_->handle != nullptr) {
    CloseHandle(native_->handle);
    native_->handle = nullptr;
  }
}

} // namespace mqlcl::os
