#include "anchors.hpp"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

namespace mqlcl::replay {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr ? value : "";
}

} // namespace

std::optional<boost::dll::shared_library> load_first(const std::vector<std::string> &names,
                                                     const std::vector<std::string> &dirs,
                                                     std::string &tried) {
  namespace mode = boost::dll::load_mode;
  std::vector<std::filesystem::path> candidates;
  for (const std::string &dir : dirs)
    if (!dir.empty())
      for (const std::string &name : names)
        candidates.push_back(std::filesystem::path(dir) / name);
  for (const std::string &name : names)
    candidates.emplace_back(name);
  for (const std::filesystem::path &candidate : candidates) {
    boost::dll::fs::error_code error;
    boost::dll::shared_library library(candidate, mode::search_system_folders | mode::rtld_global,
                                       error);
    if (!error)
      return library;
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  return std::nullopt;
}

// ---- raw OpenCL -----------------------------------------------------------------------------

#define MQLCL_RAW_CL(X)                                                                            \
  X(clGetPlatformIDs)                                                                              \
  X(clGetPlatformInfo)                                                                             \
  X(clGetDeviceIDs)                                                                                \
  X(clGetDeviceInfo)                                                                               \
  X(clCreateContext)                                                                               \
  X(clReleaseContext)                                                                              \
  X(clCreateCommandQueue)                                                                          \
  X(clReleaseCommandQueue)                                                                         \
  X(clCreateBuffer)                                                                                \
  X(clReleaseMemObject)                                                                            \
  X(clEnqueueWriteBuffer)                                                                          \
  X(clEnqueueReadBuffer)                                                                           \
  X(clCreateProgramWithSource)                                                                     \
  X(clBuildProgram)                                                                                \
  X(clGetProgramBuildInfo)                                                                         \
  X(clGetProgramInfo)                                                                              \
  X(clReleaseProgram)                                                                              \
  X(clCreateKernel)                                                                                \
  X(clReleaseKernel)                                                                               \
  X(clSetKernelArg)                                                                                \
  X(clEnqueueNDRangeKernel)                                                                        \
  X(clFlush)                                                                                       \
  X(clFinish)                                                                                      \
  X(clReleaseEvent)                                                                                \
  X(clEnqueueMapBuffer)                                                                            \
  X(clEnqueueUnmapMemObject)

class RawOpenCL {
public:
#define MQLCL_RAW_POINTER(fn) decltype(&::fn) fn = nullptr;
  MQLCL_RAW_CL(MQLCL_RAW_POINTER)
#undef MQLCL_RAW_POINTER
  boost::dll::shared_library library;

  // Loaded once per process and never unloaded, as the bridge loads it: the ICD loader and its
  // drivers keep threads and memory of their own to the end (and LeakSanitizer can name, and so
  // suppress, a driver's allocations only while its module is loaded).
  static std::shared_ptr<const RawOpenCL> load(std::string &why_not) {
    struct Loaded {
      std::shared_ptr<const RawOpenCL> cl;
      std::string why_not;
    };
    static const Loaded *const loaded = [] {
      auto *once = new Loaded;
      once->cl = load_once(once->why_not);
      return once;
    }();
    if (!loaded->cl)
      why_not = loaded->why_not;
    return loaded->cl;
  }

private:
  static std::shared_ptr<const RawOpenCL> load_once(std::string &why_not) {
    std::string tried;
    auto library = load_first({"libOpenCL.so.1", "libOpenCL.so", "OpenCL.dll"}, {}, tried);
    if (!library) {
      why_not = "no OpenCL library (" + tried + ")";
      return nullptr;
    }
    auto cl = std::make_shared<RawOpenCL>();
    cl->library = *library;
#define MQLCL_RAW_RESOLVE(fn)                                                                      \
  if (!cl->library.has(#fn)) {                                                                     \
    why_not = "the OpenCL library lacks " #fn;                                                     \
    return nullptr;                                                                                \
  }                                                                                                \
  cl->fn = &cl->library.get<std::remove_pointer_t<decltype(cl->fn)>>(#fn);
    MQLCL_RAW_CL(MQLCL_RAW_RESOLVE)
#undef MQLCL_RAW_RESOLVE
    return cl;
  }
};

namespace {

std::string platform_string(const RawOpenCL &cl, cl_platform_id platform, cl_platform_info what) {
  size_t bytes = 0;
  cl.clGetPlatformInfo(platform, what, 0, nullptr, &bytes);
  std::string text(bytes, '\0');
  cl.clGetPlatformInfo(platform, what, bytes, text.data(), nullptr);
  return text.c_str();
}

std::string device_string(const RawOpenCL &cl, cl_device_id device, cl_device_info what) {
  size_t bytes = 0;
  cl.clGetDeviceInfo(device, what, 0, nullptr, &bytes);
  std::string text(bytes, '\0');
  cl.clGetDeviceInfo(device, what, bytes, text.data(), nullptr);
  return text.c_str();
}

// Releases a cl_mem when it goes out of scope.
struct RawBuffer {
  const RawOpenCL &cl;
  cl_mem memory = nullptr;
  RawBuffer(const RawOpenCL &api, cl_context context, size_t bytes) : cl(api) {
    cl_int status = CL_SUCCESS;
    memory = cl.clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS)
      memory = nullptr;
  }
  ~RawBuffer() {
    if (memory != nullptr)
      cl.clReleaseMemObject(memory);
  }
};

} // namespace

RawDevice::RawDevice(const std::string &platform_name, const std::string &device_name) {
  cl_ = RawOpenCL::load(why_not_);
  if (!cl_)
    return;
  const RawOpenCL &cl = *cl_;
  cl_uint platforms = 0;
  cl.clGetPlatformIDs(0, nullptr, &platforms);
  std::vector<cl_platform_id> ids(platforms);
  cl.clGetPlatformIDs(platforms, ids.data(), nullptr);
  for (cl_platform_id platform : ids) {
    if (platform_string(cl, platform, CL_PLATFORM_NAME) != platform_name)
      continue;
    cl_uint devices = 0;
    cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &devices);
    std::vector<cl_device_id> device_ids(devices);
    cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, devices, device_ids.data(), nullptr);
    for (cl_device_id device : device_ids) {
      if (device_string(cl, device, CL_DEVICE_NAME) != device_name)
        continue;
      cl_int status = CL_SUCCESS;
      cl_context context = cl.clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
      if (status != CL_SUCCESS) {
        why_not_ = fmt::format("clCreateContext failed ({})", status);
        return;
      }
      cl_command_queue queue =
          cl.clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &status);
      if (status != CL_SUCCESS) {
        cl.clReleaseContext(context);
        why_not_ = fmt::format("clCreateCommandQueue failed ({})", status);
        return;
      }
      platform_ = platform;
      device_ = device;
      context_ = context;
      queue_ = queue;
      ok_ = true;
      return;
    }
  }
  why_not_ =
      "raw OpenCL does not see the device \"" + device_name + "\" of \"" + platform_name + "\"";
}

RawDevice::~RawDevice() {
  if (!ok_)
    return;
  cl_->clFinish(static_cast<cl_command_queue>(queue_));
  cl_->clReleaseCommandQueue(static_cast<cl_command_queue>(queue_));
  cl_->clReleaseContext(static_cast<cl_context>(context_));
}

std::optional<RawDeviceNames> find_raw_gpu(const std::string &platform_part, std::string &why_not) {
  std::shared_ptr<const RawOpenCL> loaded = RawOpenCL::load(why_not);
  if (!loaded)
    return std::nullopt;
  const RawOpenCL &cl = *loaded;
  cl_uint platforms = 0;
  if (cl.clGetPlatformIDs(0, nullptr, &platforms) != CL_SUCCESS || platforms == 0) {
    why_not = "no OpenCL platform is installed";
    return std::nullopt;
  }
  std::vector<cl_platform_id> ids(platforms);
  cl.clGetPlatformIDs(platforms, ids.data(), nullptr);
  for (cl_platform_id platform : ids) {
    std::string name = platform_string(cl, platform, CL_PLATFORM_NAME);
    if (name.find(platform_part) == std::string::npos)
      continue;
    cl_device_id device = nullptr;
    if (cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, nullptr) == CL_SUCCESS)
      return RawDeviceNames{name, device_string(cl, device, CL_DEVICE_NAME)};
  }
  why_not = "no OpenCL platform whose name contains \"" + platform_part + "\" has a GPU";
  return std::nullopt;
}

std::optional<std::string> RawDevice::program_binary(const std::string &source,
                                                     const std::string &options,
                                                     std::string &why_not) {
  if (!ok_) {
    why_not = why_not_;
    return std::nullopt;
  }
  const RawOpenCL &cl = *cl_;
  auto device = static_cast<cl_device_id>(device_);
  const char *text = source.c_str();
  cl_int status = CL_SUCCESS;
  cl_program program =
      cl.clCreateProgramWithSource(static_cast<cl_context>(context_), 1, &text, nullptr, &status);
  if (status != CL_SUCCESS) {
    why_not = fmt::format("clCreateProgramWithSource failed ({})", status);
    return std::nullopt;
  }
  std::optional<std::string> binary;
  status = cl.clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  if (status == CL_SUCCESS) {
    size_t size = 0;
    cl.clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
    binary.emplace(size, '\0');
    unsigned char *data = reinterpret_cast<unsigned char *>(binary->data());
    cl.clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr);
  } else {
    size_t size = 0;
    cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    why_not = fmt::format("the build failed ({}); its log:\n{}", status, log.c_str());
  }
  cl.clReleaseProgram(program);
  return binary;
}

AnchorResult RawDevice::clblast_sgemm(const GemmProblem &p, uint32_t repeat) {
  AnchorResult result;
  result.name = "CLBlast SGEMM";
  // CLBlast may run helper kernels (padding, transposes) before its main one and returns only
  // the last event, so the call is timed whole: until its queue is empty.
  result.timing = "steady_clock from CLBlastSgemm to clFinish of its queue, after one warm-up "
                  "call";
  if (!ok_) {
    result.note = why_not_;
    return result;
  }
  std::string tried;
  auto library = load_first({"libclblast.so.1", "libclblast.so", "clblast.dll"},
                            {environment("MQLCL_CLBLAST_LIBRARY_DIR")}, tried);
  if (!library) {
    result.note = "CLBlast is not installed (tried " + tried + ")";
    return result;
  }
  // The C API of clblast_c.h: layouts 101 row-major; transposes 111 no, 112 yes; 0 is success.
  using Sgemm = int(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t, size_t, cl_mem,
                    size_t, size_t, float, cl_mem, size_t, size_t, cl_command_queue *, cl_event *);
  if (!library->has("CLBlastSgemm")) {
    result.note = "the CLBlast library lacks CLBlastSgemm";
    return result;
  }
  auto &sgemm = library->get<Sgemm>("CLBlastSgemm");
  result.note = library->location().string();

  const RawOpenCL &cl = *cl_;
  auto context = static_cast<cl_context>(context_);
  auto queue = static_cast<cl_command_queue>(queue_);
  RawBuffer a(cl, context, p.a->size() * 4), b(cl, context, p.b->size() * 4),
      c(cl, context, size_t{p.m} * p.n * 4);
  if (a.memory == nullptr || b.memory == nullptr || c.memory == nullptr) {
    result.note = "could not create the raw OpenCL buffers";
    return result;
  }
  cl.clEnqueueWriteBuffer(queue, a.memory, CL_TRUE, 0, p.a->size() * 4, p.a->data(), 0, nullptr,
                          nullptr);
  cl.clEnqueueWriteBuffer(queue, b.memory, CL_TRUE, 0, p.b->size() * 4, p.b->data(), 0, nullptr,
                          nullptr);
  // A row-major (lda K); B as stored is N x K row-major, so op(B) = B^T with ldb K; C ldc N.
  cl.clFinish(queue);
  for (uint32_t r = 0; r <= repeat; ++r) {
    cl_event event = nullptr;
    auto start = Clock::now();
    int status = sgemm(101, 111, 112, p.m, p.n, p.k, 1.0f, a.memory, 0, p.k, b.memory, 0, p.k, 0.0f,
                       c.memory, 0, p.n, &queue, &event);
    cl.clFinish(queue);
    double seconds = seconds_since(start);
    if (status != 0) {
      result.note = fmt::format("CLBlastSgemm failed with status {}", status);
      return result;
    }
    cl.clReleaseEvent(event);
    if (r > 0) // the first call compiles CLBlast's kernels
      result.seconds.values.push_back(seconds);
  }
  result.product.resize(size_t{p.m} * p.n);
  cl.clEnqueueReadBuffer(queue, c.memory, CL_TRUE, 0, result.product.size() * 4,
                         result.product.data(), 0, nullptr, nullptr);
  result.available = true;
  return result;
}

AnchorResult RawDevice::raw_replay(const std::string &source, const std::string &options,
                                   const GemmProblem &p, uint32_t work_dim, const uint32_t *global,
                                   const uint32_t *local, uint32_t repeat,
                                   const std::function<void(bool counted)> &interleave) {
  AnchorResult result;
  result.name = "raw OpenCL (no bridge)";
  result.timing = "steady_clock from just before clEnqueueNDRangeKernel to after the blocking "
                  "clEnqueueReadBuffer, as the harness times CLExecute + CLBufferRead";
  if (!ok_) {
    result.note = why_not_;
    return result;
  }
  const RawOpenCL &cl = *cl_;
  auto context = static_cast<cl_context>(context_);
  auto queue = static_cast<cl_command_queue>(queue_);
  auto device = static_cast<cl_device_id>(device_);
  const char *text = source.c_str();
  cl_int status = CL_SUCCESS;
  cl_program program = cl.clCreateProgramWithSource(context, 1, &text, nullptr, &status);
  if (status != CL_SUCCESS ||
      cl.clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    if (program != nullptr)
      cl.clReleaseProgram(program);
    result.note = "the raw build failed";
    return result;
  }
  cl_kernel kernel = cl.clCreateKernel(program, "matricesMul", &status);
  RawBuffer a(cl, context, p.a->size() * 4), b(cl, context, p.b->size() * 4),
      c(cl, context, size_t{p.m} * p.n * 4);
  cl.clSetKernelArg(kernel, 0, sizeof(cl_mem), &a.memory);
  cl.clSetKernelArg(kernel, 1, sizeof(cl_mem), &b.memory);
  cl.clSetKernelArg(kernel, 2, sizeof(cl_mem), &c.memory);
  cl.clEnqueueWriteBuffer(queue, a.memory, CL_TRUE, 0, p.a->size() * 4, p.a->data(), 0, nullptr,
                          nullptr);
  cl.clEnqueueWriteBuffer(queue, b.memory, CL_TRUE, 0, p.b->size() * 4, p.b->data(), 0, nullptr,
                          nullptr);
  size_t g[3] = {global[0], global[1], global[2]}, l[3] = {local[0], local[1], local[2]};
  result.product.assign(size_t{p.m} * p.n, 0.0f);
  const std::vector<float> zeros(result.product.size(), 0.0f);
  for (uint32_t r = 0; r <= repeat; ++r) {
    if (interleave)
      interleave(r > 0);
    // As the runner does before each replay: out[] back to zeros, outside the timed part.
    cl.clEnqueueWriteBuffer(queue, c.memory, CL_TRUE, 0, zeros.size() * 4, zeros.data(), 0, nullptr,
                            nullptr);
    auto start = Clock::now();
    status = cl.clEnqueueNDRangeKernel(queue, kernel, work_dim, nullptr, g, l[0] == 0 ? nullptr : l,
                                       0, nullptr, nullptr);
    cl.clFlush(queue); // as CLExecute does
    cl_int read = cl.clEnqueueReadBuffer(queue, c.memory, CL_TRUE, 0, result.product.size() * 4,
                                         result.product.data(), 0, nullptr, nullptr);
    double seconds = seconds_since(start);
    if (status != CL_SUCCESS || read != CL_SUCCESS) {
      result.note = fmt::format("the raw launch failed ({}, {})", status, read);
      break;
    }
    if (r > 0)
      result.seconds.values.push_back(seconds);
  }
  cl.clReleaseKernel(kernel);
  cl.clReleaseProgram(program);
  result.available = !result.seconds.empty();
  return result;
}

double RawDevice::seconds_per_set_arg(uint32_t calls) {
  if (!ok_)
    return 0;
  const RawOpenCL &cl = *cl_;
  auto context = static_cast<cl_context>(context_);
  auto device = static_cast<cl_device_id>(device_);
  const char *text = "__kernel void k(__global float *x, float a) { x[0] = a; }";
  cl_int status = CL_SUCCESS;
  cl_program program = cl.clCreateProgramWithSource(context, 1, &text, nullptr, &status);
  cl.clBuildProgram(program, 1, &device, "-cl-kernel-arg-info", nullptr, nullptr);
  cl_kernel kernel = cl.clCreateKernel(program, "k", &status);
  float value = 1.0f;
  auto start = Clock::now();
  for (uint32_t i = 0; i < calls; ++i) {
    value += 1.0f;
    cl.clSetKernelArg(kernel, 1, sizeof value, &value);
  }
  double seconds = seconds_since(start) / calls;
  cl.clReleaseKernel(kernel);
  cl.clReleaseProgram(program);
  return seconds;
}

RawDevice::Bandwidth RawDevice::pinned_bandwidth(size_t bytes) {
  Bandwidth result;
  if (!ok_)
    return result;
  const RawOpenCL &cl = *cl_;
  auto context = static_cast<cl_context>(context_);
  auto queue = static_cast<cl_command_queue>(queue_);
  cl_int status = CL_SUCCESS;
  cl_mem pinned = cl.clCreateBuffer(context, CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, &status);
  RawBuffer device(cl, context, bytes);
  if (status != CL_SUCCESS || device.memory == nullptr)
    return result;
  void *host = cl.clEnqueueMapBuffer(queue, pinned, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                     0, nullptr, nullptr, &status);
  if (status == CL_SUCCESS) {
    auto best = [&](auto transfer) {
      double fastest = 1e30;
      for (int r = 0; r < 6; ++r) {
        auto start = Clock::now();
        transfer();
        double seconds = seconds_since(start);
        if (r > 0)
          fastest = std::min(fastest, seconds);
      }
      return static_cast<double>(bytes) / fastest;
    };
    result.host_to_device = best([&] {
      cl.clEnqueueWriteBuffer(queue, device.memory, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr);
    });
    result.device_to_host = best([&] {
      cl.clEnqueueReadBuffer(queue, device.memory, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr);
    });
    cl.clEnqueueUnmapMemObject(queue, pinned, host, 0, nullptr, nullptr);
    cl.clFinish(queue);
  }
  cl.clReleaseMemObject(pinned);
  return result;
}

// ---- OpenBLAS -------------------------------------------------------------------------------

AnchorResult openblas_sgemm(const GemmProblem &p, uint32_t repeat, int threads) {
  AnchorResult result;
  result.name = fmt::format("OpenBLAS sgemm ({} threads)", threads);
  result.timing = "steady_clock around cblas_sgemm, after one warm-up call";
  std::string tried;
  auto library = load_first({"libopenblas.so.0", "libopenblas.so", "libopenblas.dll"}, {}, tried);
  if (!library || !library->has("cblas_sgemm")) {
    result.note = "OpenBLAS is not installed (tried " + tried + ")";
    return result;
  }
  // cblas.h: CblasRowMajor 101, CblasNoTrans 111, CblasTrans 112.
  using Sgemm = void(int, int, int, int, int, int, float, const float *, int, const float *, int,
                     float, float *, int);
  auto &sgemm = library->get<Sgemm>("cblas_sgemm");
  if (library->has("openblas_set_num_threads"))
    library->get<void(int)>("openblas_set_num_threads")(threads);
  result.note = library->location().string();
  if (library->has("openblas_get_config"))
    result.note += std::string(" (") + library->get<const char *()>("openblas_get_config")() + ")";
  result.product.assign(size_t{p.m} * p.n, 0.0f);
  for (uint32_t r = 0; r <= repeat; ++r) {
    auto start = Clock::now();
    sgemm(101, 111, 112, static_cast<int>(p.m), static_cast<int>(p.n), static_cast<int>(p.k), 1.0f,
          p.a->data(), static_cast<int>(p.k), p.b->data(), static_cast<int>(p.k), 0.0f,
          result.product.data(), static_cast<int>(p.n));
    double seconds = seconds_since(start);
    if (r > 0)
      result.seconds.values.push_back(seconds);
  }
  result.available = true;
  return result;
}

// ---- cuBLAS ---------------------------------------------------------------------------------

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

} // namespace

AnchorResult cublas_sgemm(const GemmProblem &p, uint32_t repeat, bool tf32) {
  AnchorResult result;
  result.name = tf32 ? "cuBLAS SGEMM (TF32 tensor cores)" : "cuBLAS SGEMM (FP32)";
  result.timing = "CUDA events around cublasSgemm, after one warm-up call";
  const CudaLibraries &libraries = cuda_libraries();
  const auto &cudart = libraries.cudart, &cublas = libraries.cublas;
  if (!cudart || !cublas) {
    result.note = "the CUDA runtime or cuBLAS is not installed (tried " + libraries.tried + ")";
    return result;
  }
  // The CUDA runtime and cuBLAS C APIs: errors are ints, 0 is success; handles are pointers.
  auto &cuda_malloc = cudart->get<int(void **, size_t)>("cudaMalloc");
  auto &cuda_free = cudart->get<int(void *)>("cudaFree");
  auto &cuda_memcpy = cudart->get<int(void *, const void *, size_t, int)>("cudaMemcpy");
  auto &event_create = cudart->get<int(void **)>("cudaEventCreate");
  auto &event_record = cudart->get<int(void *, void *)>("cudaEventRecord");
  auto &event_synchronize = cudart->get<int(void *)>("cudaEventSynchronize");
  auto &event_elapsed = cudart->get<int(float *, void *, void *)>("cudaEventElapsedTime");
  auto &event_destroy = cudart->get<int(void *)>("cudaEventDestroy");
  auto &create = cublas->get<int(void **)>("cublasCreate_v2");
  auto &destroy = cublas->get<int(void *)>("cublasDestroy_v2");
  auto &set_math_mode = cublas->get<int(void *, int)>("cublasSetMathMode");
  auto &get_version = cublas->get<int(void *, int *)>("cublasGetVersion_v2");
  using Sgemm = int(void *, int, int, int, int, int, const float *, const float *, int,
                    const float *, int, const float *, float *, int);
  auto &sgemm = cublas->get<Sgemm>("cublasSgemm_v2");

  void *handle = nullptr;
  if (create(&handle) != 0) {
    result.note = "cublasCreate failed (no CUDA device?)";
    return result;
  }
  int version = 0;
  get_version(handle, &version);
  result.note = fmt::format("{} (cuBLAS {})", cublas->location().string(), version);
  constexpr int kPedanticMath = 2, kTf32TensorOpMath = 3, kHostToDevice = 1, kDeviceToHost = 2;
  set_math_mode(handle, tf32 ? kTf32TensorOpMath : kPedanticMath);
  void *a = nullptr, *b = nullptr, *c = nullptr;
  size_t c_bytes = size_t{p.m} * p.n * 4;
  if (cuda_malloc(&a, p.a->size() * 4) != 0 || cuda_malloc(&b, p.b->size() * 4) != 0 ||
      cuda_malloc(&c, c_bytes) != 0) {
    result.note += ": cudaMalloc failed";
  } else {
    cuda_memcpy(a, p.a->data(), p.a->size() * 4, kHostToDevice);
    cuda_memcpy(b, p.b->data(), p.b->size() * 4, kHostToDevice);
    void *start = nullptr, *stop = nullptr;
    event_create(&start);
    event_create(&stop);
    const float one = 1.0f, zero = 0.0f;
    // Column-major view: C^T (N x M) = op(B) * A^T with op(B) = B^T (B stored K x N, ld K).
    constexpr int kNoTranspose = 0, kTranspose = 1;
    for (uint32_t r = 0; r <= repeat; ++r) {
      event_record(start, nullptr);
      int status =
          sgemm(handle, kTranspose, kNoTranspose, static_cast<int>(p.n), static_cast<int>(p.m),
                static_cast<int>(p.k), &one, static_cast<const float *>(b), static_cast<int>(p.k),
                static_cast<const float *>(a), static_cast<int>(p.k), &zero,
                static_cast<float *>(c), static_cast<int>(p.n));
      event_record(stop, nullptr);
      event_synchronize(stop);
      float milliseconds = 0;
      event_elapsed(&milliseconds, start, stop);
      if (status != 0) {
        result.note += fmt::format(": cublasSgemm failed with status {}", status);
        break;
      }
      if (r > 0)
        result.seconds.values.push_back(milliseconds * 1e-3);
    }
    result.product.resize(size_t{p.m} * p.n);
    cuda_memcpy(result.product.data(), c, c_bytes, kDeviceToHost);
    event_destroy(start);
    event_destroy(stop);
    result.available = !result.seconds.empty();
  }
  cuda_free(a);
  cuda_free(b);
  cuda_free(c);
  destroy(handle);
  return result;
}

} // namespace mqlcl::replay

namespace mqlcl::replay {

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

// One cuBLAS call of the problem, in the column-major view of row-major matrices:
// C^T (n x m) = op(B)^T * op(A)^T, so B comes first and each operand keeps its own transpose.
int call_cublas(const CudaLibraries &libraries, void *handle, const GeneralGemm &p,
                const CudaOperands &on) {
  constexpr int kNo = 0, kYes = 1;
  const int ta = p.transpose_b ? kYes : kNo, tb = p.transpose_a ? kYes : kNo;
  const int n = int(p.n), m = int(p.m), k = int(p.k);
  const int ldb = int(p.transpose_b ? p.k : p.n), lda = int(p.transpose_a ? p.m : p.k);
  const long long stride_b = (long long)p.n * p.k, stride_a = (long long)p.m * p.k,
                  stride_c = (long long)p.m * p.n;
  const auto &cublas = *libraries.cublas;
  if (p.double_precision) {
    const double one = 1, zero = 0;
    auto *b = static_cast<const double *>(on.b()), *a = static_cast<const double *>(on.a());
    auto *c = static_cast<double *>(on.c());
    if (p.batch > 1)
      return cublas
          .get<int(void *, int, int, int, int, int, const double *, const double *, int, long long,
                   const double *, int, long long, const double *, double *, int, long long, int)>(
              "cublasDgemmStridedBatched")(handle, ta, tb, n, m, k, &one, b, ldb, stride_b, a, lda,
                                           stride_a, &zero, c, n, stride_c, int(p.batch));
    return cublas.get<int(void *, int, int, int, int, int, const double *, const double *, int,
                          const double *, int, const double *, double *, int)>("cublasDgemm_v2")(
        handle, ta, tb, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
  }
  const float one = 1, zero = 0;
  auto *b = static_cast<const float *>(on.b()), *a = static_cast<const float *>(on.a());
  auto *c = static_cast<float *>(on.c());
  if (p.batch > 1)
    return cublas
        .get<int(void *, int, int, int, int, int, const float *, const float *, int, long long,
                 const float *, int, long long, const float *, float *, int, long long, int)>(
            "cublasSgemmStridedBatched")(handle, ta, tb, n, m, k, &one, b, ldb, stride_b, a, lda,
                                         stride_a, &zero, c, n, stride_c, int(p.batch));
  return cublas.get<int(void *, int, int, int, int, int, const float *, const float *, int,
                        const float *, int, const float *, float *, int)>("cublasSgemm_v2")(
      handle, ta, tb, n, m, k, &one, b, ldb, a, lda, &zero, c, n);
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
  const auto &cudart = *libraries.cudart, &cublas = *libraries.cublas;
  auto &event_create = cudart.get<int(void **)>("cudaEventCreate");
  auto &event_record = cudart.get<int(void *, void *)>("cudaEventRecord");
  auto &event_synchronize = cudart.get<int(void *)>("cudaEventSynchronize");
  auto &event_elapsed = cudart.get<int(float *, void *, void *)>("cudaEventElapsedTime");
  auto &event_destroy = cudart.get<int(void *)>("cudaEventDestroy");
  void *handle = nullptr;
  if (cublas.get<int(void **)>("cublasCreate_v2")(&handle) != 0) {
    result.note = "cublasCreate failed (no CUDA device?)";
    return result;
  }
  constexpr int kPedanticMath = 2, kTf32Math = 3;
  cublas.get<int(void *, int)>("cublasSetMathMode")(handle, p.tf32 ? kTf32Math : kPedanticMath);
  {
    CudaOperands operands(libraries, p);
    if (!operands.ok()) {
      result.note = "cudaMalloc or cudaMemcpy failed";
    } else {
      void *start = nullptr, *stop = nullptr;
      event_create(&start);
      event_create(&stop);
      for (uint32_t r = 0; r <= repeat; ++r) {
        event_record(start, nullptr);
        int status = call_cublas(libraries, handle, p, operands);
        event_record(stop, nullptr);
        event_synchronize(stop);
        float milliseconds = 0;
        event_elapsed(&milliseconds, start, stop);
        if (status != 0) {
          result.note = fmt::format("cuBLAS failed with status {}", status);
          break;
        }
        if (r > 0)
          result.seconds.values.push_back(milliseconds * 1e-3);
      }
      event_destroy(start);
      event_destroy(stop);
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
