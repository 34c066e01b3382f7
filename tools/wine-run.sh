#!/usr/bin/env bash
# Runs a cross-built Windows program under Wine with the project's settings: the
# CMAKE_CROSSCOMPILING_EMULATOR of the mingw preset, so ctest runs every .exe through it.
#   tools/wine-run.sh DEFAULT_PREFIX PROGRAM.exe [ARGS...]
# WINEPREFIX, when set, wins over DEFAULT_PREFIX (the toolchain passes build-mingw/wineprefix).
# The wineserver is started first, detached, and stays a minute after the last program ends: a
# server (or Wine service) that a test starts itself keeps ctest's output pipe open after the
# test ends, and ctest then waits for it (or hangs). `WINEPREFIX=... wineserver -k` stops it.
set -euo pipefail

export WINEPREFIX=${WINEPREFIX:-$1}
shift
export WINEARCH=win64
export WINEDEBUG=${WINEDEBUG--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES-mscoree,mshtml=} # no Mono / Gecko install prompts

wine=
for candidate in /usr/lib/wine/wine64 "$(command -v wine64 || true)" \
  "$(command -v wine || true)"; do
  [[ -n "$candidate" && -x "$candidate" ]] && { wine=$candidate; break; }
done
[[ -n "$wine" ]] || { echo "wine-run: no wine64 (apt-get install wine64 wine)" >&2; exit 127; }
server=$(dirname "$(readlink -f "$wine")")/wineserver
[[ -x "$server" ]] || server=wineserver

mkdir -p "$WINEPREFIX"
{
  flock 9 # parallel tests: one of them starts the server and creates the prefix
  # A new server (this exits 2 when one already runs) also needs Wine's own processes
  # (services, winedevice, ...): started here, detached, not by the program under its pipes.
  # Neither may inherit the lock (9>&-), or the next test waits until they exit.
  status=0
  "$server" -p60 >/dev/null 2>&1 </dev/null 9>&- || status=$?
  if [[ $status == 0 || ! -f "$WINEPREFIX/.wine-run.ready" ]]; then
    # A failing wineboot must not end this script silently (set -e): once in a CI run a test
    # failed in 0.01 s with no output at all. Say so, and run the program anyway.
    boot=0
    "$wine" wineboot --init >/dev/null 2>&1 </dev/null 9>&- || boot=$?
    if [[ $boot != 0 ]]; then
      echo "wine-run: wineboot --init exited with $boot (server start: $status)" >&2
    fi
    touch "$WINEPREFIX/.wine-run.ready"
  fi
} 9>"$WINEPREFIX/.wine-run.lock"

exec "$wine" "$@"
