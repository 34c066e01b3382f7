#!/usr/bin/env bash
# The README's first command, as written: the library and mqlcl-replay without the tests
# (MQLCL_BUILD_TESTS=OFF), then the article's best step at its size (2000 x 2000, with the
# single-core CPU loop), which must print a verified result. Run alone on a fresh clone, it is the
# README's time to a first result; after .ci/run's build it builds nothing. The preset then turns
# the tests back on, for the jobs that run ctest in build/ after this one.
set -euo pipefail
start=$SECONDS
tools/install-deps.sh
cmake --preset default -DMQLCL_BUILD_TESTS=OFF >/dev/null
cmake --build --preset default
build/bin/mqlcl-replay matr_mul_vect_v2 # exits non-zero unless every element is verified
echo "30-replay: passed in $((SECONDS - start)) s"
cmake --preset default >/dev/null
