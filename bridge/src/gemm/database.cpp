#include "gemm/database.hpp"

#include "devices.hpp"
#include "os_library.hpp"

// Boost 1.74's property_tree includes boost/bind.hpp, which asks for this to stay quiet.
#define BOOST_BIND_GLOBAL_PLACEHOLDERS
#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mqlcl::gemm {

namespace {

struct CompiledEntry {
  uint32_t vendor_id;
  const char *architecture;
  const char *device;
  const char *form;
  uint32_t m, n, k;
  const char *kernel_file;
  const char *params;
};

const CompiledEntry kCompiled[] = {
#include "gemm/database.inc"
};

bool whole_tiles(uint32_t m, uint32_t n, uint32_t k) {
  return m % 128 == 0 && n % 128 == 0 && k % 16 == 0;
}

// The entry of `entries` nearest in size class to m x n x k, or nullptr.
const TunedEntry *nearest(const std::vector<const TunedEntry *> &entries, uint32_t m, uint32_t n,
                          uint32_t k) {
  const double volume = std::log2(double(m) * n * k);
  const bool whole = whole_tiles(m, n, k);
  const TunedEntry *best = nullptr;
  double best_score = std::numeric_limits<double>::infinity();
  for (const TunedEntry *entry : entries) {
    double score = std::fabs(std::log2(double(entry->m) * entry->n * entry->k) - volume);
    if (whole_tiles(entry->m, entry->n, entry->k) != whole)
      score += 1000; // another edge shape: only when no entry shares the call's
    if (score < best_score) {
      best_score = score;
      best = entry;
    }
  }
  return best;
}

template <class Match>
std::vector<const TunedEntry *> matching(const std::vector<TunedEntry> &entries, Match match) {
  std::vector<const TunedEntry *> found;
  for (const TunedEntry &entry : entries)
    if (match(entry))
      found.push_back(&entry);
  return found;
}

std::string size_text(const TunedEntry &entry) {
  return std::to_string(entry.m) + "x" + std::to_string(entry.n) + "x" + std::to_string(entry.k);
}

} // namespace

std::string cpu_architecture(uint32_t preferred_vector_width_float) {
  return preferred_vector_width_float != 0
             ? "cpu-simd" + std::to_string(preferred_vector_width_float)
             : std::string("cpu");
}

DeviceFacts facts_of(const Device &device) {
  DeviceFacts facts;
  facts.vendor_id = device.vendor_id;
  facts.name = device.name;
  while (!facts.name.empty() && (facts.name.back() == '\0' || facts.name.back() == ' '))
    facts.name.pop_back();
  facts.driver = device.driver_version;
  if (device.type & CL_DEVICE_TYPE_CPU)
    facts.architecture = cpu_architecture(device.preferred_vector_width_float);
  else if (device.compute_capability != 0)
    facts.architecture = "sm_" + std::to_string(device.compute_capability);
  return facts;
}

std::optional<Tuned> find_tuned(const std::vector<TunedEntry> &overlay,
                                const std::vector<TunedEntry> &database, const DeviceFacts &device,
                                uint32_t m, uint32_t n, uint32_t k, const std::string &form) {
  struct Level {
    std::vector<const TunedEntry *> entries;
    const char *origin;
  };
  const Level levels[] = {
      {matching(overlay,
                [&](const TunedEntry &e) {
                  return e.form == form && e.device == device.name && e.driver == device.driver;
                }),
       "tuning cache"},
      {matching(database,
                [&](const TunedEntry &e) {
                  return e.form == form && e.vendor_id == device.vendor_id &&
                         e.device == device.name;
                }),
       "database, this device"},
      {matching(database,
                [&](const TunedEntry &e) {
                  return e.form == form && e.vendor_id == device.vendor_id &&
                         !device.architecture.empty() && e.architecture == device.architecture;
                }),
       "database, this architecture"},
  };
  for (const Level &level : levels)
    if (const TunedEntry *entry = nearest(level.entries, m, n, k))
      return Tuned{*entry,
                   std::string(level.origin) + ": " + entry->device + " at " + size_text(*entry)};
  return std::nullopt;
}

Params parse_params(const std::string &text) {
  Params params;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    size_t equals = word.find('=');
    if (equals == 0 || equals == std::string::npos || equals + 1 == word.size())
      throw std::invalid_argument("a parameter is not NAME=value: " + word);
    size_t used = 0;
    int64_t value = std::stoll(word.substr(equals + 1), &used);
    if (used != word.size() - equals - 1)
      throw std::invalid_argument("a parameter's value is not an integer: " + word);
    params[word.substr(0, equals)] = value;
  }
  return params;
}

const std::vector<TunedEntry> &compiled_database() {
  static const std::vector<TunedEntry> entries = [] {
    std::vector<TunedEntry> all;
    for (const CompiledEntry &c : kCompiled)
      all.push_back(TunedEntry{c.vendor_id, c.architecture, c.device, "", c.m, c.n, c.k,
                               c.kernel_file, parse_params(c.params), c.form});
    return all;
  }();
  return entries;
}

std::string tuning_cache_path() {
  if (std::string chosen = os::environment("MQLCL_TUNE_CACHE"); !chosen.empty())
    return chosen;
#ifdef _WIN32
  if (std::string local = os::environment("LOCALAPPDATA"); !local.empty())
    return local + "\\mqlcl\\tuning.json";
#endif
  if (std::string xdg = os::environment("XDG_CACHE_HOME"); !xdg.empty())
    return xdg + "/mqlcl/tuning.json";
  if (std::string home = os::environment("HOME"); !home.empty())
    return home + "/.cache/mqlcl/tuning.json";
  return "mqlcl-tuning.json";
}

namespace {

namespace pt = boost::property_tree;

// "4096x4096x4096" (ROWS1 x COLSROWS x COLS2, the tuner's key) as m, k, n.
bool parse_sizes(const std::string &key, TunedEntry &entry) {
  unsigned m = 0, k = 0, n = 0;
  char x1 = 0, x2 = 0;
  std::istringstream in(key);
  if (!(in >> m >> x1 >> k >> x2 >> n) || x1 != 'x' || x2 != 'x' || m == 0 || n == 0 || k == 0)
    return false;
  entry.m = m;
  entry.n = n;
  entry.k = k;
  return true;
}

void add_form_entries(const std::string &device_key, size_t bar, const char *form,
                      const pt::ptree &sizes, std::vector<TunedEntry> &out) {
  for (const auto &[size_key, tuned] : sizes) {
    TunedEntry entry;
    entry.form = form;
    entry.device = device_key.substr(0, bar);
    entry.driver = device_key.substr(bar + 3);
    entry.kernel_file = tuned.get<std::string>("kernel_file", "");
    if (!parse_sizes(size_key, entry) || entry.kernel_file.empty())
      continue;
    if (auto params = tuned.get_child_optional("params"))
      for (const auto &[name, value] : *params)
        entry.params[name] = std::stoll(value.data());
    out.push_back(std::move(entry));
  }
}

void add_device_entries(const std::string &device_key, const pt::ptree &steps,
                        std::vector<TunedEntry> &out) {
  size_t bar = device_key.find(" | ");
  if (bar == std::string::npos)
    return;
  for (const char *form : kTunedForms) {
    auto sizes = steps.get_child_optional(pt::ptree::path_type(form, '\x1f'));
    if (sizes)
      add_form_entries(device_key, bar, form, *sizes, out);
  }
}

} // namespace

std::vector<TunedEntry> read_overlay(const std::string &path) {
  std::vector<TunedEntry> entries;
  try {
    pt::ptree root;
    pt::read_json(path, root);
    for (const auto &[device_key, steps] : root)
      add_device_entries(device_key, steps, entries);
  } catch (const std::exception &) {
    entries.clear(); // missing, unreadable or malformed: no overlay
  }
  return entries;
}

} // namespace mqlcl::gemm
