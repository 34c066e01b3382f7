// Programs, kernels and kernel arguments.
#include "arg_types.hpp"
#include "boundary.hpp"
#include "cl_api.hpp"
#include "device_health.hpp"
#include "objects.hpp"
#include "program_cache.hpp"
#include "ptx_rewrite.hpp"
#include "sm90a_build.hpp"
#include "utf16.hpp"

#include <fmt/format.h>

#include <cstring>
#include <optional>

using namespace mqlcl;

namespace {

// Always built with -cl-kernel-arg-info so every argument's kind is known (objects.hpp, ArgKind).
constexpr const char *kBridgeBuildOptions = "-cl-kernel-arg-info";

std::string build_log_of(const Program &program) {
  const ClApi &cl = cl_api();
  cl_device_id device = program.context->device->id;
  size_t bytes = 0;
  if (cl.clGetProgramBuildInfo(program.program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &bytes) !=
          CL_SUCCESS ||
      bytes == 0)
    return {};
  std::string log(bytes, '\0');
  if (cl.clGetProgramBuildInfo(program.program, device, CL_PROGRAM_BUILD_LOG, bytes, log.data(),
                               nullptr) != CL_SUCCESS)
    return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' '))
    log.pop_back();
  return log;
}

// CLProgramCreateEx's build_log out-parameter (NULL and 0 for none).
struct BuildLogOut {
  char16_t *text = nullptr;
  uint32_t capacity = 0;
  void write(const std::string &log) const {
    if (text != nullptr && capacity > 0)
      write_utf16(log, text, capacity); // truncated if it must be
  }
};

// -mqlcl-nv-sm90a: replaces the source build in `program` with the same code built from the
// driver's PTX retargeted to sm_90a (sm90a_build.hpp). `options` are the user's, without the
// bridge's own.
void rebuild_for_sm90a(const char *function, Program &program, const std::string &options,
                       const BuildLogOut &log) {
  Sm90aBuild rebuilt;
  try {
    rebuilt = mqlcl::rebuild_for_sm90a(function, program.context->context,
                                       program.context->device->id, program.program, options);
  } catch (const Failure &failure) {
    log.write(failure.message()); // the caller reads why in the log as well
    throw;
  }
  cl_api().clReleaseProgram(program.program);
  program.program = rebuilt.program;
  program.build_log = std::move(rebuilt.log);
}

// The build options less the bridge's own -cl-kernel-arg-info (at their start).
std::string without_arg_info(const std::string &options) {
  std::string rest = options.substr(std::strlen(kBridgeBuildOptions));
  return rest.empty() ? rest : rest.substr(1);
}

// Builds `program` with `options`; a compile failure is retried once without the bridge's
// -cl-kernel-arg-info, which NVIDIA's compiler (driver 580) cannot honour for a kernel without
// arguments (ptxas: "Parsing error near '}'"). Built so, the driver describes no argument: the
// setters treat each as Unknown, as after a build from PTX. The first log stays where both fail.
cl_int build_program(Program &program, std::string &options) {
  const ClApi &cl = cl_api();
  cl_device_id device = program.context->device->id;
  cl_int status = cl.clBuildProgram(program.program, 1, &device, options.c_str(), nullptr, nullptr);
  program.build_log = build_log_of(program);
  if (status != CL_BUILD_PROGRAM_FAILURE || options.rfind(kBridgeBuildOptions, 0) != 0)
    return status;
  std::string retry = without_arg_info(options);
  if (cl.clBuildProgram(program.program, 1, &device, retry.c_str(), nullptr, nullptr) != CL_SUCCESS)
    return status;
  program.build_log = build_log_of(program);
  program.build_options = without_arg_info(program.build_options);
  options = std::move(retry);
  return CL_SUCCESS;
}

// Builds `text` from source into `program` (then retargets it under -mqlcl-nv-sm90a); throws
// Failure(ERR_OPENCL_PROGRAM_CREATE) with the log when the driver refuses it.
void build_from_source(const char *function, Program &program, const std::string &text,
                       std::string source_options, bool sm90a, const std::string &driver_options,
                       const BuildLogOut &log) {
  const ClApi &cl = cl_api();
  const char *text_pointer = text.c_str();
  size_t text_length = text.size();
  cl_int status = CL_SUCCESS;
  program.program = cl.clCreateProgramWithSource(program.context->context, 1, &text_pointer,
                                                 &text_length, &status);
  check_cl(status, fmt::format("{}: clCreateProgramWithSource", function).c_str(),
           MQLCL_ERR_OPENCL_PROGRAM_CREATE);
  status = build_program(program, source_options);
  if (status != CL_SUCCESS) {
    log.write(program.build_log);
    fail(MQLCL_ERR_OPENCL_PROGRAM_CREATE,
         fmt::format("{}: clBuildProgram: {} ({}) with options \"{}\"\n{}", function,
                     cl_error_name(status), status, source_options, program.build_log),
         status);
  }
  if (sm90a)
    rebuild_for_sm90a(function, program, driver_options, log);
}

int32_t create_program(const char *function, int32_t context_handle, const char16_t *source,
                       const char16_t *build_options, char16_t *build_log, uint32_t log_capacity) {
  if (source == nullptr)
    fail(MQLCL_ERR_INVALID_PARAMETER, fmt::format("{}: source is NULL", function));
  if (build_log == nullptr && log_capacity > 0)
    fail(MQLCL_ERR_INVALID_PARAMETER,
         fmt::format("{}: build_log is NULL but log_capacity is {}", function, log_capacity));
  const BuildLogOut log{build_log, log_capacity};
  log.write("");
  auto program = std::make_shared<Program>();
  program->context = context_of(context_handle, function);
  std::string text = utf16_to_utf8(source);
  if (text.empty())
    fail(MQLCL_ERR_INVALID_PARAMETER, fmt::format("{}: source is empty", function));
  std::string user_options = build_options != nullptr ? utf16_to_utf8(build_options) : "";
  std::string driver_options = user_options; // the user's, less the bridge's own options
  const bool sm90a = take_build_option(driver_options, kSm90aOption);
  std::string source_options = kBridgeBuildOptions;
  if (!driver_options.empty())
    source_options += " " + driver_options;
  if (sm90a)
    source_options += " " + std::string(kSm90aDefine);
  // Reported as given: with -mqlcl-nv-sm90a, which the driver never sees.
  program->build_options = kBridgeBuildOptions;
  if (!user_options.empty())
    program->build_options += " " + user_options;
  if (sm90a)
    program->build_options += " " + std::string(kSm90aDefine);

  // The final binary is built with the options its own build had (sm_90a: the user's alone).
  const std::string key =
      program_cache::key_of(*program->context->device, program->build_options, text);
  std::optional<program_cache::BuildTurn> turn;
  if (auto loaded = program_cache::load_or_take_turn(
          *program->context, key, sm90a ? driver_options : source_options, turn)) {
    program->program = loaded->program;
    program->build_log = std::move(loaded->build_log);
    program->cached_args = std::move(loaded->kernel_args);
    program->from_cache = true;
  } else {
    watching_device(*program->context->device, function, [&] {
      build_from_source(function, *program, text, source_options, sm90a, driver_options, log);
    });
    program_cache::store(*program->context, key, program->program, program->build_log);
  }
  turn.reset();
  program->build_log = program_cache::take_note(*program->context->device) + program->build_log;
  log.write(program->build_log);
  return registry().programs.insert(std::move(program));
}

// A driver that cannot tell (CL_KERNEL_ARG_INFO_NOT_AVAILABLE) leaves the argument Unknown, so
// the setters pass it on to the driver's own checks, unless the program cache kept what the
// source build's driver said (`cached`); any other failure fails CLKernelCreate.
ArgKind classify_argument(cl_kernel kernel, cl_uint index, std::string &type_name,
                          const program_cache::ArgInfo *cached) {
  const ClApi &cl = cl_api();
  auto query = [&](cl_kernel_arg_info property, size_t size, void *value, size_t *size_ret) {
    cl_int status = cl.clGetKernelArgInfo(kernel, index, property, size, value, size_ret);
    if (status == CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
      return false;
    check_cl(status, fmt::format("CLKernelCreate: clGetKernelArgInfo({})", index).c_str(),
             MQLCL_ERR_OPENCL_KERNEL_CREATE);
    return true;
  };
  cl_kernel_arg_address_qualifier address = 0;
  cl_kernel_arg_access_qualifier access = 0;
  if (!query(CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(address), &address, nullptr) ||
      !query(CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof(access), &access, nullptr)) {
    if (cached == nullptr)
      return ArgKind::Unknown;
    address = cached->address;
    access = cached->access;
    type_name = cached->type_name;
  } else if (size_t bytes = 0; query(CL_KERNEL_ARG_TYPE_NAME, 0, nullptr, &bytes)) {
    type_name.assign(bytes, '\0');
    if (!query(CL_KERNEL_ARG_TYPE_NAME, bytes, type_name.data(), nullptr))
      type_name.clear();
    type_name = type_name.c_str(); // drop the terminator
  }
  if (access != CL_KERNEL_ARG_ACCESS_NONE) // images: the bridge has no image objects
    return ArgKind::Unsupported;
  if (address == CL_KERNEL_ARG_ADDRESS_GLOBAL || address == CL_KERNEL_ARG_ADDRESS_CONSTANT)
    return ArgKind::GlobalBuffer;
  if (address == CL_KERNEL_ARG_ADDRESS_LOCAL)
    return ArgKind::Local;
  for (const char *object : {"sampler_t", "event_t", "clk_event_t", "queue_t", "reserve_id_t"})
    if (type_name == object)
      return ArgKind::Unsupported;
  return ArgKind::Value;
}

const char *describe(ArgKind kind) {
  switch (kind) {
  case ArgKind::Value:
    return "a by-value argument (use CLSetKernelArg)";
  case ArgKind::GlobalBuffer:
    return "a __global/__constant pointer (use CLSetKernelArgMem)";
  case ArgKind::Local:
    return "a __local pointer (use CLSetKernelArgMemLocal)";
  case ArgKind::Unsupported:
    return "an image, sampler or other OpenCL object the bridge does not create";
  case ArgKind::Unknown:
    return "an argument of unknown kind";
  }
  return "";
}

// Checks index and kind; returns the kernel locked for the update.
std::unique_lock<std::mutex> lock_argument(const char *function, Kernel &kernel, uint32_t index,
                                           ArgKind wanted) {
  if (index >= kernel.arg_kinds.size())
    fail(MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER,
         fmt::format("{}: kernel {} has {} argument(s); index {} is out of range", function,
                     kernel.name, kernel.arg_kinds.size(), index),
         CL_INVALID_ARG_INDEX);
  ArgKind actual = kernel.arg_kinds[index];
  if (actual != wanted && actual != ArgKind::Unknown)
    fail(MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER,
         fmt::format("{}: argument {} of {} ({}) is {}", function, index, kernel.name,
                     kernel.arg_type_names[index], describe(actual)),
         CL_INVALID_ARG_VALUE);
  return std::unique_lock<std::mutex>(kernel.mutex);
}

void set_argument(const char *function, Kernel &kernel, uint32_t index, size_t size,
                  const void *value) {
  cl_int status = cl_api().clSetKernelArg(kernel.kernel, index, size, value);
  check_cl(status,
           fmt::format("{}: clSetKernelArg({} of {})", function, index, kernel.name).c_str(),
           MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER);
  kernel.arg_set[index] = true;
}

} // namespace

extern "C" {

MQLCL_API int32_t CLProgramCreate(int32_t context, const char16_t *source) {
  return guarded(MQLCL_INVALID_HANDLE, [&] {
    return create_program("CLProgramCreate", context, source, nullptr, nullptr, 0);
  });
}

MQLCL_API int32_t CLProgramCreateEx(int32_t context, const char16_t *source,
                                    const char16_t *build_options, char16_t *build_log,
                                    uint32_t log_capacity) {
  return guarded(MQLCL_INVALID_HANDLE, [&] {
    return create_program("CLProgramCreateEx", context, source, build_options, build_log,
                          log_capacity);
  });
}

MQLCL_API void CLProgramFree(int32_t program) {
  guarded_void([&] {
    if (!registry().programs.remove(program))
      fail_not_live(registry().programs, program, "CLProgramFree", "program");
  });
}

MQLCL_API int32_t CLKernelCreate(int32_t program_handle, const char16_t *kernel_name) {
  return guarded(MQLCL_INVALID_HANDLE, [&] {
    if (kernel_name == nullptr)
      fail(MQLCL_ERR_INVALID_PARAMETER, "CLKernelCreate: kernel_name is NULL");
    size_t name_length = utf16_length(kernel_name);
    if (name_length > MQLCL_KERNEL_NAME_MAX)
      fail(MQLCL_ERR_OPENCL_TOO_LONG_KERNEL_NAME,
           fmt::format("CLKernelCreate: kernel name has {} characters; at most {} are allowed",
                       name_length, MQLCL_KERNEL_NAME_MAX));
    auto kernel = std::make_shared<Kernel>();
    kernel->program = program_of(program_handle, "CLKernelCreate");
    kernel->name = utf16_to_utf8(kernel_name);
    const ClApi &cl = cl_api();
    cl_int status = CL_SUCCESS;
    kernel->kernel = cl.clCreateKernel(kernel->program->program, kernel->name.c_str(), &status);
    check_cl(status, fmt::format("CLKernelCreate: clCreateKernel(\"{}\")", kernel->name).c_str(),
             MQLCL_ERR_OPENCL_KERNEL_CREATE);
    cl_uint arg_count = 0;
    check_cl(cl.clGetKernelInfo(kernel->kernel, CL_KERNEL_NUM_ARGS, sizeof(arg_count), &arg_count,
                                nullptr),
             "CLKernelCreate: clGetKernelInfo(CL_KERNEL_NUM_ARGS)", MQLCL_ERR_OPENCL_KERNEL_CREATE);
    check_cl(cl.clGetKernelWorkGroupInfo(kernel->kernel, kernel->program->context->device->id,
                                         CL_KERNEL_WORK_GROUP_SIZE, sizeof(size_t),
                                         &kernel->work_group_size, nullptr),
             "CLKernelCreate: clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)",
             MQLCL_ERR_OPENCL_KERNEL_CREATE);
    kernel->arg_type_names.resize(arg_count);
    kernel->arg_value_sizes.assign(arg_count, 0);
    const cl_uint address_bits = kernel->program->context->device->address_bits;
    const std::vector<program_cache::ArgInfo> *cached = nullptr;
    if (const auto &kept = kernel->program->cached_args) {
      auto found = kept->by_name.find(kernel->name);
      if (found != kept->by_name.end() && found->second.size() == arg_count)
        cached = &found->second;
    }
    for (cl_uint i = 0; i < arg_count; ++i) {
      kernel->arg_kinds.push_back(classify_argument(kernel->kernel, i, kernel->arg_type_names[i],
                                                    cached != nullptr ? &(*cached)[i] : nullptr));
      if (kernel->arg_kinds[i] == ArgKind::Value)
        kernel->arg_value_sizes[i] = by_value_size(kernel->arg_type_names[i], address_bits);
    }
    kernel->arg_set.assign(arg_count, false);
    kernel->bound_buffers.resize(arg_count);
    return registry().kernels.insert(std::move(kernel));
  });
}

MQLCL_API void CLKernelFree(int32_t kernel) {
  guarded_void([&] {
    if (!registry().kernels.remove(kernel))
      fail_not_live(registry().kernels, kernel, "CLKernelFree", "kernel");
  });
}

MQLCL_API int32_t CLSetKernelArg(int32_t kernel_handle, uint32_t arg_index, const void *value,
                                 uint32_t size) {
  return guarded(0, [&] {
    if (value == nullptr)
      fail(MQLCL_ERR_INVALID_PARAMETER, "CLSetKernelArg: value is NULL");
    if (size == 0)
      fail(MQLCL_ERR_INVALID_PARAMETER, "CLSetKernelArg: size is 0");
    auto kernel = kernel_of(kernel_handle, "CLSetKernelArg");
    auto lock = lock_argument("CLSetKernelArg", *kernel, arg_index, ArgKind::Value);
    const size_t expected = kernel->arg_value_sizes[arg_index];
    if (expected != 0 && size != expected)
      fail(MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER,
           fmt::format("CLSetKernelArg: argument {} of {} is a {} of {} bytes; {} bytes were "
                       "given",
                       arg_index, kernel->name, kernel->arg_type_names[arg_index], expected, size),
           CL_INVALID_ARG_SIZE);
    set_argument("CLSetKernelArg", *kernel, arg_index, size, value);
    kernel->bound_buffers[arg_index].reset();
    return 1;
  });
}

MQLCL_API int32_t CLSetKernelArgMem(int32_t kernel_handle, uint32_t arg_index,
                                    int32_t buffer_handle) {
  return guarded(0, [&] {
    auto kernel = kernel_of(kernel_handle, "CLSetKernelArgMem");
    auto buffer = buffer_of(buffer_handle, "CLSetKernelArgMem");
    if (buffer->context != kernel->program->context)
      fail(MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER,
           "CLSetKernelArgMem: the buffer belongs to another context than the kernel",
           CL_INVALID_MEM_OBJECT);
    auto lock = lock_argument("CLSetKernelArgMem", *kernel, arg_index, ArgKind::GlobalBuffer);
    set_argument("CLSetKernelArgMem", *kernel, arg_index, sizeof(cl_mem), &buffer->memory);
    kernel->bound_buffers[arg_index] = std::move(buffer);
    return 1;
  });
}

MQLCL_API int32_t CLSetKernelArgMemLocal(int32_t kernel_handle, uint32_t arg_index,
                                         uint64_t local_mem_size) {
  return guarded(0, [&] {
    if (local_mem_size == 0)
      fail(MQLCL_ERR_INVALID_PARAMETER, "CLSetKernelArgMemLocal: local_mem_size is 0");
    auto kernel = kernel_of(kernel_handle, "CLSetKernelArgMemLocal");
    const Device &device = *kernel->program->context->device;
    if (local_mem_size > device.local_mem_size)
      fail(MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER,
           fmt::format("CLSetKernelArgMemLocal: {} bytes exceed the device's {} bytes of local "
                       "memory",
                       local_mem_size, device.local_mem_size),
           CL_INVALID_ARG_SIZE);
    auto lock = lock_argument("CLSetKernelArgMemLocal", *kernel, arg_index, ArgKind::Local);
    set_argument("CLSetKernelArgMemLocal", *kernel, arg_index, static_cast<size_t>(local_mem_size),
                 nullptr);
    kernel->bound_buffers[arg_index].reset();
    return 1;
  });
}

} // extern "C"
