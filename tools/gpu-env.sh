# Sourced by the tools/gpu-*.sh scripts: the set-up every run on the workplace's NVIDIA machines
# needs (../shared/ref/gpu-device.md). The NVIDIA OpenCL driver is installed there but not
# registered: it is registered for this process only, beside PoCL when PoCL is present, and
# BIN (the binaries built elsewhere) goes first on the library path. MQLCL_LIBRARY and
# MQLCL_KERNELS_DIR name BIN's bridge and this tree's kernels for every program run after it: to
# time another build of the bridge in the same run, give its program --library (or its own
# MQLCL_LIBRARY), or it loads BIN's.
#   source tools/gpu-env.sh BIN
gpu_bin=$(realpath "$1")
gpu_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gpu_vendors=/tmp/mqlcl-vendors
mkdir -p "$gpu_vendors"
echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >"$gpu_vendors/nvidia.icd"
[[ -f /etc/OpenCL/vendors/pocl.icd ]] && cp /etc/OpenCL/vendors/pocl.icd "$gpu_vendors/"
export OCL_ICD_VENDORS=$gpu_vendors
export MQLCL_KERNELS_DIR=$gpu_root/kernels MQLCL_LIBRARY=$gpu_bin/libmqlcl.so
export LD_LIBRARY_PATH=$gpu_bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
