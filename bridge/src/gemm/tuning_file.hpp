// Tuned parameter sets: the tuning file that `mqlcl-replay tune` writes and CLGemm reads over its
// compiled database, one codec for both sides, and the one lookup that picks a set for a call.
//
// The file is JSON: {"DEVICE NAME | DRIVER": {"_device": {"vendor_id": "0x10DE", "architecture":
// "sm_90"}, "STEP[ double][ LAYOUT]": {"MxKxN": {"kernel_file", "rows1", "colsrows", "cols2",
// "gflops", "measured", "params": {NAME: value}}}}}; a step is the tuner's (the replay's step,
// or for CLGemm's sets the step its kernel forms are tuned as, step_of).
// The compiled database (database.inc, generated from the files in tunings/ by `mqlcl-replay
// gemm-database`) holds CLGemm's sets by kernel form, element type and layout.
#pragma once

#include "gemm/forms.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mqlcl::gemm {

enum class Element { float32, float64 };
const char *element_name(Element element); // "float", "double"

// The tuner's steps whose sets CLGemm runs: step 14's exact product (step 13's tiles or its CPU
// form), step 18's TF32 and 3xTF32 products, and step 19's double product on FP64 tensor cores.
inline constexpr const char *kExactStep = "matr_mul_tuned";
inline constexpr const char *kTf32Step = "matr_mul_wgmma_tma_tf32";
inline constexpr const char *kAccurateStep = "matr_mul_wgmma_tma_3xtf32";
inline constexpr const char *kFp64Step = "matr_mul_dmma";
// The Ozaki scheme's integer products, portable and on INT8 tensor cores (no tuner step runs them
// yet: their sets go by these).
inline constexpr const char *kIntegerResiduesStep = "integer_residues";
inline constexpr const char *kTensorInt8Step = "tensor_int8";
inline constexpr const char *kWgmmaInt8Step = "wgmma_int8";
// The host's parameter of a tuned set of the scheme, not its kernels': 1 where `mqlcl-replay tune
// matr_mul_tuned --gemm LAYOUT --double --accurate` measured the whole scheme faster than the FP64
// product at the set's shape on the device, 0 where it did not (gemm/ozaki.hpp, ozaki_unasked).
inline constexpr const char *kUnaskedParam = "UNASKED";
// The host's parameter of a tuned 3xTF32 set, not its kernel's: 1 where `mqlcl-replay tune
// matr_mul_wgmma_tma_3xtf32 --gemm LAYOUT` measured the FP32 product (MQLCL_GEMM_EXACT's) faster
// than 3xTF32 with the set at its shape and layout on the device, 0 where it did not: float
// MQLCL_GEMM_ACCURATE then runs the FP32 product (tensor_cores.hpp, exact_product_faster).
inline constexpr const char *kExactFasterParam = "EXACT_FASTER";
// A set tuned for one layout of A and B (`tune --gemm LAYOUT`: A, then B; T stored transposed).
inline constexpr const char *kLayouts[] = {"NN", "NT", "TN", "TT"};

struct TunedEntry {
  std::string device;       // CL_DEVICE_NAME
  std::string driver;       // CL_DRIVER_VERSION; "" in the compiled database
  uint32_t vendor_id = 0;   // the file's "_device" record; 0 where it has none
  std::string architecture; // "sm_90", "cpu-simd8"; "" where nothing finer than the vendor is known
  std::string step = kExactStep;
  Element element = Element::float32;
  std::string layout; // one of kLayouts; "": tuned through the replay (A by rows, B by columns)
  uint32_t m = 0, n = 0, k = 0;
  std::string kernel_file;
  Params params;
  double gflops = 0;
  std::string measured; // UTC, ISO 8601
};

// The CLGemm form `entry` is a set of (its kernel file's, for one of CLGemm's steps); none for a
// set of another of the replay's steps.
std::optional<Family> gemm_form_of(const TunedEntry &entry);
// The step a form's sets are tuned as.
const char *step_of(Family family);

// "STEP[ double][ LAYOUT]", the file's key of an entry's step; and back (false: not such a key).
std::string step_key(const TunedEntry &entry);
bool read_step_key(const std::string &key, TunedEntry &entry);

// The tuning file: MQLCL_TUNE_CACHE, else %LOCALAPPDATA%\mqlcl\tuning.json on Windows,
// $XDG_CACHE_HOME/mqlcl/tuning.json, or ~/.cache/mqlcl/tuning.json; `environment` reads a
// variable ("" when unset).
using EnvironmentReader = std::string (*)(const char *name);
std::string tuning_file_path(EnvironmentReader environment);

// Every entry of the file. `tolerant` (the library, inside its C ABI): a file that is missing,
// unreadable or not the file's JSON yields none, a malformed entry is skipped, nothing is thrown
// but std::bad_alloc. `strict` (the tuner, which writes the file): a missing file yields none,
// anything else malformed throws std::runtime_error naming the file and what is wrong.
enum class Reading { tolerant, strict };
std::vector<TunedEntry> read_tuning_file(const std::string &path, Reading reading);

// Adds `entry` to the file, or replaces the one of its device, driver, step key and sizes, and
// records its vendor and architecture as the device's "_device"; throws std::runtime_error.
void write_tuned(const std::string &path, const TunedEntry &entry);

// What the lookup knows of a device.
struct DeviceFacts {
  uint32_t vendor_id = 0;
  std::string architecture;
  std::string name;
  std::string driver;
};

// A CPU's architecture: "cpu-simd" and its preferred float vector width (8 for AVX2, 16 for
// AVX-512 on PoCL), since the fastest register blocking follows it; "cpu" when the driver gives
// no width.
std::string cpu_architecture(uint32_t preferred_vector_width_float);

// The chosen entry and where it came from ("tuning cache: DEVICE at MxNxK", "database, this
// device: ...").
struct Tuned {
  TunedEntry entry;
  std::string origin;
};

// The set for an m x n x k product of `step` in `element` with `layout` ("": none), from the
// tuning file's entries (`overlay`) of exactly this device and driver and the `database` entries
// of the same vendor and device name or architecture, competing on distance (the tuning file's
// first at a tie): the nearest in octaves of M, N and K together among those that share the
// call's whole-tile shape, an entry of the layout before one of any layout, one of this device
// before another's. Step 19's calls take another layout's set where none of theirs is found;
// 3xTF32's take the nearest shape of any layout (its product reads every layout alike), the call's
// own first at one shape.
std::optional<Tuned> find_tuned(const std::vector<TunedEntry> &overlay,
                                const std::vector<TunedEntry> &database, const DeviceFacts &device,
                                uint32_t m, uint32_t n, uint32_t k, const std::string &step,
                                Element element, const std::string &layout);

// The set of `step` in `element` and `layout` measured on this very device (the tuning file's of
// its driver and the compiled database's of its name, competing on shape, the tuning file's first
// at one shape; not another device's of its architecture) with the largest M x N x K among those
// whose M, N and K are each at most the call's: what was measured there of a product whose lead
// grows with each dimension holds for the call.
std::optional<Tuned> find_measured_below(const std::vector<TunedEntry> &overlay,
                                         const std::vector<TunedEntry> &database,
                                         const DeviceFacts &device, uint32_t m, uint32_t n,
                                         uint32_t k, const std::string &step, Element element,
                                         const std::string &layout);

// The set of `step` in `element` and `layout` measured on this very device that names `param`,
// with the smallest M x N x K among those whose M, N and K are each at least the call's: what was
// measured there of a product whose lead shrinks as each dimension grows holds for the call. The
// tuning file's (of this driver) and the compiled database's (of this device's name) compete on
// shape; at one shape the tuning file's comes first.
std::optional<Tuned> find_measured_above(const std::vector<TunedEntry> &overlay,
                                         const std::vector<TunedEntry> &database,
                                         const DeviceFacts &device, uint32_t m, uint32_t n,
                                         uint32_t k, const std::string &step, Element element,
                                         const std::string &layout, const char *param);

// The compiled database's entries (database.inc), made anew: the bridge keeps one copy per
// process (compiled_database in gemm/runtime.hpp).
std::vector<TunedEntry> compiled_entries();

// The database's line for `entry` (which gemm_form_of names): what `gemm-database` writes.
std::string database_line(const TunedEntry &entry);

// "NAME=value NAME=value ..."; throws std::invalid_argument.
Params parse_params(const std::string &text);

} // namespace mqlcl::gemm
