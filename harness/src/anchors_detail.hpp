// What the anchors (anchors.hpp) share, one file per library: the OpenCL function table that the
// raw-OpenCL paths (anchor_opencl.cpp, anchor_clblast.cpp) call through, loaded once per process,
// and small helpers. Internal to the anchor files.
#pragma once

#include "anchors.hpp"
#include "environment.hpp"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <boost/dll/shared_library.hpp>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>

namespace mqlcl::replay {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

#define MQLCL_RAW_CL(X)                                                                            \
  X(clGetPlatformIDs)                                                                              \
  X(clGetPlatformInfo)                                                                             \
  X(clGetDeviceIDs)                                                                                \
  X(clGetDeviceInfo)                                                                               \
  X(clCreateContext)                                                                               \
  X(clReleaseContext)                                                                              \
  X(clCreateCommandQueue)                                                                          \
  X(clReleaseCommandQueue)                                                                         \
  X(clCreateBuffer)                                                                                \
  X(clReleaseMemObject)                                                                            \
  X(clEnqueueWriteBuffer)                                                                          \
  X(clEnqueueReadBuffer)                                                                           \
  X(clCreateProgramWithSource)                                                                     \
  X(clBuildProgram)                                                                                \
  X(clGetProgramBuildInfo)                                                                         \
  X(clGetProgramInfo)                                                                              \
  X(clReleaseProgram)                                                                              \
  X(clCreateKernel)                                                                                \
  X(clReleaseKernel)                                                                               \
  X(clSetKernelArg)                                                                                \
  X(clEnqueueNDRangeKernel)                                                                        \
  X(clFlush)                                                                                       \
  X(clFinish)                                                                                      \
  X(clReleaseEvent)                                                                                \
  X(clEnqueueMapBuffer)                                                                            \
  X(clEnqueueUnmapMemObject)

class RawOpenCL {
public:
#define MQLCL_RAW_POINTER(fn) decltype(&::fn) fn = nullptr;
  MQLCL_RAW_CL(MQLCL_RAW_POINTER)
#undef MQLCL_RAW_POINTER
  boost::dll::shared_library library;

  // Loaded once per process and never unloaded, as the bridge loads it: the ICD loader and its
  // drivers keep threads and memory of their own to the end (and LeakSanitizer can name, and so
  // suppress, a driver's allocations only while its module is loaded).
  static std::shared_ptr<const RawOpenCL> load(std::string &why_not) {
    struct Loaded {
      std::shared_ptr<const RawOpenCL> cl;
      std::string why_not;
    };
    static const Loaded *const loaded = [] {
      auto *once = new Loaded;
      once->cl = load_once(once->why_not);
      return once;
    }();
    if (!loaded->cl)
      why_not = loaded->why_not;
    return loaded->cl;
  }

private:
  static std::shared_ptr<const RawOpenCL> load_once(std::string &why_not) {
    std::string tried;
    auto library = load_first({"libOpenCL.so.1", "libOpenCL.so", "OpenCL.dll"}, {}, tried);
    if (!library) {
      why_not = "no OpenCL library (" + tried + ")";
      return nullptr;
    }
    auto cl = std::make_shared<RawOpenCL>();
    cl->library = *library;
#define MQLCL_RAW_RESOLVE(fn)                                                                      \
  if (!cl->library.has(#fn)) {                                                                     \
    why_not = "the OpenCL library lacks " #fn;                                                     \
    return nullptr;                                                                                \
  }                                                                                                \
  cl->fn = &cl->library.get<std::remove_pointer_t<decltype(cl->fn)>>(#fn);
    MQLCL_RAW_CL(MQLCL_RAW_RESOLVE)
#undef MQLCL_RAW_RESOLVE
    return cl;
  }
};

inline std::string platform_string(const RawOpenCL &cl, cl_platform_id platform,
                                   cl_platform_info what) {
  size_t bytes = 0;
  cl.clGetPlatformInfo(platform, what, 0, nullptr, &bytes);
  std::string text(bytes, '\0');
  cl.clGetPlatformInfo(platform, what, bytes, text.data(), nullptr);
  return text.c_str();
}

inline std::string device_string(const RawOpenCL &cl, cl_device_id device, cl_device_info what) {
  size_t bytes = 0;
  cl.clGetDeviceInfo(device, what, 0, nullptr, &bytes);
  std::string text(bytes, '\0');
  cl.clGetDeviceInfo(device, what, bytes, text.data(), nullptr);
  return text.c_str();
}

// Releases a cl_mem when it goes out of scope.
struct RawBuffer {
  const RawOpenCL &cl;
  cl_mem memory = nullptr;
  RawBuffer(const RawOpenCL &api, cl_context context, size_t bytes) : cl(api) {
    cl_int status = CL_SUCCESS;
    memory = cl.clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS)
      memory = nullptr;
  }
  ~RawBuffer() {
    if (memory != nullptr)
      cl.clReleaseMemObject(memory);
  }
};

} // namespace mqlcl::replay
