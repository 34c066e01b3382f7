#!/usr/bin/env bash
# The README's first command ends in `build/bin/mqlcl-replay matr_mul_vect_v2`: the article's best
# step at its size (2000 x 2000, with the single-core CPU loop) must print a verified result.
# The build is the README's (already done by .ci/run; repeated here so the job also runs alone).
# About 30 s on 2 cores.
set -euo pipefail
start=$SECONDS
tools/install-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
build/bin/mqlcl-replay matr_mul_vect_v2 # exits non-zero unless every element is verified
echo "30-replay: passed in $((SECONDS - start)) s"
