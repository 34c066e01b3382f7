#!/usr/bin/env bash
# Every replay step's kernel under oclgrind, through mqlcl-replay and the bridge: data races,
# out-of-bounds accesses and API misuse must be absent, and col_local's race must be found.
set -euo pipefail
tools/install-deps.sh oclgrind
cmake --preset default # finds oclgrind's runtime and adds test_reliability_oclgrind
cmake --build --preset default --target test_reliability_oclgrind mqlcl-replay
ctest --preset default -L oclgrind
