// MQLCL_STAGING as the tests read it: ctest runs the staging and CLMatMul suites once with it on
// (every transfer staged, on PoCL too) and once under auto.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>

namespace mqlcl_test {

inline std::string staging_variable() {
  const char *value = std::getenv("MQLCL_STAGING");
  return value != nullptr ? value : "";
}

inline bool staging_forced() {
  const std::string mode = staging_variable();
  return mode == "on" || mode == "1";
}

// Boost.Test precondition: runs the test only with MQLCL_STAGING=on.
struct staging_is_forced {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result result(staging_forced());
    result.message() << "needs MQLCL_STAGING=on (ctest's run of this suite with it)";
    return result;
  }
};

} // namespace mqlcl_test
