// CLBufferTensorMap (docs/api.md). On any device: every refusal, with its code, before anything
// reaches OpenCL or the CUDA driver; then the real request, which a device that is not an NVIDIA
// Hopper GPU (PoCL in CI) refuses with ERR_OPENCL_NOT_SUPPORTED and an H100/H200 grants. On a
// Hopper GPU a kernel then copies boxes through the maps with cp.async.bulk.tensor, and every
// float it finds in local memory is checked: the box's values, zeros past the matrix's edges, and
// TF32-typed maps rounding on the way.
#define BOOST_TEST_MODULE bridge_tensor_map
#include "opencl_device.hpp"
#include "scoped_environment.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace mqlcl_test;

namespace {

// A 5 x 12 matrix of floats, rows 48 bytes apart; maps go into a 256-byte buffer.
constexpr uint32_t kRows = 5, kCols = 12, kPitch = kCols * 4;

struct Fixture {
  Context context = make_context();
  Buffer maps = make_buffer(context, 256);
  Buffer matrix = make_buffer(context, kRows *kPitch);
};

// One work-group: work-item 0 copies the 8 x 8 box at (row, col) of the tensor map at `maps`
// into local memory (no swizzle: 8 rows of 32 bytes), and every work-item stores 1 float of it.
const char16_t *const kCopyKernel = uR"CL(
__kernel void copy_box(__global const ulong *maps, __global float *out, int row, int col)
{
  __local float box[64] __attribute__((aligned(128)));
  __local ulong bar;
  const uint box_at = (uint)(size_t)box, bar_at = (uint)(size_t)&bar;
  if (get_local_id(0) == 0) {
    asm volatile("//@sm_90a mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_at) : "memory");
    asm volatile("//@sm_90a fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("//@sm_90a fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(maps)
                 : "memory");
    asm volatile("//@sm_90a mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 256;"
                 :: "r"(bar_at) : "memory");
    asm volatile("//@sm_90a cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(box_at), "l"(maps), "r"(col), "r"(row), "r"(bar_at) : "memory");
    uint done = 0;
    while (!done)
      asm volatile("//@sm_90a { .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;"
                   " selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(bar_at) : "memory");
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_local_id(0)] = box[get_local_id(0)];
}
)CL";

} // namespace

BOOST_AUTO_TEST_SUITE(tensor_map, *boost::unit_test::precondition(needs_device()))

BOOST_AUTO_TEST_CASE(every_refusal_has_its_code) {
  Fixture f;
  Context other = make_context();
  Buffer elsewhere = make_buffer(other, 256);
  auto map = [&](int32_t map_buffer, uint32_t map_offset, int32_t buffer, uint32_t buffer_offset,
                 uint32_t rows, uint32_t cols, uint32_t pitch, uint32_t box_rows, uint32_t box_cols,
                 uint32_t swizzle, int32_t type) {
    return CLBufferTensorMap(map_buffer, map_offset, buffer, buffer_offset, rows, cols, pitch,
                             box_rows, box_cols, swizzle, type);
  };
  const int32_t fp32 = MQLCL_TENSOR_FLOAT32;
  // Handles: not buffers, freed, or buffers of two contexts.
  MQLCL_CHECK_FAILS(map(f.context, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(map(f.maps, 0, -1, 0, kRows, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_INVALID_HANDLE);
  MQLCL_CHECK_FAILS(map(elsewhere, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  // The map's place: 64-byte aligned, 128 bytes inside its buffer.
  MQLCL_CHECK_FAILS(map(f.maps, 32, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
  MQLCL_CHECK_FAILS(map(f.maps, 256, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
  MQLCL_CHECK_FAILS(map(f.maps, 192, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  // Empty matrices and boxes, unknown element types.
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, 0, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_ZEROSIZE_ARRAY);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 0, 0, fp32), 0,
                    MQLCL_ERR_ZEROSIZE_ARRAY);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 0, 2), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  // Pitch and offset in whole 16-byte chunks, the pitch at least a row.
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, 40, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, 32, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 8, kRows, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  // The matrix inside its buffer, in 64-bit arithmetic.
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 16, kRows, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows + 1, kCols, kPitch, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, kRows * kPitch, 1, 4, 16, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, UINT32_MAX, 4, 0xFFFFFFF0u, 8, 8, 0, fp32), 0,
                    MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE);
  // Swizzles and boxes the copy engine cannot do.
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 16, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 257, 8, 0, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 6, 0, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 16, 32, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
  MQLCL_CHECK_FAILS(map(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 8, UINT32_MAX, 0, fp32), 0,
                    MQLCL_ERR_INVALID_PARAMETER);
}

// Whether the last call was refused for want of the CUDA driver: on Windows, nvcuda.dll, which
// Wine does not have (tools/gpu-wine.sh runs these tests under Wine on the GPU machine); Linux's
// NVIDIA OpenCL driver comes with libcuda.so.1, so there a Hopper GPU must be granted its maps.
bool refused_for_want_of_the_cuda_driver() {
#ifdef _WIN32
  return CLGetLastError() == MQLCL_ERR_OPENCL_NOT_SUPPORTED &&
         last_error_text().find("nvcuda.dll") != std::string::npos;
#else
  return false;
#endif
}

BOOST_AUTO_TEST_CASE(a_valid_request_is_granted_only_on_hopper) {
  Fixture f;
  std::vector<uint8_t> before(256, 0x5A), after(256);
  BOOST_TEST_REQUIRE(CLBufferWrite(f.maps, before.data(), 0, 0, 256, 1) == 256u);
  CLResetLastError();
  const int32_t granted = CLBufferTensorMap(f.maps, 64, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 32,
                                            MQLCL_TENSOR_FLOAT32);
  BOOST_TEST_MESSAGE("CLBufferTensorMap: " << granted << ", " << last_error);
  const bool no_cuda_driver = granted == 0 && refused_for_want_of_the_cuda_driver(); // as it failed
  BOOST_TEST_REQUIRE(CLBufferRead(f.maps, after.data(), 0, 0, 256, 1) == 256u);
  if (!is_nvidia_hopper(f.context)) {
    BOOST_TEST_MESSAGE("not an NVIDIA Hopper GPU: the request must be refused");
    BOOST_TEST(granted == 0);
    BOOST_TEST(CLGetLastError() == MQLCL_ERR_OPENCL_NOT_SUPPORTED, last_error);
    BOOST_TEST(after == before, "a refused request wrote into the map's buffer");
    return;
  }
  if (no_cuda_driver) {
    BOOST_TEST_MESSAGE("an NVIDIA Hopper GPU without the CUDA driver: the request was refused");
    BOOST_TEST(after == before, "a refused request wrote into the map's buffer");
    return;
  }
  BOOST_TEST_MESSAGE("an NVIDIA Hopper GPU: the request must be granted");
  BOOST_TEST(granted == 1, last_error);
  BOOST_TEST(CLGetLastError() == MQLCL_ERR_SUCCESS);
  // The 128 bytes at 64 are the map; nothing else of the buffer changed.
  BOOST_TEST(std::memcmp(after.data(), before.data(), 64) == 0);
  BOOST_TEST(std::memcmp(after.data() + 192, before.data() + 192, 64) == 0);
  BOOST_TEST(std::memcmp(after.data() + 64, before.data() + 64, 128) != 0);
}

// MQLCL_CUDA_DRIVER=off refuses a map as where the CUDA driver is missing, and writes nothing;
// with the switch gone, the next request is granted.
BOOST_AUTO_TEST_CASE(the_switch_refuses_maps_as_without_the_cuda_driver) {
  Fixture f;
  if (!is_nvidia_hopper(f.context)) {
    BOOST_TEST_MESSAGE("not an NVIDIA Hopper GPU: every request is refused (above)");
    return;
  }
  std::vector<uint8_t> before(256, 0x5A), after(256);
  BOOST_TEST_REQUIRE(CLBufferWrite(f.maps, before.data(), 0, 0, 256, 1) == 256u);
  {
    ScopedEnvironment off("MQLCL_CUDA_DRIVER", std::optional<std::string>("off"));
    MQLCL_CHECK_FAILS(CLBufferTensorMap(f.maps, 64, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 32,
                                        MQLCL_TENSOR_FLOAT32),
                      0, MQLCL_ERR_OPENCL_NOT_SUPPORTED);
    BOOST_TEST(last_error_text().find("MQLCL_CUDA_DRIVER=off") != std::string::npos, last_error);
  }
  BOOST_TEST_REQUIRE(CLBufferRead(f.maps, after.data(), 0, 0, 256, 1) == 256u);
  BOOST_TEST(after == before, "a refused request wrote into the map's buffer");
  const int32_t granted = CLBufferTensorMap(f.maps, 64, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 32,
                                            MQLCL_TENSOR_FLOAT32);
  if (granted == 0 && refused_for_want_of_the_cuda_driver())
    return;
  BOOST_TEST(granted == 1, last_error);
}

BOOST_AUTO_TEST_CASE(the_copy_engine_reads_the_boxes_the_maps_describe) {
  Fixture f;
  if (!is_nvidia_hopper(f.context)) {
    BOOST_TEST_MESSAGE("not an NVIDIA Hopper GPU: no copy engine to check");
    return;
  }
  if (CLBufferTensorMap(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 0,
                        MQLCL_TENSOR_FLOAT32) == 0 &&
      refused_for_want_of_the_cuda_driver()) {
    BOOST_TEST_MESSAGE("no CUDA driver: no map to copy by: " << last_error);
    return;
  }
  // Values with low mantissa bits set, so that a TF32 map's rounding shows.
  std::vector<float> values(kRows * kCols);
  for (uint32_t i = 0; i < values.size(); ++i)
    values[i] = 1.0f + static_cast<float>(i) / 64.0f + static_cast<float>(i % 7 + 1) * 0x1p-20f;
  BOOST_TEST_REQUIRE(CLBufferWrite(f.matrix, values.data(), 0, 0,
                                   static_cast<uint32_t>(values.size()), 4) == values.size());
  Program program(CLProgramCreateEx(f.context, kCopyKernel, u"-mqlcl-nv-sm90a", nullptr, 0));
  BOOST_TEST_REQUIRE(program.get() != MQLCL_INVALID_HANDLE, last_error);
  Kernel kernel = make_kernel(program, u"copy_box");
  Buffer out = make_buffer(f.context, 64 * 4);
  for (int32_t type : {MQLCL_TENSOR_FLOAT32, MQLCL_TENSOR_TF32}) {
    BOOST_TEST_REQUIRE(
        CLBufferTensorMap(f.maps, 0, f.matrix, 0, kRows, kCols, kPitch, 8, 8, 0, type) == 1,
        last_error);
    // Boxes at the origin, across the right edge, and past the bottom and right edges.
    for (auto [row, col] : {std::pair{0, 0}, std::pair{0, 8}, std::pair{3, 4}}) {
      BOOST_TEST_REQUIRE((CLSetKernelArgMem(kernel, 0, f.maps) == 1 &&
                          CLSetKernelArgMem(kernel, 1, out) == 1 &&
                          CLSetKernelArg(kernel, 2, &row, sizeof row) == 1 &&
                          CLSetKernelArg(kernel, 3, &col, sizeof col) == 1),
                         last_error);
      const uint32_t offset = 0, items = 64;
      BOOST_TEST_REQUIRE(CLExecute(kernel, 1, &offset, &items, &items) == 1, last_error);
      std::vector<float> box(64);
      BOOST_TEST_REQUIRE(CLBufferRead(out, box.data(), 0, 0, 64, 4) == 64u, last_error);
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 8; ++c) {
          const int m = row + r, k = col + c;
          const float got = box[r * 8 + c];
          if (m >= static_cast<int>(kRows) || k >= static_cast<int>(kCols)) {
            BOOST_TEST(got == 0.0f, "box (" << row << "," << col << ") [" << r << "][" << c
                                            << "] past the edge holds " << got);
            continue;
          }
          const float want = values[m * kCols + k];
          if (type == MQLCL_TENSOR_FLOAT32) {
            BOOST_TEST(got == want, "[" << m << "][" << k << "]");
          } else { // TF32: 10 mantissa bits, within half their last place
            uint32_t bits = 0;
            std::memcpy(&bits, &got, sizeof bits);
            BOOST_TEST((bits & 0x1FFFu) == 0u, "[" << m << "][" << k << "] keeps low bits");
            BOOST_TEST(std::fabs(got - want) <= std::ldexp(std::fabs(want), -11),
                       "[" << m << "][" << k << "] " << got << " against " << want);
          }
        }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
