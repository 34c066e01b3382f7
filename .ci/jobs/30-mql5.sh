#!/usr/bin/env bash
# The MQL5 side: lays out MetaTrader's MQL5 folder (the mql5-package target, install component
# mql5) from the default build and runs the mql5 tests again, the replay of the scripts and of
# tests/mql5/programs on the OpenCL device included; test_mql5_abi also checks
# build-mingw/bin/mqlcl.dll when an earlier job built it.
# Measured on 2 cores: 1-10 s after the README build (the replay's PoCL kernel builds, when not
# cached), 154 s from a clean tree.
set -euo pipefail
start=$SECONDS
tools/install-deps.sh
cmake --preset default
cmake --build --preset default --parallel 2 --target mql5-package test_mql5_abi test_mql5_scripts \
  test_mql5_package test_mql5_replay test_mql5_programs
MQLCL_REQUIRE_DEVICE=${MQLCL_REQUIRE_DEVICE:-1} ctest --preset default -L mql5
(cd build/mql5-package && find MQL5 | sort)
echo "mql5 job: $((SECONDS - start)) s"
