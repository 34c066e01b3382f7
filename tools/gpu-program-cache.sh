#!/usr/bin/env bash
# Start-up with a cold and a warm program cache on an NVIDIA GPU: the article's ten steps, and
# the tensor-core steps (whose -mqlcl-nv-sm90a builds compile twice from source), each replayed
# at a small size (so that builds dominate) three times: once into an empty cache, then twice
# from it; then the same with the cache off. Prints wall seconds per run and whether every step
# verified.
#   tools/gpu-program-cache.sh BIN
# BIN holds mqlcl-replay and libmqlcl.so (build/bin of a build made elsewhere). The NVIDIA
# driver is registered for this run only (tools/gpu-env.sh).
set -uo pipefail
source "$(dirname "$0")/gpu-env.sh" "$1"
bin=$gpu_bin
cache=$(mktemp -d /tmp/mqlcl-program-cache.XXXXXX)
status=0

# timed LABEL CACHE STEPS: one replay, its wall time and exit status.
timed() {
  local label=$1 where=$2 steps=$3 start end
  start=$(date +%s.%N)
  MQLCL_PROGRAM_CACHE=$where "$bin/mqlcl-replay" "$steps" --device 0 --size 256 --no-cpu \
    >/tmp/mqlcl-program-cache-run.txt 2>&1
  local code=$?
  end=$(date +%s.%N)
  awk -v l="$label" -v s="$start" -v e="$end" -v c="$code" \
    'BEGIN {printf "%-34s %6.2f s  exit %d\n", l, e - s, c}'
  [[ $code == 0 ]] || { status=1; tail -5 /tmp/mqlcl-program-cache-run.txt; }
}

article=all
tensor=matr_mul_wgmma_tf32,matr_mul_wgmma_3xtf32,matr_mul_wgmma_tiled_tf32,matr_mul_wgmma_tma_tf32
for set in article tensor; do
  echo "::: $set steps"
  rm -rf "$cache"/*
  timed "$set, cache off" off "${!set}"
  timed "$set, cold cache" "$cache" "${!set}"
  timed "$set, warm cache" "$cache" "${!set}"
  timed "$set, warm cache again" "$cache" "${!set}"
done
echo "::: entries: $(ls "$cache" | wc -l)"
rm -rf "$cache"
echo "::: exit $status"
exit $status
