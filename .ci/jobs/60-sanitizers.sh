#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer at the
# exit of every test) and under ThreadSanitizer: the asan and tsan presets, each built and run.
# Suppressions (third-party frames only) are in sanitizers/; docs/reliability.md has the figures.
# The longest job: on 2 cores about 10 minutes for asan and 15 for tsan, building included (the
# GEMM tests take 4 to 5 minutes each under TSan).
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
