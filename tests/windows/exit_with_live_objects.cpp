// A process that loads mqlcl.dll like MetaTrader, leaves a context, a program, a kernel and
// buffers alive with a launch still running, and exits without freeing anything: the DLL then
// sees DLL_PROCESS_DETACH with lpReserved != NULL. Run by test_windows_loader, which checks the
// exit code (a crash or hang at exit shows there) and, through opencl_counting.dll, that no
// OpenCL call arrives after the exit began.
#include "loaded_bridge.hpp"

#include <cstdio>

using namespace mqlcl_windows;

int main() {
  // Never destroyed (that would FreeLibrary): the DLL stays loaded until the process exits.
  LoadedBridge &bridge = *new LoadedBridge(bridge_path());
  if (!bridge.loaded()) {
    std::printf("cannot load mqlcl.dll: %s\n", bridge.load_error().c_str());
    return 2;
  }
  int32_t context = bridge.CLContextCreate(MQLCL_USE_ANY);
  int32_t program = bridge.CLProgramCreate(context, kKernels);
  int32_t kernel = bridge.CLKernelCreate(program, u"spin");
  int32_t out = bridge.CLBufferCreate(context, kSpinItems * 4, MQLCL_MEM_READ_WRITE);
  int32_t spare = bridge.CLBufferCreate(context, 1 << 20, MQLCL_MEM_READ_ONLY);
  const uint32_t global[1] = {kSpinItems};
  if (spare == MQLCL_INVALID_HANDLE || bridge.CLSetKernelArgMem(kernel, 0, out) != 1 ||
      bridge.CLSetKernelArg(kernel, 1, &kSpinIterations, sizeof kSpinIterations) != 1 ||
      bridge.CLExecute(kernel, 1, nullptr, global, nullptr) != 1) {
    std::printf("setting up failed: %s\n", bridge.last_error_text().c_str());
    return 3;
  }
  std::printf("exiting with %lld live handles, last launch status %d\n",
              static_cast<long long>(bridge.CLGetInfoInteger(0, MQLCL_CL_OBJECT_COUNT)),
              bridge.CLExecutionStatus(kernel));
  std::fflush(stdout);
  return 0; // no CL*Free, no FreeLibrary: exit() -> ExitProcess -> DllMain(lpReserved != NULL)
}
