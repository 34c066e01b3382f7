// `mqlcl-replay gemm`: the library's CLGemm as an MQL5 program calls it (buffers, one call per
// product), against cuBLAS on NVIDIA GPUs and OpenBLAS on CPU devices, in one run on one device.
// Every product is verified element by element against an fp64 product of the same inputs;
// the first call's time (the kernel's build included) is reported beside the kernel time.
#include "anchors.hpp"
#include "bridge.hpp"
#include "commands.hpp"
#include "error.hpp"
#include "json.hpp"
#include "paths.hpp"
#include "runner.hpp"
#include "verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>

namespace mqlcl::replay {

namespace {

using Clock = std::chrono::steady_clock;

struct GemmCase {
  GeneralGemm shape;
  int32_t precision = MQLCL_GEMM_EXACT;
};

std::string case_label(const GemmCase &c) {
  const GeneralGemm &g = c.shape;
  std::string label = fmt::format("{}x{}x{} {}{}", g.m, g.n, g.k, g.transpose_a ? "T" : "N",
                                  g.transpose_b ? "T" : "N");
  if (g.batch > 1)
    label += fmt::format(" batch {}", g.batch);
  label += g.double_precision ? " double" : " float";
  if (c.precision == MQLCL_GEMM_ACCURATE)
    label += " accurate";
  if (c.precision == MQLCL_GEMM_TF32)
    label += " tf32";
  return label;
}

// The squares at `sizes` both ways (B as stored by rows, and transposed), FP32-accurate at each
// with B transposed, then on GPUs TF32 and FP32-accurate at 4096 both ways and the network
// shapes with each operand transposed; double and a batch. On CPUs FP32-accurate runs at the
// largest size only (it is the exact product there) and TF32 not at all.
std::vector<GemmCase> gemm_cases(const std::vector<uint32_t> &sizes, bool gpu) {
  std::vector<GemmCase> cases;
  for (uint32_t n : sizes)
    for (bool transpose_b : {false, true})
      cases.push_back({GeneralGemm{n, n, n, 1, false, transpose_b}});
  for (uint32_t n : sizes)
    if (gpu || n == sizes.back())
      cases.push_back({GeneralGemm{n, n, n, 1, false, true}, MQLCL_GEMM_ACCURATE});
  if (gpu) {
    const uint32_t n = 4096;
    cases.push_back({GeneralGemm{n, n, n, 1, false, false}, MQLCL_GEMM_ACCURATE});
    for (bool transpose_b : {true, false})
      cases.push_back({GeneralGemm{n, n, n, 1, false, transpose_b}, MQLCL_GEMM_TF32});
  }
  if (gpu)
    for (GeneralGemm shape : {GeneralGemm{4096, 4096, 512}, GeneralGemm{512, 4096, 4096},
                              GeneralGemm{8192, 1024, 8192}})
      for (int t = 1; t <= 2; ++t) {
        shape.transpose_a = t == 1;
        shape.transpose_b = t == 2;
        cases.push_back({shape});
      }
  cases.push_back(
      {GeneralGemm{sizes.front(), sizes.front(), sizes.front(), 1, false, false, true}});
  cases.push_back({GeneralGemm{256, 256, 64, 64}});
  return cases;
}

std::vector<double> random_matrix(size_t count, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<double> values(count);
  for (double &v : values)
    v = value(random);
  return values;
}

// Rows of op(X) for the reference: `lines` x k with k contiguous.
std::vector<double> k_contiguous(const std::vector<double> &x, uint32_t lines, uint32_t k,
                                 bool k_runs_down, size_t first) {
  std::vector<double> out(size_t{lines} * k);
  for (uint32_t i = 0; i < lines; ++i)
    for (uint32_t l = 0; l < k; ++l)
      out[size_t{i} * k + l] =
          k_runs_down ? x[first + size_t{l} * lines + i] : x[first + size_t{i} * k + l];
  return out;
}

// The fp64 product of every matrix of the batch, on every hardware thread.
std::vector<double> reference_product(const GeneralGemm &g, const std::vector<double> &a,
                                      const std::vector<double> &b) {
  std::vector<double> c(size_t{g.m} * g.n * g.batch);
  for (uint32_t p = 0; p < g.batch; ++p) {
    std::vector<double> rows = k_contiguous(a, g.m, g.k, g.transpose_a, size_t{p} * g.m * g.k);
    std::vector<double> cols = k_contiguous(b, g.n, g.k, !g.transpose_b, size_t{p} * g.n * g.k);
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        for (uint32_t i = t; i < g.m; i += threads)
          for (uint32_t j = 0; j < g.n; ++j) {
            const double *x = &rows[size_t{i} * g.k], *y = &cols[size_t{j} * g.k];
            double sum = 0;
            for (uint32_t l = 0; l < g.k; ++l)
              sum += x[l] * y[l];
            c[(size_t{p} * g.m + i) * g.n + j] = sum;
          }
      });
    for (std::thread &worker : workers)
      worker.join();
  }
  return c;
}

// max |C - ref| / max |ref|, and whether every element is within the element type's bound.
struct Checked {
  double error_ratio = 0;
  bool verified = false;
};

// FP32-accurate products also keep max |C - ref| / max |ref| within kAccurateError.
constexpr double kAccurateError = 1e-5;

// A TF32 product against the fp64 product of its inputs rounded to TF32 as the tensor maps round
// them (to nearest; NVIDIA does not say how ties break), within verify.hpp's tolerance for sums
// on the tensor cores.
bool tf32_verified(const GeneralGemm &g, const std::vector<double> &product) {
  if (product.size() != size_t{g.m} * g.n || g.batch != 1)
    return false;
  Inputs<float> in{Matrix<float>(g.m, g.k, g.m, g.k, Layout::row_major),
                   Matrix<float>(g.k, g.n, g.k, g.n, Layout::row_major)};
  std::vector<double> rows = k_contiguous(*g.a, g.m, g.k, g.transpose_a, 0);
  std::vector<double> cols = k_contiguous(*g.b, g.n, g.k, !g.transpose_b, 0);
  for (uint32_t l = 0; l < g.k; ++l) {
    for (uint32_t i = 0; i < g.m; ++i)
      in.first.at(i, l) = float(rows[size_t{i} * g.k + l]);
    for (uint32_t j = 0; j < g.n; ++j)
      in.second.at(l, j) = float(cols[size_t{j} * g.k + l]);
  }
  Reference reference = reference_product(in, InputRounding::nearest);
  const double tolerance = tolerance_of(Arithmetic{InputRounding::nearest, true}, g.k, reference);
  for (size_t i = 0; i < product.size(); ++i)
    if (!(std::fabs(product[i] - reference.product[i]) <= tolerance))
      return false;
  return true;
}

Checked check(const GemmCase &c, const std::vector<double> &product,
              const std::vector<double> &reference) {
  const GeneralGemm &g = c.shape;
  double tolerance =
      g.double_precision ? tolerance_for<double>(g.k, 1, 1) : tolerance_for<float>(g.k, 1, 1);
  Checked result;
  if (product.size() != reference.size())
    return result;
  double worst = 0, largest = 0;
  bool finite = true;
  for (size_t i = 0; i < product.size(); ++i) {
    finite = finite && std::isfinite(product[i]);
    worst = std::max(worst, std::fabs(product[i] - reference[i]));
    largest = std::max(largest, std::fabs(reference[i]));
  }
  result.error_ratio = largest > 0 ? worst / largest : worst;
  if (c.precision == MQLCL_GEMM_TF32)
    result.verified = finite && tf32_verified(g, product);
  else
    result.verified = finite && worst <= tolerance &&
                      (c.precision != MQLCL_GEMM_ACCURATE || result.error_ratio <= kAccurateError);
  return result;
}

// One case through the bridge: a context and three buffers, the first call timed on the host
// (the build included), then `repeat` calls timed by CL_GEMM_EXECUTION_TIME.
struct LibraryRun {
  bool ok = false;
  std::string why_not;
  double first_call_seconds = 0;
  Samples seconds;
  std::vector<double> product;
};

template <class T> std::vector<T> narrowed(const std::vector<double> &values) {
  return std::vector<T>(values.begin(), values.end());
}

template <class T>
LibraryRun run_library(const Bridge &bridge, int32_t device, const GemmCase &c,
                       const std::vector<T> &host_a, const std::vector<T> &host_b,
                       uint32_t repeat) {
  const BridgeApi &cl = bridge.api();
  const GeneralGemm &g = c.shape;
  LibraryRun run;
  std::vector<T> host_c(size_t{g.m} * g.n * g.batch);
  Handle context(cl.CLContextFree, cl.CLContextCreate(device));
  auto buffer = [&](size_t elements) {
    return Handle(cl.CLBufferFree,
                  cl.CLBufferCreate(context.get(), uint32_t(elements * sizeof(T)), 1));
  };
  Handle ba = buffer(host_a.size()), bb = buffer(host_b.size()), bc = buffer(host_c.size());
  auto write = [&](const Handle &to, const std::vector<T> &from) {
    return cl.CLBufferWrite(to.get(), from.data(), 0, 0, uint32_t(from.size()), sizeof(T)) != 0;
  };
  if (bc.get() < 0 || !write(ba, host_a) || !write(bb, host_b)) {
    run.why_not = bridge.last_error_text();
    return run;
  }
  auto call = [&] {
    return cl.CLGemm(ba.get(), bb.get(), bc.get(),
                     g.double_precision ? MQLCL_GEMM_DOUBLE : MQLCL_GEMM_FLOAT, c.precision,
                     g.transpose_a, g.transpose_b, g.m, g.n, g.k, 1.0, 0.0, 0, 0, 0, 0, 0, 0,
                     g.batch, g.batch > 1 ? uint64_t{g.m} * g.k : 0,
                     g.batch > 1 ? uint64_t{g.n} * g.k : 0,
                     g.batch > 1 ? uint64_t{g.m} * g.n : 0) != 0;
  };
  auto start = Clock::now();
  bool ok = call() &&
            cl.CLBufferRead(bc.get(), host_c.data(), 0, 0, uint32_t(host_c.size()), sizeof(T)) != 0;
  run.first_call_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (uint32_t r = 0; ok && r < repeat; ++r) {
    ok = call();
    int64_t nanoseconds =
        ok ? cl.CLGetInfoInteger(context.get(), MQLCL_CL_GEMM_EXECUTION_TIME) : -1;
    ok = ok && nanoseconds > 0;
    if (ok)
      run.seconds.values.push_back(double(nanoseconds) * 1e-9);
  }
  ok =
      ok && cl.CLBufferRead(bc.get(), host_c.data(), 0, 0, uint32_t(host_c.size()), sizeof(T)) != 0;
  if (!ok) {
    run.why_not = bridge.last_error_text();
    return run;
  }
  run.ok = true;
  run.product.assign(host_c.begin(), host_c.end());
  return run;
}

// The anchor for a case: cuBLAS on NVIDIA; OpenBLAS sgemm on CPU devices (float, one product,
// A times B transposed, the layout its adapter takes).
GeneralAnchor anchor_for(const DeviceInfo &device, const GemmCase &c, const std::vector<double> &a,
                         const std::vector<double> &b, uint32_t repeat) {
  const GeneralGemm &g = c.shape;
  if (device.caps.vendor_id == 0x10DE)
    return cublas_gemm(g, repeat);
  GeneralAnchor anchor;
  anchor.name = "OpenBLAS sgemm";
  if (device.type != "CPU" || g.double_precision || g.batch > 1 || g.transpose_a ||
      !g.transpose_b) {
    anchor.note = "no anchor for this case on this device";
    return anchor;
  }
  std::vector<float> fa(a.begin(), a.end()), fb(b.begin(), b.end());
  GemmProblem problem{g.m, g.n, g.k, &fa, &fb};
  AnchorResult result =
      openblas_sgemm(problem, repeat, static_cast<int>(device.caps.compute_units));
  anchor.available = result.available;
  anchor.note = result.note;
  anchor.seconds = result.seconds;
  anchor.product.assign(result.product.begin(), result.product.end());
  return anchor;
}

struct CaseResult {
  LibraryRun ours;
  Checked ours_checked;
  GeneralAnchor anchor;
  Checked anchor_checked;
};

CaseResult measure_case(const Bridge &bridge, const DeviceInfo &device, const GemmCase &c,
                        uint32_t repeat) {
  const GeneralGemm &g = c.shape;
  std::vector<double> a = random_matrix(size_t{g.m} * g.k * g.batch, 1);
  std::vector<double> b = random_matrix(size_t{g.k} * g.n * g.batch, 2);
  if (!g.double_precision) { // the inputs as the float product sees them
    for (double &v : a)
      v = float(v);
    for (double &v : b)
      v = float(v);
  }
  GeneralGemm with_data = g;
  with_data.a = &a;
  with_data.b = &b;
  with_data.tf32 = c.precision == MQLCL_GEMM_TF32;
  CaseResult result;
  result.ours = g.double_precision ? run_library(bridge, device.ordinal, c, a, b, repeat)
                                   : run_library(bridge, device.ordinal, c, narrowed<float>(a),
                                                 narrowed<float>(b), repeat);
  result.anchor = anchor_for(device, GemmCase{with_data, c.precision}, a, b, repeat);
  std::vector<double> reference = reference_product(g, a, b);
  const GemmCase checked{with_data, c.precision};
  result.ours_checked = check(checked, result.ours.product, reference);
  result.anchor_checked = check(checked, result.anchor.product, reference);
  return result;
}

void print_case(const GemmCase &c, const CaseResult &r) {
  const GeneralGemm &g = c.shape;
  const double flops = 2.0 * g.m * g.n * g.k * g.batch;
  auto gflops = [&](const Samples &s) { return s.empty() ? 0.0 : flops / s.min() / 1e9; };
  if (!r.ours.ok) {
    fmt::print("  {:<34} unavailable: {}\n", case_label(c), r.ours.why_not);
    return;
  }
  std::string anchor = "-";
  if (r.anchor.available && !r.anchor.seconds.empty())
    anchor = fmt::format("{:10.1f} {:>5} {:6.3f}x", gflops(r.anchor.seconds),
                         r.anchor_checked.verified ? "yes" : "NO",
                         r.anchor.seconds.min() / r.ours.seconds.min());
  fmt::print("  {:<34} {:10.1f} {:9.2e} {:>5} {:9.3f} {:9.3f}   {}\n", case_label(c),
             gflops(r.ours.seconds), r.ours_checked.error_ratio,
             r.ours_checked.verified ? "yes" : "NO", r.ours.first_call_seconds,
             r.ours.seconds.min() * 1e3, anchor);
}

Json case_json(const GemmCase &c, const CaseResult &r) {
  const GeneralGemm &g = c.shape;
  const double flops = 2.0 * g.m * g.n * g.k * g.batch;
  Json node = {{"case", case_label(c)},
               {"verified", r.ours.ok && r.ours_checked.verified},
               {"max_error_over_max_ref", r.ours_checked.error_ratio},
               {"first_call_s", r.ours.first_call_seconds}};
  if (r.ours.ok && !r.ours.seconds.empty()) {
    node["seconds"]["min"] = r.ours.seconds.min();
    node["gflops"] = flops / r.ours.seconds.min() / 1e9;
  } else {
    node["note"] = r.ours.why_not;
  }
  node["anchor"] = {{"name", r.anchor.name}, {"note", r.anchor.note}};
  if (r.anchor.available && !r.anchor.seconds.empty()) {
    node["anchor"]["gflops"] = flops / r.anchor.seconds.min() / 1e9;
    node["anchor"]["verified"] = r.anchor_checked.verified;
    if (r.ours.ok && !r.ours.seconds.empty())
      node["ratio_to_anchor"] = r.anchor.seconds.min() / r.ours.seconds.min();
  }
  return node;
}

} // namespace

AnchorResult library_gemm(const Bridge &bridge, int32_t device, const GemmProblem &problem,
                          int32_t precision, uint32_t repeat) {
  const GemmCase c{GeneralGemm{problem.m, problem.n, problem.k, 1, false, true}, precision};
  LibraryRun run = run_library(bridge, device, c, *problem.a, *problem.b, repeat);
  AnchorResult result;
  result.name = "CLGemm";
  result.available = run.ok;
  result.note =
      run.ok ? fmt::format("the first call {:.3f} s, its build included", run.first_call_seconds)
             : run.why_not;
  result.seconds = run.seconds;
  result.timing = "CL_GEMM_EXECUTION_TIME";
  result.product.assign(run.product.begin(), run.product.end());
  return result;
}

int run_gemm_command(const CommandLine &command) {
  Bridge bridge(find_library(command.library));
  Runner runner(bridge, find_kernels(command.kernels));
  DeviceInfo device = runner.probe_device(command.options.device);
  std::vector<uint32_t> sizes = command.bench_sizes;
  if (sizes.empty())
    sizes = device.type == "CPU" ? std::vector<uint32_t>{1000, 2000}
                                 : std::vector<uint32_t>{1000, 2000, 4096, 4097, 8192};
  const uint32_t repeat = std::max<uint32_t>(command.options.repeat, 5);
  fmt::print("CLGemm on device {}: {} ({}, driver {}), {} calls per case after the first\n",
             device.ordinal, device.name, device.platform, device.driver, repeat);
  fmt::print("  {:<34} {:>10} {:>9} {:>5} {:>9} {:>9}   {}\n", "case", "GFLOPS", "error", "ok",
             "first s", "ms", "anchor GFLOPS, verified, ratio (ours / anchor speed)");
  const char *cache = std::getenv("MQLCL_TUNE_CACHE");
  Json json = {
      {"device", {{"name", device.name}, {"driver", device.driver}, {"platform", device.platform}}},
      {"repeat", repeat},
      {"tuning_cache", cache != nullptr ? cache : ""}};
  Json cases = Json::array();
  bool all_verified = true;
  for (const GemmCase &c : gemm_cases(sizes, device.type != "CPU")) {
    CaseResult result = measure_case(bridge, device, c, repeat);
    print_case(c, result);
    all_verified = all_verified && result.ours.ok && result.ours_checked.verified;
    cases.push_back(case_json(c, result));
  }
  json["cases"] = std::move(cases);
  if (command.output) {
    write_json_file(*command.output, json);
    fmt::print("results written to {}\n", command.output->string());
  }
  return all_verified ? 0 : static_cast<int>(ExitCode::wrong_results);
}

} // namespace mqlcl::replay
