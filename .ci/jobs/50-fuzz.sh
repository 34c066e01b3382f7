#!/usr/bin/env bash
# libFuzzer over the C ABI (fuzz/fuzz_abi.cpp) under ASan+UBSan on PoCL, from the checked-in
# seeds: 90 s of every op (MQLCL_FUZZ_SECONDS), then 30 s without program builds
# (MQLCL_FUZZ_NO_BUILDS, MQLCL_FUZZ_FAST_SECONDS), which runs dozens of times as many inputs over
# the states and checks of the other calls. A crash, a sanitizer report or a contract violation
# fails the job and leaves the input in build-fuzz/artifacts/; reproduce it with
#   build-fuzz/bin/mqlcl_fuzz_abi build-fuzz/artifacts/crash-...
# (with MQLCL_FUZZ_NO_BUILDS=1 for a crash of the second run).
# Takes about 4 minutes from cold on 2 cores (1.5 to build, 2 to fuzz).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/install-deps.sh clang libclang-rt-14-dev llvm
cmake --preset fuzz
cmake --build --preset fuzz --target mqlcl_fuzz_abi

# The same run-time options as the asan preset (CMakePresets.json); docs/reliability.md says why.
export ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0:intercept_tls_get_addr=0
export LSAN_OPTIONS=suppressions=$PWD/sanitizers/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
corpus=build-fuzz/corpus-ci
rm -rf "$corpus" && mkdir -p "$corpus" build-fuzz/artifacts
# New inputs go to the scratch corpus; the checked-in seeds are only read.
# -detect_leaks=0 turns off libFuzzer's leak check after each input, not LeakSanitizer: leaks are
# still checked once, at exit, over everything the run allocated (the per-input check stops every
# thread up to 1000 times a run). docs/reliability.md has the rest.
build-fuzz/bin/mqlcl_fuzz_abi -detect_leaks=0 -max_total_time="${MQLCL_FUZZ_SECONDS:-90}" -max_len=4096 \
  -timeout=60 -rss_limit_mb=8192 -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ \
  "$corpus" fuzz/corpus
# -entropic=0: with hundreds of inputs a second, libFuzzer's own bookkeeping of the entropic
# schedule took most of the time.
MQLCL_FUZZ_NO_BUILDS=1 build-fuzz/bin/mqlcl_fuzz_abi -entropic=0 -detect_leaks=0 \
  -max_total_time="${MQLCL_FUZZ_FAST_SECONDS:-30}" -max_len=4096 -timeout=60 -rss_limit_mb=8192 \
  -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ "$corpus" fuzz/corpus
