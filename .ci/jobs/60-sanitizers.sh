#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer at the
# exit of every test) and under ThreadSanitizer: the asan and tsan presets, each built and run.
# TSan leaves out the tests labelled numerics (test_bridge_gemm_tiles and test_harness_beyond, each
# with its parts): kernels' results checked from one host thread, whose host code test_bridge_gemm
# and the replays run under TSan anyway; under it they took 288 s and 164 s of CI's 90 minutes.
# Suppressions (third-party frames only) are in sanitizers/; docs/reliability.md has the figures.
# The longest job: on 2 cores about 20 minutes for asan and 25 for tsan, building included.
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
