// The objects behind the four handle types. Each owns its OpenCL object and releases it when the
// last reference goes; children hold their parents, as OpenCL's retain counts do, so freeing a
// parent handle while children live only retires the handle (see docs/api.md, "Lifetimes").
#pragma once

#include "devices.hpp"
#include "handle_table.hpp"
#include "opencl.hpp"
#include "process_state.hpp"

#include <fmt/format.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mqlcl {

namespace gemm {
struct ContextState; // gemm/gemm.hpp
}
namespace program_cache {
struct KernelArgs; // program_cache.hpp
}

// Pinned host memory for large CLBufferWrite/CLBufferRead calls (staging.cpp). Each slot is a
// CL_MEM_ALLOC_HOST_PTR buffer mapped once for the context's life: its pointer, handed to an
// ordinary clEnqueueWriteBuffer/clEnqueueReadBuffer as the host side, lets a discrete GPU's DMA
// engine run at full speed, where a pageable array costs the driver a slower bounce of its own.
struct StagingSlot {
  cl_mem memory = nullptr;
  char *host = nullptr; // mapped until the context goes
  // The DMA a write queued from this slot and returned without waiting for; whoever uses the
  // slot next waits for it first.
  cl_event in_flight = nullptr;
};

struct Staging {
  enum class State { untried, ready, unavailable };
  // Slots per lane: while the lanes fill (or drain) one round of slots, the DMA engine works
  // through the other.
  static constexpr size_t kSlotsPerLane = 2;
  // Smaller transfers go direct (under MQLCL_STAGING=auto): measured on an H100, staging gains
  // nothing at 2 MiB, little at 4 MiB and doubles the speed from 16 MiB on.
  static constexpr size_t kThresholdBytes = size_t{4} << 20;
  // One chunk of a transfer, the size of a slot: MQLCL_STAGING_CHUNK_KIB, else the default;
  // read once per process.
  static size_t chunk_bytes() noexcept;
  // Threads copying at once in one transfer: MQLCL_STAGING_LANES, else the default, at most the
  // hardware threads; read once per process.
  static size_t lane_count() noexcept;

  std::mutex mutex; // one staged transfer per context at a time; guards everything below
  State state = State::untried;
  std::vector<StagingSlot> slots; // kSlotsPerLane per lane, a ring, once ready
  size_t next_slot = 0;           // where the next transfer starts: the slot filled longest ago
};

// Where a context's last CLBufferWrite or CLBufferRead spent its time (MQLCL_CL_LAST_TRANSFER).
struct TransferRecord {
  bool done = false; // a transfer has completed on the context
  bool read = false, staged = false;
  uint64_t bytes = 0;
  size_t lanes = 0, chunks = 0; // staged
  size_t left_running = 0;      // a staged write's chunks still copying to the device at return
  int64_t call_ns = 0;          // the whole transfer, on the calling thread's clock
  // Staged: the lanes' host copies and their waits for the copy engine, summed over the lanes,
  // and the DMA of the chunks waited for, by their profiling events, summed (the engine runs
  // them one at a time).
  int64_t copy_ns = 0, wait_ns = 0, dma_ns = 0;
  // Staged: the lanes' enqueues and flushes, summed; when the last lane began, after the call.
  int64_t enqueue_ns = 0, last_start_ns = 0;
  // Staged: the lanes ran on threads started for the call, because another transfer held the
  // parked ones or one of them could not start (lane_pool.hpp); and how many lanes then ran on
  // the calling thread, after its own, because their threads could not start either.
  bool own_threads = false;
  size_t lanes_on_caller = 0;
};

// A one-line kernel that reports where a buffer lives in device memory, for tensor maps
// (api_tensor_map.cpp); built by the context's first CLBufferTensorMap.
struct AddressProbe {
  std::mutex mutex; // guards everything below, the kernel's arguments included
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem result = nullptr; // the address, 8 bytes
};

// Two more in-order queues of a context, for CLMatMul (api_matmul.cpp): its writes run on one and
// its reads on the other while its product's kernels run on the context's queue, each behind the
// events it needs. Made by the context's first CLMatMul that stages its transfers.
struct SideQueues {
  std::mutex mutex; // one CLMatMul on them at a time; guards the queues
  cl_command_queue upload = nullptr, download = nullptr;
};

struct Context {
  std::shared_ptr<const Device> device;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr; // in order, profiling enabled
  SideQueues side_queues;
  Staging staging;           // set up by the first staged transfer
  std::mutex transfer_mutex; // guards the record below
  TransferRecord last_transfer;
  AddressProbe address_probe;
  std::mutex gemm_mutex;                    // guards the pointer below, set by the first CLGemm
  std::shared_ptr<gemm::ContextState> gemm; // its programs, scratch buffers and last launch
  ~Context();
};

// A new in-order queue with profiling on the context's device (its own queue, CLMatMul's side
// queues); a failure (5104) names `function`.
cl_command_queue create_queue(const Context &context, const char *function);

// Releases the slots' DMA still in flight, unmaps and releases the slots that exist (after the
// queue is idle) and empties them. Used by ~Context and by a set-up that failed half-way.
void release_staging_slots(cl_command_queue queue, Staging &staging) noexcept;

struct Program {
  std::shared_ptr<Context> context;
  cl_program program = nullptr;
  std::string build_options; // the bridge's and the user's, as given (-mqlcl-nv-sm90a too)
  std::string build_log;
  bool from_cache = false; // built from the program cache's binary (program_cache.hpp)
  // With a cached build: what the source build's driver said of each kernel's arguments, for
  // drivers that cannot tell after a binary build.
  std::shared_ptr<const program_cache::KernelArgs> cached_args;
  ~Program();
};

// A non-blocking read (CLBufferReadStart): the device copies into `host`, memory of the bridge's
// own, so that the program's array may move or go meanwhile; CLBufferReadTake copies it out.
struct PendingRead {
  std::unique_ptr<char[]> host;
  size_t bytes = 0; // of `host`
  cl_event done = nullptr;
  uint32_t buffer_offset = 0;
  // Waits for the copy before `host` goes; at exit, when it cannot wait, keeps `host`.
  ~PendingRead();
};

struct Buffer {
  std::shared_ptr<Context> context;
  cl_mem memory = nullptr;
  uint64_t size = 0; // bytes: below 4 GiB unless made by CLBufferCreate64
  uint32_t flags = 0;
  std::mutex read_mutex;                     // guards the pointer below
  std::unique_ptr<PendingRead> pending_read; // at most one at a time
  ~Buffer();
};

// What clGetKernelArgInfo says of an argument (the bridge always builds with
// -cl-kernel-arg-info), so a raw value is never passed where OpenCL expects an object. Unknown
// where the driver cannot tell, as after -mqlcl-nv-sm90a's build from PTX.
enum class ArgKind { Value, GlobalBuffer, Local, Unsupported, Unknown };

struct Kernel {
  std::shared_ptr<Program> program;
  cl_kernel kernel = nullptr;
  std::string name;
  size_t work_group_size = 0; // CL_KERNEL_WORK_GROUP_SIZE on the context's device
  std::vector<ArgKind> arg_kinds;
  std::vector<std::string> arg_type_names;
  // Bytes a by-value argument takes (arg_types.hpp); 0 where the type's size is not known.
  std::vector<size_t> arg_value_sizes;

  // Mutable state, guarded by `mutex` (clSetKernelArg is not thread-safe per kernel).
  std::mutex mutex;
  std::vector<bool> arg_set;
  std::vector<std::shared_ptr<Buffer>> bound_buffers; // keeps bound cl_mem alive
  cl_event last_launch = nullptr;
  ~Kernel();
};

// All live handles of the process.
struct Registry {
  HandleTable<Context> contexts{MQLCL_OPENCL_CONTEXT};
  HandleTable<Program> programs{MQLCL_OPENCL_PROGRAM};
  HandleTable<Kernel> kernels{MQLCL_OPENCL_KERNEL};
  HandleTable<Buffer> buffers{MQLCL_OPENCL_BUFFER};

  size_t live_count() const;
  void release_all(); // children first, so parents go with their last child
  ~Registry();        // at an unload: release_all()
};

// Made on first use by process_wide (process_state.hpp): destroyed only at an unload.
Registry &registry();

// Throws the failure for a handle `table` did not give the calling thread:
// MQLCL_ERR_OPENCL_NOT_OWNER when another owner holds it, else ERR_OPENCL_INVALID_HANDLE; the
// message names `function`.
template <class T>
[[noreturn]] void fail_not_live(const HandleTable<T> &table, int32_t handle, const char *function,
                                const char *kind) {
  if (table.held_by_another_owner(handle))
    fail(MQLCL_ERR_OPENCL_NOT_OWNER,
         fmt::format("{}: {} is a {} handle of another owner (CLOwnerSelect)", function, handle,
                     kind));
  fail(MQLCL_ERR_OPENCL_INVALID_HANDLE,
       fmt::format("{}: {} is not a live {} handle", function, handle, kind));
}

// Lookups that throw Failure(ERR_OPENCL_INVALID_HANDLE, or MQLCL_ERR_OPENCL_NOT_OWNER for another
// owner's handle) with a message naming `function`.
std::shared_ptr<Context> context_of(int32_t handle, const char *function);
std::shared_ptr<Program> program_of(int32_t handle, const char *function);
std::shared_ptr<Kernel> kernel_of(int32_t handle, const char *function);
std::shared_ptr<Buffer> buffer_of(int32_t handle, const char *function);

// The device behind a device ordinal or any live handle; throws ERR_OPENCL_INVALID_HANDLE.
std::shared_ptr<const Device> device_of(int32_t ordinal_or_handle, const char *function);

} // namespace mqlcl
