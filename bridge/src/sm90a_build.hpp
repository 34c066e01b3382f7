// The build side of -mqlcl-nv-sm90a (ptx_rewrite.hpp has the text side): a program built from
// source by NVIDIA's OpenCL for sm_90 is built again from its PTX retargeted to sm_90a. Used by
// CLProgramCreate(Ex) for users' kernels and by CLGemm for its tensor-core kernels.
#pragma once

#include "opencl.hpp"

#include <string>

namespace mqlcl {

// Added to the source build under -mqlcl-nv-sm90a, so that kernels can tell.
inline constexpr const char *kSm90aDefine = "-D MQLCL_SM90A=1";

struct Sm90aBuild {
  cl_program program = nullptr; // the caller's to release
  std::string log;              // the driver's log, after a note on refused options if any
};

// Builds `source_build`'s PTX (the one device's binary) retargeted to sm_90a with `options`
// (NVIDIA's PTX-to-SASS options still apply; source-only ones the driver refuses for a binary
// are dropped with a note). Throws Failure(MQLCL_ERR_OPENCL_PROGRAM_CREATE) whose message starts
// "`function`: -mqlcl-nv-sm90a: ".
Sm90aBuild rebuild_for_sm90a(const char *function, cl_context context, cl_device_id device,
                             cl_program source_build, const std::string &options);

} // namespace mqlcl
