// `mqlcl-replay gemm`: the library's CLGemm as an MQL5 program calls it (buffers, one call per
// product), against cuBLAS on NVIDIA GPUs and OpenBLAS on CPU devices, in one run on one device.
// Every product is verified element by element against an fp64 product of the same inputs;
// the first call's time (the kernel's build included) is reported beside the kernel time.
#include "anchors.hpp"
#include "bridge.hpp"
#include "commands.hpp"
#include "environment.hpp"
#include "error.hpp"
#include "gemm_product.hpp"
#include "json.hpp"
#include "paths.hpp"
#include "progress.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "scoped_environment.hpp"
#include "scoped_folder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <regex>

namespace mqlcl::replay {

namespace {

struct GemmCase {
  GeneralGemm shape;
  int32_t precision = MQLCL_GEMM_EXACT;
};

// The squares at each size, as stored, with B and with A transposed (`layouts` of them).
void append_squares(std::vector<GemmCase> &cases, const std::vector<uint32_t> &sizes,
                    bool double_precision, int layouts) {
  for (uint32_t n : sizes)
    for (int t = 0; t < layouts; ++t)
      cases.push_back({GeneralGemm{n, n, n, 1, t == 2, t == 1, double_precision}});
}

// The squares at `sizes` as stored, with B and with A transposed, FP32-accurate at each with B
// transposed, then on GPUs TF32 at each size both ways, FP32-accurate at 4096 as stored and the
// network shapes with each operand transposed; double at the first size (on GPUs at every size,
// NN, NT and TN) and a batch. On CPUs FP32-accurate runs at the largest size only (it is the
// exact product there), TF32 not at all and the squares NN and NT only. `double_only` (gemm
// --double): the double products at every size, as stored, with B and with A transposed, then
// MQLCL_GEMM_ACCURATE the same three ways (the FP64 product, or under MQLCL_GEMM_KERNEL=ozaki the
// Ozaki scheme: one run times both beside cuBLAS DGEMM). `accurate_only` (gemm --accurate):
// MQLCL_GEMM_ACCURATE alone, of the element type asked for, at every size the three ways.
std::vector<GemmCase> gemm_cases(const std::vector<uint32_t> &sizes, bool gpu, bool double_only,
                                 bool accurate_only) {
  std::vector<GemmCase> cases;
  if (double_only || accurate_only) {
    if (!accurate_only)
      append_squares(cases, sizes, true, 3);
    for (uint32_t n : sizes)
      for (int t = 0; t < 3; ++t)
        cases.push_back(
            {GeneralGemm{n, n, n, 1, t == 2, t == 1, double_only}, MQLCL_GEMM_ACCURATE});
    return cases;
  }
  append_squares(cases, sizes, false, gpu ? 3 : 2);
  for (uint32_t n : sizes)
    if (gpu || n == sizes.back())
      cases.push_back({GeneralGemm{n, n, n, 1, false, true}, MQLCL_GEMM_ACCURATE});
  if (gpu) {
    for (uint32_t n : sizes)
      for (bool transpose_b : {true, false})
        cases.push_back({GeneralGemm{n, n, n, 1, false, transpose_b}, MQLCL_GEMM_TF32});
    const uint32_t n = 4096;
    cases.push_back({GeneralGemm{n, n, n, 1, false, false}, MQLCL_GEMM_ACCURATE});
    for (GeneralGemm shape : {GeneralGemm{4096, 4096, 512}, GeneralGemm{512, 4096, 4096},
                              GeneralGemm{8192, 1024, 8192}})
      for (int t = 1; t <= 2; ++t) {
        shape.transpose_a = t == 1;
        shape.transpose_b = t == 2;
        cases.push_back({shape});
      }
    append_squares(cases, sizes, true, 3);
  } else {
    cases.push_back(
        {GeneralGemm{sizes.front(), sizes.front(), sizes.front(), 1, false, false, true}});
  }
  cases.push_back({GeneralGemm{256, 256, 64, 64}});
  return cases;
}

// gemm --cases: those whose name has a match of `pattern`.
std::vector<GemmCase> matching_cases(std::vector<GemmCase> cases,
                                     const std::optional<std::string> &pattern) {
  if (!pattern)
    return cases;
  const std::regex wanted(*pattern);
  cases.erase(std::remove_if(cases.begin(), cases.end(),
                             [&](const GemmCase &c) {
                               return !std::regex_search(gemm_case_label(c.shape, c.precision),
                                                         wanted);
                             }),
              cases.end());
  if (cases.empty())
    bad_input(fmt::format("--cases {}: no case of this run has a name that matches", *pattern));
  return cases;
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
  std::string label;
  LibraryRun ours;
  Checked ours_checked;
  GeneralAnchor anchor;
  Checked anchor_checked;
};

// `step` says which case of how many, on the progress line.
CaseResult measure_case(const Bridge &bridge, const DeviceInfo &device, const GemmCase &c,
                        uint32_t repeat, ProgressLine &progress, const std::string &step) {
  const GeneralGemm &g = c.shape;
  progress.show(fmt::format("{}: {}x{}x{}, the fp64 reference on the host", step, g.m, g.n, g.k));
  const GemmProduct product(c.shape, c.precision);
  CaseResult result;
  result.label = product.label();
  progress.show(fmt::format("{}: {}, CLGemm", step, result.label));
  {
    // The program cache empty for the first call (cold), holding its build for a new context's.
    const ScopedFolder cache("mqlcl-gemm-cache");
    const ScopedEnvironment cache_folder("MQLCL_PROGRAM_CACHE", cache.path().u8string());
    result.ours = product.run_library(bridge, device.ordinal, repeat);
  }
  progress.show(fmt::format("{}: {}, the anchor", step, result.label));
  result.anchor = anchor_for(device, GemmCase{product.shape(), c.precision}, *product.shape().a,
                             *product.shape().b, repeat);
  result.ours_checked = product.check(result.ours.product);
  result.anchor_checked = product.check(result.anchor.product);
  return result;
}

void print_case(const GemmCase &c, const CaseResult &r, const TextReport &say) {
  const GeneralGemm &g = c.shape;
  const double flops = 2.0 * g.m * g.n * g.k * g.batch;
  auto gflops = [&](const Samples &s) { return s.empty() ? 0.0 : flops / s.min() / 1e9; };
  if (!r.ours.ok) {
    say("  {:<34} unavailable: {}\n", r.label, r.ours.why_not);
    return;
  }
  std::string anchor = "-";
  if (r.anchor.available && !r.anchor.seconds.empty())
    anchor = fmt::format("{:10.1f} {:>5} {:9.2e} {:6.3f}x", gflops(r.anchor.seconds),
                         r.anchor_checked.verified ? "yes" : "NO", r.anchor_checked.error_ratio,
                         r.anchor.seconds.min() / r.ours.seconds.min());
  say("  {:<34} {:10.1f} {:9.2e} {:>5} {:7.3f} {:7.1f} {:9.3f}   {}\n", r.label,
      gflops(r.ours.seconds), r.ours_checked.error_ratio, r.ours_checked.verified ? "yes" : "NO",
      r.ours.first_call_seconds, r.ours.warm_first_call_seconds * 1e3, r.ours.seconds.min() * 1e3,
      anchor);
}

Json case_json(const GemmCase &c, const CaseResult &r) {
  const GeneralGemm &g = c.shape;
  const double flops = 2.0 * g.m * g.n * g.k * g.batch;
  Json node = {{"case", r.label},
               {"verified", r.ours.ok && r.ours_checked.verified},
               {"max_error_over_max_ref", r.ours_checked.error_ratio},
               {"first_call_s", r.ours.first_call_seconds},
               {"warm_first_call_s", r.ours.warm_first_call_seconds}};
  if (!r.ours.plan.empty())
    node["plan"] = r.ours.plan;
  if (!r.ours.passes.empty())
    node["passes"] = r.ours.passes;
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
    node["anchor"]["max_error_over_max_ref"] = r.anchor_checked.error_ratio;
    if (r.ours.ok && !r.ours.seconds.empty())
      node["ratio_to_anchor"] = r.anchor.seconds.min() / r.ours.seconds.min();
  }
  return node;
}

} // namespace

int run_gemm_command(const CommandLine &command) {
  Bridge bridge(find_library(command.library));
  Runner runner(bridge, find_kernels(command.kernels));
  DeviceInfo device = runner.probe_device(command.options.device);
  std::vector<uint32_t> sizes = command.bench_sizes;
  if (sizes.empty())
    sizes = device.type == "CPU" ? std::vector<uint32_t>{1000, 2000}
                                 : std::vector<uint32_t>{1000, 2000, 4096, 4097, 8192};
  const std::vector<GemmCase> all_cases =
      matching_cases(gemm_cases(sizes, device.type != "CPU", command.options.double_precision,
                                command.gemm_accurate),
                     command.gemm_cases);
  const uint32_t repeat = std::max<uint32_t>(command.options.repeat, 5);
  const TextReport say(command.format != Format::json);
  say("CLGemm on device {}: {} ({}, driver {}), {} calls per case after the first\n",
      device.ordinal, device.name, device.platform, device.driver, repeat);
  say("  (first call, C read included: cold with an empty program cache, warm on a new context "
      "with the cache holding its build; every C checked against an fp64 product by {})\n",
      fp64_product_name());
  say("  {:<34} {:>10} {:>9} {:>5} {:>7} {:>7} {:>9}   {}\n", "case", "GFLOPS", "error", "ok",
      "cold s", "warm ms", "ms", "anchor GFLOPS, verified, error, ratio (ours / anchor speed)");
  const std::string cache = environment("MQLCL_TUNE_CACHE");
  Json json = {
      {"device", {{"name", device.name}, {"driver", device.driver}, {"platform", device.platform}}},
      {"repeat", repeat},
      {"tuning_cache", cache},
      {"reference", fp64_product_name()}};
  Json cases = Json::array();
  bool all_verified = true;
  ProgressLine progress(stderr, command.format == Format::json);
  for (const GemmCase &c : all_cases) {
    CaseResult result =
        measure_case(bridge, device, c, repeat, progress,
                     fmt::format("case {} of {}", cases.size() + 1, all_cases.size()));
    progress.clear();
    print_case(c, result, say);
    all_verified = all_verified && result.ours.ok && result.ours_checked.verified;
    cases.push_back(case_json(c, result));
  }
  json["cases"] = std::move(cases);
  if (command.output) {
    write_json_file(*command.output, json);
    say("results written to {}\n", command.output->string());
  }
  if (!say.shown())
    fmt::print("{}\n", json_text(json, 4));
  return all_verified ? 0 : static_cast<int>(ExitCode::wrong_results);
}

} // namespace mqlcl::replay
