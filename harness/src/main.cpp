// mqlcl-replay: the article's ten scripts replayed through the bridge (docs/replay.md).
#include "app.hpp"
#include "error.hpp"

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  try {
    return mqlcl::replay::run_replay_command(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const mqlcl::replay::Error &error) {
    std::fprintf(stderr, "mqlcl-replay: %s\n", error.what());
    return static_cast<int>(error.code());
  } catch (const std::exception &error) {
    std::fprintf(stderr, "mqlcl-replay: %s\n", error.what());
    return static_cast<int>(mqlcl::replay::ExitCode::bridge_failure);
  }
}
