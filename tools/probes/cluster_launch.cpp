// Does the OpenCL driver launch thread-block clusters? Two PTX entries marked
// `.reqnctapercluster 2, 1, 1` (compute capability 9.0, sm_90a) through clCreateProgramWithBinary:
// `ranks` writes each CTA's %cluster_ctarank and %cluster_nctarank (and a word its partner stored
// into its local memory, where the cluster has two); `multicast` has each CTA of a pair copy half
// of 512 bytes to both CTAs by one multicast bulk copy and checks both got all 512. Where the
// driver ignores the cluster size (NVIDIA 580: every CTA a cluster of one) the first prints
// "of 1" and the second faults the context; the Ozaki scheme's integer products would otherwise
// share one operand's slices across a pair (kernels/gemm/ozaki_wgmma.cl). Build: g++ -O1 -o
// cluster_launch cluster_launch.cpp -lOpenCL; run on the GPU machine after sourcing
// tools/gpu-env.sh, which registers NVIDIA's OpenCL.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char *const kPtx = R"(
.version 8.0
.target sm_90a
.address_size 64
.entry ranks(.param .u64 .ptr .global .align 4 out)
.reqntid 64, 1, 1
.reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  .shared .align 4 .b32 slot;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r2, %cluster_nctarank;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, slot;
  mov.u32 %r6, 77777;
  st.shared.u32 [%r5], %r6;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  setp.ne.u32 %p1, %r4, 0;
  setp.ne.u32 %p2, %r2, 2;
  or.pred %p1, %p1, %p2;
  @%p1 bra SKIP;
  xor.b32 %r7, %r1, 1;
  mapa.shared::cluster.u32 %r8, %r5, %r7;
  st.shared::cluster.u32 [%r8], %r3;
SKIP:
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra END;
  ld.shared.u32 %r9, [%r5];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r3, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r9};
END:
  ret;
}
.entry multicast(.param .u64 .ptr .global .align 16 src, .param .u64 .ptr .global .align 16 dst)
.reqntid 64, 1, 1
.reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<10>;
  .reg .b16 %h<2>;
  .reg .pred %p<3>;
  .shared .align 128 .b8 buf[512];
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %cluster_ctarank;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, buf;
  mov.u32 %r6, bar;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra INITED;
  mov.u32 %r7, 1;
  mbarrier.init.shared::cta.b64 [%r6], %r7;
  fence.mbarrier_init.release.cluster;
INITED:
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  @%p1 bra WAIT;
  mov.u32 %r8, 512;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r6], %r8;
  ld.param.u64 %rd1, [src];
  mul.wide.u32 %rd2, %r1, 256;
  add.s64 %rd3, %rd1, %rd2;
  cvt.u32.u64 %r9, %rd2;
  add.u32 %r10, %r5, %r9;
  mov.u16 %h1, 3;
  mov.u32 %r11, 256;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r10], [%rd3], %r11, [%r6], %h1;
WAIT:
  mov.u32 %r12, 0;
LOOP:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], %r12;
  @!%p2 bra LOOP;
  mul.lo.u32 %r13, %r4, 8;
  add.u32 %r14, %r5, %r13;
  ld.shared.u64 %rd4, [%r14];
  ld.param.u64 %rd5, [dst];
  mul.wide.u32 %rd6, %r3, 512;
  add.s64 %rd7, %rd5, %rd6;
  cvt.u64.u32 %rd8, %r13;
  add.s64 %rd9, %rd7, %rd8;
  st.global.u64 [%rd9], %rd4;
  barrier.cluster.arrive.release;
  barrier.cluster.wait.acquire;
  ret;
}
)";

constexpr size_t kGroups = 8, kLocal = 64;

bool check(cl_int status, const char *what) {
  if (status != CL_SUCCESS)
    std::printf("%s: error %d\n", what, status);
  return status == CL_SUCCESS;
}

void run_ranks(cl_context context, cl_command_queue queue, cl_program program) {
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "ranks", &status);
  if (!check(status, "ranks: clCreateKernel"))
    return;
  cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, kGroups * 16, nullptr, &status);
  if (!check(status, "ranks: clCreateBuffer"))
    return;
  clSetKernelArg(kernel, 0, sizeof(out), &out);
  const size_t global = kGroups * kLocal;
  std::vector<unsigned> words(kGroups * 4, 0);
  if (!check(
          clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &kLocal, 0, nullptr, nullptr),
          "ranks: clEnqueueNDRangeKernel") ||
      !check(clFinish(queue), "ranks: clFinish") ||
      !check(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, kGroups * 16, words.data(), 0, nullptr,
                                 nullptr),
             "ranks: clEnqueueReadBuffer"))
    return;
  for (size_t g = 0; g < kGroups; ++g)
    std::printf("CTA %u: rank %u of %u, its slot %u (77777: untouched by a partner)\n",
                words[4 * g + 2], words[4 * g], words[4 * g + 1], words[4 * g + 3]);
}

void run_multicast(cl_context context, cl_command_queue queue, cl_program program) {
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = clCreateKernel(program, "multicast", &status);
  if (!check(status, "multicast: clCreateKernel"))
    return;
  std::vector<unsigned char> in(512), got(kGroups * 512, 0);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<unsigned char>(i * 7 + 3);
  cl_mem src =
      clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 512, in.data(), &status);
  if (!check(status, "multicast: clCreateBuffer (source)"))
    return;
  cl_mem dst = clCreateBuffer(context, CL_MEM_READ_WRITE, got.size(), nullptr, &status);
  if (!check(status, "multicast: clCreateBuffer (destination)"))
    return;
  clSetKernelArg(kernel, 0, sizeof(src), &src);
  clSetKernelArg(kernel, 1, sizeof(dst), &dst);
  const size_t global = kGroups * kLocal;
  if (!check(
          clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &kLocal, 0, nullptr, nullptr),
          "multicast: clEnqueueNDRangeKernel") ||
      !check(clFinish(queue), "multicast: clFinish") ||
      !check(
          clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, got.size(), got.data(), 0, nullptr, nullptr),
          "multicast: clEnqueueReadBuffer"))
    return;
  size_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i)
    wrong += got[i] != in[i % 512];
  std::printf("multicast: %zu of %zu bytes wrong\n", wrong, got.size());
}

} // namespace

int main() {
  cl_platform_id platforms[8];
  cl_uint count = 0;
  clGetPlatformIDs(8, platforms, &count);
  for (cl_uint p = 0; p < count; ++p) {
    char name[256] = {};
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof(name), name, nullptr);
    cl_device_id device = nullptr;
    if (!std::strstr(name, "NVIDIA") ||
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &device, nullptr) != CL_SUCCESS)
      continue;
    char device_name[256] = {}, driver[64] = {};
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(device_name), device_name, nullptr);
    clGetDeviceInfo(device, CL_DRIVER_VERSION, sizeof(driver), driver, nullptr);
    std::printf("%s, driver %s\n", device_name, driver);
    cl_int status = CL_SUCCESS, binary_status = CL_SUCCESS;
    cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
    if (!check(status, "clCreateContext"))
      return 1;
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &status);
    if (!check(status, "clCreateCommandQueueWithProperties"))
      return 1;
    const size_t length = std::strlen(kPtx) + 1;
    const auto *binary = reinterpret_cast<const unsigned char *>(kPtx);
    cl_program program =
        clCreateProgramWithBinary(context, 1, &device, &length, &binary, &binary_status, &status);
    if (!check(status, "clCreateProgramWithBinary"))
      return 1;
    if (!check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram")) {
      std::string log(16384, '\0');
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log.size(), log.data(), nullptr);
      std::printf("%s\n", log.c_str());
      return 1;
    }
    run_ranks(context, queue, program);
    run_multicast(context, queue, program); // last: where clusters are of one, it faults
    return 0;
  }
  std::printf("no NVIDIA OpenCL GPU\n");
  return 1;
}
