// The devices of all platforms, numbered 0, 1, 2, ... in a stable order: GPUs, then
// accelerators, then CPUs, then anything else; within a kind by platform, then by the
// platform's own order. Enumerated once per process, on first use.
#pragma once

#include "cl_api.hpp"
#include "errors.hpp"
#include "opencl.hpp"

#include <mqlcl/mqlcl.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mqlcl {

// Whether the driver has ended this process's work on a device: the state that
// device_health.hpp reads and changes.
struct DeviceHealth {
  std::atomic<bool> lost{false};
  std::atomic<int> contexts{0}; // the bridge's live contexts on the device
  std::mutex mutex;             // guards `reason`
  std::string reason;           // how the loss showed, for the messages that follow it
};

struct Device {
  int32_t ordinal = 0;
  int32_t platform_index = 0;
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_device_type type = 0;
  std::string name;
  std::string vendor;
  std::string platform_name;
  std::string platform_vendor;
  // What MQLCL_DEVICE is matched against: "platform name, platform vendor, device name, device
  // vendor", so "pocl" finds PoCL (platform "Portable Computing Language", vendor "The pocl
  // project", device "pthread-...") and "nvidia" NVIDIA's devices.
  std::string match_text() const;
  // Limits the bridge checks before OpenCL sees a call.
  size_t max_work_group_size = 0;
  std::array<size_t, 3> max_work_item_sizes{};
  cl_ulong local_mem_size = 0; // CL_DEVICE_LOCAL_MEM_SIZE: what __local arguments may take
  // What a kernel's own __local arrays may take (kernel_local_memory below).
  cl_ulong kernel_local_mem_size = 0;
  cl_ulong max_mem_alloc_size = 0;
  cl_uint address_bits = 64; // CL_DEVICE_ADDRESS_BITS: the size of size_t and pointers
  // The most work-groups one launch may have, where the driver has a limit no query reports;
  // 0 when none is known. PoCL's CPU device numbers work-groups with 32-bit integers: beyond
  // 2^32 - 1 it aborts the process or skips them (docs/api.md, CLExecute).
  uint64_t max_work_groups = 0;
  bool has_fp64 = false;
  // CL_DEVICE_HOST_UNIFIED_MEMORY: the device works in host memory (a CPU, an integrated GPU),
  // so staging transfers through pinned memory would only add a copy. True when unknown.
  bool host_unified_memory = true;
  // What the GEMM's planner looks its tuned parameters up by (gemm/database.hpp).
  std::string driver_version;
  cl_uint vendor_id = 0;               // 0x10DE NVIDIA, 0x1002 AMD, 0x8086 Intel, ...
  uint32_t compute_capability = 0;     // NVIDIA only: major * 10 + minor (90 for Hopper)
  bool dedicated_local_memory = false; // CL_DEVICE_LOCAL_MEM_TYPE is CL_LOCAL
  cl_uint compute_units = 0;
  // CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: on a CPU its SIMD width (PoCL: 8 with AVX2, 16 with
  // AVX-512), which tells CPUs apart for the GEMM's database.
  cl_uint preferred_vector_width_float = 0;
  // Whether the driver has ended this process's work on the device (device_health.hpp); shared
  // by the copies of this description.
  std::shared_ptr<DeviceHealth> health = std::make_shared<DeviceHealth>();
};

struct DeviceList {
  std::vector<cl_platform_id> platforms;
  std::vector<Device> devices;
};

// The local memory a work-group's kernel may declare in its own __local arrays. NVIDIA's OpenCL
// driver reports 48 KiB (CL_DEVICE_LOCAL_MEM_SIZE) and refuses __local arguments beyond it, but
// from Volta on it builds and launches kernels whose arrays take up to the compute unit's limit
// per work-group (CUDA's opt-in maximum). Elsewhere, and on NVIDIA parts not in the table, the
// reported size.
cl_ulong kernel_local_memory(cl_ulong reported, cl_uint vendor_id, uint32_t compute_capability);

// Throws Failure(ERR_OPENCL_NOT_SUPPORTED) when OpenCL is missing or has no platform.
std::shared_ptr<const DeviceList> device_list();

// Device ordinal -> device, or nullptr when out of range / no OpenCL.
std::shared_ptr<const Device> device_by_ordinal(int32_t ordinal);

// Test seam: forget the enumeration so the next call enumerates again.
void reset_device_list_for_testing();

// Typed wrappers over clGetDeviceInfo / clGetPlatformInfo that throw Failure on error.
std::string device_info_string(cl_device_id device, cl_device_info property);
std::string platform_info_string(cl_platform_id platform, cl_platform_info property);
template <class T> T device_info(cl_device_id device, cl_device_info property) {
  T value{};
  check_cl(cl_api().clGetDeviceInfo(device, property, sizeof(T), &value, nullptr),
           "clGetDeviceInfo", MQLCL_ERR_OPENCL_INTERNAL);
  return value;
}

// Where a device of `type` comes in the device list: GPUs, accelerators, CPUs, then the rest.
int kind_rank(cl_device_type type);

} // namespace mqlcl
