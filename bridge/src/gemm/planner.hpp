// Which kernel form, parameters and launch a product runs with on a device: the tuned set for its
// size class where the tuning file or the compiled database has one (tuning_file.hpp), else the
// form's defaults. Compiled into the library and the harness (mqlcl_gemm_plans): the tuner and
// the replay's step 14 plan with the very code CLGemm runs.
#pragma once

#include "gemm/forms.hpp"
#include "gemm/tuning_file.hpp"

#include <optional>
#include <string>

namespace mqlcl::gemm {

inline const char *kernel_file_of(Family family) {
  return form_of(family).kernel_file;
}

// Products of at least this many multiply-adds (M * N * K * batch) copy an operand stored with K
// down its rows into a K-contiguous scratch first, even where step 13's kernel could read it as it
// is (A_LINES, B_LINES): on an H100 (driver 580.159.04) the copy cost 2-6% from 4096 x 4096 x 512
// up, while reading such operands directly ran at 0.50-0.73x cuBLAS there; below it, reading
// directly was faster (2000: 0.92x against 0.90x; a batch of 64 products of 256 x 256 x 64:
// 1.15x against 0.66x). A tuned set of step 13's kernel may decide instead: its host parameter
// kCopyParam is not a kernel definition: 0 reads both directly, 1 copies both, 2 copies A's only
// (TN then runs as NN, its set NN's tiles), 3 B's only. Step 19 (FP64 tensor cores) reads such
// operands directly unless its set copies them; the other tensor-core forms copy them.
constexpr double kCopyFromMultiplyAdds = 8589934592.0; // 2^33
inline constexpr const char *kCopyParam = "COPY";
enum CopyValue : int64_t { kCopyNone = 0, kCopyBoth = 1, kCopyA = 2, kCopyB = 3 };

struct Plan {
  Family family = Family::tiles;
  // Whether A, and B, where stored K x lines (with K down their rows), are copied transposed
  // first (K-contiguous) instead of read as they are.
  bool copy_k_down_a = true, copy_k_down_b = true;
  Params params;
  bool index64 = false; // the kernels' 64-bit form (gemm.hpp, needs_index64)
  std::string origin;   // "defaults", or where the tuned entry came from (database.hpp's Tuned)
  Launch launch;
};

// The plan for `shape` on `device`; `tuned` is the lookup's result (database.hpp), if any.
// A double product's `tuned` is a double set; a set the form's rules refuse on the device (its
// tiles do not fit the local memory at the element's size) runs the defaults.
// `forced` (MQLCL_GEMM_KERNEL) runs that family whatever the device's memory, where it fits.
Plan plan_product(const DeviceLimits &device, const Shape &shape, const std::optional<Tuned> &tuned,
                  std::optional<Family> forced = std::nullopt);

// The same with the defaults alone (a tuned set that failed to build falls back to these).
Plan default_plan(const DeviceLimits &device, const Shape &shape,
                  std::optional<Family> forced = std::nullopt);

// A tensor-core product in `family`: step 18's (kernels/matr_mul_wgmma_tf32.cl, TMA; tensor_tf32
// or tensor_3xtf32) or step 19's (tensor_fp64): the tuned entry of its form where it is one of
// that family's that fits the device, else the form's defaults. Without `tensor_maps` (where the
// CUDA driver writes none), the same set with TMA 0: TF32 and 3xTF32's tiles laid out by passes,
// step 19's copied by the work-items. Step 19 otherwise takes its set's TMA where the set names
// one (its maps change no result), else kFp64MapsUnasked; the host turns them off per call where
// an operand's rows do not align.
// A set's B_MN 1 (B read as stored K x N) stays only where `b_mn_map` says a map reads B so
// (stored K x N, rows on 16-byte boundaries); elsewhere B_MN 0: B copied K-contiguous first.
// Step 19's TMA where maps can be written and its set names none: the copy engine fills the tiles
// of operands with K down their rows (long rows), the work-items the others (matr_mul_dmma.cl).
inline constexpr int64_t kFp64MapsUnasked = 2;

// Step 19's TMA for one call whose operands, as read, have K down their rows or not (`a_k_down`,
// `b_k_down`) and start every row and matrix on a 16-byte boundary or not (`a_aligned`,
// `b_aligned`): the plan's `tma`, unless an operand it has the copy engine read (every operand for
// 1 and 3, those with K down their rows for 2) does not align, as a map needs: then 0, the
// work-items copy every tile. (TMA 2 with no such operand maps nothing: the same as 0.)
int64_t fp64_tma_for_call(int64_t tma, bool a_k_down, bool b_k_down, bool a_aligned,
                          bool b_aligned);

Plan tensor_plan(const DeviceLimits &device, const Shape &shape, Family family,
                 const std::optional<Tuned> &tuned = std::nullopt, bool tensor_maps = true,
                 bool b_mn_map = false);

// Whether a double product of `shape` runs step 19 on `device`: a device with FP64 tensor cores,
// no family forced (MQLCL_GEMM_KERNEL, or an operand that only step 13 reads), and sizes within
// the kernel's 32-bit K and tile indices.
bool runs_fp64_tensor_cores(const DeviceLimits &device, const Shape &shape,
                            std::optional<Family> forced);

// The sets a lookup searches: the tuning file's, then the compiled database's.
struct TunedSets {
  const std::vector<TunedEntry> &overlay;
  const std::vector<TunedEntry> &database;
};

// The plan for an exact product of `shape` in `layout`, as CLGemm plans it: the set that
// find_tuned picks among `sets` for `device` (step 14's, of the element's type), run by the form
// that takes it on `limits`; `forced` as for plan_product. A double product that
// runs_fp64_tensor_cores takes step 19's set instead (tensor_plan).
Plan exact_plan(const DeviceLimits &limits, const DeviceFacts &device, const Shape &shape,
                const TunedSets &sets, const std::string &layout,
                std::optional<Family> forced = std::nullopt);

// "FILE NAME=value ... (origin)": what CL_GEMM_PLAN reports of the plan a call ran; INDEX64=1
// among the values where the call takes the kernels' 64-bit form.
std::string plan_text(const Plan &plan);

// A tuned set of the Ozaki scheme's integer products in `form` (kernels/gemm/ozaki.cl), as its
// kernels take it: over the form's defaults, without UNASKED (the host's); none where the form's
// rules refuse it on `device`, which then runs the defaults. What CLGemm runs and the tuner starts
// from.
std::optional<Params> scheme_set(const Form &form, const TunedEntry &entry,
                                 const DeviceLimits &device);

// MQLCL_GEMM_KERNEL: "tiles" or "registers" forces that family; unset or anything else, none.
std::optional<Family> forced_family(EnvironmentReader environment);

} // namespace mqlcl::gemm
