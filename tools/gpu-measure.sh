#!/usr/bin/env bash
# Measures mqlcl on an NVIDIA GPU machine whose OpenCL driver is installed but not registered
# (the workplace's H100/H200 machines: ../shared/ref/gpu-device.md), from binaries built elsewhere.
#   tools/gpu-measure.sh BIN OUT PHASE...
# BIN holds mqlcl-replay and libmqlcl.so (and optionally libclblast1_*.deb and bridge test
# binaries); OUT receives the results. Phases, run in the order given:
#   env       the GPU, the OpenCL platforms, the libraries the anchors will find
#   suite     the whole ctest suite on the GPU (device 0, NVIDIA's), with ctest's own environment,
#             from a build tree packed here by tools/gpu-suite-pack.sh into BIN (build.tar.xz,
#             lib/, source-dir): OUT/suite.log and OUT/suite.xml (JUnit); SUITE_ARGS adds ctest
#             arguments (-R REGEX, -j N)
#   tests     the bridge's test binaries in BIN on the GPU (MQLCL_TEST_DEVICE=0)
#   replay    the article's steps at 2000 (docs/replay.md's GPU columns): replay-gpu.json
#   beyond    each step beyond the article once at 4096, untuned
#   sizes     steps 11-18 at 1000, 1023 and 4097 (sizes that fit no tile)
#   tune      `mqlcl-replay tune` for the tuned and tensor-core steps at 4096 (OUT/tuning.json;
#             TUNE_STEPS="STEP ..." to tune only those, TUNE_SIZE=N at another size)
#   tunegemm  `mqlcl-replay tune STEP --gemm LAYOUT ...`, CLGemm tuned in place, once per line
#             of tools/gemm-tunes.txt (or of the file $GEMM_TUNES) whose card column names this
#             GPU: OUT/tuning.json, for `mqlcl-replay gemm-database`
#   gemm      `mqlcl-replay gemm` as an MQL5 program meets CLGemm, with no tuning cache, at
#             1000, 2000, 4096, 4097 and 8192 (GEMM_SIZES=N,M for others; GEMM_ARGS=--double
#             for the double rows only, --accurate for the ACCURATE rows only (with --double,
#             double's), "--cases REGEX" for some rows: the whole table takes
#             more than 10 minutes): gemm-gpu.json
#   bench     `mqlcl-replay bench` at 2000, 4096 and 8192: bench-gpu.json (BENCH_STEPS=A,B
#             and BENCH_SIZES=N,M to bench only those)
#   hostab    bench's section from host arrays to host arrays (--host-only, no OpenBLAS) with
#             BIN's bridge and with another ($HOSTAB_LIBRARY, a libmqlcl.so built from another
#             commit), alternating, HOSTAB_ROUNDS rounds (3) at HOSTAB_SIZES (1024,2048,4096):
#             hostab-bin-N.json, hostab-other-N.json, and each run's rows in the log
#   unstaged  the bench's bridge-cost part at 2000 with the bridge's pinned staging off
#             (MQLCL_STAGING=off), so the bridge makes the same calls as raw OpenCL:
#             bench-gpu-unstaged.json
#   tf32check the TF32 verification can fail: the TF32 steps at 4096 and 8192
#             (TF32CHECK_SIZES="N ...") as they are, which must pass, and with one slice of K
#             left out of their first block (--param LEAVE_OUT=1), which must be refused; then
#             the bench of step 18 with cuBLAS's TF32 mode, checked the same way:
#             tf32check-N-FORM.txt, bench-tf32check.json; the last line says whether all went
#             as expected
#   variants  one replay per line of the file $VARIANTS, "STEP SIZE [NAME=VALUE ...]": kernel
#             parameters tried side by side (CSV rows, with each kernel's build options)
#   profile   Nsight Compute (ncu, from the CUDA toolkit) on step 13's product at 4096 (or at
#             PROFILE_SIZE, a size with NT sets of record) with the card's NT set, as the driver
#             compiled it, and on cuBLAS's FP32 SGEMM, and on step 19's double product and cuBLAS
#             DGEMM, through BIN/mqlcl-ptx-replay: profile-step13.csv, profile-cublas.csv,
#             profile-step19.csv, profile-cublas-double.csv (issue efficiency, stall reasons;
#             PROFILE_KERNELS="step13 cublas" for some of them)
# The step lists come from the catalogue (`mqlcl-replay --list --format csv`: beyond, tuned,
# tf32). The tuning cache is OUT/tuning.json; copy an earlier one there to reuse it.
set -uo pipefail
source "$(dirname "$0")/gpu-env.sh" "$1"
bin=$gpu_bin root=$gpu_root out=$(realpath "$2")
shift 2
export MQLCL_TUNE_CACHE=$out/tuning.json

# CLBlast from the Debian package carried in BIN; cuBLAS from the CUDA toolkit or PyTorch's wheels.
for deb in "$bin"/libclblast1_*.deb; do
  [[ -f $deb ]] || continue
  dpkg -x "$deb" /tmp/mqlcl-clblast
  export MQLCL_CLBLAST_LIBRARY_DIR=/tmp/mqlcl-clblast/usr/lib/x86_64-linux-gnu
done
for dir in /usr/local/cuda/lib64 /opt/torch/.venv/lib/python3*/site-packages/nvidia/cu*/lib; do
  if [[ -e $dir/libcublas.so.13 || -e $dir/libcublas.so.12 ]]; then
    cublas_dir=$dir
    break
  fi
done
if [[ -n ${cublas_dir:-} ]]; then
  export MQLCL_CUDA_LIBRARY_DIR=$cublas_dir
  export LD_LIBRARY_PATH=$cublas_dir:$LD_LIBRARY_PATH
fi

replay=$bin/mqlcl-replay
step() { echo "::: $* ($(date -u +%T))"; }
# The catalogue's steps with a column of `mqlcl-replay --list --format csv` set (beyond, tuned,
# tf32, ...), separated by $2 (a space by default): the lists below come from the steps' flags.
steps_where() {
  "$replay" --list --format csv |
    awk -F, -v column="$1" -v separator="${2:- }" \
      'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == column) c = i; next }
       c && $c == "yes" { printf "%s%s", (n++ ? separator : ""), $1 } END { print "" }'
}

# mqlcl-ptx-replay's arguments, one a line, for the set of `key` at size^3 in the tuning file
# `tuning` (a database source: one device, key -> "MxKxN" -> params): the kernel file, the size,
# the launch and the parameters; a step 19 set's --double. TMA and COPY are CLGemm's alone (the
# replay writes no tensor maps and copies nothing): left out, so the work-items copy the tiles.
database_set_args() {
  python3 - "$root" "$@" <<'PY'
import json, sys
root, tuning, key, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
device = next(iter(json.load(open(tuning)).values()))
entry = device.get(key, {}).get(f"{size}x{size}x{size}")
if entry:
    p = {k: int(v) for k, v in entry["params"].items() if k not in ("TMA", "COPY")}
    tiles = -(-size // p["BM"]) * -(-size // p["BN"])
    if "WM" in p:
        local = (p["BM"] // p["WM"]) * (p["BN"] // p["WN"]) * 32
    else:
        local = (p["BM"] // p["TM"]) * (p["BN"] // p["TN"])
    args = [f"{root}/kernels/{entry['kernel_file']}", "--size", str(size), "--groups", str(tiles),
            "--local", str(local)] + (["--double"] if "double" in key else [])
    for name, value in sorted(p.items()):
        args += ["-D", f"{name}={value}"]
    print("\n".join(args))
PY
}

for phase in "$@"; do
  case $phase in
  env)
    step env
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
    "$replay" --list-devices
    echo "CLBlast: ${MQLCL_CLBLAST_LIBRARY_DIR:-none}; cuBLAS: ${cublas_dir:-none}"
    ;;
  tests)
    for test in "$bin"/test_bridge_*; do
      step "$(basename "$test")"
      MQLCL_TEST_DEVICE=0 MQLCL_REQUIRE_DEVICE=1 "$test" --report_level=short --log_level=message
    done
    # Once more with every transfer through the pinned staging, whatever its size (ctest's
    # *_staged entries).
    for name in staging roundtrip concurrency; do
      [[ -x $bin/test_bridge_$name ]] || continue
      step "test_bridge_$name, MQLCL_STAGING=on"
      MQLCL_STAGING=on MQLCL_TEST_DEVICE=0 MQLCL_REQUIRE_DEVICE=1 "$bin/test_bridge_$name" \
        --report_level=short --log_level=message
    done
    ;;
  suite)
    step suite
    # ctest's files name the source folder the tree was configured in: it becomes this copy.
    source_dir=$(cat "$bin/source-dir")
    if [[ $source_dir != "$root" ]]; then
      mkdir -p "$(dirname "$source_dir")"
      ln -sfn "$root" "$source_dir"
    fi
    rm -rf "$root/build" && tar -C "$root" -xJf "$bin/build.tar.xz"
    # The tools ctest's tests run, at the paths this tree was configured with: the machine's own
    # where it has one by that name, else the pack's (ninja).
    while read -r path; do
      [[ -e $path ]] && continue
      name=$(basename "$path")
      found=$(command -v "$name" || echo "$bin/tools/$name")
      mkdir -p "$(dirname "$path")" && ln -sf "$found" "$path" && echo "$path -> $found"
    done <"$bin/tools/paths"
    # The tests find the tree's own libraries and kernels, not BIN's (gpu-env.sh's variables and
    # its place on the library path): a bridge or fault layer beside the pack would otherwise be
    # loaded in place of the tree's, and the loader's layer (OPENCL_LAYERS, the tree's) would count
    # calls that the tests' own copy never sees.
    suite_path=$(tr ':' '\n' <<<"$LD_LIBRARY_PATH" | grep -vxF "$bin" | paste -sd:)
    # The oclgrind test runs kernels on oclgrind's simulator, which the GPU machine lacks: it is
    # left out here (CI job 70-oclgrind.sh runs it).
    echo "left out: test_reliability_oclgrind (label oclgrind: oclgrind's CPU simulator, not on this machine)"
    # shellcheck disable=SC2086 # SUITE_ARGS is a list of ctest arguments
    env -u MQLCL_LIBRARY -u MQLCL_KERNELS_DIR LD_LIBRARY_PATH="$bin/lib${suite_path:+:$suite_path}" \
      MQLCL_REQUIRE_DEVICE=1 MQLCL_TEST_DEVICE=0 ctest --test-dir "$source_dir/build" -LE oclgrind \
      --output-on-failure --timeout 600 --output-junit "$out/suite.xml" ${SUITE_ARGS:--j 4} \
      >"$out/suite.log" 2>&1
    echo "ctest exit $?"
    sed -n '/tests passed/,$p' "$out/suite.log"
    ;;
  replay)
    step replay
    "$replay" all matr_mul_col_local_fixed --device 0 --no-cpu --repeat 5 --format json \
      >"$out/replay-gpu.json"
    echo "exit $?"
    "$replay" matr_mul_vect_v2 --device 0 --no-cpu
    ;;
  beyond)
    for name in $(steps_where beyond); do
      step "$name"
      "$replay" "$name" --device 0 --size 4096 --no-cpu --repeat 3 --format csv
    done
    ;;
  sizes)
    for n in 1000 1023 4097; do
      step "steps 11-18 at $n"
      # Three steps per process, so that no process holds more than three fp64 references.
      header=1
      for name in $(steps_where beyond); do
        group+=("$name")
        [[ ${#group[@]} -lt 3 ]] && continue
        "$replay" "$(IFS=,; echo "${group[*]}")" --device 0 --size "$n" --no-cpu --repeat 3 \
          --format csv | tail -n +"$header"
        header=2 group=()
      done
      [[ ${#group[@]} -gt 0 ]] && "$replay" "$(IFS=,; echo "${group[*]}")" --device 0 \
        --size "$n" --no-cpu --repeat 3 --format csv | tail -n +"$header"
      group=()
    done
    ;;
  tune)
    for name in ${TUNE_STEPS:-$(steps_where tuned)}; do
      step "tune $name"
      "$replay" tune "$name" --device 0 --size "${TUNE_SIZE:-4096}" 2>"$out/tune-$name.log"
    done
    ;;
  tunegemm)
    card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
    while read -r model args; do
      [[ -z $model || $model == \#* ]] && continue
      [[ $model == any || $card == *"$model"* ]] || continue
      step "tune $args"
      # shellcheck disable=SC2086 # the line's arguments, as written in the file
      "$replay" tune $args --device 0 2>>"$out/tune-gemm.log" | tail -3
    done <"${GEMM_TUNES:-$root/tools/gemm-tunes.txt}"
    ;;
  gemm)
    step gemm
    # A path that is never written: every product runs the compiled database's sets.
    # shellcheck disable=SC2086 # GEMM_ARGS is a list of arguments (--double)
    MQLCL_TUNE_CACHE=$out/no-tuning-cache.json "$replay" gemm --device 0 \
      --sizes "${GEMM_SIZES:-1000,2000,4096,4097,8192}" ${GEMM_ARGS:-} --output "$out/gemm-gpu.json"
    ;;
  unstaged)
    step "bench at 2000, staging off"
    MQLCL_STAGING=off "$replay" bench matr_mul_tuned --device 0 --sizes 2000 \
      --output "$out/bench-gpu-unstaged.json"
    ;;
  tf32check)
    tf32_steps=$(steps_where tf32 ,)
    tf32_count=$(tr ',' '\n' <<<"$tf32_steps" | wc -l)
    verdict=as-expected
    for n in ${TF32CHECK_SIZES:-4096 8192}; do
      # One process per form, so the steps share the fp64 references of their roundings.
      for form in right leave-out; do
        step "TF32 steps at $n, $form"
        args=()
        [[ $form == leave-out ]] && args=(--param LEAVE_OUT=1)
        text=$out/tf32check-$n-$form.txt
        "$replay" "$tf32_steps" --device 0 --size "$n" --no-cpu "${args[@]}" >"$text" 2>&1
        status=$?
        # The verification lines in the steps' order, then the summary table.
        grep -E '^(verification:|step |matr_mul_|mqlcl-replay:)' "$text"
        passed=$(grep -c '^verification: passed' "$text")
        refused=$(grep -c '^verification: FAILED' "$text")
        echo "exit $status: $passed passed, $refused refused"
        if [[ $form == right && ($status != 0 || $passed != "$tf32_count") ]] ||
          [[ $form == leave-out && ($status != 1 || $refused != "$tf32_count") ]]; then
          verdict=NOT-as-expected
        fi
      done
    done
    step "bench: step 18 and cuBLAS's TF32 mode"
    sizes=${TF32CHECK_SIZES:-4096 8192}
    "$replay" bench matr_mul_wgmma_tma_tf32 --device 0 --sizes "${sizes// /,}" \
      --output "$out/bench-tf32check.json"
    echo "tf32check: $verdict (right products passed, products with a slice left out refused)"
    ;;
  variants)
    while read -r name size params; do
      [[ -z $name || $name == \#* ]] && continue
      step "$name $size $params"
      args=()
      for p in $params; do args+=(--param "$p"); done
      "$replay" "$name" --device 0 --size "$size" --no-cpu --repeat 3 --format csv "${args[@]}"
    done <"${VARIANTS:?variants needs VARIANTS=FILE}"
    ;;
  profile)
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    metrics=smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
    metrics+=,smsp__inst_executed_pipe_fma.sum,launch__registers_per_thread,launch__block_size
    metrics+=,sm__warps_active.avg.per_cycle_active,sm__cycles_elapsed.avg.per_second
    metrics+=,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
    metrics+=',regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio'
    # Steps 13 and 19 with this card's sets of record for NT at the size (bridge/src/gemm/tunings/
    # tuning-h100.json or -h200.json): the replay lays B out as N lines of K, CLGemm's NT.
    size=${PROFILE_SIZE:-4096}
    card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 | grep -o 'H[0-9]00')
    card=${card:-H100}
    tuning=$root/bridge/src/gemm/tunings/tuning-${card,,}.json
    mapfile -t step13 < <(database_set_args "$tuning" "matr_mul_tuned NT" "$size")
    mapfile -t step19 < <(database_set_args "$tuning" "matr_mul_dmma double NT" "$size")
    kernels=${PROFILE_KERNELS:-step13 cublas step19 cublas-double}
    # Only the steps asked for need a set at the size.
    for what in $kernels; do
      case $what in
      step13 | step19)
        declare -n chosen=$what
        if [[ ${#chosen[@]} -eq 0 ]]; then
          echo "profile: no NT set of $what at $size in $tuning" >&2
          exit 2
        fi
        echo "$what: ${chosen[*]}"
        unset -n chosen
        ;;
      cublas | cublas-double) ;;
      *)
        echo "profile: unknown kernel $what (step13, cublas, step19, cublas-double)" >&2
        exit 2
        ;;
      esac
    done
    for what in $kernels; do
      case $what in
      step13) args=("${step13[@]}") ;;
      cublas) args=(--cublas --size "$size") ;;
      step19) args=("${step19[@]}") ;;
      cublas-double) args=(--cublas --double --size "$size") ;;
      esac
      step "profile: $what"
      "$bin/mqlcl-ptx-replay" "${args[@]}" --repeat 10
      # The third launch: after the warm-up and one timed run.
      "$ncu" --launch-skip 2 --launch-count 1 --csv --metrics "$metrics" \
        "$bin/mqlcl-ptx-replay" "${args[@]}" --repeat 3 >"$out/profile-$what.csv"
      # ncu's own lines and the tool's are not quoted: the kernel's name (cuBLAS's says its
      # tiles), then the metric rows, name and value.
      grep -E '^"' "$out/profile-$what.csv" | awk -F'","' 'NR > 1 && !seen[$5]++ {print "kernel", $5}'
      grep -E '^".*(issue_active|inst_executed|registers|block_size|grid_size|warps_active|per_second|stalled|occupancy)' \
        "$out/profile-$what.csv" | awk -F'","' '{v = $NF; gsub(/[",]/, "", v); print $(NF - 2), v}'
    done
    ;;
  bench)
    step bench
    # shellcheck disable=SC2086 # BENCH_STEPS is one comma-separated word or nothing
    "$replay" bench ${BENCH_STEPS:-} --device 0 --sizes "${BENCH_SIZES:-2000,4096,8192}" \
      --output "$out/bench-gpu.json"
    ;;
  hostab)
    step hostab
    if [[ ! -f ${HOSTAB_LIBRARY:-} ]]; then
      echo "hostab: HOSTAB_LIBRARY names no file" >&2
      exit 2
    fi
    for round in $(seq "${HOSTAB_ROUNDS:-3}"); do
      for bridge in bin other; do
        library=$bin/libmqlcl.so
        [[ $bridge == other ]] && library=$(realpath "$HOSTAB_LIBRARY")
        step "hostab round $round, $bridge: $library"
        MQLCL_LIBRARY=$library "$replay" bench --device 0 --host-only --no-cpu \
          --host-sizes "${HOSTAB_SIZES:-1024,2048,4096}" \
          --output "$out/hostab-$bridge-$round.json" | grep -E '^ +[0-9]+ |floor'
      done
    done
    ;;
  *)
    echo "unknown phase $phase" >&2
    exit 2
    ;;
  esac
done
step "done"
