#include "gemm/database.hpp"

#include "devices.hpp"
#include "os_library.hpp"
#include "process_state.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <fstream>
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

// How far apart two sizes are: |log2 a - log2 b|, so that 2000 and 4096 are as far apart as 4096
// and 8192.
double octaves(uint32_t a, uint32_t b) {
  return std::fabs(std::log2(double(a)) - std::log2(double(b)));
}

// An entry tuned for any layout counts as this many octaves further than one tuned for the
// call's, and one of another device of the architecture this many further than one of this
// device. The layout weighs more than the shape: on an H200, 8192 x 1024 x 8192 TN ran at 0.96x
// cuBLAS with the set tuned for TN at 512 x 4096 x 4096, against 0.88-0.89x with the general set
// tuned at 8192; but an entry of another edge shape (1000 or 4097 against 4096) is still taken
// only where no other is found, as its edge checks differ (1000 NN: 0.72x with the 4096 NN set).
constexpr double kAnyLayoutOctaves = 4.0;
constexpr double kOtherDeviceOctaves = 1.0;
// The layout a form's own entries (`tune STEP`, through the replay) were tuned in: the article's,
// A by rows and B by columns, which is CLGemm's NT. Counted as any layout, they lost NT calls to
// nearby NT entries of another size (1000³ NT: 0.61x cuBLAS with the 2000 NT set on an H200).
// They count a quarter octave further than an NT entry, which CLGemm itself ran, so that an NT
// entry of the same shape wins (4096³ TF32 NT: 0.73x with the replay's set, 0.96x with CLGemm's).
constexpr const char *kReplayLayout = "NT";
constexpr double kReplayEntryOctaves = 0.25;

// The entry of `entries` nearest in shape to m x n x k (octaves apart in M, N and K together, so
// that 4096 x 4096 x 512 and 512 x 4096 x 4096 find their own entries; further for an entry of
// another layout than `of_layout`'s, `form`'s own entries being of the replay's, or of another
// device than `device`), or nullptr.
const TunedEntry *nearest(const std::vector<const TunedEntry *> &entries, uint32_t m, uint32_t n,
                          uint32_t k, const std::string &form, const std::string &of_layout,
                          const std::string &device) {
  const bool call_of_the_replays_layout = of_layout == form + " " + kReplayLayout;
  const bool whole = whole_tiles(m, n, k);
  const TunedEntry *best = nullptr;
  double best_score = std::numeric_limits<double>::infinity();
  for (const TunedEntry *entry : entries) {
    double score = octaves(entry->m, m) + octaves(entry->n, n) + octaves(entry->k, k);
    const bool of_the_replay = entry->form == form && call_of_the_replays_layout;
    score += (entry->form == of_layout ? 0
              : of_the_replay          ? kReplayEntryOctaves
                                       : kAnyLayoutOctaves) +
             (entry->device != device ? kOtherDeviceOctaves : 0);
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

bool is_tuned_form(const std::string &key) {
  for (const char *form : kTunedForms) {
    if (key == form)
      return true;
    for (const char *layout : kLayouts)
      if (key == std::string(form) + " " + layout)
        return true;
  }
  return false;
}

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
                                uint32_t m, uint32_t n, uint32_t k, const std::string &form,
                                const std::string &layout) {
  const std::string of_layout = layout.empty() ? form : form + " " + layout;
  auto is_form = [&](const TunedEntry &e) { return e.form == form || e.form == of_layout; };
  auto described = [&](const char *origin, const TunedEntry &entry) {
    return Tuned{entry, std::string(origin) + ": " + entry.device + " at " + size_text(entry) +
                            (entry.form == form ? "" : " " + layout)};
  };
  const std::vector<const TunedEntry *> cached = matching(overlay, [&](const TunedEntry &e) {
    return is_form(e) && e.device == device.name && e.driver == device.driver;
  });
  if (const TunedEntry *entry = nearest(cached, m, n, k, form, of_layout, device.name))
    return described("tuning cache", *entry);
  const std::vector<const TunedEntry *> compiled = matching(database, [&](const TunedEntry &e) {
    return is_form(e) && e.vendor_id == device.vendor_id &&
           (e.device == device.name ||
            (!device.architecture.empty() && e.architecture == device.architecture));
  });
  if (const TunedEntry *entry = nearest(compiled, m, n, k, form, of_layout, device.name))
    return described(entry->device == device.name ? "database, this device"
                                                  : "database, this architecture",
                     *entry);
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

// Made once by process_wide (process_state.hpp): CLGemm may still run on other threads while the
// process exits.
const std::vector<TunedEntry> &compiled_database() {
  static const std::vector<TunedEntry> &entries = process_wide<std::vector<TunedEntry>>([] {
    std::vector<TunedEntry> all;
    for (const CompiledEntry &c : kCompiled)
      all.push_back(TunedEntry{c.vendor_id, c.architecture, c.device, "", c.m, c.n, c.k,
                               c.kernel_file, parse_params(c.params), c.form});
    return all;
  }());
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

// The cache's objects in the order written, so that entries equally near a call are taken in
// the file's order.
using Json = nlohmann::ordered_json;

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

// A parameter's value: a JSON number that is a whole int64 (the tuner writes numbers), or a
// string of one ("128": older caches, written by Boost.PropertyTree, hold every number as text).
std::optional<int64_t> param_value(const Json &value) {
  if (value.is_number_unsigned())
    return value.get<uint64_t>() <= uint64_t(std::numeric_limits<int64_t>::max())
               ? std::optional<int64_t>(value.get<int64_t>())
               : std::nullopt;
  if (value.is_number_integer())
    return value.get<int64_t>();
  if (value.is_number_float()) {
    double number = value.get<double>();
    bool whole = std::isfinite(number) && number == std::trunc(number) && number >= -0x1p63 &&
                 number < 0x1p63;
    return whole ? std::optional<int64_t>(static_cast<int64_t>(number)) : std::nullopt;
  }
  if (!value.is_string())
    return std::nullopt;
  const std::string &text = value.get_ref<const std::string &>();
  int64_t number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return number;
}

// The entry's "params" object into `params` (none: an empty set); false when it is not an object
// or a value is not an integer, since a set read in part was never measured.
bool read_params(const Json &tuned, Params &params) {
  auto found = tuned.find("params");
  if (found == tuned.end())
    return true;
  if (!found->is_object())
    return false;
  for (const auto &[name, value] : found->items()) {
    std::optional<int64_t> number = param_value(value);
    if (!number)
      return false;
    params[name] = *number;
  }
  return true;
}

// One form's entries: {"MxKxN": {"kernel_file": ..., "params": {NAME: value}}}; an entry with no
// kernel file, another key or malformed parameters is skipped.
void add_form_entries(const std::string &device_key, size_t bar, const char *form,
                      const Json &sizes, std::vector<TunedEntry> &out) {
  if (!sizes.is_object())
    return;
  for (const auto &[size_key, tuned] : sizes.items()) {
    if (!tuned.is_object())
      continue;
    TunedEntry entry;
    entry.form = form;
    entry.device = device_key.substr(0, bar);
    entry.driver = device_key.substr(bar + 3);
    auto kernel_file = tuned.find("kernel_file");
    if (kernel_file != tuned.end() && kernel_file->is_string())
      entry.kernel_file = kernel_file->get<std::string>();
    if (!parse_sizes(size_key, entry) || entry.kernel_file.empty() ||
        !read_params(tuned, entry.params))
      continue;
    out.push_back(std::move(entry));
  }
}

// A device's kTunedForms steps, under its key "DEVICE NAME | DRIVER"; every other key (the
// tuner's "_device" facts, steps of other kernels) is not the bridge's.
void add_device_entries(const std::string &device_key, const Json &steps,
                        std::vector<TunedEntry> &out) {
  size_t bar = device_key.find(" | ");
  if (bar == std::string::npos || !steps.is_object())
    return;
  for (const auto &[form, sizes] : steps.items())
    if (is_tuned_form(form))
      add_form_entries(device_key, bar, form.c_str(), sizes, out);
}

} // namespace

std::vector<TunedEntry> read_overlay(const std::string &path) noexcept {
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      return {}; // missing or unreadable: no overlay
    const Json root = Json::parse(in, nullptr, /*allow_exceptions=*/false);
    std::vector<TunedEntry> entries;
    if (root.is_object()) // not JSON (discarded) or not the cache's object: no overlay
      for (const auto &[device_key, steps] : root.items())
        add_device_entries(device_key, steps, entries);
    return entries;
  } catch (...) {
    return {}; // out of memory: no overlay, and nothing thrown into the C ABI
  }
}

} // namespace mqlcl::gemm
