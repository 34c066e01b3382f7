#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer at the
# exit of every test) and under ThreadSanitizer: the asan and tsan presets, each built and run.
# Suppressions (third-party frames only) are in sanitizers/; docs/reliability.md has the figures.
# Takes about 5 minutes from cold on 2 cores (asan: 1 to build, 1 to test; tsan: 1 and 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
export MQLCL_REQUIRE_DEVICE=${MQLCL_REQUIRE_DEVICE:-1}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-2}
tools/install-deps.sh

for preset in asan tsan; do
  echo "::: $preset"
  cmake --preset "$preset"
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
