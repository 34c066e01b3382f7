// An environment variable set for the duration of a scope, then restored: the harness's own
// (mqlcl-replay's tuner sets the tuning cache per trial with it), shared rather than copied.
#pragma once

#include "../../harness/src/scoped_environment.hpp"

namespace mqlcl_test {

using mqlcl::replay::ScopedEnvironment;

} // namespace mqlcl_test
