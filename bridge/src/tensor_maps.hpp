// What a tensor map needs from OpenCL's side (api_tensor_map.cpp): where a buffer lives in the
// device's address space and which device the CUDA driver should encode for. Used by
// CLBufferTensorMap and by CLGemm's tensor-core products.
#pragma once

#include "objects.hpp"

#include <cstdint>

namespace mqlcl {

// Where `memory`, a buffer of `context`, lives in device memory: read by a one-line kernel of the
// bridge (waits for the queue). NVIDIA's driver keeps a buffer where it first placed it for the
// buffer's life; the launch places it if nothing has yet.
uint64_t device_address(Context &context, cl_mem memory);

// The device's PCI bus, which tells the CUDA driver which of its devices this is; -1 when the
// OpenCL driver does not say.
int pci_bus(const Device &device);

// Throws Failure(ERR_OPENCL_NOT_SUPPORTED) unless `device` is an NVIDIA GPU of compute capability
// 9.0 or later.
void require_tensor_memory_access(const Device &device, const char *function);

} // namespace mqlcl
