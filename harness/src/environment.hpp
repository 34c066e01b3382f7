// The harness reads the environment here and nowhere else, so one rule holds for every variable:
// set to "" is the same as unset. scoped_environment.hpp sets one for a while.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace mqlcl::replay {

// The variable as it is set, "" included; std::nullopt when it is unset. For restoring it.
inline std::optional<std::string> environment_as_set(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
}

// The variable's value; "" when it is unset.
inline std::string environment(const char *name) {
  return environment_as_set(name).value_or("");
}

} // namespace mqlcl::replay
