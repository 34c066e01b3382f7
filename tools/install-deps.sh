#!/usr/bin/env bash
# Installs what building and testing mqlcl needs on Debian 12 (and Ubuntu): compilers, CMake,
# the OpenCL headers and ICD loader, PoCL (a real OpenCL CPU device), Boost, fmt, nlohmann/json
# and CLI11.
#   tools/install-deps.sh            the base set
#   tools/install-deps.sh PKG ...    the base set plus extra Debian packages (CI jobs use this)
set -euo pipefail

packages=(
  build-essential cmake ninja-build git ca-certificates
  ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo
  libboost-dev libboost-test-dev libfmt-dev nlohmann-json3-dev libcli11-dev
  "$@"
)

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  as_root=(sudo)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: everything is installed"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
