// Buffers. Every transfer is range-checked against the buffer's size and the caller's array
// before OpenCL sees it, so nothing is read or written out of bounds.
#include "boundary.hpp"
#include "cl_api.hpp"
#include "objects.hpp"

#include <fmt/format.h>

#include <cstdint>

using namespace mqlcl;

namespace {

constexpr uint32_t kKnownFlags =
    MQLCL_MEM_READ_WRITE | MQLCL_MEM_WRITE_ONLY | MQLCL_MEM_READ_ONLY | MQLCL_MEM_ALLOC_HOST_PTR;

cl_mem_flags to_cl_flags(uint32_t flags) {
  cl_mem_flags result = 0;
  if (flags & MQLCL_MEM_READ_WRITE)
    result |= CL_MEM_READ_WRITE;
  if (flags & MQLCL_MEM_WRITE_ONLY)
    result |= CL_MEM_WRITE_ONLY;
  if (flags & MQLCL_MEM_READ_ONLY)
    result |= CL_MEM_READ_ONLY;
  if (flags & MQLCL_MEM_ALLOC_HOST_PTR)
    result |= CL_MEM_ALLOC_HOST_PTR;
  return result;
}

struct Transfer {
  std::shared_ptr<Buffer> buffer;
  size_t buffer_offset;
  size_t bytes;
  size_t host_offset;
};

// Validates one CLBufferWrite/CLBufferRead call; all arithmetic in 64 bits so nothing wraps.
Transfer check_transfer(const char *function, int32_t buffer_handle, const void *data,
                        uint32_t buffer_offset, uint32_t data_offset, uint32_t data_count,
                        uint32_t element_size) {
  if (data == nullptr)
    fail(MQLCL_ERR_INVALID_PARAMETER, fmt::format("{}: data is NULL", function));
  if (element_size == 0 || data_count == 0)
    fail(MQLCL_ERR_ZEROSIZE_ARRAY, fmt::format("{}: data_count {} of element_size {} is empty",
                                               function, data_count, element_size));
  auto buffer = buffer_of(buffer_handle, function);
  uint64_t bytes = uint64_t{data_count} * element_size;
  uint64_t host_offset = uint64_t{data_offset} * element_size;
  if (buffer_offset >= buffer->size)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET,
         fmt::format("{}: buffer_offset {} is outside the {}-byte buffer", function, buffer_offset,
                     buffer->size),
         CL_INVALID_VALUE);
  if (buffer_offset + bytes > buffer->size)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
         fmt::format("{}: {} bytes at offset {} run past the end of the {}-byte buffer", function,
                     bytes, buffer_offset, buffer->size),
         CL_INVALID_VALUE);
  if (host_offset + bytes > UINTPTR_MAX - reinterpret_cast<uintptr_t>(data))
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("{}: data_offset {} + data_count {} overflow the address space", function,
                     data_offset, data_count));
  return Transfer{std::move(buffer), buffer_offset, static_cast<size_t>(bytes),
                  static_cast<size_t>(host_offset)};
}

} // namespace

extern "C" {

MQLCL_API int32_t CLBufferCreate(int32_t context_handle, uint32_t size, uint32_t flags) {
  return guarded(MQLCL_INVALID_HANDLE, [&] {
    if ((flags & ~kKnownFlags) != 0)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("CLBufferCreate: unknown flag bits 0x{:x}", flags & ~kKnownFlags));
    uint32_t access = flags & (MQLCL_MEM_READ_WRITE | MQLCL_MEM_WRITE_ONLY | MQLCL_MEM_READ_ONLY);
    if (access != 0 && (access & (access - 1)) != 0)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           "CLBufferCreate: READ_WRITE, WRITE_ONLY and READ_ONLY exclude each other");
    if (size == 0)
      fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE, "CLBufferCreate: size is 0", CL_INVALID_BUFFER_SIZE);
    auto buffer = std::make_shared<Buffer>();
    buffer->context = context_of(context_handle, "CLBufferCreate");
    if (size > buffer->context->device->max_mem_alloc_size)
      fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
           fmt::format("CLBufferCreate: {} bytes exceed the device's largest allocation, {} bytes",
                       size, buffer->context->device->max_mem_alloc_size),
           CL_INVALID_BUFFER_SIZE);
    buffer->size = size;
    buffer->flags = access == 0 ? (flags | MQLCL_MEM_READ_WRITE) : flags;
    const ClApi &cl = cl_api();
    cl_int status = CL_SUCCESS;
    buffer->memory = cl.clCreateBuffer(buffer->context->context, to_cl_flags(buffer->flags), size,
                                       nullptr, &status);
    check_cl(status, "CLBufferCreate: clCreateBuffer", MQLCL_ERR_OPENCL_BUFFER_CREATE);
    // OpenCL leaves new buffers undefined; a trading program should never read stale memory.
    const cl_uchar zero = 0;
    check_cl(cl.clEnqueueFillBuffer(buffer->context->queue, buffer->memory, &zero, sizeof(zero), 0,
                                    size, 0, nullptr, nullptr),
             "CLBufferCreate: clEnqueueFillBuffer", MQLCL_ERR_OPENCL_BUFFER_CREATE);
    return registry().buffers.insert(std::move(buffer));
  });
}

MQLCL_API void CLBufferFree(int32_t buffer) {
  guarded_void([&] {
    if (!registry().buffers.remove(buffer))
      fail(MQLCL_ERR_OPENCL_INVALID_HANDLE,
           fmt::format("CLBufferFree: {} is not a live buffer handle", buffer));
  });
}

MQLCL_API uint32_t CLBufferWrite(int32_t buffer, const void *data, uint32_t buffer_offset,
                                 uint32_t data_offset, uint32_t data_count, uint32_t element_size) {
  return guarded(0u, [&] {
    Transfer transfer = check_transfer("CLBufferWrite", buffer, data, buffer_offset, data_offset,
                                       data_count, element_size);
    const Context &context = *transfer.buffer->context;
    check_cl(cl_api().clEnqueueWriteBuffer(context.queue, transfer.buffer->memory, CL_TRUE,
                                           transfer.buffer_offset, transfer.bytes,
                                           static_cast<const char *>(data) + transfer.host_offset,
                                           0, nullptr, nullptr),
             "CLBufferWrite: clEnqueueWriteBuffer", MQLCL_ERR_OPENCL_INTERNAL);
    return data_count;
  });
}

MQLCL_API uint32_t CLBufferRead(int32_t buffer, void *data, uint32_t buffer_offset,
                                uint32_t data_offset, uint32_t data_count, uint32_t element_size) {
  return guarded(0u, [&] {
    Transfer transfer = check_transfer("CLBufferRead", buffer, data, buffer_offset, data_offset,
                                       data_count, element_size);
    const Context &context = *transfer.buffer->context;
    // Blocking on the in-order queue: waits for every kernel enqueued before it, as MQL5 does.
    check_cl(cl_api().clEnqueueReadBuffer(context.queue, transfer.buffer->memory, CL_TRUE,
                                          transfer.buffer_offset, transfer.bytes,
                                          static_cast<char *>(data) + transfer.host_offset, 0,
                                          nullptr, nullptr),
             "CLBufferRead: clEnqueueReadBuffer",
             MQLCL_ERR_OPENCL_EXECUTE); // a failed kernel before it surfaces here
    return data_count;
  });
}

} // extern "C"
