// CLBufferTensorMap: a descriptor for Hopper's tensor-memory-access copies (cp.async.bulk.tensor),
// which move a tile of a row-major matrix from global to local memory in one instruction, laid
// out (and swizzled) as the tensor cores read it, with zeros past the matrix's edges. OpenCL
// cannot describe one; the CUDA driver encodes it (cuda_driver.hpp) from the buffer's device
// address, which a one-line kernel of the bridge reads.
#include "boundary.hpp"
#include "cl_api.hpp"
#include "cuda_driver.hpp"
#include "device_health.hpp"
#include "objects.hpp"
#include "tensor_maps.hpp"

#include <fmt/format.h>

#include <mutex>

using namespace mqlcl;

namespace {

constexpr const char *kFunction = "CLBufferTensorMap";
constexpr uint32_t kMapBytes = 128;    // sizeof(CUtensorMap)
constexpr uint32_t kMapAlignment = 64; // what the copy engine needs of a map's address
constexpr uint32_t kMaxBoxSide = 256;  // cuTensorMapEncodeTiled's limit per dimension

constexpr const char *kAddressSource =
    "__kernel void mqlcl_device_address(__global const uchar *buffer, __global ulong *address) {\n"
    "  *address = (ulong)buffer;\n"
    "}\n";

// Builds the context's address probe once; call with its mutex held.
void build_address_probe(Context &context) {
  AddressProbe &probe = context.address_probe;
  if (probe.kernel != nullptr)
    return;
  const ClApi &cl = cl_api();
  cl_int status = CL_SUCCESS;
  if (probe.program == nullptr) {
    const char *source = kAddressSource;
    probe.program = cl.clCreateProgramWithSource(context.context, 1, &source, nullptr, &status);
    check_cl(status, "CLBufferTensorMap: clCreateProgramWithSource", MQLCL_ERR_OPENCL_INTERNAL);
    status = cl.clBuildProgram(probe.program, 1, &context.device->id, "", nullptr, nullptr);
    if (status != CL_SUCCESS) {
      cl.clReleaseProgram(probe.program);
      probe.program = nullptr;
      check_cl(status, "CLBufferTensorMap: clBuildProgram", MQLCL_ERR_OPENCL_INTERNAL);
    }
  }
  if (probe.result == nullptr) {
    probe.result =
        cl.clCreateBuffer(context.context, CL_MEM_READ_WRITE, sizeof(cl_ulong), nullptr, &status);
    check_cl(status, "CLBufferTensorMap: clCreateBuffer", MQLCL_ERR_OPENCL_INTERNAL);
  }
  probe.kernel = cl.clCreateKernel(probe.program, "mqlcl_device_address", &status);
  check_cl(status, "CLBufferTensorMap: clCreateKernel", MQLCL_ERR_OPENCL_INTERNAL);
}

} // namespace

namespace mqlcl {

int pci_bus(const Device &device) {
  constexpr cl_device_info kPciBusIdNv = 0x4008; // CL_DEVICE_PCI_BUS_ID_NV
  cl_uint bus = 0;
  return cl_api().clGetDeviceInfo(device.id, kPciBusIdNv, sizeof bus, &bus, nullptr) == CL_SUCCESS
             ? static_cast<int>(bus)
             : -1;
}

void require_tensor_memory_access(const Device &device, const char *function) {
  constexpr cl_uint kNvidiaVendorId = 0x10DE;
  if (device.vendor_id != kNvidiaVendorId || device.compute_capability < 90)
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED,
         fmt::format("{}: tensor maps need an NVIDIA GPU of compute capability 9.0 or later; "
                     "device {} ({}) is not one",
                     function, device.ordinal, device.name));
}

uint64_t device_address(Context &context, cl_mem memory) {
  AddressProbe &probe = context.address_probe;
  std::lock_guard<std::mutex> lock(probe.mutex);
  build_address_probe(context);
  const ClApi &cl = cl_api();
  check_cl(cl.clSetKernelArg(probe.kernel, 0, sizeof(cl_mem), &memory),
           "CLBufferTensorMap: clSetKernelArg", MQLCL_ERR_OPENCL_INTERNAL);
  check_cl(cl.clSetKernelArg(probe.kernel, 1, sizeof(cl_mem), &probe.result),
           "CLBufferTensorMap: clSetKernelArg", MQLCL_ERR_OPENCL_INTERNAL);
  const size_t one = 1;
  check_cl(cl.clEnqueueNDRangeKernel(context.queue, probe.kernel, 1, nullptr, &one, &one, 0,
                                     nullptr, nullptr),
           "CLBufferTensorMap: clEnqueueNDRangeKernel", MQLCL_ERR_OPENCL_INTERNAL);
  cl_ulong address = 0;
  check_cl(cl.clEnqueueReadBuffer(context.queue, probe.result, CL_TRUE, 0, sizeof address, &address,
                                  0, nullptr, nullptr),
           "CLBufferTensorMap: clEnqueueReadBuffer", MQLCL_ERR_OPENCL_INTERNAL);
  return address;
}

} // namespace mqlcl

extern "C" {

MQLCL_API int32_t CLBufferTensorMap(int32_t map_buffer, uint32_t map_offset, int32_t buffer,
                                    uint32_t buffer_offset, uint32_t rows, uint32_t cols,
                                    uint32_t row_pitch, uint32_t box_rows, uint32_t box_cols,
                                    uint32_t swizzle, int32_t element_type) {
  return guarded(0, [&]() -> int32_t {
    auto map = buffer_of(map_buffer, kFunction);
    auto matrix = buffer_of(buffer, kFunction);
    if (map->context != matrix->context)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("{}: the map's buffer and the matrix's belong to different contexts",
                       kFunction));
    if (map_offset % kMapAlignment != 0 || map_offset >= map->size)
      fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET,
           fmt::format("{}: map_offset {} is not a multiple of {} inside the {}-byte buffer",
                       kFunction, map_offset, kMapAlignment, map->size),
           CL_INVALID_VALUE);
    if (uint64_t{map_offset} + kMapBytes > map->size)
      fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
           fmt::format("{}: the {}-byte map at offset {} runs past the end of the {}-byte buffer",
                       kFunction, kMapBytes, map_offset, map->size),
           CL_INVALID_VALUE);
    if (rows == 0 || cols == 0 || box_rows == 0 || box_cols == 0)
      fail(MQLCL_ERR_ZEROSIZE_ARRAY,
           fmt::format("{}: a {} x {} matrix in boxes of {} x {} is empty", kFunction, rows, cols,
                       box_rows, box_cols));
    if (element_type != MQLCL_TENSOR_FLOAT32 && element_type != MQLCL_TENSOR_TF32)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("{}: element_type {} is not MQLCL_TENSOR_FLOAT32 or MQLCL_TENSOR_TF32",
                       kFunction, element_type));
    const uint64_t row_bytes = uint64_t{cols} * 4;
    if (row_pitch % 16 != 0 || row_pitch < row_bytes || buffer_offset % 16 != 0)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("{}: row_pitch {} and buffer_offset {} must be multiples of 16, and the "
                       "pitch at least a row's {} bytes",
                       kFunction, row_pitch, buffer_offset, row_bytes));
    if (buffer_offset >= matrix->size)
      fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET,
           fmt::format("{}: buffer_offset {} is outside the {}-byte buffer", kFunction,
                       buffer_offset, matrix->size),
           CL_INVALID_VALUE);
    const uint64_t end = buffer_offset + uint64_t{rows - 1} * row_pitch + row_bytes;
    if (end > matrix->size)
      fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
           fmt::format("{}: a {} x {} matrix of row_pitch {} at offset {} needs {} bytes; the "
                       "buffer has {}",
                       kFunction, rows, cols, row_pitch, buffer_offset, end, matrix->size),
           CL_INVALID_VALUE);
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("{}: swizzle {} is not 0, 32, 64 or 128 bytes", kFunction, swizzle));
    if (box_rows > kMaxBoxSide || box_cols > kMaxBoxSide || box_cols * 4 % 16 != 0 ||
        (swizzle != 0 && box_cols * 4 > swizzle))
      fail(MQLCL_ERR_INVALID_PARAMETER,
           fmt::format("{}: a box of {} x {} floats: each side at most {}, a row whole 16-byte "
                       "chunks and, with a swizzle, no longer than it ({} bytes)",
                       kFunction, box_rows, box_cols, kMaxBoxSide, swizzle));
    require_tensor_memory_access(*matrix->context->device, kFunction);

    TensorMapRequest request;
    request.address = watching_device(*matrix->context->device, kFunction, [&] {
      return device_address(*matrix->context, matrix->memory) + buffer_offset;
    });
    request.rows = rows;
    request.cols = cols;
    request.row_pitch = row_pitch;
    request.box_rows = box_rows;
    request.box_cols = box_cols;
    request.swizzle = swizzle;
    request.element =
        element_type == MQLCL_TENSOR_TF32 ? TensorElement::tf32 : TensorElement::float32;
    request.pci_bus = pci_bus(*matrix->context->device);
    const std::array<uint64_t, 16> encoded = encode_tensor_map(request, kFunction);
    watching_device(*map->context->device, kFunction, [&] {
      check_cl(cl_api().clEnqueueWriteBuffer(map->context->queue, map->memory, CL_TRUE, map_offset,
                                             kMapBytes, encoded.data(), 0, nullptr, nullptr),
               "CLBufferTensorMap: clEnqueueWriteBuffer", MQLCL_ERR_OPENCL_INTERNAL);
    });
    return 1;
  });
}

} // extern "C"
