// Which kernel, parameters and launch a product runs with on a device: the tuned entry for its
// size class where the database or the user's tuning cache has one, else safe defaults.
#pragma once

#include "gemm/database.hpp"

#include <array>
#include <cstddef>
#include <string>

namespace mqlcl {
struct Device;
}

namespace mqlcl::gemm {

// The product's kernels: step 13's tiles staged in dedicated local memory (GPUs), or step 14's
// register-blocked form where local memory is part of global memory (CPUs); on Hopper's tensor
// cores, step 18's TF32 product and its 3xTF32 (FP32-accurate) form.
enum class Family { tiles, registers, tensor_tf32, tensor_3xtf32 };
const char *kernel_file_of(Family family);

struct Shape {
  uint32_t m = 0, n = 0, k = 0;
  uint32_t batch = 1;
  size_t element_size = 4; // 4 float, 8 double
};

// Products of at least this many multiply-adds (M * N * K * batch) copy an operand stored with K
// down its rows into a K-contiguous scratch first, even where step 13's kernel could read it as it
// is (A_LINES, B_LINES): on an H100 (driver 580.159.04) the copy cost 2-6% from 4096 x 4096 x 512
// up, while reading such operands directly ran at 0.50-0.73x cuBLAS there; below it, reading
// directly was faster (2000: 0.92x against 0.90x; a batch of 64 products of 256 x 256 x 64:
// 1.15x against 0.66x). A tuned set of step 13's kernel may decide instead: its host parameter
// kCopyParam (1 copies, 0 reads directly) is not a kernel definition.
constexpr double kCopyFromMultiplyAdds = 8589934592.0; // 2^33
inline constexpr const char *kCopyParam = "COPY";

struct Plan {
  Family family = Family::tiles;
  bool copy_k_down_operands = true; // an operand stored K x lines is copied transposed first
  Params params;
  bool index64 = false; // the kernels' 64-bit form (gemm.hpp, needs_index64)
  std::string origin;   // "defaults", or where the tuned entry came from (database.hpp's Tuned)
  uint32_t dimensions = 2;
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{1, 1, 1};
};

// The plan for `shape` on `device`; `tuned` is the lookup's result (database.hpp), if any.
// A double product's `tuned` is of its own form (kExactDoubleForm); a set whose tiles do not fit
// the device's local memory at the element's size runs the defaults.
// `forced` (MQLCL_GEMM_KERNEL) runs that family whatever the device's memory, where it fits.
Plan plan_product(const Device &device, const Shape &shape, const std::optional<Tuned> &tuned,
                  std::optional<Family> forced = std::nullopt);

// The same with the defaults alone (a tuned set that failed to build falls back to these).
Plan default_plan(const Device &device, const Shape &shape,
                  std::optional<Family> forced = std::nullopt);

// Step 18's tensor-core product (kernels/matr_mul_wgmma_tf32.cl, TMA) in `family` (tensor_tf32 or
// tensor_3xtf32): the tuned entry of its form where it is one of that family's that fits the
// device, else the defaults, the parameters measured fastest on an H100 at 4096.
Plan tensor_plan(const Device &device, const Shape &shape, Family family,
                 const std::optional<Tuned> &tuned = std::nullopt);

// "FILE NAME=value ... (origin)": what CL_GEMM_PLAN reports of the plan a call ran; INDEX64=1
// among the values where the call takes the kernels' 64-bit form.
std::string plan_text(const Plan &plan);

// MQLCL_GEMM_KERNEL: "tiles" or "registers" forces that family; unset or anything else, none.
std::optional<Family> forced_family();

} // namespace mqlcl::gemm
