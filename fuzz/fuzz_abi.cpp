// libFuzzer target over mqlcl's C ABI, on the real library and the real OpenCL driver (PoCL).
//
// Each input is decoded into a sequence of calls (create, free, set-arg, write, read, execute,
// CLGemm and information calls) on handles that are live, of the wrong type, freed, forged or raw
// integers, with hostile sizes, offsets, flags, work sizes, NULL pointers and odd UTF-16 (unpaired
// surrogates; output strings longer than the capacity given for them). A model of what is alive
// checks every answer against the ABI's contract, and aborts on the first breach:
//  - a failure returns the export's failure value and a known MQLCL_ERR_* code; a success leaves
//    the (reset) last error at 0;
//  - a call on a handle that is not live, or not of the right type, never succeeds;
//  - a create returns a handle of the right type never handed out before; CLHandleType,
//    CL_BUFFER_SIZE and CL_OBJECT_COUNT agree with the model; a free of a live handle works and
//    a second free fails; successful output strings are terminated within their capacity;
//  - a raw value never reaches a pointer argument (CLSetKernelArg on a buffer or __local argument
//    fails), nor a buffer a by-value one.
//  - a non-blocking read (CLBufferReadStart/Status/Take) starts exactly when its range lies in the
//    buffer, is polled and taken only once started, takes at most the bytes started, and hands
//    over what a blocking read of the same range gave when it started (it may stay pending while
//    other ops change the buffer, and be freed with its buffer or owner), writing nothing past
//    the elements asked; a take whose host range passes the end of the address space fails 4003;
//  - a 64-bit transfer of more than 2^64 - 1 bytes fails with 5110;
//  - an owner's handles are refused to threads acting for no owner and the model's handles to
//    the owner (65537), and CLOwnerFree frees exactly what the owner made.
//  - CLGemm succeeds exactly when the documented rules accept the call (but for a precision the
//    device lacks: 5100); a refusal changes no buffer; a success writes C's cells and nothing
//    else, and each cell with finite, normal inputs matches an fp64 reference.
//  - CLMatMul succeeds exactly when the same packed CLGemm would, A's and B's buffers differ and
//    no host array is NULL; a refusal changes no buffer and not c; a success leaves a and b at
//    the start of A's and B's buffers and the product in C's cells and in c, nothing else.
// Every buffer the harness hands over is a heap block of exactly the stated capacity, so ASan
// catches any write or read past it.
//
// The harness contract (misuse the ABI cannot detect, so the harness never commits it):
//  - pointers come with their true capacities, and input strings are terminated;
//  - CLBufferWrite/Read get a host array that holds data_offset + data_count elements whenever
//    the device-side range is valid (otherwise the bridge must refuse before touching it);
//  - a kernel is launched only if its accesses stay inside the buffers and __local memory bound
//    to it: the kernels come from a fixed set whose every access is bounded by a count argument,
//    and the model checks those counts (build options are fixed tokens, never -D, so a fuzzed
//    option cannot change what a kernel does);
//  - resources are capped (live objects, buffer sizes, work-items per launch, a valid CLGemm's
//    multiply-adds) so PoCL never runs out of memory or time. Everything else is hostile.
#include <mqlcl/mqlcl.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

// ---- Input decoding ---------------------------------------------------------------------------

// Reads the input front to back; past its end every value is 0 (so seeds are easy to write).
class Reader {
public:
  Reader(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint32_t u32() { return static_cast<uint32_t>(u16() | (static_cast<uint32_t>(u16()) << 16)); }
  uint64_t u64() { return u32() | (static_cast<uint64_t>(u32()) << 32); }
  template <class T, size_t N> T pick(const T (&table)[N]) { return table[u8() % N]; }

private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};

[[noreturn]] void violation(const std::string &what) {
  std::fprintf(stderr, "mqlcl contract violation: %s (last error %d)\n", what.c_str(),
               CLGetLastError());
  std::abort();
}

void require(bool condition, const std::string &what) {
  if (!condition)
    violation(what);
}

bool known_error(int32_t code) {
  return code == MQLCL_ERR_INTERNAL_ERROR || code == MQLCL_ERR_INVALID_PARAMETER ||
         code == MQLCL_ERR_NOT_ENOUGH_MEMORY || code == MQLCL_ERR_SMALL_ARRAY ||
         code == MQLCL_ERR_ZEROSIZE_ARRAY ||
         (code >= MQLCL_ERR_OPENCL_NOT_SUPPORTED && code <= MQLCL_ERR_OPENCL_SELECTDEVICE) ||
         code == MQLCL_ERR_OPENCL_NOT_OWNER || code == MQLCL_ERR_OPENCL_READ_NOT_STARTED ||
         code == MQLCL_ERR_OPENCL_DEVICE_LOST;
}

// MQLCL_FUZZ_TRACE=1 prints every checked call (to see what an input does); MQLCL_FUZZ_STATS=FILE
// writes, at exit, how often each export returned each code (docs/errors.md's fuzzing table).
const bool g_trace = std::getenv("MQLCL_FUZZ_TRACE") != nullptr;
// MQLCL_FUZZ_NO_BUILDS=1: no op builds a program or frees the persistent one (which the next input
// would build again), and CLGemm makes refused calls only (a valid one builds its kernels): the
// states and the checks of every other call, many times faster.
const bool g_no_builds = std::getenv("MQLCL_FUZZ_NO_BUILDS") != nullptr;
std::map<std::pair<std::string, int32_t>, uint64_t> *g_outcomes = [] {
  static std::map<std::pair<std::string, int32_t>, uint64_t> outcomes;
  const char *path = std::getenv("MQLCL_FUZZ_STATS");
  if (path == nullptr)
    return static_cast<decltype(&outcomes)>(nullptr);
  static std::string file = path;
  std::atexit([] {
    if (FILE *out = std::fopen(file.c_str(), "w")) {
      for (const auto &[key, count] : outcomes)
        std::fprintf(out, "%s\t%d\t%llu\n", key.first.c_str(), key.second,
                     static_cast<unsigned long long>(count));
      std::fclose(out);
    }
  });
  return &outcomes;
}();

void count_outcome(const char *what, int32_t code) {
  if (g_outcomes != nullptr)
    ++(*g_outcomes)[{what, code}];
}

// Runs one export with the last error reset; checks the failure value / error code pairing.
template <class Result, class Call> Result checked(const char *what, Result failure, Call call) {
  CLResetLastError();
  Result result = call();
  int32_t code = CLGetLastError();
  if (g_trace)
    std::fprintf(stderr, "%s -> %lld (error %d)\n", what, static_cast<long long>(result), code);
  count_outcome(what, code);
  if (result == failure)
    require(known_error(code), std::string(what) + " failed with unknown code");
  else
    require(code == 0, std::string(what) + " succeeded but recorded an error");
  return result;
}

// ---- The kernels: every access bounded by a count argument ------------------------------------

constexpr const char16_t *kSafeSource = uR"CL(
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
size_t linear_id(void) {
  return get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));
}
__kernel void fill(__global int *out, uint n, int value) {
  size_t i = linear_id();
  if (i < n) out[i] = value + (int)i;
}
__kernel void axpy(__global const float *x, __global float *y, uint n, float a) {
  size_t i = linear_id();
  if (i < n) y[i] = a * x[i] + y[i];
}
__kernel void reverse_local(__global const int *in, __global int *out, uint n,
                            __local int *scratch, uint scratch_n) {
  size_t g = linear_id(), l = get_local_id(0), m = get_local_size(0);
  if (l < scratch_n) scratch[l] = g < n ? in[g] : 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  size_t r = m - 1 - l;
  if (g < n && r < scratch_n) out[g] = scratch[r];
}
__kernel void sum4(__global float *out, uint n, float4 v) {
  size_t i = linear_id();
  if (i < n) out[i] = v.x + v.y + v.z + v.w;
}
__kernel void scale_double(__global double *x, uint n, double s) {
  size_t i = linear_id();
  if (i < n) x[i] *= s;
}
__kernel void mixed(__global char *out, uint n, char c, short s, long l, uchar u) {
  size_t i = linear_id();
  if (i < n) out[i] = (char)(c + s + l + u);
}
__kernel void count(__global int *counter, uint n) {
  size_t i = linear_id();
  if (i < n) atomic_inc(&counter[i]);
}
__kernel void local_only(__local float *a, uint n) {
  size_t l = get_local_id(0);
  if (l < n) a[l] = (float)l;
}
__kernel void noop(void) {}
)CL";

struct ArgSpec {
  enum Kind { global, local, value } kind;
  uint32_t size;      // element size (global, local) or value size
  int count_arg = -1; // for global/local: the uint argument that bounds the accesses
};

struct KernelSpec {
  const char16_t *name;
  std::vector<ArgSpec> args;
};

const KernelSpec kKernels[] = {
    {u"fill", {{ArgSpec::global, 4, 1}, {ArgSpec::value, 4}, {ArgSpec::value, 4}}},
    {u"axpy",
     {{ArgSpec::global, 4, 2}, {ArgSpec::global, 4, 2}, {ArgSpec::value, 4}, {ArgSpec::value, 4}}},
    {u"reverse_local",
     {{ArgSpec::global, 4, 2},
      {ArgSpec::global, 4, 2},
      {ArgSpec::value, 4},
      {ArgSpec::local, 4, 4},
      {ArgSpec::value, 4}}},
    {u"sum4", {{ArgSpec::global, 4, 1}, {ArgSpec::value, 4}, {ArgSpec::value, 16}}},
    {u"scale_double", {{ArgSpec::global, 8, 1}, {ArgSpec::value, 4}, {ArgSpec::value, 8}}},
    {u"mixed",
     {{ArgSpec::global, 1, 1},
      {ArgSpec::value, 4},
      {ArgSpec::value, 1},
      {ArgSpec::value, 2},
      {ArgSpec::value, 8},
      {ArgSpec::value, 1}}},
    {u"count", {{ArgSpec::global, 4, 1}, {ArgSpec::value, 4}}},
    {u"local_only", {{ArgSpec::local, 4, 1}, {ArgSpec::value, 4}}},
    {u"noop", {}},
};

const KernelSpec *spec_named(const std::u16string &name) {
  for (const KernelSpec &spec : kKernels)
    if (name == spec.name)
      return &spec;
  return nullptr;
}

// Build options: fixed tokens only (never -D/-I, which could change what a kernel does), plus
// tokens that are merely malformed.
const char16_t *const kOptionTokens[] = {u"-cl-mad-enable",
                                         u"-cl-fast-relaxed-math",
                                         u"-cl-opt-disable",
                                         u"-w",
                                         u"-Werror",
                                         u"-cl-std=CL1.2",
                                         u"-cl-std=CL2.0",
                                         u"-cl-denorms-are-zero",
                                         u"-cl-no-signed-zeros",
                                         u"-cl-finite-math-only",
                                         u"-cl-single-precision-constant",
                                         u"-mqlcl-nv-sm90a", // the bridge's own: 5105 off NVIDIA
                                         u"-not-an-option",
                                         u"--",
                                         u"-cl-std=CL9.9",
                                         u"\xD800",
                                         u"\xDFFF-x",
                                         u"-\u00E9\u4E2D",
                                         u"\U0001F600"};

// ---- Caps -------------------------------------------------------------------------------------

constexpr size_t kMaxContexts = 3;
constexpr size_t kMaxPrograms = 6;
constexpr size_t kMaxKernels = 12;
constexpr size_t kMaxBuffers = 16;
constexpr uint32_t kMaxBufferBytes = 64 * 1024;
constexpr uint64_t kMaxWorkItems = 4096; // per launch: keeps PoCL's work-group overhead small
constexpr size_t kMaxOperations = 96;
constexpr size_t kHostBytes = kMaxBufferBytes * 2;
// Sizes CLBufferCreate64 must refuse: 0, and sizes past any device's largest allocation that
// would wrap or look small if cut to 32 bits.
constexpr uint64_t kWideSizes[] = {0, (uint64_t{1} << 48) + 16, UINT64_MAX, UINT64_MAX - 7,
                                   uint64_t{1} << 63};

// ---- The model --------------------------------------------------------------------------------

struct ArgState {
  bool set = false;
  uint64_t bytes = 0;         // bound buffer's size, or __local bytes
  std::vector<uint8_t> value; // a by-value argument's bytes
};

struct Object {
  int32_t type = MQLCL_OPENCL_INVALID;
  int32_t context = 0;              // the owning context's handle (kept after that is freed)
  uint32_t size = 0;                // buffers
  uint32_t flags = 0;               // buffers: as created, READ_WRITE where no access was named
  bool pending_read = false;        // buffers: a read started and left pending
  std::vector<uint8_t> read_bytes;  // buffers: what that read must give
  bool safe = false;                // programs: built from the safe kernels
  const KernelSpec *spec = nullptr; // kernels
  std::vector<ArgState> args;       // kernels
};

struct Model {
  std::map<int32_t, Object> live;
  size_t count(int32_t type) const {
    return static_cast<size_t>(std::count_if(live.begin(), live.end(),
                                             [&](const auto &e) { return e.second.type == type; }));
  }
  Object *find(int32_t handle, int32_t type) {
    auto it = live.find(handle);
    return it != live.end() && it->second.type == type ? &it->second : nullptr;
  }
  std::vector<int32_t> of_type(int32_t type) const {
    std::vector<int32_t> handles;
    for (const auto &[handle, object] : live)
      if (object.type == type)
        handles.push_back(handle);
    return handles;
  }
};

// Across inputs: every handle ever returned, and the most recently freed ones.
std::unordered_set<int32_t> g_ever_returned;
std::deque<int32_t> g_freed;
uint32_t g_local_memory = 0;

// A context and a program of the safe kernels that live across inputs, so most inputs need no
// build of their own (a PoCL build costs ~100 ms under ASan). Inputs may free them like any
// handle; the next input then makes both again.
struct Persistent {
  int32_t context = 0;
  int32_t program = 0;
} g_persistent;

void remember_freed(int32_t handle) {
  g_freed.push_back(handle);
  if (g_freed.size() > 64)
    g_freed.pop_front();
}

// ---- CLGemm's model ---------------------------------------------------------------------------

// Multiply-adds a valid CLGemm may run (batch x m x n x k): PoCL under ASan stays fast. A call
// past it is not made (the caps above); invalid calls of any size are, since they must be refused.
constexpr uint64_t kMaxGemmWork = 64 * 64 * 64;
// Valid CLGemm calls per input: a new shape costs a PoCL build of about a second, and an input
// must stay far below libFuzzer's -timeout.
constexpr int kMaxGemmRuns = 3;

// The codes CLGemm's checks give (api_gemm.cpp, docs/errors.md).
bool gemm_refusal_code(int32_t code) {
  return code == MQLCL_ERR_INVALID_PARAMETER || code == MQLCL_ERR_ZEROSIZE_ARRAY ||
         code == MQLCL_ERR_OPENCL_NOT_SUPPORTED || code == MQLCL_ERR_OPENCL_INVALID_HANDLE ||
         code == MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE || code == MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET;
}

// A CLGemm call as the harness makes it; operand 0 is A, 1 B, 2 C.
struct GemmCall {
  int32_t buffer[3] = {0, 0, 0};
  int32_t type = 0, precision = 0, transpose[2] = {0, 0};
  uint32_t m = 0, n = 0, k = 0, batch = 0;
  double alpha = 0, beta = 0;
  uint64_t offset[3] = {0, 0, 0};
  uint32_t ld[3] = {0, 0, 0};
  uint64_t stride[3] = {0, 0, 0};

  size_t element() const { return type == MQLCL_GEMM_DOUBLE ? 8 : 4; }
  // Operand i as stored: A is k x m when transposed, B n x k when transposed.
  uint64_t rows(int i) const {
    return i == 0 ? (transpose[0] == 1 ? k : m) : i == 1 ? (transpose[1] == 1 ? n : k) : m;
  }
  uint64_t cols(int i) const {
    return i == 0 ? (transpose[0] == 1 ? m : k) : i == 1 ? (transpose[1] == 1 ? k : n) : n;
  }
  uint64_t ld_of(int i) const { return ld[i] != 0 ? ld[i] : cols(i); }
  // One matrix's span, and one past the last element of the batch (no wrap: 128 bits).
  unsigned __int128 span(int i) const {
    return rows(i) == 0 ? 0 : (unsigned __int128)(rows(i) - 1) * ld_of(i) + cols(i);
  }
  unsigned __int128 end(int i) const {
    return batch == 0 ? 0 : offset[i] + (unsigned __int128)(batch - 1) * stride[i] + span(i);
  }
  // Element indexes of op(A)(i, l), op(B)(l, j) and C(i, j) in product p.
  uint64_t index_a(uint64_t p, uint64_t i, uint64_t l) const {
    uint64_t base = offset[0] + p * stride[0];
    return transpose[0] == 1 ? base + l * ld_of(0) + i : base + i * ld_of(0) + l;
  }
  uint64_t index_b(uint64_t p, uint64_t l, uint64_t j) const {
    uint64_t base = offset[1] + p * stride[1];
    return transpose[1] == 1 ? base + j * ld_of(1) + l : base + l * ld_of(1) + j;
  }
  uint64_t index_c(uint64_t p, uint64_t i, uint64_t j) const {
    return offset[2] + p * stride[2] + i * ld_of(2) + j;
  }
};

// Whether the documented rules (docs/errors.md) accept the call, the device's offers aside.
bool gemm_is_valid(const GemmCall &g, const Object *const (&operand)[3]) {
  if (g.type < 0 || g.type > MQLCL_GEMM_DOUBLE || g.precision < 0 ||
      g.precision > MQLCL_GEMM_FASTEST || (g.transpose[0] & ~1) != 0 || (g.transpose[1] & ~1) != 0)
    return false;
  if (g.m == 0 || g.n == 0 || g.k == 0 || g.batch == 0 || g.batch > 65535)
    return false;
  if (operand[0] == nullptr || operand[1] == nullptr || operand[2] == nullptr ||
      operand[0]->context != operand[2]->context || operand[1]->context != operand[2]->context)
    return false;
  if ((operand[2]->flags & MQLCL_MEM_READ_ONLY) != 0 ||
      (operand[0]->flags & MQLCL_MEM_WRITE_ONLY) != 0 ||
      (operand[1]->flags & MQLCL_MEM_WRITE_ONLY) != 0)
    return false;
  for (int i = 0; i < 3; ++i) {
    const uint64_t elements = operand[i]->size / g.element();
    if (g.ld_of(i) < g.cols(i) || g.offset[i] >= elements || g.end(i) > elements)
      return false;
  }
  for (int i = 0; i < 2; ++i)
    if (g.buffer[i] == g.buffer[2] && g.offset[i] < g.end(2) && g.offset[2] < g.end(i))
      return false;
  return g.batch == 1 || g.stride[2] >= g.span(2);
}

double element_at(const std::vector<uint8_t> &bytes, uint64_t index, size_t element) {
  if (element == 8) {
    double value;
    std::memcpy(&value, bytes.data() + index * 8, 8);
    return value;
  }
  float value;
  std::memcpy(&value, bytes.data() + index * 4, 4);
  return value;
}

// A value the reference can check to a tolerance: finite and normal (a device may flush
// subnormals to zero).
bool checkable(double value) {
  return std::isfinite(value) && std::fpclassify(value) != FP_SUBNORMAL;
}

// C(i, j) of product p after a successful call, against an fp64 reference; cells whose inputs
// are not checkable (NaN, infinities, subnormals, magnitudes near overflow) are left out.
void check_gemm_cell(const GemmCall &g, const std::vector<uint8_t> (&before)[3],
                     const std::vector<uint8_t> &after, uint64_t p, uint64_t i, uint64_t j) {
  const size_t element = g.element();
  const bool single = element == 4;
  // A float product scales by alpha and beta rounded to float, and reads C only when beta != 0.
  const double alpha = single ? static_cast<float>(g.alpha) : g.alpha;
  const double beta = single ? static_cast<float>(g.beta) : g.beta;
  const bool reads_c = beta != 0;
  double dot = 0, magnitude = 0;
  bool inputs_checkable = checkable(alpha) && (!reads_c || checkable(beta));
  for (uint64_t l = 0; l < g.k; ++l) {
    double x = element_at(before[0], g.index_a(p, i, l), element);
    double y = element_at(before[1], g.index_b(p, l, j), element);
    inputs_checkable = inputs_checkable && checkable(x) && checkable(y);
    dot += x * y;
    magnitude += std::fabs(x * y);
  }
  const uint64_t c = g.index_c(p, i, j);
  const double old = element_at(before[2], c, element);
  if (reads_c)
    inputs_checkable = inputs_checkable && checkable(old);
  const double expected = alpha * dot + (reads_c ? beta * old : 0);
  const double bound = std::fabs(alpha) * magnitude + (reads_c ? std::fabs(beta * old) : 0);
  const double limit = single ? FLT_MAX / 4 : DBL_MAX / 4;
  if (!inputs_checkable || !(magnitude < limit) || !(bound < limit))
    return;
  const double epsilon = single ? FLT_EPSILON : DBL_EPSILON;
  const double tiny = single ? FLT_MIN : DBL_MIN;
  const double tolerance = (bound * epsilon + tiny) * (g.k + 4);
  const double got = element_at(after, c, element);
  if (!(std::fabs(got - expected) <= tolerance))
    violation("CLGemm: C(" + std::to_string(i) + ", " + std::to_string(j) + ") of product " +
              std::to_string(p) + " is " + std::to_string(got) + ", the reference " +
              std::to_string(expected));
}

class Harness {
public:
  explicit Harness(Reader &in) : in_(in) {}

  void run() {
    adopt_persistent();
    for (size_t op = 0; op < kMaxOperations && !in_.done(); ++op)
      step(in_.u8());
    free_everything();
  }

private:
  Reader &in_;
  Model model_;
  int gemm_runs_ = 0; // valid CLGemm calls made by this input

  // A handle for a call that wants `type`: live, wrong-type, freed, forged, special or raw.
  int32_t choose(int32_t type) {
    uint8_t how = in_.u8();
    std::vector<int32_t> wanted = model_.of_type(type);
    switch (how % 8) {
    case 0:
    case 1:
    case 2:
      if (!wanted.empty())
        return wanted[in_.u8() % wanted.size()];
      break;
    case 3: {
      std::vector<int32_t> others;
      for (const auto &[handle, object] : model_.live)
        if (object.type != type)
          others.push_back(handle);
      if (!others.empty())
        return others[in_.u8() % others.size()];
      break;
    }
    case 4:
      if (!g_freed.empty())
        return g_freed[in_.u8() % g_freed.size()];
      break;
    case 5:
      if (!model_.live.empty()) {
        auto it = model_.live.begin();
        std::advance(it, in_.u8() % model_.live.size());
        static const uint32_t kFlips[] = {1u << 16, 1u << 27, 1u, 1u << 28, 3u << 28, 1u << 31};
        return static_cast<int32_t>(static_cast<uint32_t>(it->first) ^ in_.pick(kFlips));
      }
      break;
    case 6: {
      static const int32_t kSpecial[] = {0,          -1,         1,          INT32_MIN, INT32_MAX,
                                         0x10000000, 0x40000000, 0x7FFF0000, 0x1FFFFFFF};
      return in_.pick(kSpecial);
    }
    default:
      return static_cast<int32_t>(in_.u32());
    }
    return static_cast<int32_t>(in_.u32());
  }

  // One of the values a call commonly gets (how < 0xE0), or a raw one.
  uint32_t choose_u32(std::initializer_list<uint32_t> common) {
    uint8_t how = in_.u8();
    if (how >= 0xE0)
      return in_.u32();
    return *(common.begin() + how % common.size());
  }

  std::u16string fuzzed_utf16(size_t max_units) {
    size_t units = in_.u8() % (max_units + 1);
    std::u16string text;
    for (size_t i = 0; i < units; ++i) {
      char16_t unit = static_cast<char16_t>(in_.u16());
      text += unit == 0 ? u' ' : unit; // inputs are terminated strings: no interior NUL
    }
    return text;
  }

  // Terminated UTF-16 in a heap block of exactly its size, so any over-read is caught.
  static std::unique_ptr<char16_t[]> exact_copy(const std::u16string &text) {
    auto copy = std::make_unique<char16_t[]>(text.size() + 1);
    std::copy(text.begin(), text.end(), copy.get());
    copy[text.size()] = 0;
    return copy;
  }

  int32_t add(int32_t handle, Object object, const char *what) {
    require(CLHandleType(handle) == object.type, std::string(what) + ": wrong handle type");
    require(g_ever_returned.insert(handle).second, std::string(what) + ": handle handed out twice");
    model_.live[handle] = std::move(object);
    return handle;
  }

  // ---- Operations -----------------------------------------------------------------------------

  void step(uint8_t op) {
    switch (op % 25) { // the seeds use the first 24 (written before 24); 19 runs a bound kernel
    case 0:
      return context_create();
    case 1:
      return free_op(MQLCL_OPENCL_CONTEXT);
    case 2:
      return program_create();
    case 3:
      return free_op(MQLCL_OPENCL_PROGRAM);
    case 4:
      return kernel_create();
    case 5:
      return free_op(MQLCL_OPENCL_KERNEL);
    case 6:
      return buffer_create();
    case 7:
      return free_op(MQLCL_OPENCL_BUFFER);
    case 8:
      return in_.u8() % 4 == 0 ? transfer64(true) : transfer(true);
    case 9:
      return in_.u8() % 4 == 0 ? transfer64(false) : transfer(false);
    case 10:
      return set_arg_value();
    case 11:
      return set_arg_mem();
    case 12:
      return set_arg_local();
    case 13:
      return execute(choose(MQLCL_OPENCL_KERNEL));
    case 14:
      return execution_status();
    case 15:
      return info_integer();
    case 16:
      return info_string();
    case 17:
      return device_info();
    case 18:
      return handle_type();
    case 20:
      return tensor_map();
    case 21:
      return gemm();
    case 22:
      return read_async();
    case 23:
      return owner_round();
    case 24:
      return mat_mul();
    default:
      return bind_and_run();
    }
  }

  void context_create() {
    if (model_.count(MQLCL_OPENCL_CONTEXT) >= kMaxContexts + 1) // + the persistent one
      return;
    static const int32_t kSelectors[] = {MQLCL_USE_ANY,
                                         MQLCL_USE_ANY,
                                         MQLCL_USE_CPU_ONLY,
                                         MQLCL_USE_GPU_ONLY,
                                         MQLCL_USE_GPU_DOUBLE_ONLY,
                                         0,
                                         1,
                                         -5,
                                         MQLCL_USE_SPREAD,
                                         INT32_MIN,
                                         INT32_MAX};
    int32_t selector = in_.u8() % 8 == 7 ? static_cast<int32_t>(in_.u32()) : in_.pick(kSelectors);
    int32_t context =
        checked("CLContextCreate", MQLCL_INVALID_HANDLE, [&] { return CLContextCreate(selector); });
    if (context != MQLCL_INVALID_HANDLE) {
      Object object;
      object.type = MQLCL_OPENCL_CONTEXT;
      object.context = context;
      add(context, object, "CLContextCreate");
    }
  }

  void program_create() {
    if (g_no_builds || model_.count(MQLCL_OPENCL_PROGRAM) >= kMaxPrograms + 1)
      return;
    int32_t context = choose(MQLCL_OPENCL_CONTEXT);
    std::u16string source;
    bool safe = false, null_source = false;
    switch (in_.u8() % 7) {
    case 0:
    case 1:
      source = kSafeSource;
      safe = true;
      break;
    case 2: { // odd UTF-16 inside a comment ('*' removed, so the comment cannot end early)
      std::u16string comment = fuzzed_utf16(48);
      std::replace(comment.begin(), comment.end(), u'*', u'+');
      source = u"/* " + comment + u" */" + kSafeSource;
      safe = true;
      break;
    }
    case 3: { // cut short: a prefix of complete kernels is still safe, anything else fails
      std::u16string full = kSafeSource;
      source = full.substr(0, in_.u16() % full.size());
      safe = true;
      break;
    }
    case 4:
      source = u"__kernel void broken( { }";
      break;
    case 5:
      source = u"__kernel void k(__global int *o) { o[0] = undefined_name; }";
      break;
    default:
      null_source = in_.u8() % 2 == 0;
      break; // empty or NULL source
    }
    auto source_copy = exact_copy(source);
    const char16_t *source_pointer = null_source ? nullptr : source_copy.get();

    int32_t program;
    if (in_.u8() % 2 == 0) {
      program = checked("CLProgramCreate", MQLCL_INVALID_HANDLE,
                        [&] { return CLProgramCreate(context, source_pointer); });
    } else {
      std::u16string options;
      for (int tokens = in_.u8() % 4; tokens > 0; --tokens)
        options += std::u16string(in_.pick(kOptionTokens)) + u" ";
      auto options_copy = exact_copy(options);
      bool null_options = in_.u8() % 4 == 0;
      uint32_t capacity = choose_u32({0, 1, 2, 16, 200, 4096}) % 8192;
      bool null_log = in_.u8() % 4 == 0;
      auto log = std::make_unique<char16_t[]>(capacity); // exactly `capacity` units
      program = checked("CLProgramCreateEx", MQLCL_INVALID_HANDLE, [&] {
        return CLProgramCreateEx(context, source_pointer,
                                 null_options ? nullptr : options_copy.get(),
                                 null_log ? nullptr : log.get(), capacity);
      });
      if (program != MQLCL_INVALID_HANDLE && !null_log && capacity > 0)
        require(std::find(log.get(), log.get() + capacity, u'\0') != log.get() + capacity,
                "CLProgramCreateEx: build log not terminated");
    }
    if (program != MQLCL_INVALID_HANDLE) {
      const Object *parent = model_.find(context, MQLCL_OPENCL_CONTEXT);
      require(parent != nullptr, "CLProgramCreate succeeded on a dead context");
      Object object;
      object.type = MQLCL_OPENCL_PROGRAM;
      object.context = context;
      object.safe = safe;
      require(safe, "CLProgramCreate built a source that cannot build");
      add(program, object, "CLProgramCreate");
    }
  }

  void kernel_create() {
    if (model_.count(MQLCL_OPENCL_KERNEL) >= kMaxKernels)
      return;
    int32_t program = choose(MQLCL_OPENCL_PROGRAM);
    std::u16string name;
    bool null_name = false;
    switch (in_.u8() % 6) {
    case 0:
    case 1:
    case 2:
      name = in_.pick(kKernels).name;
      break;
    case 3: // a near miss
      name = std::u16string(in_.pick(kKernels).name) + static_cast<char16_t>(in_.u16() | 1);
      break;
    case 4: // long names: 127 units is the limit
      name = std::u16string(120 + in_.u8() % 16, u'k');
      break;
    default:
      name = fuzzed_utf16(160);
      null_name = in_.u8() % 8 == 0;
    }
    auto name_copy = exact_copy(name);
    int32_t kernel = checked("CLKernelCreate", MQLCL_INVALID_HANDLE, [&] {
      return CLKernelCreate(program, null_name ? nullptr : name_copy.get());
    });
    if (kernel != MQLCL_INVALID_HANDLE) {
      const Object *parent = model_.find(program, MQLCL_OPENCL_PROGRAM);
      require(parent != nullptr, "CLKernelCreate succeeded on a dead program");
      const KernelSpec *spec = spec_named(name);
      require(spec != nullptr, "CLKernelCreate found a kernel that does not exist");
      require(CLGetInfoInteger(kernel, MQLCL_CL_KERNEL_NUM_ARGS) ==
                  static_cast<int64_t>(spec->args.size()),
              "CLKernelCreate: wrong argument count");
      Object object;
      object.type = MQLCL_OPENCL_KERNEL;
      object.context = parent->context;
      object.spec = spec;
      object.args.resize(spec->args.size());
      add(kernel, object, "CLKernelCreate");
    }
  }

  void buffer_create() {
    if (model_.count(MQLCL_OPENCL_BUFFER) >= kMaxBuffers)
      return;
    int32_t context = choose(MQLCL_OPENCL_CONTEXT);
    uint32_t size = choose_u32({0, 1, 2, 3, 4, 8, 16, 64, 256, 1024, 4096, kMaxBufferBytes}) %
                    (kMaxBufferBytes + 1);
    uint32_t flags = choose_u32({0, 1, 2, 4, 16, 17, 18, 20, 3, 5, 6, 7, 8, 32, 0x80000000u});
    // One in four through the 64-bit call, which also gets sizes no 32-bit call can name.
    const bool wide = in_.u8() % 4 == 0;
    uint64_t wide_size = size;
    if (wide && in_.u8() % 4 == 0)
      wide_size = in_.pick(kWideSizes);
    int32_t buffer = wide ? checked("CLBufferCreate64", MQLCL_INVALID_HANDLE,
                                    [&] { return CLBufferCreate64(context, wide_size, flags); })
                          : checked("CLBufferCreate", MQLCL_INVALID_HANDLE,
                                    [&] { return CLBufferCreate(context, size, flags); });
    if (buffer != MQLCL_INVALID_HANDLE)
      require(wide_size == size, "CLBufferCreate64 made a buffer of a size it must refuse");
    if (buffer != MQLCL_INVALID_HANDLE) {
      require(model_.find(context, MQLCL_OPENCL_CONTEXT) != nullptr,
              "CLBufferCreate succeeded on a dead context");
      require(CLGetInfoInteger(buffer, MQLCL_CL_BUFFER_SIZE) == size, "CL_BUFFER_SIZE is wrong");
      Object object;
      object.type = MQLCL_OPENCL_BUFFER;
      object.context = context;
      object.size = size;
      object.flags = (flags & 7) == 0 ? flags | MQLCL_MEM_READ_WRITE : flags;
      add(buffer, object, "CLBufferCreate");
    }
  }

  void free_op(int32_t type) {
    int32_t handle = choose(type);
    if (g_no_builds && is_persistent(handle))
      return; // it would be built again
    free_handle(handle, type);
  }

  // Frees `handle` as a `type`: a live one must go (and leave the model), a dead one fail 5102.
  void free_handle(int32_t handle, int32_t type) {
    bool was_live = model_.find(handle, type) != nullptr;
    CLResetLastError();
    switch (type) {
    case MQLCL_OPENCL_CONTEXT:
      CLContextFree(handle);
      break;
    case MQLCL_OPENCL_PROGRAM:
      CLProgramFree(handle);
      break;
    case MQLCL_OPENCL_KERNEL:
      CLKernelFree(handle);
      break;
    default:
      CLBufferFree(handle);
    }
    int32_t code = CLGetLastError();
    static const char *const kFrees[] = {"", "CLContextFree", "CLProgramFree", "CLKernelFree",
                                         "CLBufferFree"};
    count_outcome(kFrees[type], code);
    if (was_live) {
      require(code == 0, "freeing a live handle failed");
      model_.live.erase(handle);
      remember_freed(handle);
      require(CLHandleType(handle) == MQLCL_OPENCL_INVALID, "a freed handle is still valid");
    } else {
      require(code == MQLCL_ERR_OPENCL_INVALID_HANDLE, "freeing a dead handle did not fail 5102");
    }
  }

  void transfer(bool write) {
    int32_t buffer = choose(MQLCL_OPENCL_BUFFER);
    const Object *target = model_.find(buffer, MQLCL_OPENCL_BUFFER);
    uint32_t size = target != nullptr ? target->size : 64;
    uint32_t element = choose_u32({1, 4, 8, 2, 0, 3, 16, UINT32_MAX});
    uint32_t buffer_offset = choose_u32({0, 0, 1, 4, size - 1, size, size + 1, UINT32_MAX});
    uint32_t count = choose_u32({1, 4, 16, element ? size / element : 0, 0, UINT32_MAX,
                                 element ? (size - buffer_offset) / element : 1});
    uint32_t data_offset = choose_u32({0, 0, 1, 2, 100, UINT32_MAX});
    bool null_data = in_.u8() % 8 == 0;

    // The bridge must refuse any device range outside the buffer; inside it, the harness keeps
    // its side of the contract: the host array holds the elements it names.
    uint64_t bytes = uint64_t{count} * element;
    bool device_range_valid = target != nullptr && element != 0 && count != 0 &&
                              buffer_offset < size && buffer_offset + bytes <= size;
    if (device_range_valid && (uint64_t{data_offset} + count) * element > kHostBytes)
      data_offset = 0;
    auto host = std::make_unique<uint8_t[]>(kHostBytes);
    std::memset(host.get(), 0x5A, kHostBytes);
    void *data = null_data ? nullptr : host.get();
    uint32_t moved = checked(write ? "CLBufferWrite" : "CLBufferRead", 0u, [&] {
      return write ? CLBufferWrite(buffer, data, buffer_offset, data_offset, count, element)
                   : CLBufferRead(buffer, data, buffer_offset, data_offset, count, element);
    });
    if (moved != 0) {
      require(device_range_valid && !null_data, "a transfer outside the buffer succeeded");
      require(moved == count, "a transfer moved a different count");
    }
  }

  // CLBufferReadStart, CLBufferReadStatus, CLBufferReadTake with hostile ranges, handles and
  // host offsets. A read may be left pending for later ops: a later read_async of its buffer
  // takes it, and a free of the buffer (or its context, or the input's end) drops it.
  void read_async() {
    int32_t buffer = choose(MQLCL_OPENCL_BUFFER);
    Object *target = model_.find(buffer, MQLCL_OPENCL_BUFFER);
    if (target != nullptr && target->pending_read)
      return take_pending(buffer, *target);
    uint32_t size = target != nullptr ? target->size : 64;
    if (in_.u8() % 4 == 0) { // a poll or a take of a read never started
      checked("CLBufferReadStatus", -1, [&] { return CLBufferReadStatus(buffer); });
      require(CLGetLastError() == (target != nullptr ? MQLCL_ERR_OPENCL_READ_NOT_STARTED
                                                     : MQLCL_ERR_OPENCL_INVALID_HANDLE),
              "CLBufferReadStatus of a read never started: wrong code");
    }
    uint32_t offset = choose_u32({0, 0, 4, size - 1, size, UINT32_MAX});
    uint32_t bytes = choose_u32({size, 16, 1, 0, size - offset, size + 1, UINT32_MAX});
    std::vector<uint8_t> expected;
    if (!start_read(buffer, target, offset, bytes, expected))
      return;
    require(checked("CLBufferReadStart", 0, [&] { return CLBufferReadStart(buffer, 0, 1); }) == 0,
            "a second CLBufferReadStart succeeded while one was pending");
    take(buffer, expected);
    require(checked("CLBufferReadTake", 0u,
                    [&] { return CLBufferReadTake(buffer, expected.data(), 0, 1, 1); }) == 0 &&
                CLGetLastError() == MQLCL_ERR_OPENCL_READ_NOT_STARTED,
            "a read was taken twice");
    if (in_.u8() % 4 == 3) { // the same range again, left pending
      require(start_read(buffer, target, offset, bytes, expected), "a read did not start again");
      target->pending_read = true;
      target->read_bytes = std::move(expected);
    }
  }

  // Starts a read of `bytes` at `offset` of `buffer`; true when it started, which must be exactly
  // when the range lies in the buffer. `expected` gets the range as a blocking read gives it.
  bool start_read(int32_t buffer, const Object *target, uint32_t offset, uint32_t bytes,
                  std::vector<uint8_t> &expected) {
    uint32_t size = target != nullptr ? target->size : 0;
    bool valid =
        target != nullptr && bytes != 0 && offset < size && uint64_t{offset} + bytes <= size;
    int32_t started =
        checked("CLBufferReadStart", 0, [&] { return CLBufferReadStart(buffer, offset, bytes); });
    require(started == (valid ? 1 : 0), "CLBufferReadStart disagreed with its rules");
    if (!started)
      return false;
    int32_t status = checked("CLBufferReadStatus", -1, [&] { return CLBufferReadStatus(buffer); });
    require(status >= MQLCL_CL_COMPLETE && status <= MQLCL_CL_QUEUED,
            "CLBufferReadStatus: unknown");
    expected.assign(bytes, 0);
    require(CLBufferRead(buffer, expected.data(), offset, 0, bytes, 1) == bytes,
            "a blocking read of a started range failed");
    return true;
  }

  // Takes the pending read of `buffer` (`expected`'s bytes) with a hostile count, element size and
  // host offset; a refused take leaves it pending, and a fitting one then ends it.
  void take(int32_t buffer, const std::vector<uint8_t> &expected) {
    const auto bytes = static_cast<uint32_t>(expected.size());
    uint32_t element = choose_u32({1, 4, 8, 0, 3, UINT32_MAX});
    uint32_t count = choose_u32({element ? bytes / element : 0, 1, 0, bytes, UINT32_MAX});
    uint32_t data_offset = choose_u32({0, 0, 1, UINT32_MAX});
    const uint64_t asked = uint64_t{element} * count;
    const bool fits = element != 0 && count != 0 && asked <= bytes;
    // The host array holds exactly the elements asked past data_offset (0 or 1), so ASan sees
    // any overrun; a larger offset is kept only where the range passes the end of the address
    // space, which must be refused, and is 0 otherwise.
    const uint64_t first = data_offset <= 1 ? data_offset : 0;
    auto host = std::make_unique<uint8_t[]>(fits ? (first + count) * element : 1);
    const unsigned __int128 end = reinterpret_cast<uintptr_t>(host.get()) +
                                  static_cast<unsigned __int128>(data_offset) * element + asked;
    const bool past_address_space = element != 0 && count != 0 && end > UINTPTR_MAX;
    if (fits && data_offset > 1 && !past_address_space)
      data_offset = 0;
    uint32_t taken = checked("CLBufferReadTake", 0u, [&] {
      return CLBufferReadTake(buffer, host.get(), data_offset, count, element);
    });
    if (past_address_space)
      require(taken == 0 && CLGetLastError() == MQLCL_ERR_INVALID_PARAMETER,
              "CLBufferReadTake took a host range past the end of the address space");
    require((taken != 0) == (fits && !past_address_space),
            "CLBufferReadTake disagreed with its rules");
    std::vector<uint8_t> rest(expected.size());
    if (taken == 0) // still pending: a fitting take ends it
      require(CLBufferReadTake(buffer, rest.data(), 0, bytes, 1) == bytes, "ending a read failed");
    const uint8_t *got = taken != 0 ? host.get() + uint64_t{data_offset} * element : rest.data();
    require(std::memcmp(got, expected.data(), taken != 0 ? static_cast<size_t>(asked) : bytes) == 0,
            "CLBufferReadTake gave other bytes than CLBufferRead when the read started");
  }

  // A read an earlier op left pending: a new one is refused, it polls, and a take gives the bytes
  // the buffer held when it started, whatever ran since.
  void take_pending(int32_t buffer, Object &target) {
    require(checked("CLBufferReadStart", 0, [&] { return CLBufferReadStart(buffer, 0, 1); }) == 0 &&
                CLGetLastError() == MQLCL_ERR_INVALID_PARAMETER,
            "CLBufferReadStart succeeded while a read was pending");
    int32_t status = checked("CLBufferReadStatus", -1, [&] { return CLBufferReadStatus(buffer); });
    require(status >= MQLCL_CL_COMPLETE && status <= MQLCL_CL_QUEUED,
            "CLBufferReadStatus of a pending read: unknown");
    target.pending_read = false;
    take(buffer, target.read_bytes);
  }

  // An owner: what it makes is its own, the model's handles are not, and CLOwnerFree frees what
  // it made. The round ends acting for no owner, as every other op does.
  void owner_round() {
    int32_t owner = checked("CLOwnerCreate", -1, [] { return CLOwnerCreate(); });
    require(owner > 0, "CLOwnerCreate failed");
    int32_t other = choose(MQLCL_OPENCL_BUFFER);
    require(CLHandleType(other) == MQLCL_OPENCL_INVALID, "an owner sees a handle of no owner");
    checked("CLGetInfoInteger", int64_t{-1},
            [&] { return CLGetInfoInteger(other, MQLCL_CL_BUFFER_SIZE); });
    if (model_.find(other, MQLCL_OPENCL_BUFFER) != nullptr)
      require(CLGetLastError() == MQLCL_ERR_OPENCL_NOT_OWNER, "an owner used another's handle");
    size_t made = 0;
    int32_t context = checked("CLContextCreate", MQLCL_INVALID_HANDLE,
                              [] { return CLContextCreate(MQLCL_USE_ANY); });
    int32_t buffer = MQLCL_INVALID_HANDLE;
    if (context != MQLCL_INVALID_HANDLE) {
      ++made;
      buffer = checked("CLBufferCreate", MQLCL_INVALID_HANDLE,
                       [&] { return CLBufferCreate(context, 64, MQLCL_MEM_READ_WRITE); });
      made += buffer != MQLCL_INVALID_HANDLE;
    }
    const bool read_pending = in_.u8() % 2 == 1; // CLOwnerFree then drops it
    if (read_pending && buffer != MQLCL_INVALID_HANDLE)
      require(checked("CLBufferReadStart", 0, [&] { return CLBufferReadStart(buffer, 0, 64); }) ==
                  1,
              "an owner could not start a read of its buffer");
    require(checked("CLOwnerSelect", 0, [] { return CLOwnerSelect(0); }) == 1, "select 0 failed");
    if (buffer != MQLCL_INVALID_HANDLE) {
      require(CLHandleType(buffer) == MQLCL_OPENCL_INVALID, "no owner sees an owner's handle");
      CLResetLastError();
      CLBufferFree(buffer);
      require(CLGetLastError() == MQLCL_ERR_OPENCL_NOT_OWNER, "no owner freed an owner's buffer");
    }
    if (in_.u8() % 2 == 0)
      require(checked("CLOwnerSelect", 0, [&] { return CLOwnerSelect(owner); }) == 1,
              "selecting a live owner failed");
    int32_t freed = checked("CLOwnerFree", -1, [&] { return CLOwnerFree(owner); });
    require(freed == static_cast<int32_t>(made), "CLOwnerFree freed another number of handles");
    require(CLOwnerSelect(0) == 1, "select 0 failed");
    require(checked("CLOwnerFree", -1, [&] { return CLOwnerFree(owner); }) == -1 &&
                CLGetLastError() == MQLCL_ERR_OPENCL_NOT_OWNER,
            "an owner was freed twice");
    require(checked("CLOwnerSelect", 0, [&] { return CLOwnerSelect(owner); }) == 0,
            "a freed owner was selected");
  }

  // CLBufferWrite64/CLBufferRead64: the same contract with 64-bit offsets and counts, among them
  // values whose byte counts wrap in 64 bits or in 32.
  void transfer64(bool write) {
    int32_t buffer = choose(MQLCL_OPENCL_BUFFER);
    const Object *target = model_.find(buffer, MQLCL_OPENCL_BUFFER);
    uint64_t size = target != nullptr ? target->size : 64;
    // 2^32 - 2^16 + 1: with 2^32 + 2^16 elements, 2^64 + 2^16 bytes.
    uint32_t element = choose_u32({1, 4, 8, 2, 0, 3, 16, UINT32_MAX, 4294901761u, 1u << 16});
    const uint64_t wraps = element > 1 ? UINT64_MAX / element + 1 : UINT64_MAX;
    uint64_t buffer_offset =
        choose_u64({0, 0, 1, 4, size - 1, size, uint64_t{1} << 32, UINT64_MAX, UINT64_MAX - 3});
    uint64_t count = choose_u64(
        {1, 4, element ? size / element : 0, 0, wraps, (uint64_t{1} << 32) + 1, UINT64_MAX,
         element ? (size - buffer_offset) / element : 1, element ? UINT64_MAX / element : 1,
         (uint64_t{1} << 32) + 65536, uint64_t{1} << 48});
    uint64_t data_offset =
        choose_u64({0, 0, 1, 100, UINT64_MAX, UINT64_MAX / 4, uint64_t{1} << 32});
    bool null_data = in_.u8() % 8 == 0;
    // The bytes in 128 bits, so that the model's own check cannot wrap.
    const unsigned __int128 bytes = static_cast<unsigned __int128>(count) * element;
    bool device_range_valid = target != nullptr && element != 0 && count != 0 &&
                              buffer_offset < size && buffer_offset + bytes <= size;
    if (device_range_valid &&
        (static_cast<unsigned __int128>(data_offset) + count) * element > kHostBytes)
      data_offset = 0;
    auto host = std::make_unique<uint8_t[]>(kHostBytes);
    std::memset(host.get(), 0x5A, kHostBytes);
    void *data = null_data ? nullptr : host.get();
    uint64_t moved = checked(write ? "CLBufferWrite64" : "CLBufferRead64", uint64_t{0}, [&] {
      return write ? CLBufferWrite64(buffer, data, buffer_offset, data_offset, count, element)
                   : CLBufferRead64(buffer, data, buffer_offset, data_offset, count, element);
    });
    if (moved != 0) {
      require(device_range_valid && !null_data, "a 64-bit transfer outside the buffer succeeded");
      require(moved == count, "a 64-bit transfer moved a different count");
    }
    if (!null_data && element != 0 && count != 0 && bytes > UINT64_MAX)
      require(CLGetLastError() == MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,
              "a 64-bit transfer of more than 2^64 - 1 bytes was not refused with 5110");
  }

  // CLBufferTensorMap: a map of one buffer's matrix written into another. Every request the
  // documented rules refuse must fail, on any device; one that succeeds (NVIDIA Hopper only) must
  // have met them all; a refused call writes nothing into the map buffer.
  void tensor_map() {
    int32_t map_buffer = choose(MQLCL_OPENCL_BUFFER), buffer = choose(MQLCL_OPENCL_BUFFER);
    const Object *map_target = model_.find(map_buffer, MQLCL_OPENCL_BUFFER);
    const Object *matrix = model_.find(buffer, MQLCL_OPENCL_BUFFER);
    uint32_t map_size = map_target != nullptr ? map_target->size : 256;
    uint32_t size = matrix != nullptr ? matrix->size : 256;
    uint32_t map_offset = choose_u32({0, 128, 64, 1, map_size - 128, map_size, UINT32_MAX});
    uint32_t buffer_offset = choose_u32({0, 16, 1, size - 16, size, UINT32_MAX});
    uint32_t rows = choose_u32({4, 8, 1, 0, 64, UINT32_MAX});
    uint32_t cols = choose_u32({4, 8, 16, 0, 3, UINT32_MAX});
    uint32_t row_pitch = choose_u32({16, 32, 64, 0, 12, 17, UINT32_MAX});
    uint32_t box_rows = choose_u32({4, 8, 1, 0, 256, 257});
    uint32_t box_cols = choose_u32({4, 8, 32, 0, 3, 257});
    uint32_t swizzle = choose_u32({0, 32, 64, 128, 16, UINT32_MAX});
    int32_t type =
        static_cast<int32_t>(choose_u32({MQLCL_TENSOR_FLOAT32, MQLCL_TENSOR_TF32, 2, UINT32_MAX}));

    const uint64_t row_bytes = uint64_t{cols} * 4, box_row_bytes = uint64_t{box_cols} * 4;
    const bool valid =
        map_target != nullptr && matrix != nullptr && map_target->context == matrix->context &&
        (type == MQLCL_TENSOR_FLOAT32 || type == MQLCL_TENSOR_TF32) && map_offset % 64 == 0 &&
        uint64_t{map_offset} + 128 <= map_size && rows != 0 && cols != 0 && box_rows != 0 &&
        box_cols != 0 && row_pitch % 16 == 0 && row_pitch >= row_bytes && buffer_offset % 16 == 0 &&
        buffer_offset < size &&
        buffer_offset + uint64_t{rows - 1} * row_pitch + row_bytes <= size &&
        (swizzle == 0 || swizzle == 32 || swizzle == 64 || swizzle == 128) && box_rows <= 256 &&
        box_cols <= 256 && box_row_bytes % 16 == 0 && (swizzle == 0 || box_row_bytes <= swizzle);

    // The whole map buffer (they are small here) before the call, to see what a refusal wrote.
    std::vector<uint8_t> before(map_target != nullptr ? map_size : 0), after(before.size());
    if (!before.empty())
      require(CLBufferRead(map_buffer, before.data(), 0, 0, map_size, 1) == map_size,
              "reading a map buffer failed");
    int32_t ok = checked("CLBufferTensorMap", 0, [&] {
      return CLBufferTensorMap(map_buffer, map_offset, buffer, buffer_offset, rows, cols, row_pitch,
                               box_rows, box_cols, swizzle, type);
    });
    if (ok) {
      require(valid, "CLBufferTensorMap accepted a request its rules refuse");
      return;
    }
    if (!before.empty()) {
      require(CLBufferRead(map_buffer, after.data(), 0, 0, map_size, 1) == map_size,
              "reading a map buffer failed");
      require(before == after, "a refused CLBufferTensorMap wrote into the map buffer");
    }
  }

  // ---- CLGemm ---------------------------------------------------------------------------------

  uint64_t choose_u64(std::initializer_list<uint64_t> common) {
    uint8_t how = in_.u8();
    if (how >= 0xE0)
      return in_.u64();
    return *(common.begin() + how % common.size());
  }

  // alpha or beta: common values, the non-finite ones, overflow in float, subnormals, raw bits.
  double choose_real() {
    static const double kReals[] = {1,   0,        -1,        0.5,   2,        -0.0,
                                    NAN, INFINITY, -INFINITY, 1e300, 4.9e-324, 1e-40};
    uint8_t how = in_.u8();
    if (how < 0xE0)
      return kReals[how % (sizeof(kReals) / sizeof(kReals[0]))];
    uint64_t bits = in_.u64();
    double value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }

  uint64_t elements_of(int32_t buffer, size_t element) {
    const Object *object = model_.find(buffer, MQLCL_OPENCL_BUFFER);
    return (object != nullptr ? object->size : 1024) / element;
  }

  // Leading dimensions, strides and offsets near the edges of the operand's buffer.
  void decode_gemm_layout(GemmCall &g, int i) {
    const uint64_t batch = g.batch != 0 && g.batch <= 65535 ? g.batch : 1;
    const auto cols = static_cast<uint32_t>(g.cols(i));
    g.ld[i] = choose_u32({0, cols, cols + 1, cols + 5, cols - 1, 1, UINT32_MAX});
    const auto span = static_cast<uint64_t>(g.span(i));
    g.stride[i] = choose_u64({span, 0, span + 1, span + 3, span - 1, 1, UINT64_MAX / 2, UINT64_MAX,
                              UINT64_MAX - span, UINT64_MAX - span + 1});
    const uint64_t elements = elements_of(g.buffer[i], g.element());
    const uint64_t last = elements - ((batch - 1) * g.stride[i] + span); // wraps when none fits
    g.offset[i] = choose_u64({0, 1, 4, last, last + 1, elements, UINT64_MAX});
  }

  GemmCall decode_gemm() {
    GemmCall g;
    g.buffer[0] = choose(MQLCL_OPENCL_BUFFER);
    g.buffer[1] = choose(MQLCL_OPENCL_BUFFER);
    uint8_t c_how = in_.u8() % 8; // 0, 1: C in A's or B's buffer, to try overlaps
    g.buffer[2] = c_how < 2 ? g.buffer[c_how] : choose(MQLCL_OPENCL_BUFFER);
    g.type = static_cast<int32_t>(choose_u32({0, 1, 0, 2, UINT32_MAX}));
    g.precision = static_cast<int32_t>(choose_u32({0, 1, 3, 2, 4, UINT32_MAX}));
    for (int32_t &transpose : g.transpose)
      transpose = static_cast<int32_t>(choose_u32({0, 1, 2, UINT32_MAX}));
    for (uint32_t *size : {&g.m, &g.n, &g.k})
      *size = choose_u32({1, 2, 7, 16, 37, 64, 0, 3});
    g.batch = choose_u32({1, 2, 3, 1, 0, 65535, 65536, UINT32_MAX});
    g.alpha = choose_real();
    g.beta = choose_real();
    for (int i = 0; i < 3; ++i)
      decode_gemm_layout(g, i);
    return g;
  }

  // The whole buffer's bytes, or nothing for a handle that is not a live buffer.
  std::vector<uint8_t> snapshot(int32_t buffer) {
    const Object *object = model_.find(buffer, MQLCL_OPENCL_BUFFER);
    std::vector<uint8_t> bytes(object != nullptr ? object->size : 0);
    if (!bytes.empty())
      require(CLBufferRead(buffer, bytes.data(), 0, 0, object->size, 1) == object->size,
              "reading a buffer whole failed");
    return bytes;
  }

  // Small integers (exact products) in A, B and C, or NaN in C, whose old value beta 0 ignores.
  void fill_for_gemm(const GemmCall &g, uint8_t mode) {
    for (int i = 0; i < 3 && mode != 0; ++i) {
      const Object *object = model_.find(g.buffer[i], MQLCL_OPENCL_BUFFER);
      const size_t element = g.element();
      const uint32_t count = object->size / static_cast<uint32_t>(element);
      if (count == 0)
        continue;
      std::vector<uint8_t> data(size_t{count} * element);
      for (uint32_t e = 0; e < count; ++e) {
        double value = i == 2 && mode == 3 ? NAN : double((e * 2654435761u + 977u * i) % 17) - 8;
        float single = static_cast<float>(value);
        std::memcpy(data.data() + e * element, element == 8 ? static_cast<void *>(&value) : &single,
                    element);
      }
      require(CLBufferWrite(g.buffer[i], data.data(), 0, 0, count,
                            static_cast<uint32_t>(element)) == count,
              "filling a buffer for CLGemm failed");
    }
  }

  // After a successful call: C's cells match the reference, and nothing else changed.
  void check_gemm_product(const GemmCall &g, const std::vector<uint8_t> (&before)[3]) {
    const std::vector<uint8_t> after = snapshot(g.buffer[2]); // waits for the product
    std::vector<uint8_t> unchanged_outside = before[2];
    const size_t element = g.element();
    for (uint64_t p = 0; p < g.batch; ++p)
      for (uint64_t i = 0; i < g.m; ++i)
        for (uint64_t j = 0; j < g.n; ++j) {
          const uint64_t at = g.index_c(p, i, j) * element;
          std::memcpy(unchanged_outside.data() + at, after.data() + at, element);
        }
    require(after == unchanged_outside, "CLGemm wrote outside C's matrices");
    for (int i = 0; i < 2; ++i)
      if (g.buffer[i] != g.buffer[2])
        require(snapshot(g.buffer[i]) == before[i], "CLGemm changed A's or B's buffer");
    for (uint64_t p = 0; p < g.batch; ++p)
      for (uint64_t i = 0; i < g.m; ++i)
        for (uint64_t j = 0; j < g.n; ++j)
          check_gemm_cell(g, before, after, p, i, j);
  }

  // CLGemm with hostile handles, choices, sizes, layouts and scalars. A call the documented
  // rules refuse must fail with one of CLGemm's codes and change no buffer; a valid one must
  // succeed (unless the device lacks the precision asked for) and compute the product.
  void gemm() {
    const GemmCall g = decode_gemm();
    const Object *operand[3];
    for (int i = 0; i < 3; ++i)
      operand[i] = model_.find(g.buffer[i], MQLCL_OPENCL_BUFFER);
    const bool valid = gemm_is_valid(g, operand);
    if (valid && (uint64_t{g.batch} * g.m * g.n * g.k > kMaxGemmWork ||
                  gemm_runs_ == (g_no_builds ? 0 : kMaxGemmRuns)))
      return; // the caps: no product too long for PoCL under ASan, no input too slow
    gemm_runs_ += valid ? 1 : 0;
    const uint8_t fill = in_.u8() % 4;
    if (operand[0] != nullptr && operand[1] != nullptr && operand[2] != nullptr)
      fill_for_gemm(g, fill);
    const std::vector<uint8_t> before[3] = {snapshot(g.buffer[0]), snapshot(g.buffer[1]),
                                            snapshot(g.buffer[2])};
    int32_t ok = checked("CLGemm", 0, [&] {
      return CLGemm(g.buffer[0], g.buffer[1], g.buffer[2], g.type, g.precision, g.transpose[0],
                    g.transpose[1], g.m, g.n, g.k, g.alpha, g.beta, g.offset[0], g.ld[0],
                    g.offset[1], g.ld[1], g.offset[2], g.ld[2], g.batch, g.stride[0], g.stride[1],
                    g.stride[2]);
    });
    if (ok) {
      require(valid, "CLGemm accepted a call its rules refuse");
      return check_gemm_product(g, before);
    }
    check_refusal("CLGemm", g, operand, valid, before);
  }

  // After `what` (CLGemm or CLMatMul) refused g: one of CLGemm's codes, a valid call only for a
  // precision the device lacks (5100), and no buffer changed.
  void check_refusal(const std::string &what, const GemmCall &g, const Object *const (&operand)[3],
                     bool valid, const std::vector<uint8_t> (&before)[3]) {
    const int32_t code = CLGetLastError();
    require(gemm_refusal_code(code), what + " refused with a code its checks never give");
    const bool lacks_double = g.type == MQLCL_GEMM_DOUBLE &&
                              CLGetInfoInteger(operand[2] != nullptr ? operand[2]->context : 0,
                                               MQLCL_CL_DEVICE_DOUBLE_SUPPORT) != 1;
    require(!valid || (code == MQLCL_ERR_OPENCL_NOT_SUPPORTED &&
                       (g.precision == MQLCL_GEMM_TF32 || lacks_double)),
            what + " refused a valid call");
    for (int i = 0; i < 3; ++i)
      require(snapshot(g.buffer[i]) == before[i], "a refused " + what + " changed a buffer");
  }

  // Host operands for CLMatMul: `count` small integers (exact products) in a heap block of exactly
  // their bytes, or NULL. (Where the device side is invalid, the caller passes a count of 1: the
  // bridge must refuse before it reads or writes a host array.)
  std::unique_ptr<uint8_t[]> host_operand(const GemmCall &g, uint64_t count, int which, bool null) {
    if (null)
      return nullptr;
    const size_t element = g.element();
    auto data = std::make_unique<uint8_t[]>(std::max<uint64_t>(1, count * element));
    for (uint64_t e = 0; e < count; ++e) {
      double value = double((e * 2654435761u + 131u * which) % 17) - 8;
      float single = static_cast<float>(value);
      std::memcpy(data.get() + e * element, element == 8 ? static_cast<void *>(&value) : &single,
                  element);
    }
    return data;
  }

  // Three buffers of their own on a live context for a product whose B takes 1 MiB, where
  // CLMatMul starts writing A and B side by side on a device that shares the host's memory
  // (api_matmul.cpp): past the other ops' buffers (kMaxBufferBytes). The shape stays within
  // kMaxGemmWork. None (and g unchanged) where the context is dead, the model full or a buffer
  // refused.
  std::vector<int32_t> side_by_side_operands(GemmCall &g) {
    constexpr uint32_t kBBytes = 1u << 20, kK = 64;
    const int32_t context = choose(MQLCL_OPENCL_CONTEXT);
    if (model_.find(context, MQLCL_OPENCL_CONTEXT) == nullptr ||
        model_.count(MQLCL_OPENCL_BUFFER) + 3 > kMaxBuffers)
      return {};
    const uint32_t element = static_cast<uint32_t>(g.element()), n = kBBytes / element / kK;
    const uint32_t m = static_cast<uint32_t>(kMaxGemmWork / (uint64_t{n} * kK));
    const uint32_t bytes[3] = {m * kK * element, kBBytes, m * n * element};
    std::vector<int32_t> made;
    for (uint32_t size : bytes) {
      const int32_t buffer = checked("CLBufferCreate", MQLCL_INVALID_HANDLE, [&] {
        return CLBufferCreate(context, size, MQLCL_MEM_READ_WRITE);
      });
      if (buffer == MQLCL_INVALID_HANDLE) { // with a documented code (checked)
        free_buffers(made);
        return {};
      }
      Object object;
      object.type = MQLCL_OPENCL_BUFFER;
      object.context = context;
      object.size = size;
      object.flags = MQLCL_MEM_READ_WRITE;
      made.push_back(add(buffer, object, "CLBufferCreate"));
    }
    std::copy(made.begin(), made.end(), g.buffer);
    g.m = m;
    g.n = n;
    g.k = kK;
    return made;
  }

  void free_buffers(const std::vector<int32_t> &buffers) {
    for (int32_t buffer : buffers)
      free_handle(buffer, MQLCL_OPENCL_BUFFER);
  }

  // CLMatMul: the packed NN product of three buffers from host arrays of exactly the sizes it
  // reads and writes where its device side is valid (the harness contract), or NULL ones; one
  // input in eight on buffers of its own, large enough for the side-by-side writes.
  void mat_mul() {
    GemmCall g = decode_gemm();
    g.transpose[0] = g.transpose[1] = 0;
    g.alpha = 1;
    g.beta = 0;
    g.batch = 1;
    for (int i = 0; i < 3; ++i)
      g.offset[i] = g.ld[i] = g.stride[i] = 0;
    const std::vector<int32_t> own =
        in_.u8() % 8 == 0 ? side_by_side_operands(g) : std::vector<int32_t>{};
    mat_mul_call(g);
    free_buffers(own);
  }

  void mat_mul_call(const GemmCall &g) {
    const Object *operand[3];
    for (int i = 0; i < 3; ++i)
      operand[i] = model_.find(g.buffer[i], MQLCL_OPENCL_BUFFER);
    const uint8_t null_one = in_.u8() % 16; // 0, 1, 2: that array NULL
    const bool device_side = gemm_is_valid(g, operand);
    const bool valid = device_side && g.buffer[0] != g.buffer[1] && null_one > 2;
    if (valid && (uint64_t{g.m} * g.n * g.k > kMaxGemmWork ||
                  gemm_runs_ == (g_no_builds ? 0 : kMaxGemmRuns)))
      return; // CLGemm's caps
    gemm_runs_ += valid ? 1 : 0;
    uint64_t counts[3] = {uint64_t{g.m} * g.k, uint64_t{g.k} * g.n, uint64_t{g.m} * g.n};
    if (!device_side)
      counts[0] = counts[1] = counts[2] = 1;
    std::unique_ptr<uint8_t[]> host[3];
    for (int i = 0; i < 3; ++i)
      host[i] = host_operand(g, counts[i], i, null_one == i);
    const size_t c_bytes = counts[2] * g.element();
    const std::vector<uint8_t> c_before(host[2] ? host[2].get() : nullptr,
                                        host[2] ? host[2].get() + c_bytes : nullptr);
    std::vector<uint8_t> before[3] = {snapshot(g.buffer[0]), snapshot(g.buffer[1]),
                                      snapshot(g.buffer[2])};
    int32_t ok = checked("CLMatMul", 0, [&] {
      return CLMatMul(g.buffer[0], g.buffer[1], g.buffer[2], g.type, g.precision, host[0].get(),
                      host[1].get(), host[2].get(), g.m, g.n, g.k);
    });
    if (ok) {
      require(valid, "CLMatMul accepted a call its rules refuse");
      // A's and B's buffers now start with a and b; C's cells and c hold the product.
      for (int i = 0; i < 2; ++i)
        std::memcpy(before[i].data(), host[i].get(), counts[i] * g.element());
      check_gemm_product(g, before);
      const std::vector<uint8_t> c_buffer = snapshot(g.buffer[2]);
      require(std::memcmp(c_buffer.data(), host[2].get(), c_bytes) == 0,
              "CLMatMul's c differs from C's buffer");
      return;
    }
    check_refusal("CLMatMul", g, operand, valid, before);
    require(!host[2] || c_bytes == 0 || std::memcmp(host[2].get(), c_before.data(), c_bytes) == 0,
            "a refused CLMatMul changed c");
  }

  // Index, size and bytes of a by-value argument, hostile or right.
  void set_arg_value() {
    int32_t kernel = choose(MQLCL_OPENCL_KERNEL);
    uint32_t index = choose_u32({0, 1, 2, 3, 4, 5, UINT32_MAX});
    uint32_t size = choose_u32({4, 4, 1, 2, 8, 16, 0, 3, 64});
    if (size > 256)
      size = 256;
    auto value = std::make_unique<uint8_t[]>(size); // exactly `size` bytes
    for (uint32_t i = 0; i < size; ++i)
      value[i] = in_.u8();
    bool null_value = in_.u8() % 8 == 0;
    int32_t ok = checked("CLSetKernelArg", 0, [&] {
      return CLSetKernelArg(kernel, index, null_value ? nullptr : value.get(), size);
    });
    if (ok) {
      Object *object = model_.find(kernel, MQLCL_OPENCL_KERNEL);
      require(object != nullptr, "CLSetKernelArg succeeded on a dead kernel");
      require(index < object->args.size() && object->spec->args[index].kind == ArgSpec::value,
              "CLSetKernelArg passed a raw value to a pointer argument");
      ArgState &arg = object->args[index];
      arg.set = true;
      arg.value.assign(value.get(), value.get() + size);
    }
  }

  void set_arg_mem() {
    int32_t kernel = choose(MQLCL_OPENCL_KERNEL);
    uint32_t index = choose_u32({0, 1, 2, 3, 4, UINT32_MAX});
    int32_t buffer = choose(MQLCL_OPENCL_BUFFER);
    int32_t ok =
        checked("CLSetKernelArgMem", 0, [&] { return CLSetKernelArgMem(kernel, index, buffer); });
    if (ok)
      bound_buffer(kernel, index, buffer);
  }

  void bound_buffer(int32_t kernel, uint32_t index, int32_t buffer) {
    Object *object = model_.find(kernel, MQLCL_OPENCL_KERNEL);
    const Object *memory = model_.find(buffer, MQLCL_OPENCL_BUFFER);
    require(object != nullptr && memory != nullptr, "CLSetKernelArgMem succeeded on a dead handle");
    require(memory->context == object->context,
            "CLSetKernelArgMem bound a buffer of another context");
    require(index < object->args.size() && object->spec->args[index].kind == ArgSpec::global,
            "CLSetKernelArgMem bound a buffer to a non-buffer argument");
    object->args[index].set = true;
    object->args[index].bytes = memory->size;
  }

  void set_arg_local() {
    int32_t kernel = choose(MQLCL_OPENCL_KERNEL);
    uint32_t index = choose_u32({0, 3, 1, 2, 4, UINT32_MAX});
    static const uint64_t kBytes[] = {4, 64, 1024, 0, 1, UINT64_MAX, 1ull << 32};
    uint64_t bytes = in_.u8() % 4 == 3 ? in_.u64() : in_.pick(kBytes);
    if (in_.u8() % 8 == 0 && g_local_memory != 0)
      bytes = g_local_memory + (in_.u8() % 2); // the limit, and one past it
    int32_t ok = checked("CLSetKernelArgMemLocal", 0,
                         [&] { return CLSetKernelArgMemLocal(kernel, index, bytes); });
    if (ok) {
      Object *object = model_.find(kernel, MQLCL_OPENCL_KERNEL);
      require(object != nullptr, "CLSetKernelArgMemLocal succeeded on a dead kernel");
      require(index < object->args.size() && object->spec->args[index].kind == ArgSpec::local,
              "CLSetKernelArgMemLocal set a non-local argument");
      object->args[index].set = true;
      object->args[index].bytes = bytes;
    }
  }

  // Whether a launch of this kernel, as the model knows it, stays in bounds; nullopt-like -1 when
  // some argument is not set (the bridge must then refuse the launch).
  static int launch_is_safe(const Object &kernel) {
    for (size_t i = 0; i < kernel.args.size(); ++i)
      if (!kernel.args[i].set)
        return -1;
    for (size_t i = 0; i < kernel.args.size(); ++i) {
      const ArgSpec &spec = kernel.spec->args[i];
      if (spec.kind == ArgSpec::value)
        continue;
      const ArgState &count = kernel.args[static_cast<size_t>(spec.count_arg)];
      if (count.value.size() != 4)
        return 0; // the driver took another size for a uint: do not trust the count
      uint32_t n;
      std::memcpy(&n, count.value.data(), 4);
      if (uint64_t{n} * spec.size > kernel.args[i].bytes)
        return 0;
    }
    return 1;
  }

  void execute(int32_t kernel) {
    uint32_t work_dim = choose_u32({1, 1, 2, 3, 0, 4, UINT32_MAX});
    // Exactly three entries each: the bridge may read work_dim of them, and must not read more.
    auto offsets = std::make_unique<uint32_t[]>(3);
    auto global = std::make_unique<uint32_t[]>(3);
    auto local = std::make_unique<uint32_t[]>(3);
    for (int d = 0; d < 3; ++d) {
      offsets[d] = choose_u32({0, 0, 1, 7, 1000, UINT32_MAX - 16});
      global[d] = choose_u32({1, 2, 4, 8, 16, 64, 256, 1024, 0, 3, 100, 4096});
      local[d] = choose_u32({0, 0, 1, 2, 4, 8, 16, 64, 3, 5000});
    }
    bool null_offsets = in_.u8() % 2 == 0, null_global = in_.u8() % 16 == 0,
         null_local = in_.u8() % 2 == 0;
    // Cap the work-items of a launch, whatever the dimensions.
    uint64_t items = 1;
    for (uint32_t d = 0; d < 3; ++d) {
      if (global[d] > kMaxWorkItems)
        global[d] = static_cast<uint32_t>(kMaxWorkItems);
      if (items * std::max<uint32_t>(global[d], 1) > kMaxWorkItems)
        global[d] = 1;
      items *= std::max<uint32_t>(global[d], 1);
    }

    const Object *object = model_.find(kernel, MQLCL_OPENCL_KERNEL);
    int safe = object != nullptr ? launch_is_safe(*object) : -1;
    if (safe == 0)
      return; // the contract: never launch a kernel out of the bounds of what is bound
    int32_t ok = checked("CLExecute", 0, [&] {
      return CLExecute(kernel, work_dim, null_offsets ? nullptr : offsets.get(),
                       null_global ? nullptr : global.get(), null_local ? nullptr : local.get());
    });
    if (ok)
      require(safe == 1, "CLExecute launched a dead kernel or one with unset arguments");
  }

  void execution_status() {
    int32_t kernel = choose(MQLCL_OPENCL_KERNEL);
    int32_t status = checked("CLExecutionStatus", -1, [&] { return CLExecutionStatus(kernel); });
    if (status != -1) {
      require(model_.find(kernel, MQLCL_OPENCL_KERNEL) != nullptr,
              "CLExecutionStatus answered for a dead kernel");
      require(status >= MQLCL_CL_COMPLETE && status <= MQLCL_CL_QUEUED,
              "CLExecutionStatus: unknown status");
    }
  }

  // Any handle type, a device ordinal, or junk.
  int32_t any_handle() {
    static const int32_t kTypes[] = {MQLCL_OPENCL_CONTEXT, MQLCL_OPENCL_PROGRAM,
                                     MQLCL_OPENCL_KERNEL, MQLCL_OPENCL_BUFFER};
    uint8_t how = in_.u8();
    if (how % 4 == 3) {
      static const int32_t kOrdinals[] = {0, 1, -1, 2, MQLCL_CL_LAST_ERROR};
      return in_.pick(kOrdinals);
    }
    return choose(in_.pick(kTypes));
  }

  void info_integer() {
    int32_t handle = any_handle();
    static const int32_t kProperties[] = {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,
                                          10,  11,  12,  100, 101, 102, 103, 104, 105, 106,
                                          107, 108, 109, 110, 111, 112, 113, 114, 115, 116,
                                          117, 118, 13,  99,  119, 120, 121, 122, -1};
    int32_t property = in_.u8() % 8 == 7 ? static_cast<int32_t>(in_.u32()) : in_.pick(kProperties);
    int64_t value = checked("CLGetInfoInteger", int64_t{-1},
                            [&] { return CLGetInfoInteger(handle, property); });
    if (property == MQLCL_CL_OBJECT_COUNT)
      require(value == static_cast<int64_t>(model_.live.size()), "CL_OBJECT_COUNT is wrong");
    if (property == MQLCL_CL_PROGRAM_FROM_CACHE)
      require(model_.find(handle, MQLCL_OPENCL_PROGRAM) != nullptr ? value == 0 || value == 1
                                                                   : value == -1,
              "CL_PROGRAM_FROM_CACHE is neither 0 nor 1, or answers for a non-program");
    if (property == MQLCL_CL_BUFFER_SIZE) {
      const Object *buffer = model_.find(handle, MQLCL_OPENCL_BUFFER);
      require(buffer != nullptr ? value == buffer->size : value == -1,
              "CL_BUFFER_SIZE disagrees with the model");
    }
  }

  void info_string() {
    int32_t handle = in_.u8() % 4 == 0 ? static_cast<int32_t>(in_.u32()) : any_handle();
    // 105 CL_GEMM_PLAN answers for a context after its first CLGemm; 14, 99 and 106 are unknown.
    static const int32_t kProperties[] = {0,  1,  2,   3,   4,   5,   6,   7,   8,  9,  10, 11,
                                          12, 13, 100, 101, 102, 103, 104, 105, 14, 99, 106};
    int32_t property = in_.u8() % 8 == 7 ? static_cast<int32_t>(in_.u32()) : in_.pick(kProperties);
    uint32_t capacity = choose_u32({0, 1, 2, 4, 16, 64, 256, 2048}) % 4096;
    auto value = std::make_unique<char16_t[]>(capacity); // exactly `capacity` units
    bool null_value = in_.u8() % 8 == 0;
    int32_t ok = checked("CLGetInfoString", 0, [&] {
      return CLGetInfoString(handle, property, null_value ? nullptr : value.get(), capacity);
    });
    if (ok)
      require(capacity > 0 &&
                  std::find(value.get(), value.get() + capacity, u'\0') != value.get() + capacity,
              "CLGetInfoString: value not terminated within its capacity");
  }

  void device_info() {
    int32_t handle = any_handle();
    static const int32_t kProperties[] = {0x1000, 0x1002, 0x1004, 0x1005, 0x100B, 0x1010, 0x101F,
                                          0x1023, 0x102B, 0x102C, 0x102F, 0x1030, 0x1031, 0x1032,
                                          0x1040, 0x1044, 0x1048, 0x104B, 0x0FFF, 0x7777, 0};
    int32_t property = in_.u8() % 8 == 7 ? static_cast<int32_t>(in_.u32()) : in_.pick(kProperties);
    uint32_t capacity = choose_u32({0, 1, 4, 8, 64, 1024, 4096}) % 8192;
    auto data = std::make_unique<uint8_t[]>(capacity); // exactly `capacity` bytes
    bool null_data = in_.u8() % 4 == 0, null_size = in_.u8() % 8 == 0;
    uint32_t size = 0xDEADBEEF;
    int32_t ok = checked("CLGetDeviceInfo", 0, [&] {
      return CLGetDeviceInfo(handle, property, null_data ? nullptr : data.get(),
                             null_size ? nullptr : &size, capacity);
    });
    if (ok && !null_data)
      require(size <= capacity, "CLGetDeviceInfo: more than the capacity");
  }

  void handle_type() {
    if (in_.u8() % 4 == 0)
      return set_last_error();
    int32_t handle = any_handle();
    int32_t type = CLHandleType(handle);
    auto it = model_.live.find(handle);
    require(type == (it != model_.live.end() ? it->second.type : MQLCL_OPENCL_INVALID),
            "CLHandleType disagrees with the model");
  }

  // A wrapper's own refusal (CLSetLastError): any code, any UTF-16 description or none. The code
  // reads back (4003 for a negative one, 0 for 0), and so does a length for the description.
  void set_last_error() {
    const int32_t code = static_cast<int32_t>(in_.u32());
    const bool described = in_.u8() % 4 != 0;
    const std::u16string text = fuzzed_utf16(64);
    auto description = exact_copy(text);
    CLSetLastError(code, described ? description.get() : nullptr);
    count_outcome("CLSetLastError", CLGetLastError());
    require(CLGetLastError() == (code < 0 ? MQLCL_ERR_INVALID_PARAMETER : code),
            "CLSetLastError left another code");
    const int64_t length = CLGetInfoInteger(0, MQLCL_CL_LAST_ERROR_DESCRIPTION_LENGTH);
    require(code <= 0 || length >= 0, "CLSetLastError's description has no length");
    CLResetLastError();
  }

  // Binds a live kernel's arguments the right way (buffers of its context, counts that fit) and
  // launches it with fuzzed geometry, then reads an output back.
  void bind_and_run() {
    std::vector<int32_t> kernels = model_.of_type(MQLCL_OPENCL_KERNEL);
    if (kernels.empty())
      return;
    int32_t kernel = kernels[in_.u8() % kernels.size()];
    Object &object = model_.live[kernel];
    std::vector<int32_t> buffers;
    for (const auto &[handle, candidate] : model_.live)
      if (candidate.type == MQLCL_OPENCL_BUFFER && candidate.context == object.context)
        buffers.push_back(handle);
    const KernelSpec &spec = *object.spec;
    std::vector<uint64_t> capacity(spec.args.size(), UINT64_MAX); // elements per count arg
    int32_t output = 0;
    for (size_t i = 0; i < spec.args.size(); ++i) {
      const ArgSpec &arg = spec.args[i];
      auto index = static_cast<uint32_t>(i);
      if (arg.kind == ArgSpec::global) {
        if (buffers.empty())
          return;
        int32_t buffer = buffers[in_.u8() % buffers.size()];
        if (!checked("CLSetKernelArgMem", 0,
                     [&] { return CLSetKernelArgMem(kernel, index, buffer); }))
          violation("binding a buffer of the kernel's context failed");
        bound_buffer(kernel, index, buffer);
        output = buffer;
        uint64_t &fit = capacity[static_cast<size_t>(arg.count_arg)];
        fit = std::min<uint64_t>(fit, model_.live[buffer].size / arg.size);
      } else if (arg.kind == ArgSpec::local) {
        uint32_t bytes = 4u << (in_.u8() % 12);
        if (!checked("CLSetKernelArgMemLocal", 0,
                     [&] { return CLSetKernelArgMemLocal(kernel, index, bytes); }))
          violation("setting a __local argument failed");
        object.args[i].set = true;
        object.args[i].bytes = bytes;
        uint64_t &fit = capacity[static_cast<size_t>(arg.count_arg)];
        fit = std::min<uint64_t>(fit, bytes / arg.size);
      }
    }
    for (size_t i = 0; i < spec.args.size(); ++i) {
      const ArgSpec &arg = spec.args[i];
      if (arg.kind != ArgSpec::value)
        continue;
      std::vector<uint8_t> value(arg.size);
      for (uint8_t &byte : value)
        byte = in_.u8();
      if (capacity[i] != UINT64_MAX) { // a count: all that fits, or fewer
        uint64_t fits = std::min<uint64_t>(capacity[i], UINT32_MAX);
        uint32_t n = static_cast<uint32_t>(in_.u8() % 4 == 0 ? in_.u32() % (fits + 1) : fits);
        std::memcpy(value.data(), &n, 4);
      }
      auto index = static_cast<uint32_t>(i);
      if (!checked("CLSetKernelArg", 0,
                   [&] { return CLSetKernelArg(kernel, index, value.data(), arg.size); }))
        violation("setting a by-value argument of the right size failed");
      object.args[i].set = true;
      object.args[i].value = value;
    }
    execute(kernel);
    if (output != 0) {
      uint32_t size = model_.live[output].size;
      if (size == 0)
        return;
      auto host = std::make_unique<uint8_t[]>(size);
      checked("CLBufferRead", 0u, [&] { return CLBufferRead(output, host.get(), 0, 0, size, 1); });
    }
  }

  bool is_persistent(int32_t handle) const {
    return handle == g_persistent.context || handle == g_persistent.program;
  }

  // Puts the persistent context and program into this input's model, making them if needed.
  void adopt_persistent() {
    bool context_alive =
        g_persistent.context != 0 && CLHandleType(g_persistent.context) == MQLCL_OPENCL_CONTEXT;
    bool program_alive =
        g_persistent.program != 0 && CLHandleType(g_persistent.program) == MQLCL_OPENCL_PROGRAM;
    if (!context_alive || !program_alive) { // both again, so the program is in the context
      if (context_alive)
        CLContextFree(g_persistent.context);
      if (program_alive)
        CLProgramFree(g_persistent.program);
      g_persistent = {};
      int32_t context = CLContextCreate(MQLCL_USE_ANY);
      require(context != MQLCL_INVALID_HANDLE, "no OpenCL device to fuzz on");
      auto source = exact_copy(kSafeSource);
      int32_t program = CLProgramCreate(context, source.get());
      require(program != MQLCL_INVALID_HANDLE, "the safe kernels do not build");
      require(g_ever_returned.insert(context).second && g_ever_returned.insert(program).second,
              "a persistent handle was handed out twice");
      g_persistent = {context, program};
      g_local_memory =
          static_cast<uint32_t>(CLGetInfoInteger(context, MQLCL_CL_DEVICE_LOCAL_MEM_SIZE));
    }
    Object context;
    context.type = MQLCL_OPENCL_CONTEXT;
    context.context = g_persistent.context;
    model_.live[g_persistent.context] = context;
    Object program;
    program.type = MQLCL_OPENCL_PROGRAM;
    program.context = g_persistent.context;
    program.safe = true;
    model_.live[g_persistent.program] = program;
  }

  void free_everything() {
    // Children first or parents first, as the input says: either order must release it all.
    bool parents_first = in_.u8() % 2 == 0;
    static const int32_t kOrder[] = {MQLCL_OPENCL_KERNEL, MQLCL_OPENCL_BUFFER, MQLCL_OPENCL_PROGRAM,
                                     MQLCL_OPENCL_CONTEXT};
    for (int i = 0; i < 4; ++i) {
      int32_t type = kOrder[parents_first ? 3 - i : i];
      for (int32_t handle : model_.of_type(type)) {
        if (is_persistent(handle))
          continue;
        CLResetLastError();
        switch (type) {
        case MQLCL_OPENCL_CONTEXT:
          CLContextFree(handle);
          break;
        case MQLCL_OPENCL_PROGRAM:
          CLProgramFree(handle);
          break;
        case MQLCL_OPENCL_KERNEL:
          CLKernelFree(handle);
          break;
        default:
          CLBufferFree(handle);
        }
        require(CLGetLastError() == 0, "freeing a live handle failed");
        model_.live.erase(handle);
        remember_freed(handle);
      }
    }
    require(CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT) == static_cast<int64_t>(model_.live.size()),
            "handles outlived their frees");
  }
};

} // namespace

// The fuzzer's programs go to a program cache of its own (it builds many distinct sources), unless
// MQLCL_PROGRAM_CACHE names one: its loads and stores run under the sanitizers like any call.
extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  setenv("MQLCL_PROGRAM_CACHE", "/tmp/mqlcl-fuzz-program-cache", 0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Reader in(data, size);
  Harness(in).run();
  return 0;
}
