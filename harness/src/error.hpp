// The harness's one exception type, carrying the process exit code the failure maps to.
#pragma once

#include <stdexcept>
#include <string>

namespace mqlcl::replay {

// Exit codes of mqlcl-replay (docs/replay.md, "Exit codes").
enum class ExitCode : int {
  ok = 0,
  wrong_results = 1, // a replay's product differs from the double-precision reference
  bad_input = 2,     // unknown script, bad option or size, missing file, a size a step rejects
  bridge_failure = 3 // the bridge or OpenCL failed: no device, build or launch failure, ...
};

class Error : public std::runtime_error {
public:
  Error(ExitCode code, const std::string &message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

private:
  ExitCode code_;
};

[[noreturn]] inline void bad_input(const std::string &message) {
  throw Error(ExitCode::bad_input, message);
}

} // namespace mqlcl::replay
