#include "gemm/runtime.hpp"

#include "cl_api.hpp"
#include "errors.hpp"
#include "gemm/kernels.hpp"
#include "os_library.hpp"
#include "process_state.hpp"
#include "program_cache.hpp"
#include "sm90a_build.hpp"

#include <fmt/format.h>

namespace mqlcl::gemm {

namespace {

template <class Handle, class Release> void release_if(Handle handle, Release ClApi::*fn) noexcept {
  if (handle != nullptr && !process_is_exiting()) {
    try {
      (cl_api().*fn)(handle);
    } catch (...) {
    }
  }
}

void release(Built &built) noexcept {
  for (auto &[name, kernel] : built.kernels)
    release_kernel(kernel);
  release_program(built.program);
  built = {};
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

// Builds kernels/`file` from source with `options`, from the program cache when it holds the
// build (program_cache.hpp), else from source (then kept there).
cl_program build_from_source(const Context &context, const char *file, const std::string &options) {
  cl_int status = CL_SUCCESS;
  cl_program program = program_cache::build(context, kernel_text(file), options, status);
  if (program == nullptr)
    check_cl(status, "CLGemm: clCreateProgramWithSource", MQLCL_ERR_OPENCL_PROGRAM_CREATE);
  if (status != CL_SUCCESS) {
    std::string log = build_log(program, context.device->id);
    release_program(program);
    fail(MQLCL_ERR_OPENCL_PROGRAM_CREATE,
         fmt::format("CLGemm: building {} with \"{}\": {} ({})\n{}", file, options,
                     cl_error_name(status), status, log),
         status);
  }
  return program;
}

// The same built for sm_90a (sm90a_build.hpp): the final binary is what the cache keeps, so a
// later start skips both builds.
cl_program build_for_sm90a(const Context &context, const char *file, const std::string &options) {
  const std::string source_options = options + " " + kSm90aDefine;
  const std::string key = program_cache::key_of(
      *context.device, source_options + " -mqlcl-nv-sm90a", kernel_text(file));
  if (auto loaded = program_cache::load(context, key, ""))
    return loaded->program;
  cl_program source_build = build_from_source(context, file, source_options);
  struct Release {
    cl_program program;
    ~Release() { release_program(program); }
  } release_source{source_build};
  // The PTX build takes no -D options; the source build has used them.
  Sm90aBuild built =
      rebuild_for_sm90a("CLGemm", context.context, context.device->id, source_build, "");
  program_cache::store(context, key, built.program, built.log);
  return built.program;
}

cl_program build_program(const Context &context, const char *file, const std::string &options,
                         bool sm90a) {
  return sm90a ? build_for_sm90a(context, file, options)
               : build_from_source(context, file, options);
}

cl_kernel kernel_of(Built &built, const char *file, const char *kernel_name) {
  if (auto found = built.kernels.find(kernel_name); found != built.kernels.end())
    return found->second;
  cl_int status = CL_SUCCESS;
  cl_kernel kernel = cl_api().clCreateKernel(built.program, kernel_name, &status);
  if (status != CL_SUCCESS)
    fail(MQLCL_ERR_OPENCL_PROGRAM_CREATE,
         fmt::format("CLGemm: clCreateKernel({}) of {}", kernel_name, file), status);
  built.kernels[kernel_name] = kernel;
  return kernel;
}

void release_passes(ContextState &state) noexcept {
  for (const ContextState::Pass &pass : state.passes)
    release_event(pass.event);
  state.passes.clear();
}

// The function name of `kernel`; empty where the driver does not say.
std::string kernel_name(cl_kernel kernel) {
  size_t size = 0;
  if (cl_api().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &size) != CL_SUCCESS ||
      size == 0)
    return {};
  std::string name(size, '\0');
  if (cl_api().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, size, name.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  name.resize(name.find('\0') == std::string::npos ? size : name.find('\0'));
  return name;
}

// Keeps `event` among the call's passes, with its kernel's name; the call's first launch forgets
// the previous call's.
void record_launch(ContextState &state, cl_event event, cl_kernel kernel, bool first) {
  if (first)
    release_passes(state);
  try {
    state.passes.push_back({event, kernel_name(kernel)});
  } catch (...) {
    release_event(event);
    throw;
  }
}

} // namespace

void release_program(cl_program program) noexcept {
  release_if(program, &ClApi::clReleaseProgram);
}
void release_kernel(cl_kernel kernel) noexcept {
  release_if(kernel, &ClApi::clReleaseKernel);
}
void release_memory(cl_mem memory) noexcept {
  release_if(memory, &ClApi::clReleaseMemObject);
}
void release_event(cl_event event) noexcept {
  release_if(event, &ClApi::clReleaseEvent);
}

cl_kernel kernel_for(const Context &context, ContextState &state, const char *file,
                     const std::string &options, const char *kernel_name, bool sm90a) {
  std::string key = fmt::format("{} {}{}", file, options, sm90a ? " sm90a" : "");
  if (auto found = state.programs.find(key); found != state.programs.end()) {
    // The most recently used goes last, so a build within this call never evicts it.
    state.built_order.remove(key);
    state.built_order.push_back(key);
    return kernel_of(found->second, file, kernel_name);
  }
  Built built;
  built.program = build_program(context, file, options, sm90a);
  if (state.programs.size() >= kMaxProgramsPerContext) {
    // In-flight launches keep their kernel alive: OpenCL retains what it has enqueued.
    release(state.programs[state.built_order.front()]);
    state.programs.erase(state.built_order.front());
    state.built_order.pop_front();
  }
  state.programs[key] = built;
  state.built_order.push_back(key);
  return kernel_of(state.programs[key], file, kernel_name);
}

cl_mem scratch(const Context &context, ContextState &state, ScratchSlot slot, size_t bytes) {
  const size_t index = static_cast<size_t>(slot);
  if (state.scratch_bytes[index] < bytes) {
    release_memory(state.scratch[index]);
    state.scratch[index] = nullptr;
    state.scratch_bytes[index] = 0;
    ++state.scratch_generation[index];
    cl_int status = CL_SUCCESS;
    state.scratch[index] =
        cl_api().clCreateBuffer(context.context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    check_cl(status, fmt::format("CLGemm: clCreateBuffer of {} bytes of scratch", bytes).c_str(),
             MQLCL_ERR_OPENCL_BUFFER_CREATE);
    state.scratch_bytes[index] = bytes;
  }
  return state.scratch[index];
}

void set_arg_bytes(cl_kernel kernel, cl_uint index, size_t size, const void *value) {
  check_cl(cl_api().clSetKernelArg(kernel, index, size, value), "CLGemm: clSetKernelArg",
           MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
}

void launch(const Context &context, ContextState &state, cl_kernel kernel, cl_uint dimensions,
            const size_t *global, const size_t *local, bool &first) {
  cl_event event = nullptr;
  check_cl(cl_api().clEnqueueNDRangeKernel(context.queue, kernel, dimensions, nullptr, global,
                                           local, 0, nullptr, &event),
           "CLGemm: clEnqueueNDRangeKernel", MQLCL_ERR_OPENCL_EXECUTE);
  record_launch(state, event, kernel, first);
  first = false;
}

// Made once by process_wide (process_state.hpp): CLGemm may still run on other threads while the
// process exits.
const std::vector<TunedEntry> &compiled_database() {
  static const std::vector<TunedEntry> &entries =
      process_wide<std::vector<TunedEntry>>(compiled_entries());
  return entries;
}

static std::vector<TunedEntry> &overlay_of(ContextState &state) {
  if (!state.overlay_read) {
    state.overlay = read_tuning_file(tuning_file_path(os::environment), Reading::tolerant);
    state.overlay_read = true;
  }
  return state.overlay;
}

std::optional<Tuned> tuned_for(const Context &context, ContextState &state, const Call &call,
                               const char *step) {
  return find_tuned(overlay_of(state), compiled_database(), facts_of(*context.device), call.m,
                    call.n, call.k, step,
                    call.double_precision ? Element::float64 : Element::float32, layout_of(call));
}

std::optional<Tuned> measured_for(const Context &context, ContextState &state, const Call &call,
                                  const char *step) {
  return find_measured_below(
      overlay_of(state), compiled_database(), facts_of(*context.device), call.m, call.n, call.k,
      step, call.double_precision ? Element::float64 : Element::float32, layout_of(call));
}

std::optional<Tuned> measured_around(const Context &context, ContextState &state, const Call &call,
                                     const char *step, const char *param) {
  return find_measured_above(
      overlay_of(state), compiled_database(), facts_of(*context.device), call.m, call.n, call.k,
      step, call.double_precision ? Element::float64 : Element::float32, layout_of(call), param);
}

std::string layout_of(const Call &call) {
  return {call.a.transposed ? 'T' : 'N', call.b.transposed ? 'T' : 'N'};
}

DeviceLimits limits_of(const Device &device) {
  DeviceLimits limits;
  limits.kernel_local_bytes = device.kernel_local_mem_size;
  limits.max_work_group_size = device.max_work_group_size;
  limits.max_work_item_size0 = device.max_work_item_sizes[0];
  limits.compute_units = device.compute_units;
  limits.dedicated_local_memory = device.dedicated_local_memory;
  limits.fp64_tensor_cores = fp64_tensor_cores_of(device.vendor_id, device.compute_capability);
  limits.int8_tensor_cores = int8_tensor_cores_of(device.vendor_id, device.compute_capability);
  limits.int8_wgmma = wgmma_of(device.vendor_id, device.compute_capability);
  return limits;
}

DeviceFacts facts_of(const Device &device) {
  DeviceFacts facts;
  facts.vendor_id = device.vendor_id;
  facts.name = device.name;
  while (!facts.name.empty() && (facts.name.back() == '\0' || facts.name.back() == ' '))
    facts.name.pop_back();
  facts.driver = device.driver_version;
  if (device.type & CL_DEVICE_TYPE_CPU)
    facts.architecture = cpu_architecture(device.preferred_vector_width_float);
  else if (device.compute_capability != 0)
    facts.architecture = "sm_" + std::to_string(device.compute_capability);
  return facts;
}

ContextState::~ContextState() {
  for (auto &[key, built] : programs)
    release(built);
  for (cl_mem memory : scratch)
    release_memory(memory);
  for (auto &[key, kept] : maps)
    release_memory(kept.memory);
  release_passes(*this);
  release_if(ozaki_reads, &ClApi::clReleaseCommandQueue); // each call waits for its reads
}

} // namespace mqlcl::gemm
