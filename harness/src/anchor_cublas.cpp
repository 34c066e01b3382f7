// cuBLAS's SGEMM (FP32 and TF32) for bench, and its general products for gemm, on NVIDIA GPUs.
#include "anchors_detail.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>

namespace mqlcl::replay {

namespace {

// The CUDA runtime and cuBLAS, loaded on first use and never unloaded, as OpenCL is
// (RawOpenCL::load): the runtime keeps threads and memory of its own until the process ends.
struct CudaLibraries {
  std::optional<boost::dll::shared_library> cudart, cublas;
  std::string tried;
};

const CudaLibraries &cuda_libraries() {
  static const CudaLibraries *const loaded = [] {
    auto *libraries = new CudaLibraries;
    std::vector<std::string> dirs = {environment("MQLCL_CUDA_LIBRARY_DIR"),
                                     "/usr/local/cuda/lib64"};
    libraries->cudart =
        load_first({"libcudart.so.13", "libcudart.so.12", "libcudart.so"}, dirs, libraries->tried);
    libraries->cublas =
        load_first({"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, dirs, libraries->tried);
    return libraries;
  }();
  return *loaded;
}

// Runs `call` repeat + 1 times between two CUDA events, the first call a warm-up, and adds the
// others' times to `seconds`. Stops at the first call that fails, and returns its status (0: none
// failed).
template <class Call>
int time_with_cuda_events(const CudaLibraries &libraries, uint32_t repeat, Samples &seconds,
                          Call call) {
  const auto &cudart = *libraries.cudart;
  auto &event_create = cudart.get<int(void **)>("cudaEventCreate");
  auto &event_record = cudart.get<int(void *, void *)>("cudaEventRecord");
  auto &event_synchronize = cudart.get<int(void *)>("cudaEventSynchronize");
  auto &event_elapsed = cudart.get<int(float *, void *, void *)>("cudaEventElapsedTime");
  auto &event_destroy = cudart.get<int(void *)>("cudaEventDestroy");
  void *start = nullptr, *stop = nullptr;
  event_create(&start);
  event_create(&stop);
  int status = 0;
  for (uint32_t r = 0; r <= repeat; ++r) {
    event_record(start, nullptr);
    status = call();
    event_record(stop, nullptr);
    event_synchronize(stop);
    float milliseconds = 0;
    event_elapsed(&milliseconds, start, stop);
    if (status != 0)
      break;
    if (r > 0)
      seconds.values.push_back(milliseconds * 1e-3);
  }
  event_destroy(start);
  event_destroy(stop);
  return status;
}

// cublas_sgemm's products on device copies of A and B: their times and the last C into `result`.
void time_sgemm(const CudaLibraries &libraries, void *handle, const GemmProblem &p, uint32_t repeat,
                AnchorResult &result) {
  const auto &cudart = *libraries.cudart;
  auto &cuda_malloc = cudart.get<int(void **, size_t)>("cudaMalloc");
  auto &cuda_free = cudart.get<int(void *)>("cudaFree");
  auto &cuda_memcpy = cudart.get<int(void *, const void *, size_t, int)>("cudaMemcpy");
  using Sgemm = int(void *, int, int, int, int, int, const float *, const float *, int,
                    const float *, int, const float *, float *, int);
  auto &sgemm = libraries.cublas->get<Sgemm>("cublasSgemm_v2");
  constexpr int kHostToDevice = 1, kDeviceToHost = 2;
  void *a = nullptr, *b = nullptr, *c = nullptr;
  size_t c_bytes = size_t{p.m} * p.n * 4;
  if (cuda_malloc(&a, p.a->size() * 4) != 0 || cuda_malloc(&b, p.b->size() * 4) != 0 ||
      cuda_malloc(&c, c_bytes) != 0) {
    result.note += ": cudaMalloc failed";
  } else {
    cuda_memcpy(a, p.a->data(), p.a->size() * 4, kHostToDevice);
    cuda_memcpy(b, p.b->data(), p.b->size() * 4, kHostToDevice);
    const float one = 1.0f, zero = 0.0f;
    // Column-major view: C^T (N x M) = op(B) * A^T with op(B) = B^T (B stored K x N, ld K).
    constexpr int kNoTranspose = 0, kTranspose = 1;
    int status = time_with_cuda_events(libraries, repeat, result.seconds, [&] {
      return sgemm(handle, kTranspose, kNoTranspose, static_cast<int>(p.n), static_cast<int>(p.m),
                   static_cast<int>(p.k), &one, static_cast<const float *>(b),
                   static_cast<int>(p.k), static_cast<const float *>(a), static_cast<int>(p.k),
                   &zero, static_cast<float *>(c), static_cast<int>(p.n));
    });
    if (status != 0)
      result.note += fmt::format(": cublasSgemm failed with status {}", status);
    result.product.resize(size_t{p.m} * p.n);
    cuda_memcpy(result.product.data(), c, c_bytes, kDeviceToHost);
    result.available = !result.seconds.empty();
  }
  cuda_free(a);
  cuda_free(b);
  cuda_free(c);
}

} // namespace

AnchorResult cublas_sgemm(const GemmProblem &p, uint32_t repeat, bool tf32) {
  AnchorResult result;
  result.name = tf32 ? "cuBLAS SGEMM (TF32 tensor cores)" : "cuBLAS SGEMM (FP32)";
  result.timing = "CUDA events around cublasSgemm, after one warm-up call";
  const CudaLibraries &libraries = cuda_libraries();
  if (!libraries.cudart || !libraries.cublas) {
    result.note = "the CUDA runtime or cuBLAS is not installed (tried " + libraries.tried + ")";
    return result;
  }
  // The cuBLAS C API: errors are ints, 0 is success; handles are pointers.
  const auto &cublas = *libraries.cublas;
  void *handle = nullptr;
  if (cublas.get<int(void **)>("cublasCreate_v2")(&handle) != 0) {
    result.note = "cublasCreate failed (no CUDA device?)";
    return result;
  }
  int version = 0;
  cublas.get<int(void *, int *)>("cublasGetVersion_v2")(handle, &version);
  result.note = fmt::format("{} (cuBLAS {})", cublas.location().string(), version);
  constexpr int kPedanticMath = 2, kTf32TensorOpMath = 3;
  cublas.get<int(void *, int)>("cublasSetMathMode")(handle,
                                                    tf32 ? kTf32TensorOpMath : kPedanticMath);
  time_sgemm(libraries, handle, p, repeat, result);
  cublas.get<int(void *)>("cublasDestroy_v2")(handle);
  return result;
}

namespace {

// Device copies of a GeneralGemm's operands in its element type, freed with the object.
class CudaOperands {
public:
  CudaOperands(const CudaLibraries &libraries, const GeneralGemm &p)
      : free_(&libraries.cudart->get<int(void *)>("cudaFree")),
        copy_(&libraries.cudart->get<int(void *, const void *, size_t, int)>("cudaMemcpy")),
        size_(p.double_precision ? 8 : 4) {
    auto &allocate = libraries.cudart->get<int(void **, size_t)>("cudaMalloc");
    c_elements_ = size_t{p.m} * p.n * p.batch;
    ok_ = allocate(&a_, p.a->size() * size_) == 0 && allocate(&b_, p.b->size() * size_) == 0 &&
          allocate(&c_, c_elements_ * size_) == 0 && upload(a_, *p.a) && upload(b_, *p.b);
  }
  ~CudaOperands() {
    for (void *memory : {a_, b_, c_})
      if (memory != nullptr)
        free_(memory);
  }
  CudaOperands(const CudaOperands &) = delete;
  CudaOperands &operator=(const CudaOperands &) = delete;
  bool ok() const { return ok_; }
  void *a() const { return a_; }
  void *b() const { return b_; }
  void *c() const { return c_; }
  std::vector<double> product() const {
    std::vector<double> out(c_elements_);
    if (size_ == 8) {
      copy_(out.data(), c_, c_elements_ * 8, kDeviceToHost);
    } else {
      std::vector<float> values(c_elements_);
      copy_(values.data(), c_, c_elements_ * 4, kDeviceToHost);
      out.assign(values.begin(), values.end());
    }
    return out;
  }

private:
  static constexpr int kHostToDevice = 1, kDeviceToHost = 2;
  bool upload(void *to, const std::vector<double> &values) {
    if (size_ == 8)
      return copy_(to, values.data(), values.size() * 8, kHostToDevice) == 0;
    std::vector<float> narrowed(values.begin(), values.end());
    return copy_(to, narrowed.data(), narrowed.size() * 4, kHostToDevice) == 0;
  }
  int (*free_)(void *);
  int (*copy_)(void *, const void *, size_t, int);
  size_t size_;
  size_t c_elements_ = 0;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  bool ok_ = false;
};

// One cuBLAS call of the problem in T (DGEMM or SGEMM, strided-batched for a batch), in the
// column-major view of row-major matrices: C^T (n x m) = op(B)^T * op(A)^T, so B comes first and
// each operand keeps its own transpose.
template <class T>
int call_cublas_of(const boost::dll::shared_library &cublas, void *handle, const GeneralGemm &p,
                   const CudaOperands &on) {
  constexpr int kNo = 0, kYes = 1;
  constexpr bool kDouble = std::is_same_v<T, double>;
  const int ta = p.transpose_b ? kYes : kNo, tb = p.transpose_a ? kYes : kNo;
  const int n = int(p.n), m = int(p.m), k = int(p.k);
  const int ldb = int(p.transpose_b ? p.k : p.n), lda = int(p.transpose_a ? p.m : p.k);
  const long long stride_b = (long long)p.n * p.k, stride_a = (long long)p.m * p.k,
                  stride_c = (long long)p.m * p.n;
  const T one = 1, zero = 0;
  auto *b = static_cast<const T *>(on.b()), *a = static_cast<const T *>(on.a());
  auto *c = static_cast<T *>(on.c());
  if (p.batch > 1)
    return cublas.get<int(void *, int, int, int, int, int, const T *, const T *, int, long long,
                          const T *, int, long long, const T *, T *, int, long long, int)>(
        kDouble ? "cublasDgemmStridedBatched"
                : "cublasSgemmStridedBatched")(handle, ta, tb, n, m, k, &one, b, ldb, stride_b, a,
                                               lda, stride_a, &zero, c, n, stride_c, int(p.batch));
  return cublas.get<int(void *, int, int, int, int, int, const T *, const T *, int, const T *, int,
                        const T *, T *, int)>(kDouble ? "cublasDgemm_v2" : "cublasSgemm_v2")(
      handle, ta, tb, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
}

int call_cublas(const CudaLibraries &libraries, void *handle, const GeneralGemm &p,
                const CudaOperands &on) {
  return p.double_precision ? call_cublas_of<double>(*libraries.cublas, handle, p, on)
                            : call_cublas_of<float>(*libraries.cublas, handle, p, on);
}

// cuBLAS as its users call it, except where that would let a faster precision in: DGEMM in the
// default math (IEEE FP64 already; pedantic math also turns off its fastest FP64 kernels), SGEMM
// pedantic (the default may take TF32), TF32 in TF32 math.
int math_mode_of(const GeneralGemm &p) {
  constexpr int kDefaultMath = 0, kPedanticMath = 2, kTf32Math = 3;
  return p.double_precision ? kDefaultMath : p.tf32 ? kTf32Math : kPedanticMath;
}

} // namespace

GeneralAnchor cublas_gemm(const GeneralGemm &p, uint32_t repeat) {
  GeneralAnchor result;
  result.name = fmt::format("cuBLAS {}gemm{} ({})", p.double_precision ? "D" : "S",
                            p.batch > 1 ? "StridedBatched" : "",
                            p.double_precision ? "FP64" : (p.tf32 ? "TF32" : "FP32"));
  const CudaLibraries &libraries = cuda_libraries();
  if (!libraries.cudart || !libraries.cublas) {
    result.note = "the CUDA runtime or cuBLAS is not installed (tried " + libraries.tried + ")";
    return result;
  }
  const auto &cublas = *libraries.cublas;
  void *handle = nullptr;
  if (cublas.get<int(void **)>("cublasCreate_v2")(&handle) != 0) {
    result.note = "cublasCreate failed (no CUDA device?)";
    return result;
  }
  cublas.get<int(void *, int)>("cublasSetMathMode")(handle, math_mode_of(p));
  {
    CudaOperands operands(libraries, p);
    if (!operands.ok()) {
      result.note = "cudaMalloc or cudaMemcpy failed";
    } else {
      int status = time_with_cuda_events(libraries, repeat, result.seconds, [&] {
        return call_cublas(libraries, handle, p, operands);
      });
      if (status != 0)
        result.note = fmt::format("cuBLAS failed with status {}", status);
      result.product = operands.product();
      result.available = !result.seconds.empty();
      if (result.available)
        result.note = cublas.location().string();
    }
  }
  cublas.get<int(void *)>("cublasDestroy_v2")(handle);
  return result;
}

} // namespace mqlcl::replay
