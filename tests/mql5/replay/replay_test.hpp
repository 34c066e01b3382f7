// What the tests that run translated MQL5 programs share: the library loaded as "mqlcl.dll", a
// precondition for a device, and running a program by name, checking that it freed every handle.
#pragma once

#include "mql5_runtime.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

namespace replay_test {

inline const char *const kModule = "mqlcl.dll";

struct LoadTheLibrary {
  LoadTheLibrary() { mql5rt::set_library(kModule, MQLCL_LIBRARY_PATH); }
};

// CLGetInfoInteger of the library, outside any program.
inline long long bridge_integer(int handle, int property) {
  using F = long long (*)(int, int);
  static const F get = mql5rt::import <F>(kModule, "CLGetInfoInteger");
  return get(handle, property);
}
constexpr int kDeviceCount = 0, kObjectCount = 117; // MQLCL_CL_DEVICE_COUNT, _OBJECT_COUNT

// Runs only with a device, unless MQLCL_REQUIRE_DEVICE=1 makes its absence a failure.
struct needs_device {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    const char *required = std::getenv("MQLCL_REQUIRE_DEVICE");
    if ((required != nullptr && std::string(required) == "1") ||
        bridge_integer(0, kDeviceCount) > 0)
      return true;
    std::cout << "SKIPPED: no OpenCL platform or device is present" << std::endl;
    return false;
  }
};

// The program's journal; it must leave no handle behind.
inline std::vector<std::string> run(const std::string &program, const mql5rt::Inputs &inputs) {
  BOOST_TEST_MESSAGE(program << " (EURUSD,H1)");
  mql5rt::journal().clear();
  auto found = mql5rt::scripts().find(program);
  BOOST_REQUIRE_MESSAGE(found != mql5rt::scripts().end(), program << " was not translated");
  found->second(inputs);
  BOOST_TEST(bridge_integer(0, kObjectCount) == 0, program << " left handles behind");
  return mql5rt::journal();
}

inline bool matches(const std::string &line, const std::string &pattern) {
  return std::regex_match(line, std::regex(pattern));
}

} // namespace replay_test
