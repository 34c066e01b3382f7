// Hopper's tensor maps, the descriptors its tensor-memory-access engine (TMA) copies tiles by, are
// encoded by NVIDIA's CUDA driver (libcuda / nvcuda.dll), which NVIDIA's OpenCL driver is built on
// and installed with. OpenCL has no call for them, so the bridge loads the CUDA driver for that one
// function, when a tensor map is first asked for, and never for anything else.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace mqlcl {

// How a map types its elements: FP32 copied as it is, FP32 rounded to TF32 on the way, FP64.
enum class TensorElement { float32, tf32, float64 };

// A 2-D row-major matrix in device memory, and the box a copy moves.
struct TensorMapRequest {
  uint64_t address = 0; // of element (0, 0): 16-byte aligned
  uint64_t rows = 0, cols = 0;
  uint64_t row_pitch = 0; // bytes: a multiple of 16
  uint32_t box_rows = 0, box_cols = 0;
  uint32_t swizzle = 0; // bytes: 0, 32, 64 or 128
  TensorElement element = TensorElement::float32;
  int pci_bus = -1; // the device's (CL_DEVICE_PCI_BUS_ID_NV); -1: unknown
};

// Why this process writes no tensor map, empty where it can: the CUDA driver does not load (as
// under Wine, which has no nvcuda.dll), or MQLCL_CUDA_DRIVER=off, read at each call, makes the
// bridge behave so without loading it (to test and measure that case where the driver exists).
std::string tensor_maps_unavailable();

// The 128-byte CUtensorMap. Throws Failure(ERR_OPENCL_NOT_SUPPORTED) when tensor maps are
// unavailable (above), Failure(ERR_OPENCL_INTERNAL) when the encoder refuses the request.
std::array<uint64_t, 16> encode_tensor_map(const TensorMapRequest &request, const char *function);

} // namespace mqlcl
