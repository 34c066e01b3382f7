#include "sm90a_build.hpp"

#include "cl_api.hpp"
#include "errors.hpp"
#include "ptx_rewrite.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

namespace mqlcl {

namespace {

[[noreturn]] void failed(const char *function, const std::string &what, cl_int status) {
  fail(MQLCL_ERR_OPENCL_PROGRAM_CREATE, fmt::format("{}: {}: {}", function, kSm90aOption, what),
       status);
}

std::string build_log(cl_program program, cl_device_id device) {
  const ClApi &cl = cl_api();
  size_t bytes = 0;
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &bytes) !=
          CL_SUCCESS ||
      bytes == 0)
    return {};
  std::string log(bytes, '\0');
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, bytes, log.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' '))
    log.pop_back();
  return log;
}

// The program's one binary: NVIDIA's PTX for a source build.
std::string program_binary(const char *function, cl_program program) {
  const ClApi &cl = cl_api();
  size_t size = 0; // the context has one device, so the program has one binary
  cl_int status =
      cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr);
  if (status != CL_SUCCESS)
    failed(function,
           fmt::format("clGetProgramInfo(CL_PROGRAM_BINARY_SIZES): {} ({})", cl_error_name(status),
                       status),
           status);
  std::string binary(size, '\0');
  auto *binary_pointer = reinterpret_cast<unsigned char *>(binary.data());
  if (size > 0) {
    status = cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(binary_pointer),
                                 &binary_pointer, nullptr);
    if (status != CL_SUCCESS)
      failed(function,
             fmt::format("clGetProgramInfo(CL_PROGRAM_BINARIES): {} ({})", cl_error_name(status),
                         status),
             status);
  }
  return binary;
}

} // namespace

Sm90aBuild rebuild_for_sm90a(const char *function, cl_context context, cl_device_id device,
                             cl_program source_build, const std::string &options) {
  const ClApi &cl = cl_api();
  if (cl.clGetProgramInfo == nullptr || cl.clCreateProgramWithBinary == nullptr)
    failed(function, "this OpenCL library has no clGetProgramInfo or clCreateProgramWithBinary",
           CL_SUCCESS);
  PtxRewrite rewrite = retarget_ptx_to_sm90a(program_binary(function, source_build));
  if (rewrite.error)
    failed(function,
           fmt::format("the device's program binary is not NVIDIA PTX for sm_90 ({}); this "
                       "option needs an H100/H200 with NVIDIA's OpenCL",
                       *rewrite.error),
           CL_SUCCESS);

  // With its terminator, as NVIDIA gives its own PTX.
  size_t length = rewrite.ptx.size() + 1;
  auto *ptx = reinterpret_cast<const unsigned char *>(rewrite.ptx.c_str());
  cl_int binary_status = CL_SUCCESS, status = CL_SUCCESS;
  Sm90aBuild built;
  built.program =
      cl.clCreateProgramWithBinary(context, 1, &device, &length, &ptx, &binary_status, &status);
  if (status != CL_SUCCESS)
    failed(function,
           fmt::format("clCreateProgramWithBinary: {} ({}), binary status {} ({})",
                       cl_error_name(status), status, cl_error_name(binary_status), binary_status),
           status);
  std::string note;
  status = cl.clBuildProgram(built.program, 1, &device, options.c_str(), nullptr, nullptr);
  if (status == CL_INVALID_BUILD_OPTIONS && !options.empty()) {
    // Source-only options (-D, -cl-*) may be refused for a binary: without them, then.
    note = fmt::format("{}: the driver refused the options \"{}\" for the sm_90a PTX; built "
                       "without them\n",
                       kSm90aOption, options);
    status = cl.clBuildProgram(built.program, 1, &device, "", nullptr, nullptr);
  }
  built.log = note + build_log(built.program, device);
  if (status != CL_SUCCESS) {
    cl.clReleaseProgram(built.program);
    failed(function,
           fmt::format("clBuildProgram of the sm_90a PTX: {} ({})\n{}", cl_error_name(status),
                       status, built.log),
           status);
  }
  return built;
}

} // namespace mqlcl
