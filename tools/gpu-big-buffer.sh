#!/usr/bin/env bash
# A 5 GiB buffer on an NVIDIA GPU through the 64-bit buffer calls: written, changed by a kernel
# and read back whole, every word checked, at offsets up to 5 GiB (test_big_buffers.cpp, case
# a_buffer_past_the_32_bit_calls, with MQLCL_TEST_BIG_BUFFER_FULL=1), then the windows at both
# ends and across the 4 GiB mark once more. Needs about 11 GiB of host memory.
#   tools/gpu-big-buffer.sh BIN [BYTES]
# BIN holds libmqlcl.so and test_bridge_big_buffers (build/bin of a build made elsewhere);
# BYTES defaults to 5 GiB. The NVIDIA driver is registered for this run only, as
# tools/gpu-env.sh does; the device is the first NVIDIA one (MQLCL_DEVICE=nvidia).
set -uo pipefail
source "$(dirname "$0")/gpu-env.sh" "$1"
bin=$gpu_bin
bytes=${2:-$((5 << 30))}
export MQLCL_DEVICE=nvidia MQLCL_REQUIRE_DEVICE=1
status=0
for full in 1 0; do
  echo "::: $bytes bytes, MQLCL_TEST_BIG_BUFFER_FULL=$full"
  MQLCL_TEST_BIG_BUFFER_BYTES=$bytes MQLCL_TEST_BIG_BUFFER_FULL=$full \
    "$bin/test_bridge_big_buffers" --log_level=message --report_level=short || status=1
done
echo "::: exit $status"
exit $status
