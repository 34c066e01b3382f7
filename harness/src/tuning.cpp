#include "tuning.hpp"

#include "error.hpp"

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace mqlcl::replay {

namespace pt = boost::property_tree;

namespace {

std::string environment(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string size_key(const Sizes &sizes) {
  return fmt::format("{}x{}x{}", sizes.rows1, sizes.colsrows, sizes.cols2);
}

pt::ptree read_cache(const std::filesystem::path &cache) {
  pt::ptree root;
  if (!std::filesystem::exists(cache))
    return root;
  try {
    pt::read_json(cache.string(), root);
  } catch (const pt::json_parser_error &error) {
    throw Error(ExitCode::bad_input,
                fmt::format("the tuning cache {} is not valid JSON ({}); delete it or point "
                            "MQLCL_TUNE_CACHE elsewhere",
                            cache.string(), error.what()));
  }
  return root;
}

// Property trees use '.' as the path separator; device names may contain dots.
pt::ptree::path_type key(const std::string &text) {
  return pt::ptree::path_type(text, '\x1f');
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
  pt::ptree root = read_cache(cache);
  auto device = root.get_child_optional(key(device_key));
  if (!device)
    return std::nullopt;
  auto tuned = device->get_child_optional(key(step));
  if (!tuned)
    return std::nullopt;
  const double volume = double(sizes.rows1) * sizes.colsrows * sizes.cols2;
  std::optional<TunedEntry> best;
  double best_distance = 0;
  for (const auto &[sizes_tuned, entry] : *tuned) {
    TunedEntry candidate;
    candidate.kernel_file = entry.get<std::string>("kernel_file", "");
    candidate.sizes = {entry.get<uint32_t>("rows1", 0), entry.get<uint32_t>("colsrows", 0),
                       entry.get<uint32_t>("cols2", 0)};
    candidate.gflops = entry.get<double>("gflops", 0);
    candidate.measured = entry.get<std::string>("measured", "");
    if (auto params = entry.get_child_optional("params"))
      for (const auto &[param, value] : *params)
        candidate.params[param] = value.get_value<int64_t>();
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
  pt::ptree root = read_cache(cache);
  pt::ptree record;
  record.put("kernel_file", entry.kernel_file);
  record.put("rows1", entry.sizes.rows1);
  record.put("colsrows", entry.sizes.colsrows);
  record.put("cols2", entry.sizes.cols2);
  record.put("gflops", entry.gflops);
  record.put("measured", entry.measured);
  pt::ptree params;
  for (const auto &[name, value] : entry.params)
    params.put(name, value);
  record.add_child("params", params);
  if (!root.get_child_optional(key(device_key)))
    root.put_child(key(device_key), pt::ptree());
  pt::ptree &device = root.get_child(key(device_key));
  if (!device.get_child_optional(key(step)))
    device.put_child(key(step), pt::ptree());
  device.get_child(key(step)).put_child(key(size_key(entry.sizes)), record);
  std::filesystem::create_directories(cache.parent_path().empty() ? "." : cache.parent_path());
  pt::write_json(cache.string(), root);
}

void store_device_facts(const std::filesystem::path &cache, const std::string &device_key,
                        uint32_t vendor_id, const std::string &architecture) {
  pt::ptree root = read_cache(cache);
  if (!root.get_child_optional(key(device_key)))
    return;
  pt::ptree &device = root.get_child(key(device_key));
  device.put(key("_device\x1fvendor_id"), fmt::format("0x{:04X}", vendor_id));
  device.put(key("_device\x1f"
                 "architecture"),
             architecture);
  pt::write_json(cache.string(), root);
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
    gpu.resolve = nullptr;
    families.push_back(gpu);
  }
  Step cpu = tuned;
  cpu.resolve = nullptr;
  families.push_back(cpu);
  return families;
}

Step resolve_tuned_step(const Step &tuned, const DeviceCaps &device, const Sizes &sizes) {
  std::vector<Step> families = tuned_families(tuned, device);
  std::filesystem::path cache = tuning_cache_path();
  if (auto entry = lookup_tuned(cache, device.tuning_key, tuned.name, sizes))
    for (Step &family : families)
      if (family.kernel_file == entry->kernel_file) {
        for (const auto &[name, value] : entry->params)
          family.params[name] = value;
        family.source =
            fmt::format("{}: kernels/{} as tuned for this device at {}x{}x{} ({:.1f} "
                        "GFLOPS, {}; cache {})",
                        tuned.source, family.kernel_file, entry->sizes.rows1, entry->sizes.colsrows,
                        entry->sizes.cols2, entry->gflops, entry->measured, cache.string());
        return family;
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

Step resolve_cached_step(const Step &step, const DeviceCaps &device, const Sizes &sizes) {
  Step chosen = step;
  chosen.resolve = nullptr;
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

std::vector<Step> tuning_families(const Step &step, const DeviceCaps &device) {
  if (step.resolve == resolve_tuned_step)
    return tuned_families(step, device);
  Step only = step;
  only.resolve = nullptr;
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
