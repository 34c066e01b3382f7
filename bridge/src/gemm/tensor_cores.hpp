// CLGemm on Hopper's tensor cores: step 18's products (kernels/matr_mul_wgmma_tf32.cl, built
// through -mqlcl-nv-sm90a), the copy engine reading A and B through tensor maps the bridge
// writes. TF32 reads both operands through TF32-typed maps; 3xTF32 (FP32 accuracy) reads A
// through an FP32 map and splits it in registers, and B from a pass that splits it into TF32
// heads and tails laid out in tiles. An operand a map cannot read as it is (K down its rows, or
// rows not on 16-byte boundaries) is copied first. Where the CUDA driver writes no tensor map
// (under Wine, or MQLCL_CUDA_DRIVER=off), the same products read tiles that a pass, tile_lines,
// lays out as the maps' copies would (TMA 0): TF32 and FP32 accuracy stay offered.
#pragma once

#include "gemm/gemm.hpp"
#include "gemm/tuning_file.hpp"

#include <functional>
#include <optional>
#include <string>

namespace mqlcl::gemm {

// Whether `call` fits the tensor-core kernels, through maps or not: their index arithmetic
// (32-bit tile and pass indices), and no copy or pass over an operand whose batch's matrices share
// elements (operands.hpp: it would repeat them once per product; the exact product reads them in
// place).
bool fits_tensor_cores(const Call &call, bool tensor_maps);

// Enqueues the product: TF32 for Precision::tf32, 3xTF32 otherwise, through tensor maps where the
// CUDA driver writes them, else after the passes; a map the driver refuses switches the context
// to the passes for good. Its kernels are built before anything is enqueued; a driver that cannot
// build them throws Failure(ERR_OPENCL_PROGRAM_CREATE). Returns false, having enqueued nothing the
// caller reads, where the call does not fit the form it takes (fits_tensor_cores), the passes'
// after a refused map included.
bool run_tensor_core_product(Context &context, ContextState &state, const Call &call, bool &first);

// Why `call` runs the FP32 product in place of 3xTF32, or none: a float product of one matrix in
// MQLCL_GEMM_ACCURATE, and the set `measure` finds (3xTF32's set measured on the device for the
// call's layout at the smallest shape around the call's, measured_around), looked up only for such
// a call, says EXACT_FASTER=1. 3xTF32's copies and B's split pass cost most where the product is
// small (an H200 at 1000^3 TN).
std::optional<std::string>
exact_product_faster(const Call &call, const std::function<std::optional<Tuned>()> &measure);

} // namespace mqlcl::gemm
