#include "devices.hpp"

#include "cl_api.hpp"
#include "errors.hpp"
#include "process_state.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <mutex>

namespace mqlcl {

int kind_rank(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU)
    return 0;
  if (type & CL_DEVICE_TYPE_ACCELERATOR)
    return 1;
  if (type & CL_DEVICE_TYPE_CPU)
    return 2;
  return 3;
}

cl_ulong kernel_local_memory(cl_ulong reported, cl_uint vendor_id, uint32_t compute_capability) {
  // CUDA's shared memory per block with opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin), by
  // compute capability, less what NVIDIA's OpenCL keeps for itself (measured on sm_90).
  struct Limit {
    uint32_t compute_capability;
    cl_ulong bytes;
  };
  static constexpr Limit kLimits[] = {
      {70, 96 << 10},  {72, 96 << 10}, {75, 64 << 10},  {80, 163 << 10},  {86, 99 << 10},
      {87, 163 << 10}, {89, 99 << 10}, {90, 227 << 10}, {100, 227 << 10}, {120, 99 << 10}};
  constexpr cl_ulong kOpenClReserve = 1 << 10;
  if (vendor_id != 0x10DE)
    return reported;
  for (const Limit &limit : kLimits)
    if (limit.compute_capability == compute_capability)
      return std::max(reported, limit.bytes - kOpenClReserve);
  return reported;
}

namespace {

std::string trimmed(std::string text) {
  while (!text.empty() &&
         (text.back() == '\0' || std::isspace(static_cast<unsigned char>(text.back()))))
    text.pop_back();
  return text;
}

Device describe(cl_platform_id platform, int32_t platform_index, cl_device_id id) {
  const ClApi &cl = cl_api();
  Device device;
  device.platform = platform;
  device.platform_index = platform_index;
  device.id = id;
  check_cl(cl.clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof(device.type), &device.type, nullptr),
           "clGetDeviceInfo(CL_DEVICE_TYPE)", MQLCL_ERR_OPENCL_INTERNAL);
  device.name = device_info_string(id, CL_DEVICE_NAME);
  device.vendor = device_info_string(id, CL_DEVICE_VENDOR);
  device.platform_name = platform_info_string(platform, CL_PLATFORM_NAME);
  device.platform_vendor = platform_info_string(platform, CL_PLATFORM_VENDOR);
  device.max_work_group_size = device_info<size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  cl_uint dimensions = device_info<cl_uint>(id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  std::vector<size_t> item_sizes(std::max<cl_uint>(dimensions, 3), 1);
  check_cl(cl.clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof(size_t) * dimensions,
                              item_sizes.data(), nullptr),
           "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)", MQLCL_ERR_OPENCL_INTERNAL);
  std::copy_n(item_sizes.begin(), 3, device.max_work_item_sizes.begin());
  device.local_mem_size = device_info<cl_ulong>(id, CL_DEVICE_LOCAL_MEM_SIZE);
  device.max_mem_alloc_size = device_info<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  device.address_bits = device_info<cl_uint>(id, CL_DEVICE_ADDRESS_BITS);
  if (device.platform_name == "Portable Computing Language")
    device.max_work_groups = UINT32_MAX;
  std::string extensions = device_info_string(id, CL_DEVICE_EXTENSIONS);
  device.has_fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
  // Deprecated since OpenCL 2.0: a driver that no longer answers keeps the safe default.
  cl_bool unified = CL_TRUE;
  if (cl.clGetDeviceInfo(id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified), &unified, nullptr) ==
      CL_SUCCESS)
    device.host_unified_memory = unified != CL_FALSE;
  device.driver_version = trimmed(device_info_string(id, CL_DRIVER_VERSION));
  device.vendor_id = device_info<cl_uint>(id, CL_DEVICE_VENDOR_ID);
  device.dedicated_local_memory =
      device_info<cl_device_local_mem_type>(id, CL_DEVICE_LOCAL_MEM_TYPE) == CL_LOCAL;
  device.compute_units = device_info<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
  device.preferred_vector_width_float =
      device_info<cl_uint>(id, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT);
  if (extensions.find("cl_nv_device_attribute_query") != std::string::npos) {
    // CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV and _MINOR_NV
    device.compute_capability =
        device_info<cl_uint>(id, 0x4000) * 10 + device_info<cl_uint>(id, 0x4001);
  }
  device.kernel_local_mem_size =
      kernel_local_memory(device.local_mem_size, device.vendor_id, device.compute_capability);
  return device;
}

std::shared_ptr<const DeviceList> enumerate() {
  const ClApi &cl = cl_api();
  auto list = std::make_shared<DeviceList>();
  cl_uint platform_count = 0;
  cl_int status = cl.clGetPlatformIDs(0, nullptr, &platform_count);
  if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ ||
      (status == CL_SUCCESS && platform_count == 0))
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED, "no OpenCL platform is installed", status);
  check_cl(status, "clGetPlatformIDs", MQLCL_ERR_OPENCL_NOT_SUPPORTED);
  list->platforms.resize(platform_count);
  check_cl(cl.clGetPlatformIDs(platform_count, list->platforms.data(), nullptr), "clGetPlatformIDs",
           MQLCL_ERR_OPENCL_NOT_SUPPORTED);

  for (cl_uint p = 0; p < platform_count; ++p) {
    cl_uint device_count = 0;
    status = cl.clGetDeviceIDs(list->platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (status == CL_DEVICE_NOT_FOUND)
      continue; // a platform without devices is not an error
    check_cl(status, "clGetDeviceIDs", MQLCL_ERR_OPENCL_NOT_SUPPORTED);
    if (device_count == 0)
      continue;
    std::vector<cl_device_id> ids(device_count);
    check_cl(cl.clGetDeviceIDs(list->platforms[p], CL_DEVICE_TYPE_ALL, device_count, ids.data(),
                               nullptr),
             "clGetDeviceIDs", MQLCL_ERR_OPENCL_NOT_SUPPORTED);
    for (cl_device_id id : ids)
      list->devices.push_back(describe(list->platforms[p], static_cast<int32_t>(p), id));
  }
  std::stable_sort(
      list->devices.begin(), list->devices.end(),
      [](const Device &a, const Device &b) { return kind_rank(a.type) < kind_rank(b.type); });
  for (size_t i = 0; i < list->devices.size(); ++i)
    list->devices[i].ordinal = static_cast<int32_t>(i);
  return list;
}

// The list once enumerated. Made on first use by process_wide (process_state.hpp): threads may
// still ask for devices while the process exits.
struct ListCache {
  std::mutex mutex;
  std::shared_ptr<const DeviceList> list;
};

ListCache &list_cache() {
  static ListCache &instance = process_wide<ListCache>();
  return instance;
}

} // namespace

std::string Device::match_text() const {
  return platform_name + ", " + platform_vendor + ", " + name + ", " + vendor;
}

std::string device_info_string(cl_device_id device, cl_device_info property) {
  const ClApi &cl = cl_api();
  size_t bytes = 0;
  check_cl(cl.clGetDeviceInfo(device, property, 0, nullptr, &bytes), "clGetDeviceInfo",
           MQLCL_ERR_OPENCL_INTERNAL);
  std::string value(bytes, '\0');
  check_cl(cl.clGetDeviceInfo(device, property, bytes, value.data(), nullptr), "clGetDeviceInfo",
           MQLCL_ERR_OPENCL_INTERNAL);
  return trimmed(std::move(value));
}

std::string platform_info_string(cl_platform_id platform, cl_platform_info property) {
  const ClApi &cl = cl_api();
  size_t bytes = 0;
  check_cl(cl.clGetPlatformInfo(platform, property, 0, nullptr, &bytes), "clGetPlatformInfo",
           MQLCL_ERR_OPENCL_INTERNAL);
  std::string value(bytes, '\0');
  check_cl(cl.clGetPlatformInfo(platform, property, bytes, value.data(), nullptr),
           "clGetPlatformInfo", MQLCL_ERR_OPENCL_INTERNAL);
  return trimmed(std::move(value));
}

std::shared_ptr<const DeviceList> device_list() {
  ListCache &cache = list_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  // Neither a failure nor an empty list is cached: drivers and devices may appear later.
  if (!cache.list || cache.list->devices.empty())
    cache.list = enumerate();
  return cache.list;
}

void reset_device_list_for_testing() {
  ListCache &cache = list_cache();
  std::lock_guard<std::mutex> lock(cache.mutex);
  cache.list.reset();
}

std::shared_ptr<const Device> device_by_ordinal(int32_t ordinal) {
  std::shared_ptr<const DeviceList> list = device_list();
  if (ordinal < 0 || static_cast<size_t>(ordinal) >= list->devices.size())
    return nullptr;
  return std::shared_ptr<const Device>(list, &list->devices[static_cast<size_t>(ordinal)]);
}

} // namespace mqlcl
