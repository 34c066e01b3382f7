// `mqlcl-replay tune STEP --gemm LAYOUT`: the library's CLGemm tuned in place on the device at
// hand, for one shape (--size, --rows1/--colsrows/--cols2) and layout. It starts from the set
// CLGemm runs there today (the library's planner, called directly: the user's tuning file's, the
// database's or the defaults), then tries each tunable of the step's kernel at its other values,
// one parameter at a time, keeping a change only where the product verifies and is faster, and goes
// round again until a round keeps nothing; likewise from the database's own set for the shape
// (which the tuning cache's set of the shape hides), the database's set for it on each other device
// of the architecture and the sets CLGemm runs for the shape's other layouts (gemm_tune_starts); on
// step 13's and step 19's kernels, where an operand has K down its rows, each once copying it first
// and once reading it as it is (COPY; for TN also one of the two alone). Every start is timed
// first, the descents fastest start first. Each trial is a fresh context whose tuning cache holds
// that one set (MQLCL_TUNE_CACHE, for the trial only), so the product is built and run exactly as
// an MQL5 program's would be. The winner goes into the user's tuning cache, which CLGemm searches
// beside its database (the cache's first at a tie) and `gemm-database` turns into the compiled
// database. With --double, the double product is tuned (kept as "matr_mul_tuned double LAYOUT"),
// from its own set and the FP32 one's; on a device with FP64 tensor cores, CLGemm's double product
// there, step 19's (kept as "matr_mul_dmma double LAYOUT"). With --accurate, the Ozaki scheme
// (MQLCL_GEMM_ACCURATE), double's with --double, else float's: its integer products' set tuned as
// the whole scheme runs, then the best timed against the product it would stand in for (FP64's own,
// or float ACCURATE's without the scheme), and kept (as "wgmma_int8 double LAYOUT" or "wgmma_int8
// LAYOUT", or the form the device runs) with UNASKED 1 where the scheme was the faster: CLGemm then
// takes it unasked from that shape up (bridge/src/gemm/ozaki.hpp).
#include "commands.hpp"
#include "environment.hpp"

#include "error.hpp"
#include "gemm_product.hpp"
#include "paths.hpp"
#include "plan_queries.hpp"
#include "progress.hpp"
#include "scoped_environment.hpp"
#include "tuning.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <set>

namespace mqlcl::replay {

namespace {

// A change is kept when it is this much faster: less is within the noise of a few runs.
constexpr double kKeepBelow = 0.995;
// Rounds over every tunable at most, however many keep a change.
constexpr int kMaxRounds = 3;

// The product each tuned step's parameters run in.
int32_t precision_of(const std::string &step) {
  if (step == "matr_mul_wgmma_tma_tf32")
    return MQLCL_GEMM_TF32;
  if (step == "matr_mul_wgmma_tma_3xtf32")
    return MQLCL_GEMM_ACCURATE;
  return MQLCL_GEMM_EXACT;
}

gemm::Shape shape_of(const GeneralGemm &g) {
  return {g.m, g.n, g.k, g.batch, g.double_precision ? sizeof(double) : sizeof(float)};
}

std::string layout_of(const GeneralGemm &g) {
  return {g.transpose_a ? 'T' : 'N', g.transpose_b ? 'T' : 'N'};
}

gemm::Element element_of(const GeneralGemm &g) {
  return g.double_precision ? gemm::Element::float64 : gemm::Element::float32;
}

struct GemmTuner {
  GemmTuner(const Bridge &bridge_, const DeviceInfo &device_, gemm::Family form_,
            const Step &family_, TunedEntry of_sets_, const GemmProduct &product_, uint32_t repeat_,
            std::filesystem::path trial_cache_)
      : bridge(bridge_), device(device_), form(form_), family(family_),
        of_sets(std::move(of_sets_)), product(product_), repeat(repeat_),
        trial_cache(std::move(trial_cache_)) {}

  const Bridge &bridge;
  const DeviceInfo &device;
  gemm::Family form;  // the kernel form CLGemm runs the trials' sets in
  const Step &family; // the catalogue's step of that kernel: its tunables and rules
  TunedEntry of_sets; // the trials' device, step, element type, layout and sizes
  const GemmProduct &product;
  uint32_t repeat;
  std::filesystem::path trial_cache;
  size_t trials = 0;
  size_t max_trials = std::numeric_limits<size_t>::max(); // tune --trials
  bool scheme = false; // the Ozaki scheme's integer products, whose plan says more than the set
  // Written into each trial's cache beside its set: float ACCURATE's tuned product keeps the
  // Ozaki scheme out with the scheme's set of the shape at UNASKED 0 (scheme_declined).
  std::optional<TunedEntry> beside;
  // 3xTF32's trials: each trial's set says EXACT_FASTER 0 in its cache, so that CLGemm runs it
  // whatever the database says of the FP32 product at this shape (exact_product_faster).
  bool says_exact_slower = false;
  std::set<Params> tried;
  ProgressLine progress{stderr, false}; // each trial on a terminal; a pipe gets the summary

  // `params` as CL_GEMM_PLAN begins when CLGemm runs them: the form's kernel, the set over the
  // form's defaults.
  std::string set_text(const Params &params) const {
    gemm::Plan plan;
    plan.family = form;
    plan.params = gemm::over_defaults(gemm::form_of(form), params);
    return plan_set_text(plan);
  }

  // Whether a run whose CL_GEMM_PLAN is `plan` took `params`: the scheme's plan names its moduli
  // and bits before the set, so there every NAME=value of the set is looked for.
  bool takes(const std::string &plan, const Params &params) const {
    if (!scheme)
      return plan.substr(0, plan.rfind(" (")) == set_text(params);
    const std::string named = plan.substr(0, plan.find(" (")) + " ";
    for (const auto &[name, value] : gemm::over_defaults(gemm::form_of(form), params))
      if (named.find(fmt::format(" {}={} ", name, value)) == std::string::npos)
        return false;
    return true;
  }

  // The product with `params` (none: as CLGemm runs it now); its best time, or none.
  std::optional<double> run(const std::optional<Params> &params, std::string *plan = nullptr) {
    if (trials == max_trials)
      return std::nullopt;
    std::optional<ScopedEnvironment> cache;
    if (params) {
      std::filesystem::remove(trial_cache);
      TunedEntry entry = of_sets;
      entry.kernel_file = gemm::kernel_file_of(form);
      entry.params = *params;
      if (says_exact_slower)
        entry.params[gemm::kExactFasterParam] = 0;
      gemm::write_tuned(trial_cache.string(), entry);
      if (beside)
        gemm::write_tuned(trial_cache.string(), *beside);
      cache.emplace("MQLCL_TUNE_CACHE", trial_cache.string());
      tried.insert(*params);
    }
    ScopedEnvironment no_program_cache("MQLCL_PROGRAM_CACHE", "off");
    // The set's tiles over the whole product: where CLGemm runs thin edges apart, a set of the
    // call's shape only says where the block of whole tiles ends, and the block runs its own.
    ScopedEnvironment edges_in_tiles("MQLCL_GEMM_EDGES", "tiles");
    LibraryRun run = product.run_library(bridge, device.ordinal, repeat);
    // A set CLGemm did not take (its tiles do not fit at this element size) ran another's.
    if (params && run.ok && !takes(run.plan, *params)) {
      run.ok = false;
      run.why_not = "not taken: CLGemm ran " + run.plan;
    }
    Checked checked = product.check(run.product);
    ++trials;
    if (plan != nullptr)
      *plan = run.plan;
    std::string outcome =
        !run.ok ? "failed: " + run.why_not.substr(0, 60)
        : !checked.verified
            ? "WRONG RESULTS"
            : fmt::format("{:.2f} GFLOPS", product.flops() / run.seconds.min() / 1e9);
    std::string line =
        fmt::format("tune: [{}] {}: {}", trials, run.plan.substr(0, run.plan.find(" (")), outcome);
    if (run.ok && !checked.verified) // a kernel bug, not a set that did not fit: kept
      progress.print(stderr, line);
    progress.show(line);
    if (!run.ok || !checked.verified || run.seconds.empty())
      return std::nullopt;
    return run.seconds.min();
  }
};

// Every tunable of the family.
std::vector<Tunable> tunables_of(const Step &family) {
  std::vector<Tunable> all = family.tunables;
  all.insert(all.end(), family.form_tunables.begin(), family.form_tunables.end());
  all.insert(all.end(), family.layout_tunables.begin(), family.layout_tunables.end());
  return all;
}

// A set as a start for `shape`: on step 13's and step 19's kernels, where an operand has K down
// its rows, the set both copying it first and reading it as it is (COPY 1 and 0), since each way
// has its own best tiles (on an H100, 4096 x 4096 x 512 TN: 8-deep slices read directly; on an
// H200, step 19's NN at 4096: 4 stages fit twice per SM only with B read as stored); where both
// have (TN), also copying A's only (2: the product runs as NN, in NN's set's tiles) and B's only
// (3); elsewhere without COPY.
std::vector<Params> starting_sets(const Step &family, const GeneralGemm &shape, Params set) {
  const bool k_down = shape.transpose_a || !shape.transpose_b;
  if ((family.kernel_file != "matr_mul_double_buffered.cl" &&
       family.kernel_file != "matr_mul_dmma.cl") ||
      !k_down) {
    set.erase(gemm::kCopyParam);
    return {set};
  }
  std::vector<int64_t> copies = {gemm::kCopyBoth, gemm::kCopyNone};
  if (shape.transpose_a && !shape.transpose_b)
    copies.insert(copies.end(), {gemm::kCopyA, gemm::kCopyB});
  std::vector<Params> starts;
  for (int64_t copy : copies) {
    starts.push_back(set);
    starts.back()[gemm::kCopyParam] = copy;
  }
  return starts;
}

struct Found {
  Params params;
  double seconds = 0;
};

// Whether CLGemm can run `set` on the device: the step's rules, but for COPY (the host's) and
// B_MN (only CLGemm's build of the kernel has it: the form's own rules judge it).
bool valid_for_gemm(const GemmTuner &tuner, const Params &set) {
  Params kernel_params = set;
  kernel_params.erase(gemm::kCopyParam);
  if (kernel_params.count("B_MN") != 0 &&
      !gemm::form_of(tuner.form).valid(kernel_params, limits_of(tuner.device.caps), sizeof(float)))
    return false;
  Params judged = kernel_params;
  judged.erase("B_MN");
  return tuner.family.params_valid == nullptr ||
         tuner.family.params_valid(judged, tuner.device.caps);
}

// One parameter at a time from `start`, keeping what is faster, until a round keeps nothing;
// `start` was measured already where `measured` says so (none where another descent tried it).
std::optional<Found> descend(GemmTuner &tuner, const Params &start,
                             std::optional<double> measured) {
  std::optional<double> seconds =
      tuner.tried.count(start) != 0 ? measured : tuner.run(std::optional<Params>(start));
  if (!seconds)
    return std::nullopt;
  Found best{start, *seconds};
  const std::vector<Tunable> tunables = tunables_of(tuner.family);
  for (int round = 0; round < kMaxRounds; ++round) {
    bool kept = false;
    for (const Tunable &tunable : tunables)
      for (int64_t value : tunable.values) {
        Params candidate = best.params;
        candidate[tunable.name] = value;
        if (tuner.tried.count(candidate) != 0 || !valid_for_gemm(tuner, candidate))
          continue;
        std::optional<double> time = tuner.run(candidate);
        if (time && *time < best.seconds * kKeepBelow) {
          best = Found{candidate, *time};
          kept = true;
        }
      }
    if (!kept)
      break;
  }
  return best;
}

// The devices other than `device` of its vendor and architecture whose sets the compiled database
// holds, each once; none where the architecture is unknown, as CLGemm's lookup counts no set of
// another device there (tuning_file.cpp, candidates).
std::vector<std::string> sibling_devices(const DeviceCaps &device) {
  std::vector<std::string> names;
  if (device.architecture.empty())
    return names;
  for (const gemm::TunedEntry &entry : gemm::compiled_entries())
    if (entry.vendor_id == device.vendor_id && entry.architecture == device.architecture &&
        entry.device != device.device_name &&
        std::find(names.begin(), names.end(), entry.device) == names.end())
      names.push_back(entry.device);
  return names;
}

// The set the database holds for the product itself, which the tuning cache's set of this shape (or
// of a nearer one) hides: a tune that started from that one only could end below the database's own
// (a 1000 TN tune from 2000's set, when the cache was searched first, did); the set it gives the
// product on each other device of this architecture, which this device's own sets hide (on an
// H100, FP32 TN at 2000 ran at 0.94x cuBLAS in the H200's set against 0.92x in its own, step 19's
// NN at 8192 at 0.97x against 0.95x); and the sets CLGemm runs for the product's other layouts, of
// `family`'s kernel: their tiles may suit this one too (an H100 at 4096: NN read as stored in NT's
// 128 x 128 x 16 tiles ran at 36.5 TFLOP/s, and its descent ended at 51.5 against 49.6 from NN's
// own 64 x 128 x 8 set); for a double product the set the FP32 product of its layout runs too,
// whose code forms carry over where one parameter at a time from the defaults stops short (4096:
// 21.5 TFLOP/s with the FP32 set's forms, 18.6 with the defaults).
std::vector<Params> other_sets(const DeviceInfo &device, const Step &family,
                               const GemmProduct &product) {
  const GeneralGemm &shape = product.shape();
  std::vector<GeneralGemm> others;
  if (shape.double_precision) {
    others.push_back(shape);
    others.back().double_precision = false;
  }
  for (bool transpose_a : {false, true})
    for (bool transpose_b : {false, true})
      if (transpose_a != shape.transpose_a || transpose_b != shape.transpose_b) {
        others.push_back(shape);
        others.back().transpose_a = transpose_a;
        others.back().transpose_b = transpose_b;
      }
  std::vector<Params> sets;
  const gemm::Plan database =
      planned_product(device.caps, shape_of(shape), layout_of(shape), product.precision(),
                      gemm::forced_family(environment), TunedSources::database);
  if (gemm::kernel_file_of(database.family) == family.kernel_file)
    sets.push_back(database.params);
  for (const std::string &name : sibling_devices(device.caps)) {
    DeviceCaps sibling = device.caps;
    sibling.device_name = name;
    const gemm::Plan plan =
        planned_product(sibling, shape_of(shape), layout_of(shape), product.precision(),
                        gemm::forced_family(environment), TunedSources::database);
    if (gemm::kernel_file_of(plan.family) == family.kernel_file)
      sets.push_back(plan.params);
  }
  for (const GeneralGemm &other : others) {
    const gemm::Plan plan = planned_product(device.caps, shape_of(other), layout_of(other),
                                            product.precision(), gemm::forced_family(environment));
    if (gemm::kernel_file_of(plan.family) == family.kernel_file)
      sets.push_back(plan.params);
  }
  return sets;
}

// The step whose tunables and rules the trials follow: the family of `families` that runs the
// plan's kernel, else the catalogue's step of the plan's form (step 19's, where CLGemm runs the
// double product on FP64 tensor cores in place of step 14's families).
const Step &family_of(const std::vector<Step> &families, const std::vector<Step> &catalogue,
                      gemm::Family form) {
  const std::string kernel_file = gemm::kernel_file_of(form);
  for (const Step &family : families)
    if (family.kernel_file == kernel_file)
      return family;
  if (const Step *step = find_step(catalogue, gemm::step_of(form));
      step != nullptr && step->kernel_file == kernel_file)
    return *step;
  throw Error(ExitCode::bad_input,
              fmt::format("CLGemm ran kernels/{}, which this step does not tune", kernel_file));
}

} // namespace

std::vector<Params> gemm_tune_starts(const DeviceInfo &device, const Step &family,
                                     const GemmProduct &product, const Params &running) {
  std::vector<Params> sets{running};
  for (Params &set : other_sets(device, family, product))
    sets.push_back(std::move(set));
  std::vector<Params> starts;
  for (const Params &set : sets)
    for (const Params &start : starting_sets(family, product.shape(), set))
      if (std::find(starts.begin(), starts.end(), start) == starts.end())
        starts.push_back(start);
  return starts;
}

namespace {

// Every start timed once, fastest first: a tune bounded by --trials descends from the most
// promising start first instead of spending its trials on the first start's descent.
std::vector<Found> measured_starts(GemmTuner &tuner, const GemmProduct &product,
                                   const Params &running, double running_seconds) {
  std::vector<Found> starts;
  for (const Params &from : gemm_tune_starts(tuner.device, tuner.family, product, running)) {
    const std::optional<double> seconds =
        from == running ? std::optional(running_seconds) : tuner.run(from);
    if (seconds)
      starts.push_back(Found{from, *seconds});
  }
  std::stable_sort(starts.begin(), starts.end(),
                   [](const Found &x, const Found &y) { return x.seconds < y.seconds; });
  return starts;
}

// The scheme's set CLGemm runs for the product now (the tuning file's, the database's, else the
// form's defaults), without UNASKED, the host's.
Params scheme_set_now(const DeviceInfo &device, gemm::Family form, const GeneralGemm &shape) {
  const std::optional<gemm::Tuned> tuned =
      gemm::find_tuned(tuned_sets(), gemm::compiled_entries(), facts_of(device.caps), shape.m,
                       shape.n, shape.k, gemm::step_of(form), element_of(shape), layout_of(shape));
  const gemm::Form &products = gemm::form_of(form);
  if (tuned)
    if (std::optional<Params> set =
            gemm::scheme_set(products, tuned->entry, limits_of(device.caps)))
      return *set;
  return gemm::defaults_of(products);
}

// The scheme's integer products tuned one parameter at a time from the set it runs now and from
// the form's defaults, fastest start first, each trial the whole scheme (MQLCL_GEMM_KERNEL=ozaki).
std::optional<Found> tune_scheme_set(GemmTuner &tuner, const Params &now) {
  ScopedEnvironment scheme("MQLCL_GEMM_KERNEL", "ozaki");
  std::vector<Found> starts;
  for (const Params &from : {now, gemm::defaults_of(gemm::form_of(tuner.form))})
    if (tuner.tried.count(from) == 0)
      if (const std::optional<double> seconds = tuner.run(from))
        starts.push_back(Found{from, *seconds});
  std::stable_sort(starts.begin(), starts.end(),
                   [](const Found &x, const Found &y) { return x.seconds < y.seconds; });
  std::optional<Found> best;
  for (const Found &from : starts)
    if (std::optional<Found> found = descend(tuner, from.params, from.seconds))
      if (!best || found->seconds < best->seconds)
        best = found;
  return best;
}

// The scheme's `set` for a shape (`of_scheme`: its device, step, element, layout and sizes) at
// UNASKED 0: in a tuning cache it keeps the scheme from standing in for float ACCURATE's own
// product of that shape, whatever the database says of the scheme.
TunedEntry scheme_declined(TunedEntry of_scheme, gemm::Family form, Params set) {
  of_scheme.kernel_file = gemm::kernel_file_of(form);
  set[gemm::kUnaskedParam] = 0;
  of_scheme.params = std::move(set);
  return of_scheme;
}

// CLGemm's product of the tuner's shape in `precision` as it runs it now, verified: its best time
// and plan.
std::pair<double, std::string> timed_product(const GemmTuner &tuner, int32_t precision,
                                             const char *name) {
  const GemmProduct product(tuner.product.shape(), precision);
  LibraryRun run = product.run_library(tuner.bridge, tuner.device.ordinal, tuner.repeat);
  if (!run.ok || run.seconds.empty())
    throw Error(ExitCode::bridge_failure,
                fmt::format("CLGemm's {} product did not run: {}", name, run.why_not));
  if (!product.check(run.product).verified)
    throw Error(ExitCode::wrong_results,
                fmt::format("CLGemm's {} product did not verify: {}", name, run.plan));
  return {run.seconds.min(), run.plan};
}

// CLGemm's product of the shape that the scheme stands in for, verified: its best time and plan.
// Double: FP64's own (MQLCL_GEMM_EXACT, as ACCURATE runs where the scheme is not taken). Float:
// MQLCL_GEMM_ACCURATE with the scheme's set of the shape at UNASKED 0 in the tuning cache, so
// that it runs what it runs where the scheme is not taken (3xTF32 on Hopper), whatever the
// database says of the scheme.
std::pair<double, std::string> rival_product_time(const GemmTuner &tuner, const Params &set) {
  const GeneralGemm &shape = tuner.product.shape();
  const bool fp64 = shape.double_precision;
  std::optional<ScopedEnvironment> cache;
  if (!fp64) {
    std::filesystem::remove(tuner.trial_cache);
    gemm::write_tuned(tuner.trial_cache.string(), scheme_declined(tuner.of_sets, tuner.form, set));
    cache.emplace("MQLCL_TUNE_CACHE", tuner.trial_cache.string());
  }
  return timed_product(tuner, fp64 ? MQLCL_GEMM_EXACT : MQLCL_GEMM_ACCURATE,
                       fp64 ? "FP64" : "float ACCURATE");
}

// tune --gemm LAYOUT [--double] --accurate.
int run_scheme_tune(const CommandLine &command, const Bridge &bridge, const DeviceInfo &device,
                    const GeneralGemm &shape) {
  const gemm::Family form = gemm::scheme_form(limits_of(device.caps));
  const Step family = form_step(form);
  const GemmProduct product(shape, MQLCL_GEMM_ACCURATE);
  const char *rival = shape.double_precision ? "the FP64 product" : "the float product";
  fmt::print("tuning CLGemm's Ozaki scheme ({}) on device {}: {} ({}), {}, one parameter at a "
             "time, then against {}\n",
             family.name, device.ordinal, device.name, device.driver, product.label(), rival);
  std::fflush(stdout); // before the trials' progress on stderr
  TunedEntry of_sets = tuned_entry(device.caps, family.name, command.options.sizes);
  of_sets.element = element_of(shape);
  of_sets.layout = layout_of(shape);
  GemmTuner tuner(bridge, device, form, family, of_sets, product,
                  std::max(command.options.repeat, 5u),
                  std::filesystem::temp_directory_path() /
                      fmt::format("mqlcl-tune-scheme-{}.json", std::random_device{}()));
  tuner.scheme = true;
  tuner.max_trials = command.max_trials.value_or(tuner.max_trials);
  const std::optional<Found> best = tune_scheme_set(tuner, scheme_set_now(device, form, shape));
  std::filesystem::remove(tuner.trial_cache);
  tuner.progress.clear();
  if (!best)
    throw Error(ExitCode::bridge_failure, "the Ozaki scheme did not run and verify with any set");
  const auto [rival_seconds, rival_plan] = rival_product_time(tuner, best->params);
  std::filesystem::remove(tuner.trial_cache);
  const bool faster = best->seconds < rival_seconds * kKeepBelow;
  const double gflops = product.flops() / best->seconds / 1e9;
  fmt::print("\n{} trials; the scheme at {:.2f} GFLOPS:\n  {}\n{} at {:.2f} GFLOPS ({})\nthe "
             "scheme {:.3f}x {}'s speed: UNASKED={}\n",
             tuner.trials, gflops, params_text(best->params), rival,
             product.flops() / rival_seconds / 1e9, rival_plan, rival_seconds / best->seconds,
             rival, faster ? 1 : 0);
  TunedEntry entry = of_sets;
  entry.kernel_file = family.kernel_file;
  entry.params = best->params;
  entry.params[gemm::kUnaskedParam] = faster ? 1 : 0;
  entry.gflops = gflops;
  entry.measured = utc_now();
  cache_tuned(entry);
  return 0;
}

// 3xTF32's tuned set against the FP32 product of the shape (MQLCL_GEMM_EXACT's, as CLGemm runs
// it now): EXACT_FASTER 1 where the FP32 product is the faster, so that float ACCURATE runs it
// there (exact_product_faster).
void judge_exact_product(const GemmTuner &tuner, double seconds, Params &set) {
  const auto [exact_seconds, exact_plan] = timed_product(tuner, MQLCL_GEMM_EXACT, "FP32");
  const bool faster = exact_seconds < seconds * kKeepBelow;
  fmt::print("the FP32 product at {:.2f} GFLOPS ({}): 3xTF32 {:.3f}x its speed: {}={}\n",
             tuner.product.flops() / exact_seconds / 1e9, exact_plan, exact_seconds / seconds,
             gemm::kExactFasterParam, faster ? 1 : 0);
  set[gemm::kExactFasterParam] = faster ? 1 : 0;
}

} // namespace

int run_gemm_tune_command(const CommandLine &command, const std::vector<Step> &catalogue) {
  const Step &step = *find_step(catalogue, command.steps.front());
  Bridge bridge(find_library(command.library));
  Runner runner(bridge, find_kernels(command.kernels));
  DeviceInfo device = runner.probe_device(command.options.device);
  const Sizes &sizes = command.options.sizes;
  const std::string &layout = *command.gemm_layout;
  const bool double_precision = command.options.double_precision;
  const GeneralGemm shape{sizes.rows1,      sizes.cols2,      sizes.colsrows,  1,
                          layout[0] == 'T', layout[1] == 'T', double_precision};
  if (command.gemm_accurate)
    return run_scheme_tune(command, bridge, device, shape);
  const GemmProduct product(shape, precision_of(step.name));
  fmt::print("tuning CLGemm's {} on device {}: {} ({}), {}, one parameter at a time\n", step.name,
             device.ordinal, device.name, device.driver, product.label());
  std::fflush(stdout); // before the trials' progress on stderr
  const gemm::Plan plan =
      planned_product(device.caps, shape_of(product.shape()), layout, product.precision(),
                      gemm::forced_family(environment)); // as CLGemm plans under MQLCL_GEMM_KERNEL
  TunedEntry of_sets = tuned_entry(device.caps, gemm::step_of(plan.family), sizes);
  of_sets.element = element_of(shape);
  of_sets.layout = layout;
  DeviceCaps either_memory = device.caps; // MQLCL_GEMM_KERNEL=tiles runs step 13's on any device
  either_memory.dedicated_local_memory = true;
  const std::vector<Step> families = tuning_families(step, either_memory);
  GemmTuner tuner(bridge, device, plan.family, family_of(families, catalogue, plan.family), of_sets,
                  product, std::max(command.options.repeat, 5u),
                  std::filesystem::temp_directory_path() /
                      fmt::format("mqlcl-tune-gemm-{}.json", std::random_device{}()));
  tuner.max_trials = command.max_trials.value_or(tuner.max_trials);
  if (product.precision() == MQLCL_GEMM_ACCURATE && !double_precision) {
    // Where a set of the Ozaki scheme says UNASKED 1 (an H100 at 4096 TN), CLGemm would run the
    // scheme in place of the product tuned: each trial, the start too, declines it.
    const gemm::Family scheme = gemm::scheme_form(limits_of(device.caps));
    TunedEntry of_scheme = tuned_entry(device.caps, form_step(scheme).name, sizes);
    of_scheme.element = element_of(shape);
    of_scheme.layout = layout;
    tuner.beside = scheme_declined(of_scheme, scheme, scheme_set_now(device, scheme, shape));
    tuner.says_exact_slower = plan.family == gemm::Family::tensor_3xtf32;
  }
  std::string ran;
  std::optional<double> start =
      tuner.run(tuner.beside ? std::optional<Params>(plan.params) : std::nullopt, &ran);
  if (!start)
    throw Error(ExitCode::bridge_failure, "CLGemm did not run and verify with its own plan");
  if (ran.substr(0, ran.rfind(" (")) != plan_set_text(plan))
    throw Error(ExitCode::bridge_failure,
                fmt::format("CLGemm ran {}, not the planner's {}", ran, gemm::plan_text(plan)));
  if (tuner.beside) // it ran from the trial's cache: the plan says where the set came from
    ran = gemm::plan_text(plan);
  tuner.tried.insert(plan.params);
  Found best{plan.params, *start};
  for (const Found &from : measured_starts(tuner, product, plan.params, *start))
    if (std::optional<Found> found = descend(tuner, from.params, from.seconds))
      if (found->seconds < best.seconds)
        best = *found;
  std::filesystem::remove(tuner.trial_cache);
  tuner.progress.clear();

  const double gflops = product.flops() / best.seconds / 1e9;
  fmt::print("\n{} trials; from {} ({:.2f} GFLOPS) to {:.2f} GFLOPS:\n  {}\n", tuner.trials, ran,
             product.flops() / *start / 1e9, gflops, params_text(best.params));
  TunedEntry entry = of_sets;
  entry.kernel_file = gemm::kernel_file_of(plan.family);
  entry.params = best.params;
  if (tuner.says_exact_slower)
    judge_exact_product(tuner, best.seconds, entry.params);
  entry.gflops = gflops;
  entry.measured = utc_now();
  cache_tuned(entry); // CLGemm's set for this layout
  return 0;
}

} // namespace mqlcl::replay
