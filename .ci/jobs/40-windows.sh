#!/usr/bin/env bash
# mqlcl.dll for MetaTrader 5: the Windows x64 cross-build (MinGW-w64), its tests under Wine on
# PoCL (ctest, which also checks the DLL's PE export and import tables), one replay under Wine
# once the harness is built, and the MT5 data-folder zip, which is then unpacked into a data
# folder inside the Wine prefix and loaded from there. docs/windows.md.
# From a cold start on 2 cores: about 1.5 min for the bridge alone, about 3 min with harness/
# and mql5/ (plus about 50 s of apt-get when the MinGW and Wine packages, 1.3 GiB, are missing).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS

tools/install-deps.sh g++-mingw-w64-x86-64 binutils-mingw-w64-x86-64 mingw-w64-tools wine64 wine

export MQLCL_REQUIRE_DEVICE=${MQLCL_REQUIRE_DEVICE:-1}
export WINEPREFIX=$PWD/build-mingw/wineprefix WINEARCH=win64 WINEDEBUG=-all
export WINEDLLOVERRIDES="mscoree,mshtml=" # no Mono / Gecko install prompts
wine=/usr/lib/wine/wine64

echo "::: windows: configure and build (mingw preset)"
cmake --preset mingw
cmake --build --preset mingw -j 2 # the CI machine's 2 cores
echo "::: windows: built in $((SECONDS - start)) s"

# Wine's server and its own processes first, detached: started by a test instead, they would
# keep ctest's output pipe open and ctest would wait on them (or hang).
mkdir -p "$WINEPREFIX"
wineserver -k >/dev/null 2>&1 </dev/null || true
trap 'wineserver -k >/dev/null 2>&1 </dev/null || true' EXIT
wineserver -p >/dev/null 2>&1 </dev/null
"$wine" wineboot --init >/dev/null 2>&1 </dev/null
touch "$WINEPREFIX/.wine-run.ready" # tools/wine-run.sh: the prefix is ready

echo "::: windows: tests under Wine"
# A failed test runs once more: twice in runs of this job a test under Wine has ended within
# 0.1 s with no output at all, beside the same program passing in another test (Wine starting it,
# not the test; tools/wine-run.sh). A test that fails twice fails the job.
ctest --preset mingw --repeat until-pass:2
objdump=x86_64-w64-mingw32-objdump
imports=$("$objdump" -p build-mingw/bin/mqlcl.dll | awk '/DLL Name:/ {print $3}' | xargs)
echo "mqlcl.dll imports: $imports"

if [[ -f build-mingw/bin/mqlcl-replay.exe ]]; then
  echo "::: windows: one replay under Wine"
  tools/wine-run.sh "$WINEPREFIX" build-mingw/bin/mqlcl-replay.exe matr_mul_vect_v2
else
  echo "::: windows: no build-mingw/bin/mqlcl-replay.exe (harness/ not built): replay skipped"
fi

echo "::: windows: MT5 data-folder zip"
rm -rf build-mingw/package
cpack --preset mingw
zips=(build-mingw/package/*.zip)
if [[ ${#zips[@]} -ne 1 || ! -f "${zips[0]}" ]]; then
  echo "expected one zip in build-mingw/package" >&2
  exit 1
fi
zip=$PWD/${zips[0]}
mapfile -t entries < <(cmake -E tar tf "$zip")
printf '  %s\n' "${entries[@]}"
required=(MQL5/Libraries/mqlcl.dll MQL5/Include/mqlcl/mqlcl.h)
if [[ -f mql5/CMakeLists.txt ]]; then
  required+=('MQL5/Include/mqlcl/*.mqh' 'MQL5/Scripts/mqlcl/*.mq5')
fi
for pattern in "${required[@]}"; do
  found=0
  for entry in "${entries[@]}"; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    [[ "$entry" == $pattern ]] && found=1
  done
  [[ $found == 1 ]] || { echo "the zip lacks $pattern" >&2; exit 1; }
done
for entry in "${entries[@]}"; do
  [[ "$entry" == MQL5/* || "$entry" == README-mqlcl.txt ]] ||
    { echo "the zip has $entry outside MQL5/" >&2; exit 1; }
done
duplicates=$(printf '%s\n' "${entries[@]}" | sort | uniq -d)
[[ -z "$duplicates" ]] || { echo "the zip holds these entries twice: $duplicates" >&2; exit 1; }

# Unpacked over a data folder, as a user installs it; the terminal loads MQL5\Libraries\mqlcl.dll.
data=$WINEPREFIX/drive_c/mt5-data
rm -rf "$data" && mkdir -p "$data"
(cd "$data" && cmake -E tar xf "$zip")
MQLCL_TEST_DLL='C:\mt5-data\MQL5\Libraries\mqlcl.dll' tools/wine-run.sh "$WINEPREFIX" \
  build-mingw/bin/test_windows_loader.exe --report_level=short --log_level=message \
  --run_test=loader/loadlibraryw_finds_every_function_and_runs_a_kernel

echo "::: windows: passed in $((SECONDS - start)) s"
