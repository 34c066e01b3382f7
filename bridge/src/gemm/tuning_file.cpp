#include "gemm/tuning_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mqlcl::gemm {

namespace {

// The file's objects in the order written, so that entries equally near a call are taken in the
// file's order, and a rewrite keeps it.
using Json = nlohmann::ordered_json;

constexpr const char *kDoubleWord = "double";

// A malformed part of the file: skipped when reading tolerantly, an error when strictly.
struct Malformed {
  std::string what;
};

std::string size_key(const TunedEntry &entry) { // ROWS1 x COLSROWS x COLS2, the tuner's order
  return std::to_string(entry.m) + "x" + std::to_string(entry.k) + "x" + std::to_string(entry.n);
}

// A parameter's value: a JSON number that is a whole int64 (the tuner writes numbers), or a
// string of one ("128": older files, written by Boost.PropertyTree, hold every number as text).
std::optional<int64_t> integer_of(const Json &value) {
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

uint32_t size_of(const Json &tuned, const char *name, const std::string &where) {
  auto found = tuned.find(name);
  std::optional<int64_t> value = found != tuned.end() ? integer_of(*found) : std::nullopt;
  if (!value || *value <= 0 || *value > std::numeric_limits<uint32_t>::max())
    throw Malformed{where + ": \"" + name + "\" is not a size"};
  return uint32_t(*value);
}

// "4096x4096x4096" (ROWS1 x COLSROWS x COLS2) as m, k, n: the sizes of entries written before
// they were fields of their own.
bool sizes_of_key(const std::string &key, TunedEntry &entry) {
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

void read_sizes(const std::string &key, const Json &tuned, TunedEntry &entry,
                const std::string &where) {
  if (tuned.contains("rows1") || !sizes_of_key(key, entry)) {
    entry.m = size_of(tuned, "rows1", where);
    entry.k = size_of(tuned, "colsrows", where);
    entry.n = size_of(tuned, "cols2", where);
  }
}

void read_params(const Json &tuned, Params &params, const std::string &where) {
  auto found = tuned.find("params");
  if (found == tuned.end())
    return;
  if (!found->is_object())
    throw Malformed{where + ": \"params\" is not an object"};
  for (const auto &[name, value] : found->items()) {
    std::optional<int64_t> number = integer_of(value);
    if (!number)
      throw Malformed{where + ": the parameter " + name + " is not an integer"};
    params[name] = *number;
  }
}

// The text of `object`'s member `name`; "" where it is missing or not a string.
std::string text_of(const Json &object, const char *name) {
  auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

TunedEntry entry_of(const TunedEntry &of_step, const std::string &key, const Json &tuned,
                    const std::string &where) {
  if (!tuned.is_object())
    throw Malformed{where + " is not an object"};
  TunedEntry entry = of_step;
  entry.kernel_file = text_of(tuned, "kernel_file");
  if (entry.kernel_file.empty())
    throw Malformed{where + " names no kernel_file"};
  read_sizes(key, tuned, entry, where);
  read_params(tuned, entry.params, where);
  if (auto gflops = tuned.find("gflops"); gflops != tuned.end() && gflops->is_number())
    entry.gflops = gflops->get<double>();
  entry.measured = text_of(tuned, "measured");
  return entry;
}

// The device's "_device" record into `device` (the tuner writes strings; anything else is as
// good as none).
void read_device_facts(const Json &steps, TunedEntry &device) {
  auto facts = steps.find("_device");
  if (facts == steps.end() || !facts->is_object())
    return;
  device.vendor_id = uint32_t(std::strtoul(text_of(*facts, "vendor_id").c_str(), nullptr, 0));
  device.architecture = text_of(*facts, "architecture");
}

// Runs `read` on one part of the file: a malformed part is skipped (tolerant) or thrown as the
// file's error (strict).
template <class Read> void part(Reading reading, const std::string &path, const Read &read) {
  try {
    read();
  } catch (const Malformed &malformed) {
    if (reading == Reading::strict)
      throw std::runtime_error("the tuning file " + path + " is not the tuner's: " +
                               malformed.what + "; delete it or point MQLCL_TUNE_CACHE elsewhere");
  }
}

void read_device(const std::string &path, const std::string &device_key, const Json &steps,
                 Reading reading, std::vector<TunedEntry> &out) {
  const size_t bar = device_key.find(" | ");
  if (bar == std::string::npos || !steps.is_object())
    throw Malformed{"\"" + device_key + "\" is not a device (\"NAME | DRIVER\": {...})"};
  TunedEntry device;
  device.device = device_key.substr(0, bar);
  device.driver = device_key.substr(bar + 3);
  read_device_facts(steps, device);
  for (const auto &step : steps.items()) {
    const std::string &key = step.key();
    const Json &sizes = step.value();
    if (key == "_device")
      continue;
    TunedEntry of_step = device;
    part(reading, path, [&] {
      if (!read_step_key(key, of_step) || !sizes.is_object())
        throw Malformed{device_key + ": \"" + key + "\" is not a step's sets"};
      for (const auto &set : sizes.items())
        part(reading, path, [&] {
          const std::string &size_key = set.key();
          const Json &tuned = set.value();
          out.push_back(
              entry_of(of_step, size_key, tuned, device_key + ": " + key + ": " + size_key));
        });
    });
  }
}

Json read_json(const std::string &path, Reading reading) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Json::object();
  const Json root = Json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object() && reading == Reading::strict)
    throw std::runtime_error("the tuning file " + path +
                             " is not valid JSON; delete it or point MQLCL_TUNE_CACHE elsewhere");
  return root;
}

} // namespace

const char *element_name(Element element) {
  return element == Element::float64 ? "double" : "float";
}

const char *step_of(Family family) {
  switch (family) {
  case Family::tensor_tf32:
    return kTf32Step;
  case Family::tensor_3xtf32:
    return kAccurateStep;
  case Family::tensor_fp64:
    return kFp64Step;
  case Family::integer_residues:
    return kIntegerResiduesStep;
  case Family::tensor_int8:
    return kTensorInt8Step;
  case Family::wgmma_int8:
    return kWgmmaInt8Step;
  case Family::tiles:
  case Family::registers:
    break;
  }
  return kExactStep;
}

std::optional<Family> gemm_form_of(const TunedEntry &entry) {
  for (const Form *form = forms_begin(); form != forms_end(); ++form)
    if (entry.kernel_file == form->kernel_file && entry.step == step_of(form->family))
      return form->family;
  return std::nullopt;
}

std::string step_key(const TunedEntry &entry) {
  std::string key = entry.step;
  if (entry.element == Element::float64)
    key += std::string(" ") + kDoubleWord;
  if (!entry.layout.empty())
    key += " " + entry.layout;
  return key;
}

bool read_step_key(const std::string &key, TunedEntry &entry) {
  std::istringstream words(key);
  std::string word;
  if (!(words >> entry.step))
    return false;
  entry.element = Element::float32;
  entry.layout.clear();
  while (words >> word) {
    bool layout = false;
    for (const char *known : kLayouts)
      layout = layout || word == known;
    if (word == kDoubleWord && entry.element == Element::float32 && entry.layout.empty())
      entry.element = Element::float64;
    else if (layout && entry.layout.empty())
      entry.layout = word;
    else
      return false;
  }
  return true;
}

std::string tuning_file_path(EnvironmentReader environment) {
  if (std::string chosen = environment("MQLCL_TUNE_CACHE"); !chosen.empty())
    return chosen;
#ifdef _WIN32
  if (std::string local = environment("LOCALAPPDATA"); !local.empty())
    return local + "\\mqlcl\\tuning.json";
#endif
  if (std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return xdg + "/mqlcl/tuning.json";
  if (std::string home = environment("HOME"); !home.empty())
    return home + "/.cache/mqlcl/tuning.json";
  return "mqlcl-tuning.json";
}

std::vector<TunedEntry> read_tuning_file(const std::string &path, Reading reading) {
  const Json root = read_json(path, reading);
  std::vector<TunedEntry> entries;
  if (root.is_object())
    for (const auto &device : root.items())
      part(reading, path,
           [&] { read_device(path, device.key(), device.value(), reading, entries); });
  return entries;
}

void write_tuned(const std::string &path, const TunedEntry &entry) {
  Json root = read_json(path, Reading::strict);
  Json record = {{"kernel_file", entry.kernel_file},
                 {"rows1", entry.m},
                 {"colsrows", entry.k},
                 {"cols2", entry.n},
                 {"gflops", entry.gflops},
                 {"measured", entry.measured},
                 {"params", Json::object()}};
  for (const auto &[name, value] : entry.params)
    record["params"][name] = value;
  Json &device = root[entry.device + " | " + entry.driver];
  if (!device.is_object())
    device = Json::object();
  char vendor[16];
  std::snprintf(vendor, sizeof vendor, "0x%04X", unsigned(entry.vendor_id));
  device["_device"] = {{"vendor_id", vendor}, {"architecture", entry.architecture}};
  Json &sizes = device[step_key(entry)];
  if (!sizes.is_object())
    sizes = Json::object();
  sizes[size_key(entry)] = std::move(record);
  const std::filesystem::path file(path);
  if (file.has_parent_path())
    std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << root.dump(2) << "\n";
  if (!out)
    throw std::runtime_error("cannot write the tuning file " + path);
}

std::string cpu_architecture(uint32_t preferred_vector_width_float) {
  return preferred_vector_width_float != 0
             ? "cpu-simd" + std::to_string(preferred_vector_width_float)
             : std::string("cpu");
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

namespace {

bool whole_tiles(uint32_t m, uint32_t n, uint32_t k) {
  return m % 128 == 0 && n % 128 == 0 && k % 16 == 0;
}

// How far apart two sizes are: |log2 a - log2 b|, so that 2000 and 4096 are as far apart as 4096
// and 8192.
double octaves(uint32_t a, uint32_t b) {
  return std::fabs(std::log2(double(a)) - std::log2(double(b)));
}

// An entry tuned for another layout counts as this many octaves further than one tuned for the
// call's, and one of another device of the architecture this many further than one of this
// device. The layout weighs more than the shape: on an H200, 8192 x 1024 x 8192 TN ran at 0.96x
// cuBLAS with the set tuned for TN at 512 x 4096 x 4096, against 0.88-0.89x with the general set
// tuned at 8192; but an entry of another edge shape (1000 or 4097 against 4096) is still taken
// only where no other is found, as its edge checks differ (1000 NN: 0.72x with the 4096 NN set).
constexpr double kOtherLayoutOctaves = 4.0;
constexpr double kOtherDeviceOctaves = 1.0;
// The layout of sets tuned through the replay (`tune STEP`): the article's, A by rows and B by
// columns, which is CLGemm's NT. Counted as another layout, they lost NT calls to nearby NT
// entries of another size (1000^3 NT: 0.61x cuBLAS with the 2000 NT set on an H200). They count
// a quarter octave further than an NT entry, which CLGemm itself ran, so that an NT entry of the
// same shape wins (4096^3 TF32 NT: 0.73x with the replay's set, 0.96x with CLGemm's).
constexpr const char *kReplayLayout = "NT";
constexpr double kReplayEntryOctaves = 0.25;

double layout_octaves(const std::string &entry_layout, const std::string &call_layout) {
  if (entry_layout == call_layout)
    return 0;
  return entry_layout.empty() && call_layout == kReplayLayout ? kReplayEntryOctaves
                                                              : kOtherLayoutOctaves;
}

// 3xTF32's product reads every layout's operands in one form (A with K along its rows, through a
// map or a copy; B through its split pass), so a set tuned for any layout suits a call of any:
// the H200's TN tune at 4096 ended at its NN and NT set (126.8 TFLOP/s), where the call had taken
// the layout-less set tuned through the replay (113.8); on an H100 at 2000, NN and TN ran
// 1.12-1.18x faster with NT's set than with the layout-less one. The shape decides; at one shape
// the call's own layout comes first (its tune timed its passes too), the replay's sets last.
constexpr double kSameFormOtherLayoutOctaves = 0.125;

double same_form_layout_octaves(const std::string &entry_layout, const std::string &call_layout) {
  if (entry_layout == call_layout)
    return 0;
  return entry_layout.empty() ? kReplayEntryOctaves : kSameFormOtherLayoutOctaves;
}

using LayoutOctaves = double (*)(const std::string &entry_layout, const std::string &call_layout);

// The entry of `entries` nearest to m x n x k for `layout` on `device`, or nullptr; the first at a
// tie.
const TunedEntry *nearest(const std::vector<const TunedEntry *> &entries, uint32_t m, uint32_t n,
                          uint32_t k, const std::string &layout, const std::string &device,
                          LayoutOctaves layout_distance) {
  const bool whole = whole_tiles(m, n, k);
  const TunedEntry *best = nullptr;
  double best_score = std::numeric_limits<double>::infinity();
  for (const TunedEntry *entry : entries) {
    double score = octaves(entry->m, m) + octaves(entry->n, n) + octaves(entry->k, k) +
                   layout_distance(entry->layout, layout) +
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

Tuned described(const char *origin, const TunedEntry &entry) {
  return Tuned{entry, std::string(origin) + ": " + entry.device + " at " + std::to_string(entry.m) +
                          "x" + std::to_string(entry.n) + "x" + std::to_string(entry.k) +
                          (entry.layout.empty() ? "" : " " + entry.layout)};
}

// The entries `of_call` takes: the tuning cache's of this device and driver, then the compiled
// database's of its vendor and of its name or (where `any_of_architecture`) its architecture.
struct Candidates {
  std::vector<const TunedEntry *> entries;
  size_t cached = 0; // how many of `entries`, at its front, are the cache's

  bool from_cache(const TunedEntry *entry) const {
    return std::find(entries.begin(), entries.begin() + cached, entry) != entries.begin() + cached;
  }
};

template <class OfCall>
Candidates candidates(const std::vector<TunedEntry> &overlay,
                      const std::vector<TunedEntry> &database, const DeviceFacts &device,
                      bool any_of_architecture, OfCall of_call) {
  Candidates found;
  found.entries = matching(overlay, [&](const TunedEntry &e) {
    return of_call(e) && e.device == device.name && e.driver == device.driver;
  });
  found.cached = found.entries.size();
  for (const TunedEntry *entry : matching(database, [&](const TunedEntry &e) {
         return of_call(e) && e.vendor_id == device.vendor_id &&
                (e.device == device.name || (any_of_architecture && !device.architecture.empty() &&
                                             e.architecture == device.architecture));
       }))
    found.entries.push_back(entry);
  return found;
}

Tuned origin_of(const Candidates &found, const TunedEntry &entry, const DeviceFacts &device) {
  if (found.from_cache(&entry))
    return described("tuning cache", entry);
  return described(
      entry.device == device.name ? "database, this device" : "database, this architecture", entry);
}

// The nearest entry `of_call` takes, the tuning cache's and the compiled database's competing on
// distance, the cache's first at a tie: a set the user tuned at one shape does not displace the
// database's sets of the others (on an H200, a cache holding only 3xTF32's 1000 sets ran float
// ACCURATE at 2000 at 1.60-1.80x SGEMM against 1.81-2.18x with the database's 2000 set).
template <class OfCall>
std::optional<Tuned> search(const std::vector<TunedEntry> &overlay,
                            const std::vector<TunedEntry> &database, const DeviceFacts &device,
                            uint32_t m, uint32_t n, uint32_t k, const std::string &layout,
                            OfCall of_call, LayoutOctaves layout_distance = layout_octaves) {
  const Candidates found = candidates(overlay, database, device, true, of_call);
  if (const TunedEntry *entry =
          nearest(found.entries, m, n, k, layout, device.name, layout_distance))
    return origin_of(found, *entry, device);
  return std::nullopt;
}

} // namespace

std::optional<Tuned> find_tuned(const std::vector<TunedEntry> &overlay,
                                const std::vector<TunedEntry> &database, const DeviceFacts &device,
                                uint32_t m, uint32_t n, uint32_t k, const std::string &step,
                                Element element, const std::string &layout) {
  auto of_step = [&](const TunedEntry &e) { return e.step == step && e.element == element; };
  if (step == kAccurateStep && !layout.empty()) // CLGemm's call, not the replay's
    return search(overlay, database, device, m, n, k, layout, of_step, same_form_layout_octaves);
  if (std::optional<Tuned> tuned =
          search(overlay, database, device, m, n, k, layout, [&](const TunedEntry &e) {
            return of_step(e) && (e.layout.empty() || e.layout == layout);
          }))
    return tuned;
  // Step 19 reads every operand as it is stored, in tiles that suit any layout: where neither the
  // cache nor the database has a set of the call's layout, the nearest of another serves (a
  // user's own NN set does not displace the database's NT set from NT calls).
  if (step == kFp64Step)
    return search(overlay, database, device, m, n, k, layout, of_step);
  return std::nullopt;
}

namespace {

// The largest of `entries` no larger than m x n x k in any dimension, or nullptr; the first of
// equal volume.
const TunedEntry *largest_within(const std::vector<const TunedEntry *> &entries, uint32_t m,
                                 uint32_t n, uint32_t k) {
  const TunedEntry *best = nullptr;
  for (const TunedEntry *entry : entries)
    if (entry->m <= m && entry->n <= n && entry->k <= k &&
        (best == nullptr ||
         double(entry->m) * entry->n * entry->k > double(best->m) * best->n * best->k))
      best = entry;
  return best;
}

// The smallest of `entries` at least m x n x k in every dimension, or nullptr; the first of
// equal volume.
const TunedEntry *smallest_around(const std::vector<const TunedEntry *> &entries, uint32_t m,
                                  uint32_t n, uint32_t k) {
  const TunedEntry *best = nullptr;
  for (const TunedEntry *entry : entries)
    if (entry->m >= m && entry->n >= n && entry->k >= k &&
        (best == nullptr ||
         double(entry->m) * entry->n * entry->k < double(best->m) * best->n * best->k))
      best = entry;
  return best;
}

} // namespace

std::optional<Tuned> find_measured_above(const std::vector<TunedEntry> &overlay,
                                         const std::vector<TunedEntry> &database,
                                         const DeviceFacts &device, uint32_t m, uint32_t n,
                                         uint32_t k, const std::string &step, Element element,
                                         const std::string &layout, const char *param) {
  const Candidates found = candidates(overlay, database, device, false, [&](const TunedEntry &e) {
    return e.step == step && e.element == element && e.layout == layout &&
           e.params.count(param) != 0;
  });
  if (const TunedEntry *entry = smallest_around(found.entries, m, n, k))
    return origin_of(found, *entry, device);
  return std::nullopt;
}

std::optional<Tuned> find_measured_below(const std::vector<TunedEntry> &overlay,
                                         const std::vector<TunedEntry> &database,
                                         const DeviceFacts &device, uint32_t m, uint32_t n,
                                         uint32_t k, const std::string &step, Element element,
                                         const std::string &layout) {
  const Candidates found = candidates(overlay, database, device, false, [&](const TunedEntry &e) {
    return e.step == step && e.element == element && e.layout == layout;
  });
  if (const TunedEntry *entry = largest_within(found.entries, m, n, k))
    return origin_of(found, *entry, device);
  return std::nullopt;
}

namespace {

struct CompiledEntry {
  uint32_t vendor_id;
  const char *architecture;
  const char *device;
  const char *form;
  const char *element;
  const char *layout;
  uint32_t m, n, k;
  const char *params;
};

const CompiledEntry kCompiled[] = {
#include "gemm/database.inc"
};

TunedEntry compiled_entry(const CompiledEntry &c) {
  const Form *form = form_named(c.form);
  if (form == nullptr)
    throw std::logic_error(std::string("database.inc names no form ") + c.form);
  TunedEntry entry;
  entry.vendor_id = c.vendor_id;
  entry.architecture = c.architecture;
  entry.device = c.device;
  entry.step = step_of(form->family);
  entry.element = std::string(c.element) == kDoubleWord ? Element::float64 : Element::float32;
  entry.layout = c.layout;
  entry.m = c.m;
  entry.n = c.n;
  entry.k = c.k;
  entry.kernel_file = form->kernel_file;
  entry.params = parse_params(c.params);
  return entry;
}

} // namespace

std::vector<TunedEntry> compiled_entries() {
  std::vector<TunedEntry> all;
  for (const CompiledEntry &c : kCompiled)
    all.push_back(compiled_entry(c));
  return all;
}

std::string database_line(const TunedEntry &entry) {
  std::string params;
  for (const auto &[name, value] : entry.params)
    params += (params.empty() ? "" : " ") + name + "=" + std::to_string(value);
  char vendor[16];
  std::snprintf(vendor, sizeof vendor, "0x%04X", unsigned(entry.vendor_id));
  return std::string("{") + vendor + ", \"" + entry.architecture + "\", \"" + entry.device +
         "\", \"" + form_of(*gemm_form_of(entry)).name + "\", \"" + element_name(entry.element) +
         "\", \"" + entry.layout + "\", " + std::to_string(entry.m) + ", " +
         std::to_string(entry.n) + ", " + std::to_string(entry.k) + ", \"" + params + "\"},\n";
}

} // namespace mqlcl::gemm
