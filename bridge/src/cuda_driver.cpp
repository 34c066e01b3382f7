#include "cuda_driver.hpp"

#include "errors.hpp"
#include "os_library.hpp"

#include <mqlcl/mqlcl.h>

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <string>

namespace mqlcl {

namespace {

// The CUDA driver API's types and values the encoder takes (cuda.h, CUDA 12.0 and later).
using CuResult = int;
using CuInit = CuResult (*)(unsigned int flags);
using CuGetErrorName = CuResult (*)(CuResult error, const char **name);
using CuDeviceGetCount = CuResult (*)(int *count);
using CuDeviceGet = CuResult (*)(int *device, int ordinal);
using CuDeviceGetAttribute = CuResult (*)(int *value, int attribute, int device);
using CuDevicePrimaryCtxRetain = CuResult (*)(void **context, int device);
using CuCtxPushCurrent = CuResult (*)(void *context);
using CuCtxPopCurrent = CuResult (*)(void **context);
using CuTensorMapEncodeTiled = CuResult (*)(void *tensor_map, int data_type, uint32_t rank,
                                            void *global_address, const uint64_t *global_dims,
                                            const uint64_t *global_strides,
                                            const uint32_t *box_dims,
                                            const uint32_t *element_strides, int interleave,
                                            int swizzle, int l2_promotion, int oob_fill);
constexpr int kDataTypeFloat32 = 7;    // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
constexpr int kDataTypeTf32 = 11;      // CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
constexpr int kDataTypeFloat64 = 8;    // CU_TENSOR_MAP_DATA_TYPE_FLOAT64
constexpr int kInterleaveNone = 0;     // CU_TENSOR_MAP_INTERLEAVE_NONE
constexpr int kL2Promotion256 = 3;     // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
constexpr int kOutOfBoundsZeros = 0;   // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: zeros past the edges
constexpr int kAttributePciBusId = 33; // CU_DEVICE_ATTRIBUTE_PCI_BUS_ID

int data_type(TensorElement element) {
  switch (element) {
  case TensorElement::tf32:
    return kDataTypeTf32;
  case TensorElement::float64:
    return kDataTypeFloat64;
  default:
    return kDataTypeFloat32;
  }
}

int swizzle_code(uint32_t bytes) { // CU_TENSOR_MAP_SWIZZLE_NONE, _32B, _64B, _128B
  return bytes == 32 ? 1 : bytes == 64 ? 2 : bytes == 128 ? 3 : 0;
}

struct CudaDriver {
  CuTensorMapEncodeTiled encode_tiled = nullptr;
  CuGetErrorName error_name = nullptr;
  CuDeviceGetCount device_count = nullptr;
  CuDeviceGet device_get = nullptr;
  CuDeviceGetAttribute device_attribute = nullptr;
  CuDevicePrimaryCtxRetain primary_context_retain = nullptr;
  CuCtxPushCurrent push_context = nullptr;
  CuCtxPopCurrent pop_context = nullptr;
  std::string load_error; // why it is unusable; empty when it is
  // The encoder wants a current CUDA context, though it only fills in host memory: the primary
  // context of the device, retained by the first map and kept (NVIDIA's OpenCL driver has its
  // own contexts; this one costs the device some memory, once per process).
  std::mutex mutex;                       // guards the contexts
  std::map<int, void *> primary_contexts; // by PCI bus
};

template <class Function> Function symbol(void *library, const char *name) {
  return reinterpret_cast<Function>(os::find_symbol(library, name));
}

// Loaded once per process and kept: NVIDIA's OpenCL driver holds it loaded anyway.
CudaDriver &cuda_driver() {
  static std::mutex mutex;
  static CudaDriver *driver = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (driver != nullptr)
    return *driver;
  auto loaded = new CudaDriver; // never freed: it may be in use until the process ends
  const char *name = os::cuda_driver_library_name();
  std::string reason;
  void *library = os::open_library(name, reason);
  if (library == nullptr) {
    loaded->load_error = fmt::format("the CUDA driver ({}) does not load: {}", name, reason);
  } else {
    auto init = symbol<CuInit>(library, "cuInit");
    loaded->encode_tiled = symbol<CuTensorMapEncodeTiled>(library, "cuTensorMapEncodeTiled");
    loaded->error_name = symbol<CuGetErrorName>(library, "cuGetErrorName");
    loaded->device_count = symbol<CuDeviceGetCount>(library, "cuDeviceGetCount");
    loaded->device_get = symbol<CuDeviceGet>(library, "cuDeviceGet");
    loaded->device_attribute = symbol<CuDeviceGetAttribute>(library, "cuDeviceGetAttribute");
    loaded->primary_context_retain =
        symbol<CuDevicePrimaryCtxRetain>(library, "cuDevicePrimaryCtxRetain");
    loaded->push_context = symbol<CuCtxPushCurrent>(library, "cuCtxPushCurrent_v2");
    loaded->pop_context = symbol<CuCtxPopCurrent>(library, "cuCtxPopCurrent_v2");
    if (init == nullptr || loaded->encode_tiled == nullptr || loaded->device_count == nullptr ||
        loaded->device_get == nullptr || loaded->device_attribute == nullptr ||
        loaded->primary_context_retain == nullptr || loaded->push_context == nullptr ||
        loaded->pop_context == nullptr)
      loaded->load_error = fmt::format("the CUDA driver ({}) lacks cuTensorMapEncodeTiled or the "
                                       "context calls it needs: it predates CUDA 12",
                                       name);
    else if (CuResult status = init(0); status != 0)
      loaded->load_error =
          fmt::format("the CUDA driver ({}) does not start: cuInit returned {}", name, status);
  }
  driver = loaded;
  return *driver;
}

std::string error_text(const CudaDriver &driver, CuResult status) {
  const char *name = nullptr;
  if (driver.error_name == nullptr || driver.error_name(status, &name) != 0 || name == nullptr)
    name = "unknown";
  return fmt::format("{} ({})", name, status);
}

// The primary context of the CUDA device on PCI bus `pci_bus` (any device when it is negative);
// call with the driver's mutex held.
void *primary_context(CudaDriver &driver, int pci_bus, const char *function) {
  if (auto known = driver.primary_contexts.find(pci_bus); known != driver.primary_contexts.end())
    return known->second;
  int count = 0;
  CuResult status = driver.device_count(&count);
  for (int ordinal = 0; status == 0 && ordinal < count; ++ordinal) {
    int device = 0, bus = -1;
    if (driver.device_get(&device, ordinal) != 0 ||
        driver.device_attribute(&bus, kAttributePciBusId, device) != 0 ||
        (pci_bus >= 0 && bus != pci_bus))
      continue;
    void *context = nullptr;
    status = driver.primary_context_retain(&context, device);
    if (status != 0)
      break;
    driver.primary_contexts[pci_bus] = context;
    return context;
  }
  fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED,
       status != 0
           ? fmt::format("{}: the CUDA driver gives no context: {}", function,
                         error_text(driver, status))
           : fmt::format("{}: the CUDA driver sees no device on PCI bus {}", function, pci_bus));
}

} // namespace

std::string tensor_maps_unavailable() {
  if (os::environment("MQLCL_CUDA_DRIVER") == "off")
    return "MQLCL_CUDA_DRIVER=off: the CUDA driver is not used";
  return cuda_driver().load_error;
}

std::array<uint64_t, 16> encode_tensor_map(const TensorMapRequest &request, const char *function) {
  if (const std::string why = tensor_maps_unavailable(); !why.empty())
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED, fmt::format("{}: {}", function, why));
  CudaDriver &driver = cuda_driver();
  std::lock_guard<std::mutex> lock(driver.mutex);
  void *context = primary_context(driver, request.pci_bus, function);
  if (CuResult status = driver.push_context(context); status != 0)
    fail(MQLCL_ERR_OPENCL_INTERNAL,
         fmt::format("{}: cuCtxPushCurrent: {}", function, error_text(driver, status)));
  alignas(64) std::array<uint64_t, 16> map{};
  const uint64_t dims[2] = {request.cols, request.rows};
  const uint64_t strides[1] = {request.row_pitch};
  const uint32_t box[2] = {request.box_cols, request.box_rows};
  const uint32_t element_strides[2] = {1, 1};
  CuResult status =
      driver.encode_tiled(map.data(), data_type(request.element), 2,
                          reinterpret_cast<void *>(static_cast<uintptr_t>(request.address)), dims,
                          strides, box, element_strides, kInterleaveNone,
                          swizzle_code(request.swizzle), kL2Promotion256, kOutOfBoundsZeros);
  void *popped = nullptr;
  driver.pop_context(&popped);
  if (status != 0)
    fail(MQLCL_ERR_OPENCL_INTERNAL, fmt::format("{}: cuTensorMapEncodeTiled refused the map: {}",
                                                function, error_text(driver, status)));
  return map;
}

} // namespace mqlcl
