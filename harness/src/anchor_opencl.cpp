// Raw OpenCL, the bridge's own yardstick: the same replay and calls without the bridge, the
// device's pinned-memory bandwidth, and the raw device that CLBlast runs on.
#include "anchors_detail.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace mqlcl::replay {

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

} // namespace mqlcl::replay
