// The GEMM's tuned-parameter lookup (bridge/src/gemm/database.hpp) and planner, on entries and
// devices the tests describe: exact device first, then architecture, then nothing (defaults);
// the user's tuning cache before the database; the nearest size class of the same edge shape.
#define BOOST_TEST_MODULE bridge_gemm_database
#include "devices.hpp"
#include "gemm/database.hpp"
#include "gemm/planner.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <fstream>
#include <stdexcept>

using namespace mqlcl;
using namespace mqlcl::gemm;

namespace {

TunedEntry entry(const char *device, uint32_t size, int64_t bm, const char *driver = "") {
  return TunedEntry{0x10DE,
                    "sm_90",
                    device,
                    driver,
                    size,
                    size,
                    size,
                    "matr_mul_double_buffered.cl",
                    Params{{"BM", bm}}};
}

const DeviceFacts kH100{0x10DE, "sm_90", "NVIDIA H100 80GB HBM3", "580.159.04"};
const DeviceFacts kH200{0x10DE, "sm_90", "NVIDIA H200", "580.159.04"};

std::vector<TunedEntry> database() {
  return {entry("NVIDIA H100 80GB HBM3", 4096, 1), entry("NVIDIA H100 80GB HBM3", 2000, 2),
          entry("NVIDIA H100 80GB HBM3", 4097, 3), entry("NVIDIA H100 80GB HBM3", 8192, 4)};
}

int64_t chosen_bm(const std::optional<Tuned> &tuned) {
  BOOST_TEST_REQUIRE(tuned.has_value());
  return tuned->entry.params.at("BM");
}

Device gpu() {
  Device device;
  device.type = CL_DEVICE_TYPE_GPU;
  device.max_work_group_size = 1024;
  device.local_mem_size = 48 << 10;
  device.dedicated_local_memory = true;
  device.compute_units = 132;
  return device;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_exact_device_comes_first_at_the_nearest_size_class) {
  BOOST_TEST(chosen_bm(find_tuned({}, database(), kH100, 4096, 4096, 4096)) == 1);
  BOOST_TEST(chosen_bm(find_tuned({}, database(), kH100, 4096, 4096, 512)) == 1);
  BOOST_TEST(chosen_bm(find_tuned({}, database(), kH100, 8192, 8192, 4096)) == 4);
  BOOST_TEST(chosen_bm(find_tuned({}, database(), kH100, 1000, 1000, 1000)) == 2);
  BOOST_TEST(chosen_bm(find_tuned({}, database(), kH100, 5000, 5000, 5000)) == 3);
  // 1024 is whole tiles: the whole-tile entries are preferred over the nearer 2000.
  BOOST_TEST(chosen_bm(find_tuned({}, database(), kH100, 1024, 1024, 1024)) == 1);
  auto tuned = find_tuned({}, database(), kH100, 4096, 4096, 4096);
  BOOST_TEST(tuned->origin.find("this device") != std::string::npos, tuned->origin);
}

BOOST_AUTO_TEST_CASE(another_part_of_the_architecture_gets_its_entries) {
  auto tuned = find_tuned({}, database(), kH200, 4096, 4096, 4096);
  BOOST_TEST(chosen_bm(tuned) == 1);
  BOOST_TEST(tuned->origin.find("this architecture") != std::string::npos, tuned->origin);
  std::vector<TunedEntry> both = database();
  both.push_back(entry("NVIDIA H200", 4096, 9));
  BOOST_TEST(chosen_bm(find_tuned({}, both, kH200, 4096, 4096, 4096)) == 9);
  BOOST_TEST(chosen_bm(find_tuned({}, both, kH100, 4096, 4096, 4096)) == 1);
}

BOOST_AUTO_TEST_CASE(other_architectures_and_vendors_get_nothing) {
  DeviceFacts ampere{0x10DE, "sm_80", "NVIDIA A100", "580"};
  BOOST_TEST(!find_tuned({}, database(), ampere, 4096, 4096, 4096).has_value());
  DeviceFacts amd{0x1002, "", "gfx90a", "3614"};
  BOOST_TEST(!find_tuned({}, database(), amd, 4096, 4096, 4096).has_value());
  DeviceFacts unknown_nvidia{0x10DE, "", "NVIDIA H100 80GB HBM3", "1"}; // no architecture known
  BOOST_TEST(chosen_bm(find_tuned({}, database(), unknown_nvidia, 64, 64, 64)) == 2);
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
  TunedEntry avx2{0x8086, "cpu-simd8",         "pthread-haswell-AMD EPYC", "", 2000, 2000,
                  2000,   "matr_mul_tuned.cl", Params{{"RM", 2}}};
  auto tuned = find_tuned({}, {avx2}, facts_of(cpu), 1000, 1000, 1000);
  BOOST_TEST_REQUIRE(tuned.has_value());
  BOOST_TEST(tuned->entry.params.at("RM") == 2);
  BOOST_TEST(tuned->origin.find("this architecture") != std::string::npos, tuned->origin);
  cpu.preferred_vector_width_float = 16;
  BOOST_TEST(!find_tuned({}, {avx2}, facts_of(cpu), 1000, 1000, 1000).has_value());
}

BOOST_AUTO_TEST_CASE(the_users_tuning_cache_comes_before_the_database) {
  std::vector<TunedEntry> overlay{entry("NVIDIA H100 80GB HBM3", 4096, 7, "580.159.04")};
  auto tuned = find_tuned(overlay, database(), kH100, 4096, 4096, 4096);
  BOOST_TEST(chosen_bm(tuned) == 7);
  BOOST_TEST(tuned->origin.find("tuning cache") != std::string::npos, tuned->origin);
  // An entry of another driver is not this device's.
  overlay[0].driver = "575.00";
  BOOST_TEST(chosen_bm(find_tuned(overlay, database(), kH100, 4096, 4096, 4096)) == 1);
}

BOOST_AUTO_TEST_CASE(the_tuning_cache_is_read_as_the_tuner_writes_it) {
  const std::string path = "test_gemm_database_cache.json";
  {
    std::ofstream out(path);
    out << R"({"NVIDIA H100 80GB HBM3 | 580.159.04": {"matr_mul_tuned": {"4096x512x1024": )"
        << R"({"kernel_file": "matr_mul_double_buffered.cl", "params": {"BM": "64", "BK": 8}}},)"
        << R"( "matr_mul_tf32": {"4096x4096x4096": {"kernel_file": "matr_mul_tf32.cl"}}}})";
  }
  std::vector<TunedEntry> overlay = read_overlay(path);
  BOOST_TEST_REQUIRE(overlay.size() == 1u);
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
  BOOST_TEST(read_overlay(path).empty());
  BOOST_TEST(read_overlay("no/such/file.json").empty());
  std::remove(path.c_str());
}

BOOST_AUTO_TEST_CASE(the_compiled_database_parses_and_serves_both_hopper_parts) {
  const std::vector<TunedEntry> &compiled = compiled_database();
  BOOST_TEST_REQUIRE(!compiled.empty());
  for (const DeviceFacts &hopper : {kH100, kH200}) {
    auto tuned = find_tuned({}, compiled, hopper, 4096, 4096, 4096);
    BOOST_TEST_REQUIRE(tuned.has_value());
    BOOST_TEST(tuned->entry.params.count("BM") == 1u);
  }
  BOOST_CHECK_THROW(parse_params("BM=128 BN"), std::invalid_argument);
  BOOST_CHECK_THROW(parse_params("BM=12x"), std::invalid_argument);
  BOOST_TEST(parse_params(" BM=128  BN=64 ").size() == 2u);
}

BOOST_AUTO_TEST_CASE(the_planner_takes_tuned_sets_that_fit_and_defaults_otherwise) {
  Device device = gpu();
  Shape shape{4096, 4096, 4096, 1, 4};
  Plan plan = default_plan(device, shape);
  BOOST_TEST((plan.family == Family::tiles));
  BOOST_TEST(plan.params.at("BM") == 128);
  BOOST_TEST(plan.global[0] == 32u * 32u * 256u);
  BOOST_TEST(plan.local[0] == 256u);
  BOOST_TEST(plan.copy_k_down_operands); // 2^36 multiply-adds
  BOOST_TEST(!default_plan(device, Shape{2000, 2000, 2000, 1, 4}).copy_k_down_operands);
  BOOST_TEST(default_plan(device, Shape{4096, 4096, 512, 1, 4}).copy_k_down_operands);

  Tuned tuned{TunedEntry{0x10DE, "sm_90", "x", "", 4096, 4096, 4096, "matr_mul_double_buffered.cl",
                         parse_params("BM=128 BN=64 BK=16 TM=8 TN=4 PAD=4")},
              "test"};
  plan = plan_product(device, shape, tuned);
  BOOST_TEST(plan.origin == "test");
  BOOST_TEST(plan.global[0] == 32u * 64u * 256u);
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
  // Double takes the defaults, in 8-deep slices.
  plan = plan_product(device, Shape{4096, 4096, 4096, 1, 8}, std::nullopt);
  BOOST_TEST(plan.params.at("BK") == 8);
  // Few tiles: 64 x 64.
  plan = default_plan(device, Shape{256, 256, 4096, 1, 4});
  BOOST_TEST(plan.params.at("BM") == 64);
  // A batch fills the device as well as a large product.
  BOOST_TEST(default_plan(device, Shape{256, 256, 64, 128, 4}).params.at("BM") == 128);

  Device cpu = device;
  cpu.type = CL_DEVICE_TYPE_CPU;
  cpu.dedicated_local_memory = false;
  plan = default_plan(cpu, Shape{1000, 1000, 1000, 3, 4});
  BOOST_TEST((plan.family == Family::registers));
  BOOST_TEST(plan.dimensions == 3u);
  BOOST_TEST(plan.global[2] == 3u);
  BOOST_TEST(plan.global[0] % plan.local[0] == 0u);
}

BOOST_AUTO_TEST_CASE(each_form_looks_up_its_own_entries) {
  std::vector<TunedEntry> entries = database();
  TunedEntry accurate = entry("NVIDIA H100 80GB HBM3", 1000, 64);
  accurate.form = kAccurateForm;
  accurate.kernel_file = "matr_mul_wgmma_tf32.cl";
  entries.push_back(accurate);
  // The FP32 product's lookup never takes another form's entry, however near its size.
  BOOST_TEST(chosen_bm(find_tuned({}, entries, kH100, 1000, 1000, 1000)) == 2);
  BOOST_TEST(chosen_bm(find_tuned({}, entries, kH100, 4096, 4096, 4096, kAccurateForm)) == 64);
  BOOST_TEST(!find_tuned({}, entries, kH100, 4096, 4096, 4096, kTf32Form).has_value());
}

BOOST_AUTO_TEST_CASE(the_tensor_core_plans_take_tuned_sets_of_their_own_family_only) {
  Device device = gpu();
  Shape shape{1000, 1000, 1000, 3, 4};
  Plan plan = tensor_plan(device, shape, Family::tensor_3xtf32);
  BOOST_TEST(plan.origin == "defaults");
  BOOST_TEST(plan.params.at("MODE") == 3);
  BOOST_TEST(plan.global[0] == 16u * 8u * 128u); // 64 x 128 tiles, a warpgroup per 64 rows
  BOOST_TEST(plan.global[1] == 3u);              // the batch
  BOOST_TEST(plan.local[0] == 128u);
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_tf32).params.at("TMA") == 2);

  Tuned tuned{TunedEntry{0x10DE, "sm_90", "x", "", 1000, 1000, 1000, "matr_mul_wgmma_tf32.cl",
                         parse_params("TMA=1 MODE=3 PARTS=2 BM=64 BN=64 BK=16 STAGES=3 "
                                      "INFLIGHT=0 FLUSH=4 GROUP_M=8"),
                         kAccurateForm},
              "test"};
  plan = tensor_plan(device, shape, Family::tensor_3xtf32, tuned);
  BOOST_TEST(plan.origin == "test");
  BOOST_TEST(plan.global[0] == 16u * 16u * 128u);
  // Another family's set, BN 256 for 3xTF32, and tiles past the local memory are not taken.
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_tf32, tuned).origin == "defaults");
  tuned.entry.params["BN"] = 256;
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_3xtf32, tuned).origin == "defaults");
  tuned.entry.params["BN"] = 128;
  tuned.entry.params["BM"] = 128;
  tuned.entry.params["BK"] = 32;
  BOOST_TEST(tensor_plan(device, shape, Family::tensor_3xtf32, tuned).origin == "defaults");
}
