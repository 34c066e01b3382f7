#include "runner.hpp"

#include "kernel_source.hpp"
#include "matrices.hpp"
#include "platform.hpp"
#include "reference.hpp"
#include "tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <type_traits>

namespace mqlcl::replay {

const char *status_name(Status status) {
  switch (status) {
  case Status::verified:
    return "verified";
  case Status::wrong:
    return "wrong";
  case Status::rejected:
    return "rejected";
  case Status::failed:
    return "failed";
  case Status::skipped:
    return "skipped";
  }
  return "?";
}

ExitCode exit_code_of(Status status) {
  switch (status) {
  case Status::verified:
  case Status::skipped:
    return ExitCode::ok;
  case Status::wrong:
    return ExitCode::wrong_results;
  case Status::rejected:
    return ExitCode::bad_input;
  case Status::failed:
    return ExitCode::bridge_failure;
  }
  return ExitCode::bridge_failure;
}

double Samples::min() const {
  return *std::min_element(values.begin(), values.end());
}

double Samples::median() const {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

std::optional<double> StepRun::gflops(const std::optional<double> &seconds) const {
  if (!seconds || *seconds <= 0)
    return std::nullopt;
  return flops() / *seconds / 1e9;
}

struct Runner::Cache {
  // The references of the last (sizes, seed, type), one per rounding of the inputs: `all`
  // multiplies the same matrices ten times, the bench every step at a size.
  Sizes sizes;
  uint64_t seed = 0;
  bool double_precision = false;
  std::map<InputRounding, std::shared_ptr<const Reference>> references;
};

Runner::Runner(const Bridge &bridge, std::filesystem::path kernels_dir)
    : bridge_(bridge), kernels_dir_(std::move(kernels_dir)), cache_(std::make_unique<Cache>()) {}

Runner::~Runner() = default;

std::string Runner::build_options(const Step &step, const Sizes &padded, bool double_precision) {
  std::string options = fmt::format("-DCOLS2={} -DCOLSROWS={} -DREALTYPE={}", padded.cols2,
                                    padded.colsrows, double_precision ? "double" : "float");
  if (!step.in_article) // the article's kernels never needed ROWS1; the tiled ones bound edges
    options += fmt::format(" -DROWS1={}", padded.rows1);
  for (const auto &[name, value] : step.params)
    options += fmt::format(" -D{}={}", name, value);
  if (!step.build_options.empty())
    options += " " + step.build_options;
  return options;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (const std::string &item : items)
    out += (out.empty() ? "" : "; ") + item;
  return out;
}

const char *device_type_name(int64_t type) {
  if (type & 4) // CL_DEVICE_TYPE_GPU
    return "GPU";
  if (type & 8) // CL_DEVICE_TYPE_ACCELERATOR
    return "Accelerator";
  if (type & 2) // CL_DEVICE_TYPE_CPU
    return "CPU";
  return "Device";
}

} // namespace

std::string Runner::read_kernel(const std::string &file) const {
  std::filesystem::path path = kernels_dir_ / file;
  std::ifstream in(path, std::ios::binary);
  if (!in)
    bad_input(fmt::format("kernel file {} is missing (set the kernels directory with --kernels DIR "
                          "or MQLCL_KERNELS_DIR)",
                          path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return inline_kernel_includes(text.str(), path); // the parts it includes (kernels/nv/)
}

DeviceInfo Runner::read_device(int32_t context) const {
  const Bridge &b = bridge_;
  DeviceInfo info;
  info.ordinal =
      static_cast<int32_t>(b.info_integer(context, MQLCL_CL_DEVICE_ORDINAL, "CL_DEVICE_ORDINAL"));
  info.name = b.info_string(context, MQLCL_CL_DEVICE_NAME, "CL_DEVICE_NAME");
  info.vendor = b.info_string(context, MQLCL_CL_DEVICE_VENDOR, "CL_DEVICE_VENDOR");
  info.driver = b.info_string(context, MQLCL_CL_DRIVER_VERSION, "CL_DRIVER_VERSION");
  info.platform = b.info_string(context, MQLCL_CL_PLATFORM_NAME, "CL_PLATFORM_NAME");
  info.version = b.info_string(context, MQLCL_CL_DEVICE_VERSION, "CL_DEVICE_VERSION");
  info.type = device_type_name(b.info_integer(context, MQLCL_CL_DEVICE_TYPE, "CL_DEVICE_TYPE"));
  info.max_clock_mhz = static_cast<uint32_t>(b.info_integer(
      context, MQLCL_CL_DEVICE_MAX_CLOCK_FREQUENCY, "CL_DEVICE_MAX_CLOCK_FREQUENCY"));
  info.global_mem_bytes = static_cast<uint64_t>(
      b.info_integer(context, MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE, "CL_DEVICE_GLOBAL_MEM_SIZE"));
  DeviceCaps &caps = info.caps;
  caps.local_mem_bytes = static_cast<uint64_t>(
      b.info_integer(context, MQLCL_CL_DEVICE_LOCAL_MEM_SIZE, "CL_DEVICE_LOCAL_MEM_SIZE"));
  caps.max_work_group_size = static_cast<uint64_t>(b.info_integer(
      context, MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE, "CL_DEVICE_MAX_WORK_GROUP_SIZE"));
  for (int32_t d = 0; d < 3; ++d)
    caps.max_work_item_sizes[static_cast<size_t>(d)] = static_cast<uint64_t>(b.info_integer(
        context, MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_0 + d, "CL_DEVICE_MAX_WORK_ITEM_SIZES"));
  caps.max_alloc_bytes = static_cast<uint64_t>(
      b.info_integer(context, MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE, "CL_DEVICE_MAX_MEM_ALLOC_SIZE"));
  caps.fp64 =
      b.info_integer(context, MQLCL_CL_DEVICE_DOUBLE_SUPPORT, "CL_DEVICE_DOUBLE_SUPPORT") == 1;
  caps.preferred_vector_width_float =
      static_cast<uint32_t>(b.info_integer(context, MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
                                           "CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT"));
  caps.compute_units = static_cast<uint32_t>(
      b.info_integer(context, MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS, "CL_DEVICE_MAX_COMPUTE_UNITS"));
  if (info.type == "CPU") {
    std::optional<uint64_t> stack = default_thread_stack_bytes();
    caps.cpu_group_stack_bytes = stack.value_or(kUnknownCpuStackBytes);
    caps.cpu_group_stack_assumed = !stack.has_value();
  }
  caps.vendor_id = static_cast<uint32_t>(
      b.info_integer(context, MQLCL_CL_DEVICE_VENDOR_ID, "CL_DEVICE_VENDOR_ID"));
  caps.dedicated_local_memory =
      b.info_integer(context, MQLCL_CL_DEVICE_LOCAL_MEM_TYPE, "CL_DEVICE_LOCAL_MEM_TYPE") == 1;
  if (caps.vendor_id == 0x10DE) {
    // cl_nv_device_attribute_query: CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV / _MINOR_NV.
    uint32_t major = 0, minor = 0, size = 0;
    uint8_t raw[4] = {};
    const BridgeApi &cl = bridge_.api();
    if (cl.CLGetDeviceInfo(context, 0x4000, raw, &size, sizeof raw) == 1 && size == 4)
      std::memcpy(&major, raw, 4);
    if (cl.CLGetDeviceInfo(context, 0x4001, raw, &size, sizeof raw) == 1 && size == 4)
      std::memcpy(&minor, raw, 4);
    cl.CLResetLastError(); // an older NVIDIA driver without the extension: no tensor-core steps
    caps.compute_capability = major * 10 + minor;
  }
  caps.tuning_key = info.name + " | " + info.driver;
  return info;
}

DeviceInfo Runner::probe_device(int32_t device) const {
  const BridgeApi &cl = bridge_.api();
  cl.CLResetLastError();
  Handle context(cl.CLContextFree, cl.CLContextCreate(device));
  if (context.get() == MQLCL_INVALID_HANDLE)
    bridge_.fail(fmt::format("CLContextCreate({})", device));
  return read_device(context.get());
}

template <class T>
std::shared_ptr<const Reference>
Runner::reference_for(const Options &options, const Inputs<T> &inputs, InputRounding rounding) {
  Cache &cache = *cache_;
  bool same = cache.seed == options.seed && cache.double_precision == options.double_precision &&
              cache.sizes.rows1 == options.sizes.rows1 &&
              cache.sizes.colsrows == options.sizes.colsrows &&
              cache.sizes.cols2 == options.sizes.cols2;
  if (!same) {
    cache.references.clear(); // free the old ones first: at large sizes they are big
    cache.sizes = options.sizes;
    cache.seed = options.seed;
    cache.double_precision = options.double_precision;
  }
  // Ties away is one of the tie rules of `nearest`: the same product, whose tie_spread covers
  // the other rule.
  if (rounding == InputRounding::nearest)
    rounding = InputRounding::nearest_away;
  std::shared_ptr<const Reference> &reference = cache.references[rounding];
  if (!reference)
    reference = std::make_shared<const Reference>(reference_product(inputs, rounding));
  return reference;
}

std::shared_ptr<const Reference>
Runner::reference(const Options &options, const Inputs<float> &inputs, InputRounding rounding) {
  return reference_for(options, inputs, rounding);
}

// The device's product against the reference of its inputs rounded as the step's kernel rounds
// them, within the tolerance of its sums; with rounded inputs, against the unrounded one too.
template <class T>
void Runner::verify_product(const Step &step, const Options &options, const Inputs<T> &inputs,
                            const Matrix<T> &product, StepRun &run) {
  const Arithmetic arithmetic = arithmetic_of(step);
  const bool rounded = arithmetic.inputs != InputRounding::none && std::is_same_v<T, float>;
  std::shared_ptr<const Reference> unrounded = reference_for(options, inputs);
  if (!rounded && !arithmetic.tensor_core_sums) {
    merge(run.verification,
          verify(product, *unrounded,
                 tolerance_for<T>(options.sizes.colsrows, unrounded->max_abs_first,
                                  unrounded->max_abs_second)));
    return;
  }
  std::shared_ptr<const Reference> checked =
      rounded ? reference_for(options, inputs, arithmetic.inputs) : unrounded;
  Verification v =
      verify(product, *checked, tolerance_of(arithmetic, options.sizes.colsrows, *checked),
             rounded ? unrounded.get() : nullptr);
  v.rounding = rounded ? arithmetic.inputs : InputRounding::none;
  merge(run.verification, v);
}

StepRun Runner::run(const Step &step, const Options &options, Observer &observer) {
  StepRun run;
  run.step = step.name;
  run.source = step.source;
  run.host_only = step.geometry == nullptr;
  run.sizes = options.sizes;
  run.padded = padded_sizes(step, options.sizes);
  run.real_type = options.double_precision ? "double" : "float";
  run.repeat = std::max<uint32_t>(options.repeat, 1);
  run.seed = options.seed;
  try {
    run.bridge_version = bridge_.info_string(0, MQLCL_CL_BRIDGE_VERSION, "CL_BRIDGE_VERSION");
    if (options.double_precision)
      run.host_only ? host_only<double>(step, options, observer, run)
                    : replay<double>(step, options, observer, run);
    else
      run.host_only ? host_only<float>(step, options, observer, run)
                    : replay<float>(step, options, observer, run);
  } catch (const Error &error) {
    run.status = error.code() == ExitCode::bad_input ? Status::rejected : Status::failed;
    run.message = error.what();
  } catch (const std::exception &error) {
    run.status = Status::failed;
    run.message = error.what();
  }
  observer.finished(run);
  return run;
}

template <class T>
void Runner::host_only(const Step &step, const Options &options, Observer &observer, StepRun &run) {
  std::vector<std::string> problems = size_problems(step, options.sizes, sizeof(T));
  if (!problems.empty())
    bad_input(join(problems));
  observer.started(run);
  if (!options.run_cpu) {
    run.status = Status::skipped;
    run.message = "the host-only step has nothing to do with --no-cpu";
    return;
  }
  ArticleRandom random(options.seed);
  Inputs<T> in =
      generate_inputs<T>(options.sizes, run.padded, step.layout_a, step.layout_b, random);
  Matrix<T> third(options.sizes.rows1, options.sizes.cols2, run.padded.rows1, run.padded.cols2,
                  step.layout_c);
  Progress progress = [&](uint32_t done, uint32_t total) { observer.cpu_progress(done, total); };
  Clock::time_point start = Clock::now();
  cpu_loop(step.cpu_loop, in, third, progress);
  run.cpu_seconds = seconds_since(start);
  observer.cpu_finished(run);

  std::shared_ptr<const Reference> reference = reference_for(options, in);
  run.verification = verify(third, *reference,
                            tolerance_for<T>(options.sizes.colsrows, reference->max_abs_first,
                                             reference->max_abs_second));
  run.status = run.verification.passed() ? Status::verified : Status::wrong;
}

template <class T>
void Runner::replay(const Step &chosen, const Options &options, Observer &observer, StepRun &run) {
  const BridgeApi &cl = bridge_.api();
  Step resolved = chosen; // the tuned step picks its kernel once the device is known
  const Step &step = resolved;
  const Sizes &padded = run.padded;
  std::vector<std::string> problems = size_problems(step, options.sizes, sizeof(T));
  if (!problems.empty())
    bad_input(join(problems));

  // The context first, so a bad device or a size the device cannot take is reported before the
  // minute-long CPU loop; the bridge calls still come in the scripts' order.
  cl.CLResetLastError();
  Handle context(cl.CLContextFree, cl.CLContextCreate(options.device));
  if (context.get() == MQLCL_INVALID_HANDLE) {
    int64_t count = cl.CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT);
    if (options.device >= 0 && count > 0 && options.device >= count)
      bad_input(fmt::format("there is no OpenCL device {}: the bridge sees {} device{} "
                            "(mqlcl-replay --list-devices)",
                            options.device, count, count == 1 ? "" : "s"));
    bridge_.fail(fmt::format("CLContextCreate({})", options.device));
  }
  run.device = read_device(context.get());
  const DeviceCaps &caps = run.device->caps;
  if (chosen.tuning != DeviceTuning::none) {
    resolved = for_device(chosen, caps, options.sizes);
    run.source = resolved.source;
  }
  for (const auto &[name, value] : options.params)
    resolved.params[name] = value;
  problems =
      device_problems(step, padded, caps, sizeof(T), options.double_precision, options.local);
  if (!problems.empty())
    bad_input(join(problems));
  GeometryInput geometry_input{padded, options.local, caps, step.params, sizeof(T)};
  run.geometry = (*step.geometry)(geometry_input);
  run.build_options = build_options(step, padded, options.double_precision);
  run.kernel_file = step.kernel_file;
  observer.started(run);

  ArticleRandom random(options.seed);
  Inputs<T> in = generate_inputs<T>(options.sizes, padded, step.layout_a, step.layout_b, random);
  Matrix<T> third_cpu;
  if (options.run_cpu) {
    third_cpu = Matrix<T>(options.sizes.rows1, options.sizes.cols2, padded.rows1, padded.cols2,
                          step.layout_c);
    Progress progress = [&](uint32_t done, uint32_t total) { observer.cpu_progress(done, total); };
    Clock::time_point start = Clock::now();
    cpu_loop(step.cpu_loop, in, third_cpu, progress);
    run.cpu_seconds = seconds_since(start);
    observer.cpu_finished(run);
  }
  // The CPU loop multiplies the inputs as they are, in REALTYPE.
  std::shared_ptr<const Reference> reference = reference_for(options, in);
  if (options.run_cpu)
    run.cpu_verification = verify(third_cpu, *reference,
                                  tolerance_for<T>(options.sizes.colsrows, reference->max_abs_first,
                                                   reference->max_abs_second));
  reference.reset();
  // A TF32 product's reference too, before the device runs rather than between its replays.
  if (const InputRounding rounding = arithmetic_of(step).inputs;
      rounding != InputRounding::none && std::is_same_v<T, float>)
    reference_for(options, in, rounding);

  // initAllDataGPU(): program, kernel, three buffers, their arguments, the three writes.
  std::u16string source = to_utf16(read_kernel(step.kernel_file));
  std::vector<char16_t> build_log(1 << 16);
  Handle program(cl.CLProgramFree,
                 cl.CLProgramCreateEx(context.get(), source.c_str(),
                                      to_utf16(run.build_options).c_str(), build_log.data(),
                                      static_cast<uint32_t>(build_log.size())));
  if (program.get() == MQLCL_INVALID_HANDLE)
    bridge_.fail(fmt::format("CLProgramCreateEx({}, \"{}\")", step.kernel_file, run.build_options));
  Handle kernel(cl.CLKernelFree,
                cl.CLKernelCreate(program.get(), to_utf16(step.kernel_name).c_str()));
  if (kernel.get() == MQLCL_INVALID_HANDLE)
    bridge_.fail(fmt::format("CLKernelCreate({})", step.kernel_name));
  run.kernel_work_group_size = bridge_.info_integer(kernel.get(), MQLCL_CL_KERNEL_WORK_GROUP_SIZE,
                                                    "CL_KERNEL_WORK_GROUP_SIZE");
  run.kernel_private_bytes = bridge_.info_integer(kernel.get(), MQLCL_CL_KERNEL_PRIVATE_MEM_SIZE,
                                                  "CL_KERNEL_PRIVATE_MEM_SIZE");
  run.kernel_local_bytes = bridge_.info_integer(kernel.get(), MQLCL_CL_KERNEL_LOCAL_MEM_SIZE,
                                                "CL_KERNEL_LOCAL_MEM_SIZE");

  Matrix<T> buf(options.sizes.rows1, options.sizes.cols2, padded.rows1, padded.cols2,
                step.layout_c);
  const std::vector<T> zeros(buf.data.size(), T(0));
  auto create_buffer = [&](uint32_t bytes, const char *what) {
    Handle buffer(cl.CLBufferFree, cl.CLBufferCreate(context.get(), bytes, MQLCL_MEM_READ_WRITE));
    if (buffer.get() == MQLCL_INVALID_HANDLE)
      bridge_.fail(fmt::format("CLBufferCreate({}, {} bytes)", what, bytes));
    return buffer;
  };
  // Declared in creation order, so they are freed in reverse.
  Handle mem_in1 = create_buffer(in.first.bytes(), "in1");
  Handle mem_in2 = create_buffer(in.second.bytes(), "in2");
  Handle mem_out = create_buffer(buf.bytes(), "out");

  const std::array<uint32_t, 3> offsets{0, 0, 0};
  // The operand pass (wgmma's rounded TF32, step 17's tiles): its two launches rewrite in1 and in2
  // into scratch buffers, which the product then reads in their place.
  const PassScratch scratch = pass_scratch(step, padded);
  Handle pass_a, pass_b, scratch_a, scratch_b;
  if (scratch.active()) {
    const std::u16string pass_name = to_utf16(step.operand_pass->kernel_name);
    // lines: the operand's own (the pass reads no further); a tiled pass covers whole tiles.
    auto pass_kernel = [&](const Handle &operand, const Handle &destination, uint32_t lines,
                           uint32_t block) {
      Handle pass(cl.CLKernelFree, cl.CLKernelCreate(program.get(), pass_name.c_str()));
      if (pass.get() == MQLCL_INVALID_HANDLE)
        bridge_.fail(fmt::format("CLKernelCreate({})", step.operand_pass->kernel_name));
      const int32_t count = static_cast<int32_t>(lines), tile_lines = static_cast<int32_t>(block);
      if (cl.CLSetKernelArgMem(pass.get(), 0, operand.get()) == 0 ||
          cl.CLSetKernelArgMem(pass.get(), 1, destination.get()) == 0 ||
          cl.CLSetKernelArg(pass.get(), 2, &count, sizeof count) == 0 ||
          (block > 0 && cl.CLSetKernelArg(pass.get(), 3, &tile_lines, sizeof tile_lines) == 0))
        bridge_.fail(fmt::format("setting the arguments of {}", step.operand_pass->kernel_name));
      return pass;
    };
    if (scratch.covers_a()) {
      scratch_a = create_buffer(static_cast<uint32_t>(scratch.floats_a * sizeof(T)), "in1's parts");
      pass_a = pass_kernel(mem_in1, scratch_a, padded.rows1, scratch.block_a);
    }
    scratch_b = create_buffer(static_cast<uint32_t>(scratch.floats_b * sizeof(T)), "in2's parts");
    pass_b = pass_kernel(mem_in2, scratch_b, padded.cols2, scratch.block_b);
  }
  const Handle &product_in1 = scratch.covers_a() ? scratch_a : mem_in1;
  const Handle &product_in2 = scratch.active() ? scratch_b : mem_in2;
  auto execute_pass = [&](const Handle &pass, uint64_t lines) {
    const std::array<uint32_t, 3> pass_global{static_cast<uint32_t>(lines * scratch.groups), 1, 1};
    if (cl.CLExecute(pass.get(), 1, offsets.data(), pass_global.data(), nullptr) == 0)
      bridge_.fail(fmt::format("CLExecute({})", step.operand_pass->kernel_name));
  };
  auto execution_seconds = [&](const Handle &launched) {
    return static_cast<double>(bridge_.info_integer(launched.get(), MQLCL_CL_KERNEL_EXECUTION_TIME,
                                                    "CL_KERNEL_EXECUTION_TIME")) *
           1e-9;
  };

  // Tensor maps (step 18): the product copies its tiles from in1 and in2 through them.
  Handle maps;
  if (step.tensor_maps) {
    const TensorMaps &tm = *step.tensor_maps;
    const auto typed = step.params.find(tm.type_param);
    const int32_t type =
        typed != step.params.end() && typed->second == 2 ? MQLCL_TENSOR_TF32 : MQLCL_TENSOR_FLOAT32;
    const uint32_t pitch = padded.colsrows * static_cast<uint32_t>(sizeof(T));
    maps = create_buffer(256, "the tensor maps");
    auto map = [&](uint32_t offset, const Handle &operand, uint32_t lines, const std::string &box,
                   const char *what) {
      const uint32_t box_lines = static_cast<uint32_t>(step.params.at(box));
      const uint32_t box_k = static_cast<uint32_t>(step.params.at(tm.k_param));
      if (cl.CLBufferTensorMap(maps.get(), offset, operand.get(), 0, lines, padded.colsrows, pitch,
                               box_lines, box_k, box_k * 4, type) == 0)
        bridge_.fail(fmt::format("CLBufferTensorMap({})", what));
    };
    map(0, mem_in1, padded.rows1, tm.rows_param_a, "in1");
    if (!tm.rows_param_b.empty())
      map(128, mem_in2, padded.cols2, tm.rows_param_b, "in2");
  }

  std::vector<KernelArg> args = kernel_args(step);
  for (uint32_t index = 0; index < args.size(); ++index) {
    const KernelArg &arg = args[index];
    int32_t ok = 0;
    int32_t value = 0;
    switch (arg.kind) {
    case KernelArg::Kind::matrix_a:
      ok = cl.CLSetKernelArgMem(kernel.get(), index, product_in1.get());
      break;
    case KernelArg::Kind::matrix_b:
      ok = cl.CLSetKernelArgMem(kernel.get(), index, product_in2.get());
      break;
    case KernelArg::Kind::matrix_c:
      ok = cl.CLSetKernelArgMem(kernel.get(), index, mem_out.get());
      break;
    case KernelArg::Kind::int_rows1:
    case KernelArg::Kind::int_colsrows:
    case KernelArg::Kind::int_cols2:
      value = static_cast<int32_t>(arg.kind == KernelArg::Kind::int_rows1      ? padded.rows1
                                   : arg.kind == KernelArg::Kind::int_colsrows ? padded.colsrows
                                                                               : padded.cols2);
      ok = cl.CLSetKernelArg(kernel.get(), index, &value, sizeof(value));
      break;
    case KernelArg::Kind::local_bytes:
      ok = cl.CLSetKernelArgMemLocal(kernel.get(), index, arg.local_bytes(geometry_input));
      break;
    case KernelArg::Kind::tensor_maps:
      ok = maps.get() != MQLCL_INVALID_HANDLE &&
           cl.CLSetKernelArgMem(kernel.get(), index, maps.get());
      break;
    }
    if (ok == 0)
      bridge_.fail(fmt::format("setting argument {} of {}", index, step.kernel_name));
  }
  auto write = [&](const Handle &buffer, const T *data, size_t count, const char *what) {
    if (cl.CLBufferWrite(buffer.get(), data, 0, 0, static_cast<uint32_t>(count), sizeof(T)) !=
        count)
      bridge_.fail(fmt::format("CLBufferWrite({})", what));
  };
  write(mem_in1, in.first.data.data(), in.first.data.size(), "in1");
  write(mem_in2, in.second.data.data(), in.second.data.size(), "in2");
  write(mem_out, zeros.data(), zeros.size(), "out"); // 0.0 everywhere: two kernels add into it

  // executeGPU() + readOutBuf(), timed as the article times them; --repeat replays them.
  for (uint32_t replay = 0; replay < run.repeat; ++replay) {
    if (replay > 0)
      write(mem_out, zeros.data(), zeros.size(), "out");
    Clock::time_point start = Clock::now();
    if (scratch.covers_a())
      execute_pass(pass_a, scratch.lines_a);
    if (scratch.active())
      execute_pass(pass_b, scratch.lines_b);
    if (cl.CLExecute(
            kernel.get(), run.geometry.work_dim, offsets.data(), run.geometry.global.data(),
            run.geometry.runtime_chooses_local() ? nullptr : run.geometry.local.data()) == 0)
      bridge_.fail(fmt::format("CLExecute({})", step.kernel_name));
    uint32_t read = cl.CLBufferRead(mem_out.get(), buf.data.data(), 0, 0,
                                    static_cast<uint32_t>(buf.data.size()), sizeof(T));
    double total = seconds_since(start);
    if (read == 0)
      bridge_.fail("CLBufferRead(out)");
    run.total_seconds.values.push_back(total);
    // The product's kernel time, with the operand pass's when there is one.
    run.kernel_seconds.values.push_back(execution_seconds(kernel) +
                                        (scratch.covers_a() ? execution_seconds(pass_a) : 0.0) +
                                        (scratch.active() ? execution_seconds(pass_b) : 0.0));
    verify_product(step, options, in, buf, run);
    if (replay == 0) {
      run.elements_read = read;
      observer.read_finished(run);
    }
  }

  // checkRandom(): ten elements recomputed in REALTYPE, next to thirdCPU and the device's.
  for (uint32_t i = 0; i < options.random_checks; ++i) {
    RandomCheck check;
    check.row = random.gen_rnd(options.sizes.rows1);
    check.col = random.gen_rnd(options.sizes.cols2);
    T sum = 0;
    for (uint32_t k = 0; k < options.sizes.colsrows; ++k)
      sum += in.first.at(check.row, k) * in.second.at(k, check.col);
    check.sum = sum;
    if (options.run_cpu)
      check.cpu = third_cpu.at(check.row, check.col);
    check.buf = buf.at(check.row, check.col);
    run.checks.push_back(check);
  }

  bool right =
      run.verification.passed() && (!run.cpu_verification || run.cpu_verification->passed());
  run.status = right ? Status::verified : Status::wrong;
  if (run.cpu_verification && !run.cpu_verification->passed())
    run.message = "the CPU loop's product is wrong (a harness bug)";
  if (!step.race.empty())
    run.message = run.verification.passed()
                      ? fmt::format("the race of the listing as printed ({}) did not corrupt the "
                                    "product on this device with this work-group size; {} adds "
                                    "the missing barrier",
                                    step.race, step.fixed_by)
                      : fmt::format("this is the race of the listing as printed: {}; {} adds "
                                    "the missing barrier",
                                    step.race, step.fixed_by);
}

} // namespace mqlcl::replay
