#!/usr/bin/env bash
# Any CMake generator builds mqlcl, not only the presets' Ninja: the plain
# `cmake -S . -B build && cmake --build build && ctest --test-dir build` with CMake's default
# generator (Unix Makefiles) in build-make/, then a few tests from that tree: the harness's units
# and command line, and the MQL5 scripts translated and run (the custom commands whose output
# folders Ninja makes and Make does not). It builds the library, mqlcl-replay, mql5-translate and
# those tests with what they need, not every test binary again: on CI's 2 cores the whole tree
# took 12 of CI's 90 minutes, and the rest of it is plain C++ that the Ninja build compiles.
set -euo pipefail
start=$SECONDS
tools/install-deps.sh
cmake -S . -B build-make -G "Unix Makefiles"
cmake --build build-make --parallel 2 --target mqlcl mqlcl-replay test_harness_units \
  test_harness_cli test_mql5_replay test_bridge_roundtrip
MQLCL_REQUIRE_DEVICE=${MQLCL_REQUIRE_DEVICE:-1} ctest --test-dir build-make --output-on-failure \
  -R '^(test_harness_units|test_harness_cli|test_mql5_replay|test_bridge_roundtrip)$'
echo "35-makefiles: passed in $((SECONDS - start)) s"
