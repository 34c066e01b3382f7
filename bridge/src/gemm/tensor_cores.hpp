// CLGemm on Hopper's tensor cores: step 18's products (kernels/matr_mul_wgmma_tf32.cl, built
// through -mqlcl-nv-sm90a), the copy engine reading A and B through tensor maps the bridge
// writes. TF32 reads both operands through TF32-typed maps; 3xTF32 (FP32 accuracy) reads A
// through an FP32 map and splits it in registers, and B from a pass that splits it into TF32
// heads and tails laid out in tiles. An operand a map cannot read as it is (K down its rows, or
// rows not on 16-byte boundaries) is copied first.
#pragma once

#include "gemm/gemm.hpp"

namespace mqlcl::gemm {

// Whether `call` fits the tensor-core kernels: their index arithmetic (32-bit tile and pass
// indices), and no copy of an operand whose batch's matrices share elements (operands.hpp: such a
// copy repeats them once per product; the exact product reads them in place).
bool fits_tensor_cores(const Call &call);

// Enqueues the product: TF32 for Precision::tf32, 3xTF32 otherwise. Its kernels are built before
// anything is enqueued; a driver that cannot build them throws
// Failure(ERR_OPENCL_PROGRAM_CREATE), one without the CUDA driver's tensor-map encoder
// Failure(ERR_OPENCL_NOT_SUPPORTED).
void run_tensor_core_product(Context &context, ContextState &state, const Call &call, bool &first);

} // namespace mqlcl::gemm
