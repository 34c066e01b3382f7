// Buffers. Every transfer is range-checked against the buffer's size and the caller's array
// before OpenCL sees it, so nothing is read or written out of bounds. Large transfers to a
// discrete GPU pass through the context's pinned staging slots (objects.hpp, Staging).
#include "boundary.hpp"
#include "checked_math.hpp"
#include "cl_api.hpp"
#include "device_health.hpp"
#include "host_copy.hpp"
#include "lane_pool.hpp"
#include "objects.hpp"
#include "os_library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <vector>

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

using Clock = std::chrono::steady_clock;

int64_t nanoseconds_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// ---- Pinned staging -----------------------------------------------------------------------
//
// A staged transfer splits into chunks of one slot each. Chunk c goes to lane c % lanes; each
// lane is a thread of its own with two slots, alternating between them so that its copy of one
// chunk overlaps the DMA of its previous one. Several lanes are needed because the host copy is
// the bottleneck: on the H100's and H200's hosts one thread copies about 10 GB/s, the DMA of
// pinned memory runs at 45-55 GB/s (docs/api.md has the figures).

enum class StagingMode { automatic, on, off };

// MQLCL_STAGING, read once per process: auto (the default: large transfers on discrete GPUs),
// on (every transfer, on any device: lets the tests run the staged path on PoCL) or off.
StagingMode staging_mode() {
  static const StagingMode mode = [] {
    std::string value = os::environment("MQLCL_STAGING");
    if (value == "on" || value == "1")
      return StagingMode::on;
    if (value == "off" || value == "0")
      return StagingMode::off;
    return StagingMode::automatic;
  }();
  return mode;
}

bool staging_pays_off(const Context &context, size_t bytes) {
  switch (staging_mode()) {
  case StagingMode::on:
    return true;
  case StagingMode::off:
    return false;
  case StagingMode::automatic:
    break;
  }
  const Device &device = *context.device;
  return bytes >= Staging::kThresholdBytes && (device.type & CL_DEVICE_TYPE_GPU) != 0 &&
         !device.host_unified_memory;
}

// Creates and maps the slots on first use, with the staging lock held. Any failure leaves the
// context on the direct path for good, instead of failing the user's call.
bool staging_ready(Context &context) {
  Staging &staging = context.staging;
  if (staging.state != Staging::State::untried)
    return staging.state == Staging::State::ready;
  staging.state = Staging::State::unavailable;
  staging.slots.resize(Staging::lane_count() * Staging::kSlotsPerLane);
  staging.first_slot.assign(Staging::lane_count(), 0);
  const ClApi &cl = cl_api();
  for (StagingSlot &slot : staging.slots) {
    cl_int status = CL_SUCCESS;
    slot.memory = cl.clCreateBuffer(context.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE,
                                    Staging::chunk_bytes(), nullptr, &status);
    void *host = nullptr;
    if (status == CL_SUCCESS && slot.memory != nullptr)
      host = cl.clEnqueueMapBuffer(context.queue, slot.memory, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                   0, Staging::chunk_bytes(), 0, nullptr, nullptr, &status);
    if (status != CL_SUCCESS || host == nullptr) {
      release_staging_slots(context.queue, staging);
      staging.slots.clear();
      return false;
    }
    slot.host = static_cast<char *>(host);
  }
  staging.state = Staging::State::ready;
  return true;
}

// The DMA in flight on one lane's slots, one event per slot, kept in the slots themselves. A slot
// may arrive holding the DMA of an earlier write, which returned without waiting for its last
// chunks: it is waited for before the slot is used (its failure fails this call). A lane that
// ends otherwise than by handing its last DMA on leaves no command still using its slots.
class LaneEvents {
public:
  LaneEvents(cl_command_queue queue, StagingSlot *slots) : queue_(queue), slots_(slots) {
    for (size_t index = 0; index < Staging::kSlotsPerLane; ++index)
      earlier_[index] = slots_[index].in_flight != nullptr;
  }
  LaneEvents(const LaneEvents &) = delete;
  LaneEvents &operator=(const LaneEvents &) = delete;
  ~LaneEvents() {
    if (handed_on_)
      return;
    bool unfinished = failed_;
    for (size_t index = 0; index < Staging::kSlotsPerLane; ++index)
      if (pending(index)) {
        unfinished = true;
        finish(index);
      }
    if (unfinished)
      cl_.clFinish(queue_); // a failed wait may leave a transfer running; this one waits it out
  }

  bool pending(size_t index) const { return slots_[index].in_flight != nullptr; }
  // Where the slot's next DMA puts its event; the slot must not be pending.
  cl_event *slot(size_t index) {
    earlier_[index] = false;
    return &slots_[index].in_flight;
  }

  // Waits until the slot's transfer is done; throws Failure(code) naming `call` if it failed.
  void wait(size_t index, const char *call, int32_t code) {
    if (!pending(index))
      return;
    const Clock::time_point start = Clock::now();
    cl_int status = finish(index, !earlier_[index]);
    waited_ns_ += nanoseconds_since(start);
    earlier_[index] = false;
    failed_ = failed_ || status != CL_SUCCESS;
    check_cl(status, call, code);
  }

  // A write that succeeded: its DMA still in flight stays in the slots for the next user of
  // each to wait for. Returns how many of this call's (a slot it did not use may still hold an
  // earlier call's).
  size_t hand_on() {
    handed_on_ = true;
    size_t running = 0;
    for (size_t index = 0; index < Staging::kSlotsPerLane; ++index)
      running += pending(index) && !earlier_[index] ? 1 : 0;
    return running;
  }

  // The time spent in wait(), and the DMA time of this call's transfers it waited for.
  int64_t waited_ns() const { return waited_ns_; }
  int64_t dma_ns() const { return dma_ns_; }

private:
  cl_int finish(size_t index, bool timed = false) {
    cl_event &event = slots_[index].in_flight;
    cl_int status = cl_.clWaitForEvents(1, &event);
    if (timed && status == CL_SUCCESS) {
      try {
        dma_ns_ += profiled_nanoseconds(event, event);
      } catch (const Failure &) { // no counters: the record shows no DMA time
      }
    }
    cl_.clReleaseEvent(event);
    event = nullptr;
    return status;
  }

  const ClApi &cl_ = cl_api();
  cl_command_queue queue_;
  StagingSlot *slots_;                                 // the lane's kSlotsPerLane
  std::array<bool, Staging::kSlotsPerLane> earlier_{}; // holds an earlier call's DMA
  bool failed_ = false, handed_on_ = false;
  int64_t waited_ns_ = 0, dma_ns_ = 0;
};

// One staged call: the device range, its chunks and how they are dealt to the lanes.
struct StagedTransfer {
  Context &context;
  cl_mem memory;
  size_t offset; // in the buffer
  size_t bytes;
  bool read;
  Clock::time_point started = Clock::now();
  size_t chunk_size = Staging::chunk_for(bytes, read);
  size_t chunks = (bytes + chunk_size - 1) / chunk_size;
  // A read's lanes get two chunks or more, so that the copy out of one overlaps the DMA of the
  // other (measured on an H200: 16 MiB read faster on 4 lanes than on 8 with one chunk each). A
  // write does not wait for its last DMA, so its lanes only copy: one chunk each is enough.
  size_t lanes = std::clamp<size_t>(read ? (chunks + 1) / 2 : chunks, 1, Staging::lane_count());
  std::atomic<bool> stop{false}; // a lane failed: the others end early
  // Summed over the lanes, but for the latest lane's start after the call began.
  std::atomic<int64_t> copy_ns{0}, wait_ns{0}, dma_ns{0}, enqueue_ns{0}, last_start_ns{0};
  size_t left_running = 0; // a write's DMA in flight at return
  bool pooled = true;      // false: the lanes ran on threads started for this call

  // Notes when a lane began, before its first copy or enqueue.
  void lane_started() {
    const int64_t since = nanoseconds_since(started);
    int64_t latest = last_start_ns.load();
    while (since > latest && !last_start_ns.compare_exchange_weak(latest, since)) {
    }
  }
  // Adds one lane's times when it ends.
  void account(int64_t lane_copy_ns, int64_t lane_enqueue_ns, const LaneEvents &events) {
    copy_ns += lane_copy_ns;
    enqueue_ns += lane_enqueue_ns;
    wait_ns += events.waited_ns();
    dma_ns += events.dma_ns();
  }

  size_t start_of(size_t chunk) const { return chunk * chunk_size; }
  size_t length_of(size_t chunk) const { return std::min(chunk_size, bytes - start_of(chunk)); }
  StagingSlot &slot(size_t lane, size_t index) const {
    return context.staging.slots[lane * Staging::kSlotsPerLane + index];
  }
};

// lane(0) on the calling thread, the others on threads started for this call and joined before
// returning; a lane whose thread cannot start runs here, after lane 0 (lanes are independent).
void run_on_threads_of_the_call(size_t lanes, const LanePool::Lane &lane) {
  std::vector<os::Thread> helpers;
  std::vector<size_t> without_thread;
  helpers.reserve(lanes); // emplace_back below then throws only if a thread can't start
  without_thread.reserve(lanes);
  for (size_t index = 1; index < lanes; ++index) {
    try {
      helpers.emplace_back([&lane, index] { lane(index); });
    } catch (const std::exception &) { // std::system_error, or no memory for its state
      without_thread.push_back(index);
    }
  }
  lane(0);
  for (size_t index : without_thread)
    lane(index);
  for (os::Thread &helper : helpers)
    helper.join();
}

// Runs lane(0) .. lane(lanes - 1) at once: the first on the calling thread, the others on the
// pool's parked threads (lane_pool.hpp) or, while another call holds the pool, on threads of
// this call's own, joined before returning. The first failure of any lane is rethrown here, once
// every lane has ended.
template <class Lane> void run_lanes(StagedTransfer &transfer, Lane &&lane) {
  std::mutex first_failure_mutex;
  std::exception_ptr first_failure;
  const LanePool::Lane guarded_lane = [&](size_t index) noexcept {
    transfer.lane_started();
    try {
      lane(index);
    } catch (...) {
      transfer.stop.store(true);
      std::lock_guard<std::mutex> lock(first_failure_mutex);
      if (!first_failure)
        first_failure = std::current_exception();
    }
  };
  transfer.pooled = LanePool::instance().run(transfer.lanes, guarded_lane);
  if (!transfer.pooled)
    run_on_threads_of_the_call(transfer.lanes, guarded_lane);
  if (first_failure)
    std::rethrow_exception(first_failure);
}

// Returns once every chunk is in pinned memory and its DMA queued: the caller's array may then be
// reused, and the in-order queue runs every later command of the context after those DMAs. The
// last of them are left running (in the slots, for the next transfer to wait for), so that what
// the program does next (typically the next write's copies) overlaps them.
void staged_write(StagedTransfer &transfer, const char *source) {
  const ClApi &cl = cl_api();
  cl_command_queue queue = transfer.context.queue;
  std::atomic<size_t> left_running{0};
  run_lanes(transfer, [&](size_t lane) {
    LaneEvents events(queue, &transfer.slot(lane, 0));
    size_t &first = transfer.context.staging.first_slot[lane];
    int64_t copy_ns = 0, enqueue_ns = 0;
    size_t turn = 0;
    for (size_t chunk = lane; chunk < transfer.chunks && !transfer.stop.load();
         chunk += transfer.lanes, ++turn) {
      size_t index = (first + turn) % Staging::kSlotsPerLane;
      char *host = transfer.slot(lane, index).host;
      events.wait(index, "CLBufferWrite: clWaitForEvents", MQLCL_ERR_OPENCL_INTERNAL);
      const Clock::time_point copy_start = Clock::now();
      copy_for_staged_write(host, source + transfer.start_of(chunk), transfer.length_of(chunk));
      copy_ns += nanoseconds_since(copy_start);
      const Clock::time_point enqueue_start = Clock::now();
      check_cl(cl.clEnqueueWriteBuffer(
                   queue, transfer.memory, CL_FALSE, transfer.offset + transfer.start_of(chunk),
                   transfer.length_of(chunk), host, 0, nullptr, events.slot(index)),
               "CLBufferWrite: clEnqueueWriteBuffer", MQLCL_ERR_OPENCL_INTERNAL);
      // Starts the DMA now, while this lane copies its next chunk.
      check_cl(cl.clFlush(queue), "CLBufferWrite: clFlush", MQLCL_ERR_OPENCL_INTERNAL);
      enqueue_ns += nanoseconds_since(enqueue_start);
    }
    first = (first + turn) % Staging::kSlotsPerLane; // the slot filled longest ago comes first
    transfer.account(copy_ns, enqueue_ns, events);
    if (!transfer.stop.load())
      left_running += events.hand_on();
  });
  transfer.left_running = left_running.load();
}

void staged_read(StagedTransfer &transfer, char *target) {
  const ClApi &cl = cl_api();
  cl_command_queue queue = transfer.context.queue;
  run_lanes(transfer, [&](size_t lane) {
    LaneEvents events(queue, &transfer.slot(lane, 0));
    int64_t copy_ns = 0, enqueue_ns = 0;
    std::array<size_t, Staging::kSlotsPerLane> chunk_in{}; // the chunk each slot receives
    size_t next = lane;
    auto enqueue_next = [&](size_t index) {
      const Clock::time_point enqueue_start = Clock::now();
      check_cl(cl.clEnqueueReadBuffer(queue, transfer.memory, CL_FALSE,
                                      transfer.offset + transfer.start_of(next),
                                      transfer.length_of(next), transfer.slot(lane, index).host, 0,
                                      nullptr, events.slot(index)),
               "CLBufferRead: clEnqueueReadBuffer", MQLCL_ERR_OPENCL_EXECUTE);
      check_cl(cl.clFlush(queue), "CLBufferRead: clFlush", MQLCL_ERR_OPENCL_EXECUTE);
      enqueue_ns += nanoseconds_since(enqueue_start);
      chunk_in[index] = next;
      next += transfer.lanes;
    };
    // An earlier write's DMA still in the slots: it runs before this read's on the in-order
    // queue anyway, so waiting for it first costs nothing.
    for (size_t index = 0; index < Staging::kSlotsPerLane; ++index)
      events.wait(index, "CLBufferRead: clWaitForEvents", MQLCL_ERR_OPENCL_EXECUTE);
    for (size_t index = 0; index < Staging::kSlotsPerLane && next < transfer.chunks; ++index)
      enqueue_next(index);
    // Slots fill in turn, so the slot whose turn it is holds the oldest read, if any is left.
    for (size_t turn = 0; !transfer.stop.load(); ++turn) {
      size_t index = turn % Staging::kSlotsPerLane;
      if (!events.pending(index))
        break;
      // The in-order queue runs the read after every command before it: a failed kernel shows
      // here.
      events.wait(index, "CLBufferRead: clWaitForEvents", MQLCL_ERR_OPENCL_EXECUTE);
      size_t chunk = chunk_in[index];
      const Clock::time_point copy_start = Clock::now();
      copy_for_staged_read(target + transfer.start_of(chunk), transfer.slot(lane, index).host,
                           transfer.length_of(chunk));
      copy_ns += nanoseconds_since(copy_start);
      if (next < transfer.chunks)
        enqueue_next(index);
    }
    transfer.account(copy_ns, enqueue_ns, events);
  });
}

// Runs `body` on the context's slots, under the staging lock, and notes its lanes and times in
// `record`; false when the call is to go direct instead.
template <class Body>
bool staged(Context &context, cl_mem memory, size_t offset, size_t bytes, TransferRecord &record,
            Body &&body) {
  if (!staging_pays_off(context, bytes))
    return false;
  std::lock_guard<std::mutex> lock(context.staging.mutex);
  if (!staging_ready(context))
    return false;
  StagedTransfer transfer{context, memory, offset, bytes, record.read};
  body(transfer);
  record.staged = true;
  record.lanes = transfer.lanes;
  record.chunks = transfer.chunks;
  record.copy_ns = transfer.copy_ns;
  record.wait_ns = transfer.wait_ns;
  record.dma_ns = transfer.dma_ns;
  record.left_running = transfer.left_running;
  record.enqueue_ns = transfer.enqueue_ns;
  record.last_start_ns = transfer.last_start_ns;
  record.own_threads = !transfer.pooled;
  return true;
}

// A transfer that completed, as the context's last (MQLCL_CL_LAST_TRANSFER).
void keep_record(Context &context, TransferRecord record, Clock::time_point start) {
  record.done = true;
  record.call_ns = nanoseconds_since(start);
  std::lock_guard<std::mutex> lock(context.transfer_mutex);
  context.last_transfer = record;
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
  const Clock::time_point start = Clock::now();
  TransferRecord record;
  record.bytes = transfer.bytes;
  watching_device(*context.device, function, [&] {
    if (staged(context, memory, transfer.buffer_offset, transfer.bytes, record,
               [&](StagedTransfer &staged) { staged_write(staged, source); }))
      return;
    check_cl(cl_api().clEnqueueWriteBuffer(context.queue, memory, CL_TRUE, transfer.buffer_offset,
                                           transfer.bytes, source, 0, nullptr, nullptr),
             fmt::format("{}: clEnqueueWriteBuffer", function).c_str(), MQLCL_ERR_OPENCL_INTERNAL);
  });
  keep_record(context, record, start);
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
  const Clock::time_point start = Clock::now();
  TransferRecord record;
  record.read = true;
  record.bytes = transfer.bytes;
  watching_device(*context.device, function, [&] {
    if (staged(context, memory, transfer.buffer_offset, transfer.bytes, record,
               [&](StagedTransfer &staged) { staged_read(staged, target); }))
      return;
    // Blocking on the in-order queue: waits for every kernel enqueued before it, as MQL5 does.
    check_cl(cl_api().clEnqueueReadBuffer(context.queue, memory, CL_TRUE, transfer.buffer_offset,
                                          transfer.bytes, target, 0, nullptr, nullptr),
             fmt::format("{}: clEnqueueReadBuffer", function).c_str(),
             MQLCL_ERR_OPENCL_EXECUTE); // a failed kernel before it surfaces here
  });
  keep_record(context, record, start);
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
