// cuBLAS's INT8 product (cublasGemmEx, s8 x s8 -> s32, CUBLAS_COMPUTE_32I, A transposed as INT8
// requires) at n x n x n on random chars: the rate the device's own library reaches for the
// products the Ozaki scheme runs (docs/performance.md). Build: nvcc -O2 -o cublas_int8
// cublas_int8.cu -lcublas; run: cublas_int8 8192 [repeats].
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                                                \
  do {                                                                                             \
    const int status = int(call);                                                                  \
    if (status != 0) {                                                                             \
      std::fprintf(stderr, "%s: %d\n", #call, status);                                             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8192, repeats = argc > 2 ? std::atoi(argv[2]) : 20;
  const size_t elements = size_t(n) * n;
  std::vector<signed char> host(elements);
  std::mt19937 random(1);
  std::uniform_int_distribution<int> residue(-127, 127);
  for (signed char &x : host)
    x = static_cast<signed char>(residue(random));
  signed char *a = nullptr, *b = nullptr;
  int *c = nullptr;
  CHECK(cudaMalloc(&a, elements));
  CHECK(cudaMalloc(&b, elements));
  CHECK(cudaMalloc(&c, elements * sizeof(int)));
  CHECK(cudaMemcpy(a, host.data(), elements, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, host.data(), elements, cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  const int one = 1, zero = 0;
  auto product = [&] {
    return cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, a, CUDA_R_8I, n, b,
                        CUDA_R_8I, n, &zero, c, CUDA_R_32I, n, CUBLAS_COMPUTE_32I,
                        CUBLAS_GEMM_DEFAULT);
  };
  for (int warm = 0; warm < 3; ++warm)
    CHECK(product());
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  float best = 1e30f;
  for (int r = 0; r < repeats; ++r) {
    CHECK(cudaEventRecord(start));
    CHECK(product());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = ms < best ? ms : best;
  }
  cudaDeviceProp properties;
  CHECK(cudaGetDeviceProperties(&properties, 0));
  std::printf("%s: cublasGemmEx s8 %d^3: best of %d %.3f ms, %.0f TOPS\n", properties.name, n,
              repeats, best, 2.0 * n * n * double(n) / (best * 1e-3) / 1e12);
  return 0;
}
