// libmqlcl_opencl_tracer.so: an OpenCL interception layer as API tracers are built, for the tests
// of how the bridge finds OpenCL (test_process_opencl.cpp). It exports the OpenCL entry points the
// bridge's dispatch table takes (bridge/src/cl_api.hpp) with the Khronos header's signatures;
// each counts its calls and forwards to the real ICD loader (libOpenCL.so.1, opened privately),
// so objects and results are the real driver's. A test opens it RTLD_GLOBAL, as a preloaded layer
// or a program linked against OpenCL provides the entry points.
//
// Built twice: whole, and with MQLCL_TRACER_PARTIAL, which exports clGetPlatformIDs only, as a
// layer or an old OpenCL would that lacks most of what the bridge needs.
#include "cl_api.hpp" // MQLCL_CL_FUNCTIONS: the names counted

#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

enum Index : int {
#define MQLCL_TRACER_INDEX(name) index_##name,
  MQLCL_CL_FUNCTIONS(MQLCL_TRACER_INDEX)
#undef MQLCL_TRACER_INDEX
      kFunctions
};
constexpr const char *kNames[kFunctions] = {
#define MQLCL_TRACER_NAME(name) #name,
    MQLCL_CL_FUNCTIONS(MQLCL_TRACER_NAME)
#undef MQLCL_TRACER_NAME
};

std::atomic<uint64_t> calls[kFunctions];

void *real_symbol(const char *name) {
  static void *real = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  void *symbol = real != nullptr ? dlsym(real, name) : nullptr;
  if (symbol == nullptr)
    std::abort(); // no ICD loader, or one without OpenCL 1.2: nothing to forward to
  return symbol;
}

} // namespace

extern "C" {

// Calls of the OpenCL function `name` that reached this layer; -1 for a name it does not count.
__attribute__((visibility("default"))) int64_t mqlcl_tracer_calls(const char *name) {
  for (int index = 0; index < kFunctions; ++index)
    if (std::strcmp(kNames[index], name) == 0)
      return static_cast<int64_t>(calls[index].load());
  return -1;
}

#define TRACE(result, name, params, args)                                                          \
  __attribute__((visibility("default"))) result CL_API_CALL name params {                          \
    ++calls[index_##name];                                                                         \
    return reinterpret_cast<decltype(&::name)>(real_symbol(#name)) args;                           \
  }

TRACE(cl_int, clGetPlatformIDs, (cl_uint n, cl_platform_id *platforms, cl_uint *count),
      (n, platforms, count))

#ifndef MQLCL_TRACER_PARTIAL
TRACE(cl_int, clGetPlatformInfo,
      (cl_platform_id p, cl_platform_info what, size_t size, void *value, size_t *size_ret),
      (p, what, size, value, size_ret))
TRACE(cl_int, clGetDeviceIDs,
      (cl_platform_id p, cl_device_type type, cl_uint n, cl_device_id *devices, cl_uint *count),
      (p, type, n, devices, count))
TRACE(cl_int, clGetDeviceInfo,
      (cl_device_id d, cl_device_info what, size_t size, void *value, size_t *size_ret),
      (d, what, size, value, size_ret))
TRACE(cl_context, clCreateContext,
      (const cl_context_properties *properties, cl_uint n, const cl_device_id *devices,
       void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *user_data,
       cl_int *status),
      (properties, n, devices, notify, user_data, status))
TRACE(cl_int, clReleaseContext, (cl_context context), (context))
TRACE(cl_command_queue, clCreateCommandQueue,
      (cl_context context, cl_device_id d, cl_command_queue_properties properties, cl_int *status),
      (context, d, properties, status))
TRACE(cl_int, clReleaseCommandQueue, (cl_command_queue queue), (queue))
TRACE(cl_int, clFlush, (cl_command_queue queue), (queue))
TRACE(cl_int, clFinish, (cl_command_queue queue), (queue))
TRACE(cl_program, clCreateProgramWithSource,
      (cl_context context, cl_uint n, const char **strings, const size_t *lengths, cl_int *status),
      (context, n, strings, lengths, status))
TRACE(cl_program, clCreateProgramWithBinary,
      (cl_context context, cl_uint n, const cl_device_id *devices, const size_t *lengths,
       const unsigned char **binaries, cl_int *binary_status, cl_int *status),
      (context, n, devices, lengths, binaries, binary_status, status))
TRACE(cl_int, clBuildProgram,
      (cl_program program, cl_uint n, const cl_device_id *devices, const char *options,
       void(CL_CALLBACK *notify)(cl_program, void *), void *user_data),
      (program, n, devices, options, notify, user_data))
TRACE(cl_int, clGetProgramBuildInfo,
      (cl_program program, cl_device_id d, cl_program_build_info what, size_t size, void *value,
       size_t *size_ret),
      (program, d, what, size, value, size_ret))
TRACE(cl_int, clGetProgramInfo,
      (cl_program program, cl_program_info what, size_t size, void *value, size_t *size_ret),
      (program, what, size, value, size_ret))
TRACE(cl_int, clReleaseProgram, (cl_program program), (program))
TRACE(cl_kernel, clCreateKernel, (cl_program program, const char *name, cl_int *status),
      (program, name, status))
TRACE(cl_int, clReleaseKernel, (cl_kernel kernel), (kernel))
TRACE(cl_int, clGetKernelInfo,
      (cl_kernel kernel, cl_kernel_info what, size_t size, void *value, size_t *size_ret),
      (kernel, what, size, value, size_ret))
TRACE(cl_int, clGetKernelWorkGroupInfo,
      (cl_kernel kernel, cl_device_id d, cl_kernel_work_group_info what, size_t size, void *value,
       size_t *size_ret),
      (kernel, d, what, size, value, size_ret))
TRACE(cl_int, clGetKernelArgInfo,
      (cl_kernel kernel, cl_uint index, cl_kernel_arg_info what, size_t size, void *value,
       size_t *size_ret),
      (kernel, index, what, size, value, size_ret))
TRACE(cl_int, clSetKernelArg, (cl_kernel kernel, cl_uint index, size_t size, const void *value),
      (kernel, index, size, value))
TRACE(cl_mem, clCreateBuffer,
      (cl_context context, cl_mem_flags flags, size_t size, void *host, cl_int *status),
      (context, flags, size, host, status))
TRACE(cl_int, clReleaseMemObject, (cl_mem buffer), (buffer))
TRACE(cl_int, clEnqueueFillBuffer,
      (cl_command_queue queue, cl_mem buffer, const void *pattern, size_t pattern_size,
       size_t offset, size_t size, cl_uint waits, const cl_event *wait_list, cl_event *event),
      (queue, buffer, pattern, pattern_size, offset, size, waits, wait_list, event))
TRACE(cl_int, clEnqueueWriteBuffer,
      (cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
       const void *data, cl_uint waits, const cl_event *wait_list, cl_event *event),
      (queue, buffer, blocking, offset, size, data, waits, wait_list, event))
TRACE(cl_int, clEnqueueReadBuffer,
      (cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
       void *data, cl_uint waits, const cl_event *wait_list, cl_event *event),
      (queue, buffer, blocking, offset, size, data, waits, wait_list, event))
TRACE(void *, clEnqueueMapBuffer,
      (cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags, size_t offset,
       size_t size, cl_uint waits, const cl_event *wait_list, cl_event *event, cl_int *status),
      (queue, buffer, blocking, flags, offset, size, waits, wait_list, event, status))
TRACE(cl_int, clEnqueueUnmapMemObject,
      (cl_command_queue queue, cl_mem buffer, void *mapped, cl_uint waits,
       const cl_event *wait_list, cl_event *event),
      (queue, buffer, mapped, waits, wait_list, event))
TRACE(cl_int, clEnqueueNDRangeKernel,
      (cl_command_queue queue, cl_kernel kernel, cl_uint dimensions, const size_t *offset,
       const size_t *global, const size_t *local, cl_uint waits, const cl_event *wait_list,
       cl_event *event),
      (queue, kernel, dimensions, offset, global, local, waits, wait_list, event))
TRACE(cl_int, clEnqueueMarkerWithWaitList,
      (cl_command_queue queue, cl_uint waits, const cl_event *wait_list, cl_event *event),
      (queue, waits, wait_list, event))
TRACE(cl_int, clEnqueueBarrierWithWaitList,
      (cl_command_queue queue, cl_uint waits, const cl_event *wait_list, cl_event *event),
      (queue, waits, wait_list, event))
TRACE(cl_int, clGetEventInfo,
      (cl_event e, cl_event_info what, size_t size, void *value, size_t *size_ret),
      (e, what, size, value, size_ret))
TRACE(cl_int, clGetEventProfilingInfo,
      (cl_event e, cl_profiling_info what, size_t size, void *value, size_t *size_ret),
      (e, what, size, value, size_ret))
TRACE(cl_int, clWaitForEvents, (cl_uint n, const cl_event *events), (n, events))
TRACE(cl_int, clRetainEvent, (cl_event e), (e))
TRACE(cl_int, clReleaseEvent, (cl_event e), (e))
#endif // MQLCL_TRACER_PARTIAL

} // extern "C"
