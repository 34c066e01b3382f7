#include "runner.hpp"

#include "kernel_source.hpp"
#include "matrices.hpp"
#include "platform.hpp"
#include "reference.hpp"
#include "tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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

// Why no tensor map can be written in `context` (Hopper: the CUDA driver does not load, as under
// Wine, or MQLCL_CUDA_DRIVER=off), empty where one can: one map of a small buffer, as step 18
// writes them.
std::string tensor_maps_missing(const Bridge &bridge, int32_t context) {
  const BridgeApi &cl = bridge.api();
  Handle map(cl.CLBufferFree, cl.CLBufferCreate(context, 128, MQLCL_MEM_READ_WRITE));
  Handle matrix(cl.CLBufferFree, cl.CLBufferCreate(context, 8 * 64, MQLCL_MEM_READ_WRITE));
  if (map.get() == MQLCL_INVALID_HANDLE || matrix.get() == MQLCL_INVALID_HANDLE)
    bridge.fail("CLBufferCreate for a tensor map's probe");
  if (cl.CLBufferTensorMap(map.get(), 0, matrix.get(), 0, 8, 16, 64, 8, 16, 64,
                           MQLCL_TENSOR_FLOAT32) == 1)
    return "";
  std::string why = bridge.last_error_text();
  cl.CLResetLastError();
  return why;
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
  return inline_kernel_includes(text.str(), path); // its parts (kernels/nv/, kernels/tiles/)
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
  caps.kernel_local_mem_bytes = static_cast<uint64_t>(b.info_integer(
      context, MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE, "MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE"));
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
    if (caps.compute_capability == 90)
      caps.tensor_maps_missing = tensor_maps_missing(b, context);
  }
  caps.device_name = info.name;
  caps.driver = info.driver;
  caps.tuning_key = info.name + " | " + info.driver;
  caps.architecture = info.type == "CPU" ? gemm::cpu_architecture(caps.preferred_vector_width_float)
                      : caps.compute_capability != 0 ? fmt::format("sm_{}", caps.compute_capability)
                                                     : "";
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

namespace {

void reject_if(const std::vector<std::string> &problems) {
  if (!problems.empty())
    bad_input(join(problems));
}

// CLContextCreate; a device the bridge does not have is the caller's mistake, named as such.
Handle open_context(const Bridge &bridge, int32_t device) {
  const BridgeApi &cl = bridge.api();
  cl.CLResetLastError();
  Handle context(cl.CLContextFree, cl.CLContextCreate(device));
  if (context.get() != MQLCL_INVALID_HANDLE)
    return context;
  int64_t count = cl.CLGetInfoInteger(0, MQLCL_CL_DEVICE_COUNT);
  if (device >= 0 && count > 0 && device >= count)
    bad_input(fmt::format("there is no OpenCL device {}: the bridge sees {} device{} "
                          "(mqlcl-replay --list-devices)",
                          device, count, count == 1 ? "" : "s"));
  bridge.fail(fmt::format("CLContextCreate({})", device));
}

// The step as it runs on this device: the tuned step picks its kernel and parameters once the
// device is known (from the tuning cache, else as the library's CLGemm would run the product),
// and --param goes over them.
Step on_device(const Step &chosen, const Options &options, const DeviceCaps &caps, StepRun &run) {
  Step step = chosen;
  if (chosen.tuning != DeviceTuning::none) {
    step = for_device(chosen, caps, options.sizes, options.double_precision);
    run.source = step.source;
  }
  for (const auto &[name, value] : options.params)
    step.params[name] = value;
  return step;
}

// One step's product on the device through the bridge, in the article's order: initAllDataGPU()
// (program, kernel, three buffers, their arguments, the writes), then executeGPU() and
// readOutBuf(). The handles are declared in creation order, so they are freed in reverse.
class DeviceProduct {
public:
  DeviceProduct(const Bridge &bridge, const Step &step, const Sizes &padded, int32_t context)
      : bridge_(bridge), cl_(bridge.api()), step_(step), padded_(padded), context_(context),
        scratch_(pass_scratch(step, padded)) {}

  void build(const std::string &source, const std::string &options);
  void read_kernel_info(StepRun &run) const;
  void create_buffers(uint32_t in1_bytes, uint32_t in2_bytes, uint32_t out_bytes);
  void prepare_operand_pass(size_t element_size);
  void write_tensor_maps(size_t element_size);
  void set_arguments(const GeometryInput &geometry_input);
  template <class T> void write_inputs(const Inputs<T> &in);
  template <class T> void zero_output(const std::vector<T> &zeros);
  // executeGPU() + readOutBuf(): the operand pass if any, the product, the read. Returns the
  // elements read; `seconds` is the wall time of all of it, as the article times it.
  template <class T>
  uint32_t execute_and_read(const LaunchGeometry &geometry, std::vector<T> &out, double &seconds);
  // The last launch's kernel time: the product's, with the operand pass's when there is one.
  double kernel_seconds() const;

private:
  Handle create_buffer(uint32_t bytes, const char *what) const;
  Handle create_pass_kernel(const Handle &operand, const Handle &destination, uint32_t lines,
                            uint32_t block) const;
  void map_operand(uint32_t offset, const Handle &operand, uint32_t lines,
                   const std::string &box_param, size_t element_size, const char *what);
  int32_t set_argument(uint32_t index, const KernelArg &arg, const GeometryInput &geometry_input);
  template <class T>
  void write(const Handle &buffer, const T *data, size_t count, const char *what) const;
  void execute_pass(const Handle &pass, uint64_t lines) const;
  double execution_seconds(const Handle &launched) const;
  // The operand pass rewrites in1 and in2 into scratch, which the product reads in their place.
  const Handle &product_in1() const { return scratch_.covers_a() ? scratch_a_ : in1_; }
  const Handle &product_in2() const { return scratch_.active() ? scratch_b_ : in2_; }

  const Bridge &bridge_;
  const BridgeApi &cl_;
  const Step &step_;
  const Sizes &padded_;
  const int32_t context_;
  const PassScratch scratch_;
  const std::array<uint32_t, 3> offsets_{0, 0, 0};
  Handle program_, kernel_;
  Handle in1_, in2_, out_;
  Handle scratch_a_, pass_a_, scratch_b_, pass_b_;
  Handle maps_; // step 18's tensor maps
};

void DeviceProduct::build(const std::string &source, const std::string &options) {
  std::vector<char16_t> build_log(1 << 16);
  program_ =
      Handle(cl_.CLProgramFree,
             cl_.CLProgramCreateEx(context_, to_utf16(source).c_str(), to_utf16(options).c_str(),
                                   build_log.data(), static_cast<uint32_t>(build_log.size())));
  if (program_.get() == MQLCL_INVALID_HANDLE)
    bridge_.fail(fmt::format("CLProgramCreateEx({}, \"{}\")", step_.kernel_file, options));
  kernel_ = Handle(cl_.CLKernelFree,
                   cl_.CLKernelCreate(program_.get(), to_utf16(step_.kernel_name).c_str()));
  if (kernel_.get() == MQLCL_INVALID_HANDLE)
    bridge_.fail(fmt::format("CLKernelCreate({})", step_.kernel_name));
}

void DeviceProduct::read_kernel_info(StepRun &run) const {
  run.kernel_work_group_size = bridge_.info_integer(kernel_.get(), MQLCL_CL_KERNEL_WORK_GROUP_SIZE,
                                                    "CL_KERNEL_WORK_GROUP_SIZE");
  run.kernel_private_bytes = bridge_.info_integer(kernel_.get(), MQLCL_CL_KERNEL_PRIVATE_MEM_SIZE,
                                                  "CL_KERNEL_PRIVATE_MEM_SIZE");
  run.kernel_local_bytes = bridge_.info_integer(kernel_.get(), MQLCL_CL_KERNEL_LOCAL_MEM_SIZE,
                                                "CL_KERNEL_LOCAL_MEM_SIZE");
}

Handle DeviceProduct::create_buffer(uint32_t bytes, const char *what) const {
  Handle buffer(cl_.CLBufferFree, cl_.CLBufferCreate(context_, bytes, MQLCL_MEM_READ_WRITE));
  if (buffer.get() == MQLCL_INVALID_HANDLE)
    bridge_.fail(fmt::format("CLBufferCreate({}, {} bytes)", what, bytes));
  return buffer;
}

void DeviceProduct::create_buffers(uint32_t in1_bytes, uint32_t in2_bytes, uint32_t out_bytes) {
  in1_ = create_buffer(in1_bytes, "in1");
  in2_ = create_buffer(in2_bytes, "in2");
  out_ = create_buffer(out_bytes, "out");
}

// `lines`: the operand's own (the pass reads no further); a tiled pass covers whole tiles.
Handle DeviceProduct::create_pass_kernel(const Handle &operand, const Handle &destination,
                                         uint32_t lines, uint32_t block) const {
  const std::string &name = step_.operand_pass->kernel_name;
  Handle pass(cl_.CLKernelFree, cl_.CLKernelCreate(program_.get(), to_utf16(name).c_str()));
  if (pass.get() == MQLCL_INVALID_HANDLE)
    bridge_.fail(fmt::format("CLKernelCreate({})", name));
  const int32_t count = static_cast<int32_t>(lines), tile_lines = static_cast<int32_t>(block);
  if (cl_.CLSetKernelArgMem(pass.get(), 0, operand.get()) == 0 ||
      cl_.CLSetKernelArgMem(pass.get(), 1, destination.get()) == 0 ||
      cl_.CLSetKernelArg(pass.get(), 2, &count, sizeof count) == 0 ||
      (block > 0 && cl_.CLSetKernelArg(pass.get(), 3, &tile_lines, sizeof tile_lines) == 0))
    bridge_.fail(fmt::format("setting the arguments of {}", name));
  return pass;
}

// The operand pass (wgmma's rounded TF32, step 17's tiles): its launches rewrite in1 and in2.
void DeviceProduct::prepare_operand_pass(size_t element_size) {
  if (!scratch_.active())
    return;
  if (scratch_.covers_a()) {
    scratch_a_ =
        create_buffer(static_cast<uint32_t>(scratch_.floats_a * element_size), "in1's parts");
    pass_a_ = create_pass_kernel(in1_, scratch_a_, padded_.rows1, scratch_.block_a);
  }
  scratch_b_ =
      create_buffer(static_cast<uint32_t>(scratch_.floats_b * element_size), "in2's parts");
  pass_b_ = create_pass_kernel(in2_, scratch_b_, padded_.cols2, scratch_.block_b);
}

void DeviceProduct::map_operand(uint32_t offset, const Handle &operand, uint32_t lines,
                                const std::string &box_param, size_t element_size,
                                const char *what) {
  const TensorMaps &tm = *step_.tensor_maps;
  const auto typed = step_.params.find(tm.type_param);
  const int32_t type =
      typed != step_.params.end() && typed->second == 2 ? MQLCL_TENSOR_TF32 : MQLCL_TENSOR_FLOAT32;
  const uint32_t pitch = padded_.colsrows * static_cast<uint32_t>(element_size);
  const uint32_t box_lines = static_cast<uint32_t>(step_.params.at(box_param));
  const uint32_t box_k = static_cast<uint32_t>(step_.params.at(tm.k_param));
  if (cl_.CLBufferTensorMap(maps_.get(), offset, operand.get(), 0, lines, padded_.colsrows, pitch,
                            box_lines, box_k, box_k * 4, type) == 0)
    bridge_.fail(fmt::format("CLBufferTensorMap({})", what));
}

// Tensor maps (step 18): the product copies its tiles from in1 and in2 through them.
void DeviceProduct::write_tensor_maps(size_t element_size) {
  if (!step_.tensor_maps)
    return;
  const TensorMaps &tm = *step_.tensor_maps;
  maps_ = create_buffer(256, "the tensor maps");
  map_operand(0, in1_, padded_.rows1, tm.rows_param_a, element_size, "in1");
  if (!tm.rows_param_b.empty())
    map_operand(128, in2_, padded_.cols2, tm.rows_param_b, element_size, "in2");
}

int32_t DeviceProduct::set_argument(uint32_t index, const KernelArg &arg,
                                    const GeometryInput &geometry_input) {
  const int32_t kernel = kernel_.get();
  switch (arg.kind) {
  case KernelArg::Kind::matrix_a:
    return cl_.CLSetKernelArgMem(kernel, index, product_in1().get());
  case KernelArg::Kind::matrix_b:
    return cl_.CLSetKernelArgMem(kernel, index, product_in2().get());
  case KernelArg::Kind::matrix_c:
    return cl_.CLSetKernelArgMem(kernel, index, out_.get());
  case KernelArg::Kind::int_rows1:
  case KernelArg::Kind::int_colsrows:
  case KernelArg::Kind::int_cols2: {
    const int32_t value =
        static_cast<int32_t>(arg.kind == KernelArg::Kind::int_rows1      ? padded_.rows1
                             : arg.kind == KernelArg::Kind::int_colsrows ? padded_.colsrows
                                                                         : padded_.cols2);
    return cl_.CLSetKernelArg(kernel, index, &value, sizeof(value));
  }
  case KernelArg::Kind::local_bytes:
    return cl_.CLSetKernelArgMemLocal(kernel, index, arg.local_bytes(geometry_input));
  case KernelArg::Kind::tensor_maps:
    return maps_.get() != MQLCL_INVALID_HANDLE && cl_.CLSetKernelArgMem(kernel, index, maps_.get());
  }
  return 0;
}

void DeviceProduct::set_arguments(const GeometryInput &geometry_input) {
  std::vector<KernelArg> args = kernel_args(step_);
  for (uint32_t index = 0; index < args.size(); ++index)
    if (set_argument(index, args[index], geometry_input) == 0)
      bridge_.fail(fmt::format("setting argument {} of {}", index, step_.kernel_name));
}

template <class T>
void DeviceProduct::write(const Handle &buffer, const T *data, size_t count,
                          const char *what) const {
  if (cl_.CLBufferWrite(buffer.get(), data, 0, 0, static_cast<uint32_t>(count), sizeof(T)) != count)
    bridge_.fail(fmt::format("CLBufferWrite({})", what));
}

template <class T> void DeviceProduct::write_inputs(const Inputs<T> &in) {
  write(in1_, in.first.data.data(), in.first.data.size(), "in1");
  write(in2_, in.second.data.data(), in.second.data.size(), "in2");
}

// 0.0 everywhere: two of the article's kernels add into it.
template <class T> void DeviceProduct::zero_output(const std::vector<T> &zeros) {
  write(out_, zeros.data(), zeros.size(), "out");
}

void DeviceProduct::execute_pass(const Handle &pass, uint64_t lines) const {
  const std::array<uint32_t, 3> global{static_cast<uint32_t>(lines * scratch_.groups), 1, 1};
  if (cl_.CLExecute(pass.get(), 1, offsets_.data(), global.data(), nullptr) == 0)
    bridge_.fail(fmt::format("CLExecute({})", step_.operand_pass->kernel_name));
}

template <class T>
uint32_t DeviceProduct::execute_and_read(const LaunchGeometry &geometry, std::vector<T> &out,
                                         double &seconds) {
  Clock::time_point start = Clock::now();
  if (scratch_.covers_a())
    execute_pass(pass_a_, scratch_.lines_a);
  if (scratch_.active())
    execute_pass(pass_b_, scratch_.lines_b);
  if (cl_.CLExecute(kernel_.get(), geometry.work_dim, offsets_.data(), geometry.global.data(),
                    geometry.runtime_chooses_local() ? nullptr : geometry.local.data()) == 0)
    bridge_.fail(fmt::format("CLExecute({})", step_.kernel_name));
  uint32_t read =
      cl_.CLBufferRead(out_.get(), out.data(), 0, 0, static_cast<uint32_t>(out.size()), sizeof(T));
  seconds = seconds_since(start);
  if (read == 0)
    bridge_.fail("CLBufferRead(out)");
  return read;
}

double DeviceProduct::execution_seconds(const Handle &launched) const {
  return static_cast<double>(bridge_.info_integer(launched.get(), MQLCL_CL_KERNEL_EXECUTION_TIME,
                                                  "CL_KERNEL_EXECUTION_TIME")) *
         1e-9;
}

double DeviceProduct::kernel_seconds() const {
  return execution_seconds(kernel_) + (scratch_.covers_a() ? execution_seconds(pass_a_) : 0.0) +
         (scratch_.active() ? execution_seconds(pass_b_) : 0.0);
}

// checkRandom(): ten elements recomputed in REALTYPE, next to thirdCPU and the device's.
template <class T>
std::vector<RandomCheck> random_checks(ArticleRandom &random, const Options &options,
                                       const Inputs<T> &in, const Matrix<T> *third_cpu,
                                       const Matrix<T> &buf) {
  std::vector<RandomCheck> checks;
  for (uint32_t i = 0; i < options.random_checks; ++i) {
    RandomCheck check;
    check.row = random.gen_rnd(options.sizes.rows1);
    check.col = random.gen_rnd(options.sizes.cols2);
    T sum = 0;
    for (uint32_t k = 0; k < options.sizes.colsrows; ++k)
      sum += in.first.at(check.row, k) * in.second.at(k, check.col);
    check.sum = sum;
    if (third_cpu != nullptr)
      check.cpu = third_cpu->at(check.row, check.col);
    check.buf = buf.at(check.row, check.col);
    checks.push_back(check);
  }
  return checks;
}

// The status from the verifications; for a racy listing, what its race did on this device.
void conclude(const Step &step, StepRun &run) {
  bool right =
      run.verification.passed() && (!run.cpu_verification || run.cpu_verification->passed());
  run.status = right ? Status::verified : Status::wrong;
  if (run.cpu_verification && !run.cpu_verification->passed())
    run.message = "the CPU loop's product is wrong (a harness bug)";
  if (step.race.empty())
    return;
  run.message = run.verification.passed()
                    ? fmt::format("the race of the listing as printed ({}) did not corrupt the "
                                  "product on this device with this work-group size; {} adds "
                                  "the missing barrier",
                                  step.race, step.fixed_by)
                    : fmt::format("this is the race of the listing as printed: {}; {} adds "
                                  "the missing barrier",
                                  step.race, step.fixed_by);
}

} // namespace

// The article's single-core loop over the inputs as they are, in REALTYPE.
template <class T>
Matrix<T> Runner::cpu_product(const Step &step, const Options &options, const Inputs<T> &in,
                              const Sizes &padded, Observer &observer, StepRun &run) {
  Matrix<T> third(options.sizes.rows1, options.sizes.cols2, padded.rows1, padded.cols2,
                  step.layout_c);
  Progress progress = [&](uint32_t done, uint32_t total) { observer.cpu_progress(done, total); };
  Clock::time_point start = Clock::now();
  cpu_loop(step.cpu_loop, in, third, progress);
  run.cpu_seconds = seconds_since(start);
  observer.cpu_finished(run);
  return third;
}

// A product of the inputs as they are, against their double-precision product.
template <class T>
Verification Runner::verify_unrounded(const Options &options, const Inputs<T> &in,
                                      const Matrix<T> &product) {
  std::shared_ptr<const Reference> reference = reference_for(options, in);
  return verify(product, *reference,
                tolerance_for<T>(options.sizes.colsrows, reference->max_abs_first,
                                 reference->max_abs_second));
}

template <class T>
void Runner::host_only(const Step &step, const Options &options, Observer &observer, StepRun &run) {
  reject_if(size_problems(step, options.sizes, sizeof(T)));
  observer.started(run);
  if (!options.run_cpu) {
    run.status = Status::skipped;
    run.message = "the host-only step has nothing to do with --no-cpu";
    return;
  }
  ArticleRandom random(options.seed);
  Inputs<T> in =
      generate_inputs<T>(options.sizes, run.padded, step.layout_a, step.layout_b, random);
  Matrix<T> third = cpu_product(step, options, in, run.padded, observer, run);
  run.verification = verify_unrounded(options, in, third);
  run.status = run.verification.passed() ? Status::verified : Status::wrong;
}

template <class T>
void Runner::replay(const Step &chosen, const Options &options, Observer &observer, StepRun &run) {
  const Sizes &padded = run.padded;
  reject_if(size_problems(chosen, options.sizes, sizeof(T)));
  // The context first, so a bad device or a size the device cannot take is reported before the
  // minute-long CPU loop; the bridge calls still come in the scripts' order.
  Handle context = open_context(bridge_, options.device);
  run.device = read_device(context.get());
  const DeviceCaps &caps = run.device->caps;
  const Step step = on_device(chosen, options, caps, run);
  reject_if(
      device_problems(step, padded, caps, sizeof(T), options.double_precision, options.local));
  GeometryInput geometry_input{padded, options.local, caps, step.params, sizeof(T)};
  run.geometry = (*step.geometry)(geometry_input);
  run.build_options = build_options(step, padded, options.double_precision);
  run.kernel_file = step.kernel_file;
  observer.started(run);

  ArticleRandom random(options.seed);
  Inputs<T> in = generate_inputs<T>(options.sizes, padded, step.layout_a, step.layout_b, random);
  std::optional<Matrix<T>> third_cpu;
  if (options.run_cpu) {
    third_cpu = cpu_product(step, options, in, padded, observer, run);
    run.cpu_verification = verify_unrounded(options, in, *third_cpu);
  }
  // The references before the device runs rather than between its replays: of the inputs as they
  // are, and of a TF32 product's rounded inputs.
  observer.phase("the fp64 reference on the host");
  reference_for(options, in);
  if (const InputRounding rounding = arithmetic_of(step).inputs;
      rounding != InputRounding::none && std::is_same_v<T, float>)
    reference_for(options, in, rounding);

  DeviceProduct device(bridge_, step, padded, context.get());
  observer.phase("building the kernel");
  device.build(read_kernel(step.kernel_file), run.build_options);
  device.read_kernel_info(run);
  Matrix<T> buf(options.sizes.rows1, options.sizes.cols2, padded.rows1, padded.cols2,
                step.layout_c);
  const std::vector<T> zeros(buf.data.size(), T(0));
  device.create_buffers(in.first.bytes(), in.second.bytes(), buf.bytes());
  device.prepare_operand_pass(sizeof(T));
  device.write_tensor_maps(sizeof(T));
  device.set_arguments(geometry_input);
  device.write_inputs(in);

  // executeGPU() + readOutBuf(), timed as the article times them; --repeat replays them.
  for (uint32_t replay = 0; replay < run.repeat; ++replay) {
    observer.phase(
        fmt::format("replay {} of {} on the device, then its check", replay + 1, run.repeat));
    device.zero_output(zeros);
    double seconds = 0;
    uint32_t read = device.execute_and_read(run.geometry, buf.data, seconds);
    run.total_seconds.values.push_back(seconds);
    run.kernel_seconds.values.push_back(device.kernel_seconds());
    verify_product(step, options, in, buf, run);
    if (replay == 0) {
      run.elements_read = read;
      observer.read_finished(run);
    }
  }
  run.checks = random_checks(random, options, in, third_cpu ? &*third_cpu : nullptr, buf);
  conclude(step, run);
}

} // namespace mqlcl::replay
