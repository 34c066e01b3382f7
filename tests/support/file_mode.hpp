// The permission bits of a file, as the tests of private folders (the program cache's, the
// spread's runtime folder) read them. POSIX only.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

#include <sys/stat.h>

namespace mqlcl_test {

// The permission bits of `path` (not following a link) in octal, such as "0700"; "none" when
// there is no such file.
inline std::string mode_of(const std::filesystem::path &path) {
  struct stat status {};
  if (lstat(path.c_str(), &status) != 0)
    return "none";
  char octal[8];
  std::snprintf(octal, sizeof(octal), "%04o", static_cast<unsigned>(status.st_mode & 07777));
  return octal;
}

} // namespace mqlcl_test
