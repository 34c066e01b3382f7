// The GEMM's kernel forms, each described once: its kernel file, its defaults (the kernel's own
// #ifndef values, checked by test_bridge_gemm_forms), what the tuner may vary, the rules a set of
// parameters must meet to build and run on a device, and its launch. The library's planner and
// the harness's catalogue and tuner read the same descriptions (this file is compiled into both,
// as the static library mqlcl_gemm_plans): adding a form is adding one description here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mqlcl::gemm {

using Params = std::map<std::string, int64_t>;

// Step 13's tiles staged in dedicated local memory (GPUs), step 14's register-blocked form where
// local memory is part of global memory (CPUs), on Hopper's tensor cores step 18's TF32
// product and its 3xTF32 (FP32-accurate) form, and step 19's double product on its FP64 ones;
// and the Ozaki scheme's integer products modulo small primes (ozaki.hpp), in portable OpenCL C and
// on INT8 tensor cores (mma.sync, and Hopper's wgmma).
enum class Family {
  tiles,
  registers,
  tensor_tf32,
  tensor_3xtf32,
  tensor_fp64,
  integer_residues,
  tensor_int8,
  wgmma_int8
};

// What a form's rules need of a device.
struct DeviceLimits {
  uint64_t kernel_local_bytes = 0; // what a kernel's own __local arrays may take
  uint64_t max_work_group_size = 0;
  uint64_t max_work_item_size0 = 0; // CL_DEVICE_MAX_WORK_ITEM_SIZES[0]
  uint32_t compute_units = 0;
  bool dedicated_local_memory = false; // CL_DEVICE_LOCAL_MEM_TYPE == CL_LOCAL
  // FP64 tensor cores that step 19's mma.sync shapes reach: an NVIDIA GPU of compute
  // capability 9.0 (fp64_tensor_cores_of).
  bool fp64_tensor_cores = false;
  // INT8 tensor cores that the Ozaki scheme's mma.sync m16n8k32 reaches: an NVIDIA GPU of compute
  // capability 8.0 or later (int8_tensor_cores_of).
  bool int8_tensor_cores = false;
  // Hopper's warpgroup instruction, wgmma, for the same products: compute capability 9.0, built
  // for sm_90a (wgmma_of).
  bool int8_wgmma = false;
};

// Whether a device of `vendor_id` and `compute_capability` (major * 10 + minor; 0 where the
// driver says none) has them.
bool fp64_tensor_cores_of(uint32_t vendor_id, uint32_t compute_capability);
bool int8_tensor_cores_of(uint32_t vendor_id, uint32_t compute_capability);
bool wgmma_of(uint32_t vendor_id, uint32_t compute_capability);

// The form of the Ozaki scheme's integer products a device runs first (wgmma, else mma.sync, else
// the portable form): the form whose measured sets decide whether the scheme runs unasked.
Family scheme_form(const DeviceLimits &limits);

// A product's dimensions and element size (4 float, 8 double).
struct Shape {
  uint32_t m = 0, n = 0, k = 0;
  uint32_t batch = 1;
  size_t element_size = 4;
};

struct Launch {
  uint32_t dimensions = 2;
  std::array<size_t, 3> global{1, 1, 1};
  std::array<size_t, 3> local{1, 1, 1};
};

// A parameter the tuner varies, and the values it tries.
struct Tunable {
  std::string name;
  std::vector<int64_t> values;
};

// The descriptions are constant data (a DLL keeps nothing to free for them): names and values
// in fixed arrays, read as Params and Tunables through the functions below.
struct Value {
  const char *name = nullptr;
  int64_t value = 0;
};
// What a tunable varies: the tile shape, the code's form or the layout in local memory of one
// tile shape (the tuner tries the latter two on the fastest shapes only).
enum class Varies { shape, code, layout };
struct Values {
  const char *name = nullptr;
  Varies varies = Varies::shape;
  std::array<int64_t, 4> values{};
  size_t count = 0;
};
inline constexpr size_t kMaxParams = 16;

struct Form {
  Family family;
  const char *name;                       // "tiles", as the database names it
  const char *kernel_file;                // in kernels/
  std::array<Value, kMaxParams> defaults; // the kernel's #ifndef values, the untuned set
  std::array<Values, kMaxParams> tunables;
  // Whether `params` (missing names at their defaults) builds and runs on `device` with elements
  // of `element_size` bytes: the kernel's #error lines, its local memory and its work-group.
  bool (*valid)(const Params &params, const DeviceLimits &device, size_t element_size);
  Launch (*launch)(const Params &params, const Shape &shape);
};

// Every form, in Family's order.
const Form *forms_begin();
const Form *forms_end();
const Form &form_of(Family family);
// The form whose name is `name`; nullptr where none is.
const Form *form_named(const std::string &name);

Params defaults_of(const Form &form);
// `set` with the form's defaults for the names it leaves out: what the kernel is built and
// launched with. (Forms that share a kernel file have defaults of their own, not the file's.)
Params over_defaults(const Form &form, const Params &set);
// The form's tunables that vary `what`.
std::vector<Tunable> tunables_of(const Form &form, Varies what);

// `params`' value of `name`, else the form's default, else 0.
int64_t value_of(const Form &form, const Params &params, const char *name);

// Whether `family` runs on the tensor cores.
bool is_tensor(Family family);

} // namespace mqlcl::gemm
