// An environment variable set for the duration of a scope (this process and the programs it
// starts), then restored: set, or unset when it was not set before. The tests use it too
// (tests/support/scoped_environment.hpp).
#pragma once

#include "environment.hpp"

#include <cstdlib>
#include <optional>
#include <string>

namespace mqlcl::replay {

class ScopedEnvironment {
public:
  // std::nullopt unsets the variable for the scope.
  ScopedEnvironment(const char *name, const std::optional<std::string> &value)
      : name_(name), old_(environment_as_set(name)) {
    set(value);
  }
  ~ScopedEnvironment() { set(old_); }
  ScopedEnvironment(const ScopedEnvironment &) = delete;
  ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
  void set(const std::optional<std::string> &value) {
#ifdef _WIN32
    _putenv_s(name_.c_str(), value ? value->c_str() : "");
#else
    if (value)
      setenv(name_.c_str(), value->c_str(), 1);
    else
      unsetenv(name_.c_str());
#endif
  }
  std::string name_;
  std::optional<std::string> old_;
};

} // namespace mqlcl::replay
