// A new, empty folder of this user's alone under the system's temporary folder, removed with what
// it holds when the scope ends.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace mqlcl::replay {

class ScopedFolder {
public:
  explicit ScopedFolder(const std::string &prefix) {
    namespace fs = std::filesystem;
    std::random_device random;
    do
      path_ = fs::temp_directory_path() / fmt::format("{}-{:08x}", prefix, random());
    while (!fs::create_directory(path_)); // false: the name was taken, draw another
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::replace);
  }
  ~ScopedFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScopedFolder(const ScopedFolder &) = delete;
  ScopedFolder &operator=(const ScopedFolder &) = delete;
  const std::filesystem::path &path() const { return path_; }

private:
  std::filesystem::path path_;
};

} // namespace mqlcl::replay
