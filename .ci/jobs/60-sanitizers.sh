#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer at the
# exit of every test) and under ThreadSanitizer: the asan and tsan presets, each built and run.
# TSan leaves out the tests labelled one_thread, whose own work runs on the test's thread alone on
# a CPU device, and test_bridge_staging's run in 4 MiB chunks, whose code the 64 KiB-chunk run
# covers (CMakePresets.json; docs/reliability.md says why each).
# Suppressions (third-party frames only) are in sanitizers/; docs/reliability.md has the figures.
# The longest job: on 2 cores about 14 minutes for asan and 11 for tsan, building included; each
# phase prints its time.
set -euo pipefail
cd "$(dirname "$0")/../.."
export MQLCL_REQUIRE_DEVICE=${MQLCL_REQUIRE_DEVICE:-1}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-2}
tools/install-deps.sh

for preset in asan tsan; do
  echo "::: $preset"
  start=$SECONDS
  cmake --preset "$preset"
  cmake --build --preset "$preset"
  echo "::: $preset: built in $((SECONDS - start)) s"
  start=$SECONDS
  ctest --preset "$preset"
  echo "::: $preset: tests passed in $((SECONDS - start)) s"
done
