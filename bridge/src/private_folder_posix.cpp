// PrivateFolder on POSIX. The folder is opened once (never through a symbolic link as its last
// component) and checked on that open descriptor: a folder, owned by this process's effective
// user, writable by no one else (no group or other write bit). Every file is then reached
// relative to that descriptor (openat, renameat, ...), so a parent folder renamed or replaced
// later cannot redirect a call; files are opened O_NOFOLLOW | O_NONBLOCK and used only when
// fstat says they are regular files of this user's. What is not checked: the parents of the
// folder (whoever can write them can move this folder away, not make the bridge use theirs,
// since a replacement fails the checks) and root, who can write anything.
#include "private_folder.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace mqlcl::os {

namespace {

constexpr mode_t kFolderMode = 0700;
constexpr mode_t kFileMode = 0600;

int descriptor(intptr_t folder) {
  return static_cast<int>(folder);
}

// A descriptor closed however the scope is left (an allocation that throws included).
class OwnedDescriptor {
public:
  explicit OwnedDescriptor(int fd) : fd_(fd) {}
  OwnedDescriptor(const OwnedDescriptor &) = delete;
  OwnedDescriptor &operator=(const OwnedDescriptor &) = delete;
  ~OwnedDescriptor() {
    if (fd_ >= 0)
      close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

private:
  int fd_;
};

// The path without trailing slashes, which would make open() follow a link named by the rest.
std::string without_trailing_slashes(const std::string &path) {
  size_t end = path.find_last_not_of('/');
  return end == std::string::npos ? path.substr(0, 1) : path.substr(0, end + 1);
}

// mkdir -p with mode 0700 for every folder it makes (chmod after mkdir: the umask may have taken
// owner bits). True when `path` itself was made here.
bool make_folders(const std::string &path) {
  if (mkdir(path.c_str(), kFolderMode) != 0) {
    if (errno != ENOENT)
      return false;
    size_t end = path.find_last_not_of('/');
    size_t slash = end == std::string::npos ? std::string::npos : path.rfind('/', end);
    if (slash == std::string::npos || slash == 0)
      return false;
    make_folders(path.substr(0, slash));
    if (mkdir(path.c_str(), kFolderMode) != 0)
      return false;
  }
  chmod(path.c_str(), kFolderMode);
  return true;
}

bool is_users_regular_file(const struct stat &status) {
  return S_ISREG(status.st_mode) && status.st_uid == geteuid();
}

// Opens `name` in the folder without following a link or blocking on a FIFO; -1 unless it is a
// regular file of this user's.
int open_regular(int folder, const std::string &name, int flags) {
  int fd = openat(folder, name.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY,
                  kFileMode);
  if (fd < 0)
    return -1;
  struct stat status {};
  if (fstat(fd, &status) != 0 || !is_users_regular_file(status)) {
    close(fd);
    return -1;
  }
  return fd;
}

bool write_all(int fd, const std::string &bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t result = write(fd, bytes.data() + written, bytes.size() - written);
    if (result < 0 && errno == EINTR)
      continue;
    if (result <= 0)
      return false;
    written += static_cast<size_t>(result);
  }
  return true;
}

} // namespace

PrivateFolder::PrivateFolder(const std::string &utf8_path, bool make) : path_(utf8_path) {
  if (path_.empty())
    return;
  const std::string opened = without_trailing_slashes(path_);
  const bool made = make && make_folders(opened);
  OwnedDescriptor fd(open(opened.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    struct stat link {};
    if (lstat(opened.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      state_ = State::unsafe;
      refusal_ = "is a symbolic link (name the folder it points to instead)";
    }
    return;
  }
  struct stat status {};
  if (made)
    fchmod(fd.get(), kFolderMode); // exactly 0700, whatever the umask left
  if (fstat(fd.get(), &status) != 0)
    return;
  if (status.st_uid != geteuid()) {
    state_ = State::unsafe;
    refusal_ = fmt::format("is owned by user {}, not by this user ({})", status.st_uid, geteuid());
  } else if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    state_ = State::unsafe;
    refusal_ = fmt::format("is writable by others (mode {:04o}; chmod 700 makes it private)",
                           status.st_mode & 07777);
  } else {
    state_ = State::usable;
    folder_ = fd.release();
  }
}

PrivateFolder::~PrivateFolder() {
  if (folder_ >= 0)
    close(descriptor(folder_));
}

std::optional<std::string> PrivateFolder::read(const std::string &name, uint64_t max_bytes) const {
  if (!usable())
    return std::nullopt;
  OwnedDescriptor fd(open_regular(descriptor(folder_), name, O_RDONLY));
  if (fd.get() < 0)
    return std::nullopt;
  struct stat status {};
  std::optional<std::string> bytes;
  if (fstat(fd.get(), &status) == 0 && status.st_size > 0 &&
      static_cast<uint64_t>(status.st_size) <= max_bytes) {
    bytes.emplace(static_cast<size_t>(status.st_size), '\0');
    size_t done = 0;
    while (bytes && done < bytes->size()) {
      ssize_t result = ::read(fd.get(), bytes->data() + done, bytes->size() - done);
      if (result < 0 && errno == EINTR)
        continue;
      if (result <= 0)
        bytes.reset(); // cut short while read: a miss like any other
      else
        done += static_cast<size_t>(result);
    }
  }
  return bytes;
}

bool PrivateFolder::write_atomically(const std::string &name, const std::string &bytes) const {
  if (!usable())
    return false;
  const int folder = descriptor(folder_);
  const std::string temporary = name + unique_temporary_suffix();
  int fd = open_regular(folder, temporary, O_WRONLY | O_CREAT | O_EXCL);
  if (fd < 0)
    return false;
  bool written = fchmod(fd, kFileMode) == 0 && write_all(fd, bytes);
  written = close(fd) == 0 && written;
  written = written && renameat(folder, temporary.c_str(), folder, name.c_str()) == 0;
  if (!written)
    unlinkat(folder, temporary.c_str(), 0);
  return written;
}

bool PrivateFolder::exists(const std::string &name) const {
  struct stat status {};
  return usable() && fstatat(descriptor(folder_), name.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0;
}

std::vector<FolderFile> PrivateFolder::files() const {
  std::vector<FolderFile> found;
  if (!usable())
    return found;
  // A descriptor of its own for the listing: fdopendir takes it, and closedir closes it.
  int fd = openat(descriptor(folder_), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  std::unique_ptr<DIR, int (*)(DIR *)> listing(fd >= 0 ? fdopendir(fd) : nullptr, closedir);
  if (listing == nullptr) {
    if (fd >= 0)
      close(fd);
    return found;
  }
  while (const dirent *item = readdir(listing.get())) {
    struct stat status {};
    if (fstatat(descriptor(folder_), item->d_name, &status, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(status.st_mode))
      found.push_back({item->d_name, static_cast<uint64_t>(status.st_size),
                       int64_t{status.st_mtim.tv_sec} * 1000000000 + status.st_mtim.tv_nsec});
  }
  return found;
}

void PrivateFolder::remove(const std::string &name) const {
  if (usable())
    unlinkat(descriptor(folder_), name.c_str(), 0);
}

void PrivateFolder::touch(const std::string &name) const {
  if (usable())
    utimensat(descriptor(folder_), name.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
}

void *PrivateFolder::lock(const std::string &name, std::chrono::milliseconds wait) const {
  if (!usable())
    return nullptr;
  int fd = open_regular(descriptor(folder_), name, O_RDWR | O_CREAT);
  if (fd < 0)
    return nullptr;
  fchmod(fd, kFileMode); // others open it O_RDWR too, whatever the umask of its maker
  // flock: held by this open file, and dropped by the kernel when the process ends.
  bool locked = retry_until(
      [fd] {
        int result = 0;
        do
          result = flock(fd, LOCK_EX | LOCK_NB);
        while (result != 0 && errno == EINTR);
        return result == 0;
      },
      wait);
  if (!locked) {
    close(fd);
    return nullptr;
  }
  return reinterpret_cast<void *>(static_cast<intptr_t>(fd) + 1); // never nullptr
}

} // namespace mqlcl::os
