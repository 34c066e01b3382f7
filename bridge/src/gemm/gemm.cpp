#include "gemm/gemm.hpp"

#include "cl_api.hpp"
#include "errors.hpp"
#include "gemm/edges.hpp"
#include "gemm/kernels.hpp"
#include "gemm/maps.hpp"
#include "gemm/operands.hpp"
#include "gemm/ozaki.hpp"
#include "gemm/planner.hpp"
#include "gemm/runtime.hpp"
#include "gemm/tensor_cores.hpp"

#include "os_library.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace mqlcl::gemm {

namespace {

const char *realtype(const Call &call) {
  return call.double_precision ? "double" : "float";
}

void set_real(cl_kernel kernel, cl_uint index, const Call &call, double value) {
  if (call.double_precision)
    set_arg(kernel, index, value);
  else
    set_arg(kernel, index, static_cast<float>(value));
}

std::string product_options(const Call &call, const Plan &plan, const Lines &a, const Lines &b) {
  const bool aligned = a.offset % 4 == 0 && b.offset % 4 == 0 && call.c.offset % 4 == 0 &&
                       a.stride % 4 == 0 && b.stride % 4 == 0 && call.c.stride % 4 == 0;
  std::string options = fmt::format(
      "-DGEMM -DREALTYPE={} -DROWS1={} -DCOLS2={} -DCOLSROWS={} -DLDA={} -DLDB={} -DLDC={} "
      "-DALIGNED={} -DINDEX64={}",
      realtype(call), call.m, call.n, call.k, a.ld, b.ld, call.c.ld, aligned ? 1 : 0,
      call.index64 ? 1 : 0);
  if (plan.family == Family::tiles || plan.family == Family::tensor_fp64)
    options +=
        fmt::format(" -DA_LINES={} -DB_LINES={}", a.k_runs_down ? 1 : 0, b.k_runs_down ? 1 : 0);
  for (const auto &[name, value] : plan.params)
    if (name != kCopyParam) // the host's choice, not the kernel's
      options += fmt::format(" -D{}={}", name, value);
  return options;
}

// The operands as the plan reads them: an operand with K down its rows is copied transposed
// where the plan says so (planner.hpp), after the kernel is built.
struct Operands {
  Lines a, b;
  bool copy_a = false, copy_b = false;
};

Operands plan_operands(const Call &call, const Plan &plan) {
  Operands operands{lines_of_a(call), lines_of_b(call)};
  auto as_read = [&](Lines &lines, bool &copy, bool copies_k_down) {
    copy = lines.k_runs_down && copies_k_down &&
           !(plan.family == Family::tiles && lines_share_elements(call, lines));
    if (copy) { // the copy's layout, for the build options
      lines.k_runs_down = false;
      lines.offset = 0;
      lines.ld = call.k;
      lines.stride = lines.operand->stride == 0 ? 0 : uint64_t(lines.lines) * call.k;
    }
  };
  as_read(operands.a, operands.copy_a, plan.copy_k_down_a);
  as_read(operands.b, operands.copy_b, plan.copy_k_down_b);
  return operands;
}

Shape shape_of(const Call &call) {
  return Shape{call.m, call.n, call.k, call.batch, call.double_precision ? 8u : 4u};
}

// Step 13's tiles read an operand with K down its rows in place; the CPU form needs it copied.
// Where the batch's matrices of such an operand share elements, its copy would repeat them
// once per product (a 65535-product sliding window of 256 x 256 floats: 17 GB), so the call
// takes the tiles, reading it in place.
std::optional<Family> family_for(const Call &call) {
  const Lines a = lines_of_a(call), b = lines_of_b(call);
  if ((a.k_runs_down && lines_share_elements(call, a)) ||
      (b.k_runs_down && lines_share_elements(call, b)))
    return Family::tiles;
  return forced_family(os::environment);
}

// Which of step 19's operands (as read) the copy engine reads through maps (matr_mul_dmma.cl's
// A_MAP and B_MAP): none unless the plan says TMA.
struct MappedOperands {
  bool a = false, b = false;
};

MappedOperands mapped_operands(const Plan &plan, const Operands &operands) {
  const auto tma = plan.params.find("TMA");
  if (plan.family != Family::tensor_fp64 || tma == plan.params.end() || tma->second == 0)
    return {};
  const bool all = tma->second == 1 || tma->second == 3;
  return {all || operands.a.k_runs_down, all || operands.b.k_runs_down};
}

bool reads_maps(const Plan &plan, const Operands &operands) {
  const MappedOperands mapped = mapped_operands(plan, operands);
  return mapped.a || mapped.b;
}

// Step 19 copies its tiles through tensor maps (as its TMA says) where the CUDA driver writes
// them, its sm_90a form has not failed to build on the context, and each operand it maps starts
// its rows and matrices on 16-byte boundaries (fp64_tma_for_call); elsewhere the work-items copy
// them (TMA 0).
void choose_tile_copies(const ContextState &state, const Call &call, Plan &plan,
                        const Operands &operands) {
  const auto tma = plan.params.find("TMA");
  if (plan.family != Family::tensor_fp64 || tma == plan.params.end())
    return;
  if (state.fp64_maps == ContextState::TensorCores::unavailable ||
      !tensor_maps_missing(state).empty())
    tma->second = 0;
  else
    tma->second = fp64_tma_for_call(tma->second, operands.a.k_runs_down, operands.b.k_runs_down,
                                    rows_aligned(operands.a, call.batch, 8),
                                    rows_aligned(operands.b, call.batch, 8));
}

// The planned kernel. Where a tuned set does not build on this device, the form's defaults;
// where step 19's copy-engine form does not build, its work-items' copies from then on; where
// step 19 does not build at all (a driver without its PTX), the context runs step 13's.
cl_kernel product_kernel(const Context &context, ContextState &state, const Call &call, Plan &plan,
                         const Shape &shape, Operands &operands) {
  auto build = [&] {
    operands = plan_operands(call, plan);
    plan.index64 = call.index64;
    choose_tile_copies(state, call, plan, operands);
    const bool maps = reads_maps(plan, operands);
    try {
      return kernel_for(context, state, kernel_file_of(plan.family),
                        product_options(call, plan, operands.a, operands.b), "gemm", maps);
    } catch (const Failure &failure) {
      if (!maps || failure.code() != MQLCL_ERR_OPENCL_PROGRAM_CREATE)
        throw;
      plan.params["TMA"] = 0;
      cl_kernel copies = kernel_for(context, state, kernel_file_of(plan.family),
                                    product_options(call, plan, operands.a, operands.b), "gemm");
      // The set builds with the work-items' copies: only the copy-engine form failed.
      state.fp64_maps = ContextState::TensorCores::unavailable;
      return copies;
    }
  };
  const bool fp64 = plan.family == Family::tensor_fp64;
  try {
    return build();
  } catch (const Failure &failure) {
    if (plan.origin == "defaults" && !fp64)
      throw;
    if (fp64 && plan.origin == "defaults" && failure.code() == MQLCL_ERR_OPENCL_PROGRAM_CREATE)
      state.fp64_tensor_cores = ContextState::TensorCores::unavailable;
  }
  const DeviceLimits limits = limits_of(*context.device);
  if (fp64 && plan.origin != "defaults") {
    plan = tensor_plan(limits, shape, Family::tensor_fp64);
    try {
      return build();
    } catch (const Failure &failure) {
      if (failure.code() == MQLCL_ERR_OPENCL_PROGRAM_CREATE)
        state.fp64_tensor_cores = ContextState::TensorCores::unavailable;
    }
  }
  plan = default_plan(limits, shape, fp64 ? std::optional(Family::tiles) : family_for(call));
  return build();
}

// The plan of a product in the element type's own arithmetic: step 19's on FP64 tensor cores for
// double where the device has them, else step 13's tiles on GPUs and step 14's CPU form elsewhere.
Plan exact_product_plan(const Context &context, ContextState &state, const Call &call,
                        const Shape &shape) {
  const DeviceLimits limits = limits_of(*context.device);
  const std::optional<Family> forced = family_for(call);
  if (runs_fp64_tensor_cores(limits, shape, forced) &&
      state.fp64_tensor_cores != ContextState::TensorCores::unavailable)
    return tensor_plan(limits, shape, Family::tensor_fp64,
                       tuned_for(context, state, call, step_of(Family::tensor_fp64)));
  return plan_product(limits, shape, tuned_for(context, state, call, kExactStep), forced);
}

// Step 19's map of `lines` (maps.hpp): its box is the kernel's padded tile, BK + 4 Ks of
// `box_lines` lines, or where K runs down the stored rows BK rows of box_lines + 4 lines (PAD 4:
// the extra Ks or lines are the next tile's, or zeros past the edge, and never read). With TMA 3
// a K-contiguous operand's box is BK (16) Ks of 128 bytes, swizzled by the copy engine.
TensorMapRequest fp64_map_request(const Lines &lines, uint32_t k, uint32_t box_lines, uint32_t bk,
                                  int64_t tma) {
  constexpr uint32_t kPad = 4;
  const bool swizzled = tma == 3 && !lines.k_runs_down;
  TensorMapRequest request;
  request.rows = lines.k_runs_down ? k : lines.lines;
  request.cols = lines.k_runs_down ? lines.lines : k;
  request.row_pitch = lines.ld * 8;
  request.box_rows = lines.k_runs_down ? bk : box_lines;
  request.box_cols = lines.k_runs_down ? box_lines + kPad : swizzled ? bk : bk + kPad;
  request.swizzle = swizzled ? 128 : 0;
  request.element = TensorElement::float64;
  return request;
}

cl_mem fp64_maps(Context &context, ContextState &state, const Call &call, const Plan &plan,
                 MappedOperands mapped, const Lines &a, const Lines &b) {
  const auto param = [&](const char *name) { return static_cast<uint32_t>(plan.params.at(name)); };
  const int64_t tma = plan.params.at("TMA");
  const OperandMap a_map{&a, ScratchSlot::a,
                         fp64_map_request(a, call.k, param("BM"), param("BK"), tma)};
  const OperandMap b_map{&b, ScratchSlot::b,
                         fp64_map_request(b, call.k, param("BN"), param("BK"), tma)};
  return kept_maps(context, state, call, mapped.a ? &a_map : nullptr, mapped.b ? &b_map : nullptr);
}

// `call` as one kernel of `plan` (exact_product_plan's for it), after the copies it asks for.
// A map the driver refuses switches the context's products to copies the work-items make.
void run_planned_product(Context &context, ContextState &state, const Call &call, Plan plan,
                         bool &first) {
  Operands operands;
  cl_kernel kernel = product_kernel(context, state, call, plan, shape_of(call), operands);
  Lines a = lines_of_a(call), b = lines_of_b(call);
  if (operands.copy_a)
    copy_as_k_lines(context, state, call, a, ScratchSlot::a, call.k, first);
  if (operands.copy_b)
    copy_as_k_lines(context, state, call, b, ScratchSlot::b, call.k, first);
  if (const MappedOperands mapped = mapped_operands(plan, operands); mapped.a || mapped.b) {
    try {
      set_arg(kernel, 11, fp64_maps(context, state, call, plan, mapped, a, b));
    } catch (const Failure &failure) {
      if (failure.code() != MQLCL_ERR_OPENCL_NOT_SUPPORTED)
        throw;
      state.maps_refused = failure.message();
      kernel = product_kernel(context, state, call, plan, shape_of(call), operands);
    }
  }
  state.last_plan = plan_text(plan);
  set_arg(kernel, 0, a.memory);
  set_arg(kernel, 1, b.memory);
  set_arg(kernel, 2, call.c.buffer->memory);
  const uint64_t values[] = {a.offset, b.offset, call.c.offset, a.stride, b.stride, call.c.stride};
  for (cl_uint i = 0; i < 6; ++i)
    set_arg(kernel, 3 + i, cl_ulong(values[i]));
  set_real(kernel, 9, call, call.alpha);
  set_real(kernel, 10, call, call.beta);
  launch(context, state, kernel, plan.launch.dimensions, plan.launch.global.data(),
         plan.launch.local.data(), first);
}

// Where thin edges run apart from the whole tiles (edges.hpp), the block runs whole with its own
// plan, which also says which operands it copies transposed anyway (aligned_block leaves those).
void run_exact_product(Context &context, ContextState &state, const Call &call, bool &first) {
  const Plan plan = exact_product_plan(context, state, call, shape_of(call));
  const std::optional<EdgeSplit> split = edge_split(call, plan, os::environment);
  if (!split) {
    run_planned_product(context, state, call, plan, first);
    return;
  }
  build_thin_edges(context, state, call, *split);
  const Call block = block_of(call, *split);
  const Plan block_plan = exact_product_plan(context, state, block, shape_of(block));
  const Operands read = plan_operands(block, block_plan);
  run_planned_product(context, state,
                      aligned_block(context, state, block, read.copy_a, read.copy_b, first),
                      block_plan, first);
  run_thin_edges(context, state, call, *split, first);
  state.last_plan += edges_text(call, *split);
}

// Why the call takes the Ozaki scheme unasked, or none: from the scheme's sets measured on the
// device (ozaki.hpp).
std::optional<std::string> scheme_unasked(const Context &context, ContextState &state,
                                          const Call &call) {
  const DeviceLimits limits = limits_of(*context.device);
  return ozaki_unasked(limits, call, os::environment,
                       measured_for(context, state, call, step_of(scheme_form(limits))));
}

// The Ozaki scheme where MQLCL_GEMM_KERNEL=ozaki forces it (double ACCURATE and FASTEST, float
// ACCURATE) or the device's sets take it unasked: true where it wrote C. Where it declined, or
// failed unasked, it left C as it was and `declined` says why.
bool run_scheme(Context &context, ContextState &state, const Call &call, bool &first,
                std::string &declined) {
  if (!ozaki_offered(call))
    return false;
  const bool forced = ozaki_forced(os::environment);
  const std::optional<std::string> unasked =
      forced ? std::nullopt : scheme_unasked(context, state, call);
  if (!forced && !unasked)
    return false;
  try {
    const std::optional<std::string> why = run_ozaki_product(
        context, state, call, first, forced ? "MQLCL_GEMM_KERNEL=ozaki" : *unasked,
        rebuild_pieces(os::environment));
    if (!why)
      return true;
    declined = *why;
  } catch (const Failure &failure) {
    // Unasked, a scheme that fails (its scratch takes gigabytes at these sizes) has left C as it
    // was: the product it stood in for runs instead.
    if (forced)
      throw;
    declined = failure.message();
  }
  return false;
}

// TF32 runs on the tensor cores or fails; ACCURATE and FASTEST take them where they build and
// fall back to the exact product where they do not; ACCURATE runs the exact product also where
// it was measured faster than 3xTF32 on the device (exact_product_faster). Where the Ozaki
// scheme declined, or 3xTF32 gave way, the plan says why after the product that ran instead.
void run_product(Context &context, ContextState &state, const Call &call, bool continues_last) {
  bool first = !continues_last;
  std::string declined;
  if (run_scheme(context, state, call, first, declined))
    return;
  const std::string declined_text =
      declined.empty() ? std::string() : fmt::format(" [the Ozaki scheme declined: {}]", declined);
  const bool wants_tensor_cores = !call.double_precision && call.precision != Precision::exact &&
                                  offers_tensor_cores(*context.device);
  const std::optional<std::string> exact_faster =
      wants_tensor_cores
          ? exact_product_faster(call,
                                 [&] {
                                   return measured_around(context, state, call, kAccurateStep,
                                                          kExactFasterParam);
                                 })
          : std::nullopt;
  if (wants_tensor_cores && !exact_faster &&
      state.tensor_cores != ContextState::TensorCores::unavailable) {
    try {
      if (run_tensor_core_product(context, state, call, first)) {
        state.tensor_cores = ContextState::TensorCores::built;
        state.last_plan += declined_text;
        return;
      }
    } catch (const Failure &failure) {
      // Whatever was enqueued wrote only scratch buffers.
      if (call.precision == Precision::tf32)
        throw;
      if (failure.code() == MQLCL_ERR_OPENCL_PROGRAM_CREATE ||
          failure.code() == MQLCL_ERR_OPENCL_NOT_SUPPORTED)
        state.tensor_cores = ContextState::TensorCores::unavailable;
    }
  }
  if (call.precision == Precision::tf32)
    fail(MQLCL_ERR_OPENCL_NOT_SUPPORTED,
         fmt::format("CLGemm: MQLCL_GEMM_TF32 is not offered on {}: its tensor-core kernels did "
                     "not build; MQLCL_GEMM_FASTEST runs the fastest precision the device has",
                     context.device->name));
  run_exact_product(context, state, call, first);
  state.last_plan += declined_text;
  if (exact_faster)
    state.last_plan += " [" + *exact_faster + "]";
}

ContextState &state_of(Context &context) {
  std::lock_guard<std::mutex> lock(context.gemm_mutex);
  if (!context.gemm)
    context.gemm = std::make_shared<ContextState>();
  return *context.gemm;
}

} // namespace

bool needs_index64(const Call &call) {
  if (os::environment("MQLCL_GEMM_INDEX64") == "1")
    return true;
  // A copy's lines are K rounded up to 4 apart (operands.hpp).
  const uint64_t largest = std::max(
      {uint64_t{call.m}, uint64_t{call.n}, uint64_t{call.k} + 3, call.a.ld, call.b.ld, call.c.ld});
  return largest >= kIndex64From;
}

std::string_view kernel_text(std::string_view name) {
  for (size_t i = 0; i < kKernelFileCount; ++i)
    if (name == kKernelFiles[i].name)
      return kKernelFiles[i].text;
  fail(MQLCL_ERR_OPENCL_INTERNAL, fmt::format("kernels/{} is not in the library", name));
}

void enqueue(Context &context, const Call &call, bool continues_last) {
  ContextState &state = state_of(context);
  std::lock_guard<std::mutex> lock(state.mutex);
  run_product(context, state, call, continues_last);
  check_cl(cl_api().clFlush(context.queue), "CLGemm: clFlush", MQLCL_ERR_OPENCL_EXECUTE);
}

std::string last_gemm_plan(Context &context) {
  ContextState &state = state_of(context);
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.last_plan.empty())
    fail(MQLCL_ERR_OPENCL_EXECUTE, "CL_GEMM_PLAN: no CLGemm has run in this context");
  return state.last_plan;
}

namespace {

// The context's last call's passes, each event retained until this goes; `what` names the query
// for its error when no CLGemm has run.
class RetainedPasses {
public:
  RetainedPasses(Context &context, const char *what) {
    ContextState &state = state_of(context);
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.passes.empty())
      fail(MQLCL_ERR_OPENCL_EXECUTE, fmt::format("{}: no CLGemm has run in this context", what));
    passes_ = state.passes;
    for (const ContextState::Pass &pass : passes_)
      cl_api().clRetainEvent(pass.event);
  }
  ~RetainedPasses() {
    for (const ContextState::Pass &pass : passes_)
      release_event(pass.event);
  }
  RetainedPasses(const RetainedPasses &) = delete;
  RetainedPasses &operator=(const RetainedPasses &) = delete;

  // Waits for the call's last command.
  const std::vector<ContextState::Pass> &done() const {
    check_cl(cl_api().clWaitForEvents(1, &passes_.back().event), "clWaitForEvents",
             MQLCL_ERR_OPENCL_EXECUTE);
    return passes_;
  }

private:
  std::vector<ContextState::Pass> passes_;
};

} // namespace

std::string last_gemm_passes(Context &context) {
  const RetainedPasses retained(context, "CL_GEMM_PASSES");
  std::string text;
  for (const ContextState::Pass &pass : retained.done())
    text += fmt::format("{}{} {:.3f} ms", text.empty() ? "" : "; ", pass.kernel,
                        double(profiled_nanoseconds(pass.event, pass.event)) * 1e-6);
  return text;
}

int64_t last_gemm_nanoseconds(Context &context) {
  const RetainedPasses retained(context, "CL_GEMM_EXECUTION_TIME");
  const std::vector<ContextState::Pass> &passes = retained.done();
  return profiled_nanoseconds(passes.front().event, passes.back().event);
}

} // namespace mqlcl::gemm
