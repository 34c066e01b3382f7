#include "platform.hpp"

#include <boost/dll/runtime_symbol_info.hpp>

#include <cstdlib>

#ifdef _WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

namespace mqlcl::replay {

std::filesystem::path executable_path() {
  boost::dll::fs::error_code error;
  std::filesystem::path path = boost::dll::program_location(error);
  return error ? std::filesystem::path() : path;
}

bool is_terminal(std::FILE *stream) {
#ifdef _WIN32
  return _isatty(_fileno(stream)) != 0;
#else
  return isatty(fileno(stream)) != 0;
#endif
}

std::optional<std::string> environment(const char *name) {
  const char *value = std::getenv(name);
  if (value == nullptr || *value == '\0')
    return std::nullopt;
  return std::string(value);
}

} // namespace mqlcl::replay
