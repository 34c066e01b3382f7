// The library's GEMM: C = alpha * op(A) * op(B) + beta * C on buffer handles, row-major, in a
// strided batch (CLGemm in mqlcl.h; api_gemm.cpp checks the call before it gets here). Operands
// whose K is not contiguous are first copied transposed into scratch buffers of the context;
// the product then runs the planned kernel, built once per shape and kept by the context.
#pragma once

#include "gemm/database.hpp"
#include "objects.hpp"

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mqlcl::gemm {

// An operand as the caller stores it: `rows` x `cols` row-major, rows `ld` elements apart, from
// element `offset`, the batch's matrices `stride` elements apart.
struct Operand {
  std::shared_ptr<Buffer> buffer;
  uint64_t offset = 0;
  uint64_t ld = 0;
  uint64_t stride = 0;
  bool transposed = false;
};

struct Call {
  Operand a, b, c;
  bool double_precision = false;
  uint32_t m = 0, n = 0, k = 0, batch = 1;
  double alpha = 1, beta = 0;
};

// A built program and its one kernel.
struct Built {
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
};

// What a context keeps for its GEMM calls. One call at a time per context (the mutex), so the
// scratch buffers and the kernels' arguments are never shared by two calls in flight on the
// host; the in-order queue orders them on the device.
struct ContextState {
  std::mutex mutex;
  bool overlay_read = false;
  std::vector<TunedEntry> overlay;
  std::map<std::string, Built> programs;  // by kernel file and build options
  std::list<std::string> built_order;     // oldest first, for eviction
  cl_mem scratch[2] = {nullptr, nullptr}; // A's and B's transposed copies
  size_t scratch_bytes[2] = {0, 0};
  cl_event first_launch = nullptr, last_launch = nullptr; // of the last call
  ~ContextState();
};

// Programs kept per context; the least recently used goes when another shape needs room.
constexpr size_t kMaxProgramsPerContext = 32;

// Enqueues the product (and its transposing copies) and flushes; does not wait.
void enqueue(Context &context, const Call &call);

// Nanoseconds from the start of the context's last CLGemm to its end (waits for it).
int64_t last_gemm_nanoseconds(Context &context);

} // namespace mqlcl::gemm
