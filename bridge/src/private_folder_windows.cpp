// PrivateFolder on Windows. Checked: the folder is a folder and no link (no reparse point:
// symbolic link or junction); files are opened without following reparse points and used only
// when they are plain disk files (no folder, link or device). Not checked: the folder's owner and
// ACL. The bridge's own folders are per user and ACL-protected: %LOCALAPPDATA% and the
// MetaTrader data folder (under %APPDATA%) let in only the user, SYSTEM and administrators, and
// a folder made inside inherits that. A folder named by MQLCL_PROGRAM_CACHE or MQLCL_RUNTIME_DIR
// is trusted as the user made it: one that other users may write lets them change what the
// bridge loads, as on POSIX it would be refused.
#include "private_folder.hpp"

#include <windows.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <system_error>

namespace mqlcl::os {

namespace fs = std::filesystem;

namespace {

constexpr DWORD kShareAll = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

fs::path inside(const std::string &folder, const std::string &name) {
  return fs::u8path(folder) / fs::u8path(name);
}

bool is_plain_file(HANDLE file) {
  BY_HANDLE_FILE_INFORMATION info{};
  return GetFileType(file) == FILE_TYPE_DISK && GetFileInformationByHandle(file, &info) &&
         (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) == 0;
}

// Opens a plain file of the folder, never through a reparse point; INVALID_HANDLE_VALUE else.
HANDLE open_plain(const fs::path &path, DWORD access, DWORD disposition) {
  HANDLE file = CreateFileW(path.c_str(), access, kShareAll, nullptr, disposition,
                            FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (file != INVALID_HANDLE_VALUE && !is_plain_file(file)) {
    CloseHandle(file);
    return INVALID_HANDLE_VALUE;
  }
  return file;
}

// Handles closed however the scope is left (an allocation that throws included).
struct CloseFile {
  void operator()(HANDLE file) const { CloseHandle(file); }
};
struct CloseListing {
  void operator()(HANDLE listing) const { FindClose(listing); }
};
using OwnedFile = std::unique_ptr<void, CloseFile>;
using OwnedListing = std::unique_ptr<void, CloseListing>;

bool write_all(HANDLE file, const std::string &bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    DWORD chunk = static_cast<DWORD>(std::min<size_t>(bytes.size() - written, 1u << 30));
    DWORD put = 0;
    if (!WriteFile(file, bytes.data() + written, chunk, &put, nullptr) || put == 0)
      return false;
    written += put;
  }
  return true;
}

} // namespace

PrivateFolder::PrivateFolder(const std::string &utf8_path, bool make) : path_(utf8_path) {
  if (path_.empty())
    return;
  try {
    std::error_code error;
    const fs::path folder = fs::u8path(path_);
    if (make)
      fs::create_directories(folder, error);
    DWORD attributes = GetFileAttributesW(folder.c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES || (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0)
      return;
    if ((attributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
      state_ = State::unsafe;
      refusal_ = "is a link (a symbolic link or junction; name the folder it points to instead)";
      return;
    }
    state_ = State::usable;
  } catch (...) {
  }
}

PrivateFolder::~PrivateFolder() = default;

std::optional<std::string> PrivateFolder::read(const std::string &name, uint64_t max_bytes) const {
  if (!usable())
    return std::nullopt;
  HANDLE file = open_plain(inside(path_, name), GENERIC_READ, OPEN_EXISTING);
  if (file == INVALID_HANDLE_VALUE)
    return std::nullopt;
  OwnedFile owned(file);
  std::optional<std::string> bytes;
  LARGE_INTEGER size{};
  if (GetFileSizeEx(file, &size) && size.QuadPart > 0 &&
      static_cast<uint64_t>(size.QuadPart) <= max_bytes) {
    bytes.emplace(static_cast<size_t>(size.QuadPart), '\0');
    size_t done = 0;
    while (bytes && done < bytes->size()) {
      DWORD chunk = static_cast<DWORD>(std::min<size_t>(bytes->size() - done, 1u << 30));
      DWORD got = 0;
      if (!ReadFile(file, bytes->data() + done, chunk, &got, nullptr) || got == 0)
        bytes.reset();
      else
        done += got;
    }
  }
  return bytes;
}

bool PrivateFolder::write_atomically(const std::string &name, const std::string &bytes) const {
  if (!usable())
    return false;
  std::error_code error;
  const fs::path target = inside(path_, name);
  const fs::path temporary = inside(path_, name + unique_temporary_suffix());
  // A new file (CREATE_NEW), never one that is there already, a link included.
  HANDLE file = open_plain(temporary, GENERIC_WRITE, CREATE_NEW);
  if (file == INVALID_HANDLE_VALUE)
    return false;
  bool written = write_all(file, bytes);
  written = CloseHandle(file) && written;
  if (written) {
    // Windows refuses to replace a file that another thread or process has open or is renaming
    // into place: that writer's file is as whole as ours, so ours goes. Removing the target to
    // retry could remove that file and leave none (six threads writing one cache entry under
    // Wine: none left in 1 run of 10).
    fs::rename(temporary, target, error);
    written = !error;
  }
  if (!written)
    fs::remove(temporary, error);
  return written;
}

bool PrivateFolder::exists(const std::string &name) const {
  std::error_code error;
  return usable() && fs::exists(fs::symlink_status(inside(path_, name), error));
}

std::vector<FolderFile> PrivateFolder::files() const {
  std::vector<FolderFile> found;
  if (!usable())
    return found;
  WIN32_FIND_DATAW item{};
  HANDLE listing = FindFirstFileW((fs::u8path(path_) / L"*").c_str(), &item);
  if (listing == INVALID_HANDLE_VALUE)
    return found;
  OwnedListing owned(listing);
  do {
    if ((item.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) != 0)
      continue;
    // FILETIME: 100 ns units since 1601; the Unix epoch is 11644473600 s later.
    int64_t ticks = static_cast<int64_t>(uint64_t{item.ftLastWriteTime.dwHighDateTime} << 32 |
                                         item.ftLastWriteTime.dwLowDateTime);
    found.push_back({fs::path(item.cFileName).u8string(),
                     uint64_t{item.nFileSizeHigh} << 32 | item.nFileSizeLow,
                     (ticks - 116444736000000000) * 100});
  } while (FindNextFileW(listing, &item));
  return found;
}

void PrivateFolder::remove(const std::string &name) const {
  std::error_code error;
  if (usable())
    fs::remove(inside(path_, name), error);
}

void PrivateFolder::touch(const std::string &name) const {
  std::error_code error;
  if (usable())
    fs::last_write_time(inside(path_, name), fs::file_time_type::clock::now(), error);
}

void *PrivateFolder::lock(const std::string &name, std::chrono::milliseconds wait) const {
  if (!usable())
    return nullptr;
  HANDLE file = open_plain(inside(path_, name), GENERIC_READ | GENERIC_WRITE, OPEN_ALWAYS);
  if (file == INVALID_HANDLE_VALUE)
    return nullptr;
  // Locks belong to the handle, and Windows drops them when the process ends.
  bool locked = retry_until(
      [file] {
        OVERLAPPED whole{};
        return LockFileEx(file, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0,
                          &whole) != 0;
      },
      wait);
  if (!locked) {
    CloseHandle(file);
    return nullptr;
  }
  return reinterpret_cast<void *>(file);
}

} // namespace mqlcl::os
