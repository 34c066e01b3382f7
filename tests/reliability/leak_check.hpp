// Live references per kind of OpenCL object, counted by the fault layer (fault_layer.hpp), when a
// test starts; verify() checks that the test ends where it started (or grew by what it expects)
// and that the bridge holds no handle. For Boost.Test suites that install the layer.
#pragma once

#include "fault_layer.hpp"

#include <mqlcl/mqlcl.h>

#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdint>

namespace mqlcl_fault {

struct LeakCheck {
  static constexpr size_t kKinds = static_cast<size_t>(Kind::count);
  std::array<int64_t, kKinds> baseline{};
  LeakCheck() {
    for (size_t k = 0; k < kKinds; ++k)
      baseline[k] = live(static_cast<Kind>(k));
  }
  void verify(const std::array<int64_t, kKinds> &expected_growth = {}) const {
    for (size_t k = 0; k < kKinds; ++k) {
      Kind kind = static_cast<Kind>(k);
      BOOST_TEST(live(kind) - baseline[k] == expected_growth[k],
                 name_of(kind) << " objects: " << acquired(kind) << " acquired, " << released(kind)
                               << " released");
    }
    BOOST_TEST(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == 0);
  }
};

} // namespace mqlcl_fault
