#include "objects.hpp"

#include "cl_api.hpp"
#include "device_health.hpp"
#include "errors.hpp"
#include "os_library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <thread>

namespace mqlcl {

namespace {
// Release functions never throw: a failed release has nobody left to report to.
template <class Handle, class Release> void release(Handle handle, Release ClApi::*fn) noexcept {
  if (handle == nullptr || process_is_exiting())
    return;
  try {
    (cl_api().*fn)(handle);
  } catch (...) {
  }
}

// A whole number from the environment within [low, high], else `otherwise`.
size_t setting(const char *name, size_t low, size_t high, size_t otherwise) noexcept {
  try {
    const std::string text = os::environment(name);
    size_t used = 0;
    const unsigned long long value = text.empty() ? 0 : std::stoull(text, &used);
    if (used == text.size() && value >= low && value <= high)
      return static_cast<size_t>(value);
  } catch (...) {
  }
  return otherwise;
}
} // namespace

// The defaults, measured on an H200's host (16 threads; docs/performance.md, "From host arrays to
// host arrays"): 8 lanes took mqlclMatMul's calls at 8192 from 1.57-1.66x the transfer floor on 4
// lanes to 1.18-1.21x; with every lane on every chunk, 4 MiB chunks (a ring of 64 MiB on 8 lanes)
// kept 128 MiB writes from waiting for the copy engine as 2 MiB did, and 1 MiB were slower.
size_t Staging::chunk_bytes() noexcept {
  static const size_t bytes = setting("MQLCL_STAGING_CHUNK_KIB", 64, 65536, 4096) << 10;
  return bytes;
}

size_t Staging::lane_count() noexcept {
  static const size_t lanes = [] {
    const size_t threads = std::max<size_t>(std::thread::hardware_concurrency(), 1);
    return std::min(setting("MQLCL_STAGING_LANES", 1, 64, 8), threads);
  }();
  return lanes;
}

void release_staging_slots(cl_command_queue queue, Staging &staging) noexcept {
  if (process_is_exiting())
    return; // the driver may be gone; the OS takes the pinned memory back
  try {
    const ClApi &cl = cl_api();
    for (StagingSlot &slot : staging.slots)
      if (slot.in_flight != nullptr) {
        cl.clWaitForEvents(1, &slot.in_flight); // its failure, if any, has no call left to fail
        cl.clReleaseEvent(slot.in_flight);
        slot.in_flight = nullptr;
      }
    bool unmapped = false;
    for (StagingSlot &slot : staging.slots)
      if (slot.host != nullptr) {
        cl.clEnqueueUnmapMemObject(queue, slot.memory, slot.host, 0, nullptr, nullptr);
        slot.host = nullptr;
        unmapped = true;
      }
    if (unmapped)
      cl.clFinish(queue); // the unmaps are done before their buffers go
  } catch (...) {
  }
  for (StagingSlot &slot : staging.slots) {
    release(slot.memory, &ClApi::clReleaseMemObject);
    slot.memory = nullptr;
  }
}

cl_command_queue create_queue(const Context &context, const char *function) {
  cl_int status = CL_SUCCESS;
  cl_command_queue queue = cl_api().clCreateCommandQueue(context.context, context.device->id,
                                                         CL_QUEUE_PROFILING_ENABLE, &status);
  check_cl(status, fmt::format("{}: clCreateCommandQueue", function).c_str(),
           MQLCL_ERR_OPENCL_QUEUE_CREATE);
  if (queue == nullptr)
    fail(MQLCL_ERR_OPENCL_QUEUE_CREATE,
         fmt::format("{}: clCreateCommandQueue returned no queue", function));
  return queue;
}

Context::~Context() {
  if (!process_is_exiting()) {
    for (cl_command_queue q : {side_queues.upload, side_queues.download, queue})
      if (q != nullptr) {
        try {
          cl_api().clFinish(q); // commands still queued may use this context's objects
        } catch (...) {
        }
      }
  }
  // Its programs and scratch buffers, before the queue and context they use. The pointer was made
  // by gemm/gemm.cpp, so its deleter knows the type that this file only declares.
  gemm.reset();
  release_staging_slots(queue, staging);
  release(address_probe.kernel, &ClApi::clReleaseKernel);
  release(address_probe.program, &ClApi::clReleaseProgram);
  release(address_probe.result, &ClApi::clReleaseMemObject);
  release(side_queues.upload, &ClApi::clReleaseCommandQueue);
  release(side_queues.download, &ClApi::clReleaseCommandQueue);
  release(queue, &ClApi::clReleaseCommandQueue);
  release(context, &ClApi::clReleaseContext);
  if (device)
    --device->health->contexts; // counted since CLContextCreate chose the device
}

Program::~Program() {
  release(program, &ClApi::clReleaseProgram);
}

PendingRead::~PendingRead() {
  if (done == nullptr)
    return;
  if (process_is_exiting()) { // the device may still copy into `host`: the OS takes it back
    mark_kept(host.release());
    return;
  }
  try {
    cl_api().clWaitForEvents(1, &done); // the device must not write into freed memory
  } catch (...) {
  }
  release(done, &ClApi::clReleaseEvent);
}

Buffer::~Buffer() {
  pending_read.reset(); // before the memory object it reads from
  release(memory, &ClApi::clReleaseMemObject);
}

Kernel::~Kernel() {
  release(last_launch, &ClApi::clReleaseEvent);
  release(kernel, &ClApi::clReleaseKernel);
}

size_t Registry::live_count() const {
  return contexts.live_count() + programs.live_count() + kernels.live_count() +
         buffers.live_count();
}

void Registry::release_all() {
  kernels.take_all();
  buffers.take_all();
  programs.take_all();
  contexts.take_all();
}

Registry::~Registry() {
  try {
    release_all();
  } catch (...) { // out of memory while collecting the objects: the rest go with the tables
  }
}

Registry &registry() {
  static Registry &instance = process_wide<Registry>();
  return instance;
}

namespace {
template <class T>
std::shared_ptr<T> lookup(const HandleTable<T> &table, int32_t handle, const char *function,
                          const char *kind) {
  std::shared_ptr<T> object = table.find(handle);
  if (!object)
    fail_not_live(table, handle, function, kind);
  return object;
}

const Context &context_behind(const Context &context) {
  return context;
}
const Context &context_behind(const Program &program) {
  return *program.context;
}
const Context &context_behind(const Kernel &kernel) {
  return *kernel.program->context;
}
const Context &context_behind(const Buffer &buffer) {
  return *buffer.context;
}

// A live handle of a lost device (device_health.hpp) is refused as such: only its free works.
template <class T>
std::shared_ptr<T> usable(const HandleTable<T> &table, int32_t handle, const char *function,
                          const char *kind) {
  std::shared_ptr<T> object = lookup(table, handle, function, kind);
  check_device_usable(*context_behind(*object).device, function);
  return object;
}
} // namespace

std::shared_ptr<Context> context_of(int32_t handle, const char *function) {
  return usable(registry().contexts, handle, function, "context");
}
std::shared_ptr<Program> program_of(int32_t handle, const char *function) {
  return usable(registry().programs, handle, function, "program");
}
std::shared_ptr<Kernel> kernel_of(int32_t handle, const char *function) {
  return usable(registry().kernels, handle, function, "kernel");
}
std::shared_ptr<Buffer> buffer_of(int32_t handle, const char *function) {
  return usable(registry().buffers, handle, function, "buffer");
}

std::shared_ptr<const Device> device_of(int32_t handle, const char *function) {
  Registry &live = registry();
  switch (HandleBits::type_of(handle)) {
  case MQLCL_OPENCL_CONTEXT:
    if (auto context = live.contexts.find(handle))
      return context->device;
    break;
  case MQLCL_OPENCL_PROGRAM:
    if (auto program = live.programs.find(handle))
      return program->context->device;
    break;
  case MQLCL_OPENCL_KERNEL:
    if (auto kernel = live.kernels.find(handle))
      return kernel->program->context->device;
    break;
  case MQLCL_OPENCL_BUFFER:
    if (auto buffer = live.buffers.find(handle))
      return buffer->context->device;
    break;
  default:
    if (auto device = device_by_ordinal(handle))
      return device;
  }
  if (live.contexts.held_by_another_owner(handle) || live.programs.held_by_another_owner(handle) ||
      live.kernels.held_by_another_owner(handle) || live.buffers.held_by_another_owner(handle))
    fail(MQLCL_ERR_OPENCL_NOT_OWNER,
         fmt::format("{}: {} is a handle of another owner (CLOwnerSelect)", function, handle));
  fail(MQLCL_ERR_OPENCL_INVALID_HANDLE,
       fmt::format("{}: {} is neither a device ordinal nor a live handle", function, handle));
}

} // namespace mqlcl
