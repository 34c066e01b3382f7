// The OpenCL entry points the bridge calls, as a table filled at run time, all from one source,
// the first of: the library MQLCL_OPENCL_LIBRARY names; the entry points the process already
// provides (a preloaded runtime or layer, a program linked against OpenCL, on Windows an
// OpenCL.dll already loaded); the ICD loader (libOpenCL.so.1 / OpenCL.dll). Loading late lets the
// library itself load on machines with no OpenCL at all, as MetaTrader needs (every call then fails
// with ERR_OPENCL_NOT_SUPPORTED), and gives tests one seam to inject OpenCL failures next to the
// real driver.
#pragma once

#include "opencl.hpp"

namespace mqlcl {

#define MQLCL_CL_FUNCTIONS(X)                                                                      \
  X(clGetPlatformIDs)                                                                              \
  X(clGetPlatformInfo)                                                                             \
  X(clGetDeviceIDs)                                                                                \
  X(clGetDeviceInfo)                                                                               \
  X(clCreateContext)                                                                               \
  X(clReleaseContext)                                                                              \
  X(clCreateCommandQueue)                                                                          \
  X(clReleaseCommandQueue)                                                                         \
  X(clFlush)                                                                                       \
  X(clFinish)                                                                                      \
  X(clCreateProgramWithSource)                                                                     \
  X(clCreateProgramWithBinary)                                                                     \
  X(clBuildProgram)                                                                                \
  X(clGetProgramBuildInfo)                                                                         \
  X(clGetProgramInfo)                                                                              \
  X(clReleaseProgram)                                                                              \
  X(clCreateKernel)                                                                                \
  X(clReleaseKernel)                                                                               \
  X(clGetKernelInfo)                                                                               \
  X(clGetKernelWorkGroupInfo)                                                                      \
  X(clGetKernelArgInfo)                                                                            \
  X(clSetKernelArg)                                                                                \
  X(clCreateBuffer)                                                                                \
  X(clReleaseMemObject)                                                                            \
  X(clEnqueueFillBuffer)                                                                           \
  X(clEnqueueWriteBuffer)                                                                          \
  X(clEnqueueReadBuffer)                                                                           \
  X(clEnqueueMapBuffer)                                                                            \
  X(clEnqueueUnmapMemObject)                                                                       \
  X(clEnqueueNDRangeKernel)                                                                        \
  X(clEnqueueMarkerWithWaitList)                                                                   \
  X(clEnqueueBarrierWithWaitList)                                                                  \
  X(clGetEventInfo)                                                                                \
  X(clGetEventProfilingInfo)                                                                       \
  X(clWaitForEvents)                                                                               \
  X(clRetainEvent)                                                                                 \
  X(clReleaseEvent)

struct ClApi {
#define MQLCL_POINTER(name) decltype(&::name) name = nullptr;
  MQLCL_CL_FUNCTIONS(MQLCL_POINTER)
#undef MQLCL_POINTER
};

// The table in use. Throws Failure(ERR_OPENCL_NOT_SUPPORTED) when no OpenCL library loads;
// the reason stays available through cl_api_load_error().
const ClApi &cl_api();
const char *cl_api_load_error() noexcept;

// Nanoseconds from the start of `first` to the end of `last` (the same event for one command), by
// their profiling counters; 0 if the driver's counters run backwards. The commands must be done.
// Throws Failure(ERR_OPENCL_INTERNAL) where the driver gives no counter.
int64_t profiled_nanoseconds(cl_event first, cl_event last);

// Test seam (not exported from the shared library): route every call through `api`, or back to
// the loaded library with nullptr. Swap only while no OpenCL object is alive.
void set_cl_api_for_testing(const ClApi *api) noexcept;

} // namespace mqlcl
