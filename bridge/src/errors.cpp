#include "errors.hpp"

#include "process_state.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>
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

namespace {

#if defined(_WIN32)
using Slot = DWORD;
constexpr Slot kNoSlot = TLS_OUT_OF_INDEXES;
bool create_slot(Slot &slot, void (*)(void *)) noexcept {
  slot = TlsAlloc(); // DllMain frees a thread's record on DLL_THREAD_DETACH
  return slot != TLS_OUT_OF_INDEXES;
}
void delete_slot(Slot slot) noexcept {
  TlsFree(slot);
}
void *slot_value(Slot slot) noexcept {
  return TlsGetValue(slot);
}
void set_slot_value(Slot slot, void *value) noexcept {
  TlsSetValue(slot, value);
}
#else
using Slot = pthread_key_t;
constexpr Slot kNoSlot = static_cast<Slot>(-1);
bool create_slot(Slot &slot, void (*at_thread_exit)(void *)) noexcept {
  return pthread_key_create(&slot, at_thread_exit) == 0;
}
void delete_slot(Slot slot) noexcept {
  pthread_key_delete(slot); // a key's destructor never runs after this
}
void *slot_value(Slot slot) noexcept {
  return pthread_getspecific(slot);
}
void set_slot_value(Slot slot, void *value) noexcept {
  pthread_setspecific(slot, value);
}
#endif

// Every thread's record, each on the heap behind a native TLS slot (errors.hpp says why not a
// thread_local). The records of threads that outlive the library go when it unloads, with this.
class ThreadRecords {
public:
  ThreadRecords() noexcept {
    if (!create_slot(slot_, &release_at_thread_exit))
      slot_ = kNoSlot;
  }
  ThreadRecords(const ThreadRecords &) = delete;
  ThreadRecords &operator=(const ThreadRecords &) = delete;
  ~ThreadRecords() { release_all(); }

  // This thread's record, created on first use; nullptr when no slot or memory is left.
  LastError *this_thread() noexcept {
    if (slot_ == kNoSlot)
      return nullptr;
    if (auto *record = static_cast<LastError *>(slot_value(slot_)))
      return record;
    try {
      auto record = std::make_unique<LastError>();
      std::lock_guard<std::mutex> lock(mutex_);
      records_.push_back(record.get());
      set_slot_value(slot_, record.get());
      return record.release();
    } catch (...) {
      return nullptr;
    }
  }

  // This thread's record, or nullptr when it has none.
  LastError *existing() noexcept {
    return slot_ == kNoSlot ? nullptr : static_cast<LastError *>(slot_value(slot_));
  }

  void release_this_thread() noexcept {
    if (LastError *record = existing()) {
      set_slot_value(slot_, nullptr);
      forget(record);
    }
  }

private:
  static void release_at_thread_exit(void *record) noexcept;

  // The library unloads: every record goes, and the slot with them.
  void release_all() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot_ != kNoSlot)
      delete_slot(slot_);
    slot_ = kNoSlot;
    for (LastError *record : records_)
      delete record;
    records_.clear();
  }

  void forget(LastError *record) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = std::find(records_.begin(), records_.end(), record);
    if (found != records_.end()) { // else release_all() has freed it already
      records_.erase(found);
      delete record;
    }
  }

  Slot slot_ = kNoSlot;
  std::mutex mutex_;
  std::vector<LastError *> records_;
};

// Made on first use by process_wide (process_state.hpp): at process exit other threads may still
// be reporting errors; the records go at an unload or with the process. nullptr when there is no
// memory to make it: the fallbacks below keep the code and status.
ThreadRecords *thread_records() noexcept {
  try {
    static ThreadRecords &records = process_wide<ThreadRecords>();
    return &records;
  } catch (...) {
    return nullptr;
  }
}

void ThreadRecords::release_at_thread_exit(void *record) noexcept {
  if (ThreadRecords *records = thread_records())
    records->forget(static_cast<LastError *>(record));
}

// Where a thread without a record (no slot or memory left) keeps its code and status: trivially
// destructible, so they never pin the library.
thread_local int32_t fallback_code = 0;
thread_local cl_int fallback_cl_status = CL_SUCCESS;

// The calling thread's record, or nullptr when it has none.
LastError *existing_record() noexcept {
  ThreadRecords *records = thread_records();
  return records != nullptr ? records->existing() : nullptr;
}

} // namespace

int32_t last_error_code() noexcept {
  LastError *record = existing_record();
  return record != nullptr ? record->code : fallback_code;
}

cl_int last_error_cl_status() noexcept {
  LastError *record = existing_record();
  return record != nullptr ? record->cl_status : fallback_cl_status;
}

std::string last_error_message() {
  LastError *record = existing_record();
  if (record != nullptr)
    return record->message;
  return fallback_code != 0 ? "out of memory: the error's description was lost" : "";
}

void reset_last_error() noexcept {
  if (LastError *record = existing_record()) {
    record->code = 0;
    record->cl_status = CL_SUCCESS;
    record->message.clear();
  }
  fallback_code = 0;
  fallback_cl_status = CL_SUCCESS;
}

void record_failure(int32_t code, cl_int cl_status, const char *message) noexcept {
  ThreadRecords *records = thread_records();
  LastError *record = records != nullptr ? records->this_thread() : nullptr;
  if (record == nullptr) {
    fallback_code = code;
    fallback_cl_status = cl_status;
    return;
  }
  record->code = code;
  record->cl_status = cl_status;
  try {
    record->message = message;
  } catch (...) {
    record->message.clear(); // out of memory while reporting: keep the code, drop the text
  }
}

void release_thread_last_error() noexcept {
  if (ThreadRecords *records = thread_records())
    records->release_this_thread();
}

} // namespace mqlcl
