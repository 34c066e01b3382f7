// CLGetInfoInteger, CLGetInfoString and CLGetDeviceInfo.
#include "boundary.hpp"
#include "cl_api.hpp"
#include "device_health.hpp"
#include "gemm/gemm.hpp"
#include "objects.hpp"
#include "utf16.hpp"

#include <fmt/format.h>

#include <cstring>
#include <optional>

using namespace mqlcl;

namespace mqlcl {
int64_t last_launch_nanoseconds(Kernel &kernel); // api_execute.cpp
}

namespace {

// MQLCL_CL_LAST_TRANSFER: "write 16777216 bytes staged (lanes 8, chunks 4): 0.300 ms; host
// copies 1.300 ms and waits 0.000 ms over the lanes, DMA 0.000 ms; 2 chunks still copying to the
// device at return; enqueues 0.050 ms over the lanes, the last lane began at 0.020 ms" (and "; on
// threads started for the call ..." when the parked ones were busy or could not start, and "; 2
// lanes on the calling thread ..." for lanes whose threads could not start), or "read 1024 bytes
// direct: 0.020 ms".
std::string last_transfer_text(Context &context) {
  TransferRecord r;
  {
    std::lock_guard<std::mutex> lock(context.transfer_mutex);
    r = context.last_transfer;
  }
  if (!r.done)
    fail(MQLCL_ERR_OPENCL_EXECUTE,
         "CL_LAST_TRANSFER: no CLBufferWrite or CLBufferRead has completed in this context");
  const auto ms = [](int64_t ns) { return double(ns) * 1e-6; };
  const char *what = r.read ? "read" : "write";
  if (!r.staged)
    return fmt::format("{} {} bytes direct: {:.3f} ms", what, r.bytes, ms(r.call_ns));
  std::string text = fmt::format(
      "{} {} bytes staged (lanes {}, chunks {}): {:.3f} ms; host copies {:.3f} ms and waits "
      "{:.3f} ms over the lanes, DMA {:.3f} ms",
      what, r.bytes, r.lanes, r.chunks, ms(r.call_ns), ms(r.copy_ns), ms(r.wait_ns), ms(r.dma_ns));
  if (!r.read)
    text += fmt::format("; {} chunks still copying to the device at return", r.left_running);
  text += fmt::format("; enqueues {:.3f} ms over the lanes, the last lane began at {:.3f} ms",
                      ms(r.enqueue_ns), ms(r.last_start_ns));
  if (r.own_threads)
    text += "; on threads started for the call (another transfer held the parked ones, or one "
            "could not start)";
  if (r.lanes_on_caller > 0)
    text += fmt::format("; {} {} on the calling thread (their threads could not start)",
                        r.lanes_on_caller, r.lanes_on_caller == 1 ? "lane" : "lanes");
  return text;
}

std::string last_error_description();

template <class T> int64_t device_integer(const Device &device, cl_device_info property) {
  return static_cast<int64_t>(device_info<T>(device.id, property));
}

int64_t kernel_group_info(const Kernel &kernel, cl_kernel_work_group_info property) {
  const ClApi &cl = cl_api();
  cl_device_id device = kernel.program->context->device->id;
  if (property == CL_KERNEL_WORK_GROUP_SIZE ||
      property == CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE) {
    size_t value = 0;
    check_cl(cl.clGetKernelWorkGroupInfo(kernel.kernel, device, property, sizeof(value), &value,
                                         nullptr),
             "clGetKernelWorkGroupInfo", MQLCL_ERR_OPENCL_INTERNAL);
    return static_cast<int64_t>(value);
  }
  cl_ulong value = 0;
  check_cl(
      cl.clGetKernelWorkGroupInfo(kernel.kernel, device, property, sizeof(value), &value, nullptr),
      "clGetKernelWorkGroupInfo", MQLCL_ERR_OPENCL_INTERNAL);
  return static_cast<int64_t>(value);
}

int64_t device_count() {
  try {
    return static_cast<int64_t>(device_list()->devices.size());
  } catch (const Failure &failure) {
    if (failure.code() == MQLCL_ERR_OPENCL_NOT_SUPPORTED)
      return 0; // no OpenCL is a count of zero, not an error
    throw;
  }
}

constexpr const char *kIntegerFn = "CLGetInfoInteger";

// The properties of the process (devices, the last error, live objects) and of the objects a
// handle names (buffer, kernel, program, context); nothing for a device's, or an unknown one.
std::optional<int64_t> process_or_object_property(int32_t handle, int32_t property) {
  switch (property) {
  case MQLCL_CL_DEVICE_COUNT:
    return device_count();
  case MQLCL_CL_LAST_ERROR:
    return last_error_cl_status();
  case MQLCL_CL_LAST_ERROR_DESCRIPTION_LENGTH:
    return static_cast<int64_t>(utf16_length_of(last_error_description()));
  case MQLCL_CL_OBJECT_COUNT:
    return static_cast<int64_t>(registry().live_count());
  case MQLCL_CL_PLATFORM_COUNT:
    return device_count() == 0 ? 0 : static_cast<int64_t>(device_list()->platforms.size());
  case MQLCL_CL_BUFFER_SIZE:
    return buffer_of(handle, kIntegerFn)->size;
  case MQLCL_CL_BUFFER_FLAGS:
    return buffer_of(handle, kIntegerFn)->flags;
  case MQLCL_CL_KERNEL_WORK_GROUP_SIZE:
    return kernel_group_info(*kernel_of(handle, kIntegerFn), CL_KERNEL_WORK_GROUP_SIZE);
  case MQLCL_CL_KERNEL_LOCAL_MEM_SIZE:
    return kernel_group_info(*kernel_of(handle, kIntegerFn), CL_KERNEL_LOCAL_MEM_SIZE);
  case MQLCL_CL_KERNEL_PRIVATE_MEM_SIZE:
    return kernel_group_info(*kernel_of(handle, kIntegerFn), CL_KERNEL_PRIVATE_MEM_SIZE);
  case MQLCL_CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
    return kernel_group_info(*kernel_of(handle, kIntegerFn),
                             CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
  case MQLCL_CL_KERNEL_NUM_ARGS:
    return static_cast<int64_t>(kernel_of(handle, kIntegerFn)->arg_kinds.size());
  case MQLCL_CL_KERNEL_EXECUTION_TIME:
    return last_launch_nanoseconds(*kernel_of(handle, kIntegerFn));
  case MQLCL_CL_GEMM_EXECUTION_TIME: {
    auto context = context_of(handle, kIntegerFn);
    return watching_device(*context->device, "CL_GEMM_EXECUTION_TIME",
                           [&] { return gemm::last_gemm_nanoseconds(*context); });
  }
  case MQLCL_CL_PROGRAM_FROM_CACHE:
    return program_of(handle, kIntegerFn)->from_cache ? 1 : 0;
  default:
    return std::nullopt;
  }
}

// A device's properties, for a device ordinal or any live handle on the device.
int64_t device_property(int32_t handle, int32_t property) {
  std::shared_ptr<const Device> device = device_of(handle, kIntegerFn);
  switch (property) {
  case MQLCL_CL_DEVICE_TYPE:
    return static_cast<int64_t>(device->type);
  case MQLCL_CL_DEVICE_VENDOR_ID:
    return device_integer<cl_uint>(*device, CL_DEVICE_VENDOR_ID);
  case MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS:
    return device_integer<cl_uint>(*device, CL_DEVICE_MAX_COMPUTE_UNITS);
  case MQLCL_CL_DEVICE_MAX_CLOCK_FREQUENCY:
    return device_integer<cl_uint>(*device, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  case MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE:
    return device_integer<cl_ulong>(*device, CL_DEVICE_GLOBAL_MEM_SIZE);
  case MQLCL_CL_DEVICE_LOCAL_MEM_SIZE:
    return static_cast<int64_t>(device->local_mem_size);
  case MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE:
    return static_cast<int64_t>(device->kernel_local_mem_size);
  case MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE:
    return static_cast<int64_t>(device->max_work_group_size);
  case MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    return device_integer<cl_uint>(*device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT);
  case MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    return device_integer<cl_uint>(*device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE);
  case MQLCL_CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    return device_integer<cl_uint>(*device, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT);
  case MQLCL_CL_DEVICE_LOCAL_MEM_TYPE:
    return device_integer<cl_uint>(*device, CL_DEVICE_LOCAL_MEM_TYPE);
  case MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_0:
  case MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_1:
  case MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_2:
    return static_cast<int64_t>(device->max_work_item_sizes[static_cast<size_t>(
        property - MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_0)]);
  case MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE:
    return static_cast<int64_t>(device->max_mem_alloc_size);
  case MQLCL_CL_DEVICE_DOUBLE_SUPPORT:
    return device->has_fp64 ? 1 : 0;
  case MQLCL_CL_DEVICE_GLOBAL_MEM_CACHE_SIZE:
    return device_integer<cl_ulong>(*device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  case MQLCL_CL_DEVICE_ORDINAL:
    return device->ordinal;
  case MQLCL_CL_DEVICE_PLATFORM_INDEX:
    return device->platform_index;
  case MQLCL_CL_PROFILING_TIMER_RESOLUTION:
    return device_integer<size_t>(*device, CL_DEVICE_PROFILING_TIMER_RESOLUTION);
  default:
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("CLGetInfoInteger: unknown property {}", property));
  }
}

int64_t integer_property(int32_t handle, int32_t property) {
  if (std::optional<int64_t> value = process_or_object_property(handle, property))
    return *value;
  return device_property(handle, property);
}

const char *kind_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU)
    return "GPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR)
    return "Accelerator";
  if (type & CL_DEVICE_TYPE_CPU)
    return "CPU";
  return "Device";
}

std::string last_error_description() {
  return last_error_code() == 0 ? "no error" : last_error_message();
}

// One line per ordinal, in the words of MetaTrader's journal.
std::string device_listing() {
  std::shared_ptr<const DeviceList> list = device_list();
  std::string text;
  for (const Device &device : list->devices) {
    if (!text.empty())
      text += '\n';
    cl_ulong memory = device_info<cl_ulong>(device.id, CL_DEVICE_GLOBAL_MEM_SIZE);
    text += fmt::format(
        "OpenCL device #{}: {} {} {} with {} ({} units, {} MHz, {} Mb, version {}, platform "
        "#{} {})",
        device.ordinal, kind_name(device.type), device_info_string(device.id, CL_DEVICE_VENDOR),
        device.name, device_info_string(device.id, CL_DEVICE_VERSION),
        device_info<cl_uint>(device.id, CL_DEVICE_MAX_COMPUTE_UNITS),
        device_info<cl_uint>(device.id, CL_DEVICE_MAX_CLOCK_FREQUENCY), memory >> 20,
        device_info_string(device.id, CL_DRIVER_VERSION), device.platform_index,
        device.platform_name);
  }
  return text;
}

std::string string_property(int32_t handle, int32_t property) {
  constexpr const char *fn = "CLGetInfoString";
  switch (property) {
  case MQLCL_CL_ERROR_DESCRIPTION:
    return handle == MQLCL_CL_LAST_ERROR ? last_error_description() : cl_error_name(handle);
  case MQLCL_CL_DEVICE_LIST:
    return device_listing();
  case MQLCL_CL_BRIDGE_VERSION:
    return fmt::format("mqlcl {}.{}.{}", MQLCL_VERSION_MAJOR, MQLCL_VERSION_MINOR,
                       MQLCL_VERSION_PATCH);
  case MQLCL_CL_PROGRAM_BUILD_LOG:
    return program_of(handle, fn)->build_log;
  case MQLCL_CL_PROGRAM_BUILD_OPTIONS:
    return program_of(handle, fn)->build_options;
  case MQLCL_CL_KERNEL_FUNCTION_NAME:
    return kernel_of(handle, fn)->name;
  case MQLCL_CL_GEMM_PLAN:
    return gemm::last_gemm_plan(*context_of(handle, fn));
  case MQLCL_CL_LAST_TRANSFER:
    return last_transfer_text(*context_of(handle, fn));
  case MQLCL_CL_GEMM_PASSES: {
    auto context = context_of(handle, fn);
    return watching_device(*context->device, "CL_GEMM_PASSES",
                           [&] { return gemm::last_gemm_passes(*context); });
  }
  default:
    break;
  }

  std::shared_ptr<const Device> device = device_of(handle, fn);
  switch (property) {
  case MQLCL_CL_PLATFORM_PROFILE:
    return platform_info_string(device->platform, CL_PLATFORM_PROFILE);
  case MQLCL_CL_PLATFORM_VERSION:
    return platform_info_string(device->platform, CL_PLATFORM_VERSION);
  case MQLCL_CL_PLATFORM_VENDOR:
    return platform_info_string(device->platform, CL_PLATFORM_VENDOR);
  case MQLCL_CL_PLATFORM_EXTENSIONS:
    return platform_info_string(device->platform, CL_PLATFORM_EXTENSIONS);
  case MQLCL_CL_PLATFORM_NAME:
    return device->platform_name;
  case MQLCL_CL_DEVICE_NAME:
    return device->name;
  case MQLCL_CL_DEVICE_VENDOR:
    return device_info_string(device->id, CL_DEVICE_VENDOR);
  case MQLCL_CL_DRIVER_VERSION:
    return device_info_string(device->id, CL_DRIVER_VERSION);
  case MQLCL_CL_DEVICE_PROFILE:
    return device_info_string(device->id, CL_DEVICE_PROFILE);
  case MQLCL_CL_DEVICE_VERSION:
    return device_info_string(device->id, CL_DEVICE_VERSION);
  case MQLCL_CL_DEVICE_EXTENSIONS:
    return device_info_string(device->id, CL_DEVICE_EXTENSIONS);
  case MQLCL_CL_DEVICE_BUILT_IN_KERNELS:
    return device_info_string(device->id, CL_DEVICE_BUILT_IN_KERNELS);
  case MQLCL_CL_DEVICE_OPENCL_C_VERSION:
    return device_info_string(device->id, CL_DEVICE_OPENCL_C_VERSION);
  default:
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("CLGetInfoString: unknown property {}", property));
  }
}

} // namespace

extern "C" {

MQLCL_API int64_t CLGetInfoInteger(int32_t handle, int32_t property) {
  return guarded(int64_t{-1}, [&] { return integer_property(handle, property); });
}

MQLCL_API int32_t CLGetInfoString(int32_t handle, int32_t property, char16_t *value,
                                  uint32_t capacity) {
  return guarded(0, [&] {
    if (value == nullptr)
      fail(MQLCL_ERR_INVALID_PARAMETER, "CLGetInfoString: value is NULL");
    if (capacity == 0)
      fail(MQLCL_ERR_SMALL_ARRAY, "CLGetInfoString: capacity is 0");
    value[0] = 0;
    std::string text = string_property(handle, property);
    if (!write_utf16(text, value, capacity))
      fail(MQLCL_ERR_SMALL_ARRAY,
           fmt::format("CLGetInfoString: the value needs more than the {} characters given "
                       "(it was truncated)",
                       capacity));
    return 1;
  });
}

MQLCL_API int32_t CLGetDeviceInfo(int32_t handle, int32_t property_id, uint8_t *data,
                                  uint32_t *size, uint32_t capacity) {
  return guarded(0, [&] {
    if (size == nullptr)
      fail(MQLCL_ERR_INVALID_PARAMETER, "CLGetDeviceInfo: size is NULL");
    if (data == nullptr && capacity > 0)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("CLGetDeviceInfo: data is NULL but capacity is {}", capacity));
    *size = 0;
    std::shared_ptr<const Device> device = device_of(handle, "CLGetDeviceInfo");
    const ClApi &cl = cl_api();
    size_t bytes = 0;
    cl_int status = cl.clGetDeviceInfo(device->id, static_cast<cl_device_info>(property_id), 0,
                                       nullptr, &bytes);
    if (status == CL_INVALID_VALUE)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("CLGetDeviceInfo: 0x{:X} is not a cl_device_info this device knows",
                       property_id),
           status);
    check_cl(status, "CLGetDeviceInfo: clGetDeviceInfo", MQLCL_ERR_OPENCL_INTERNAL);
    if (bytes > UINT32_MAX)
      fail(MQLCL_ERR_OPENCL_INTERNAL, "CLGetDeviceInfo: the driver reported an absurd size");
    *size = static_cast<uint32_t>(bytes);
    if (data == nullptr)
      return 1; // size query
    if (bytes > capacity)
      fail(MQLCL_ERR_SMALL_ARRAY,
           fmt::format("CLGetDeviceInfo: the value has {} bytes; capacity is {}", bytes, capacity));
    if (bytes == 0)
      return 1;
    std::vector<uint8_t> scratch(bytes);
    check_cl(cl.clGetDeviceInfo(device->id, static_cast<cl_device_info>(property_id), bytes,
                                scratch.data(), nullptr),
             "CLGetDeviceInfo: clGetDeviceInfo", MQLCL_ERR_OPENCL_INTERNAL);
    std::memcpy(data, scratch.data(), bytes);
    return 1;
  });
}

} // extern "C"
