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

# LeakSanitizer's tracer can crash at a test's exit while PoCL's threads come and go ("Tracer
# caught signal 11", google/sanitizers#1353): the leak checker fails, no leak is reported. On this
# machine it does so every time in test_harness_beyond and test_harness_replays, at the last
# landed commit too (docs/reliability.md). A failed test whose output shows that crash runs once
# more, directly, without the leak check (ASan and UBSan still on); any other failure fails the job.
rerun_tracer_crashes() {
  local test log
  for test in $(cut -d: -f2 build-asan/Testing/Temporary/LastTestsFailed.log); do
    log=$(mktemp)
    if ASAN_OPTIONS=$asan_options UBSAN_OPTIONS=$ubsan_options LSAN_OPTIONS=$lsan_options \
      "build-asan/bin/$test" >"$log" 2>&1; then
      continue
    fi
    grep -q "Tracer caught signal" "$log" || { cat "$log"; return 1; }
    echo "$test: LeakSanitizer's tracer crashed at exit; once more without the leak check"
    ASAN_OPTIONS=${asan_options/detect_leaks=1/detect_leaks=0} UBSAN_OPTIONS=$ubsan_options \
      "build-asan/bin/$test" >"$log" 2>&1 || { cat "$log"; return 1; }
  done
}
# As the asan preset sets them (CMakePresets.json), for the direct runs above.
asan_options=detect_leaks=1:strict_init_order=1:detect_stack_use_after_return=1:use_sigaltstack=0
lsan_options=suppressions=$PWD/sanitizers/lsan.supp:print_suppressions=0
ubsan_options=print_stacktrace=1:halt_on_error=1

for preset in asan tsan; do
  echo "::: $preset"
  cmake --preset "$preset"
  cmake --build --preset "$preset"
  if [[ $preset == asan ]]; then
    ctest --preset asan || rerun_tracer_crashes
  else
    ctest --preset "$preset"
  fi
done
