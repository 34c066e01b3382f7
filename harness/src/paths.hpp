// Where the bridge library and the kernel files are: an option, else an environment variable,
// else next to the executable (build tree or install tree), else the source tree's kernels/.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace mqlcl::replay {

// --library PATH, else MQLCL_LIBRARY, else the bridge next to the executable (bin/ in the build
// tree; <bindir>/<rel>/lib when installed). Throws Error(bad_input) naming where it looked.
std::filesystem::path find_library(const std::optional<std::filesystem::path> &option);

// --kernels DIR, else MQLCL_KERNELS_DIR, else kernels installed next to the executable
// (share/mqlcl/kernels), else <exe dir>/kernels, else the source tree's kernels/.
std::filesystem::path find_kernels(const std::optional<std::filesystem::path> &option);

} // namespace mqlcl::replay
