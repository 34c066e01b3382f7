// The kernel files the GEMM builds, compiled into the library (cmake/EmbedKernels.cmake), so
// that mqlcl.dll alone in MQL5/Libraries is enough.
#pragma once

#include <cstddef>
#include <string_view>

namespace mqlcl::gemm {

struct KernelFile {
  const char *name; // as in kernels/, e.g. "matr_mul_double_buffered.cl"
  const char *text;
};
extern const KernelFile kKernelFiles[];
extern const size_t kKernelFileCount;

// The text of kernels/`name`; throws Failure(ERR_OPENCL_INTERNAL) when it was not embedded.
std::string_view kernel_text(std::string_view name);

} // namespace mqlcl::gemm
