// CLGemm: the checks of a call, before anything is enqueued; gemm/ runs it. A refused call
// changes nothing (docs/errors.md lists each refusal with its test).
#include "api_gemm.hpp"

#include "boundary.hpp"
#include "cl_api.hpp"
#include "cuda_driver.hpp"
#include "device_health.hpp"
#include "gemm/gemm.hpp"
#include "gemm/operands.hpp"
#include "gemm/tensor_cores.hpp"
#include "objects.hpp"

#include <fmt/format.h>

#include <limits>

using namespace mqlcl;

namespace {

constexpr uint32_t kMaxBatch = 65535; // a grid's second and third dimensions on NVIDIA GPUs

void check_choice(int32_t value, int32_t last, const char *name) {
  if (value < 0 || value > last)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("CLGemm: {} is {}; it must be 0 to {}", name, value, last));
}

// The operand `name` as stored: `rows` x `cols` with rows ld apart (0: cols), in its buffer.
struct Stored {
  const char *name;
  uint64_t rows, cols;
};

uint64_t checked_add(uint64_t a, uint64_t b, const char *name) {
  uint64_t sum = a + b;
  if (sum < a)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE, fmt::format("CLGemm: {}'s extent overflows", name));
  return sum;
}

uint64_t checked_multiply(uint64_t a, uint64_t b, const char *name) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE, fmt::format("CLGemm: {}'s extent overflows", name));
  return a * b;
}

// One past the last element the operand covers, checked against its buffer.
uint64_t check_extent(const Stored &stored, gemm::Operand &operand, uint32_t batch,
                      size_t element_size) {
  if (operand.ld == 0)
    operand.ld = stored.cols;
  if (operand.ld < stored.cols)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("CLGemm: ld{} is {}, less than the {} columns {} has as stored", stored.name,
                     operand.ld, stored.cols, stored.name));
  const uint64_t elements = operand.buffer->size / element_size;
  if (operand.offset >= elements)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET,
         fmt::format("CLGemm: offset_{} is {}, past the {} elements of its buffer", stored.name,
                     operand.offset, elements));
  uint64_t end = checked_add(operand.offset,
                             checked_multiply(batch - 1, operand.stride, stored.name), stored.name);
  end = checked_add(end, checked_multiply(stored.rows - 1, operand.ld, stored.name), stored.name);
  end = checked_add(end, stored.cols, stored.name);
  if (end > elements)
    fail(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
         fmt::format("CLGemm: {} ({} x {}, ld {}, offset {}, batch {} x stride {}) needs {} "
                     "elements; its buffer holds {}",
                     stored.name, stored.rows, stored.cols, operand.ld, operand.offset, batch,
                     operand.stride, end, elements));
  return end;
}

void check_buffers(const gemm::Call &call) {
  for (const gemm::Operand *operand : {&call.a, &call.b})
    if (operand->buffer->context != call.c.buffer->context)
      fail(MQLCL_ERR_OPENCL_INVALID_HANDLE, "CLGemm: A, B and C must be buffers of one context");
  if (call.c.buffer->flags & MQLCL_MEM_READ_ONLY)
    fail(MQLCL_ERR_INVALID_PARAMETER, "CLGemm: C's buffer was created MQLCL_MEM_READ_ONLY");
  for (const gemm::Operand *operand : {&call.a, &call.b})
    if (operand->buffer->flags & MQLCL_MEM_WRITE_ONLY)
      fail(MQLCL_ERR_INVALID_PARAMETER,
           "CLGemm: A's or B's buffer was created MQLCL_MEM_WRITE_ONLY");
}

// C's span may not meet A's or B's in one buffer, nor its batch's matrices share an element.
void check_overlaps(const gemm::Call &call, uint64_t end_a, uint64_t end_b, uint64_t end_c) {
  auto meets = [&](const gemm::Operand &operand, uint64_t end) {
    return operand.buffer->memory == call.c.buffer->memory && operand.offset < end_c &&
           call.c.offset < end;
  };
  if (meets(call.a, end_a) || meets(call.b, end_b))
    fail(MQLCL_ERR_INVALID_PARAMETER, "CLGemm: C overlaps A or B in the same buffer");
  if (gemm::batch_shares_elements(call.m, call.n, call.c.ld, call.c.stride, call.batch))
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("CLGemm: stride_c is {}: C's matrices of the batch ({} x {}, ldc {}) would "
                     "share elements",
                     call.c.stride, call.m, call.n, call.c.ld));
}

static_assert(static_cast<int>(gemm::Precision::exact) == MQLCL_GEMM_EXACT &&
              static_cast<int>(gemm::Precision::accurate) == MQLCL_GEMM_ACCURATE &&
              static_cast<int>(gemm::Precision::tf32) == MQLCL_GEMM_TF32 &&
              static_cast<int>(gemm::Precision::fastest) == MQLCL_GEMM_FASTEST);

void check_device(const gemm::Call &call, int32_t precision) {
  const Device &device = *call.c.buffer->context->device;
  if (call.double_precision && !device.has_fp64)
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED,
         fmt::format("CLGemm: {} has no double precision (cl_khr_fp64)", device.name));
  if (precision == MQLCL_GEMM_TF32 && call.double_precision)
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED,
         "CLGemm: MQLCL_GEMM_TF32 is a precision of float products, not of double ones");
  if (precision == MQLCL_GEMM_TF32 && !gemm::offers_tensor_cores(device))
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED,
         fmt::format("CLGemm: MQLCL_GEMM_TF32 is not offered on {}: it runs on the tensor cores "
                     "of an NVIDIA GPU of compute capability 9.0 (H100, H200); "
                     "MQLCL_GEMM_FASTEST runs the fastest precision the device has",
                     device.name));
}

// After check_extent: the layouts are whole (ld 0 filled in).
void check_tensor_core_layout(const gemm::Call &call) {
  if (call.precision == gemm::Precision::tf32 &&
      !gemm::fits_tensor_cores(call, tensor_maps_unavailable().empty()))
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED,
         fmt::format("CLGemm: MQLCL_GEMM_TF32 takes m, n and k below 2^31, n * k (without tensor "
                     "maps m * k too) below 2^33, and no batch of A or B whose matrices share "
                     "elements where it copies "
                     "them (m {}, n {}, k {}); MQLCL_GEMM_EXACT reads such operands in place",
                     call.m, call.n, call.k));
}

void check_sizes(uint32_t m, uint32_t n, uint32_t k, uint32_t batch) {
  if (m == 0 || n == 0 || k == 0 || batch == 0)
    fail(MQLCL_ERR_ZEROSIZE_ARRAY,
         fmt::format("CLGemm: m, n, k and batch must be 1 or more (m {}, n {}, k {}, batch {})", m,
                     n, k, batch));
  if (batch > kMaxBatch)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("CLGemm: batch is {}; at most {} products run in one call", batch, kMaxBatch));
}

} // namespace

namespace mqlcl {

gemm::Call checked_gemm_call(int32_t buffer_a, int32_t buffer_b, int32_t buffer_c,
                             int32_t element_type, int32_t precision, int32_t transpose_a,
                             int32_t transpose_b, uint32_t m, uint32_t n, uint32_t k, double alpha,
                             double beta, uint64_t offset_a, uint32_t lda, uint64_t offset_b,
                             uint32_t ldb, uint64_t offset_c, uint32_t ldc, uint32_t batch,
                             uint64_t stride_a, uint64_t stride_b, uint64_t stride_c) {
  check_choice(element_type, MQLCL_GEMM_DOUBLE, "element_type");
  check_choice(precision, MQLCL_GEMM_FASTEST, "precision");
  check_choice(transpose_a, 1, "transpose_a");
  check_choice(transpose_b, 1, "transpose_b");
  check_sizes(m, n, k, batch);
  gemm::Call call;
  call.a = {buffer_of(buffer_a, "CLGemm"), offset_a, lda, stride_a, transpose_a == 1};
  call.b = {buffer_of(buffer_b, "CLGemm"), offset_b, ldb, stride_b, transpose_b == 1};
  call.c = {buffer_of(buffer_c, "CLGemm"), offset_c, ldc, stride_c, false};
  call.double_precision = element_type == MQLCL_GEMM_DOUBLE;
  call.precision = static_cast<gemm::Precision>(precision);
  call.m = m;
  call.n = n;
  call.k = k;
  call.batch = batch;
  call.alpha = alpha;
  call.beta = beta;
  check_buffers(call);
  check_device(call, precision);
  const size_t element_size = call.double_precision ? 8 : 4;
  uint64_t end_a =
      check_extent({"a", transpose_a ? k : m, transpose_a ? m : k}, call.a, batch, element_size);
  uint64_t end_b =
      check_extent({"b", transpose_b ? n : k, transpose_b ? k : n}, call.b, batch, element_size);
  uint64_t end_c = check_extent({"c", m, n}, call.c, batch, element_size);
  check_overlaps(call, end_a, end_b, end_c);
  check_tensor_core_layout(call);
  call.index64 = gemm::needs_index64(call); // after check_extent has filled in ld 0
  return call;
}

} // namespace mqlcl

extern "C" {

MQLCL_API int32_t CLGemm(int32_t buffer_a, int32_t buffer_b, int32_t buffer_c, int32_t element_type,
                         int32_t precision, int32_t transpose_a, int32_t transpose_b, uint32_t m,
                         uint32_t n, uint32_t k, double alpha, double beta, uint64_t offset_a,
                         uint32_t lda, uint64_t offset_b, uint32_t ldb, uint64_t offset_c,
                         uint32_t ldc, uint32_t batch, uint64_t stride_a, uint64_t stride_b,
                         uint64_t stride_c) {
  return guarded(0, [&] {
    const gemm::Call call =
        checked_gemm_call(buffer_a, buffer_b, buffer_c, element_type, precision, transpose_a,
                          transpose_b, m, n, k, alpha, beta, offset_a, lda, offset_b, ldb, offset_c,
                          ldc, batch, stride_a, stride_b, stride_c);
    Context &context = *call.c.buffer->context;
    watching_device(*context.device, "CLGemm", [&] { gemm::enqueue(context, call); });
    return 1;
  });
}

} // extern "C"
