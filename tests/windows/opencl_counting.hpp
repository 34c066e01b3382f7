// opencl_counting.dll: an OpenCL.dll stand-in for the unload tests. Every entry point the bridge
// loads forwards to the real OpenCL.dll (Wine's, which reaches PoCL); on the way it counts the
// objects alive per kind (creations and retains minus releases) and notices calls that arrive
// after the process began to exit. The bridge uses it when MQLCL_OPENCL_LIBRARY names it.
#pragma once

#include <cstdint>

namespace opencl_counting {

enum Kind { kContext, kQueue, kProgram, kKernel, kMemory, kEvent, kKinds };
inline constexpr const char *kKindNames[kKinds] = {"context", "queue",  "program",
                                                   "kernel",  "memory", "event"};

// Exported as "opencl_counting_live": objects of `kind` alive now.
using LiveFunction = int64_t (*)(int32_t kind);

// When this environment variable names a file, the DLL appends to it, at its process-exit
// detach, "live at process exit: context=N queue=N ..." and then one
// "late call after process exit: <function>" line per OpenCL call that still arrives.
inline constexpr const wchar_t *kLogVariable = L"OPENCL_COUNTING_LOG";

} // namespace opencl_counting
