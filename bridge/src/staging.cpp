// Staged and direct transfers (staging.hpp).
#include "staging.hpp"

#include "checked_math.hpp"
#include "cl_api.hpp"
#include "errors.hpp"
#include "host_copy.hpp"
#include "lane_pool.hpp"
#include "os_library.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace mqlcl {

namespace {

using Clock = std::chrono::steady_clock;

int64_t nanoseconds_since(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// ---- Pinned staging -----------------------------------------------------------------------
//
// A staged transfer passes through the context's pinned slots (a ring of them) in chunks of one
// slot each, copied by several lanes at once, each a thread taking the chunks' pieces in order as
// it comes free: the host copy is the bottleneck, one thread copies about 10 GB/s on the H100's
// and H200's hosts while the DMA of pinned memory runs at 45-55 GB/s (docs/api.md has the
// figures). The ring lets the copies of one chunk overlap the DMA of those before it.

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

// The route's event for the bytes [begin, end): a list of one or none.
struct WaitList {
  WaitList(const TransferRoute &route, size_t begin, size_t end)
      : event(route.wait_for ? route.wait_for(begin, end) : nullptr) {}
  cl_event event;
  cl_uint count() const { return event != nullptr ? 1 : 0; }
  const cl_event *list() const { return event != nullptr ? &event : nullptr; }
};

} // namespace

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

namespace {

// Creates and maps the slots on first use, with the staging lock held. Any failure leaves the
// context on the direct path for good, instead of failing the user's call.
bool staging_ready(Context &context) {
  Staging &staging = context.staging;
  if (staging.state != Staging::State::untried)
    return staging.state == Staging::State::ready;
  staging.state = Staging::State::unavailable;
  staging.slots.resize(Staging::lane_count() * Staging::kSlotsPerLane);
  staging.next_slot = 0;
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

// One staged call: the device range, its chunks on the context's ring of slots, and what its
// lanes share. Chunk c passes through slot (first + c) % slots. Each chunk is cut in pieces,
// and the lanes take the transfer's pieces in order, each lane its next as soon as it is free,
// so the chunks fill in order and no chunk waits for one lane: a lane that wakes late, or copies
// slowly, takes fewer pieces (with a fixed slice of every chunk per lane, the call waited for the
// slowest). The lane that finishes a chunk's last piece enqueues its DMA (a write) or the DMA of
// the chunk that next uses its slot (a read). Each slot keeps the event of its last DMA; whoever
// uses the slot next waits for it first.
struct StagedTransfer {
  StagedTransfer(Context &context_, cl_mem memory_, size_t offset_, size_t bytes_, bool read_,
                 const TransferRoute &route_)
      : context(context_), memory(memory_), offset(offset_), bytes(bytes_), read(read_),
        route(route_) {}
  StagedTransfer(const StagedTransfer &) = delete;
  StagedTransfer &operator=(const StagedTransfer &) = delete;

  // Pieces per lane in a chunk: enough that a lane which wakes late or copies slowly leaves its
  // share to the others, few enough that taking one (an atomic add) costs nothing beside its copy
  // (128 KiB of a 4 MiB chunk on 8 lanes).
  static constexpr size_t kPiecesPerLane = 4;

  Context &context;
  cl_mem memory;
  size_t offset; // in the buffer
  size_t bytes;
  bool read;
  const TransferRoute &route;
  cl_command_queue queue = route.queue_on(context);
  Clock::time_point started = Clock::now();
  const ClApi &cl = cl_api();
  size_t chunk_size = Staging::chunk_bytes();
  size_t chunks = (bytes + chunk_size - 1) / chunk_size;
  size_t slots = context.staging.slots.size();
  size_t first = context.staging.next_slot;
  size_t lanes = Staging::lane_count();
  // A piece: a few per lane in each chunk, in whole pages; a whole chunk has pieces_per_chunk,
  // the last chunk as many as its bytes need.
  size_t piece =
      ((chunk_size + kPiecesPerLane * lanes - 1) / (kPiecesPerLane * lanes) + 4095) / 4096 * 4096;
  size_t pieces_per_chunk = (chunk_size + piece - 1) / piece;
  size_t pieces =
      chunks == 0 ? 0
                  : (chunks - 1) * pieces_per_chunk + (length_of(chunks - 1) + piece - 1) / piece;
  std::atomic<size_t> next_piece{0}; // the next piece a free lane takes
  std::atomic<bool> stop{false};     // a lane failed: the others end early
  // Per slot: the pieces of its current chunk done; this call's chunks enqueued through it.
  std::unique_ptr<std::atomic<size_t>[]> pieces_done =
      std::make_unique<std::atomic<size_t>[]>(slots);
  std::vector<size_t> enqueued = std::vector<size_t>(slots, 0);
  // Per slot: this call's chunks for which it was found ready (slot_ready).
  std::vector<size_t> ready = std::vector<size_t>(slots, 0);
  std::mutex enqueued_mutex; // guards `enqueued` and `ready`
  std::condition_variable enqueued_more;
  // Summed over the lanes, but for the latest lane's start after the call began.
  std::atomic<int64_t> copy_ns{0}, wait_ns{0}, dma_ns{0}, enqueue_ns{0}, last_start_ns{0};
  size_t left_running = 0;    // a write's DMA in flight at return
  bool pooled = true;         // false: the lanes ran on threads started for this call
  size_t lanes_on_caller = 0; // lanes that ran on the calling thread: no thread could start

  size_t slot_index(size_t chunk) const { return (first + chunk) % slots; }
  StagingSlot &slot_of(size_t chunk) { return context.staging.slots[slot_index(chunk)]; }
  size_t start_of(size_t chunk) const { return chunk * chunk_size; }
  size_t length_of(size_t chunk) const { return std::min(chunk_size, bytes - start_of(chunk)); }
  size_t pieces_of(size_t chunk) const {
    return chunk + 1 < chunks ? pieces_per_chunk : pieces - chunk * pieces_per_chunk;
  }
  // The piece's bytes in its chunk, from the chunk's start: [begin, end).
  std::pair<size_t, size_t> bytes_of(size_t piece_index) const {
    const size_t chunk = piece_index / pieces_per_chunk, length = length_of(chunk);
    const size_t begin = piece_index % pieces_per_chunk * piece;
    return {begin, std::min(begin + piece, length)};
  }
  // The next piece for a free lane; `pieces` or more when none is left, or after halt().
  size_t take_piece() { return stop.load() ? pieces : next_piece.fetch_add(1); }

  // Notes when a lane began, before its first copy or enqueue.
  void lane_started() {
    const int64_t since = nanoseconds_since(started);
    int64_t latest = last_start_ns.load();
    while (since > latest && !last_start_ns.compare_exchange_weak(latest, since)) {
    }
  }
  // A lane failed: the others stop at their next piece, or now if waiting for a slot.
  void halt() {
    std::lock_guard<std::mutex> lock(enqueued_mutex);
    stop.store(true);
    enqueued_more.notify_all();
  }
  // Waits until `count` of this call's chunks are enqueued through the slot; false on halt().
  bool wait_enqueued(size_t index, size_t count) {
    std::unique_lock<std::mutex> lock(enqueued_mutex);
    enqueued_more.wait(lock, [&] { return stop.load() || enqueued[index] >= count; });
    return !stop.load();
  }
  // Before a lane copies the piece: its chunk's slot is ready, its chunks before this one in this
  // call (`enqueued_before` of them) enqueued and the DMA whose event it holds done. The lane that
  // took the chunk's first piece waits for that DMA, once per chunk (so the waits are as many
  // whichever lanes take the pieces); the others wait for it to say so. False on halt().
  bool slot_ready(size_t piece_index, size_t enqueued_before, const char *call, int32_t code,
                  int64_t &lane_wait_ns) {
    const size_t chunk = piece_index / pieces_per_chunk, index = slot_index(chunk);
    const size_t round = chunk / slots;
    if (piece_index % pieces_per_chunk != 0) {
      const Clock::time_point start = Clock::now();
      std::unique_lock<std::mutex> lock(enqueued_mutex);
      enqueued_more.wait(lock, [&] { return stop.load() || ready[index] > round; });
      lane_wait_ns += nanoseconds_since(start);
      return !stop.load();
    }
    if (!wait_enqueued(index, enqueued_before))
      return false;
    wait_for(slot_of(chunk), call, code, lane_wait_ns);
    std::lock_guard<std::mutex> lock(enqueued_mutex);
    ready[index] = round + 1;
    enqueued_more.notify_all();
    return true;
  }
  // True for the lane that finished the chunk's last piece.
  bool finished_last(size_t chunk) {
    std::atomic<size_t> &done = pieces_done[slot_index(chunk)];
    if (done.fetch_add(1) + 1 < pieces_of(chunk))
      return false;
    done.store(0); // no lane touches the slot again before its next chunk is enqueued
    return true;
  }
  // Waits for the DMA whose event the slot holds, leaving the event there.
  void wait_for(StagingSlot &slot, const char *call, int32_t code, int64_t &lane_wait_ns) {
    if (slot.in_flight == nullptr)
      return;
    const Clock::time_point start = Clock::now();
    const cl_int status = cl.clWaitForEvents(1, &slot.in_flight);
    lane_wait_ns += nanoseconds_since(start);
    check_cl(status, call, code);
  }
  // Releases the slot's event, its DMA time counted when it was this call's.
  void release_event(StagingSlot &slot, bool this_calls) {
    if (slot.in_flight == nullptr)
      return;
    if (this_calls) {
      try {
        dma_ns += profiled_nanoseconds(slot.in_flight, slot.in_flight);
      } catch (const Failure &) { // no counters: the record shows no DMA time
      }
    }
    cl.clReleaseEvent(slot.in_flight);
    slot.in_flight = nullptr;
  }
  // Enqueues the chunk's DMA through its slot, which keeps the event, and starts it now; after
  // the route's event for it, if any.
  void enqueue(size_t chunk, int64_t &lane_enqueue_ns, bool flush = true) {
    StagingSlot &slot = slot_of(chunk);
    const Clock::time_point start = Clock::now();
    const size_t begin = offset + start_of(chunk), length = length_of(chunk);
    const WaitList after(route, begin, begin + length);
    if (read)
      check_cl(cl.clEnqueueReadBuffer(queue, memory, CL_FALSE, begin, length, slot.host,
                                      after.count(), after.list(), &slot.in_flight),
               "CLBufferRead: clEnqueueReadBuffer", MQLCL_ERR_OPENCL_EXECUTE);
    else
      check_cl(cl.clEnqueueWriteBuffer(queue, memory, CL_FALSE, begin, length, slot.host,
                                       after.count(), after.list(), &slot.in_flight),
               "CLBufferWrite: clEnqueueWriteBuffer", MQLCL_ERR_OPENCL_INTERNAL);
    if (flush)
      check_cl(cl.clFlush(queue), read ? "CLBufferRead: clFlush" : "CLBufferWrite: clFlush",
               read ? MQLCL_ERR_OPENCL_EXECUTE : MQLCL_ERR_OPENCL_INTERNAL);
    lane_enqueue_ns += nanoseconds_since(start);
    std::lock_guard<std::mutex> lock(enqueued_mutex);
    ++enqueued[slot_index(chunk)];
    enqueued_more.notify_all();
  }
  // Adds one lane's times when it ends.
  void account(int64_t lane_copy_ns, int64_t lane_wait_ns, int64_t lane_enqueue_ns) {
    copy_ns += lane_copy_ns;
    wait_ns += lane_wait_ns;
    enqueue_ns += lane_enqueue_ns;
  }
  // After a failure: no DMA of this call or an earlier one is left using a slot, and no failed
  // event is left for the next transfer to trip over.
  void settle_slots() noexcept {
    for (StagingSlot &slot : context.staging.slots)
      if (slot.in_flight != nullptr) {
        cl.clWaitForEvents(1, &slot.in_flight);
        cl.clReleaseEvent(slot.in_flight);
        slot.in_flight = nullptr;
      }
    cl.clFinish(queue); // a failed wait may leave a transfer running; this one waits
  }
};

// lane(0) on the calling thread, the others on threads started for this call and joined before
// returning; a lane whose thread cannot start runs here, after lane 0 (a lane takes pieces while
// any is left, so lane 0 alone completes the transfer). Returns how many lanes ran so.
size_t run_on_threads_of_the_call(size_t lanes, const LanePool::Lane &lane) {
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
  return without_thread.size();
}

// Runs lane(0) .. lane(lanes - 1) at once: the first on the calling thread, the others on the
// pool's parked threads (lane_pool.hpp) or, while another call holds the pool, on threads of
// this call's own, joined before returning. The first failure of any lane halts the others and
// is rethrown here, once every lane has ended; no DMA is then left using a slot.
template <class Lane> void run_lanes(StagedTransfer &transfer, Lane &&lane) {
  std::mutex first_failure_mutex;
  std::exception_ptr first_failure;
  const LanePool::Lane guarded_lane = [&](size_t index) noexcept {
    transfer.lane_started();
    try {
      lane(index);
    } catch (...) {
      transfer.halt();
      std::lock_guard<std::mutex> lock(first_failure_mutex);
      if (!first_failure)
        first_failure = std::current_exception();
    }
  };
  transfer.pooled = LanePool::instance().run(transfer.lanes, guarded_lane);
  if (!transfer.pooled)
    transfer.lanes_on_caller = run_on_threads_of_the_call(transfer.lanes, guarded_lane);
  if (first_failure) {
    transfer.settle_slots();
    std::rethrow_exception(first_failure);
  }
}

// This call's chunks whose DMA has not ended yet: the last ones, one per slot at most.
size_t still_running(StagedTransfer &transfer) {
  size_t running = 0;
  for (size_t chunk = transfer.chunks - std::min(transfer.chunks, transfer.slots);
       chunk < transfer.chunks; ++chunk) {
    cl_int status = CL_COMPLETE;
    cl_event event = transfer.slot_of(chunk).in_flight;
    if (event != nullptr &&
        transfer.cl.clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                   &status, nullptr) == CL_SUCCESS &&
        status > CL_COMPLETE)
      ++running;
  }
  return running;
}

// Returns once every chunk is in pinned memory and its DMA queued: the caller's array may then be
// reused, and the in-order queue runs every later command of the context after those DMAs. The
// last of them are left running (their events in the slots, for the next user to wait for), so
// that what the program does next (typically the next write's copies) overlaps them.
void staged_write(StagedTransfer &transfer, const char *source) {
  run_lanes(transfer, [&](size_t) {
    int64_t copy_ns = 0, wait_ns = 0, enqueue_ns = 0;
    size_t ready_chunk = SIZE_MAX; // the chunk whose slot this lane last found free
    for (size_t piece; (piece = transfer.take_piece()) < transfer.pieces;) {
      const size_t chunk = piece / transfer.pieces_per_chunk;
      StagingSlot &slot = transfer.slot_of(chunk);
      // The slot's chunk before this one (this call's, if any) is enqueued and its DMA done,
      // or an earlier write's.
      if (chunk != ready_chunk) {
        if (!transfer.slot_ready(piece, chunk / transfer.slots, "CLBufferWrite: clWaitForEvents",
                                 MQLCL_ERR_OPENCL_INTERNAL, wait_ns))
          return;
        ready_chunk = chunk;
      }
      const auto [begin, end] = transfer.bytes_of(piece);
      const Clock::time_point copy_start = Clock::now();
      copy_for_staged_write(slot.host + begin, source + transfer.start_of(chunk) + begin,
                            end - begin);
      copy_ns += nanoseconds_since(copy_start);
      if (transfer.finished_last(chunk)) {
        transfer.release_event(slot, chunk >= transfer.slots);
        transfer.enqueue(chunk, enqueue_ns);
      }
    }
    transfer.account(copy_ns, wait_ns, enqueue_ns);
  });
  transfer.left_running = still_running(transfer);
}

// Returns once every chunk's DMA has ended and its bytes are in the caller's array. The caller
// enqueues the first chunks, one per slot, before the lanes start; then each chunk's last lane
// enqueues the chunk that next uses its slot.
void staged_read(StagedTransfer &transfer, char *target) {
  int64_t first_enqueues_ns = 0, first_waits_ns = 0;
  try {
    // An earlier write's DMA still in the slots: it runs before this read's on the in-order
    // queue anyway, so waiting for it first costs nothing.
    for (StagingSlot &slot : transfer.context.staging.slots) {
      transfer.wait_for(slot, "CLBufferRead: clWaitForEvents", MQLCL_ERR_OPENCL_EXECUTE,
                        first_waits_ns);
      transfer.release_event(slot, false);
    }
    const size_t first_round = std::min(transfer.chunks, transfer.slots);
    for (size_t chunk = 0; chunk < first_round; ++chunk)
      transfer.enqueue(chunk, first_enqueues_ns, chunk == 0 || chunk + 1 == first_round);
  } catch (...) {
    transfer.settle_slots();
    throw;
  }
  transfer.account(0, first_waits_ns, first_enqueues_ns);
  run_lanes(transfer, [&](size_t) {
    int64_t copy_ns = 0, wait_ns = 0, enqueue_ns = 0;
    size_t landed_chunk = SIZE_MAX; // the chunk this lane last saw land
    for (size_t piece; (piece = transfer.take_piece()) < transfer.pieces;) {
      const size_t chunk = piece / transfer.pieces_per_chunk;
      StagingSlot &slot = transfer.slot_of(chunk);
      // The chunk is enqueued and landed. The in-order queue runs the read after every command
      // before it: a failed kernel shows here.
      if (chunk != landed_chunk) {
        if (!transfer.slot_ready(piece, chunk / transfer.slots + 1, "CLBufferRead: clWaitForEvents",
                                 MQLCL_ERR_OPENCL_EXECUTE, wait_ns))
          return;
        landed_chunk = chunk;
      }
      const auto [begin, end] = transfer.bytes_of(piece);
      const Clock::time_point copy_start = Clock::now();
      copy_for_staged_read(target + transfer.start_of(chunk) + begin, slot.host + begin,
                           end - begin);
      copy_ns += nanoseconds_since(copy_start);
      if (transfer.finished_last(chunk)) {
        transfer.release_event(slot, true);
        if (chunk + transfer.slots < transfer.chunks)
          transfer.enqueue(chunk + transfer.slots, enqueue_ns);
      }
    }
    transfer.account(copy_ns, wait_ns, enqueue_ns);
  });
}

// Runs `body` on the context's slots, under the staging lock, and notes its lanes and times in
// `record`; false when the call is to go direct instead.
template <class Body>
bool staged(Context &context, cl_mem memory, size_t offset, size_t bytes, TransferRecord &record,
            const TransferRoute &route, Body &&body) {
  if (!staging_pays_off(context, bytes))
    return false;
  std::lock_guard<std::mutex> lock(context.staging.mutex);
  if (!staging_ready(context))
    return false;
  StagedTransfer transfer(context, memory, offset, bytes, record.read, route);
  body(transfer);
  context.staging.next_slot = (transfer.first + transfer.chunks) % transfer.slots;
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
  record.lanes_on_caller = transfer.lanes_on_caller;
  return true;
}

// A transfer that completed, as the context's last (MQLCL_CL_LAST_TRANSFER).
void keep_record(Context &context, TransferRecord record, Clock::time_point start) {
  record.done = true;
  record.call_ns = nanoseconds_since(start);
  std::lock_guard<std::mutex> lock(context.transfer_mutex);
  context.last_transfer = record;
}

} // namespace

void write_to_device(Context &context, cl_mem memory, size_t offset, size_t bytes,
                     const char *source, const char *function, const TransferRoute &route) {
  const Clock::time_point start = Clock::now();
  TransferRecord record;
  record.bytes = bytes;
  if (route.enqueued != nullptr)
    *route.enqueued = nullptr;
  if (!staged(context, memory, offset, bytes, record, route,
              [&](StagedTransfer &staged) { staged_write(staged, source); })) {
    const WaitList after(route, offset, offset + bytes);
    const cl_command_queue queue = route.queue_on(context);
    const bool blocking = route.enqueued == nullptr;
    check_cl(cl_api().clEnqueueWriteBuffer(queue, memory, blocking ? CL_TRUE : CL_FALSE, offset,
                                           bytes, source, after.count(), after.list(),
                                           route.enqueued),
             fmt::format("{}: clEnqueueWriteBuffer", function).c_str(), MQLCL_ERR_OPENCL_INTERNAL);
    if (!blocking) {
      cl_api().clFlush(queue); // so that it starts beside whatever runs on other queues
      return;
    }
  }
  keep_record(context, record, start);
}

void read_from_device(Context &context, cl_mem memory, size_t offset, size_t bytes, char *target,
                      const char *function, const TransferRoute &route) {
  const Clock::time_point start = Clock::now();
  TransferRecord record;
  record.read = true;
  record.bytes = bytes;
  if (!staged(context, memory, offset, bytes, record, route,
              [&](StagedTransfer &staged) { staged_read(staged, target); })) {
    // Blocking on an in-order queue: waits for every command enqueued before it, as MQL5 does.
    const WaitList after(route, offset, offset + bytes);
    check_cl(cl_api().clEnqueueReadBuffer(route.queue_on(context), memory, CL_TRUE, offset, bytes,
                                          target, after.count(), after.list(), nullptr),
             fmt::format("{}: clEnqueueReadBuffer", function).c_str(),
             MQLCL_ERR_OPENCL_EXECUTE); // a failed kernel before it surfaces here
  }
  keep_record(context, record, start);
}

} // namespace mqlcl
