#!/usr/bin/env bash
# Packs a build tree for the whole test suite on the GPU machine (tools/gpu-measure.sh's `suite`
# phase): what ctest runs and reads there, with the debug sections of the binaries taken out (the
# symbols stay) so that it travels within the device tool's limit; the shared libraries the
# binaries need that the GPU machine's image lacks (Boost.Test), and the ICD loader the suite runs
# on here (Debian's ocl-icd: the fault layer of the reliability tests is an OpenCL layer, which the
# loader must support); and the build tools ctest's install tests run, where the image lacks them.
#   tools/gpu-suite-pack.sh BUILD PACK
# BUILD is a configured and built tree (cmake --preset default; cmake --build --preset default);
# PACK, a folder, receives build.tar.xz, lib/, tools/ and source-dir (the source folder the tree
# was configured from: ctest's files name it, so the GPU machine links it to its copy).
set -euo pipefail
build=$(realpath "$1")
pack=$2
mkdir -p "$pack/lib" "$pack/tools"
pack=$(realpath "$pack")
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
echo "$source_dir" >"$pack/source-dir"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# Everything but objects, the build system's own state and the install tests' scratch trees.
mkdir "$stage/build"
tar -C "$build" --exclude='*.o' --exclude='*.obj' --exclude='.ninja_*' --exclude='*.d' \
  --exclude='./*/install_package' --exclude='./_deps' -cf - . | tar -C "$stage/build" -xf -
find "$stage/build" -type f -perm -u+x -exec sh -c \
  'file -b "$1" | grep -q ELF && objcopy --strip-debug "$1"' _ {} \;
find "$stage/build" -type f -name '*.so*' -exec sh -c \
  'file -b "$1" | grep -q ELF && objcopy --strip-debug "$1"' _ {} \;
tar -C "$stage" -cJf "$pack/build.tar.xz" build
for library in $(ldd "$build"/bin/test_* 2>/dev/null | grep -o '/[^ ]*libboost[^ ]*' | sort -u) \
  "$(ldconfig -p | sed -n 's/.*libOpenCL.so.1 (libc6,x86-64) => //p' | head -1)"; do
  cp -L "$library" "$pack/lib/"
done
# The tools CMakeCache.txt names (cmake, the generator, the compilers), by this machine's paths.
sed -n 's/^\(CMAKE_COMMAND\|CMAKE_MAKE_PROGRAM\|CMAKE_C_COMPILER\|CMAKE_CXX_COMPILER\):[A-Z]*=//p' \
  "$build/CMakeCache.txt" >"$pack/tools/paths"
cp -L "$(command -v ninja)" "$pack/tools/"
du -sh "$pack"/build.tar.xz "$pack"/lib
