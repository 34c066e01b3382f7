#!/usr/bin/env bash
# The C ABI fuzzer on the GPU machine's 16 CPU cores, on its CPU OpenCL device (PoCL 5.0, the one
# registered in /etc/OpenCL/vendors there; ../shared/ref/gpu-device.md): one long-lived libFuzzer
# process per worker, MQLCL_FUZZ_NO_BUILDS, ASan + UBSan, LSan at each worker's exit. The
# million-sequence runs of docs/reliability.md; a CI machine's two cores do about 400 a second.
#   tools/gpu-fuzz.sh pack BUILD PACK          here: BUILD is a built `fuzz` preset tree
#   tools/gpu-fuzz.sh run PACK OUT SECONDS N   there, from the clone: N workers for SECONDS
# PACK (under .gpu/, carried with the working tree) gets the fuzzer and library without their
# debug sections, Debian's ICD loader, the LSan suppressions and the corpus to start from
# (CORPUS, default fuzz/corpus). OUT gets each worker's last lines and the artifacts.
set -uo pipefail
mode=$1
if [[ $mode == pack ]]; then
  build=$2 pack=$3
  mkdir -p "$pack/corpus"
  objcopy --strip-debug "$build/bin/libmqlcl.so.1.0.0" "$pack/libmqlcl.so.1"
  objcopy --strip-debug "$build/bin/mqlcl_fuzz_abi" "$pack/mqlcl_fuzz_abi"
  cp sanitizers/lsan.supp "$pack/"
  cp -L "$(ldconfig -p | sed -n 's/.*libOpenCL.so.1 (libc6,x86-64) => //p' | head -1)" "$pack/"
  cp "${CORPUS:-fuzz/corpus}"/* "$pack/corpus/"
  du -sh --apparent-size "$pack"
  exit 0
fi
pack=$(realpath "$2") out=$(realpath "$3") seconds=$4 workers=$5
seeds=$PWD/fuzz/corpus
export LD_LIBRARY_PATH=$pack
export ASAN_OPTIONS=detect_leaks=1:use_sigaltstack=0:intercept_tls_get_addr=0
export LSAN_OPTIONS=suppressions=$pack/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One PoCL thread per process: the workers fill the cores.
export MQLCL_FUZZ_NO_BUILDS=1 POCL_MAX_PTHREAD_COUNT=1
unset OCL_ICD_VENDORS
work=$(mktemp -d)
mkdir -p "$work/corpus" "$work/artifacts" "$work/jobs"
cp "$pack"/corpus/* "$work/corpus/"
(cd "$work/jobs" && "$pack/mqlcl_fuzz_abi" -entropic=0 -detect_leaks=0 -jobs="$workers" \
  -workers="$workers" -max_total_time="$seconds" -max_len=4096 -timeout=300 -rss_limit_mb=6144 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" \
  >"$out/fuzz-main.log" 2>&1)
echo "exit $?"
total=0
for log in "$work"/jobs/fuzz-*.log; do
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "$(basename "$log"): ${n:-no} inputs executed"
  grep -E 'ERROR|SUMMARY' "$log" | head -5
  total=$((total + ${n:-0}))
  tail -n 30 "$log" >"$out/$(basename "$log").tail"
done
echo "total executed: $total"
ls "$work/artifacts"
cp -r "$work/artifacts" "$out/"
