// What CLGemm's products share: the kernels built once per context (from the files compiled into
// the library), the context's scratch buffers, argument setting and launches recorded for
// CL_GEMM_EXECUTION_TIME. Every function here is called with the context's GEMM mutex held.
#pragma once

#include "gemm/gemm.hpp"

#include <string>

namespace mqlcl::gemm {

// The built kernel `kernel_name` of kernels/`file` with `options`, built on first use and kept
// by the context (the least recently used goes past kMaxProgramsPerContext). `sm90a` builds it
// through -mqlcl-nv-sm90a's PTX retargeting (sm90a_build.hpp). Throws
// Failure(ERR_OPENCL_PROGRAM_CREATE) with the driver's log when the build fails.
cl_kernel kernel_for(const Context &context, ContextState &state, const char *file,
                     const std::string &options, const char *kernel_name, bool sm90a = false);

// The context's scratch buffer `slot`, grown to at least `bytes` (its contents are not kept
// when it grows, and its tensor maps are forgotten).
cl_mem scratch(const Context &context, ContextState &state, ScratchSlot slot, size_t bytes);

void set_arg_bytes(cl_kernel kernel, cl_uint index, size_t size, const void *value);
template <class T> void set_arg(cl_kernel kernel, cl_uint index, const T &value) {
  set_arg_bytes(kernel, index, sizeof(T), &value);
}

// Enqueues the launch; the call's first launch (`first`, then cleared) starts its timing.
void launch(const Context &context, ContextState &state, cl_kernel kernel, cl_uint dimensions,
            const size_t *global, const size_t *local, bool &first);

// The tuned set of `step` for the call's sizes and element type on the context's device: the
// user's tuning file (read once per context) over the compiled database (tuning_file.hpp), sets
// tuned for the call's layout of A and B before those of any layout.
std::optional<Tuned> tuned_for(const Context &context, ContextState &state, const Call &call,
                               const char *step);

// The set of `step` measured on the context's device for the call's element type and layout
// whose M, N and K are each at most the call's, the largest such (find_measured_below): the
// user's tuning file first, then the compiled database.
std::optional<Tuned> measured_for(const Context &context, ContextState &state, const Call &call,
                                  const char *step);

// The set of `step` measured on the context's device for the call's element type and layout that
// names `param`, whose M, N and K are each at least the call's, the smallest such
// (find_measured_above): the user's tuning file and the compiled database together.
std::optional<Tuned> measured_around(const Context &context, ContextState &state, const Call &call,
                                     const char *step, const char *param);

// The compiled database (compiled_entries), made once per process.
const std::vector<TunedEntry> &compiled_database();

// What the forms' rules and the lookup need of a device.
DeviceLimits limits_of(const Device &device);
DeviceFacts facts_of(const Device &device);

// The call's layout of A and B: "NN" ... "TT".
std::string layout_of(const Call &call);

// `value` rounded up to a multiple of `multiple`: launches' global sizes, padded lines.
inline uint64_t round_up(uint64_t value, uint64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Releases an OpenCL object the GEMM holds, unless the process is exiting (lifetime.cpp).
void release_program(cl_program program) noexcept;
void release_kernel(cl_kernel kernel) noexcept;
void release_memory(cl_mem memory) noexcept;
void release_event(cl_event event) noexcept;

} // namespace mqlcl::gemm
