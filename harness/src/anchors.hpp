// Anchors for `mqlcl-replay bench`: the same product computed by libraries the project does not
// own, so our steps can be quoted as ratios measured in one run on one device. Every library is
// optional and loaded at run time (Boost.DLL): when one is missing the anchor says why and the
// benchmark goes on without it.
//
//   CLBlast SGEMM      libclblast.so.1, on the bridge's device through raw OpenCL
//   OpenBLAS sgemm     libopenblas.so.0, on the host CPU (the anchor for CPU devices)
//   cuBLAS SGEMM       libcublas.so + libcudart.so (FP32, and TF32 tensor-core mode)
//   raw OpenCL         the article's call sequence without the bridge (the bridge's overhead)
//
// All compute C = A * B with the article's later layouts: A M x K row-major, B K x N
// column-major, C M x N row-major.
#pragma once

#include "runner.hpp"

#include <boost/dll/shared_library.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::replay {

struct GemmProblem {
  uint32_t m = 0, n = 0, k = 0;
  const std::vector<float> *a = nullptr; // m * k
  const std::vector<float> *b = nullptr; // k * n, column-major
};

struct AnchorResult {
  std::string name;           // e.g. "CLBlast SGEMM"
  bool available = false;     // false: `note` says why nothing was measured
  std::string note;           // library and version, or why the anchor is unavailable
  Samples seconds;            // one value per timed repetition (after a warm-up)
  std::string timing;         // how the seconds were taken
  std::vector<float> product; // the last C, for the caller to verify
};

// The first of `names` that loads (each also tried inside `dirs`), or nothing; `tried` collects
// the paths tried. Every library the anchors use is loaded this way.
std::optional<boost::dll::shared_library> load_first(const std::vector<std::string> &names,
                                                     const std::vector<std::string> &dirs,
                                                     std::string &tried);

// OpenBLAS, by load_first: the CPU anchor's library and the fp64 references' (reference.hpp).
std::optional<boost::dll::shared_library> load_openblas(std::string &tried);

// The OpenCL entry points the anchors call without the bridge, loaded from the ICD loader.
class RawOpenCL;

// A device as raw OpenCL names it: what RawDevice's constructor takes.
struct RawDeviceNames {
  std::string platform, device;
};

// The first GPU of the first platform whose name contains `platform_part` ("NVIDIA"), or nothing
// (`why_not` says why).
std::optional<RawDeviceNames> find_raw_gpu(const std::string &platform_part, std::string &why_not);

// A raw OpenCL context and in-order profiling queue on the device whose platform and device
// names match the bridge's (so the anchor and our steps run on the same device).
class RawDevice {
public:
  RawDevice(const std::string &platform_name, const std::string &device_name);
  ~RawDevice();
  RawDevice(const RawDevice &) = delete;
  RawDevice &operator=(const RawDevice &) = delete;
  bool ok() const { return ok_; }
  const std::string &why_not() const { return why_not_; }

  // The program binary that `source` built with `options` on this device gives (for NVIDIA, the
  // driver's PTX), or nothing with the build log in `why_not`.
  std::optional<std::string> program_binary(const std::string &source, const std::string &options,
                                            std::string &why_not);

  // CLBlastSgemm on this device.
  AnchorResult clblast_sgemm(const GemmProblem &problem, uint32_t repeat);

  // The article's replay without the bridge: the same clCreate*/clSetKernelArg/clEnqueue* calls
  // the bridge makes for one step, timed like the harness times a replay (execute + read).
  // `interleave`, when given, runs before each raw replay (timed ones: `counted` is true), so a
  // caller can alternate another path with this one and both see the same machine state.
  AnchorResult raw_replay(const std::string &kernel_source, const std::string &build_options,
                          const GemmProblem &problem, uint32_t work_dim, const uint32_t *global,
                          const uint32_t *local, uint32_t repeat,
                          const std::function<void(bool counted)> &interleave = nullptr);

  // Seconds per raw clSetKernelArg call, for the bridge's per-call overhead.
  double seconds_per_set_arg(uint32_t calls);

  // Host <-> device bandwidth (bytes/s) of blocking writes and reads from pinned host memory
  // (CL_MEM_ALLOC_HOST_PTR, mapped): the fastest a transfer of `bytes` goes on this device.
  struct Bandwidth {
    double host_to_device = 0, device_to_host = 0;
  };
  Bandwidth pinned_bandwidth(size_t bytes);

private:
  std::shared_ptr<const RawOpenCL> cl_;
  bool ok_ = false;
  std::string why_not_;
  void *platform_ = nullptr, *device_ = nullptr, *context_ = nullptr, *queue_ = nullptr;
};

// OpenBLAS cblas_sgemm on the host with `threads` threads.
AnchorResult openblas_sgemm(const GemmProblem &problem, uint32_t repeat, int threads);

// cblas_sgemm (float) or cblas_dgemm (double) on `threads` host threads: C (m x n, row-major) =
// A (m x k, row-major) times B (k x n row-major, or stored n x k when `b_transposed`); one
// warm-up call, then `repeat` timed ones. The product is left in c, not in the result.
template <class T>
AnchorResult openblas_gemm(uint32_t m, uint32_t n, uint32_t k, const T *a, const T *b,
                           bool b_transposed, T *c, uint32_t repeat, int threads);

// cuBLAS cublasSgemm on CUDA device 0: FP32 (pedantic math) or TF32 tensor-op math.
AnchorResult cublas_sgemm(const GemmProblem &problem, uint32_t repeat, bool tf32);

// A product as CLGemm takes it: C = op(A) * op(B), row-major, packed, `batch` products in one
// call (strided), float or double; A is m x k (k x m when transposed), B k x n (n x k).
struct GeneralGemm {
  uint32_t m = 0, n = 0, k = 0, batch = 1;
  bool transpose_a = false, transpose_b = false, double_precision = false;
  bool tf32 = false; // float products on the tensor cores (cuBLAS's TF32 tensor-op math)
  const std::vector<double> *a = nullptr, *b = nullptr; // the values, converted as the type says
};

// What a general anchor measured: C as doubles, for the caller to verify.
struct GeneralAnchor {
  std::string name, note;
  bool available = false;
  Samples seconds;
  std::vector<double> product;
};

// cuBLAS on CUDA device 0: cublasSgemm / cublasDgemm (pedantic math, or TF32 tensor-op math for
// `tf32`), or their strided-batched forms for a batch.
GeneralAnchor cublas_gemm(const GeneralGemm &problem, uint32_t repeat);

} // namespace mqlcl::replay
