// Shared by the harness tests: the bridge loaded as mqlcl-replay loads it, the skip rule of
// tests/support/opencl_device.hpp (skip without a device unless MQLCL_REQUIRE_DEVICE=1), and a
// way to run the real executable and see its exit status and output.
#pragma once

#include "bridge.hpp"
#include "scoped_environment.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifndef _WIN32
#include <sys/wait.h>
#endif

namespace harness_test {

inline bool device_required() {
  const char *value = std::getenv("MQLCL_REQUIRE_DEVICE");
  return value != nullptr && std::string(value) == "1";
}

// The bridge under test, loaded once (by path, as the harness does).
inline const mqlcl::replay::Bridge &bridge() {
  static mqlcl::replay::Bridge loaded(MQLCL_TEST_LIBRARY);
  return loaded;
}

// MQLCL_TEST_DEVICE (an ordinal) or the bridge's default choice, as the bridge tests use.
inline int32_t device_under_test() {
  const char *value = std::getenv("MQLCL_TEST_DEVICE");
  return value != nullptr ? std::atoi(value) : MQLCL_USE_ANY;
}

struct needs_device {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    if (device_required() || bridge().api().CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT) > 0)
      return true;
    static bool said = false;
    if (!said) {
      std::cout << "SKIPPED: no OpenCL platform or device is present (install pocl-opencl-icd)"
                << std::endl;
      said = true;
    }
    boost::test_tools::assertion_result result(false);
    result.message() << "no OpenCL platform or device is present";
    return result;
  }
};

inline std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

using mqlcl_test::ScopedEnvironment; // tests/support/scoped_environment.hpp

struct Outcome {
  int status = -1;
  std::string out, err;
};

// `text` with the C runtime's Windows text-mode line ends ("\r\n") as "\n": a program's output
// reads the same on every system, and a "\r" left in it is one the program wrote itself.
inline std::string with_unix_line_ends(std::string text) {
#ifdef _WIN32
  std::string::size_type at = 0;
  while ((at = text.find("\r\n", at)) != std::string::npos)
    text.erase(at, 1);
#endif
  return text;
}

// Runs `program` with `args` (each quoted) and returns its exit status, stdout and stderr.
inline Outcome run_program(const std::string &program, const std::vector<std::string> &args) {
  static int counter = 0;
  // Test programs share the work folder and ctest runs them side by side: each names its files
  // apart, or one reads another's output.
  static const std::string process = std::to_string(std::random_device{}());
  std::filesystem::path dir = MQLCL_TEST_WORK_DIR;
  std::filesystem::create_directories(dir);
  std::string stem = "run-" + process + "-" + std::to_string(++counter);
  std::filesystem::path out = dir / (stem + ".out"), err = dir / (stem + ".err");
  std::string command = "\"" + program + "\"";
  for (const std::string &arg : args)
    command += " \"" + arg + "\"";
  command += " >\"" + out.string() + "\" 2>\"" + err.string() + "\"";
#ifdef _WIN32
  command = "\"" + command + "\""; // cmd.exe strips the outer quotes
#endif
  Outcome outcome;
  int raw = std::system(command.c_str());
#ifdef _WIN32
  outcome.status = raw;
#else
  outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
#endif
  outcome.out = with_unix_line_ends(read_file(out));
  outcome.err = with_unix_line_ends(read_file(err));
  BOOST_TEST_MESSAGE(std::filesystem::path(program).filename().string()
                     << " exited " << outcome.status << "\n"
                     << outcome.err);
  return outcome;
}

#ifdef MQLCL_TEST_REPLAY // the tests of the executable
inline Outcome run_replay(const std::vector<std::string> &args) {
  return run_program(MQLCL_TEST_REPLAY, args);
}
#endif // MQLCL_TEST_REPLAY

// Whether `text` contains `part`.
inline bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// The lines of a text, without their ends ("\n" or "\r\n").
inline std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

} // namespace harness_test
