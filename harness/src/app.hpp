// mqlcl-replay as a function: parse, load the bridge, replay, report. Returns the exit status.
#pragma once

#include <string>
#include <vector>

namespace mqlcl::replay {

int run_replay_command(const std::vector<std::string> &args);

} // namespace mqlcl::replay
