// What the harness's unit suites (test_units_*.cpp) share: the command line as the program parses
// it, and the message of the error a call throws.
#pragma once

#include "catalogue.hpp"
#include "cli.hpp"
#include "error.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace harness_units {

// The message of the Error `call` throws, with the exit code it maps to.
template <class Call>
std::string error_of(Call call,
                     mqlcl::replay::ExitCode expected = mqlcl::replay::ExitCode::bad_input) {
  try {
    call();
  } catch (const mqlcl::replay::Error &error) {
    BOOST_TEST(static_cast<int>(error.code()) == static_cast<int>(expected));
    return error.what();
  }
  BOOST_ERROR("no Error was thrown");
  return {};
}

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

inline mqlcl::replay::CommandLine parse(std::vector<std::string> args) {
  return mqlcl::replay::parse_command_line(args, mqlcl::replay::replay_steps());
}

} // namespace harness_units
