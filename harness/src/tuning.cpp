#include "tuning.hpp"

#include "environment.hpp"
#include "error.hpp"

#include "json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace mqlcl::replay {

namespace {

std::string size_key(const Sizes &sizes) {
  return fmt::format("{}x{}x{}", sizes.rows1, sizes.colsrows, sizes.cols2);
}

Json read_cache(const std::filesystem::path &cache) {
  if (!std::filesystem::exists(cache))
    return Json::object();
  std::string why;
  std::optional<Json> root = try_read_json_file(cache, why);
  if (!root || !root->is_object())
    throw Error(ExitCode::bad_input,
                fmt::format("the tuning cache {} is not valid JSON ({}); delete it or point "
                            "MQLCL_TUNE_CACHE elsewhere",
                            cache.string(), root ? "not an object" : why));
  return std::move(*root);
}

void write_cache(const std::filesystem::path &cache, const Json &root) {
  std::filesystem::create_directories(cache.parent_path().empty() ? "." : cache.parent_path());
  write_json_file(cache, root);
}

// The object member `key` of `object`, or null when there is none.
const Json *member(const Json &object, const std::string &key) {
  if (!object.is_object())
    return nullptr;
  auto found = object.find(key);
  return found != object.end() && found->is_object() ? &*found : nullptr;
}

TunedEntry entry_of(const Json &entry) {
  TunedEntry candidate;
  candidate.kernel_file = json_string(entry, "kernel_file");
  candidate.sizes = {static_cast<uint32_t>(json_integer(entry, "rows1").value_or(0)),
                     static_cast<uint32_t>(json_integer(entry, "colsrows").value_or(0)),
                     static_cast<uint32_t>(json_integer(entry, "cols2").value_or(0))};
  candidate.gflops = json_number(entry, "gflops").value_or(0);
  candidate.measured = json_string(entry, "measured");
  if (const Json *params = member(entry, "params"))
    for (const auto &[param, value] : params->items())
      if (std::optional<int64_t> number = as_integer(value))
        candidate.params[param] = *number;
  return candidate;
}

} // namespace

std::filesystem::path tuning_cache_path() {
  if (std::string chosen = environment("MQLCL_TUNE_CACHE"); !chosen.empty())
    return chosen;
#ifdef _WIN32
  if (std::string local = environment("LOCALAPPDATA"); !local.empty())
    return std::filesystem::path(local) / "mqlcl" / "tuning.json";
#endif
  if (std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return std::filesystem::path(xdg) / "mqlcl" / "tuning.json";
  if (std::string home = environment("HOME"); !home.empty())
    return std::filesystem::path(home) / ".cache" / "mqlcl" / "tuning.json";
  return std::filesystem::path("mqlcl-tuning.json");
}

std::optional<TunedEntry> lookup_tuned(const std::filesystem::path &cache,
                                       const std::string &device_key, const std::string &step,
                                       const Sizes &sizes) {
  Json root = read_cache(cache);
  const Json *device = member(root, device_key);
  const Json *tuned = device != nullptr ? member(*device, step) : nullptr;
  if (tuned == nullptr)
    return std::nullopt;
  const double volume = double(sizes.rows1) * sizes.colsrows * sizes.cols2;
  std::optional<TunedEntry> best;
  double best_distance = 0;
  for (const auto &[sizes_tuned, entry] : tuned->items()) {
    TunedEntry candidate = entry_of(entry);
    double tuned_volume =
        double(candidate.sizes.rows1) * candidate.sizes.colsrows * candidate.sizes.cols2;
    if (candidate.kernel_file.empty() || tuned_volume <= 0)
      continue;
    double distance = std::fabs(std::log(tuned_volume / volume));
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

void store_tuned(const std::filesystem::path &cache, const std::string &device_key,
                 const std::string &step, const TunedEntry &entry) {
  Json root = read_cache(cache);
  Json record = {{"kernel_file", entry.kernel_file}, {"rows1", entry.sizes.rows1},
                 {"colsrows", entry.sizes.colsrows}, {"cols2", entry.sizes.cols2},
                 {"gflops", entry.gflops},           {"measured", entry.measured},
                 {"params", Json::object()}};
  for (const auto &[name, value] : entry.params)
    record["params"][name] = value;
  Json &device = root[device_key];
  if (!device.is_object())
    device = Json::object();
  Json &tuned = device[step];
  if (!tuned.is_object())
    tuned = Json::object();
  tuned[size_key(entry.sizes)] = std::move(record);
  write_cache(cache, root);
}

void store_device_facts(const std::filesystem::path &cache, const std::string &device_key,
                        uint32_t vendor_id, const std::string &architecture) {
  Json root = read_cache(cache);
  if (member(root, device_key) == nullptr)
    return;
  root[device_key]["_device"] = {{"vendor_id", fmt::format("0x{:04X}", vendor_id)},
                                 {"architecture", architecture}};
  write_cache(cache, root);
}

std::vector<Step> tuned_families(const Step &tuned, const DeviceCaps &device) {
  std::vector<Step> families;
  if (device.dedicated_local_memory) {
    const Step *tiles = find_step(replay_steps(), "matr_mul_double_buffered");
    Step gpu = tuned;
    gpu.kernel_file = tiles->kernel_file;
    gpu.geometry = tiles->geometry;
    gpu.params = tiles->params;
    gpu.tunables = tiles->tunables;
    gpu.form_tunables = tiles->form_tunables;
    gpu.layout_tunables = tiles->layout_tunables;
    gpu.params_valid = tiles->params_valid;
    gpu.tuning = DeviceTuning::none;
    families.push_back(gpu);
  }
  Step cpu = tuned;
  cpu.tuning = DeviceTuning::none;
  families.push_back(cpu);
  return families;
}

namespace {

// The family of `families` whose kernel is `kernel_file`, with `params` over its own; nullptr
// where none is.
Step *family_with(std::vector<Step> &families, const std::string &kernel_file,
                  const Params &params) {
  for (Step &family : families)
    if (family.kernel_file == kernel_file) {
      for (const auto &[name, value] : params)
        family.params[name] = value;
      return &family;
    }
  return nullptr;
}

Step tuned_for_device(const Step &tuned, const DeviceCaps &device, const Sizes &sizes,
                      const LibraryPlanSource &library) {
  std::vector<Step> families = tuned_families(tuned, device);
  std::filesystem::path cache = tuning_cache_path();
  if (auto entry = lookup_tuned(cache, device.tuning_key, tuned.name, sizes))
    if (Step *family = family_with(families, entry->kernel_file, entry->params)) {
      family->source =
          fmt::format("{}: kernels/{} as tuned for this device at {}x{}x{} ({:.1f} "
                      "GFLOPS, {}; cache {})",
                      tuned.source, family->kernel_file, entry->sizes.rows1, entry->sizes.colsrows,
                      entry->sizes.cols2, entry->gflops, entry->measured, cache.string());
      return *family;
    }
  // Not tuned here: the set the library's CLGemm runs for this product, which its compiled
  // database holds for the device (or its architecture), so the step is fast out of the box.
  if (std::optional<LibraryPlan> plan = library ? library() : std::nullopt)
    if (Step *family = family_with(families, plan->kernel_file, plan->params)) {
      family->source = fmt::format("{}: kernels/{} as the library's CLGemm runs it ({})",
                                   tuned.source, family->kernel_file, plan->origin);
      return *family;
    }
  // Untuned: tiles where local memory is dedicated (smaller ones when a 128 x 128 grid would
  // leave compute units idle), the register-blocked CPU form elsewhere.
  Step chosen = families.front();
  if (device.dedicated_local_memory) {
    uint64_t tiles = uint64_t{(sizes.rows1 + 127) / 128} * ((sizes.cols2 + 127) / 128);
    if (tiles < 2ull * device.compute_units) { // 64 x 64 tiles: 8 x 8 work-items, 4 x 8 warps
      chosen.params["BM"] = chosen.params["BN"] = 64;
      chosen.params["WARP_ROWS"] = 4;
    }
  }
  chosen.source = fmt::format("{}: kernels/{} with untuned defaults (run mqlcl-replay tune {})",
                              tuned.source, chosen.kernel_file, tuned.name);
  return chosen;
}

Step cached_for_device(const Step &step, const DeviceCaps &device, const Sizes &sizes) {
  Step chosen = step;
  chosen.tuning = DeviceTuning::none;
  std::filesystem::path cache = tuning_cache_path();
  if (auto entry = lookup_tuned(cache, device.tuning_key, step.name, sizes)) {
    for (const auto &[name, value] : entry->params)
      chosen.params[name] = value;
    chosen.source =
        fmt::format("{} (parameters tuned for this device at {}x{}x{}, cache {})", step.source,
                    entry->sizes.rows1, entry->sizes.colsrows, entry->sizes.cols2, cache.string());
  }
  return chosen;
}

} // namespace

Step for_device(const Step &step, const DeviceCaps &device, const Sizes &sizes,
                const LibraryPlanSource &library) {
  switch (step.tuning) {
  case DeviceTuning::families:
    return tuned_for_device(step, device, sizes, library);
  case DeviceTuning::cached:
    return cached_for_device(step, device, sizes);
  case DeviceTuning::none:
    break;
  }
  return step;
}

std::vector<Step> tuning_families(const Step &step, const DeviceCaps &device) {
  if (step.tuning == DeviceTuning::families)
    return tuned_families(step, device);
  Step only = step;
  only.tuning = DeviceTuning::none;
  return {only};
}

std::vector<Params> candidate_params(const Step &step, const DeviceCaps &device) {
  std::vector<Params> all{step.params};
  for (const Tunable &tunable : step.tunables) {
    std::vector<Params> next;
    for (const Params &partial : all)
      for (int64_t value : tunable.values) {
        Params with = partial;
        with[tunable.name] = value;
        next.push_back(std::move(with));
      }
    all = std::move(next);
  }
  std::vector<Params> valid;
  for (Params &params : all)
    if (step.params_valid == nullptr || step.params_valid(params, device))
      valid.push_back(std::move(params));
  return valid;
}

namespace {

std::vector<Params> variants_of(const Step &step, const Params &base,
                                const std::vector<Tunable> &tunables, const DeviceCaps &device) {
  Step varied = step;
  varied.params = base;
  varied.tunables = tunables;
  std::vector<Params> variants;
  if (tunables.empty())
    return variants;
  for (Params &params : candidate_params(varied, device))
    if (params != base)
      variants.push_back(std::move(params));
  return variants;
}

} // namespace

std::vector<Params> form_variants(const Step &step, const Params &base, const DeviceCaps &device) {
  return variants_of(step, base, step.form_tunables, device);
}

std::vector<Params> layout_variants(const Step &step, const Params &base,
                                    const DeviceCaps &device) {
  return variants_of(step, base, step.layout_tunables, device);
}

} // namespace mqlcl::replay
