#include "gemm/gemm.hpp"

#include "cl_api.hpp"
#include "errors.hpp"
#include "gemm/kernels.hpp"
#include "gemm/planner.hpp"
#include "program_cache.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mqlcl::gemm {

namespace {

constexpr const char *kTransposeFile = "transpose.cl"; // kernels/gemm/

template <class Handle, class Release>
void release_if(Handle &handle, Release ClApi::*fn) noexcept {
  if (handle != nullptr && !process_is_exiting()) {
    try {
      (cl_api().*fn)(handle);
    } catch (...) {
    }
  }
  handle = nullptr;
}

void release(Built &built) noexcept {
  release_if(built.kernel, &ClApi::clReleaseKernel);
  release_if(built.program, &ClApi::clReleaseProgram);
}

std::string build_log(cl_program program, cl_device_id device) {
  const ClApi &cl = cl_api();
  size_t bytes = 0;
  if (cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &bytes) !=
      CL_SUCCESS)
    return {};
  std::string log(bytes, '\0');
  cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, bytes, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

// Builds kernels/`file` with `options` and creates `kernel_name`; throws
// Failure(ERR_OPENCL_PROGRAM_CREATE) with the driver's log when the build fails.
Built build(const Context &context, const char *file, const std::string &options,
            const char *kernel_name) {
  const ClApi &cl = cl_api();
  cl_int status = CL_SUCCESS;
  Built built;
  // From the program cache when it holds this build, else from source (then kept there).
  built.program = program_cache::build(context, kernel_text(file), options, status);
  if (built.program == nullptr)
    check_cl(status, "CLGemm: clCreateProgramWithSource", MQLCL_ERR_OPENCL_PROGRAM_CREATE);
  cl_device_id device = context.device->id;
  if (status != CL_SUCCESS) {
    std::string log = build_log(built.program, device);
    release(built);
    fail(MQLCL_ERR_OPENCL_PROGRAM_CREATE,
         fmt::format("CLGemm: building {} with \"{}\": {} ({})\n{}", file, options,
                     cl_error_name(status), status, log),
         status);
  }
  built.kernel = cl.clCreateKernel(built.program, kernel_name, &status);
  if (status != CL_SUCCESS) {
    release(built);
    fail(MQLCL_ERR_OPENCL_PROGRAM_CREATE,
         fmt::format("CLGemm: clCreateKernel({}) of {}", kernel_name, file), status);
  }
  return built;
}

// The built kernel for `file` and `options`, built on first use and kept by the context; the
// least recently used goes when kMaxProgramsPerContext are kept.
cl_kernel kernel_for(const Context &context, ContextState &state, const char *file,
                     const std::string &options, const char *kernel_name) {
  std::string key = std::string(file) + " " + options;
  if (auto found = state.programs.find(key); found != state.programs.end()) {
    // The most recently used goes last, so a build within this call never evicts it.
    state.built_order.remove(key);
    state.built_order.push_back(key);
    return found->second.kernel;
  }
  Built built = build(context, file, options, kernel_name);
  if (state.programs.size() >= kMaxProgramsPerContext) {
    // In-flight launches keep their kernel alive: OpenCL retains what it has enqueued.
    release(state.programs[state.built_order.front()]);
    state.programs.erase(state.built_order.front());
    state.built_order.pop_front();
  }
  state.programs[key] = built;
  state.built_order.push_back(key);
  return built.kernel;
}

const char *realtype(const Call &call) {
  return call.double_precision ? "double" : "float";
}

size_t element_size(const Call &call) {
  return call.double_precision ? 8 : 4;
}

cl_mem scratch(const Context &context, ContextState &state, int index, size_t bytes) {
  if (state.scratch_bytes[index] < bytes) {
    release_if(state.scratch[index], &ClApi::clReleaseMemObject);
    state.scratch_bytes[index] = 0;
    cl_int status = CL_SUCCESS;
    state.scratch[index] =
        cl_api().clCreateBuffer(context.context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    check_cl(
        status,
        fmt::format("CLGemm: clCreateBuffer of {} bytes for a transposed operand", bytes).c_str(),
        MQLCL_ERR_OPENCL_BUFFER_CREATE);
    state.scratch_bytes[index] = bytes;
  }
  return state.scratch[index];
}

template <class T> void set_arg(cl_kernel kernel, cl_uint index, const T &value) {
  check_cl(cl_api().clSetKernelArg(kernel, index, sizeof(T), &value), "CLGemm: clSetKernelArg",
           MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
}

void set_real(cl_kernel kernel, cl_uint index, const Call &call, double value) {
  if (call.double_precision)
    set_arg(kernel, index, value);
  else
    set_arg(kernel, index, static_cast<float>(value));
}

// Keeps `event` as the call's last launch, and as its first if it is the call's first.
void record_launch(ContextState &state, cl_event event, bool first) {
  if (first) {
    release_if(state.first_launch, &ClApi::clReleaseEvent);
    release_if(state.last_launch, &ClApi::clReleaseEvent);
    state.first_launch = event;
    cl_api().clRetainEvent(event);
  } else {
    release_if(state.last_launch, &ClApi::clReleaseEvent);
  }
  state.last_launch = event;
}

void launch(const Context &context, ContextState &state, cl_kernel kernel, cl_uint dimensions,
            const size_t *global, const size_t *local, bool first) {
  cl_event event = nullptr;
  check_cl(cl_api().clEnqueueNDRangeKernel(context.queue, kernel, dimensions, nullptr, global,
                                           local, 0, nullptr, &event),
           "CLGemm: clEnqueueNDRangeKernel", MQLCL_ERR_OPENCL_EXECUTE);
  record_launch(state, event, first);
}

// An operand as the product reads it: `lines` lines of K (A's rows, B's columns), from `memory`
// (nullptr: the scratch copy, made once the kernel is built), at offset, ld and stride.
// `k_runs_down`: stored K x lines, which step 13's kernel reads as it is (A_LINES, B_LINES);
// the CPU form reads K-contiguous lines only, and large products run faster from a K-contiguous
// copy (planner.hpp), so there such an operand is copied transposed first.
struct Lines {
  const Operand *operand = nullptr;
  uint32_t lines = 0;
  bool k_runs_down = false, copied = false;
  cl_mem memory = nullptr;
  uint64_t offset = 0, ld = 0, stride = 0;
};

Lines lines_of(const Call &call, const Operand &operand, uint32_t lines, bool k_runs_down,
               const Plan &plan) {
  Lines out{&operand,       lines,      k_runs_down,   false, operand.buffer->memory,
            operand.offset, operand.ld, operand.stride};
  if (k_runs_down && plan.copy_k_down_operands) {
    out.k_runs_down = false; // as the product reads the copy
    out.copied = true;
    out.memory = nullptr;
    out.offset = 0;
    out.ld = call.k;
    out.stride = operand.stride == 0 ? 0 : uint64_t(lines) * call.k;
  }
  return out;
}

// Copies an operand stored K x lines into scratch `index` as lines x K, packed; a batch that
// shares one matrix (stride 0) is copied once.
void copy_transposed(const Context &context, ContextState &state, const Call &call, Lines &lines,
                     int index, bool &first) {
  const Operand &operand = *lines.operand;
  const size_t tile = context.device->max_work_group_size >= 256 ? 16 : 8;
  cl_kernel kernel =
      kernel_for(context, state, kTransposeFile,
                 fmt::format("-DREALTYPE={} -DTILE={}", realtype(call), tile), "transpose");
  const uint32_t copies = operand.stride == 0 ? 1 : call.batch;
  const uint64_t matrix = uint64_t(lines.lines) * call.k;
  lines.memory = scratch(context, state, index, matrix * copies * element_size(call));
  set_arg(kernel, 0, operand.buffer->memory);
  set_arg(kernel, 1, lines.memory);
  set_arg(kernel, 2, cl_ulong(operand.offset));
  set_arg(kernel, 3, cl_ulong(operand.stride));
  set_arg(kernel, 4, cl_int(operand.ld));
  set_arg(kernel, 5, cl_int(call.k));      // rows as stored
  set_arg(kernel, 6, cl_int(lines.lines)); // columns as stored
  const size_t global[3] = {(lines.lines + tile - 1) / tile * tile,
                            (call.k + tile - 1) / tile * tile, copies};
  const size_t local[3] = {tile, tile, 1};
  launch(context, state, kernel, 3, global, local, first);
  first = false;
}

std::string product_options(const Call &call, const Plan &plan, const Lines &a, const Lines &b) {
  const bool aligned = a.offset % 4 == 0 && b.offset % 4 == 0 && call.c.offset % 4 == 0 &&
                       a.stride % 4 == 0 && b.stride % 4 == 0 && call.c.stride % 4 == 0;
  std::string options = fmt::format(
      "-DGEMM -DREALTYPE={} -DROWS1={} -DCOLS2={} -DCOLSROWS={} -DLDA={} -DLDB={} -DLDC={} "
      "-DALIGNED={}",
      realtype(call), call.m, call.n, call.k, a.ld, b.ld, call.c.ld, aligned ? 1 : 0);
  if (plan.family == Family::tiles)
    options +=
        fmt::format(" -DA_LINES={} -DB_LINES={}", a.k_runs_down ? 1 : 0, b.k_runs_down ? 1 : 0);
  for (const auto &[name, value] : plan.params)
    options += fmt::format(" -D{}={}", name, value);
  return options;
}

// A's lines are its rows, stored K x M when transposed; B's are its columns, stored K x N unless
// transposed.
void plan_operands(const Call &call, const Plan &plan, Lines &a, Lines &b) {
  a = lines_of(call, call.a, call.m, call.a.transposed, plan);
  b = lines_of(call, call.b, call.n, !call.b.transposed, plan);
}

// The planned kernel, or the defaults' where a tuned set does not build on this device.
cl_kernel product_kernel(const Context &context, ContextState &state, const Call &call, Plan &plan,
                         const Shape &shape, Lines &a, Lines &b) {
  plan_operands(call, plan, a, b);
  try {
    return kernel_for(context, state, kernel_file_of(plan.family),
                      product_options(call, plan, a, b), "gemm");
  } catch (const Failure &) {
    if (plan.origin == "defaults")
      throw;
    plan = default_plan(*context.device, shape, forced_family());
    plan_operands(call, plan, a, b);
    return kernel_for(context, state, kernel_file_of(plan.family),
                      product_options(call, plan, a, b), "gemm");
  }
}

void run_product(const Context &context, ContextState &state, const Call &call, bool first) {
  const Shape shape{call.m, call.n, call.k, call.batch, element_size(call)};
  if (!state.overlay_read) {
    state.overlay = read_overlay(tuning_cache_path());
    state.overlay_read = true;
  }
  std::optional<Tuned> tuned = find_tuned(state.overlay, compiled_database(),
                                          facts_of(*context.device), call.m, call.n, call.k);
  Plan plan = plan_product(*context.device, shape, tuned, forced_family());
  Lines a, b;
  cl_kernel kernel = product_kernel(context, state, call, plan, shape, a, b);
  if (a.copied)
    copy_transposed(context, state, call, a, 0, first);
  if (b.copied)
    copy_transposed(context, state, call, b, 1, first);
  set_arg(kernel, 0, a.memory);
  set_arg(kernel, 1, b.memory);
  set_arg(kernel, 2, call.c.buffer->memory);
  const uint64_t values[] = {a.offset, b.offset, call.c.offset, a.stride, b.stride, call.c.stride};
  for (cl_uint i = 0; i < 6; ++i)
    set_arg(kernel, 3 + i, cl_ulong(values[i]));
  set_real(kernel, 9, call, call.alpha);
  set_real(kernel, 10, call, call.beta);
  launch(context, state, kernel, plan.dimensions, plan.global.data(), plan.local.data(), first);
}

ContextState &state_of(Context &context) {
  std::lock_guard<std::mutex> lock(context.gemm_mutex);
  if (!context.gemm)
    context.gemm = std::make_shared<ContextState>();
  return *context.gemm;
}

} // namespace

std::string_view kernel_text(std::string_view name) {
  for (size_t i = 0; i < kKernelFileCount; ++i)
    if (name == kKernelFiles[i].name)
      return kKernelFiles[i].text;
  fail(MQLCL_ERR_OPENCL_INTERNAL, fmt::format("kernels/{} is not in the library", name));
}

ContextState::~ContextState() {
  for (auto &[key, built] : programs)
    release(built);
  for (cl_mem &memory : scratch)
    release_if(memory, &ClApi::clReleaseMemObject);
  release_if(first_launch, &ClApi::clReleaseEvent);
  release_if(last_launch, &ClApi::clReleaseEvent);
}

void enqueue(Context &context, const Call &call) {
  ContextState &state = state_of(context);
  std::lock_guard<std::mutex> lock(state.mutex);
  run_product(context, state, call, true);
  check_cl(cl_api().clFlush(context.queue), "CLGemm: clFlush", MQLCL_ERR_OPENCL_EXECUTE);
}

int64_t last_gemm_nanoseconds(Context &context) {
  ContextState &state = state_of(context);
  cl_event first = nullptr, last = nullptr;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.last_launch == nullptr)
      fail(MQLCL_ERR_OPENCL_EXECUTE, "CL_GEMM_EXECUTION_TIME: no CLGemm has run in this context");
    first = state.first_launch;
    last = state.last_launch;
    cl_api().clRetainEvent(first);
    cl_api().clRetainEvent(last);
  }
  struct Release {
    cl_event a, b;
    ~Release() {
      release_if(a, &ClApi::clReleaseEvent);
      release_if(b, &ClApi::clReleaseEvent);
    }
  } release_events{first, last};
  const ClApi &cl = cl_api();
  check_cl(cl.clWaitForEvents(1, &last), "clWaitForEvents", MQLCL_ERR_OPENCL_EXECUTE);
  cl_ulong start = 0, end = 0;
  check_cl(
      cl.clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr),
      "clGetEventProfilingInfo(CL_PROFILING_COMMAND_START)", MQLCL_ERR_OPENCL_INTERNAL);
  check_cl(cl.clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr),
           "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)", MQLCL_ERR_OPENCL_INTERNAL);
  return end >= start ? static_cast<int64_t>(end - start) : 0;
}

} // namespace mqlcl::gemm
