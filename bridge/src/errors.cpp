#include "errors.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

namespace mqlcl {

void fail(int32_t code, std::string message, cl_int cl_status) {
  throw Failure(code, std::move(message), cl_status);
}

void check_cl(cl_int status, const char *call, int32_t code) {
  if (status != CL_SUCCESS)
    fail(code, fmt::format("{}: {} ({})", call, cl_error_name(status), status), status);
}

std::string cl_error_name(cl_int status) {
  switch (status) {
#define MQLCL_NAME(code)                                                                           \
  case code:                                                                                       \
    return #code;
    MQLCL_NAME(CL_SUCCESS)
    MQLCL_NAME(CL_DEVICE_NOT_FOUND)
    MQLCL_NAME(CL_DEVICE_NOT_AVAILABLE)
    MQLCL_NAME(CL_COMPILER_NOT_AVAILABLE)
    MQLCL_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    MQLCL_NAME(CL_OUT_OF_RESOURCES)
    MQLCL_NAME(CL_OUT_OF_HOST_MEMORY)
    MQLCL_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    MQLCL_NAME(CL_MEM_COPY_OVERLAP)
    MQLCL_NAME(CL_IMAGE_FORMAT_MISMATCH)
    MQLCL_NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    MQLCL_NAME(CL_BUILD_PROGRAM_FAILURE)
    MQLCL_NAME(CL_MAP_FAILURE)
    MQLCL_NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    MQLCL_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    MQLCL_NAME(CL_COMPILE_PROGRAM_FAILURE)
    MQLCL_NAME(CL_LINKER_NOT_AVAILABLE)
    MQLCL_NAME(CL_LINK_PROGRAM_FAILURE)
    MQLCL_NAME(CL_DEVICE_PARTITION_FAILED)
    MQLCL_NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    MQLCL_NAME(CL_INVALID_VALUE)
    MQLCL_NAME(CL_INVALID_DEVICE_TYPE)
    MQLCL_NAME(CL_INVALID_PLATFORM)
    MQLCL_NAME(CL_INVALID_DEVICE)
    MQLCL_NAME(CL_INVALID_CONTEXT)
    MQLCL_NAME(CL_INVALID_QUEUE_PROPERTIES)
    MQLCL_NAME(CL_INVALID_COMMAND_QUEUE)
    MQLCL_NAME(CL_INVALID_HOST_PTR)
    MQLCL_NAME(CL_INVALID_MEM_OBJECT)
    MQLCL_NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    MQLCL_NAME(CL_INVALID_IMAGE_SIZE)
    MQLCL_NAME(CL_INVALID_SAMPLER)
    MQLCL_NAME(CL_INVALID_BINARY)
    MQLCL_NAME(CL_INVALID_BUILD_OPTIONS)
    MQLCL_NAME(CL_INVALID_PROGRAM)
    MQLCL_NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    MQLCL_NAME(CL_INVALID_KERNEL_NAME)
    MQLCL_NAME(CL_INVALID_KERNEL_DEFINITION)
    MQLCL_NAME(CL_INVALID_KERNEL)
    MQLCL_NAME(CL_INVALID_ARG_INDEX)
    MQLCL_NAME(CL_INVALID_ARG_VALUE)
    MQLCL_NAME(CL_INVALID_ARG_SIZE)
    MQLCL_NAME(CL_INVALID_KERNEL_ARGS)
    MQLCL_NAME(CL_INVALID_WORK_DIMENSION)
    MQLCL_NAME(CL_INVALID_WORK_GROUP_SIZE)
    MQLCL_NAME(CL_INVALID_WORK_ITEM_SIZE)
    MQLCL_NAME(CL_INVALID_GLOBAL_OFFSET)
    MQLCL_NAME(CL_INVALID_EVENT_WAIT_LIST)
    MQLCL_NAME(CL_INVALID_EVENT)
    MQLCL_NAME(CL_INVALID_OPERATION)
    MQLCL_NAME(CL_INVALID_GL_OBJECT)
    MQLCL_NAME(CL_INVALID_BUFFER_SIZE)
    MQLCL_NAME(CL_INVALID_MIP_LEVEL)
    MQLCL_NAME(CL_INVALID_GLOBAL_WORK_SIZE)
    MQLCL_NAME(CL_INVALID_PROPERTY)
    MQLCL_NAME(CL_INVALID_IMAGE_DESCRIPTOR)
    MQLCL_NAME(CL_INVALID_COMPILER_OPTIONS)
    MQLCL_NAME(CL_INVALID_LINKER_OPTIONS)
    MQLCL_NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef MQLCL_NAME
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR";
  default:
    return fmt::format("unknown OpenCL error {}", status);
  }
}

LastError &last_error() noexcept {
  thread_local LastError error;
  return error;
}

void record_failure(int32_t code, cl_int cl_status, const char *message) noexcept {
  LastError &error = last_error();
  error.code = code;
  error.cl_status = cl_status;
  try {
    error.message = message;
  } catch (...) {
    error.message.clear(); // out of memory while reporting: keep the code, drop the text
  }
}

} // namespace mqlcl
