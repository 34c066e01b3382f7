// The GEMM's tuned-parameter lookup (bridge/src/gemm/tuning_file.hpp) and planner, on entries and
// devices the tests describe: exact device first, then architecture, then nothing (defaults);
// the user's tuning cache before the database; the nearest size class of the same edge shape.
#define BOOST_TEST_MODULE bridge_gemm_database
#include "devices.hpp"
#include "gemm/planner.hpp"
#include "gemm/runtime.hpp"
#include "gemm/tensor_cores.hpp"
#include "gemm/tuning_file.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

using namespace mqlcl;
using namespace mqlcl::gemm;

namespace {

TunedEntry entry(const char *device, uint32_t size, int64_t bm, const char *driver = "",
                 const char *kernel_file = "matr_mul_double_buffered.cl") {
  TunedEntry entry;
  entry.vendor_id = 0x10DE;
  entry.architecture = "sm_90";
  entry.device = device;
  entry.driver = driver;
  entry.m = entry.n = entry.k = size;
  entry.kernel_file = kernel_file;
  entry.params = Params{{"BM", bm}};
  return entry;
}

// An m x n x k set of `step` in `element` for the measured lookups, of `kernel_file` (no layout).
TunedEntry measured_entry(const char *device, uint32_t m, uint32_t n, uint32_t k, int64_t bm,
                          const char *driver, const char *step, Element element,
                          const char *kernel_file) {
  TunedEntry e = entry(device, 0, bm, driver, kernel_file);
  e.m = m, e.n = n, e.k = k;
  e.step = step;
  e.element = element;
  return e;
}

// find_tuned for step 14's float sets unless told otherwise.
std::optional<Tuned> lookup(const std::vector<TunedEntry> &overlay,
                            const std::vector<TunedEntry> &database, const DeviceFacts &device,
                            uint32_t m, uint32_t n, uint32_t k, const char *step = kExactStep,
                            const std::string &layout = "", Element element = Element::float32) {
  return find_tuned(overlay, database, device, m, n, k, step, element, layout);
}

const DeviceFacts kH100{0x10DE, "sm_90", "NVIDIA H100 80GB HBM3", "580.159.04"};
const DeviceFacts kH200{0x10DE, "sm_90", "NVIDIA H200", "580.159.04"};

std::vector<TunedEntry> database() {
  return {entry("NVIDIA H100 80GB HBM3", 4096, 1), entry("NVIDIA H100 80GB HBM3", 2000, 2),
          entry("NVIDIA H100 80GB HBM3", 4097, 3), entry("NVIDIA H100 80GB HBM3", 8192, 4)};
}

void write_file(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// The sets of CLGemm's forms in a tuning file of record, read as the library reads it.
std::vector<TunedEntry> gemm_sets(const std::string &path) {
  std::vector<TunedEntry> sets;
  for (TunedEntry &entry : read_tuning_file(path, Reading::tolerant))
    if (gemm_form_of(entry))
      sets.push_back(std::move(entry));
  return sets;
}

int64_t chosen_bm(const std::optional<Tuned> &tuned) {
  BOOST_TEST_REQUIRE(tuned.has_value());
  return tuned->entry.params.at("BM");
}

// A size³ entry of step 14 tuned for one layout by tune --gemm ("matr_mul_tuned NN"), in
// `element`.
TunedEntry layout_entry(const char *device, uint32_t size, int64_t bm, const std::string &layout,
                        Element element = Element::float32) {
  TunedEntry tuned = entry(device, size, bm);
  tuned.layout = layout;
  tuned.element = element;
  return tuned;
}

// The BM of the set the lookup chooses among `entries` of step 14 in `element` for `device`'s
// size³ product in `layout`.
int64_t chosen_at(const std::vector<TunedEntry> &entries, const DeviceFacts &device, uint32_t size,
                  const std::string &layout, Element element = Element::float32) {
  return chosen_bm(lookup({}, entries, device, size, size, size, kExactStep, layout, element));
}

DeviceLimits gpu() {
  DeviceLimits device;
  device.max_work_group_size = device.max_work_item_size0 = 1024;
  device.kernel_local_bytes = 48 << 10;
  device.dedicated_local_memory = true;
  device.compute_units = 132;
  return device;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_exact_device_comes_first_at_the_nearest_size_class) {
  BOOST_TEST(chosen_bm(lookup({}, database(), kH100, 4096, 4096, 4096)) == 1);
  BOOST_TEST(chosen_bm(lookup({}, database(), kH100, 4096, 4096, 512)) == 1);
  BOOST_TEST(chosen_bm(lookup({}, database(), kH100, 8192, 8192, 4096)) == 4);
  BOOST_TEST(chosen_bm(lookup({}, database(), kH100, 1000, 1000, 1000)) == 2);
  BOOST_TEST(chosen_bm(lookup({}, database(), kH100, 5000, 5000, 5000)) == 3);
  // 1024 is whole tiles: the whole-tile entries are preferred over the nearer 2000.
  BOOST_TEST(chosen_bm(lookup({}, database(), kH100, 1024, 1024, 1024)) == 1);
  auto tuned = lookup({}, database(), kH100, 4096, 4096, 4096);
  BOOST_TEST(tuned->origin.find("this device") != std::string::npos, tuned->origin);
}

// Products of one volume and other shapes (a network's 4096 x 4096 x 512 and 512 x 4096 x 4096)
// find the entry of their own shape.
BOOST_AUTO_TEST_CASE(shapes_of_one_volume_find_their_own_entries) {
  std::vector<TunedEntry> entries = database();
  TunedEntry thin_k = entry("NVIDIA H100 80GB HBM3", 4096, 5), thin_m = thin_k;
  thin_k.k = 512;
  thin_m.m = 512;
  thin_m.params["BM"] = 6;
  entries.push_back(thin_k);
  entries.push_back(thin_m);
  BOOST_TEST(chosen_bm(lookup({}, entries, kH100, 4096, 4096, 512)) == 5);
  BOOST_TEST(chosen_bm(lookup({}, entries, kH100, 512, 4096, 4096)) == 6);
  BOOST_TEST(chosen_bm(lookup({}, entries, kH100, 4096, 4096, 1024)) == 5);
  BOOST_TEST(chosen_bm(lookup({}, entries, kH100, 4096, 4096, 4096)) == 1);
}

// An entry tuned for the call's layout ("matr_mul_tuned NN", from tune --gemm NN) wins at its
// shape; at shapes far from it, the form's general entries do.
BOOST_AUTO_TEST_CASE(an_entry_of_the_calls_layout_wins_near_its_shape) {
  std::vector<TunedEntry> entries = database();
  entries.push_back(layout_entry("NVIDIA H100 80GB HBM3", 4096, 7, "NN"));
  auto at = [&](uint32_t size, const std::string &layout) {
    return chosen_at(entries, kH100, size, layout);
  };
  BOOST_TEST(at(4096, "NN") == 7);
  BOOST_TEST(at(4096, "NT") == 1);
  BOOST_TEST(at(4096, "") == 1);
  BOOST_TEST(at(8192, "NN") == 7); // 3 octaves from the NN entry, 4 + 0 from the general 8192
  BOOST_TEST(at(2000, "NN") == 2);
  auto tuned = lookup({}, entries, kH100, 4096, 4096, 4096, kExactStep, "NN");
  BOOST_TEST(tuned->origin.find("at 4096x4096x4096 NN") != std::string::npos, tuned->origin);
}

// A form's own entries were tuned by the replay in its layout, CLGemm's NT: for an NT call they
// count as entries of its layout, so an NT entry of another size does not hide them (an H200's
// 2000 NT set took 1000³ NT at 0.61x cuBLAS from the H100's 1000 set); for NN they do not. An NT
// entry of the same shape, which CLGemm itself ran, still comes first.
BOOST_AUTO_TEST_CASE(a_forms_own_entries_are_of_the_replays_layout_nt) {
  std::vector<TunedEntry> entries = database();
  // The form's own entry before the NT one: it must lose on its merits, not by order.
  entries.push_back(entry("NVIDIA H200", 4096, 10));
  entries.push_back(layout_entry("NVIDIA H200", 4096, 8, "NT"));
  entries.push_back(layout_entry("NVIDIA H200", 4096, 9, "NN"));
  auto at = [&](uint32_t size, const std::string &layout) {
    return chosen_at(entries, kH200, size, layout);
  };
  BOOST_TEST(at(4096, "NT") == 8); // CLGemm's own NT set before the replay's of the same shape
  BOOST_TEST(at(4096, "NN") == 9);
  BOOST_TEST(at(8192, "NT") == 4); // 3 octaves from this device's NT set, 1¼ from the H100's own
  BOOST_TEST(at(8192, "NN") == 9); // 3 octaves from the NN set, 4 + 1 from the H100's 8192
}

// 3xTF32's product reads every layout's operands alike, so its calls take the set of the nearest
// shape whatever its layout: the call's own layout first at one shape, the replay's layout-less
// sets last (TN calls took the H100's layout-less 4096 set, 113.8 TFLOP/s on an H200 where NN's
// and NT's set ran 126.8). The replay's own lookups (no layout) keep to layout-less sets.
BOOST_AUTO_TEST_CASE(float_accurate_takes_the_nearest_shapes_set_of_any_layout) {
  const char *h100 = "NVIDIA H100 80GB HBM3";
  std::vector<TunedEntry> entries = {entry(h100, 4096, 1),
                                     entry(h100, 1000, 2),
                                     layout_entry(h100, 4096, 3, "NT"),
                                     layout_entry(h100, 4096, 4, "NN"),
                                     layout_entry(h100, 1000, 5, "NT"),
                                     layout_entry(h100, 2000, 6, "TN")};
  for (TunedEntry &tuned : entries)
    tuned.step = kAccurateStep;
  auto at = [&](uint32_t size, const std::string &layout) {
    return chosen_bm(lookup({}, entries, kH100, size, size, size, kAccurateStep, layout));
  };
  BOOST_TEST(at(4096, "NN") == 4);
  BOOST_TEST(at(4096, "NT") == 3);
  const int64_t tn = at(4096, "TN"); // NT's or NN's, one as near as the other
  BOOST_TEST((tn == 3 || tn == 4), tn);
  BOOST_TEST(at(2000, "TN") == 6);
  BOOST_TEST(at(2000, "NN") == 6);
  BOOST_TEST(at(1000, "NN") == 5); // not the layout-less set of its shape, nor NN's at 4096
  BOOST_TEST(at(1000, "TN") == 5);
  BOOST_TEST(at(1000, "") == 2);
  const int64_t far = at(8192, "TN"); // NT's or NN's at 4096 before the layout-less 4096 set
  BOOST_TEST((far == 3 || far == 4), far);
  auto tuned = lookup({}, entries, kH100, 1000, 1000, 1000, kAccurateStep, "TN");
  BOOST_TEST(tuned->origin.find("at 1000x1000x1000 NT") != std::string::npos, tuned->origin);
  // Step 14's sets keep to the call's layout or none.
  for (TunedEntry &exact : entries)
    exact.step = kExactStep;
  BOOST_TEST(chosen_at(entries, kH100, 1000, "NN") == 2);
}

// A part's own entry of one layout does not hide the architecture's entries at other shapes: an
// H200 with only an NN set for 4096 takes the H100's at 1000, a shape of other edges.
BOOST_AUTO_TEST_CASE(a_parts_own_entries_win_only_near_their_shapes) {
  std::vector<TunedEntry> entries = database();
  entries.push_back(layout_entry("NVIDIA H200", 4096, 9, "NN"));
  auto at = [&](uint32_t size, const std::string &layout) {
    return chosen_at(entries, kH200, size, layout);
  };
  BOOST_TEST(at(4096, "NN") == 9);
  BOOST_TEST(at(4096, "NT") == 1);
  BOOST_TEST(at(1000, "NN") == 2);
  auto tuned = lookup({}, entries, kH200, 1000, 1000, 1000, kExactStep, "NN");
  BOOST_TEST(tuned->origin.find("this architecture") != std::string::npos, tuned->origin);
}

BOOST_AUTO_TEST_CASE(another_part_of_the_architecture_gets_its_entries) {
  auto tuned = lookup({}, database(), kH200, 4096, 4096, 4096);
  BOOST_TEST(chosen_bm(tuned) == 1);
  BOOST_TEST(tuned->origin.find("this architecture") != std::string::npos, tuned->origin);
  std::vector<TunedEntry> both = database();
  both.push_back(entry("NVIDIA H200", 4096, 9));
  BOOST_TEST(chosen_bm(lookup({}, both, kH200, 4096, 4096, 4096)) == 9);
  BOOST_TEST(chosen_bm(lookup({}, both, kH100, 4096, 4096, 4096)) == 1);
}

BOOST_AUTO_TEST_CASE(other_architectures_and_vendors_get_nothing) {
  DeviceFacts ampere{0x10DE, "sm_80", "NVIDIA A100", "580"};
  BOOST_TEST(!lookup({}, database(), ampere, 4096, 4096, 4096).has_value());
  DeviceFacts amd{0x1002, "", "gfx90a", "3614"};
  BOOST_TEST(!lookup({}, database(), amd, 4096, 4096, 4096).has_value());
  DeviceFacts unknown_nvidia{0x10DE, "", "NVIDIA H100 80GB HBM3", "1"}; // no architecture known
  BOOST_TEST(chosen_bm(lookup({}, database(), unknown_nvidia, 64, 64, 64)) == 2);
}

// CPUs are told apart by their SIMD width: a set tuned on an AVX2 part (PoCL's preferred float
// width 8) serves another AVX2 part, not an AVX-512 one (16), which keeps the kernel's defaults.
BOOST_AUTO_TEST_CASE(cpus_find_the_entries_of_their_simd_width) {
  Device cpu;
  cpu.type = CL_DEVICE_TYPE_CPU;
  cpu.vendor_id = 0x8086;
  cpu.name = "pthread-znver3-AMD EPYC 7B13";
  cpu.preferred_vector_width_float = 8;
  BOOST_TEST(facts_of(cpu).architecture == "cpu-simd8");
  BOOST_TEST(cpu_architecture(16) == "cpu-simd16");
  BOOST_TEST(cpu_architecture(0) == "cpu"); // a driver that gives no width
  TunedEntry avx2 = entry("pthread-haswell-AMD EPYC", 2000, 0, "", "matr_mul_tuned.cl");
  avx2.vendor_id = 0x8086;
  avx2.architecture = "cpu-simd8";
  avx2.params = Params{{"RM", 2}};
  auto tuned = lookup({}, {avx2}, facts_of(cpu), 1000, 1000, 1000);
  BOOST_TEST_REQUIRE(tuned.has_value());
  BOOST_TEST(tuned->entry.params.at("RM") == 2);
  BOOST_TEST(tuned->origin.find("this architecture") != std::string::npos, tuned->origin);
  cpu.preferred_vector_width_float = 16;
  BOOST_TEST(!lookup({}, {avx2}, facts_of(cpu), 1000, 1000, 1000).has_value());
}

// The measured set that decides for a call (find_measured_below): of this very device (not
// another of its architecture), of the call's layout and element type, the largest within the
// call's M, N and K; the tuning cache's of this driver and the database's together.
BOOST_AUTO_TEST_CASE(the_measured_set_is_the_largest_within_the_call_on_this_device) {
  const auto scheme = [](const char *device, uint32_t m, uint32_t n, uint32_t k, int64_t bm,
                         const char *driver = "") {
    TunedEntry e =
        measured_entry(device, m, n, k, bm, driver, kWgmmaInt8Step, Element::float64, "ozaki.cl");
    e.layout = "NN";
    return e;
  };
  const std::vector<TunedEntry> database = {scheme("NVIDIA H200", 4096, 4096, 4096, 1),
                                            scheme("NVIDIA H200", 2048, 2048, 2048, 2),
                                            scheme("NVIDIA H200", 8192, 8192, 1024, 3),
                                            scheme("NVIDIA H100 80GB HBM3", 1024, 1024, 1024, 4)};
  const auto measured = [&](const std::vector<TunedEntry> &overlay, const DeviceFacts &device,
                            uint32_t m, uint32_t n, uint32_t k, const std::string &layout = "NN",
                            Element element = Element::float64) {
    return find_measured_below(overlay, database, device, m, n, k, kWgmmaInt8Step, element, layout);
  };
  BOOST_TEST(chosen_bm(measured({}, kH200, 4096, 4096, 4096)) == 1);
  BOOST_TEST(chosen_bm(measured({}, kH200, 6000, 5000, 4100)) == 1);
  BOOST_TEST(chosen_bm(measured({}, kH200, 8192, 8192, 4095)) == 3); // 8192 x 8192 x 1024's
  BOOST_TEST(chosen_bm(measured({}, kH200, 3000, 3000, 3000)) == 2);
  BOOST_TEST(!measured({}, kH200, 2047, 4096, 4096));
  BOOST_TEST(!measured({}, kH200, 4096, 4096, 4096, "NT"));
  BOOST_TEST(!measured({}, kH200, 4096, 4096, 4096, "NN", Element::float32));
  // The H100 has its own set only: the H200's, of its architecture, are not its measurements.
  BOOST_TEST(chosen_bm(measured({}, kH100, 8192, 8192, 8192)) == 4);
  BOOST_TEST(
      !measured({}, DeviceFacts{0x10DE, "sm_90", "NVIDIA H800", "580.159.04"}, 8192, 8192, 8192));
  // The user's cache, of this driver, and the database compete on shape, the cache first at one
  // shape; another driver's is not read.
  const std::vector<TunedEntry> overlay = {scheme("NVIDIA H200", 3000, 3000, 3000, 5, "580.159.04"),
                                           scheme("NVIDIA H200", 2048, 2048, 2048, 7, "580.159.04"),
                                           scheme("NVIDIA H200", 4096, 4096, 4096, 6, "570.00")};
  const auto cached = measured(overlay, kH200, 3500, 3500, 3500);
  BOOST_TEST(chosen_bm(cached) == 5);
  BOOST_TEST(cached->origin.find("tuning cache") == 0, cached->origin);
  BOOST_TEST(chosen_bm(measured(overlay, kH200, 2048, 2048, 2048)) == 7); // cache first at a tie
  // A larger set of the database's within the call is nearer to it than the cache's.
  const auto compiled = measured(overlay, kH200, 8192, 8192, 8192);
  BOOST_TEST(chosen_bm(compiled) == 1);
  BOOST_TEST(compiled->origin.find("database, this device") == 0, compiled->origin);
}

// The measured set that decides for a call whose rival wins at small sizes (find_measured_above):
// of this very device, of the call's layout and element type, naming the parameter asked about,
// the smallest whose M, N and K each reach the call's; the tuning cache (of this driver) and the
// database compete on shape, the cache's first at one shape.
BOOST_AUTO_TEST_CASE(the_measured_set_around_the_call_is_the_smallest_on_this_device) {
  const auto accurate = [](const char *device, uint32_t m, uint32_t n, uint32_t k, int64_t bm,
                           std::optional<int64_t> exact_faster, const char *driver = "") {
    TunedEntry e = measured_entry(device, m, n, k, bm, driver, kAccurateStep, Element::float32,
                                  "matr_mul_wgmma_tf32.cl");
    e.layout = "TN";
    if (exact_faster)
      e.params[kExactFasterParam] = *exact_faster;
    return e;
  };
  const std::vector<TunedEntry> database = {
      accurate("NVIDIA H100 80GB HBM3", 1000, 1000, 1000, 1, 1),
      accurate("NVIDIA H100 80GB HBM3", 2000, 2000, 2000, 2, 0),
      accurate("NVIDIA H100 80GB HBM3", 4096, 4096, 512, 3, 1),
      accurate("NVIDIA H100 80GB HBM3", 1500, 1500, 1500, 4, std::nullopt), // says nothing
      accurate("NVIDIA H200", 4096, 4096, 4096, 5, 1)};
  const auto around = [&](const std::vector<TunedEntry> &overlay, const DeviceFacts &device,
                          uint32_t m, uint32_t n, uint32_t k, const std::string &layout = "TN",
                          Element element = Element::float32) {
    return find_measured_above(overlay, database, device, m, n, k, kAccurateStep, element, layout,
                               kExactFasterParam);
  };
  BOOST_TEST(chosen_bm(around({}, kH100, 1000, 1000, 1000)) == 1);
  BOOST_TEST(chosen_bm(around({}, kH100, 500, 1000, 64)) == 1);
  BOOST_TEST(chosen_bm(around({}, kH100, 1001, 1000, 1000)) == 2); // 1500's names nothing
  BOOST_TEST(chosen_bm(around({}, kH100, 2000, 2000, 300)) == 2);  // 2000³ before 4096² x 512
  BOOST_TEST(chosen_bm(around({}, kH100, 3000, 3000, 300)) == 3);
  BOOST_TEST(!around({}, kH100, 3000, 3000, 3000));
  BOOST_TEST(!around({}, kH100, 1000, 1000, 1000, "NT"));
  BOOST_TEST(!around({}, kH100, 1000, 1000, 1000, "TN", Element::float64));
  // The H200 has its own set only; a part of the architecture with none has nothing.
  BOOST_TEST(chosen_bm(around({}, kH200, 1000, 1000, 1000)) == 5);
  BOOST_TEST(
      !around({}, DeviceFacts{0x10DE, "sm_90", "NVIDIA H800", "580.159.04"}, 1000, 1000, 1000));
  // The cache of this driver, at one shape, before the database; a smaller set of the database
  // around the call before a larger one of the cache; another driver's cache is not read.
  const std::vector<TunedEntry> overlay = {
      accurate("NVIDIA H100 80GB HBM3", 1000, 1000, 1000, 6, 0, "580.159.04"),
      accurate("NVIDIA H100 80GB HBM3", 4096, 4096, 4096, 7, 0, "580.159.04"),
      accurate("NVIDIA H100 80GB HBM3", 800, 800, 800, 8, 0, "570.00")};
  const auto cached = around(overlay, kH100, 900, 900, 900);
  BOOST_TEST(chosen_bm(cached) == 6);
  BOOST_TEST(cached->origin == "tuning cache: NVIDIA H100 80GB HBM3 at 1000x1000x1000 TN",
             cached->origin);
  const auto compiled = around(overlay, kH100, 1500, 1500, 1500);
  BOOST_TEST(chosen_bm(compiled) == 2);
  BOOST_TEST(compiled->origin ==
                 "database, this device: NVIDIA H100 80GB HBM3 at 2000x2000x2000 TN",
             compiled->origin);
  BOOST_TEST(chosen_bm(around(overlay, kH100, 3000, 3000, 3000)) == 7);
}

// 3xTF32's set measured around the call decides with its EXACT_FASTER, for float ACCURATE products
// of one matrix only: 1 runs the FP32 product, 0 or a set that says nothing keeps 3xTF32; never for
// TF32, FASTEST, EXACT, double or a batch.
BOOST_AUTO_TEST_CASE(a_measured_set_gives_float_accurate_to_the_fp32_product) {
  Call call;
  call.precision = Precision::accurate;
  call.m = call.n = call.k = 1000;
  const auto measured = [](std::optional<int64_t> exact_faster) {
    return [exact_faster] {
      Tuned tuned;
      tuned.entry.params = {{"BM", 128}};
      if (exact_faster)
        tuned.entry.params[kExactFasterParam] = *exact_faster;
      tuned.origin = "database, this device: NVIDIA H100 80GB HBM3 at 1000x1000x1000 TN";
      return std::optional(tuned);
    };
  };
  const auto why = exact_product_faster(call, measured(1));
  BOOST_TEST_REQUIRE(why.has_value());
  BOOST_TEST(*why == "the FP32 product: measured faster than 3xTF32 (database, this device: "
                     "NVIDIA H100 80GB HBM3 at 1000x1000x1000 TN)");
  BOOST_TEST(!exact_product_faster(call, measured(0)));
  BOOST_TEST(!exact_product_faster(call, measured(std::nullopt)));
  BOOST_TEST(!exact_product_faster(call, [] { return std::optional<Tuned>(); }));
  for (Precision other : {Precision::tf32, Precision::fastest, Precision::exact}) {
    Call asked = call;
    asked.precision = other;
    BOOST_TEST(!exact_product_faster(asked, measured(1)));
  }
  Call fp64 = call, batched = call;
  fp64.double_precision = true;
  batched.batch = 2;
  BOOST_TEST(!exact_product_faster(fp64, measured(1)));
  BOOST_TEST(!exact_product_faster(batched, measured(1)));
  // The sets are searched only for the calls they can decide.
  int lookups = 0;
  const auto counted = [&] {
    ++lookups;
    return measured(1)();
  };
  for (const Call &undecided : {fp64, batched})
    BOOST_TEST(!exact_product_faster(undecided, counted));
  Call tf32 = call;
  tf32.precision = Precision::tf32;
  BOOST_TEST(!exact_product_faster(tf32, counted));
  BOOST_TEST(lookups == 0);
  BOOST_TEST(exact_product_faster(call, counted).has_value());
  BOOST_TEST(lookups == 1);
}

// The user's tuning cache and the database compete on distance, the cache first at a tie: a set
// tuned at one shape serves near it, and the database's own sets keep theirs.
BOOST_AUTO_TEST_CASE(the_users_tuning_cache_and_the_database_compete_on_shape) {
  std::vector<TunedEntry> overlay{entry("NVIDIA H100 80GB HBM3", 4096, 7, "580.159.04"),
                                  entry("NVIDIA H100 80GB HBM3", 1000, 8, "580.159.04")};
  auto tuned = lookup(overlay, database(), kH100, 4096, 4096, 4096);
  BOOST_TEST(chosen_bm(tuned) == 7);
  BOOST_TEST(tuned->origin == "tuning cache: NVIDIA H100 80GB HBM3 at 4096x4096x4096");
  BOOST_TEST(chosen_bm(lookup(overlay, database(), kH100, 1100, 1100, 1100)) == 8);
  const auto compiled = lookup(overlay, database(), kH100, 2000, 2000, 2000);
  BOOST_TEST(chosen_bm(compiled) == 2);
  BOOST_TEST(compiled->origin == "database, this device: NVIDIA H100 80GB HBM3 at 2000x2000x2000");
  BOOST_TEST(chosen_bm(lookup(overlay, database(), kH100, 8192, 8192, 8192)) == 4);
  BOOST_TEST(chosen_bm(lookup({overlay[1]}, database(), kH100, 4096, 4096, 4096)) == 1);
  // An entry of another driver is not this device's.
  overlay[0].driver = "575.00";
  BOOST_TEST(chosen_bm(lookup(overlay, database(), kH100, 4096, 4096, 4096)) == 1);
}

BOOST_AUTO_TEST_CASE(the_tuning_cache_is_read_as_the_tuner_writes_it) {
  const std::string path = "test_gemm_database_cache.json";
  {
    std::ofstream out(path);
    out << R"({"NVIDIA H100 80GB HBM3 | 580.159.04": {"matr_mul_tuned": {"4096x512x1024": )"
        << R"({"kernel_file": "matr_mul_double_buffered.cl", "params": {"BM": "64", "BK": 8}}},)"
        << R"( "matr_mul_tf32": {"4096x4096x4096": {"kernel_file": "matr_mul_tf32.cl"}}}})";
  }
  std::vector<TunedEntry> overlay = read_tuning_file(path, Reading::tolerant);
  BOOST_TEST_REQUIRE(overlay.size() == 2u); // step 15's set too, which no CLGemm form takes
  BOOST_TEST(overlay[1].step == "matr_mul_tf32");
  BOOST_TEST(!gemm_form_of(overlay[1]).has_value());
  BOOST_TEST((gemm_form_of(overlay[0]) == Family::tiles));
  BOOST_TEST(overlay[0].device == "NVIDIA H100 80GB HBM3");
  BOOST_TEST(overlay[0].driver == "580.159.04");
  BOOST_TEST(overlay[0].m == 4096u);
  BOOST_TEST(overlay[0].k == 512u); // the tuner's key is ROWS1 x COLSROWS x COLS2
  BOOST_TEST(overlay[0].n == 1024u);
  BOOST_TEST(overlay[0].params.at("BM") == 64);
  BOOST_TEST(overlay[0].params.at("BK") == 8);
  {
    std::ofstream out(path);
    out << R"({"NVIDIA H100 80GB HBM3 | 580": {"matr_mul_tuned": {"4096x4)"; // cut short
  }
  BOOST_TEST(read_tuning_file(path, Reading::tolerant).empty());
  BOOST_TEST(read_tuning_file("no/such/file.json", Reading::tolerant).empty());
  std::remove(path.c_str());
}

// The caches of record: PoCL's written by the tuner (numbers as numbers), the H100's by the
// tuner of Boost.PropertyTree's days (every number a string). Both hold the tuner's "_device".
BOOST_AUTO_TEST_CASE(the_caches_of_record_load_with_numbers_or_strings_of_them) {
  std::vector<TunedEntry> pocl = gemm_sets(MQLCL_TEST_TUNINGS "/tuning-pocl.json");
  BOOST_TEST_REQUIRE(pocl.size() == 1u);
  BOOST_TEST(pocl[0].device == "pthread-haswell-AMD EPYC");
  BOOST_TEST(pocl[0].driver == "3.1+debian");
  BOOST_TEST(pocl[0].step == kExactStep);
  BOOST_TEST(pocl[0].vendor_id == 0x8086u);
  BOOST_TEST(pocl[0].architecture == "cpu-simd8");
  BOOST_TEST((pocl[0].m == 2000u && pocl[0].n == 2000u && pocl[0].k == 2000u));
  BOOST_TEST(pocl[0].kernel_file == "matr_mul_tuned.cl");
  BOOST_TEST((pocl[0].params == Params{{"LX", 16}, {"LY", 8}, {"RM", 4}, {"RN", 2}, {"VK", 8}}));

  std::vector<TunedEntry> h100 = gemm_sets(MQLCL_TEST_TUNINGS "/tuning-h100.json");
  std::map<std::string, int> per_form;
  for (const TunedEntry &entry : h100) {
    ++per_form[step_key(entry)];
    BOOST_TEST(entry.driver == "580.159.04");
    BOOST_TEST(!entry.params.empty(), step_key(entry) << " " << entry.m);
  }
  // Only the forms CLGemm takes: each form's own (matr_mul_tuned's 6 sizes, 3xTF32's 3, TF32's
  // 1) and those tuned by tune --gemm for one layout, the double products' among them (step 13's
  // FMA tiles, step 19's tensor-core tiles and the Ozaki scheme's integer products), and the
  // float scheme's integer products.
  BOOST_TEST((per_form == std::map<std::string, int>{{kExactStep, 6},
                                                     {"matr_mul_tuned NN", 3},
                                                     {"matr_mul_tuned NT", 3},
                                                     {"matr_mul_tuned TN", 5},
                                                     {"matr_mul_tuned double NN", 2},
                                                     {"matr_mul_tuned double NT", 1},
                                                     {"matr_mul_tuned double TN", 1},
                                                     {"matr_mul_dmma double NN", 3},
                                                     {"matr_mul_dmma double NT", 5},
                                                     {"matr_mul_dmma double TN", 4},
                                                     {"wgmma_int8 double NN", 2},
                                                     {"wgmma_int8 double NT", 2},
                                                     {"wgmma_int8 double TN", 2},
                                                     {"wgmma_int8 NN", 1},
                                                     {"wgmma_int8 NT", 1},
                                                     {"wgmma_int8 TN", 2},
                                                     {kAccurateStep, 3},
                                                     {"matr_mul_wgmma_tma_3xtf32 NN", 1},
                                                     {"matr_mul_wgmma_tma_3xtf32 TN", 1},
                                                     {"matr_mul_wgmma_tma_3xtf32 NT", 3},
                                                     {kTf32Step, 1},
                                                     {"matr_mul_wgmma_tma_tf32 NN", 1},
                                                     {"matr_mul_wgmma_tma_tf32 NT", 1}}));
  BOOST_TEST_REQUIRE(!h100.empty()); // in the file's order: 4096 first, its BM "128"
  BOOST_TEST((h100[0].m == 4096u && h100[0].params.at("BM") == 128));
  BOOST_TEST(h100[0].params.at("CARRY") == 1);
}

// The database's verdicts of record: float ACCURATE at 1000³ TN and below runs the FP32 product on
// the H200 (3xTF32 ran at 0.95x of its speed there), 3xTF32 past that shape and in other layouts;
// the H100's tune kept 3xTF32 (1.02x), so its database says nothing there.
BOOST_AUTO_TEST_CASE(the_database_gives_small_tn_accurate_products_to_fp32_on_the_h200) {
  const std::vector<TunedEntry> database = compiled_entries();
  const auto fp32 = [&](const DeviceFacts &device, uint32_t size, const char *layout) {
    Call call;
    call.precision = Precision::accurate;
    call.m = call.n = call.k = size;
    return exact_product_faster(call,
                                [&] {
                                  return find_measured_above({}, database, device, size, size, size,
                                                             kAccurateStep, Element::float32,
                                                             layout, kExactFasterParam);
                                })
        .has_value();
  };
  BOOST_TEST(fp32(kH200, 1000, "TN"));
  BOOST_TEST(fp32(kH200, 600, "TN"));
  BOOST_TEST(!fp32(kH200, 1001, "TN"));
  BOOST_TEST(!fp32(kH200, 1000, "NT"));
  BOOST_TEST(!fp32(kH100, 1000, "TN"));
}

BOOST_AUTO_TEST_CASE(a_malformed_entry_is_skipped_and_a_malformed_cache_yields_none) {
  const std::string path = "test_gemm_database_malformed.json";
  write_file(path, R"({"_comment": "no device", "no bar": {"matr_mul_tuned": {"64x64x64": )"
                   R"({"kernel_file": "a.cl"}}}, "GPU | 1": {"_device": {"vendor_id": "0x10DE"},)"
                   R"( "matr_mul_tuned": {)"
                   R"( "64x64x64": {"kernel_file": "a.cl", "params": {"BM": 64.0, "BN": -2}},)"
                   R"( "128x128x128": {"kernel_file": "a.cl", "params": {"BM": "12x"}},)"
                   R"( "256x256x256": {"kernel_file": "a.cl", "params": {"BM": 1.5}},)"
                   R"( "512x512x512": {"kernel_file": "a.cl", "params": {"BM": 1e30}},)"
                   R"( "640x640x640": {"kernel_file": "a.cl", "params": {"BM": true}},)"
                   R"( "768x768x768": {"kernel_file": "a.cl", "params": ["BM", 1]},)"
                   R"( "1024x1024x1024": {"kernel_file": 5}, "2048x2048x2048": {"params": {}},)"
                   R"( "4096x4096": {"kernel_file": "a.cl"}, "8192x8192x8192": "a.cl"},)"
                   R"( "matr_mul_wgmma_tma_tf32": [1, 2],)"
                   R"( "matr_mul_wgmma_tma_3xtf32": {"32x32x32": {"kernel_file": "c.cl"}}}})");
  std::vector<TunedEntry> overlay = read_tuning_file(path, Reading::tolerant);
  BOOST_TEST_REQUIRE(overlay.size() == 2u);
  BOOST_TEST((overlay[0].step == kExactStep && overlay[0].m == 64u));
  BOOST_TEST((overlay[0].params == Params{{"BM", 64}, {"BN", -2}}));
  BOOST_TEST((overlay[1].step == kAccurateStep && overlay[1].m == 32u));
  BOOST_TEST(overlay[1].params.empty()); // no "params": the kernel's defaults
  // A "_device" record of another type than the tuner's strings is as good as none.
  write_file(path, R"({"GPU | 1": {"_device": {"vendor_id": 4318, "architecture": ["sm_90"]},)"
                   R"( "matr_mul_tuned": {"64x64x64": {"kernel_file": "a.cl"}}}})");
  overlay = read_tuning_file(path, Reading::tolerant);
  BOOST_TEST_REQUIRE(overlay.size() == 1u);
  BOOST_TEST(overlay[0].vendor_id == 0u);
  BOOST_TEST(overlay[0].architecture.empty());
  for (const char *text :
       {"", "[]", R"("GPU | 1")", R"({"GPU | 1": {}} trailing)",
        R"([{"GPU | 1": {"matr_mul_tuned": {"64x64x64": {"kernel_file": "a"}}}}])"}) {
    write_file(path, text);
    BOOST_TEST(read_tuning_file(path, Reading::tolerant).empty(), text);
  }
  // The tuner reads strictly: the same file is an error that names what is wrong.
  write_file(path, R"({"GPU | 1": {"matr_mul_tuned": {"64x64x64": {"kernel_file": 5}}}})");
  BOOST_CHECK_THROW(read_tuning_file(path, Reading::strict), std::runtime_error);
  write_file(path, "not JSON");
  BOOST_CHECK_THROW(read_tuning_file(path, Reading::strict), std::runtime_error);
  BOOST_TEST(read_tuning_file("no/such/file.json", Reading::strict).empty());
  std::remove(path.c_str());
}

BOOST_AUTO_TEST_CASE(the_compiled_database_parses_and_serves_both_hopper_parts) {
  const std::vector<TunedEntry> &compiled = compiled_database();
  for (const TunedEntry &entry : compiled) // every line names a form, and its set fits its rules
    BOOST_TEST(gemm_form_of(entry).has_value(), entry.kernel_file << " " << step_key(entry));
  BOOST_TEST_REQUIRE(!compiled.empty());
  for (const DeviceFacts &hopper : {kH100, kH200}) {
    auto tuned = lookup({}, compiled, hopper, 4096, 4096, 4096);
    BOOST_TEST_REQUIRE(tuned.has_value());
    BOOST_TEST(tuned->entry.params.count("BM") == 1u);
  }
  BOOST_CHECK_THROW(parse_params("BM=128 BN"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_params("BM=12x"), std::invalid_argument);
  BOOST_TEST(parse_params(" BM=128  BN=64 ").size() == 2u);
}

BOOST_AUTO_TEST_CASE(the_planner_takes_tuned_sets_that_fit_and_defaults_otherwise) {
  DeviceLimits device = gpu();
  Shape shape{4096, 4096, 4096, 1, 4};
  Plan plan = default_plan(device, shape);
  BOOST_TEST((plan.family == Family::tiles));
  BOOST_TEST(plan.params.at("BM") == 128);
  BOOST_TEST(plan.launch.global[0] == 32u * 32u * 256u);
  BOOST_TEST(plan.launch.local[0] == 256u);
  BOOST_TEST((plan.copy_k_down_a && plan.copy_k_down_b)); // 2^36 multiply-adds
  const Plan small = default_plan(device, Shape{2000, 2000, 2000, 1, 4});
  BOOST_TEST((!small.copy_k_down_a && !small.copy_k_down_b));
  BOOST_TEST(default_plan(device, Shape{4096, 4096, 512, 1, 4}).copy_k_down_a);
  // A tuned set's COPY: neither, both, A's only or B's only.
  Tuned copying{entry("x", 4096, 0), "test"};
  for (int64_t copy : {0, 1, 2, 3}) {
    copying.entry.params = parse_params("BM=128 BN=64 BK=16 TM=8 TN=4 PAD=4");
    copying.entry.params["COPY"] = copy;
    const Plan copies = plan_product(device, Shape{2000, 2000, 2000, 1, 4}, copying);
    BOOST_TEST(copies.copy_k_down_a == (copy == 1 || copy == 2), copy);
    BOOST_TEST(copies.copy_k_down_b == (copy == 1 || copy == 3), copy);
  }

  Tuned tuned{entry("x", 4096, 0), "test"};
  tuned.entry.params = parse_params("BM=128 BN=64 BK=16 TM=8 TN=4 PAD=4");
  plan = plan_product(device, shape, tuned);
  BOOST_TEST(plan.origin == "test");
  BOOST_TEST(plan.launch.global[0] == 32u * 64u * 256u);
  // A set that cannot work here (a zero size, a group too large) falls back to the defaults.
  tuned.entry.params["TM"] = 0;
  BOOST_TEST(plan_product(device, shape, tuned).origin == "defaults");
  tuned.entry.params["TM"] = 1;
  BOOST_TEST(plan_product(device, shape, tuned).origin == "defaults");
  // So does a code form the kernel no longer builds: FMA_ORDER=1, POINTERS without GATHER.
  tuned.entry.params["TM"] = 8;
  tuned.entry.params["FMA_ORDER"] = 1;
  BOOST_TEST(plan_product(device, shape, tuned).origin == "defaults");
  tuned.entry.params["FMA_ORDER"] = 3;
  BOOST_TEST(plan_product(device, shape, tuned).origin == "test");
  tuned.entry.params["POINTERS"] = 1;
  BOOST_TEST(plan_product(device, shape, tuned).origin == "defaults");
  tuned.entry.params["GATHER"] = 1;
  BOOST_TEST(plan_product(device, shape, tuned).origin == "test");
  // Double takes the defaults, in 8-deep slices, where it has no set of its own; a set of its
  // own where its tiles fit at 8 bytes an element: 128 x 64 x 16 needs 50 KiB, not in 48 KiB.
  const Shape doubles{4096, 4096, 4096, 1, 8};
  plan = plan_product(device, doubles, std::nullopt);
  BOOST_TEST(plan.params.at("BK") == 8);
  BOOST_TEST(plan_product(device, doubles, tuned).origin == "defaults");
  DeviceLimits hopper = device;
  hopper.kernel_local_bytes = 226 << 10;
  plan = plan_product(hopper, doubles, tuned);
  BOOST_TEST(plan.origin == "test");
  BOOST_TEST(plan.params.at("BK") == 16);
  // Few tiles: 64 x 64.
  plan = default_plan(device, Shape{256, 256, 4096, 1, 4});
  BOOST_TEST(plan.params.at("BM") == 64);
  // A batch fills the device as well as a large product.
  BOOST_TEST(default_plan(device, Shape{256, 256, 64, 128, 4}).params.at("BM") == 128);

  DeviceLimits cpu = device;
  cpu.dedicated_local_memory = false;
  plan = default_plan(cpu, Shape{1000, 1000, 1000, 3, 4});
  BOOST_TEST((plan.family == Family::registers));
  BOOST_TEST(plan.launch.dimensions == 3u);
  BOOST_TEST(plan.launch.global[2] == 3u);
  BOOST_TEST(plan.launch.global[0] % plan.launch.local[0] == 0u);
}

BOOST_AUTO_TEST_CASE(each_form_looks_up_its_own_entries) {
  std::vector<TunedEntry> entries = database();
  TunedEntry accurate = entry("NVIDIA H100 80GB HBM3", 1000, 64);
  accurate.step = kAccurateStep;
  accurate.kernel_file = "matr_mul_wgmma_tf32.cl";
  entries.push_back(accurate);
  // The FP32 product's lookup never takes another form's entry, however near its size.
  BOOST_TEST(chosen_bm(lookup({}, entries, kH100, 1000, 1000, 1000)) == 2);
  BOOST_TEST(chosen_bm(lookup({}, entries, kH100, 4096, 4096, 4096, kAccurateStep)) == 64);
  BOOST_TEST(!lookup({}, entries, kH100, 4096, 4096, 4096, kTf32Step).has_value());
  // The double product's sets are its own: neither product takes the other's.
  BOOST_TEST(!lookup({}, entries, kH100, 4096, 4096, 4096, kExactStep, "NN", Element::float64));
  entries.push_back(layout_entry("NVIDIA H100 80GB HBM3", 4096, 96, "NN", Element::float64));
  BOOST_TEST(chosen_at(entries, kH100, 4096, "NN", Element::float64) == 96);
  BOOST_TEST(chosen_at(entries, kH200, 1000, "NN", Element::float64) == 96);
  BOOST_TEST(chosen_at(entries, kH100, 4096, "NN") != 96);
}

BOOST_AUTO_TEST_CASE(the_tensor_core_plans_take_tuned_sets_of_their_own_family_only) {
  DeviceLimits device = gpu();
  Shape shape{1000, 1000, 1000, 3, 4};
  Plan plan = tensor_plan(device, shape, Family::tensor_3xtf32);
  BOOST_TEST(plan.origin == "defaults");
  BOOST_TEST(plan.params.at("MODE") == 3);
  BOOST_TEST(plan.launch.global[0] == 16u * 8u * 128u); // 64 x 128 tiles, a warpgroup per 64 rows
  BOOST_TEST(plan.launch.global[1] == 3u);              // the batch
  BOOST_TEST(plan.launch.local[0] == 128u);
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_tf32).params.at("TMA") == 2);

  Tuned tuned{entry("x", 1000, 0, "", "matr_mul_wgmma_tf32.cl"), "test"};
  tuned.entry.step = kAccurateStep;
  tuned.entry.params = parse_params("TMA=1 MODE=3 PARTS=2 BM=64 BN=64 BK=16 STAGES=3 "
                                    "INFLIGHT=0 FLUSH=4 GROUP_M=8");
  plan = tensor_plan(device, shape, Family::tensor_3xtf32, tuned);
  BOOST_TEST(plan.origin == "test");
  BOOST_TEST(plan.launch.global[0] == 16u * 16u * 128u);
  // Another family's set, BN 256 for 3xTF32, and tiles past the local memory are not taken.
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_tf32, tuned).origin == "defaults");
  // TF32 takes sets of its TF32-typed maps only: FP32 maps build, but the inputs are truncated.
  Tuned truncating{entry("x", 1000, 0, "", "matr_mul_wgmma_tf32.cl"), "test"};
  truncating.entry.step = kTf32Step;
  truncating.entry.params = parse_params("TMA=1 MODE=1 BM=64 BN=128 BK=32 STAGES=1 GROUP_M=8");
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_tf32, truncating).origin == "defaults");
  truncating.entry.params["TMA"] = 2;
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_tf32, truncating).origin == "test");
  // A set that leaves a name out runs it at the form's default, not at the kernel file's (the
  // file's BN is step 16's 128; TF32's form takes 256): built and launched alike.
  truncating.entry.params.erase("BN");
  plan = tensor_plan(device, shape, Family::tensor_tf32, truncating);
  BOOST_TEST(plan.origin == "test");
  BOOST_TEST(plan.params.at("BN") == 256);
  BOOST_TEST(plan.params.at("INFLIGHT") == 0);
  BOOST_TEST(plan.launch.global[0] == 16u * 4u * 128u);
  tuned.entry.params["BN"] = 256;
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_3xtf32, tuned).origin == "defaults");
  tuned.entry.params["BN"] = 128;
  tuned.entry.params["BM"] = 128;
  tuned.entry.params["BK"] = 32;
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_3xtf32, tuned).origin == "defaults");
}

// Where no tensor map can be written, a product takes the set it would take through maps, with
// TMA 0 (its tiles laid out by a pass): the tuned set of either family, or the defaults.
BOOST_AUTO_TEST_CASE(without_tensor_maps_the_tensor_core_plans_keep_their_sets) {
  DeviceLimits device = gpu();
  Shape shape{1000, 1000, 1000, 1, 4};
  Tuned tuned{entry("x", 1000, 0, "", "matr_mul_wgmma_tf32.cl"), "test"};
  tuned.entry.step = kTf32Step;
  tuned.entry.params = parse_params("TMA=2 MODE=1 BM=64 BN=256 BK=32 STAGES=1 GROUP_M=8");
  for (Family family : {Family::tensor_tf32, Family::tensor_3xtf32}) {
    const Plan mapped = tensor_plan(device, shape, family);
    const Plan passes = tensor_plan(device, shape, family, std::nullopt, false);
    BOOST_TEST(mapped.params.at("TMA") > 0);
    BOOST_TEST(passes.params.at("TMA") == 0);
    Params without_tma = passes.params;
    without_tma["TMA"] = mapped.params.at("TMA");
    BOOST_TEST((without_tma == mapped.params));
    BOOST_TEST((passes.launch.global == mapped.launch.global));
  }
  const Plan passes = tensor_plan(device, shape, Family::tensor_tf32, tuned, false);
  BOOST_TEST(passes.origin == "test");
  BOOST_TEST(passes.params.at("TMA") == 0);
  BOOST_TEST(passes.params.at("BN") == 256);
}

// Step 19's maps change no result, so the host picks them: where they can be written, the set's
// TMA where it names one, else the copy engine for the operands with K down their rows (TMA=2);
// where they cannot, the work-items' copies (TMA=0), whatever the set says. The set is kept.
BOOST_AUTO_TEST_CASE(step_19_reads_maps_where_they_can_be_written_as_its_set_says) {
  DeviceLimits hopper = gpu();
  hopper.kernel_local_bytes = 226 << 10;
  hopper.fp64_tensor_cores = true;
  const Shape doubles{4096, 4096, 4096, 1, 8};
  Tuned tuned{entry("x", 4096, 0, "", "matr_mul_dmma.cl"), "test"};
  tuned.entry.step = kFp64Step;
  tuned.entry.params = parse_params("BM=64 BN=128 BK=16 WM=64 WN=32 MMA_K=16 STAGES=3 GROUP_M=16");
  for (bool maps : {true, false}) {
    const Plan unasked = tensor_plan(hopper, doubles, Family::tensor_fp64, std::nullopt, maps);
    BOOST_TEST(unasked.params.at("TMA") == (maps ? kFp64MapsUnasked : 0));
    const Plan untold = tensor_plan(hopper, doubles, Family::tensor_fp64, tuned, maps);
    BOOST_TEST(untold.origin == "test");
    BOOST_TEST(untold.params.at("TMA") == (maps ? kFp64MapsUnasked : 0));
    for (int64_t tma : {0, 1, 2, 3}) {
      Tuned told = tuned;
      told.entry.params["TMA"] = tma;
      const Plan plan = tensor_plan(hopper, doubles, Family::tensor_fp64, told, maps);
      BOOST_TEST(plan.origin == "test");
      BOOST_TEST(plan.params.at("TMA") == (maps ? tma : 0));
      BOOST_TEST(plan.params.at("GROUP_M") == 16);
    }
  }
  // Per call: an operand the copy engine would read whose rows or matrices do not align turns it
  // off; one it would not read does not.
  for (bool aligned : {true, false}) {
    BOOST_TEST(fp64_tma_for_call(1, false, false, aligned, true) == (aligned ? 1 : 0));
    BOOST_TEST(fp64_tma_for_call(1, false, true, true, aligned) == (aligned ? 1 : 0));
    BOOST_TEST(fp64_tma_for_call(2, true, false, aligned, true) == (aligned ? 2 : 0));
    BOOST_TEST(fp64_tma_for_call(2, false, true, aligned, true) == 2);
    BOOST_TEST(fp64_tma_for_call(2, false, false, aligned, aligned) == 2); // maps nothing
    BOOST_TEST(fp64_tma_for_call(0, true, true, aligned, aligned) == 0);
    BOOST_TEST(fp64_tma_for_call(3, false, false, true, aligned) == (aligned ? 3 : 0));
    BOOST_TEST(fp64_tma_for_call(3, true, true, aligned, true) == (aligned ? 3 : 0));
  }
  // TMA 3 swizzles rows of 16 doubles: a set of it with other slices is not step 19's.
  Tuned deep = tuned;
  deep.entry.params["TMA"] = 3;
  deep.entry.params["BK"] = 32;
  const Plan refused = tensor_plan(hopper, doubles, Family::tensor_fp64, deep, true);
  BOOST_TEST(refused.origin == "defaults");
  BOOST_TEST(refused.params.at("BK") == 16);
}

// Double runs step 19 on FP64 tensor cores: its own tuned sets ("matr_mul_dmma double LAYOUT"),
// else its defaults; never step 14's sets of step 13's tiles. A family forced (MQLCL_GEMM_KERNEL,
// an operand only step 13 reads in place), float, a device without them, or K past the kernel's
// 32-bit indices runs step 14's plan as before.
BOOST_AUTO_TEST_CASE(double_runs_on_fp64_tensor_cores_where_the_device_has_them) {
  DeviceLimits hopper = gpu();
  hopper.kernel_local_bytes = 226 << 10;
  hopper.fp64_tensor_cores = true;
  const Shape doubles{4096, 4096, 4096, 1, 8};
  std::vector<TunedEntry> database = {
      layout_entry("NVIDIA H100 80GB HBM3", 4096, 128, "NN", Element::float64)};
  TunedEntry fp64 = layout_entry("NVIDIA H100 80GB HBM3", 2000, 64, "NN", Element::float64);
  fp64.step = kFp64Step;
  fp64.kernel_file = "matr_mul_dmma.cl";
  fp64.params = parse_params("BM=64 BN=128 BK=16 WM=32 WN=32 MMA_K=16 STAGES=4 GROUP_M=8");
  const TunedSets none{{}, {}}, with_fp64{{}, {fp64}}, tiles_only{{}, database};

  Plan plan = exact_plan(hopper, kH200, doubles, none, "NN");
  BOOST_TEST((plan.family == Family::tensor_fp64));
  BOOST_TEST(plan.origin == "defaults");
  BOOST_TEST((!plan.copy_k_down_a && !plan.copy_k_down_b)); // NN's B read as it is
  BOOST_TEST(plan.launch.local[0] == 256u);
  BOOST_TEST((exact_plan(hopper, kH200, doubles, tiles_only, "NN").family == Family::tensor_fp64));
  plan = exact_plan(hopper, kH200, doubles, with_fp64, "NN");
  BOOST_TEST(plan.origin.find("database") != std::string::npos, plan.origin);
  BOOST_TEST(plan.params.at("STAGES") == 4);
  BOOST_TEST(plan_text(plan).rfind("matr_mul_dmma.cl ", 0) == 0, plan_text(plan));
  BOOST_TEST((!plan.copy_k_down_a && !plan.copy_k_down_b));
  // Tuned for NN, the set serves NT and TN too (step 19 reads each layout as it is stored) ...
  for (const char *layout : {"NT", "TN"})
    BOOST_TEST(exact_plan(hopper, kH200, doubles, with_fp64, layout).params.at("STAGES") == 4);
  // ... where no set of the call's own layout is found.
  TunedEntry fp64_nt = fp64;
  fp64_nt.layout = "NT";
  fp64_nt.params["STAGES"] = 2;
  const TunedSets both{{}, {fp64, fp64_nt}};
  BOOST_TEST(exact_plan(hopper, kH200, doubles, both, "NT").params.at("STAGES") == 2);
  BOOST_TEST(exact_plan(hopper, kH200, doubles, both, "NN").params.at("STAGES") == 4);
  // A user's tuning cache holding only an NN set leaves NT calls the database's NT set.
  TunedEntry users_nn = fp64;
  users_nn.device = kH200.name;
  users_nn.driver = kH200.driver;
  users_nn.params["STAGES"] = 3;
  const TunedSets cache_nn{{users_nn}, {fp64_nt}};
  BOOST_TEST(exact_plan(hopper, kH200, doubles, cache_nn, "NT").params.at("STAGES") == 2);
  BOOST_TEST(exact_plan(hopper, kH200, doubles, cache_nn, "NN").params.at("STAGES") == 3);
  BOOST_TEST(exact_plan(hopper, kH200, doubles, cache_nn, "TN").params.at("STAGES") == 3);
  database = {fp64};
  database[0].params["COPY"] = 1; // a set tuned copying NN's B first
  plan = exact_plan(hopper, kH200, doubles, TunedSets{{}, database}, "NN");
  BOOST_TEST((plan.copy_k_down_a && plan.copy_k_down_b));
  database[0].params["COPY"] = 2; // A's only: TN as NN
  plan = exact_plan(hopper, kH200, doubles, TunedSets{{}, database}, "TN");
  BOOST_TEST((plan.copy_k_down_a && !plan.copy_k_down_b));

  BOOST_TEST(
      (exact_plan(hopper, kH200, doubles, none, "NN", Family::tiles).family == Family::tiles));
  BOOST_TEST((exact_plan(hopper, kH200, Shape{4096, 4096, 4096, 1, 4}, none, "NN").family ==
              Family::tiles));
  BOOST_TEST((exact_plan(gpu(), kH200, doubles, none, "NN").family == Family::tiles));
  BOOST_TEST((exact_plan(hopper, kH200, Shape{64, 64, 1u << 31, 1, 8}, none, "NN").family ==
              Family::tiles));
  BOOST_TEST(fp64_tensor_cores_of(0x10DE, 90));
  BOOST_TEST(!fp64_tensor_cores_of(0x10DE, 89)); // Ada: m8n8k4 at best, at a sliver of the rate
  BOOST_TEST(!fp64_tensor_cores_of(0x1002, 90));
}
