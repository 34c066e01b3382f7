// CLGemm's checks, shared with CLMatMul (api_matmul.cpp).
#pragma once

#include "gemm/gemm.hpp"

#include <cstdint>

namespace mqlcl {

// CLGemm's arguments as CLGemm checks them (docs/errors.md): the call gemm::enqueue runs, ld 0
// filled in, or a Failure naming CLGemm with the code of the first refusal.
gemm::Call checked_gemm_call(int32_t buffer_a, int32_t buffer_b, int32_t buffer_c,
                             int32_t element_type, int32_t precision, int32_t transpose_a,
                             int32_t transpose_b, uint32_t m, uint32_t n, uint32_t k, double alpha,
                             double beta, uint64_t offset_a, uint32_t lda, uint64_t offset_b,
                             uint32_t ldb, uint64_t offset_c, uint32_t ldc, uint32_t batch,
                             uint64_t stride_a, uint64_t stride_b, uint64_t stride_c);

} // namespace mqlcl
