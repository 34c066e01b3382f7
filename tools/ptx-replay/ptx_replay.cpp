// mqlcl-ptx-replay: runs a kernel file's product exactly as NVIDIA's OpenCL driver compiled it,
// but launched through the CUDA driver API, so that Nsight Compute (which profiles CUDA launches,
// not OpenCL ones) can say where its time goes. docs/performance.md shows what it found.
//
// 1. builds KERNEL.cl on the NVIDIA OpenCL platform with -DROWS1=M -DCOLSROWS=K -DCOLS2=N and the
//    given definitions, as mqlcl-replay does, and takes the program binary: the driver's PTX;
// 2. turns the PTX into what cuModuleLoadData takes: the binary's closing NUL goes, and each
//    %envregN (the OpenCL runtime's offsets of the launch, 0 for launches without offsets, which
//    is all mqlcl makes) becomes 0. The driver also reads get_num_groups() from one of them, so a
//    kernel that calls it sees 0 groups here: such kernels are not supported;
// 3. launches it 1-D (--groups x --local work-items) on A (M x K, row-major), B (K x N,
//    column-major) and C (M x N, row-major), the article's layouts, times it with CUDA events and
//    checks sampled elements of C against double-precision dot products.
// --load-ptx FILE skips 1 and 2 and launches a PTX file as --save-ptx wrote it, edited or not (a
// .maxnreg added, say); --max-registers and --opt-level pass the CUDA JIT's register cap and
// optimisation level, to try the assembler's options apart from what the OpenCL driver passes.
// With --cublas it runs cuBLAS SGEMM (FP32, pedantic math) on the same matrices instead, through
// the bench's anchor, so both can be profiled side by side. With --double the matrices are double
// (a kernel built for double, step 19's; the anchor cuBLAS DGEMM in its default math). Kernels
// whose arguments are not (in1, in2, out) are not supported.
//
// Exit status: 0 verified, 1 wrong results, 2 bad input or nothing to run it on.
#include "anchors.hpp"
#include "kernel_source.hpp"

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Failure : std::runtime_error {
  int status;
  Failure(int exit_status, const std::string &what)
      : std::runtime_error(what), status(exit_status) {}
};

[[noreturn]] void fail(const std::string &what, int status = 2) {
  throw Failure(status, what);
}

struct Options {
  std::string kernel_file, kernel_name = "matricesMul", build_options, save_ptx, load_ptx;
  uint32_t m = 0, n = 0, k = 0, groups = 0, local = 0, repeat = 5;
  std::optional<uint32_t> max_registers, opt_level; // CUDA JIT options; unset: the driver's own
  bool cublas = false, double_precision = false;
};

const char *const kUsage =
    "usage: mqlcl-ptx-replay KERNEL.cl --size N | --rows1 M --colsrows K --cols2 N\n"
    "                        --groups G --local L [-D NAME=VALUE]... [--options \"...\"]\n"
    "                        [--kernel NAME] [--repeat R] [--save-ptx FILE]\n"
    "                        [--load-ptx FILE] [--max-registers R] [--opt-level 0-4]\n"
    "                        [--double]\n"
    "       mqlcl-ptx-replay --cublas --size N | --rows1 M --colsrows K --cols2 N [--repeat R]\n"
    "                        [--double]\n";

uint32_t positive(const std::string &flag, const std::string &text) {
  try {
    size_t used = 0;
    unsigned long value = std::stoul(text, &used);
    if (used == text.size() && value > 0 && value <= 1u << 20)
      return static_cast<uint32_t>(value);
  } catch (const std::exception &) {
  }
  fail(fmt::format("{} takes a whole number from 1 to {}, not '{}'", flag, 1u << 20, text));
}

Options parse(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        fail(fmt::format("{} needs a value\n{}", arg, kUsage));
      return argv[++i];
    };
    if (arg == "--size")
      options.m = options.n = options.k = positive(arg, value());
    else if (arg == "--rows1")
      options.m = positive(arg, value());
    else if (arg == "--colsrows")
      options.k = positive(arg, value());
    else if (arg == "--cols2")
      options.n = positive(arg, value());
    else if (arg == "--groups")
      options.groups = positive(arg, value());
    else if (arg == "--local")
      options.local = positive(arg, value());
    else if (arg == "--repeat")
      options.repeat = positive(arg, value());
    else if (arg == "-D")
      options.build_options += " -D" + value();
    else if (arg.rfind("-D", 0) == 0 && arg.size() > 2)
      options.build_options += " " + arg;
    else if (arg == "--options")
      options.build_options += " " + value();
    else if (arg == "--kernel")
      options.kernel_name = value();
    else if (arg == "--save-ptx")
      options.save_ptx = value();
    else if (arg == "--load-ptx")
      options.load_ptx = value();
    else if (arg == "--max-registers")
      options.max_registers = positive(arg, value());
    else if (arg == "--opt-level") {
      std::string level = value();
      if (level.size() != 1 || level[0] < '0' || level[0] > '4')
        fail(fmt::format("--opt-level takes 0 to 4, not '{}'", level));
      options.opt_level = static_cast<uint32_t>(level[0] - '0');
    } else if (arg == "--cublas")
      options.cublas = true;
    else if (arg == "--double")
      options.double_precision = true;
    else if (arg == "--help" || arg == "-h")
      throw Failure(0, kUsage);
    else if (!arg.empty() && arg[0] != '-' && options.kernel_file.empty())
      options.kernel_file = arg;
    else
      fail(fmt::format("unknown argument '{}'\n{}", arg, kUsage));
  }
  if (options.m == 0 || options.n == 0 || options.k == 0)
    fail(fmt::format("the sizes are missing (--size, or --rows1, --colsrows and --cols2)\n{}",
                     kUsage));
  if (!options.cublas && ((options.kernel_file.empty() && options.load_ptx.empty()) ||
                          options.groups == 0 || options.local == 0))
    fail(fmt::format("a kernel file (or --load-ptx), --groups and --local are needed\n{}", kUsage));
  return options;
}

// The CUDA driver, loaded once and never unloaded, as the bridge loads OpenCL: a driver keeps
// threads and memory of its own until the process ends (and LeakSanitizer can name, and so
// suppress, a driver's allocations only while its module is loaded).
boost::dll::shared_library &cuda_driver() {
  static boost::dll::shared_library *const library = [] {
    std::string tried;
    auto loaded = mqlcl::replay::load_first({"libcuda.so.1", "libcuda.so"}, {}, tried);
    if (!loaded)
      fail(fmt::format("the CUDA driver is not installed here (tried {})", tried));
    return new boost::dll::shared_library(std::move(*loaded));
  }();
  return *library;
}

// ---- 1. the driver's PTX, through raw OpenCL (harness/src/anchors.cpp) ---------------------

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(fmt::format("cannot read {}", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string driver_ptx(const Options &options) {
  // Its #include lines inlined, as mqlcl-replay builds it (a missing part: status 2).
  std::string source =
      mqlcl::replay::inline_kernel_includes(read_file(options.kernel_file), options.kernel_file);
  std::string why_not;
  std::optional<mqlcl::replay::RawDeviceNames> names =
      mqlcl::replay::find_raw_gpu("NVIDIA", why_not);
  if (!names)
    fail(why_not + ": the PTX this tool replays comes from NVIDIA's OpenCL driver");
  mqlcl::replay::RawDevice device(names->platform, names->device);
  std::string build_options = fmt::format("-DROWS1={} -DCOLSROWS={} -DCOLS2={}{}", options.m,
                                          options.k, options.n, options.build_options);
  std::optional<std::string> built = device.program_binary(source, build_options, why_not);
  if (!built)
    fail(
        fmt::format("{} did not build with '{}': {}", options.kernel_file, build_options, why_not));
  std::string binary = std::move(*built);

  // 2. What the CUDA driver loads.
  binary.erase(std::find(binary.begin(), binary.end(), '\0'), binary.end());
  if (binary.find(".entry") == std::string::npos || binary.find(".target") == std::string::npos)
    fail("the driver's program binary is not PTX text");
  binary = std::regex_replace(binary, std::regex("%envreg[0-9]+"), "0");
  if (!options.save_ptx.empty()) {
    std::ofstream out(options.save_ptx, std::ios::binary);
    out << binary;
    if (!out)
      fail(fmt::format("cannot write {}", options.save_ptx));
  }
  return binary;
}

// ---- 3. the launch, through the CUDA driver API ---------------------------------------------

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUevent = struct CUevent_st *;
using CUstream = struct CUstream_st *;
// CUjit_option values (cuda.h), which no header here provides.
constexpr int kJitMaxRegisters = 0, kJitErrorLogBuffer = 5, kJitErrorLogBufferSize = 6,
              kJitOptimizationLevel = 7;
constexpr int kFuncNumRegs = 4, kFuncLocalBytes = 3, kFuncSharedBytes = 1;

struct Cuda {
  boost::dll::shared_library &library = cuda_driver();
  template <typename Signature> Signature &get(const char *name) {
    return library.get<Signature>(name);
  }
  void check(CUresult result, const char *call) {
    if (result == 0)
      return;
    const char *text = "unknown error";
    get<CUresult(CUresult, const char **)>("cuGetErrorString")(result, &text);
    fail(fmt::format("{} failed: {} ({})", call, text, result));
  }
};

// The values are floats in [-1, 1), exact in either element type.
struct Matrices {
  std::vector<double> a, b; // A row-major M x K; B column-major, so N lines of K
  size_t element_size = sizeof(float);
};

Matrices make_matrices(const Options &options) {
  Matrices matrices;
  matrices.element_size = options.double_precision ? sizeof(double) : sizeof(float);
  matrices.a.resize(size_t{options.m} * options.k);
  matrices.b.resize(size_t{options.n} * options.k);
  uint32_t state = 12345; // a fixed sequence in [-1, 1): runs compare
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1u << 23) - 1.0f;
  };
  for (double &x : matrices.a)
    x = next();
  for (double &x : matrices.b)
    x = next();
  return matrices;
}

// `values` as the device holds them: floats or doubles.
std::vector<unsigned char> device_bytes(const std::vector<double> &values, size_t element_size) {
  std::vector<unsigned char> bytes(values.size() * element_size);
  for (size_t i = 0; i < values.size(); ++i) {
    const float single = static_cast<float>(values[i]);
    std::memcpy(bytes.data() + i * element_size,
                element_size == sizeof(float) ? static_cast<const void *>(&single) : &values[i],
                element_size);
  }
  return bytes;
}

// The device's C (floats or doubles) as doubles.
std::vector<double> host_values(const std::vector<unsigned char> &bytes, size_t element_size) {
  std::vector<double> values(bytes.size() / element_size);
  for (size_t i = 0; i < values.size(); ++i) {
    float single = 0;
    if (element_size == sizeof(float)) {
      std::memcpy(&single, bytes.data() + i * element_size, sizeof single);
      values[i] = single;
    } else {
      std::memcpy(&values[i], bytes.data() + i * element_size, sizeof(double));
    }
  }
  return values;
}

// Sampled elements (the corners and a spread between) against dot products in long double,
// within the usual bound of a K-term dot product, K * u * sum |a b| (u: 2^-24 for float, 2^-53
// for double), twice over.
int verify(const Options &options, const Matrices &matrices, const std::vector<double> &c) {
  const int unit_exponent = matrices.element_size == sizeof(float) ? -24 : -53;
  const uint32_t samples = 257;
  double worst = 0;
  int wrong = 0;
  for (uint32_t s = 0; s < samples; ++s) {
    size_t i = s == 0 ? 0 : s == 1 ? options.m - 1 : (size_t{s} * 7919) % options.m;
    size_t j = s == 0 ? 0 : s == 1 ? options.n - 1 : (size_t{s} * 104729) % options.n;
    long double sum = 0, magnitude = 0;
    for (size_t k = 0; k < options.k; ++k) {
      long double product =
          static_cast<long double>(matrices.a[i * options.k + k]) * matrices.b[j * options.k + k];
      sum += product;
      magnitude += std::fabs(product);
    }
    const double error = static_cast<double>(std::fabs(sum - c[i * options.n + j]));
    const double scale = static_cast<double>(magnitude);
    const double bound = 2.0 * options.k * std::ldexp(1.0, unit_exponent) * scale;
    worst = std::max(worst, scale > 0 ? error / scale : error);
    wrong += error > bound;
  }
  fmt::print("verification: {}, {} of {} sampled elements within K * 2^{} * sum|a b| of the "
             "long-double dot product (worst error {:.2e} of sum|a b|)\n",
             wrong ? "FAILED" : "passed", samples - wrong, samples, unit_exponent + 1, worst);
  return wrong ? 1 : 0;
}

// The timing line: the minimum and the median of `seconds`, sorted here.
void report(const Options &options, const std::string &what, std::vector<double> seconds) {
  std::sort(seconds.begin(), seconds.end());
  const double flops = 2.0 * options.m * options.n * options.k;
  fmt::print("{}, {} x {} x {}: min {:.3f} ms ({:.1f} GFLOPS), median {:.3f} ms of {}\n", what,
             options.m, options.k, options.n, seconds.front() * 1e3, flops / seconds.front() / 1e9,
             seconds[seconds.size() / 2] * 1e3, seconds.size());
}

// cuBLAS's FP32 SGEMM as mqlcl-replay's bench runs it, or with --double DGEMM as its gemm runs it
// (default math; harness/src/anchors.cpp), B stored N x K (transposed in cuBLAS's terms).
int run_cublas(const Options &options, const Matrices &matrices) {
  if (!options.double_precision) {
    const std::vector<float> a(matrices.a.begin(), matrices.a.end()),
        b(matrices.b.begin(), matrices.b.end());
    mqlcl::replay::GemmProblem problem{options.m, options.n, options.k, &a, &b};
    mqlcl::replay::AnchorResult result =
        mqlcl::replay::cublas_sgemm(problem, options.repeat, false);
    if (!result.available)
      fail(result.note);
    report(options, fmt::format("{} ({})", result.name, result.note), result.seconds.values);
    return verify(options, matrices,
                  std::vector<double>(result.product.begin(), result.product.end()));
  }
  mqlcl::replay::GeneralGemm problem;
  problem.m = options.m, problem.n = options.n, problem.k = options.k;
  problem.transpose_b = true;
  problem.double_precision = true;
  problem.a = &matrices.a, problem.b = &matrices.b;
  mqlcl::replay::GeneralAnchor result = mqlcl::replay::cublas_gemm(problem, options.repeat);
  if (!result.available)
    fail(result.note);
  report(options, fmt::format("{} ({})", result.name, result.note), result.seconds.values);
  return verify(options, matrices, result.product);
}

// Makes device 0's primary context current, and returns the device's name.
std::string open_device(Cuda &cuda) {
  cuda.check(cuda.get<CUresult(unsigned)>("cuInit")(0), "cuInit");
  CUdevice device = 0;
  cuda.check(cuda.get<CUresult(CUdevice *, int)>("cuDeviceGet")(&device, 0), "cuDeviceGet");
  char name[256] = {};
  cuda.get<CUresult(char *, int, CUdevice)>("cuDeviceGetName")(name, sizeof name - 1, device);
  CUcontext context = nullptr;
  cuda.check(
      cuda.get<CUresult(CUcontext *, CUdevice)>("cuDevicePrimaryCtxRetain")(&context, device),
      "cuDevicePrimaryCtxRetain");
  cuda.check(cuda.get<CUresult(CUcontext)>("cuCtxSetCurrent")(context), "cuCtxSetCurrent");
  return name;
}

// The PTX through the CUDA JIT, with --max-registers and --opt-level when given: the kernel.
CUfunction load_kernel(Cuda &cuda, const Options &options, const std::string &ptx) {
  CUmodule module = nullptr;
  std::string log(16384, '\0');
  std::vector<int> keys = {kJitErrorLogBuffer, kJitErrorLogBufferSize};
  std::vector<void *> values = {log.data(), reinterpret_cast<void *>(log.size())};
  if (options.max_registers) { // what ptxas's --maxrregcount does
    keys.push_back(kJitMaxRegisters);
    values.push_back(reinterpret_cast<void *>(uintptr_t{*options.max_registers}));
  }
  if (options.opt_level) {
    keys.push_back(kJitOptimizationLevel);
    values.push_back(reinterpret_cast<void *>(uintptr_t{*options.opt_level}));
  }
  CUresult loaded =
      cuda.get<CUresult(CUmodule *, const void *, unsigned, int *, void **)>("cuModuleLoadDataEx")(
          &module, ptx.c_str(), static_cast<unsigned>(keys.size()), keys.data(), values.data());
  if (loaded != 0)
    fail(fmt::format("the CUDA driver did not load the PTX ({}): {}", loaded, log.c_str()));
  CUfunction function = nullptr;
  cuda.check(cuda.get<CUresult(CUfunction *, CUmodule, const char *)>("cuModuleGetFunction")(
                 &function, module, options.kernel_name.c_str()),
             "cuModuleGetFunction");
  return function;
}

// What the assembler gave the kernel: registers, spills and local memory.
void print_resources(Cuda &cuda, const Options &options, CUfunction function) {
  auto &attribute = cuda.get<CUresult(int *, int, CUfunction)>("cuFuncGetAttribute");
  int registers = 0, local_bytes = 0, shared_bytes = 0;
  attribute(&registers, kFuncNumRegs, function);
  attribute(&local_bytes, kFuncLocalBytes, function);
  attribute(&shared_bytes, kFuncSharedBytes, function);
  fmt::print("{}: {} registers, {} bytes of local (spilled) memory per work-item, {} bytes of "
             "local memory per group\n",
             options.kernel_name, registers, local_bytes, shared_bytes);
}

// A, B and C on the device, A and B copied there. The process ends after one product, and its end
// releases the device memory, the module and the context.
struct DeviceMatrices {
  CUdeviceptr a = 0, b = 0, c = 0;
};

DeviceMatrices upload(Cuda &cuda, const Matrices &matrices, size_t c_bytes) {
  auto &mem_alloc = cuda.get<CUresult(CUdeviceptr *, size_t)>("cuMemAlloc_v2");
  auto &to_device = cuda.get<CUresult(CUdeviceptr, const void *, size_t)>("cuMemcpyHtoD_v2");
  const std::vector<unsigned char> a = device_bytes(matrices.a, matrices.element_size),
                                   b = device_bytes(matrices.b, matrices.element_size);
  DeviceMatrices on;
  cuda.check(mem_alloc(&on.a, a.size()), "cuMemAlloc");
  cuda.check(mem_alloc(&on.b, b.size()), "cuMemAlloc");
  cuda.check(mem_alloc(&on.c, c_bytes), "cuMemAlloc");
  cuda.check(to_device(on.a, a.data(), a.size()), "cuMemcpyHtoD");
  cuda.check(to_device(on.b, b.data(), b.size()), "cuMemcpyHtoD");
  return on;
}

// The kernel launched --repeat times after a warm-up, 1-D, each launch timed by CUDA events.
std::vector<double> time_launches(Cuda &cuda, const Options &options, CUfunction function,
                                  DeviceMatrices &on) {
  auto &launch =
      cuda.get<CUresult(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void **, void **)>("cuLaunchKernel");
  auto &event_create = cuda.get<CUresult(CUevent *, unsigned)>("cuEventCreate");
  auto &event_record = cuda.get<CUresult(CUevent, CUstream)>("cuEventRecord");
  auto &event_synchronize = cuda.get<CUresult(CUevent)>("cuEventSynchronize");
  auto &event_elapsed = cuda.get<CUresult(float *, CUevent, CUevent)>("cuEventElapsedTime");
  CUevent start = nullptr, stop = nullptr;
  cuda.check(event_create(&start, 0), "cuEventCreate");
  cuda.check(event_create(&stop, 0), "cuEventCreate");
  std::vector<double> seconds;
  void *args[] = {&on.a, &on.b, &on.c};
  for (uint32_t r = 0; r <= options.repeat; ++r) { // the first call warms up
    event_record(start, nullptr);
    cuda.check(
        launch(function, options.groups, 1, 1, options.local, 1, 1, 0, nullptr, args, nullptr),
        "cuLaunchKernel");
    event_record(stop, nullptr);
    cuda.check(event_synchronize(stop), "the product");
    float ms = 0;
    event_elapsed(&ms, start, stop);
    if (r > 0)
      seconds.push_back(ms / 1e3);
  }
  return seconds;
}

int run_ptx(const Options &options, const Matrices &matrices, const std::string &ptx) {
  Cuda cuda;
  const std::string device_name = open_device(cuda);
  CUfunction function = load_kernel(cuda, options, ptx);
  print_resources(cuda, options, function);
  const size_t c_bytes = size_t{options.m} * options.n * matrices.element_size;
  DeviceMatrices on = upload(cuda, matrices, c_bytes);
  std::vector<double> seconds = time_launches(cuda, options, function, on);
  report(options,
         fmt::format("{}, {} groups of {} on {}",
                     options.load_ptx.empty()
                         ? options.kernel_file + " as NVIDIA's OpenCL driver compiled it"
                         : options.load_ptx,
                     options.groups, options.local, device_name),
         seconds);
  std::vector<unsigned char> product(c_bytes);
  cuda.check(cuda.get<CUresult(void *, CUdeviceptr, size_t)>("cuMemcpyDtoH_v2")(product.data(),
                                                                                on.c, c_bytes),
             "cuMemcpyDtoH");
  return verify(options, matrices, host_values(product, matrices.element_size));
}

int run(const Options &options) {
  Matrices matrices = make_matrices(options);
  if (options.cublas)
    return run_cublas(options, matrices);
  if (!options.load_ptx.empty()) { // a PTX file as --save-ptx wrote it, edited or not
    std::string ptx = read_file(options.load_ptx);
    ptx.erase(std::find(ptx.begin(), ptx.end(), '\0'), ptx.end());
    return run_ptx(options, matrices, ptx);
  }
  return run_ptx(options, matrices, driver_ptx(options));
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(parse(argc, argv));
  } catch (const Failure &failure) {
    std::fprintf(failure.status ? stderr : stdout, "%s%s\n",
                 failure.status ? "mqlcl-ptx-replay: " : "", failure.what());
    return failure.status;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "mqlcl-ptx-replay: %s\n", error.what());
    return 2;
  }
}
