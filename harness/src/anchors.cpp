// The anchors' shared loader: the first of several library names that loads.
#include "anchors.hpp"

#include <boost/dll/shared_library.hpp>

#include <filesystem>

namespace mqlcl::replay {

std::optional<boost::dll::shared_library> load_first(const std::vector<std::string> &names,
                                                     const std::vector<std::string> &dirs,
                                                     std::string &tried) {
  namespace mode = boost::dll::load_mode;
  std::vector<std::filesystem::path> candidates;
  for (const std::string &dir : dirs)
    if (!dir.empty())
      for (const std::string &name : names)
        candidates.push_back(std::filesystem::path(dir) / name);
  for (const std::string &name : names)
    candidates.emplace_back(name);
  for (const std::filesystem::path &candidate : candidates) {
    boost::dll::fs::error_code error;
    boost::dll::shared_library library(candidate, mode::search_system_folders | mode::rtld_global,
                                       error);
    if (!error)
      return library;
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  return std::nullopt;
}

std::optional<boost::dll::shared_library> load_openblas(std::string &tried) {
  return load_first({"libopenblas.so.0", "libopenblas.so", "libopenblas.dll"}, {}, tried);
}

} // namespace mqlcl::replay
