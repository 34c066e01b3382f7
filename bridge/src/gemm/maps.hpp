// The tensor maps CLGemm's products read through Hopper's copy engine (step 18's TF32 and 3xTF32,
// step 19's double): one per operand and product of the batch, written by the CUDA driver's
// encoder once per layout and box and kept by the context.
#pragma once

#include "cuda_driver.hpp"
#include "gemm/operands.hpp"

namespace mqlcl::gemm {

// Why the context's products read no tensor maps (cuda_driver.hpp's reason, or the driver's
// refusal of a map for its device); empty where they do.
std::string tensor_maps_missing(const ContextState &state);

// Whether every stored row and matrix of `lines` (elements of `element_size` bytes) starts on a
// 16-byte boundary, as a map needs.
bool rows_aligned(const Lines &lines, uint32_t batch, size_t element_size);

// One operand's map: its lines as the product reads them, the scratch slot a copy of them is in
// (its generation is part of the key), and the map's matrix, box and element type (the address
// is filled in per product).
struct OperandMap {
  const Lines *lines = nullptr;
  ScratchSlot slot = ScratchSlot::a;
  TensorMapRequest request;
};

// The batch's maps, A's then B's (128 bytes each, 256 per product; an operand's left zero where
// its map is null), written once per layout and kept (kMaxKeptMaps) while the caller's buffers
// they point into live. Throws Failure(ERR_OPENCL_NOT_SUPPORTED) where the driver writes none.
cl_mem kept_maps(Context &context, ContextState &state, const Call &call, const OperandMap *a,
                 const OperandMap *b);

} // namespace mqlcl::gemm
