// Buffers. Every transfer is range-checked against the buffer's size and the caller's array
// before OpenCL sees it, so nothing is read or written out of bounds; staging.hpp moves the bytes.
#include "boundary.hpp"
#include "checked_math.hpp"
#include "cl_api.hpp"
#include "device_health.hpp"
#include "objects.hpp"
#include "staging.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <utility>

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

// Validates one transfer; all arithmetic in 64 bits with overflow checks, so nothing wraps.
Transfer check_transfer(const char *function, int32_t buffer_handle, const void *data,
                        uint64_t buffer_offset, uint64_t data_offset, uint64_t data_count,
                        uint32_t element_size) {
  if (data == nullptr)
    fail(MQLCL_ERR_INVALID_PARAMETER, fmt::format("{}: data is NULL", function));
  if (element_size == 0 || data_count == 0)
    fail(MQLCL_ERR_ZEROSIZE_ARRAY, fmt::format("{}: data_count {} of element_size {} is empty",
                                               function, data_count, element_size));
  // Whatever the buffer: no buffer holds 2^64 bytes.
  uint64_t bytes = 0;
  if (!multiply_fits(data_count, element_size, bytes))
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
         fmt::format("{}: {} elements of {} bytes are more than 2^64 - 1 bytes", function,
                     data_count, element_size),
         CL_INVALID_VALUE);
  auto buffer = buffer_of(buffer_handle, function);
  if (buffer_offset >= buffer->size)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET,
         fmt::format("{}: buffer_offset {} is outside the {}-byte buffer", function, buffer_offset,
                     buffer->size),
         CL_INVALID_VALUE);
  if (bytes > buffer->size - buffer_offset)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
         fmt::format("{}: {} elements of {} bytes at offset {} run past the end of the {}-byte "
                     "buffer",
                     function, data_count, element_size, buffer_offset, buffer->size),
         CL_INVALID_VALUE);
  if (!host_range_fits(data, data_offset, bytes, element_size))
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("{}: data_offset {} + data_count {} overflow the address space", function,
                     data_offset, data_count));
  return Transfer{std::move(buffer), static_cast<size_t>(buffer_offset), static_cast<size_t>(bytes),
                  static_cast<size_t>(data_offset * element_size)};
}

// CLBufferCreate and CLBufferCreate64.
int32_t create_buffer(const char *function, int32_t context_handle, uint64_t size, uint32_t flags) {
  if ((flags & ~kKnownFlags) != 0)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("{}: unknown flag bits 0x{:x}", function, flags & ~kKnownFlags));
  uint32_t access = flags & (MQLCL_MEM_READ_WRITE | MQLCL_MEM_WRITE_ONLY | MQLCL_MEM_READ_ONLY);
  if (access != 0 && (access & (access - 1)) != 0)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("{}: READ_WRITE, WRITE_ONLY and READ_ONLY exclude each other", function));
  if (size == 0)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE, fmt::format("{}: size is 0", function),
         CL_INVALID_BUFFER_SIZE);
  auto buffer = std::make_shared<Buffer>();
  buffer->context = context_of(context_handle, function);
  const Device &device = *buffer->context->device;
  if (size > device.max_mem_alloc_size || size > SIZE_MAX)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
         fmt::format("{}: {} bytes exceed the device's largest allocation, {} bytes", function,
                     size, device.max_mem_alloc_size),
         CL_INVALID_BUFFER_SIZE);
  buffer->size = size;
  buffer->flags = access == 0 ? (flags | MQLCL_MEM_READ_WRITE) : flags;
  watching_device(*buffer->context->device, function, [&] {
    const ClApi &cl = cl_api();
    cl_int status = CL_SUCCESS;
    buffer->memory = cl.clCreateBuffer(buffer->context->context, to_cl_flags(buffer->flags),
                                       static_cast<size_t>(size), nullptr, &status);
    check_cl(status, fmt::format("{}: clCreateBuffer", function).c_str(),
             MQLCL_ERR_OPENCL_BUFFER_CREATE);
    // OpenCL leaves new buffers undefined; a trading program should never read stale memory.
    const cl_uchar zero = 0;
    check_cl(cl.clEnqueueFillBuffer(buffer->context->queue, buffer->memory, &zero, sizeof(zero), 0,
                                    static_cast<size_t>(size), 0, nullptr, nullptr),
             fmt::format("{}: clEnqueueFillBuffer", function).c_str(),
             MQLCL_ERR_OPENCL_BUFFER_CREATE);
  });
  return registry().buffers.insert(std::move(buffer));
}

// CLBufferWrite and CLBufferWrite64: data_count, or a Failure.
uint64_t write_buffer(const char *function, int32_t buffer, const void *data,
                      uint64_t buffer_offset, uint64_t data_offset, uint64_t data_count,
                      uint32_t element_size) {
  Transfer transfer =
      check_transfer(function, buffer, data, buffer_offset, data_offset, data_count, element_size);
  Context &context = *transfer.buffer->context;
  cl_mem memory = transfer.buffer->memory;
  const char *source = static_cast<const char *>(data) + transfer.host_offset;
  watching_device(*context.device, function, [&] {
    write_to_device(context, memory, transfer.buffer_offset, transfer.bytes, source, function);
  });
  return data_count;
}

// CLBufferRead and CLBufferRead64: data_count, or a Failure.
uint64_t read_buffer(const char *function, int32_t buffer, void *data, uint64_t buffer_offset,
                     uint64_t data_offset, uint64_t data_count, uint32_t element_size) {
  Transfer transfer =
      check_transfer(function, buffer, data, buffer_offset, data_offset, data_count, element_size);
  Context &context = *transfer.buffer->context;
  cl_mem memory = transfer.buffer->memory;
  char *target = static_cast<char *>(data) + transfer.host_offset;
  watching_device(*context.device, function, [&] {
    read_from_device(context, memory, transfer.buffer_offset, transfer.bytes, target, function);
  });
  return data_count;
}

} // namespace

extern "C" {

MQLCL_API int32_t CLBufferCreate(int32_t context, uint32_t size, uint32_t flags) {
  return guarded(MQLCL_INVALID_HANDLE,
                 [&] { return create_buffer("CLBufferCreate", context, size, flags); });
}

MQLCL_API int32_t CLBufferCreate64(int32_t context, uint64_t size, uint32_t flags) {
  return guarded(MQLCL_INVALID_HANDLE,
                 [&] { return create_buffer("CLBufferCreate64", context, size, flags); });
}

MQLCL_API void CLBufferFree(int32_t buffer) {
  guarded_void([&] {
    if (!registry().buffers.remove(buffer))
      fail_not_live(registry().buffers, buffer, "CLBufferFree", "buffer");
  });
}

MQLCL_API uint32_t CLBufferWrite(int32_t buffer, const void *data, uint32_t buffer_offset,
                                 uint32_t data_offset, uint32_t data_count, uint32_t element_size) {
  return guarded(0u, [&] {
    return static_cast<uint32_t>(write_buffer("CLBufferWrite", buffer, data, buffer_offset,
                                              data_offset, data_count, element_size));
  });
}

MQLCL_API uint64_t CLBufferWrite64(int32_t buffer, const void *data, uint64_t buffer_offset,
                                   uint64_t data_offset, uint64_t data_count,
                                   uint32_t element_size) {
  return guarded(uint64_t{0}, [&] {
    return write_buffer("CLBufferWrite64", buffer, data, buffer_offset, data_offset, data_count,
                        element_size);
  });
}

MQLCL_API uint32_t CLBufferRead(int32_t buffer, void *data, uint32_t buffer_offset,
                                uint32_t data_offset, uint32_t data_count, uint32_t element_size) {
  return guarded(0u, [&] {
    return static_cast<uint32_t>(read_buffer("CLBufferRead", buffer, data, buffer_offset,
                                             data_offset, data_count, element_size));
  });
}

MQLCL_API uint64_t CLBufferRead64(int32_t buffer, void *data, uint64_t buffer_offset,
                                  uint64_t data_offset, uint64_t data_count,
                                  uint32_t element_size) {
  return guarded(uint64_t{0}, [&] {
    return read_buffer("CLBufferRead64", buffer, data, buffer_offset, data_offset, data_count,
                       element_size);
  });
}

} // extern "C"
