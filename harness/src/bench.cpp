// `mqlcl-replay bench`: our steps through the bridge and the library's CLGemm next to CLBlast,
// cuBLAS, OpenBLAS and the device's own FP32 limit, all measured in one run on one device, every
// product verified against the double reference; then the bridge's overhead against raw OpenCL, and
// the MQL5-style end-to-end time (write A and B, execute, read C) against the device's transfer
// floor.
#include "anchors.hpp"
#include "bridge.hpp"
#include "chart.hpp"
#include "commands.hpp"
#include "gemm_product.hpp"
#include "host_to_host.hpp"
#include "json.hpp"
#include "paths.hpp"
#include "progress.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

namespace mqlcl::replay {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double gflops_of(double flops, double seconds) {
  return seconds > 0 ? flops / seconds / 1e9 : 0;
}

bool is_nvidia_tensor_capable(const DeviceCaps &caps) {
  return caps.vendor_id == 0x10DE && caps.compute_capability >= 80;
}

// One line of the table: ours or an anchor, at one size.
struct Row {
  std::string name;
  std::string kind; // "step" or "anchor"
  bool ok = false;
  std::string note;
  Samples seconds;
  double max_error_ratio = 0; // max |C - ref| / max |ref|, ref of the inputs as they are
  // What was checked: max |C - ref| against the reference of the inputs as rounded (TF32), and
  // the tolerance; -1 where nothing was.
  double checked_error = -1, tolerance = -1;
  bool verified = false;
  std::string reason; // why a product that ran is not verified
};

// Why a product that ran failed its check, in the check's terms.
std::string reason_of(const Verification &v) {
  return fmt::format("{} of {} elements off the double-precision reference by more than {:.3e} "
                     "(max error {:.3e})",
                     v.mismatches, v.checked, v.tolerance, v.max_error);
}

// `checked`: the product of the inputs rounded as the anchor rounds them, within `tolerance`;
// the error shown is against `unrounded` (the same reference when nothing is rounded).
Row anchor_row(const AnchorResult &anchor, const Reference &checked, double tolerance,
               const Reference &unrounded) {
  Row row;
  row.name = anchor.name;
  row.kind = "anchor";
  row.ok = anchor.available;
  row.note = anchor.note;
  row.seconds = anchor.seconds;
  if (anchor.available && anchor.product.size() == checked.product.size()) {
    Matrix<float> product(checked.rows, checked.cols, checked.rows, checked.cols,
                          Layout::row_major);
    product.data = anchor.product;
    Verification v =
        verify(product, checked, tolerance, &checked == &unrounded ? nullptr : &unrounded);
    row.verified = v.passed();
    if (!row.verified)
      row.reason = reason_of(v);
    row.max_error_ratio = v.user_error() / unrounded.max_abs_product;
    row.checked_error = v.max_error;
    row.tolerance = v.tolerance;
  }
  return row;
}

Row step_row(const StepRun &run, const Reference &reference) {
  Row row;
  row.name = run.step;
  row.kind = "step";
  row.ok = run.status == Status::verified || run.status == Status::wrong;
  row.verified = run.status == Status::verified;
  row.note = run.status == Status::verified
                 ? run.kernel_file + ": " + run.build_options
                 : std::string(status_name(run.status)) + ": " + run.message;
  row.seconds = run.kernel_seconds;
  if (run.status == Status::wrong)
    row.reason = run.message.empty() ? reason_of(run.verification) : run.message;
  row.max_error_ratio = run.verification.user_error() / reference.max_abs_product;
  if (run.verification.done) {
    row.checked_error = run.verification.max_error;
    row.tolerance = run.verification.tolerance;
  }
  return row;
}

// The device's limit from one of kernels/bench/: FLOP/s of `global` work-items.
struct Limit {
  std::string name;
  bool ok = false;
  std::string note;
  double flops_per_second = 0;
};

Limit measure_limit(const Bridge &bridge, const Runner &runner, int32_t device,
                    const std::string &file, const std::string &options,
                    const std::string &kernel_name, uint32_t global, uint32_t local, double flops,
                    const std::string &name) {
  Limit limit;
  limit.name = name;
  const BridgeApi &cl = bridge.api();
  const std::string text = runner.read_kernel("bench/" + file);
  Handle context(cl.CLContextFree, cl.CLContextCreate(device));
  Handle program(cl.CLProgramFree, cl.CLProgramCreateEx(context.get(), to_utf16(text).c_str(),
                                                        to_utf16(options).c_str(), nullptr, 0));
  Handle kernel(cl.CLKernelFree, cl.CLKernelCreate(program.get(), to_utf16(kernel_name).c_str()));
  Handle in_buffer(cl.CLBufferFree, cl.CLBufferCreate(context.get(), 4096 * 4, 0));
  Handle out_buffer(cl.CLBufferFree, cl.CLBufferCreate(context.get(), global * 4, 0));
  if (kernel.get() < 0 || in_buffer.get() < 0 || out_buffer.get() < 0) {
    limit.note = bridge.last_error_text();
    return limit;
  }
  std::vector<float> ones(4096, 1.0f);
  cl.CLBufferWrite(in_buffer.get(), ones.data(), 0, 0, 4096, 4);
  cl.CLSetKernelArgMem(kernel.get(), 0, in_buffer.get());
  cl.CLSetKernelArgMem(kernel.get(), 1, out_buffer.get());
  double best = 0;
  for (int r = 0; r < 6; ++r) {
    if (!cl.CLExecute(kernel.get(), 1, nullptr, &global, &local)) {
      limit.note = bridge.last_error_text();
      return limit;
    }
    double seconds =
        static_cast<double>(cl.CLGetInfoInteger(kernel.get(), MQLCL_CL_KERNEL_EXECUTION_TIME)) *
        1e-9;
    if (r > 0 && seconds > 0)
      best = std::max(best, flops / seconds);
  }
  limit.ok = best > 0;
  limit.flops_per_second = best;
  limit.note = fmt::format("kernels/bench/{} {}, {} work-items, best of 5 after a warm-up", file,
                           options, global);
  return limit;
}

// Seconds per CLSetKernelArg through the bridge.
double bridge_seconds_per_set_arg(const Bridge &bridge, int32_t device, uint32_t calls) {
  const BridgeApi &cl = bridge.api();
  Handle context(cl.CLContextFree, cl.CLContextCreate(device));
  Handle program(cl.CLProgramFree,
                 cl.CLProgramCreate(context.get(),
                                    u"__kernel void k(__global float *x, float a) { x[0] = a; }"));
  Handle kernel(cl.CLKernelFree, cl.CLKernelCreate(program.get(), u"k"));
  float value = 1.0f;
  auto start = Clock::now();
  for (uint32_t i = 0; i < calls; ++i) {
    value += 1.0f;
    cl.CLSetKernelArg(kernel.get(), 1, &value, sizeof value);
  }
  return seconds_since(start) / calls;
}

// One step's kernel through the bridge, set up once as a replay sets it up (context, program,
// kernel, the three buffers, A and B written). Then replay() times what the harness times of a
// replay (CLExecute + CLBufferRead, after C is zeroed outside the timing), and end_to_end() the
// MQL5 call shape: CLBufferWrite A and B, CLExecute, CLBufferRead C.
class BridgeReplay {
public:
  BridgeReplay(const Bridge &bridge, const std::string &kernel_source, int32_t device,
               const StepRun &run, const Inputs<float> &in)
      : cl_(bridge.api()), run_(run), in_(in), product_(size_t{run.sizes.rows1} * run.sizes.cols2),
        zeros_(product_.size(), 0.0f) {
    context_ = Handle(cl_.CLContextFree, cl_.CLContextCreate(device));
    program_ = Handle(cl_.CLProgramFree,
                      cl_.CLProgramCreateEx(context_.get(), to_utf16(kernel_source).c_str(),
                                            to_utf16(run.build_options).c_str(), nullptr, 0));
    kernel_ = Handle(cl_.CLKernelFree, cl_.CLKernelCreate(program_.get(), u"matricesMul"));
    a_ = Handle(cl_.CLBufferFree, cl_.CLBufferCreate(context_.get(), in.first.bytes(), 0));
    b_ = Handle(cl_.CLBufferFree, cl_.CLBufferCreate(context_.get(), in.second.bytes(), 0));
    c_ = Handle(cl_.CLBufferFree,
                cl_.CLBufferCreate(context_.get(), static_cast<uint32_t>(product_.size() * 4), 0));
    ok_ = kernel_.get() >= 0 && a_.get() >= 0 && b_.get() >= 0 && c_.get() >= 0 &&
          cl_.CLSetKernelArgMem(kernel_.get(), 0, a_.get()) != 0 &&
          cl_.CLSetKernelArgMem(kernel_.get(), 1, b_.get()) != 0 &&
          cl_.CLSetKernelArgMem(kernel_.get(), 2, c_.get()) != 0 && write_inputs();
  }

  std::optional<double> replay() {
    if (!ok_ || !write(c_, zeros_))
      return std::nullopt;
    auto start = Clock::now();
    if (!execute_and_read())
      return std::nullopt;
    return seconds_since(start);
  }

  std::optional<double> end_to_end() {
    auto start = Clock::now();
    if (!ok_ || !write_inputs() || !execute_and_read())
      return std::nullopt;
    return seconds_since(start);
  }

private:
  bool write(const Handle &buffer, const std::vector<float> &data) {
    return cl_.CLBufferWrite(buffer.get(), data.data(), 0, 0, static_cast<uint32_t>(data.size()),
                             4) != 0;
  }
  bool write_inputs() { return write(a_, in_.first.data) && write(b_, in_.second.data); }
  bool execute_and_read() {
    const LaunchGeometry &g = run_.geometry;
    return cl_.CLExecute(kernel_.get(), g.work_dim, nullptr, g.global.data(),
                         g.runtime_chooses_local() ? nullptr : g.local.data()) != 0 &&
           cl_.CLBufferRead(c_.get(), product_.data(), 0, 0, static_cast<uint32_t>(product_.size()),
                            4) != 0;
  }

  const BridgeApi &cl_;
  const StepRun &run_;
  const Inputs<float> &in_;
  std::vector<float> product_, zeros_;
  Handle context_, program_, kernel_, a_, b_, c_;
  bool ok_ = false;
};

std::string ratio_text(double ours, double theirs) {
  return ours > 0 && theirs > 0 ? fmt::format("{:.2f}x", theirs / ours) : "-";
}

Json samples_json(const Samples &samples) {
  Json json = Json::object();
  if (!samples.empty()) {
    json["min"] = samples.min();
    json["median"] = samples.median();
  }
  return json;
}

// What one bench run works with, from its first size to the bridge's cost.
struct Bench {
  const CommandLine &command;
  const std::vector<Step> &catalogue;
  Bridge &bridge;
  Runner &runner;
  const DeviceInfo &device;
  RawDevice &raw;
  ProgressLine &progress;
  TextReport say;
  std::vector<std::string> steps;
  uint32_t repeat = 5;
  Limit fp32;
  // The replay the bridge's cost is measured on: step 14 at 2000, else at its first verified size.
  std::optional<StepRun> overhead_run;
  std::optional<Inputs<float>> overhead_inputs;
  size_t wrong_products = 0; // of our steps and CLGemm: the exit status is 1 when any is wrong
};

// The steps named, or those the catalogue benches (Step::in_bench) that this device can run.
std::vector<std::string> bench_steps(const CommandLine &command, const std::vector<Step> &catalogue,
                                     const DeviceInfo &device) {
  std::vector<std::string> steps = command.steps;
  if (steps.empty())
    for (const Step &step : catalogue)
      if (step.in_bench && device_meets(step.requirement, device.caps))
        steps.push_back(step.name);
  return steps;
}

Json bench_header(const DeviceInfo &device, const Bridge &bridge, uint32_t repeat) {
  return {{"device",
           {{"name", device.name},
            {"vendor", device.vendor},
            {"platform", device.platform},
            {"driver", device.driver},
            {"version", device.version},
            {"compute_units", device.caps.compute_units},
            {"max_clock_mhz", device.max_clock_mhz}}},
          {"bridge", bridge.info_string(0, MQLCL_CL_BRIDGE_VERSION, "CL_BRIDGE_VERSION")},
          {"repeat", repeat},
          {"gflops", "2 * M * N * K / minimum kernel time (profiling events or library events)"}};
}

// The device's limits, measured by kernels of ours: printed, returned as JSON, the FP32 one kept.
Json measure_limits(const Bridge &bridge, const Runner &runner, const DeviceInfo &device,
                    Limit &fp32, const TextReport &say) {
  const bool cpu = device.type == "CPU";
  // CPUs: their SIMD width, and long enough runs (tens of ms) for clocks to settle.
  const uint32_t fp32_global = device.caps.compute_units * (cpu ? 64 : 2048);
  const uint32_t vector_width = cpu ? 16 : 4, iterations = cpu ? 16384 : 4096;
  fp32 = measure_limit(bridge, runner, device.ordinal, "peak_fp32.cl",
                       fmt::format("-DVW={} -DITERATIONS={}", vector_width, iterations),
                       "peak_fp32", fp32_global, cpu ? 64 : 256,
                       double(fp32_global) * iterations * 16 * vector_width * 2,
                       "FP32 FMA limit (ours, clpeak style)");
  std::vector<Limit> all_limits{fp32};
  if (is_nvidia_tensor_capable(device.caps)) {
    const uint32_t global = device.caps.compute_units * 2048;
    all_limits.push_back(measure_limit(
        bridge, runner, device.ordinal, "peak_tf32_mma.cl", "", "peak_tf32_mma", global, 256,
        double(global / 32) * 4096 * 8 * 2048, "TF32 mma.sync limit (ours)"));
  }
  say("\ndevice limits\n");
  Json limits = Json::array();
  for (const Limit &limit : all_limits) {
    say("  {:<40} {}\n", limit.name,
        limit.ok ? fmt::format("{:10.1f} GFLOPS", limit.flops_per_second / 1e9)
                 : "unavailable: " + limit.note);
    limits.push_back(
        {{"name", limit.name}, {"gflops", limit.flops_per_second / 1e9}, {"note", limit.note}});
  }
  return limits;
}

// The anchors at one size: CLBlast, OpenBLAS on CPUs, cuBLAS (FP32 and TF32) on NVIDIA GPUs.
void add_anchor_rows(Bench &b, const Options &options, const Inputs<float> &in,
                     const Reference &reference, std::vector<Row> &rows) {
  const uint32_t n = options.sizes.rows1;
  GemmProblem problem{n, n, n, &in.first.data, &in.second.data};
  const double fp32_tolerance =
      tolerance_for<float>(n, reference.max_abs_first, reference.max_abs_second);
  rows.push_back(
      anchor_row(b.raw.clblast_sgemm(problem, b.repeat), reference, fp32_tolerance, reference));
  if (b.device.type == "CPU")
    rows.push_back(
        anchor_row(openblas_sgemm(problem, b.repeat, static_cast<int>(b.device.caps.compute_units)),
                   reference, fp32_tolerance, reference));
  if (b.device.caps.vendor_id == 0x10DE) {
    rows.push_back(
        anchor_row(cublas_sgemm(problem, b.repeat, false), reference, fp32_tolerance, reference));
    // cuBLAS's TF32 mode rounds its inputs to nearest (its errors are those of the rounding
    // steps); NVIDIA documents neither its tie rule nor how it sums: the tensor cores'.
    const Arithmetic tf32{InputRounding::nearest, true};
    const std::shared_ptr<const Reference> rounded = b.runner.reference(options, in, tf32.inputs);
    rows.push_back(anchor_row(cublas_sgemm(problem, b.repeat, true), *rounded,
                              tolerance_of(tf32, n, *rounded), reference));
  }
}

// The library's CLGemm as an MQL5 program calls it: FP32 everywhere, and where it runs the tensor
// cores (NVIDIA sm_90) FP32-accurate (3xTF32, also held to max|C - ref| / max|ref| <= 1e-5) and
// TF32.
void add_library_rows(Bench &b, const Options &options, const Inputs<float> &in,
                      const Reference &reference, std::vector<Row> &rows) {
  const uint32_t n = options.sizes.rows1;
  const GemmProblem problem{n, n, n, &in.first.data, &in.second.data};
  auto library_row = [&](int32_t precision, const char *name, const Reference &checked,
                         double tolerance) {
    b.progress.show(fmt::format("{0}x{0}x{0}: {1}", n, name));
    AnchorResult result = library_gemm(b.bridge, b.device.ordinal, problem, precision, b.repeat);
    result.name = name;
    Row row = anchor_row(result, checked, tolerance, reference);
    row.kind = "library";
    return row;
  };
  const double fp32_tolerance =
      tolerance_for<float>(n, reference.max_abs_first, reference.max_abs_second);
  rows.push_back(library_row(MQLCL_GEMM_EXACT, "CLGemm FP32", reference, fp32_tolerance));
  if (b.device.caps.vendor_id != 0x10DE || b.device.caps.compute_capability < 90)
    return;
  Row accurate =
      library_row(MQLCL_GEMM_ACCURATE, "CLGemm FP32-accurate", reference, fp32_tolerance);
  if (accurate.verified && accurate.max_error_ratio > 1e-5)
    accurate.reason = fmt::format("max |C - ref| / max |ref| = {:.3e}, over FP32-accurate's 1e-5",
                                  accurate.max_error_ratio);
  accurate.verified = accurate.verified && accurate.max_error_ratio <= 1e-5;
  rows.push_back(accurate);
  const Arithmetic tf32{InputRounding::nearest, true};
  const std::shared_ptr<const Reference> rounded = b.runner.reference(options, in, tf32.inputs);
  rows.push_back(
      library_row(MQLCL_GEMM_TF32, "CLGemm TF32", *rounded, tolerance_of(tf32, n, *rounded)));
}

// One size's table and ratios: each of our steps and CLGemm rows against every anchor and the
// FP32 limit.
void print_size(const Bench &b, uint32_t n, const std::vector<Row> &rows) {
  const double flops = 2.0 * n * n * n;
  b.say("\n{0}x{0}x{0}   (kernel time, min of {1} after a warm-up; error = max|C-ref| / "
        "max|ref|{2})\n",
        n, b.repeat, b.command.options.double_precision ? "; the steps in double" : "");
  b.say("  {:<36} {:>10} {:>10} {:>10}  {:<9}\n", "", "ms", "GFLOPS", "error", "verified");
  for (const Row &row : rows) {
    if (!row.ok || row.seconds.empty()) {
      b.say("  {:<36} unavailable: {}\n", row.name, row.note);
      continue;
    }
    double seconds = row.seconds.min();
    b.say("  {:<36} {:>10.3f} {:>10.1f} {:>10.2e}  {:<9}\n", row.name, seconds * 1e3,
          gflops_of(flops, seconds), row.max_error_ratio, row.verified ? "yes" : "NO");
    if (!row.verified)
      b.say("  {:<36} NO: {}\n", "", row.reason);
  }
  for (const Row &ours : rows) {
    if (ours.kind == "anchor" || !ours.verified)
      continue;
    std::string line;
    for (const Row &anchor : rows)
      if (anchor.kind == "anchor" && anchor.verified && !anchor.seconds.empty())
        line += fmt::format("  {} {}", ratio_text(ours.seconds.min(), anchor.seconds.min()),
                            anchor.name);
    if (b.fp32.ok)
      line +=
          fmt::format("  {:.0f}% of the FP32 limit",
                      100 * gflops_of(flops, ours.seconds.min()) * 1e9 / b.fp32.flops_per_second);
    b.say("  {:<36}{}\n", ours.name, line);
  }
}

Json size_json(uint32_t n, const std::vector<Row> &rows) {
  const double flops = 2.0 * n * n * n;
  Json entries = Json::array();
  for (const Row &row : rows) {
    Json node = {{"name", row.name},
                 {"kind", row.kind},
                 {"available", row.ok},
                 {"verified", row.verified},
                 {"note", row.note},
                 {"reason", row.reason},
                 {"max_error_over_max_ref", row.max_error_ratio},
                 {"max_abs_error_checked", row.checked_error},
                 {"tolerance", row.tolerance},
                 {"seconds", samples_json(row.seconds)}};
    if (!row.seconds.empty())
      node["gflops"] = gflops_of(flops, row.seconds.min());
    entries.push_back(std::move(node));
  }
  return {{"n", n}, {"results", std::move(entries)}};
}

// Our steps and the anchors at n x n x n, every product verified against one fp64 reference.
Json measure_size(Bench &b, uint32_t n) {
  Sizes size{n, n, n};
  ArticleRandom random(b.command.options.seed);
  Inputs<float> in =
      generate_inputs<float>(size, size, Layout::row_major, Layout::column_major, random);
  Options options = b.command.options;
  options.sizes = size;
  options.run_cpu = false;
  options.repeat = b.repeat;
  options.random_checks = 0;
  options.device = b.device.ordinal;
  // CLGemm and the anchors multiply these float inputs; with --double the steps run in double on
  // their own inputs and check them against their own reference, within the double bound.
  Options float_options = options;
  float_options.double_precision = false;
  // The runner's reference of the float inputs, which its float steps at this size share.
  b.progress.show(fmt::format("{0}x{0}x{0}: the fp64 reference on the host", n));
  const std::shared_ptr<const Reference> reference =
      b.runner.reference(float_options, in, InputRounding::none);
  std::vector<Row> rows;
  Observer quiet;
  for (const std::string &name : b.steps) {
    const Step *step = find_step(b.catalogue, name);
    if (step == nullptr)
      bad_input(fmt::format("unknown step {} (mqlcl-replay --list)", name));
    b.progress.show(
        fmt::format("{0}x{0}x{0}: {1} ({2} of {3})", n, name, rows.size() + 1, b.steps.size()));
    StepRun run = b.runner.run(*step, options, quiet);
    rows.push_back(step_row(run, *reference));
    if (name == "matr_mul_tuned" && run.status == Status::verified &&
        (!b.overhead_run || n == 2000)) {
      b.overhead_run = run;
      b.overhead_inputs = in;
    }
  }
  add_library_rows(b, float_options, in, *reference, rows);
  b.progress.show(fmt::format("{0}x{0}x{0}: the anchors", n));
  add_anchor_rows(b, float_options, in, *reference, rows);
  b.progress.clear();
  b.wrong_products += std::count_if(rows.begin(), rows.end(), [](const Row &row) {
    return row.kind != "anchor" && row.ok && !row.verified;
  });
  print_size(b, n, rows);
  return size_json(n, rows);
}

// MQL5-style end to end (write A and B, execute, read C) against the device's transfer floor.
void measure_end_to_end(Bench &b, BridgeReplay &through_bridge, Json &overhead) {
  const StepRun &run = *b.overhead_run;
  const uint32_t n = run.sizes.rows1;
  Samples e2e;
  for (uint32_t r = 0; r <= b.repeat; ++r)
    if (std::optional<double> seconds = through_bridge.end_to_end(); seconds && r > 0)
      e2e.values.push_back(*seconds);
  double bytes_in =
      double(b.overhead_inputs->first.data.size() + b.overhead_inputs->second.data.size()) * 4;
  double bytes_out = double(n) * n * 4;
  RawDevice::Bandwidth bandwidth = b.raw.pinned_bandwidth(static_cast<size_t>(bytes_out));
  if (e2e.empty() || bandwidth.host_to_device <= 0)
    return;
  double floor = bytes_in / bandwidth.host_to_device + bytes_out / bandwidth.device_to_host +
                 run.kernel_seconds.min();
  b.say("\nMQL5-style end to end at {} (CLBufferWrite A, B; CLExecute; CLBufferRead C)\n", n);
  b.say("  {:.3f} ms (median of {}); transfer floor {:.3f} ms = {:.1f} MB in at {:.1f} "
        "GB/s + {:.1f} MB out at {:.1f} GB/s (pinned) + kernel {:.3f} ms: {:.2f}x the "
        "floor\n",
        e2e.median() * 1e3, b.repeat, floor * 1e3, bytes_in / 1e6, bandwidth.host_to_device / 1e9,
        bytes_out / 1e6, bandwidth.device_to_host / 1e9, run.kernel_seconds.min() * 1e3,
        e2e.median() / floor);
  overhead["end_to_end_s"] = e2e.median();
  overhead["transfer_floor_s"] = floor;
  overhead["pinned_host_to_device_gbps"] = bandwidth.host_to_device / 1e9;
  overhead["pinned_device_to_host_gbps"] = bandwidth.device_to_host / 1e9;
}

// The bridge's cost: the same replay through the bridge and through raw OpenCL, alternating one
// of each so that both see the same state of the machine (on a GPU a pageable read of C varies by
// more than the kernel between phases of a process), and one call measured alone.
Json measure_bridge_cost(Bench &b) {
  const StepRun &run = *b.overhead_run;
  const std::string source = b.runner.read_kernel(run.kernel_file);
  const uint32_t n = run.sizes.rows1;
  const uint32_t pairs = std::max<uint32_t>(b.repeat, 21);
  GemmProblem problem{n, n, n, &b.overhead_inputs->first.data, &b.overhead_inputs->second.data};
  b.progress.show(fmt::format("the bridge's cost: {} replays of {} at {}, through the bridge and "
                              "raw OpenCL",
                              pairs, run.step, n));
  BridgeReplay through_bridge(b.bridge, source, b.device.ordinal, run, *b.overhead_inputs);
  Samples bridge_replays;
  AnchorResult raw_run = b.raw.raw_replay(
      source, run.build_options + " -cl-kernel-arg-info", problem, run.geometry.work_dim,
      run.geometry.global.data(), run.geometry.local.data(), pairs, [&](bool counted) {
        std::optional<double> seconds = through_bridge.replay();
        if (seconds && counted)
          bridge_replays.values.push_back(*seconds);
      });
  b.progress.show("the bridge's cost: CLSetKernelArg against clSetKernelArg");
  double bridge_call = bridge_seconds_per_set_arg(b.bridge, b.device.ordinal, 200000);
  double raw_call = b.raw.seconds_per_set_arg(200000);
  b.progress.clear();
  b.say("\nbridge overhead ({} at {}, CLExecute + CLBufferRead, {} replays of each path, "
        "alternating)\n",
        run.step, n, pairs);
  Json overhead = Json::object();
  if (raw_run.available && bridge_replays.values.size() == raw_run.seconds.values.size()) {
    double through = bridge_replays.median(), direct = raw_run.seconds.median();
    double through_min = bridge_replays.min(), direct_min = raw_run.seconds.min();
    b.say("  medians: through the bridge {:.3f} ms, raw OpenCL {:.3f} ms: {:+.2f}%; "
          "minimums {:.3f} and {:.3f} ms: {:+.2f}%\n",
          through * 1e3, direct * 1e3, 100 * (through - direct) / direct, through_min * 1e3,
          direct_min * 1e3, 100 * (through_min - direct_min) / direct_min);
    overhead["replay_pairs"] = pairs;
    overhead["replay_bridge_s"] = through;
    overhead["replay_raw_s"] = direct;
    overhead["replay_overhead_percent"] = 100 * (through - direct) / direct;
    overhead["replay_bridge_min_s"] = through_min;
    overhead["replay_raw_min_s"] = direct_min;
  } else if (!raw_run.available) {
    b.say("  raw replay unavailable: {}\n", raw_run.note);
  } else {
    b.say("  the bridge's replay failed: {}\n", b.bridge.last_error_text());
  }
  b.say("  CLSetKernelArg {:.3f} us, clSetKernelArg {:.3f} us: {:+.3f} us per call\n",
        bridge_call * 1e6, raw_call * 1e6, (bridge_call - raw_call) * 1e6);
  overhead["set_arg_bridge_us"] = bridge_call * 1e6;
  overhead["set_arg_raw_us"] = raw_call * 1e6;
  overhead["per_call_overhead_us"] = (bridge_call - raw_call) * 1e6;
  measure_end_to_end(b, through_bridge, overhead);
  return overhead;
}

void save_bench(const CommandLine &command, const Json &json, const TextReport &say) {
  if (command.output) {
    std::filesystem::create_directories(command.output->parent_path().empty()
                                            ? std::filesystem::path(".")
                                            : command.output->parent_path());
    write_json_file(*command.output, json);
    say("\nresults written to {}\n", command.output->string());
  }
  if (command.chart) {
    write_bench_chart(*command.chart, json);
    say("chart written to {}\n", command.chart->string());
  }
}

// The sizes of the section from host arrays to host arrays: --host-sizes, else --sizes (a run at
// chosen sizes stays at them), ascending; else up to 8192 on GPUs and 2048 on CPUs (where OpenBLAS
// and the device share the cores).
std::vector<uint32_t> host_sizes(const CommandLine &command, const DeviceInfo &device) {
  const std::vector<uint32_t> &given =
      command.host_sizes.empty() ? command.bench_sizes : command.host_sizes;
  if (!given.empty()) { // ascending, as the crossover reads them
    std::vector<uint32_t> sizes = given;
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
  }
  std::vector<uint32_t> sizes{64, 128, 256, 512, 1024, 2048};
  if (device.type != "CPU")
    sizes.insert(sizes.end(), {4096, 8192});
  return sizes;
}

} // namespace

int run_bench_command(const CommandLine &command, const std::vector<Step> &catalogue) {
  Bridge bridge(find_library(command.library));
  Runner runner(bridge, find_kernels(command.kernels));
  DeviceInfo device = runner.probe_device(command.options.device);
  std::vector<uint32_t> sizes = command.bench_sizes;
  if (sizes.empty())
    sizes = {1000, 2000, 4096};
  const uint32_t repeat = std::max<uint32_t>(command.options.repeat, 5);

  const TextReport say(command.format != Format::json);
  say("benchmark on device {}: {} ({}, driver {}), {} compute units\n", device.ordinal, device.name,
      device.platform, device.driver, device.caps.compute_units);
  Json json = bench_header(device, bridge, repeat);
  RawDevice raw(device.platform, device.name);
  ProgressLine progress(stderr, command.format == Format::json);
  size_t wrong_products = 0;
  if (!command.host_only) {
    json["steps_type"] = command.options.double_precision ? "double" : "float";
    Limit fp32;
    json["limits"] = measure_limits(bridge, runner, device, fp32, say);
    Bench bench{command,  catalogue, bridge,
                runner,   device,    raw,
                progress, say,       bench_steps(command, catalogue, device),
                repeat,   fp32,      {},
                {},       0};
    json["sizes"] = Json::array();
    for (uint32_t n : sizes)
      json["sizes"].push_back(measure_size(bench, n));
    if (bench.overhead_run && raw.ok())
      json["bridge_overhead"] = measure_bridge_cost(bench);
    wrong_products = bench.wrong_products;
  }
  HostToHostRun host = measure_host_to_host(
      bridge, device, raw,
      HostToHostSettings{host_sizes(command, device), repeat, command.options.run_cpu}, say,
      progress);
  json["host_to_host"] = std::move(host.json);
  wrong_products += host.wrong_products;
  save_bench(command, json, say);
  if (!say.shown())
    fmt::print("{}\n", json_text(json, 4));
  // Wrong products of ours fail the run, as a wrong replay does; the anchors' are reported only.
  return wrong_products > 0 ? static_cast<int>(ExitCode::wrong_results) : 0;
}

} // namespace mqlcl::replay
