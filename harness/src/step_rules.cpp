#include "step_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace mqlcl::replay {

namespace {

// Whether a tile configuration can build and run on `device`: the kernels of steps 12-18 declare
// their tiles as __local arrays, which may take more than __local arguments (DeviceCaps).
bool fits(const Params &p, const DeviceCaps &device, uint64_t local_bytes, uint64_t threads) {
  return threads >= 32 && threads % 32 == 0 && threads <= device.max_work_group_size &&
         threads <= device.max_work_item_sizes[0] && local_bytes <= device.kernel_local_mem_bytes &&
         param_or(p, "BM", 0) > 0;
}

bool register_tiles_valid(const Params &p, const DeviceCaps &device, uint64_t buffers) {
  int64_t bm = param_or(p, "BM", 0), bn = param_or(p, "BN", 0), bk = param_or(p, "BK", 0);
  int64_t tm = param_or(p, "TM", 0), tn = param_or(p, "TN", 0), pad = param_or(p, "PAD", 4);
  int64_t rows = param_or(p, "WARP_ROWS", 0); // step 13's warp shape; step 12 has none
  // PAD keeps every local row 16-byte aligned for the float4 accesses: a multiple of 4.
  if (bm <= 0 || bn <= 0 || bk <= 0 || tm <= 0 || tn <= 0 || bm % tm || bn % tn || tm % 4 ||
      tn % 4 || bk % 4 || pad < 0 || pad % 4)
    return false;
  int64_t threads_m = bm / tm, threads_n = bn / tn, threads = threads_m * threads_n;
  if ((bm * bk / 4) % threads || (bn * bk / 4) % threads)
    return false;
  if (rows != 0 && (rows > 32 || 32 % rows || threads_n % (32 / rows) || threads_m % rows))
    return false;
  uint64_t local = static_cast<uint64_t>(buffers * bk * (bm + pad + bn + pad) * 4);
  return fits(p, device, local, static_cast<uint64_t>(threads));
}

} // namespace

bool single_buffered_valid(const Params &p, const DeviceCaps &device) {
  return register_tiles_valid(p, device, 1);
}

bool warp_tiles_valid(const Params &p, const DeviceCaps &device) {
  int64_t bm = param_or(p, "BM", 0), bn = param_or(p, "BN", 0), bk = param_or(p, "BK", 0);
  int64_t wm = param_or(p, "WM", 0), wn = param_or(p, "WN", 0), stages = param_or(p, "STAGES", 2);
  if (bm <= 0 || bn <= 0 || bk <= 0 || wm <= 0 || wn <= 0 || bm % wm || bn % wn || wm % 16 ||
      wn % 16 || bk % 8 || stages < 2 || stages > 4)
    return false;
  if (param_or(p, "FLUSH", 1) < 1) // matr_mul_tf32.cl always sums slices apart (wgmma's need not)
    return false;
  int64_t threads = (bm / wm) * (bn / wn) * 32;
  if ((bm * bk / 4) % threads || (bn * bk / 4) % threads)
    return false;
  uint64_t local = static_cast<uint64_t>(stages * (bm + bn) * bk * 4);
  return fits(p, device, local, static_cast<uint64_t>(threads));
}

// The wgmma kernel's rules (kernels/matr_mul_wgmma_tf32.cl): whole warpgroups, the wgmma's N, a
// swizzle for the slice depth, at most 4 slices copied ahead, square tiles for 3xTF32 (MODE 3),
// and the local memory it declares.
bool warpgroup_tiles_valid(const Params &p, const DeviceCaps &device) {
  int64_t bm = param_or(p, "BM", 0), bn = param_or(p, "BN", 0), bk = param_or(p, "BK", 0);
  int64_t stages = param_or(p, "STAGES", 3), inflight = param_or(p, "INFLIGHT", 0);
  int64_t mode = param_or(p, "MODE", 1), ahead = stages - 1 - inflight;
  int64_t parts = param_or(p, "PARTS", 0);
  if (param_or(p, "TILED", 0) != 0 || param_or(p, "A_REGS", 0) != 0 ||
      param_or(p, "TMA", 0) != 0) // steps 17 and 18's alone
    return false;
  if (bm <= 0 || bm % 64 || (bn != 64 && bn != 128 && bn != 256) ||
      (bk != 8 && bk != 16 && bk != 32) || inflight < 0 || inflight > 1 ||
      (mode != 1 && inflight != 0) || ahead < 1 || ahead > 4)
    return false;
  // Operands rounded beforehand (PARTS 1) are a form of plain TF32, in place of ROUND.
  if (parts < 0 || parts > 1 || (parts == 1 && (mode != 1 || param_or(p, "ROUND", 0) != 0)))
    return false;
  if (mode == 3 && (bm != bn || bm * (bn + 1) > stages * (bm + bn) * bk))
    return false; // C^T's block goes through the stages' local memory at the end
  int64_t threads = bm * 2;
  if ((bm * bk / 4) % threads || (bn * bk / 4) % threads)
    return false;
  uint64_t slices = static_cast<uint64_t>(stages + (mode == 2 ? 1 : 0)); // + the split slice
  return fits(p, device, slices * static_cast<uint64_t>((bm + bn) * bk * 4),
              static_cast<uint64_t>(threads));
}

namespace {

// Steps 17 and 18 share one product (BULK in the kernel): whole warpgroups, the wgmma's N, at
// least `min_stages` stages of (BM + BN) rows of BK floats in local memory with an mbarrier each,
// and INFLIGHT 0 or 1, below STAGES.
// b_floats: floats of B's tile per value of K and line (2 where B holds heads and tails).
bool bulk_product_valid(const Params &p, const DeviceCaps &device, int64_t min_stages,
                        int64_t b_floats = 1) {
  int64_t bm = param_or(p, "BM", 0), bn = param_or(p, "BN", 0), bk = param_or(p, "BK", 0);
  int64_t stages = param_or(p, "STAGES", 0), inflight = param_or(p, "INFLIGHT", 0);
  if (bm <= 0 || bm % 64 || (bn != 64 && bn != 128 && bn != 256) || stages < min_stages ||
      inflight < 0 || inflight > 1 || inflight >= stages)
    return false;
  uint64_t local_bytes = static_cast<uint64_t>(stages * ((bm + b_floats * bn) * bk * 4 + 8));
  return fits(p, device, local_bytes, static_cast<uint64_t>(bm * 2));
}

} // namespace

// Step 17 (TILED 1): 64-byte tile rows, two stages or more; MODE 3 keeps two accumulators of
// BN / 2 floats per work-item, so BN = 256 would need more than 255 registers.
bool tiled_tiles_valid(const Params &p, const DeviceCaps &device) {
  int64_t bn = param_or(p, "BN", 0), mode = param_or(p, "MODE", 0), parts = param_or(p, "PARTS", 0);
  if (param_or(p, "TILED", 0) != 1 || param_or(p, "TMA", 0) != 0 || param_or(p, "BK", 0) != 16 ||
      param_or(p, "ROUND", 0) != 0)
    return false;
  if (!(mode == 1 && parts == 1) &&
      !(mode == 3 && parts == 2 && bn <= 128 && param_or(p, "FLUSH", 0) >= 1))
    return false;
  // A's fragments in registers (A_REGS): 3xTF32 only, with nothing in flight.
  int64_t a_regs = param_or(p, "A_REGS", 0);
  if (a_regs < 0 || a_regs > 1 || (a_regs == 1 && (mode != 3 || param_or(p, "INFLIGHT", 0) != 0)))
    return false;
  return bulk_product_valid(p, device, 2);
}

gemm::DeviceLimits limits_of(const DeviceCaps &device) {
  gemm::DeviceLimits limits;
  limits.kernel_local_bytes = device.kernel_local_mem_bytes;
  limits.max_work_group_size = device.max_work_group_size;
  limits.max_work_item_size0 = device.max_work_item_sizes[0];
  limits.compute_units = device.compute_units;
  limits.dedicated_local_memory = device.dedicated_local_memory;
  limits.fp64_tensor_cores =
      gemm::fp64_tensor_cores_of(device.vendor_id, device.compute_capability);
  limits.int8_tensor_cores =
      gemm::int8_tensor_cores_of(device.vendor_id, device.compute_capability);
  limits.int8_wgmma = gemm::wgmma_of(device.vendor_id, device.compute_capability);
  return limits;
}

std::vector<std::string> size_problems(const Step &step, const Sizes &sizes, size_t element_size) {
  std::vector<std::string> problems;
  for (Dim dim : {Dim::rows1, Dim::colsrows, Dim::cols2})
    if (size_of(sizes, dim) == 0)
      problems.push_back(fmt::format("{} is 0", dim_name(dim)));
  if (!problems.empty())
    return problems;
  if (step.square_only && (sizes.rows1 != sizes.colsrows || sizes.colsrows != sizes.cols2))
    problems.push_back(fmt::format("it multiplies square matrices only; ROWS1 = {}, COLSROWS = "
                                   "{}, COLS2 = {} (use --size N)",
                                   sizes.rows1, sizes.colsrows, sizes.cols2));
  for (const Constraint &constraint : step.constraints) {
    uint32_t value = size_of(sizes, constraint.dim);
    uint32_t multiple = constraint.multiple_of;
    if (value % multiple != 0) {
      uint32_t below = value / multiple * multiple;
      std::string nearest =
          below == 0 ? std::to_string(multiple) : fmt::format("{} or {}", below, below + multiple);
      problems.push_back(fmt::format("{} must be a multiple of {} ({}); {} = {} is not (nearest: "
                                     "{})",
                                     dim_name(constraint.dim), multiple, constraint.reason,
                                     dim_name(constraint.dim), value, nearest));
    }
  }
  // Buffer sizes are uint32 bytes in MQL5's API (CLBufferCreate), which also keeps the kernels'
  // int indexing from overflowing.
  Sizes padded = padded_sizes(step, sizes);
  struct Matrix {
    const char *name;
    uint64_t rows, cols;
  };
  for (const Matrix &m : {Matrix{"first (ROWS1 x COLSROWS)", padded.rows1, padded.colsrows},
                          Matrix{"second (COLSROWS x COLS2)", padded.colsrows, padded.cols2},
                          Matrix{"product (ROWS1 x COLS2)", padded.rows1, padded.cols2}}) {
    uint64_t bytes = m.rows * m.cols * element_size;
    if (bytes > std::numeric_limits<uint32_t>::max())
      problems.push_back(fmt::format("the {} matrix needs {} bytes; MQL5's CLBufferCreate takes "
                                     "at most 4 GiB - 1",
                                     m.name, bytes));
  }
  return problems;
}

bool device_meets(Requirement requirement, const DeviceCaps &device) {
  switch (requirement) {
  case Requirement::nvidia_tensor_cores:
    return device.vendor_id == 0x10DE && device.compute_capability >= 80;
  case Requirement::nvidia_wgmma:
    return device.vendor_id == 0x10DE && device.compute_capability == 90;
  case Requirement::nvidia_tensor_maps:
    return device.vendor_id == 0x10DE && device.compute_capability == 90 &&
           device.tensor_maps_missing.empty();
  case Requirement::nvidia_fp64_mma:
    return gemm::fp64_tensor_cores_of(device.vendor_id, device.compute_capability);
  case Requirement::none:
    break;
  }
  return true;
}

namespace {

using Problem = std::optional<std::string>;

// The article's private-array steps are 1-D over ROWS1, and a CPU device runs a work-group on
// one thread: a group whose rows overflow that thread's stack kills the process.
Problem private_row_problem(const Step &step, const Sizes &padded, const DeviceCaps &device,
                            size_t element_size, const std::vector<uint32_t> &requested_local) {
  if (!step.private_row || device.cpu_group_stack_bytes <= kCpuStackReserve)
    return std::nullopt;
  const uint64_t row_bytes = uint64_t{padded.colsrows} * element_size;
  const uint64_t room = device.cpu_group_stack_bytes - kCpuStackReserve;
  const bool chosen = requested_local.empty();
  const uint64_t group = chosen ? cpu_runtime_group_size(padded.rows1, device) : requested_local[0];
  if (group * row_bytes <= room)
    return std::nullopt;
  uint32_t fits = 1;
  for (uint32_t d = 1; d <= padded.rows1 && d * row_bytes <= room; ++d)
    if (padded.rows1 % d == 0)
      fits = d;
  return fmt::format(
      "its private rowbuf[COLSROWS] takes {} bytes per work-item, so a work-group of {} "
      "work-items{} needs {:.1f} MiB; a CPU device runs a work-group on one thread, whose "
      "stack is {:.1f} MiB {}, and overflowing it kills the process: give --local {} (or "
      "less){}",
      row_bytes, group, chosen ? " (the runtime's choice)" : "",
      static_cast<double>(group * row_bytes) / (1 << 20),
      static_cast<double>(device.cpu_group_stack_bytes) / (1 << 20),
      device.cpu_group_stack_assumed ? "as assumed here (the OS does not say)" : "here (ulimit -s)",
      fits, device.cpu_group_stack_assumed ? "" : ", or raise ulimit -s");
}

// Tensor cores through inline PTX: NVIDIA GPUs of the right generation only.
Problem requirement_problem(const Step &step, const DeviceCaps &device) {
  if (device_meets(step.requirement, device))
    return std::nullopt;
  switch (step.requirement) {
  case Requirement::nvidia_tensor_cores:
    return "it runs on NVIDIA tensor cores (mma.sync with TF32, through inline PTX that only "
           "NVIDIA's OpenCL compiler accepts) and needs an NVIDIA GPU of compute capability 8.0 or "
           "later; this device is not one, so nothing was run. matr_mul_double_buffered and "
           "matr_mul_tuned compute the same product in FP32 on any device";
  case Requirement::nvidia_wgmma:
    return "it runs on NVIDIA tensor cores through Hopper's wgmma (inline PTX for sm_90a, which "
           "the bridge builds with -mqlcl-nv-sm90a) and needs an NVIDIA GPU of compute capability "
           "9.0 (H100, H200); this device is not one, so nothing was run. "
           "matr_mul_double_buffered and matr_mul_tuned compute the same product in FP32 on any "
           "device";
  case Requirement::nvidia_tensor_maps:
    if (device_meets(Requirement::nvidia_wgmma, device))
      return "it runs on NVIDIA tensor cores with its tiles copied through tensor maps, which the "
             "bridge writes with the CUDA driver, and none can be written here (" +
             device.tensor_maps_missing +
             "), so nothing was run. matr_mul_wgmma_tiled_tf32 and _3xtf32 are the same products "
             "with their tiles laid out by a pass, and CLGemm's tensor-core precisions run without "
             "maps; matr_mul_double_buffered computes the product in FP32 on any device";
    return "it runs on NVIDIA tensor cores through Hopper's wgmma and tensor maps (compute "
           "capability 9.0: H100, H200); this device is not one, so nothing was run. "
           "matr_mul_double_buffered and matr_mul_tuned compute the same product in FP32 on any "
           "device";
  case Requirement::nvidia_fp64_mma:
    return "it runs on NVIDIA tensor cores in FP64 (mma.sync's f64 shapes of sm_90, through inline "
           "PTX that only NVIDIA's OpenCL compiler accepts) and needs an NVIDIA GPU of compute "
           "capability 9.0 (H100, H200); this device is not one, so nothing was run. "
           "matr_mul_double_buffered and matr_mul_tuned compute the same product with --double on "
           "any device with cl_khr_fp64";
  case Requirement::none:
    break;
  }
  return std::nullopt;
}

Problem tile_params_problem(const Step &step, const DeviceCaps &device) {
  if (step.params_valid == nullptr || step.params_valid(step.params, device))
    return std::nullopt;
  return "its tile parameters do not fit this device or each other (work-group size, local "
         "memory or divisibility; the kernel's header comment gives the rules): choose others "
         "with --param" +
         std::string(step.tuning != DeviceTuning::none
                         ? ", or let mqlcl-replay tune " + step.name + " find the fastest that fit"
                         : "");
}

Problem local_column_problem(const Step &step, const Sizes &padded, const DeviceCaps &device,
                             size_t element_size) {
  const uint64_t bytes = uint64_t{padded.colsrows} * element_size;
  if (!step.local_column || bytes <= device.kernel_local_mem_bytes)
    return std::nullopt;
  return fmt::format("its __local colbuf[COLSROWS] needs {} bytes; the device has {} bytes of "
                     "local memory",
                     bytes, device.kernel_local_mem_bytes);
}

// The operand pass's buffers are uint32 bytes in MQL5's API, as the matrices' are.
Problem pass_scratch_problem(const PassScratch &scratch, size_t element_size) {
  for (uint64_t floats : {scratch.floats_a, scratch.floats_b})
    if (floats * element_size > std::numeric_limits<uint32_t>::max())
      return fmt::format("its operand pass writes {} parts of each operand, {} bytes, to a "
                         "buffer; MQL5's CLBufferCreate takes at most 4 GiB - 1",
                         scratch.parts, floats * element_size);
  return std::nullopt;
}

// The first buffer, matrix or pass scratch, larger than the device allocates at once.
Problem allocation_problem(const Sizes &padded, const PassScratch &scratch,
                           const DeviceCaps &device, size_t element_size) {
  for (uint64_t elements :
       {uint64_t{padded.rows1} * padded.colsrows, uint64_t{padded.colsrows} * padded.cols2,
        uint64_t{padded.rows1} * padded.cols2, scratch.floats_a, scratch.floats_b})
    if (elements * element_size > device.max_alloc_bytes)
      return fmt::format("a matrix of {} bytes exceeds the device's largest allocation, {} bytes",
                         elements * element_size, device.max_alloc_bytes);
  return std::nullopt;
}

} // namespace

std::vector<std::string> device_problems(const Step &step, const Sizes &padded,
                                         const DeviceCaps &device, size_t element_size,
                                         bool double_precision,
                                         const std::vector<uint32_t> &requested_local) {
  std::vector<std::string> problems;
  auto add = [&problems](Problem problem) {
    if (problem)
      problems.push_back(std::move(*problem));
  };
  add(private_row_problem(step, padded, device, element_size, requested_local));
  if (double_precision && !device.fp64)
    problems.push_back("--double needs a device with cl_khr_fp64, and this one has none");
  if (double_precision && step.float_only)
    problems.push_back("this step computes in float only (it has no REALTYPE double variant)");
  if (!double_precision && step.double_only)
    problems.push_back("this step computes in double only (FP64 tensor cores): give --double");
  add(requirement_problem(step, device));
  add(tile_params_problem(step, device));
  add(local_column_problem(step, padded, device, element_size));
  const PassScratch scratch = pass_scratch(step, padded);
  add(pass_scratch_problem(scratch, element_size));
  add(allocation_problem(padded, scratch, device, element_size));
  return problems;
}

} // namespace mqlcl::replay
