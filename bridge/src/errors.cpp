#include "errors.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#if defined(_WIN32)
#include <windows.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>
#endif

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

#if defined(_WIN32)
namespace {
// Windows keeps each thread's record on the heap behind a native TLS slot, not in a C++
// thread_local: MinGW's runtime keeps a DLL loaded while a thread that constructed a
// thread_local with a destructor lives, and runs that destructor as the thread exits; if the DLL
// was FreeLibrary'd in between (MetaTrader unloading a program's DLLs while its thread lives
// on), that thread's exit deadlocks (docs/windows.md). DllMain frees a thread's record on
// DLL_THREAD_DETACH; the records of threads that outlive the DLL go when it unloads.
class ThreadRecords {
public:
  ThreadRecords() noexcept : slot_(TlsAlloc()) {}
  ~ThreadRecords() {
    for (LastError *record : records_)
      delete record;
    if (slot_ != TLS_OUT_OF_INDEXES)
      TlsFree(slot_);
    slot_ = TLS_OUT_OF_INDEXES;
  }
  ThreadRecords(const ThreadRecords &) = delete;
  ThreadRecords &operator=(const ThreadRecords &) = delete;

  // This thread's record, created on first use; nullptr when no slot or memory is left.
  LastError *this_thread() noexcept {
    if (slot_ == TLS_OUT_OF_INDEXES)
      return nullptr;
    if (auto *record = static_cast<LastError *>(TlsGetValue(slot_)))
      return record;
    try {
      auto record = std::make_unique<LastError>();
      std::lock_guard<std::mutex> lock(mutex_);
      records_.push_back(record.get());
      TlsSetValue(slot_, record.get());
      return record.release();
    } catch (...) {
      return nullptr;
    }
  }

  void release_this_thread() noexcept {
    if (slot_ == TLS_OUT_OF_INDEXES)
      return;
    auto *record = static_cast<LastError *>(TlsGetValue(slot_));
    if (record == nullptr)
      return;
    TlsSetValue(slot_, nullptr);
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      records_.erase(std::find(records_.begin(), records_.end(), record));
      delete record;
    } catch (...) {
    }
  }

private:
  DWORD slot_;
  std::mutex mutex_;
  std::vector<LastError *> records_;
};

// A namespace-scope object: built before, and so destroyed after, any function-local static
// (the Registry) whose destructor might still record an error.
ThreadRecords thread_records;
} // namespace

void release_thread_last_error() noexcept {
  thread_records.release_this_thread();
}
#else
void release_thread_last_error() noexcept {}
#endif

LastError &last_error() noexcept {
#if defined(_WIN32)
  if (LastError *record = thread_records.this_thread())
    return *record;
#endif
  thread_local LastError error; // on Windows only when no TLS slot or memory was left
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
