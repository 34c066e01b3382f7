// A folder of the bridge's own files that only this user may change: the program cache
// (program_cache.cpp) and the device slots of spreading processes (device_spread.cpp). What is in
// such a folder is trusted (an entry of the cache is code the device runs; a held lock makes
// others wait), so the folder is checked once when opened, and every file in it is reached
// through that check: one implementation per OS (private_folder_posix.cpp,
// private_folder_windows.cpp), each saying what it checks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::os {

// One regular file of a folder; `modified` is its last write in nanoseconds since 1970 (UTC),
// as std::chrono::system_clock counts.
struct FolderFile {
  std::string name;
  uint64_t bytes = 0;
  int64_t modified = 0;
};

class PrivateFolder {
public:
  enum class State {
    usable,
    unavailable, // cannot be made or opened: a read-only parent, a file in its way, no path
    unsafe,      // there, but others could change it (refusal() says how)
  };

  // Opens the folder at `utf8_path`, first making it and any missing parent when `make` (mode
  // 0700 whatever the umask, on POSIX). An empty path is unavailable.
  explicit PrivateFolder(const std::string &utf8_path, bool make = true);
  ~PrivateFolder();
  PrivateFolder(const PrivateFolder &) = delete;
  PrivateFolder &operator=(const PrivateFolder &) = delete;

  State state() const { return state_; }
  bool usable() const { return state_ == State::usable; }
  const std::string &path() const { return path_; }
  // Why an unsafe folder is not used, as a sentence's end: "is owned by user 1001", ...
  const std::string &refusal() const { return refusal_; }

  // `name` is a plain file name inside the folder. Nothing below follows a symbolic link or
  // uses anything but a regular file of this user's: a FIFO, device, folder or link at a name is
  // never read (nor blocks the call), and is only ever replaced by a rename. Every call fails
  // quietly (nothing, false, nullptr) on an unusable folder.

  // The file's bytes; nothing when it is missing, not a regular file of this user's, empty, or
  // over `max_bytes`.
  std::optional<std::string> read(const std::string &name, uint64_t max_bytes) const;
  // Writes `bytes` as `name` (mode 0600) through a file of its own renamed into place, so
  // readers see the old file or the new one, never part of one. False when nothing was written;
  // no temporary file is left.
  bool write_atomically(const std::string &name, const std::string &bytes) const;
  bool exists(const std::string &name) const;
  std::vector<FolderFile> files() const; // the regular files
  void remove(const std::string &name) const;
  void touch(const std::string &name) const; // its last write becomes now

  // An exclusive lock on the file `name` (made, 0600, when missing) that the operating system
  // drops when the process ends, however it ends; held by this open file, so two locks in one
  // process exclude each other too. Waits at most `wait` for another holder (zero: tries once).
  // nullptr on a timeout or when the file cannot be opened as above. os::unlock_file
  // (os_library.hpp) releases it.
  void *lock(const std::string &name, std::chrono::milliseconds wait) const;

private:
  std::string path_;
  intptr_t folder_ = -1; // POSIX: the folder's open descriptor, every file reached through it
  State state_ = State::unavailable;
  std::string refusal_;
};

// Calls `attempt` until it returns true or `wait` has passed, trying at least once and sleeping a
// little between tries (locks: neither OS has a wait with a timeout for a file lock).
bool retry_until(const std::function<bool()> &attempt, std::chrono::milliseconds wait);

// A file-name suffix (".tmp-" and 16 hex digits) that no other writer, in this process or
// another, picks at the same time.
std::string unique_temporary_suffix();

} // namespace mqlcl::os
