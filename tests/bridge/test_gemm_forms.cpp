// The GEMM's kernel forms (bridge/src/gemm/forms.hpp), each described once for the library and
// the harness: their defaults are the kernels' own, their rules refuse what the kernels' #error
// lines refuse, and their launches cover the product. No device.
#define BOOST_TEST_MODULE bridge_gemm_forms
#include "gemm/forms.hpp"
#include "gemm/kernels.hpp"

#include <boost/test/unit_test.hpp>

#include <map>
#include <regex>
#include <string>

using namespace mqlcl::gemm;

namespace {

// The kernel's "#ifndef NAME ... #define NAME value" defaults.
std::map<std::string, int64_t> kernel_defaults(const char *file) {
  const std::string text(kernel_text(file));
  const std::regex pair(R"(#ifndef (\w+)[^\n]*\n#define \1 (-?\d+))");
  std::map<std::string, int64_t> found;
  for (std::sregex_iterator it(text.begin(), text.end(), pair), end; it != end; ++it)
    found[(*it)[1].str()] = std::stoll((*it)[2].str());
  return found;
}

// How many forms run `file`.
int forms_of_file(const std::string &file) {
  int count = 0;
  for (const Form *form = forms_begin(); form != forms_end(); ++form)
    count += file == form->kernel_file;
  return count;
}

// A Hopper-like GPU and a CPU as PoCL reports one.
const DeviceLimits kGpu{48 << 10, 1024, 1024, 132, true};
const DeviceLimits kCpu{256 << 10, 4096, 4096, 2, false};
// An H200 as NVIDIA's OpenCL reports one, with the local memory a kernel may take there.
const DeviceLimits kHopper{226 << 10, 1024, 1024, 132, true, true};

Params with(const Form &form, std::initializer_list<std::pair<const char *, int64_t>> changes) {
  Params params = defaults_of(form);
  for (const auto &[name, value] : changes)
    params[name] = value;
  return params;
}

} // namespace

BOOST_AUTO_TEST_CASE(every_default_is_the_kernels_own) {
  for (const Form *form = forms_begin(); form != forms_end(); ++form) {
    const std::map<std::string, int64_t> kernel = kernel_defaults(form->kernel_file);
    BOOST_TEST_REQUIRE(!kernel.empty(), form->kernel_file);
    // A kernel file that one form runs has that form's defaults; where several forms run one
    // (the tensor-map products, variants of step 16's kernel), each names parameters it has.
    // A default that is not the kernel's is the launch's (step 14's work-group shape).
    const bool own = forms_of_file(form->kernel_file) == 1;
    const Shape shape{1000, 1000, 1000, 1, 4};
    for (const auto &[name, value] : defaults_of(*form)) {
      auto found = kernel.find(name);
      if (found == kernel.end()) {
        Params other = defaults_of(*form);
        other[name] = value * 2;
        const Launch launch = form->launch(defaults_of(*form), shape);
        const Launch changed = form->launch(other, shape);
        BOOST_TEST((launch.local != changed.local || launch.global != changed.global),
                   form->name << ": " << name << " is neither the kernel's nor the launch's");
        continue;
      }
      if (own)
        BOOST_TEST(found->second == value, form->name << ": " << name << " is " << found->second
                                                      << " in " << form->kernel_file);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_form_is_found_by_its_family_and_name) {
  for (const Form *form = forms_begin(); form != forms_end(); ++form) {
    BOOST_TEST(&form_of(form->family) == form);
    BOOST_TEST(form_named(form->name) == form);
  }
  BOOST_TEST(form_named("no such form") == nullptr);
}

BOOST_AUTO_TEST_CASE(every_default_set_and_tunable_value_is_one_the_rules_may_take) {
  for (const Form *form = forms_begin(); form != forms_end(); ++form) {
    const bool hopper = form->family == Family::tensor_fp64 || form->family == Family::wgmma_int8;
    const DeviceLimits &device = form->family == Family::registers ? kCpu : hopper ? kHopper : kGpu;
    BOOST_TEST(form->valid(defaults_of(*form), device, 4), form->name);
    for (Varies varies : {Varies::shape, Varies::code, Varies::layout})
      for (const Tunable &tunable : tunables_of(*form, varies)) {
        BOOST_TEST(!tunable.values.empty(), form->name << ": " << tunable.name);
        bool some_value_valid = false;
        for (int64_t value : tunable.values) {
          Params params = defaults_of(*form);
          params[tunable.name] = value;
          some_value_valid = some_value_valid || form->valid(params, device, 4);
        }
        BOOST_TEST(some_value_valid, form->name << ": " << tunable.name);
      }
  }
}

BOOST_AUTO_TEST_CASE(the_tiles_rules_refuse_what_the_kernel_refuses) {
  const Form &tiles = form_of(Family::tiles);
  BOOST_TEST(!tiles.valid(with(tiles, {{"FMA_ORDER", 1}}), kGpu, 4)); // tried, not kept
  BOOST_TEST(!tiles.valid(with(tiles, {{"POINTERS", 1}, {"GATHER", 0}}), kGpu, 4));
  BOOST_TEST(tiles.valid(with(tiles, {{"POINTERS", 1}, {"GATHER", 1}}), kGpu, 4));
  BOOST_TEST(!tiles.valid(with(tiles, {{"TM", 6}}), kGpu, 4));        // not a multiple of 4
  BOOST_TEST(!tiles.valid(with(tiles, {{"PAD", 2}}), kGpu, 4));       // rows not 16-byte aligned
  BOOST_TEST(!tiles.valid(with(tiles, {{"ROTATE_A", 4}}), kGpu, 4));  // 0 to 3
  BOOST_TEST(!tiles.valid(with(tiles, {{"WARP_ROWS", 3}}), kGpu, 4)); // not whole warps
  BOOST_TEST(!tiles.valid(with(tiles, {{"PAIRED_LANES", 1}, {"WARP_ROWS", 32}}), kGpu, 4));
  BOOST_TEST(!tiles.valid(with(tiles, {{"BM", 256}, {"BN", 256}}), kGpu, 4)); // 1024 work-items
                                                                              // and 66 KiB
  // Local memory follows the element: 16-deep 128 x 128 tiles take 34 KiB of float, 68 of double.
  BOOST_TEST(tiles.valid(defaults_of(tiles), kGpu, 4));
  BOOST_TEST(!tiles.valid(defaults_of(tiles), kGpu, 8));
  BOOST_TEST(tiles.valid(with(tiles, {{"BK", 8}}), kGpu, 8));
  // A set from a user's tuning file that leaves names out is judged with the kernel's defaults.
  BOOST_TEST(tiles.valid(Params{{"BM", 64}, {"BN", 64}, {"WARP_ROWS", 4}}, kGpu, 4));
}

BOOST_AUTO_TEST_CASE(the_register_and_tensor_rules_refuse_what_their_kernels_refuse) {
  const Form &registers = form_of(Family::registers);
  BOOST_TEST(!registers.valid(with(registers, {{"VK", 3}}), kCpu, 4));
  BOOST_TEST(!registers.valid(with(registers, {{"LX", 64}, {"LY", 128}}), kCpu, 4));
  BOOST_TEST(!registers.valid(with(registers, {{"RM", 0}}), kCpu, 4));
  for (Family family : {Family::tensor_tf32, Family::tensor_3xtf32}) {
    const Form &tensor = form_of(family);
    BOOST_TEST(!tensor.valid(with(tensor, {{"BN", 96}}), kGpu, 4), tensor.name);
    BOOST_TEST(!tensor.valid(with(tensor, {{"BM", 96}}), kGpu, 4), tensor.name);
    BOOST_TEST(!tensor.valid(with(tensor, {{"BK", 8}}), kGpu, 4), tensor.name);
    BOOST_TEST(!tensor.valid(with(tensor, {{"INFLIGHT", 1}, {"STAGES", 1}}), kGpu, 4));
    BOOST_TEST(!tensor.valid(with(tensor, {{"STAGES", 8}, {"BM", 128}}), kGpu, 4), tensor.name);
  }
  const Form &three = form_of(Family::tensor_3xtf32);
  BOOST_TEST(!three.valid(with(three, {{"BN", 256}}), kGpu, 4)); // over 255 registers
  BOOST_TEST(!three.valid(with(three, {{"FLUSH", 0}}), kGpu, 4));
  BOOST_TEST(!three.valid(with(three, {{"TMA", 2}}), kGpu, 4)); // A through an FP32 map
  const Form &tf32 = form_of(Family::tensor_tf32);
  BOOST_TEST(tf32.valid(with(tf32, {{"TMA", 1}}), kGpu, 4)); // builds: the inputs truncated
  BOOST_TEST(!tf32.valid(with(tf32, {{"TMA", 3}}), kGpu, 4));
  // TMA 0, no maps (the tiles laid out by a pass): both forms, with the maps' rules.
  for (Family family : {Family::tensor_tf32, Family::tensor_3xtf32}) {
    const Form &tensor = form_of(family);
    BOOST_TEST(tensor.valid(with(tensor, {{"TMA", 0}}), kGpu, 4), tensor.name);
    BOOST_TEST(!tensor.valid(with(tensor, {{"TMA", 0}, {"BK", 8}}), kGpu, 4), tensor.name);
    BOOST_TEST(!tensor.valid(with(tensor, {{"TMA", -1}}), kGpu, 4), tensor.name);
  }
  // B_MN 1 (B read as stored K x N): plain TF32 through TF32 maps alone, as the kernel's #error.
  BOOST_TEST(tf32.valid(with(tf32, {{"B_MN", 1}, {"INFLIGHT", 1}, {"STAGES", 2}}), kHopper, 4));
  BOOST_TEST(!tf32.valid(with(tf32, {{"B_MN", 1}, {"TMA", 1}}), kGpu, 4));
  BOOST_TEST(!tf32.valid(with(tf32, {{"B_MN", 1}, {"TMA", 0}}), kGpu, 4));
  BOOST_TEST(!tf32.valid(with(tf32, {{"B_MN", 2}}), kGpu, 4));
  BOOST_TEST(!three.valid(with(three, {{"B_MN", 1}}), kGpu, 4));
}

BOOST_AUTO_TEST_CASE(the_launches_cover_the_product) {
  const Shape shape{1000, 600, 300, 3, 4};
  const Launch tiles = form_of(Family::tiles).launch(defaults_of(form_of(Family::tiles)), shape);
  BOOST_TEST(tiles.dimensions == 2u);
  BOOST_TEST(tiles.local[0] == 256u); // 128 / 8 x 128 / 8 work-items
  BOOST_TEST(tiles.global[0] == 8u * 5u * 256u);
  BOOST_TEST(tiles.global[1] == 3u);
  const Launch registers =
      form_of(Family::registers).launch(defaults_of(form_of(Family::registers)), shape);
  BOOST_TEST(registers.dimensions == 3u);
  BOOST_TEST(registers.global[0] == 160u); // 600 / 4 columns of work-items, in groups of 16
  BOOST_TEST(registers.global[1] == 252u); // 1000 / 4 rows, in groups of 4
  BOOST_TEST(registers.global[2] == 3u);
  const Launch tensor =
      form_of(Family::tensor_tf32).launch(defaults_of(form_of(Family::tensor_tf32)), shape);
  BOOST_TEST(tensor.local[0] == 128u); // a warpgroup per 64 rows
  BOOST_TEST(tensor.global[0] == 16u * 3u * 128u);
  // B_MN: the tiles of C^T, BM of C's 600 columns by BN of its 1000 rows.
  const Launch transposed =
      form_of(Family::tensor_tf32).launch(with(form_of(Family::tensor_tf32), {{"B_MN", 1}}), shape);
  BOOST_TEST(transposed.global[0] == 10u * 4u * 128u);
  const Launch fp64 =
      form_of(Family::tensor_fp64).launch(defaults_of(form_of(Family::tensor_fp64)), shape);
  BOOST_TEST(fp64.local[0] == 256u); // 128 / 64 x 128 / 32 warps
  BOOST_TEST(fp64.global[0] == 8u * 5u * 256u);
  BOOST_TEST(fp64.global[1] == 3u);
}

BOOST_AUTO_TEST_CASE(the_fp64_tensor_rules_refuse_what_their_kernel_refuses) {
  const Form &fp64 = form_of(Family::tensor_fp64);
  BOOST_TEST(fp64.valid(defaults_of(fp64), kHopper, 8));
  BOOST_TEST(!fp64.valid(defaults_of(fp64), kGpu, 8)); // 120 KiB of padded tiles, three stages
  // Two stages of 128 + 128 rows of 8 doubles padded by 4: exactly 48 KiB.
  BOOST_TEST(fp64.valid(with(fp64, {{"STAGES", 2}, {"BK", 8}, {"MMA_K", 8}}), kGpu, 8));
  BOOST_TEST(!fp64.valid(with(fp64, {{"STAGES", 2}, {"BN", 64}}), kGpu, 8)); // 16-deep: 60 KiB
  BOOST_TEST(!fp64.valid(with(fp64, {{"MMA_K", 4}}), kHopper, 8)); // m16n8k4: not a choice
  BOOST_TEST(!fp64.valid(with(fp64, {{"BK", 8}}), kHopper, 8));    // less than one m16n8k16
  BOOST_TEST(fp64.valid(with(fp64, {{"BK", 8}, {"MMA_K", 8}}), kHopper, 8));
  BOOST_TEST(!fp64.valid(with(fp64, {{"WM", 48}}), kHopper, 8));    // 128 rows in warps of 48
  BOOST_TEST(!fp64.valid(with(fp64, {{"WN", 12}}), kHopper, 8));    // not whole n8 tiles
  BOOST_TEST(!fp64.valid(with(fp64, {{"STAGES", 1}}), kHopper, 8)); // nothing in flight
  BOOST_TEST(!fp64.valid(with(fp64, {{"STAGES", 5}}), kHopper, 8));
  BOOST_TEST(!fp64.valid(with(fp64, {{"WN", 64}}), kHopper, 8)); // 128 accumulator doubles
  // One warp cannot copy 128 lines' worth of a K row of A (read in place) in 16-byte pieces.
  BOOST_TEST(!fp64.valid(with(fp64, {{"BN", 8}, {"WM", 128}, {"WN", 8}}), kHopper, 8));
  // 16 warps of 16 x 16 cannot share 8-deep tiles of 64 lines out in whole 16-byte copies.
  BOOST_TEST(fp64.valid(with(fp64, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"MMA_K", 8}}), kHopper, 8));
  BOOST_TEST(!fp64.valid(
      with(fp64, {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"MMA_K", 8}, {"WM", 16}, {"WN", 16}}),
      kHopper, 8));
}

BOOST_AUTO_TEST_CASE(the_wgmma_int8_rules_refuse_what_their_kernel_refuses) {
  const Form &wgmma = form_of(Family::wgmma_int8);
  BOOST_TEST(wgmma.valid(defaults_of(wgmma), kHopper, 1)); // five stages of 448 x 64 chars
  BOOST_TEST(!wgmma.valid(defaults_of(wgmma), kGpu, 1));   // 140 KiB of local memory
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"TENSOR_CORES", 1}}), kHopper, 1)); // mma.sync's form
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"BM", 96}}), kHopper, 1));          // warpgroups of 64 rows
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"BN", 192}}), kHopper, 1)); // wgmma's N: 64, 128, 256
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"BK", 256}}), kHopper, 1)); // past the 128-byte swizzle
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"INFLIGHT", 2}}), kHopper, 1));
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"STAGES", 2}}), kHopper, 1)); // INFLIGHT 1 needs 3
  BOOST_TEST(wgmma.valid(with(wgmma, {{"STAGES", 2}, {"INFLIGHT", 0}}), kHopper, 1));
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"BN", 64}, {"STAGES", 6}}), kHopper, 1));  // at most 5
  BOOST_TEST(wgmma.valid(with(wgmma, {{"BK", 128}, {"STAGES", 4}}), kHopper, 1));  // 224 KiB
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"BK", 128}, {"STAGES", 5}}), kHopper, 1)); // 280 KiB
  BOOST_TEST(wgmma.valid(with(wgmma, {{"BM", 128}, {"BK", 128}, {"STAGES", 4}}), kHopper, 1));
  // Three warpgroups of 128 accumulators fit the register file (384 x 168); four do not.
  BOOST_TEST(!wgmma.valid(with(wgmma, {{"BM", 256}, {"STAGES", 3}}), kHopper, 1));
  BOOST_TEST(wgmma.valid(with(wgmma, {{"BM", 256}, {"BN", 128}, {"STAGES", 3}}), kHopper, 1));
  // Every plane in one launch: 192 x 256 tiles of three warpgroups.
  const Launch launch = wgmma.launch(defaults_of(wgmma), Shape{1000, 600, 300, 17 * 3, 1});
  BOOST_TEST(launch.local[0] == 384u);
  BOOST_TEST(launch.global[0] == 6u * 3u * 384u);
  BOOST_TEST(launch.global[1] == 51u);
}

BOOST_AUTO_TEST_CASE(the_int8_tensor_rules_refuse_what_their_kernel_refuses) {
  const Form &int8 = form_of(Family::tensor_int8);
  BOOST_TEST(int8.valid(defaults_of(int8), kGpu, 1)); // three stages of 256 x 64 chars: 48 KiB
  BOOST_TEST(!int8.valid(with(int8, {{"STAGES", 4}}), kGpu, 1));
  BOOST_TEST(int8.valid(with(int8, {{"STAGES", 4}}), kHopper, 1));
  BOOST_TEST(!int8.valid(with(int8, {{"TENSOR_CORES", 0}}), kHopper, 1)); // the portable form's
  BOOST_TEST(!int8.valid(with(int8, {{"BK", 48}}), kHopper, 1));          // not whole k32 mmas
  BOOST_TEST(!int8.valid(with(int8, {{"WN", 24}}), kHopper, 1));          // B's fragments in pairs
  BOOST_TEST(!int8.valid(with(int8, {{"WM", 48}}), kHopper, 1));          // 128 rows in warps of 48
  BOOST_TEST(!int8.valid(with(int8, {{"WN", 128}, {"BN", 128}}), kHopper, 1)); // 256 accumulators
  BOOST_TEST(!int8.valid(with(int8, {{"STAGES", 1}}), kHopper, 1));
  BOOST_TEST(!int8.valid(with(int8, {{"STAGES", 5}}), kHopper, 1));
  // 16 warps of 16 x 16 cannot share 32-deep tiles of 64 lines out in whole 16-byte copies.
  BOOST_TEST(!int8.valid(with(int8, {{"BM", 64}, {"BN", 64}, {"BK", 32}, {"WM", 16}, {"WN", 16}}),
                         kHopper, 1));
  // Every plane (moduli x products) in one launch: 128 x 128 tiles of 4 warps.
  const Launch launch = int8.launch(defaults_of(int8), Shape{1000, 600, 300, 17 * 3, 1});
  BOOST_TEST(launch.local[0] == 128u);
  BOOST_TEST(launch.global[0] == 8u * 5u * 128u);
  BOOST_TEST(launch.global[1] == 51u);
}
