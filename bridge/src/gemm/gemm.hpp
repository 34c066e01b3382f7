// The library's GEMM: C = alpha * op(A) * op(B) + beta * C on buffer handles, row-major, in a
// strided batch (CLGemm in mqlcl.h; api_gemm.cpp checks the call before it gets here). Operands
// whose K is not contiguous are first copied transposed into scratch buffers of the context;
// the product then runs the planned kernel, built once per shape and kept by the context.
#pragma once

#include "gemm/tuning_file.hpp"
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

// What the caller asked of the arithmetic (MQLCL_GEMM_EXACT ... _FASTEST).
enum class Precision { exact, accurate, tf32, fastest };

struct Call {
  Operand a, b, c;
  bool double_precision = false;
  Precision precision = Precision::exact;
  uint32_t m = 0, n = 0, k = 0, batch = 1;
  double alpha = 1, beta = 0;
  bool index64 = false; // the kernels index in 64 bits (needs_index64)
};

// The kernels' 32-bit form computes lines, k, leading dimensions and small multiples of them
// (3 * ld, a line plus a tile) in ints: exact while every size and leading dimension is below
// kIndex64From. From there, or under MQLCL_GEMM_INDEX64=1 (tests, measurements), a call builds
// the kernels' 64-bit form (INDEX64), which costs the small products their speed.
constexpr uint64_t kIndex64From = uint64_t{1} << 29;
bool needs_index64(const Call &call);

// Whether `device` runs the tensor-core products (TF32 and 3xTF32 on Hopper's wgmma, through
// tensor maps): an NVIDIA GPU of compute capability 9.0. Whether its driver builds them is known
// only once one is built.
bool offers_tensor_cores(const Device &device);

// A built program and the kernels created from it, by name.
struct Built {
  cl_program program = nullptr;
  std::map<std::string, cl_kernel> kernels;
};

// The context's scratch buffers: copies of A and B the products read in place of the caller's
// (transposed or padded), the tiles the tensor-core products' passes lay out (B's for 3xTF32,
// A's and B's without tensor maps), the whole-tile block's aligned copies of A and B (edges.hpp),
// and the Ozaki scheme's lines' statistics, sampled lines, residues, the product's residue planes,
// its values and their largest elements (ozaki.hpp).
enum class ScratchSlot {
  a,
  b,
  b_tiles,
  a_tiles,
  ozaki_stats_a,
  ozaki_stats_b,
  ozaki_residues_a,
  ozaki_residues_b,
  ozaki_planes,
  ozaki_values,
  ozaki_largest,
  ozaki_samples,
  a_block,
  b_block
};
constexpr size_t kScratchSlots = 14;

// Tensor maps written once for a product's operands and kept: `memory` holds the batch's maps.
// An entry of the caller's buffers is good while they live (`owners`); scratch buffers bump
// their generation when they grow, which changes the key.
struct KeptMaps {
  std::vector<std::weak_ptr<Buffer>> owners; // the caller's buffers the maps point into
  cl_mem memory = nullptr;
};
constexpr size_t kMaxKeptMaps = 32;

// What a context keeps for its GEMM calls. One call at a time per context (the mutex), so the
// scratch buffers and the kernels' arguments are never shared by two calls in flight on the
// host; the in-order queue orders them on the device.
struct ContextState {
  std::mutex mutex;
  bool overlay_read = false;
  std::vector<TunedEntry> overlay;
  std::map<std::string, Built> programs; // by kernel file and build options
  std::list<std::string> built_order;    // oldest first, for eviction
  cl_mem scratch[kScratchSlots] = {};
  size_t scratch_bytes[kScratchSlots] = {};
  uint64_t scratch_generation[kScratchSlots] = {};
  std::map<std::string, KeptMaps> maps; // by operands and map shapes
  std::list<std::string> maps_order;    // oldest first, for eviction
  // Whether this context's tensor-core products built (unknown until the first is tried).
  enum class TensorCores { untried, built, unavailable } tensor_cores = TensorCores::untried;
  // Whether its FP64 tensor-core product (step 19) built; unavailable: double runs step 13's.
  TensorCores fp64_tensor_cores = TensorCores::untried;
  // Whether its copy-engine form (TMA 1, built for sm_90a) built; unavailable: the work-items
  // copy step 19's tiles.
  TensorCores fp64_maps = TensorCores::untried;
  // Whether the Ozaki scheme's INT8 tensor-core forms built (wgmma; mma.sync); unavailable: it
  // runs the next (mma.sync; the portable one).
  TensorCores int8_wgmma = TensorCores::untried;
  TensorCores int8_tensor_cores = TensorCores::untried;
  // Why the CUDA driver wrote no tensor map for this context's device, once it refused one: its
  // products then lay their tiles out by passes (tensor_cores.hpp).
  std::string maps_refused;
  // Every launch of the last call, in order: its event and its kernel's name (CL_GEMM_PASSES; the
  // first's start and the last's end, CL_GEMM_EXECUTION_TIME).
  struct Pass {
    cl_event event;
    std::string kernel;
  };
  std::vector<Pass> passes;
  // A second in-order queue on which the Ozaki scheme reads its statistics back (ozaki.cpp), so
  // that its residues need not wait for the reads on the context's queue; made by the first call
  // that reads, null where the driver would not make one (the context's queue reads then).
  cl_command_queue ozaki_reads = nullptr;
  bool ozaki_reads_tried = false;
  std::string last_plan; // the last call's kernel, parameters and their origin (planner.hpp)
  // The Ozaki scheme's digits of this context's last calls (ozaki.cpp): where the calls of one
  // shape took the same digits twice running, the next begins its integer products with them
  // before its own are chosen.
  struct OzakiRecent {
    uint32_t m = 0, n = 0, k = 0, batch = 0;
    bool double_precision = false;
    int bits_a = 0, bits_b = 0;
    unsigned count = 0, calls = 0; // calls: how many running took these digits
  } ozaki_recent;
  ~ContextState();
};

// Programs kept per context; the least recently used goes when another shape needs room.
constexpr size_t kMaxProgramsPerContext = 32;

// Enqueues the product (and its transposing copies) and flushes; does not wait. With
// `continues_last`, its launches join the context's last call's (CL_GEMM_PASSES and
// CL_GEMM_EXECUTION_TIME then cover both): CLMatMul's panels.
void enqueue(Context &context, const Call &call, bool continues_last = false);

// The kernel, parameters and their origin that the context's last CLGemm ran (CL_GEMM_PLAN).
std::string last_gemm_plan(Context &context);

// Each launch of the context's last CLGemm, "kernel 0.123 ms; ..." (waits for it; CL_GEMM_PASSES).
std::string last_gemm_passes(Context &context);

// Nanoseconds from the start of the context's last CLGemm to its end (waits for it).
int64_t last_gemm_nanoseconds(Context &context);

} // namespace mqlcl::gemm
