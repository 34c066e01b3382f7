// A fault-injecting, object-counting layer over the real OpenCL driver.
//
// Every OpenCL function the bridge calls (MQLCL_CL_FUNCTIONS) is wrapped: the wrapper forwards to
// the layer below (PoCL here) unless a fault is armed for that call, in which case it returns the
// chosen cl_int (or, for the create functions, NULL with the code in errcode_ret) without calling
// the driver. Successful creates, retains, releases and event-returning enqueues are counted per
// object kind, so a test can prove that a failure path leaves nothing behind.
//
// The layer plugs in two ways, both forwarding to the same real driver:
//  - as the bridge's dispatch table, through mqlcl::set_cl_api_for_testing (wrap_api), for tests
//    that link the bridge's core;
//  - as an OpenCL layer of the ICD loader (OPENCL_LAYERS=libmqlcl_fault_layer.so, cl_layer.h),
//    for tests of the shipped libmqlcl.so, which loads the loader itself.
// Its state is process-wide: the wrappers are plain C function pointers.
#pragma once

#include "cl_api.hpp"

#include <cstdint>

namespace mqlcl_fault {

enum class Call : int {
#define MQLCL_FAULT_ENUMERATOR(name) name,
  MQLCL_CL_FUNCTIONS(MQLCL_FAULT_ENUMERATOR)
#undef MQLCL_FAULT_ENUMERATOR
      count
};
const char *name_of(Call call) noexcept;

enum class Kind : int { context, queue, program, kernel, memory, event, count };
const char *name_of(Kind kind) noexcept;

// ---- Faults ---------------------------------------------------------------------------------
// `call` returns `code` on every call from now on, until clear_faults().
void fail_every(Call call, cl_int code) noexcept;
// Only the nth call of `call` from now on (1 = the next one) returns `code`.
void fail_call(Call call, uint64_t nth, cl_int code) noexcept;
// clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS) reports `status` (< 0: the command failed on
// the device) for every event, as a driver does after a kernel crashed. 0 turns it off.
void report_failed_launches(cl_int status) noexcept;
void clear_faults() noexcept;
// Releases, for real, the objects whose release an injected fault refused; returns how many.
// Call it with the faults cleared.
int64_t release_refused() noexcept;

// ---- Observations ---------------------------------------------------------------------------
uint64_t calls(Call call) noexcept;           // calls that reached the layer
uint64_t faults_injected(Call call) noexcept; // calls answered with an injected code
// References taken (creates, retains, events returned by enqueues) and given back (releases).
int64_t acquired(Kind kind) noexcept;
int64_t released(Kind kind) noexcept;
inline int64_t live(Kind kind) noexcept {
  return acquired(kind) - released(kind);
}
int64_t live_total() noexcept;

// ---- Process exit (Linux) -------------------------------------------------------------------
// Marks the start of a process's exit: when the process ends (the layer's destructor, after every
// exit handler), a call that reached the layer since the mark is written to stderr and the
// process ends with exit status kCalledDuringExit. The layer must be in the ICD loader's chain.
constexpr int kCalledDuringExit = 5;
void check_no_calls_from_here_to_exit() noexcept;

// ---- Installation ---------------------------------------------------------------------------
// A table that wraps `next` (normally the loaded driver, mqlcl::cl_api()); keep it alive while
// installed.
mqlcl::ClApi wrap_api(const mqlcl::ClApi &next);

// Installs the layer over the loaded driver, as the bridge's dispatch table, for the life of the
// process: a Boost.Test global fixture (`using mqlcl_fault::InstallOverDriver;` then
// BOOST_TEST_GLOBAL_FIXTURE(InstallOverDriver), which takes a plain name),
// so that it is in place before any test creates an object. Without OpenCL it installs nothing,
// and the tests' needs_device() skips (or, with MQLCL_REQUIRE_DEVICE=1, fails) them. Inline: only
// tests that link the bridge's core use it; the layer's shared library does not link the core.
struct InstallOverDriver {
  InstallOverDriver() {
    try {
      static const mqlcl::ClApi driver = mqlcl::cl_api();
      static const mqlcl::ClApi layer = wrap_api(driver);
      mqlcl::set_cl_api_for_testing(&layer);
    } catch (...) {
      // No OpenCL: nothing to wrap.
    }
  }
};

} // namespace mqlcl_fault
