// The bytes of CLBufferWrite and CLBufferRead between a program's array and a buffer: through the
// context's pinned staging slots (objects.hpp, Staging) where that pays, else by the driver's own
// transfer. CLMatMul (api_matmul.cpp) routes them over queues of its own, behind events.
#pragma once

#include "objects.hpp"

#include <cstddef>
#include <functional>

namespace mqlcl {

// Where a transfer's DMA runs and what it waits for: the context's queue and nothing, unless
// said. `wait_for(begin, end)` gives the event the DMA of the buffer's bytes [begin, end) waits
// for (nullptr: none); it is asked once per chunk of a staged transfer, once for a direct one.
struct TransferRoute {
  cl_command_queue queue = nullptr;
  std::function<cl_event(size_t begin, size_t end)> wait_for;
  // Where set, a direct (unstaged) write is enqueued without blocking and its event stored here
  // (the caller releases it, and waits for it before the source may change); a staged one stores
  // nullptr. Such a write keeps no record (MQLCL_CL_LAST_TRANSFER): its time is not known yet.
  cl_event *enqueued = nullptr;

  cl_command_queue queue_on(const Context &context) const {
    return queue != nullptr ? queue : context.queue;
  }
};

// Whether a transfer of `bytes` on the context goes through the staging (MQLCL_STAGING: auto,
// on, off; docs/api.md).
bool staging_pays_off(const Context &context, size_t bytes);

// Writes `bytes` from `source` into `memory` at `offset`; returns once `source` may be reused
// (a staged write's last DMA may still run: later commands of its queue run after it), or, a
// direct write with the route's `enqueued` set, once it is enqueued. `function` names the call in
// failures (Failure, with CLBufferWrite's codes). Notes the transfer as the context's last
// (MQLCL_CL_LAST_TRANSFER), but for an enqueued one.
void write_to_device(Context &context, cl_mem memory, size_t offset, size_t bytes,
                     const char *source, const char *function, const TransferRoute &route = {});

// Reads `bytes` of `memory` from `offset` into `target`; returns once they are there, after
// every command enqueued before on the route's queue. As write_to_device otherwise.
void read_from_device(Context &context, cl_mem memory, size_t offset, size_t bytes, char *target,
                      const char *function, const TransferRoute &route = {});

} // namespace mqlcl
