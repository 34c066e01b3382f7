#!/usr/bin/env bash
# Four tester-agent processes on a machine with two or more NVIDIA GPUs: each opens its context
# with MQLCL_USE_SPREAD, and they must spread evenly (two per GPU on two), first all started at once,
# then a quarter of a second apart, each verifying a kernel's product and CLGemm's against the
# host's. Then the same four with MQLCL_DEVICE_POLICY=spread and MQLCL_USE_ANY (--selector -1),
# as an unchanged program gets it; then a cold and a warm program cache (from_cache 0 then 1).
#   tools/gpu-agents.sh BIN
# BIN holds libmqlcl.so and mqlcl_agent_child (build/bin of a build made elsewhere). The NVIDIA
# driver is registered for this run only (tools/gpu-env.sh); PoCL stays as the last
# platform, so the spread is over the NVIDIA GPUs (device 0's kind on device 0's platform).
set -uo pipefail
source "$(dirname "$0")/gpu-env.sh" "$1"
bin=$gpu_bin
work=$(mktemp -d /tmp/mqlcl-agents.XXXXXX)
export MQLCL_RUNTIME_DIR=$work/runtime MQLCL_PROGRAM_CACHE=$work/cache
nvidia-smi --query-gpu=index,name,memory.total --format=csv
gpus=$(nvidia-smi -L | grep -c '^GPU')
status=0

# run NAME APART_S [agent options...]: four agents; prints their lines and the count per ordinal.
run() {
  local name=$1 apart=$2
  shift 2
  local meeting=$work/meeting-$name
  mkdir -p "$meeting"
  echo "::: $name"
  local pids=()
  for i in 1 2 3 4; do
    "$bin/mqlcl_agent_child" --size 512 --rendezvous "$meeting" --processes 4 "$@" \
      >"$work/$name-$i.txt" 2>&1 &
    pids+=($!)
    sleep "$apart"
  done
  for i in 1 2 3 4; do
    wait "${pids[$((i - 1))]}" || { echo "agent $i failed"; status=1; }
    cat "$work/$name-$i.txt"
  done
  cat "$work/$name"-*.txt | grep -o 'ordinal=[0-9]*' | sort | uniq -c
  # Even: as many devices used as there are GPUs (at most 4), counts within one of each other.
  local spread
  spread=$(cat "$work/$name"-*.txt | grep -o 'ordinal=[0-9]*' | sort | uniq -c |
    awk -v gpus="$gpus" '{n++; if ($1 > max) max = $1; if (min == "" || $1 < min) min = $1}
      END {want = gpus < 4 ? gpus : 4; print (n == want && max - min <= 1) ? "even" : "uneven"}')
  [[ $spread == even ]] || { echo "the four agents are not spread evenly over $gpus GPUs"; status=1; }
  [[ $(grep -c 'verified=1' "$work/$name"-*.txt | awk -F: '{s+=$2} END {print s}') == 4 ]] ||
    { echo "not every product verified"; status=1; }
}

run at-once 0
run staggered 0.25
MQLCL_DEVICE_POLICY=spread run policy-any 0 --selector -1
echo "::: program cache (cold, then warm) and start-up time of one agent"
rm -rf "$work/cache"
for pass in cold warm; do
  start=$(date +%s.%N)
  "$bin/mqlcl_agent_child" --size 512 --selector 0
  echo "$pass: $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN {printf "%.2f", e - s}') s"
done
echo "::: exit $status"
rm -rf "$work"
exit $status
