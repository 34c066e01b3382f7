#include "paths.hpp"

#include "environment.hpp"
#include "error.hpp"
#include "platform.hpp"

#include <fmt/format.h>

#include <vector>

// Set by harness/CMakeLists.txt.
#ifndef MQLCL_REPLAY_LIBRARY_FILE
#error "MQLCL_REPLAY_LIBRARY_FILE must name the bridge's file (libmqlcl.so.1.0.0, mqlcl.dll)"
#endif

namespace mqlcl::replay {

namespace {

namespace fs = std::filesystem;

fs::path executable_dir() {
  return executable_path().parent_path();
}

std::string list(const std::vector<fs::path> &paths) {
  std::string out;
  for (const fs::path &path : paths)
    out += (out.empty() ? "" : ", ") + path.string();
  return out;
}

} // namespace

fs::path find_library(const std::optional<fs::path> &option) {
  if (option)
    return *option; // Bridge reports a missing file
  if (std::string variable = environment("MQLCL_LIBRARY"); !variable.empty()) {
    if (!fs::is_regular_file(variable))
      bad_input(fmt::format("MQLCL_LIBRARY={} does not name a file", variable));
    return variable;
  }
  std::vector<fs::path> candidates{executable_dir() / MQLCL_REPLAY_LIBRARY_FILE,
                                   executable_dir() / MQLCL_REPLAY_LIBDIR_FROM_BINDIR /
                                       MQLCL_REPLAY_LIBRARY_FILE};
  for (const fs::path &candidate : candidates)
    if (fs::is_regular_file(candidate))
      return candidate.lexically_normal();
  bad_input(fmt::format("the bridge library is not next to the executable (looked for {}); give "
                        "it with --library PATH or MQLCL_LIBRARY",
                        list(candidates)));
}

fs::path find_kernels(const std::optional<fs::path> &option) {
  if (option) {
    if (!fs::is_directory(*option))
      bad_input(fmt::format("--kernels {}: no such directory", option->string()));
    return *option;
  }
  if (std::string variable = environment("MQLCL_KERNELS_DIR"); !variable.empty()) {
    if (!fs::is_directory(variable))
      bad_input(fmt::format("MQLCL_KERNELS_DIR={}: no such directory", variable));
    return variable;
  }
  std::vector<fs::path> candidates{executable_dir() / MQLCL_REPLAY_KERNELS_FROM_BINDIR,
                                   executable_dir() / "kernels",
                                   fs::path(MQLCL_REPLAY_SOURCE_KERNELS)};
  for (const fs::path &candidate : candidates)
    if (fs::is_regular_file(candidate / "matr_mul_1dim.cl"))
      return candidate.lexically_normal();
  bad_input(fmt::format("no kernels directory found (looked in {}); give it with --kernels DIR or "
                        "MQLCL_KERNELS_DIR",
                        list(candidates)));
}

} // namespace mqlcl::replay
