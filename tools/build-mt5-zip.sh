#!/usr/bin/env bash
# The MetaTrader 5 zip from a clone, in one command: mqlcl.dll cross-built with MinGW-w64 (the
# library alone: no tests, no harness), the MQL5 include, scripts and kernels, and a README for
# the terminal's folders (docs/mql5.md, "Installing").
#   tools/build-mt5-zip.sh              on Debian 12 or Ubuntu: installs the MinGW-w64 packages
#                                       (apt-get, with sudo when not root), builds in build-mt5/
#   tools/build-mt5-zip.sh --container  on any system with Docker or Podman: the same inside a
#                                       debian:12 container, in build-mt5-container/
# Prints the zip's path: <build>/package/mqlcl-<version>-mt5-win64.zip.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} == --container ]]; then
  engine=$(command -v docker || command -v podman || true)
  [[ -n $engine ]] || { echo "build-mt5-zip: --container needs docker or podman" >&2; exit 1; }
  # Docker's root writes root's files into the clone: they are given back to the caller
  # (rootless Podman writes the caller's own).
  give_back=true
  [[ $(basename "$engine") == docker ]] && give_back="chown -R $(id -u):$(id -g) build-mt5-container"
  exec "$engine" run --rm -v "$PWD:/src" -w /src -e MQLCL_MT5_BUILD=build-mt5-container \
    debian:12 bash -c "tools/build-mt5-zip.sh && $give_back"
fi

build=${MQLCL_MT5_BUILD:-build-mt5}
start=$SECONDS
tools/install-deps.sh g++-mingw-w64-x86-64 binutils-mingw-w64-x86-64 mingw-w64-tools
cmake -S . -B "$build" -G Ninja --toolchain cmake/toolchains/mingw-w64-x86_64.cmake \
  -DCMAKE_BUILD_TYPE=Release -DMQLCL_BUILD_TESTS=OFF -DMQLCL_BUILD_HARNESS=OFF
cmake --build "$build" --target mqlcl mql5_kernels
rm -rf "$build/package"
cpack --config "$build/CPackConfig.cmake" -B "$build/package"
zips=("$build"/package/*.zip)
echo "build-mt5-zip: ${zips[0]} in $((SECONDS - start)) s"
