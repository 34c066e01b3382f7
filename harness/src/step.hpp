// The vocabulary of the replay's steps: what a step is made of (its kernel, layouts, launch,
// arguments, parameters, padding, passes and maps), what a device offers it, and the small
// arithmetic on parameters and sizes that the catalogue, its rules and the runner share.
// catalogue.hpp lists the steps; step_rules.hpp says what their parameters and sizes must satisfy.
#pragma once

#include "gemm/forms.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mqlcl::replay {

// ROWS1 x COLSROWS times COLSROWS x COLS2, the article's names.
struct Sizes {
  uint32_t rows1 = 2000;
  uint32_t colsrows = 2000;
  uint32_t cols2 = 2000;
};

enum class Dim { rows1, colsrows, cols2 };
const char *dim_name(Dim dim); // "ROWS1", "COLSROWS", "COLS2"
uint32_t size_of(const Sizes &sizes, Dim dim);

// How a matrix is flattened into its buffer (the article's Fig. 13).
enum class Layout { row_major, column_major };
const char *layout_name(Layout layout);

// How a kernel rounds an FP32 input to TF32 (10 mantissa bits) before it multiplies it.
enum class InputRounding {
  none,         // not at all: the product is of the inputs as they are
  nearest_away, // to nearest, ties away from zero: cvt.rna, and the kernels' integer form of it
  nearest,      // to nearest, ties one way or the other: a rounding whose tie rule is unknown
  truncated     // toward zero: the tensor cores reading an FP32 value as TF32
};
const char *input_rounding_name(InputRounding rounding);

// What a kernel's product is made of, for its verification (verify.hpp): the product is checked
// against the double-precision product of its inputs rounded as the kernel rounds them.
struct Arithmetic {
  InputRounding inputs = InputRounding::none;
  // The tensor cores sum the products into the FP32 accumulator, 8 at a time, rounding toward
  // zero (not round-to-nearest FP32 additions).
  bool tensor_core_sums = false;
};

// The article's single-core CPU loops, the baseline each script times.
enum class CpuLoop {
  r_cr_c, // Listing 1's mul() on 2-D arrays: the fastest loop order
  c_r_cr  // mulCPUOneCore() of the OpenCL scripts, indexing each matrix in the step's layout
};

// Device properties a step's checks and geometry may depend on (read through the bridge).
struct DeviceCaps {
  uint64_t local_mem_bytes = 0;        // CL_DEVICE_LOCAL_MEM_SIZE: what __local arguments may take
  uint64_t kernel_local_mem_bytes = 0; // what a kernel's own __local arrays may take
  uint64_t max_work_group_size = 0;
  std::array<uint64_t, 3> max_work_item_sizes{};
  uint64_t max_alloc_bytes = 0;
  bool fp64 = false;
  uint32_t preferred_vector_width_float = 0;
  uint32_t compute_units = 0;
  uint32_t vendor_id = 0;              // 0x10DE NVIDIA, 0x1002 AMD, 0x8086 Intel, ...
  uint32_t compute_capability = 0;     // NVIDIA only: major * 10 + minor (90 for Hopper)
  std::string tensor_maps_missing;     // Hopper: why CLBufferTensorMap fails here; empty if not
  bool dedicated_local_memory = false; // CL_DEVICE_LOCAL_MEM_TYPE == CL_LOCAL
  std::string device_name;             // CL_DEVICE_NAME
  std::string driver;                  // CL_DRIVER_VERSION
  std::string architecture;            // "sm_90", "cpu-simd8": the tuned sets' (tuning_file.hpp)
  std::string tuning_key;              // device name and driver version: the tuning cache's key
  // A CPU device runs each work-group on one worker thread, whose stack holds the private arrays
  // of all the group's work-items: the process's default thread stack (RLIMIT_STACK on Linux,
  // what PoCL's threads get; kUnknownCpuStackBytes where the OS does not say, as on Windows).
  // 0 on GPUs.
  uint64_t cpu_group_stack_bytes = 0;
  bool cpu_group_stack_assumed = false; // kUnknownCpuStackBytes, not the OS's figure
};

// What a CPU work-group's stack needs besides the private arrays. PoCL 3.1 with an 8 MiB stack
// (`ulimit -s 8192`): a group of 1046 work-items x 8000 bytes ran, 1048 x 8000 killed the
// process with SIGSEGV; with 4 MiB, 520 ran and 530 crashed (docs/replay.md, "Private and
// __local arrays").
constexpr uint64_t kCpuStackReserve = uint64_t{64} << 10;

// The stack assumed for a CPU device's worker threads where the OS gives no default (Windows):
// 8 MiB, Linux's default and so what PoCL's threads have under Wine. With no bound at all, PoCL
// under Wine was handed 16 MB of private arrays per group and killed the process; a smaller
// guess would refuse the article's own sizes (1000 work-items x 8000 bytes at 2000).
constexpr uint64_t kUnknownCpuStackBytes = uint64_t{8} << 20;

// The work-group size PoCL picks for a 1-D range when the runtime chooses (as its
// pocl_default_local_size_optimizer does, leaving out its preferred-multiple grain, which only
// makes this a bound from above): the largest divisor of the range the device allows, split so
// there are as many groups as compute units.
uint64_t cpu_runtime_group_size(uint32_t global, const DeviceCaps &device);

// Named integer parameters of a step (tile sizes, ...): passed to the kernel as -DNAME=value and
// to the step's geometry and local-memory functions.
using Params = gemm::Params;

// Whether a parameter may be 0: the switches and counts whose 0 means "off" or "none" (INFLIGHT,
// ROUND, PARTS, FLUSH, PAD), the code forms numbered from 0 (FMA_ORDER, POINTERS, GATHER, CARRY),
// the layouts (ROTATE_A, ROTATE_B, PAIRED_LANES) and the TF32 kernels' test switch LEAVE_OUT (a
// slice of K, numbered from 0).
// Every other parameter is a size or a divisor and must be 1 or more.
bool param_may_be_zero(std::string_view name);

inline uint32_t round_up(uint32_t value, uint32_t multiple) {
  return multiple <= 1 ? value : (value + multiple - 1) / multiple * multiple;
}

inline uint32_t ceil_div(uint32_t value, uint32_t divisor) {
  return (value + divisor - 1) / divisor;
}

inline int64_t param_or(const Params &params, const char *name, int64_t fallback) {
  auto it = params.find(name);
  return it == params.end() ? fallback : it->second;
}

struct LaunchGeometry {
  uint32_t work_dim = 0; // 0: host only, nothing to launch
  std::array<uint32_t, 3> global{1, 1, 1};
  std::array<uint32_t, 3> local{0, 0, 0}; // all zero: the runtime chooses, as MQL5's CLExecute
  bool runtime_chooses_local() const { return local[0] == 0; }
};

// What a geometry or local-memory function sees. `sizes` are the padded sizes the kernel is
// built for; `requested_local` is --local (empty when not given).
struct GeometryInput {
  const Sizes &sizes;
  const std::vector<uint32_t> &requested_local;
  const DeviceCaps &device;
  const Params &params;
  size_t element_size;
};

// How a step's kernel is launched over the product (launch_shapes.cpp), and how it says so.
struct LaunchShape {
  const char *description; // as mqlcl-replay --list shows it
  // Computes the launch; throws Error(bad_input) with a clear message when the request cannot
  // work.
  LaunchGeometry (*compute)(const GeometryInput &);
  LaunchGeometry operator()(const GeometryInput &input) const { return compute(input); }
};

// The article's launches: one work-item per element (2-D), one per row of the product (1-D).
extern const LaunchShape one_per_element;
extern const LaunchShape one_per_row;

// The launches of the steps beyond the article (their kernels' header comments say the same):
// BLK x BLK work-groups over the product, rounded up (tiled_local);
extern const LaunchShape blocks_2d;
// one work-group of (BM/TM)*(BN/TN) work-items per BM x BN tile, 1-D (register_blocked, ...);
extern const LaunchShape tiles_1d;
// one work-group of (BM/WM)*(BN/WN) warps per BM x BN tile, 1-D (the tensor-core steps);
extern const LaunchShape warp_tiles_1d;
// one work-group of BM/64 warpgroups (BM * 2 work-items) per BM x BN tile, 1-D (wgmma).
extern const LaunchShape warpgroup_tiles_1d;
// one work-item per RM x RN block of the product, 2-D, LX x LY work-groups (tuned's CPU form).
extern const LaunchShape register_blocks_2d;

// What a step needs of the device beyond OpenCL 1.2.
enum class Requirement {
  none,
  nvidia_tensor_cores, // NVIDIA's compiler (inline PTX) and mma.sync TF32: compute capability 8.0+
  nvidia_wgmma,        // and Hopper's wgmma, through the bridge's -mqlcl-nv-sm90a: exactly 9.0
  nvidia_tensor_maps,  // and tensor maps, which the CUDA driver writes (none under Wine)
  nvidia_fp64_mma      // mma.sync's f64 shapes of sm_90 (gemm::fp64_tensor_cores_of)
};

// What the tuning cache gives a step on the device at hand.
enum class DeviceTuning {
  none,     // nothing: the step's own parameters
  families, // its kernel family and parameters, or defaults by the device's kind (matr_mul_tuned)
  cached    // its parameters, when the step was tuned on this device (the tensor-core steps)
};

// A parameter the tuner may vary, and the values it tries.
using gemm::Tunable; // a parameter the tuner varies, and the values it tries

// A kernel argument, set in order with CLSetKernelArgMem / CLSetKernelArg / CLSetKernelArgMemLocal.
struct KernelArg {
  enum class Kind {
    matrix_a,     // the first matrix (in1)
    matrix_b,     // the second matrix (in2)
    matrix_c,     // the product (out)
    int_rows1,    // int: the padded ROWS1
    int_colsrows, // int: the padded COLSROWS
    int_cols2,    // int: the padded COLS2
    local_bytes,  // a __local buffer of local_bytes(input) bytes
    tensor_maps   // a buffer of the step's TensorMaps: A's at byte 0, B's at byte 128
  };
  Kind kind;
  uint64_t (*local_bytes)(const GeometryInput &) = nullptr;
};

// A size requirement of the kernel: `dim` must be a multiple of `multiple_of`.
struct Constraint {
  Dim dim;
  uint32_t multiple_of;
  std::string reason; // why, in the kernel's terms
};

// Padding: the host rounds each size up to a multiple with zeros, builds the kernel for the
// padded sizes, and checks only the real product. 1 everywhere: no padding (the article).
struct Padding {
  uint32_t rows1 = 1;
  uint32_t colsrows = 1;
  uint32_t cols2 = 1;
};

// Beyond the article: a kernel of the step's program that rewrites both operands into scratch
// buffers before every product, inside the timed part (wgmma's TF32 rounds them there, once,
// where rounding in every block costs a third of the speed; step 17 also lays them out in the
// tiles it copies whole). It is launched once per operand as kernel_name(source, destination,
// int lines), one work-item per `group` floats of a line of COLSROWS (rounded up to whole
// groups), over the lines of a K-contiguous operand: A row-major, B column-major. The destination
// holds `parts` floats for each float of a rounded line, where `parts` is the step's parameter
// parts_param; the product reads the destinations. A tiled pass (block_param_a and _b set) reads
// the operands in tiles of that parameter's lines (BM for A, BN for B): the lines are rounded up
// to whole tiles, and the tile's lines are the kernel's fourth argument, int block; `slice`
// (a multiple of `group`) rounds up the values of K the destination's lines hold. With
// operand_a false only B goes through the pass, and the product reads A as it is.
struct OperandPass {
  std::string kernel_name;
  uint32_t group = 8;
  std::string parts_param = "PARTS"; // 0: no pass
  std::string block_param_a, block_param_b;
  uint32_t slice = 0; // 0: whole groups
  bool operand_a = true;
  bool tiled() const { return !block_param_b.empty(); }
};

// Beyond the article: tensor maps of both operands (CLBufferTensorMap), through which the kernel
// copies tiles of them straight into local memory. A's map has boxes of rows_param_a (a step
// parameter) lines of A, B's of rows_param_b lines of B (its columns), both k_param values of K
// wide and swizzled by their width in bytes. The operands' lines must be whole 16-byte chunks: the
// step pads COLSROWS to a multiple of 4. An empty rows_param_b maps A alone (B goes through a
// pass).
struct TensorMaps {
  std::string rows_param_a = "BM", rows_param_b = "BN", k_param = "BK";
  std::string type_param = "TMA"; // 2: typed TF32 (MQLCL_TENSOR_TF32); else FLOAT32
};

struct Step {
  std::string name;        // the script's name, e.g. "matr_mul_vect_v2"
  std::string source;      // where in the article, e.g. "section 2.8, Listing 9"
  std::string change;      // what this step changes, one line
  std::string kernel_file; // in the kernels directory; empty for the host-only step
  bool in_article = true;  // one of the article's ten scripts (replayed by `all`)
  bool in_bench = false;   // in `mqlcl-replay bench`'s default list, where the device can run it

  Layout layout_a = Layout::row_major;
  Layout layout_b = Layout::row_major;
  Layout layout_c = Layout::row_major;
  CpuLoop cpu_loop = CpuLoop::c_r_cr;

  const LaunchShape *geometry = nullptr; // nullptr: host only
  std::vector<KernelArg> args;           // empty: the article's (in1, in2, out)
  Params params;
  std::vector<Constraint> constraints;
  Padding padding;
  bool square_only = false;

  // Arrays of COLSROWS elements the kernel keeps in private or __local memory: reported, and the
  // __local one is checked against the device's local memory before anything runs.
  bool private_row = false;
  bool local_column = false;

  // A known race in the kernel as printed, and the step that fixes it.
  std::string race;
  std::string fixed_by;

  std::string kernel_name = "matricesMul";

  // Beyond the article.
  Requirement requirement = Requirement::none;
  // How the kernel rounds its inputs and sums its products with the parameters it is built with;
  // nullptr: FP32 (or REALTYPE) arithmetic on the inputs as they are (arithmetic_of).
  Arithmetic (*arithmetic)(const Params &) = nullptr;
  bool float_only = false;  // no REALTYPE double variant
  bool double_only = false; // computes in double only (--double)
  // Options for the bridge beyond the -D definitions (wgmma: -mqlcl-nv-sm90a).
  std::string build_options;
  std::optional<OperandPass> operand_pass;
  std::optional<TensorMaps> tensor_maps;
  // Another step whose kernel file this one builds with other parameters (plain TF32 and 3xTF32
  // share matr_mul_tf32.cl).
  std::string variant_of;
  // What `mqlcl-replay tune` varies, and whether a set of values can work on a device.
  std::vector<Tunable> tunables;
  // Forms of the same code (the order of operations, how addresses are formed), which compilers
  // rank unpredictably: `tune` tries each on the fastest few sets of `tunables` only.
  std::vector<Tunable> form_tunables;
  // Where values sit (which register of a float4 holds which line, which lanes share a load): the
  // assembler's register allocation makes these as unpredictable, so `tune` tries each on the
  // fastest few trials of the sets and forms only.
  std::vector<Tunable> layout_tunables;
  bool (*params_valid)(const Params &, const DeviceCaps &) = nullptr;
  // How the step adapts to the device at hand, from the tuning cache (tuning.hpp's
  // for_device does it when the step runs).
  DeviceTuning tuning = DeviceTuning::none;
};

// The step's arithmetic with its parameters (step.arithmetic, or FP32's).
Arithmetic arithmetic_of(const Step &step);

// The kernel arguments a step sets (its own, or the article's three matrices).
std::vector<KernelArg> kernel_args(const Step &step);

// What a step's operand pass writes (none when the step has no pass or its parts are 0).
struct PassScratch {
  uint32_t parts = 0;
  uint64_t floats_a = 0, floats_b = 0; // the destinations' sizes
  uint64_t lines_a = 0, lines_b = 0;   // ROWS1 and COLS2, rounded up to whole tiles when tiled
  uint32_t block_a = 0, block_b = 0;   // a tiled pass's tile lines (its fourth argument); else 0
  uint64_t groups = 0;                 // groups of a line
  bool active() const { return parts > 0; }
  bool covers_a() const { return active() && lines_a > 0; } // else the pass is B's alone
};
PassScratch pass_scratch(const Step &step, const Sizes &padded);

// Sizes rounded up to the step's padding.
Sizes padded_sizes(const Step &step, const Sizes &sizes);

} // namespace mqlcl::replay
