// CLBufferReadStart, CLBufferReadStatus, CLBufferReadTake: a read that does not block, for
// programs that must stay responsive (MetaTrader runs indicators in its interface thread). The
// device copies into memory the bridge owns (objects.hpp, PendingRead), never into the program's
// array, which MQL5 may move or free while the copy runs; the take copies from there.
#include "boundary.hpp"
#include "checked_math.hpp"
#include "cl_api.hpp"
#include "device_health.hpp"
#include "objects.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>

using namespace mqlcl;

namespace {

[[noreturn]] void fail_not_started(const char *function, int32_t buffer) {
  fail(MQLCL_ERR_OPENCL_READ_NOT_STARTED,
       fmt::format("{}: no read of buffer {} is pending (CLBufferReadStart starts one)", function,
                   buffer));
}

// The read's status as CLExecutionStatus reports a launch's: 0-3, or a failure.
int32_t read_status(const PendingRead &read, const char *function) {
  cl_int status = CL_COMPLETE;
  check_cl(cl_api().clGetEventInfo(read.done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                   &status, nullptr),
           fmt::format("{}: clGetEventInfo", function).c_str(), MQLCL_ERR_OPENCL_EXECUTE);
  if (status < 0)
    fail(MQLCL_ERR_OPENCL_EXECUTE,
         fmt::format("{}: the read failed: {} ({}), typically because a kernel before it did",
                     function, cl_error_name(status), status),
         status);
  return static_cast<int32_t>(status);
}

} // namespace

extern "C" {

MQLCL_API int32_t CLBufferReadStart(int32_t buffer_handle, uint32_t buffer_offset, uint32_t size) {
  return guarded(0, [&] {
    auto buffer = buffer_of(buffer_handle, "CLBufferReadStart");
    if (size == 0)
      fail(MQLCL_ERR_ZEROSIZE_ARRAY, "CLBufferReadStart: size is 0");
    if (buffer_offset >= buffer->size)
      fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET,
           fmt::format("CLBufferReadStart: buffer_offset {} is outside the {}-byte buffer",
                       buffer_offset, buffer->size),
           CL_INVALID_VALUE);
    if (uint64_t{buffer_offset} + size > buffer->size)
      fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
           fmt::format("CLBufferReadStart: {} bytes at offset {} run past the end of the {}-byte "
                       "buffer",
                       size, buffer_offset, buffer->size),
           CL_INVALID_VALUE);
    std::lock_guard<std::mutex> lock(buffer->read_mutex);
    if (buffer->pending_read)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("CLBufferReadStart: a read of buffer {} is pending: take it first "
                       "(CLBufferReadTake)",
                       buffer_handle));
    auto read = std::make_unique<PendingRead>();
    read->host = std::make_unique<char[]>(size);
    read->bytes = size;
    read->buffer_offset = buffer_offset;
    watching_device(*buffer->context->device, "CLBufferReadStart", [&] {
      const ClApi &cl = cl_api();
      cl_command_queue queue = buffer->context->queue;
      // In order on the context's queue: the read sees every kernel enqueued before it.
      check_cl(cl.clEnqueueReadBuffer(queue, buffer->memory, CL_FALSE, buffer_offset, size,
                                      read->host.get(), 0, nullptr, &read->done),
               "CLBufferReadStart: clEnqueueReadBuffer", MQLCL_ERR_OPENCL_EXECUTE);
      check_cl(cl.clFlush(queue), "CLBufferReadStart: clFlush", MQLCL_ERR_OPENCL_EXECUTE);
    });
    buffer->pending_read = std::move(read);
    return 1;
  });
}

MQLCL_API int32_t CLBufferReadStatus(int32_t buffer_handle) {
  return guarded(-1, [&] {
    auto buffer = buffer_of(buffer_handle, "CLBufferReadStatus");
    std::lock_guard<std::mutex> lock(buffer->read_mutex);
    if (!buffer->pending_read)
      fail_not_started("CLBufferReadStatus", buffer_handle);
    return watching_device(*buffer->context->device, "CLBufferReadStatus", [&] {
      return read_status(*buffer->pending_read, "CLBufferReadStatus");
    });
  });
}

MQLCL_API uint32_t CLBufferReadTake(int32_t buffer_handle, void *data, uint32_t data_offset,
                                    uint32_t data_count, uint32_t element_size) {
  return guarded(0u, [&] {
    auto buffer = buffer_of(buffer_handle, "CLBufferReadTake");
    if (data == nullptr)
      fail(MQLCL_ERR_INVALID_PARAMETER, "CLBufferReadTake: data is NULL");
    if (element_size == 0 || data_count == 0)
      fail(MQLCL_ERR_ZEROSIZE_ARRAY,
           fmt::format("CLBufferReadTake: data_count {} of element_size {} is empty", data_count,
                       element_size));
    const uint64_t bytes = uint64_t{data_count} * element_size; // two 32-bit factors: no wrap
    if (!host_range_fits(data, data_offset, bytes, element_size))
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("CLBufferReadTake: data_offset {} + data_count {} overflow the address "
                       "space",
                       data_offset, data_count));
    std::unique_ptr<PendingRead> read;
    {
      std::lock_guard<std::mutex> lock(buffer->read_mutex);
      if (!buffer->pending_read)
        fail_not_started("CLBufferReadTake", buffer_handle);
      if (bytes > buffer->pending_read->bytes)
        fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
             fmt::format("CLBufferReadTake: {} bytes asked of a read of {} bytes", bytes,
                         buffer->pending_read->bytes),
             CL_INVALID_VALUE);
      read = std::move(buffer->pending_read); // the read ends here, whatever follows
    }
    watching_device(*buffer->context->device, "CLBufferReadTake", [&] {
      check_cl(cl_api().clWaitForEvents(1, &read->done), "CLBufferReadTake: clWaitForEvents",
               MQLCL_ERR_OPENCL_EXECUTE);
      read_status(*read, "CLBufferReadTake");
    });
    std::memcpy(static_cast<char *>(data) + uint64_t{data_offset} * element_size, read->host.get(),
                static_cast<size_t>(bytes));
    return data_count;
  });
}

} // extern "C"
