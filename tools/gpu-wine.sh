#!/usr/bin/env bash
# mqlcl.dll under Wine on the GPU machine, as MetaTrader runs it on Linux: a trimmed Wine carried
# there, the mingw build's tests as .exe, a replay, and CLGemm's table under Wine beside the Linux
# library's with the CUDA driver off (the same kernels: Wine has no nvcuda.dll).
#   tools/gpu-wine.sh pack BUILD_MINGW PACK      here (Debian 12, wine64 and libwine installed)
#   tools/gpu-wine.sh run PACK OUT [SIZES]        there, with a suite pack's build/ unpacked
#                                                  (tools/gpu-measure.sh BIN OUT suite) for Linux
# pack: PACK/wine.tar.xz, Debian's Wine 8 trimmed to what a console program, wineboot and its
# services load (WINE_FILES below, found with WINEDEBUG=+loaddll; stripped: about 11 MB), with
# ntdll.so's libunwind, which a server image may lack; PACK/build-mingw.tar.xz, the mingw
# tree as ctest reads it, debug sections stripped (about 14 MB); PACK/source-dir.
# run: a fresh prefix (wineboot, 2 s), NVIDIA's OpenCL registered for the host's ICD loader, which
# Wine's OpenCL.dll calls; then OUT/wine-replay.txt (mqlcl-replay.exe matr_mul_vect_v2),
# OUT/gemm-wine.txt beside OUT/gemm-linux.txt (`gemm --sizes SIZES`, default 4096; Linux with
# MQLCL_CUDA_DRIVER=off), and OUT/wine-suite.log (ctest over the mingw tree, every test under
# Wine on device 0; WINE_CTEST_ARGS, default -j 4, adds ctest arguments). GEMM_TIMEOUT (seconds,
# default 300) bounds each table.
set -uo pipefail

# The Windows side a console program needs under Wine 8, and what wineboot --init and the
# services it starts load (their absence fails the prefix's creation).
WINE_FILES="actxprxy advapi32 advpack atl100 avicap32 bcrypt cmd.exe combase comctl32 comdlg32
compstui conhost.exe crypt32 cryptdlg cryptnet cryptui devenum dnsapi dsound explorer.exe gdi32
hidclass.sys hidparse.sys ieframe iexplore.exe imaadp32.acm imm32 iphlpapi kernel32 kernelbase
l3codeca.acm localspl mfplat mountmgr.sys mp3dmod mpr msacm32 msadp32.acm msdmo msg711.acm
msgsm32.acm msisip msvcrt msvfw32 ndis.sys newdev nsi nsiproxy.sys ntdll ntoskrnl.exe ole32
oleaut32 opencl plugplay.exe propsys qcap qedit quartz rpcrt4 rpcss.exe rsaenh rtworkq
rundll32.exe sechost services.exe setupapi shcore shell32 shlwapi spoolss start.exe svchost.exe
ucrtbase urlmon user32 userenv uxtheme version wevtsvc win32u windowscodecs wineboot.exe
winebus.sys winedevice.exe winegstreamer winehid.sys winemenubuilder.exe wineps.drv winevulkan
winex11.drv wineusb.sys wininet winmm winprint winspool.drv wintrust ws2_32 zlib1"
# Unix sides whose libraries (X11, PulseAudio, GStreamer, ...) a server image lacks; Wine runs
# without them (no display, no sound), as it does here without a display.
WINE_UNIX_LEFT_OUT="capi2032 gphoto2 winealsa winegstreamer winepulse winex11 wpcap"

pack() {
  local mingw=$1 pack=$2 stage
  mkdir -p "$pack" && pack=$(realpath "$pack") && mingw=$(realpath "$mingw")
  stage=$(mktemp -d)
  local windows=usr/lib/x86_64-linux-gnu/wine/x86_64-windows unix=usr/lib/x86_64-linux-gnu/wine/x86_64-unix
  mkdir -p "$stage/wine/usr/lib/wine" "$stage/wine/$windows" "$stage/wine/$unix" \
    "$stage/wine/usr/share/wine" "$stage/wine/lib"
  cp /usr/lib/wine/wine64 /usr/lib/wine/wineserver64 "$stage/wine/usr/lib/wine/"
  ln -s wineserver64 "$stage/wine/usr/lib/wine/wineserver" # Debian's is a script naming /usr
  local name file
  for name in $WINE_FILES; do
    [[ $name == *.* ]] || name=$name.dll
    file=/$windows/$name
    [[ -f $file ]] || { echo "gpu-wine: $file missing (apt-get install wine64 libwine)" >&2; return 1; }
    cp "$file" "$stage/wine/$windows/" && x86_64-w64-mingw32-strip "$stage/wine/$windows/$name"
  done
  cp /$unix/*.so "$stage/wine/$unix/"
  for name in $WINE_UNIX_LEFT_OUT; do rm -f "$stage/wine/$unix/$name.so"; done
  strip "$stage/wine/$unix"/*.so "$stage/wine/usr/lib/wine/wine64" "$stage/wine/usr/lib/wine/wineserver64"
  cp -r /usr/share/wine/nls /usr/share/wine/wine.inf "$stage/wine/usr/share/wine/"
  cp -L "$(ldconfig -p | sed -n 's/.*libunwind.so.8 (libc6,x86-64) => //p' | head -1)" "$stage/wine/lib/"
  tar -C "$stage/wine" -cJf "$pack/wine.tar.xz" .
  # The mingw tree, as tools/gpu-suite-pack.sh packs the Linux one.
  mkdir "$stage/build-mingw"
  tar -C "$mingw" --exclude='*.o' --exclude='*.obj' --exclude='.ninja_*' --exclude='*.d' \
    --exclude='./wineprefix' --exclude='./_deps' --exclude='./package' \
    --exclude='./*/install_package' -cf - . | tar -C "$stage/build-mingw" -xf -
  find "$stage/build-mingw" \( -name '*.exe' -o -name '*.dll' \) -exec x86_64-w64-mingw32-strip --strip-debug {} +
  tar -C "$stage" -cJf "$pack/build-mingw.tar.xz" build-mingw
  sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$mingw/CMakeCache.txt" >"$pack/source-dir"
  rm -rf "$stage"
  du -sh "$pack"/*.tar.xz
}

run() {
  local pack root out sizes=${3:-4096}
  pack=$(realpath "$1") && out=$(realpath "$2") && root=$(cd "$(dirname "$0")/.." && pwd)
  local wine_root=/tmp/mqlcl-wine
  rm -rf "$wine_root" && mkdir -p "$wine_root" && tar -C "$wine_root" -xJf "$pack/wine.tar.xz"
  export PATH=$wine_root/usr/lib/wine:$PATH LD_LIBRARY_PATH=$wine_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  ln -sf wine64 "$wine_root/usr/lib/wine/wine" # tools/wine-run.sh takes wine64 from PATH
  # shellcheck source=tools/gpu-env.sh
  source "$root/tools/gpu-env.sh" "$root/build/bin" >/dev/null # NVIDIA's ICD, Linux's library
  local dir # cuBLAS for the Linux table's anchors, as tools/gpu-measure.sh finds it
  for dir in /usr/local/cuda/lib64 /opt/torch/.venv/lib/python3*/site-packages/nvidia/cu*/lib; do
    if [[ -e $dir/libcublas.so.13 || -e $dir/libcublas.so.12 ]]; then
      export MQLCL_CUDA_LIBRARY_DIR=$dir LD_LIBRARY_PATH=$dir:$LD_LIBRARY_PATH
      break
    fi
  done
  # The mingw tree where it was configured (ctest's files name it), as the suite phase does.
  local source_dir
  source_dir=$(cat "$pack/source-dir")
  [[ $source_dir == "$root" ]] || { mkdir -p "$(dirname "$source_dir")" && ln -sfn "$root" "$source_dir"; }
  rm -rf "$root/build-mingw" && tar -C "$root" -xJf "$pack/build-mingw.tar.xz"
  export WINEPREFIX=$root/build-mingw/wineprefix WINEARCH=win64 WINEDEBUG=-all
  export WINEDLLOVERRIDES="mscoree,mshtml="
  local start=$SECONDS
  wine64 wineboot --init >"$out/wineboot.txt" 2>&1
  echo "wineboot: exit $?, $((SECONDS - start)) s, prefix $(du -sh "$WINEPREFIX" | cut -f1)"
  env -u MQLCL_LIBRARY -u MQLCL_KERNELS_DIR wine64 "$root/build-mingw/bin/mqlcl-replay.exe" \
    --list-devices 2>&1 | tee "$out/wine-devices.txt"
  env -u MQLCL_LIBRARY -u MQLCL_KERNELS_DIR wine64 "$root/build-mingw/bin/mqlcl-replay.exe" \
    matr_mul_vect_v2 --device 0 >"$out/wine-replay.txt" 2>&1
  echo "replay under Wine: exit $?" && tail -n 3 "$out/wine-replay.txt"
  # CLGemm's table: under Wine (no nvcuda.dll), and the Linux library without the CUDA driver.
  env -u MQLCL_LIBRARY -u MQLCL_KERNELS_DIR MQLCL_TUNE_CACHE= timeout "${GEMM_TIMEOUT:-300}" stdbuf -oL \
    wine64 "$root/build-mingw/bin/mqlcl-replay.exe" gemm --device 0 --sizes "$sizes" \
    >"$out/gemm-wine.txt" 2>&1
  echo "gemm under Wine: exit $?"
  MQLCL_CUDA_DRIVER=off MQLCL_TUNE_CACHE=$out/none.json timeout "${GEMM_TIMEOUT:-300}" stdbuf -oL \
    "$root/build/bin/mqlcl-replay" gemm --device 0 --sizes "$sizes" >"$out/gemm-linux.txt" 2>&1
  echo "gemm on Linux, MQLCL_CUDA_DRIVER=off: exit $?"
  # Every test of the mingw tree under Wine, on device 0 (NVIDIA's, through Wine's OpenCL.dll).
  # Left out: test_windows_pe_tables reads the DLL's tables with binutils' objdump, which the GPU
  # machine lacks (CI's Windows job runs it).
  # shellcheck disable=SC2086 # WINE_CTEST_ARGS is a list of ctest arguments
  env -u MQLCL_LIBRARY -u MQLCL_KERNELS_DIR MQLCL_REQUIRE_DEVICE=1 MQLCL_TEST_DEVICE=0 \
    ctest --test-dir "$source_dir/build-mingw" --output-on-failure --timeout 300 \
    -E "^test_windows_pe_tables$" \
    --output-junit "$out/wine-suite.xml" ${WINE_CTEST_ARGS:--j 4} >"$out/wine-suite.log" 2>&1
  echo "ctest under Wine: exit $?"
  sed -n '/tests passed/,$p' "$out/wine-suite.log"
  wineserver -k
}

case ${1:-} in
pack) pack "$2" "$3" ;;
run) run "$2" "$3" "${4:-}" ;;
*)
  sed -n '2,17p' "$0" >&2
  exit 2
  ;;
esac
