// See opencl_counting.hpp. Exports the OpenCL 1.2 functions that mqlcl's dispatch table loads
// (bridge/src/cl_api.hpp), with the Khronos header's own signatures.
#include "opencl_counting.hpp"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <windows.h>

#include <atomic>
#include <cstdlib>
#include <string>

using namespace opencl_counting;

namespace {

std::atomic<int64_t> live[kKinds];
std::atomic<bool> process_exiting{false};

void append_to_log(const std::string &line) {
  wchar_t path[MAX_PATH];
  DWORD length = GetEnvironmentVariableW(kLogVariable, path, MAX_PATH);
  if (length == 0 || length >= MAX_PATH)
    return;
  HANDLE file = CreateFileW(path, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                            OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE)
    return;
  std::string text = line + "\n";
  DWORD written = 0;
  WriteFile(file, text.data(), static_cast<DWORD>(text.size()), &written, nullptr);
  CloseHandle(file);
}

void note_call(const char *function) {
  if (process_exiting.load())
    append_to_log(std::string("late call after process exit: ") + function);
}

void *real_symbol(const char *name) {
  static HMODULE real = LoadLibraryW(L"OpenCL.dll");
  void *symbol = real != nullptr ? reinterpret_cast<void *>(GetProcAddress(real, name)) : nullptr;
  if (symbol == nullptr)
    std::abort(); // the real OpenCL.dll lacks an OpenCL 1.2 function: nothing sensible to do
  return symbol;
}

template <class Function> Function real(const char *name) {
  return reinterpret_cast<Function>(real_symbol(name));
}

} // namespace

extern "C" {

__declspec(dllexport) int64_t opencl_counting_live(int32_t kind) {
  return kind >= 0 && kind < kKinds ? live[kind].load() : -1;
}

// A function passed straight through.
#define FORWARD(result, name, params, args)                                                        \
  __declspec(dllexport) result CL_API_CALL name params {                                           \
    note_call(#name);                                                                              \
    return real<decltype(&::name)>(#name) args;                                                    \
  }
// A creation: one more live object of `kind` when it returns one.
#define CREATE(result, name, kind, params, args)                                                   \
  __declspec(dllexport) result CL_API_CALL name params {                                           \
    note_call(#name);                                                                              \
    result object = real<decltype(&::name)>(#name) args;                                           \
    if (object != nullptr)                                                                         \
      ++live[kind];                                                                                \
    return object;                                                                                 \
  }
// A release (or retain): one fewer (more) reference of `kind` when it succeeds.
#define REFERENCE(name, type, kind, delta)                                                         \
  __declspec(dllexport) cl_int CL_API_CALL name(type object) {                                     \
    note_call(#name);                                                                              \
    cl_int status = real<decltype(&::name)>(#name)(object);                                        \
    if (status == CL_SUCCESS)                                                                      \
      live[kind] += delta;                                                                         \
    return status;                                                                                 \
  }
// An enqueue: a new event when the caller asked for one.
#define ENQUEUE(name, params, args)                                                                \
  __declspec(dllexport) cl_int CL_API_CALL name params {                                           \
    note_call(#name);                                                                              \
    cl_int status = real<decltype(&::name)>(#name) args;                                           \
    if (status == CL_SUCCESS && event != nullptr && *event != nullptr)                             \
      ++live[kEvent];                                                                              \
    return status;                                                                                 \
  }

FORWARD(cl_int, clGetPlatformIDs, (cl_uint n, cl_platform_id *platforms, cl_uint *count),
        (n, platforms, count))
FORWARD(cl_int, clGetPlatformInfo,
        (cl_platform_id p, cl_platform_info what, size_t size, void *value, size_t *size_ret),
        (p, what, size, value, size_ret))
FORWARD(cl_int, clGetDeviceIDs,
        (cl_platform_id p, cl_device_type type, cl_uint n, cl_device_id *devices, cl_uint *count),
        (p, type, n, devices, count))
FORWARD(cl_int, clGetDeviceInfo,
        (cl_device_id d, cl_device_info what, size_t size, void *value, size_t *size_ret),
        (d, what, size, value, size_ret))
FORWARD(cl_int, clFlush, (cl_command_queue queue), (queue))
FORWARD(cl_int, clFinish, (cl_command_queue queue), (queue))
FORWARD(cl_int, clBuildProgram,
        (cl_program program, cl_uint n, const cl_device_id *devices, const char *options,
         void(CL_CALLBACK *notify)(cl_program, void *), void *user_data),
        (program, n, devices, options, notify, user_data))
FORWARD(cl_int, clGetProgramBuildInfo,
        (cl_program program, cl_device_id d, cl_program_build_info what, size_t size, void *value,
         size_t *size_ret),
        (program, d, what, size, value, size_ret))
FORWARD(cl_int, clGetProgramInfo,
        (cl_program program, cl_program_info what, size_t size, void *value, size_t *size_ret),
        (program, what, size, value, size_ret))
FORWARD(cl_int, clGetKernelInfo,
        (cl_kernel kernel, cl_kernel_info what, size_t size, void *value, size_t *size_ret),
        (kernel, what, size, value, size_ret))
FORWARD(cl_int, clGetKernelWorkGroupInfo,
        (cl_kernel kernel, cl_device_id d, cl_kernel_work_group_info what, size_t size, void *value,
         size_t *size_ret),
        (kernel, d, what, size, value, size_ret))
FORWARD(cl_int, clGetKernelArgInfo,
        (cl_kernel kernel, cl_uint index, cl_kernel_arg_info what, size_t size, void *value,
         size_t *size_ret),
        (kernel, index, what, size, value, size_ret))
FORWARD(cl_int, clSetKernelArg, (cl_kernel kernel, cl_uint index, size_t size, const void *value),
        (kernel, index, size, value))
FORWARD(cl_int, clGetEventInfo,
        (cl_event e, cl_event_info what, size_t size, void *value, size_t *size_ret),
        (e, what, size, value, size_ret))
FORWARD(cl_int, clGetEventProfilingInfo,
        (cl_event e, cl_profiling_info what, size_t size, void *value, size_t *size_ret),
        (e, what, size, value, size_ret))
FORWARD(cl_int, clWaitForEvents, (cl_uint n, const cl_event *events), (n, events))

CREATE(cl_context, clCreateContext, kContext,
       (const cl_context_properties *properties, cl_uint n, const cl_device_id *devices,
        void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *user_data,
        cl_int *status),
       (properties, n, devices, notify, user_data, status))
CREATE(cl_command_queue, clCreateCommandQueue, kQueue,
       (cl_context context, cl_device_id d, cl_command_queue_properties properties, cl_int *status),
       (context, d, properties, status))
CREATE(cl_program, clCreateProgramWithSource, kProgram,
       (cl_context context, cl_uint n, const char **strings, const size_t *lengths, cl_int *status),
       (context, n, strings, lengths, status))
CREATE(cl_program, clCreateProgramWithBinary, kProgram,
       (cl_context context, cl_uint n, const cl_device_id *devices, const size_t *lengths,
        const unsigned char **binaries, cl_int *binary_status, cl_int *status),
       (context, n, devices, lengths, binaries, binary_status, status))
CREATE(cl_kernel, clCreateKernel, kKernel, (cl_program program, const char *name, cl_int *status),
       (program, name, status))
CREATE(cl_mem, clCreateBuffer, kMemory,
       (cl_context context, cl_mem_flags flags, size_t size, void *host, cl_int *status),
       (context, flags, size, host, status))

REFERENCE(clReleaseContext, cl_context, kContext, -1)
REFERENCE(clReleaseCommandQueue, cl_command_queue, kQueue, -1)
REFERENCE(clReleaseProgram, cl_program, kProgram, -1)
REFERENCE(clReleaseKernel, cl_kernel, kKernel, -1)
REFERENCE(clReleaseMemObject, cl_mem, kMemory, -1)
REFERENCE(clRetainEvent, cl_event, kEvent, +1)
REFERENCE(clReleaseEvent, cl_event, kEvent, -1)

ENQUEUE(clEnqueueFillBuffer,
        (cl_command_queue queue, cl_mem buffer, const void *pattern, size_t pattern_size,
         size_t offset, size_t size, cl_uint waits, const cl_event *wait_list, cl_event *event),
        (queue, buffer, pattern, pattern_size, offset, size, waits, wait_list, event))
ENQUEUE(clEnqueueWriteBuffer,
        (cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
         const void *data, cl_uint waits, const cl_event *wait_list, cl_event *event),
        (queue, buffer, blocking, offset, size, data, waits, wait_list, event))
ENQUEUE(clEnqueueReadBuffer,
        (cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
         void *data, cl_uint waits, const cl_event *wait_list, cl_event *event),
        (queue, buffer, blocking, offset, size, data, waits, wait_list, event))
ENQUEUE(clEnqueueUnmapMemObject,
        (cl_command_queue queue, cl_mem buffer, void *mapped, cl_uint waits,
         const cl_event *wait_list, cl_event *event),
        (queue, buffer, mapped, waits, wait_list, event))
ENQUEUE(clEnqueueNDRangeKernel,
        (cl_command_queue queue, cl_kernel kernel, cl_uint dimensions, const size_t *offset,
         const size_t *global, const size_t *local, cl_uint waits, const cl_event *wait_list,
         cl_event *event),
        (queue, kernel, dimensions, offset, global, local, waits, wait_list, event))
ENQUEUE(clEnqueueMarkerWithWaitList,
        (cl_command_queue queue, cl_uint waits, const cl_event *wait_list, cl_event *event),
        (queue, waits, wait_list, event))
ENQUEUE(clEnqueueBarrierWithWaitList,
        (cl_command_queue queue, cl_uint waits, const cl_event *wait_list, cl_event *event),
        (queue, waits, wait_list, event))

// A map returns the pointer, not a status: counted like an enqueue all the same.
__declspec(dllexport) void *CL_API_CALL
    clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags,
                       size_t offset, size_t size, cl_uint waits, const cl_event *wait_list,
                       cl_event *event, cl_int *status) {
  note_call("clEnqueueMapBuffer");
  void *mapped = real<decltype(&::clEnqueueMapBuffer)>("clEnqueueMapBuffer")(
      queue, buffer, blocking, flags, offset, size, waits, wait_list, event, status);
  if (mapped != nullptr && event != nullptr && *event != nullptr)
    ++live[kEvent];
  return mapped;
}

} // extern "C"

// mqlcl.dll loads this DLL after it was itself loaded, so at process exit this one is detached
// first, as a driver may be: record what is still alive, then any call that comes after.
extern "C" BOOL WINAPI DllMain(HINSTANCE, DWORD reason, LPVOID reserved) {
  if (reason == DLL_PROCESS_DETACH && reserved != nullptr) {
    std::string line = "live at process exit:";
    for (int kind = 0; kind < kKinds; ++kind)
      line += std::string(" ") + kKindNames[kind] + "=" + std::to_string(live[kind].load());
    append_to_log(line);
    process_exiting.store(true);
  }
  return TRUE;
}
