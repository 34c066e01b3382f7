// mqlcl.dll's entry point. Two ways out of a process, two behaviours (process_state.hpp; as
// lifetime.cpp does on Linux):
//  - FreeLibrary (lpReserved == NULL): the process and its OpenCL driver live on, so every live
//    object is released here, and the bridge's memory is freed (release_at_unload), every
//    thread's last-error record with it.
//  - Process exit (lpReserved != NULL): other threads are gone and the driver may already be
//    unloaded, so nothing may call into it, and nothing is freed: leave_state_at_exit, and the OS
//    reclaims it all.
// A thread that ends frees its last-error record (errors.hpp says why it is not a thread_local).
#include "errors.hpp"
#include "process_state.hpp"

#include <windows.h>

extern "C" BOOL WINAPI DllMain(HINSTANCE /*module*/, DWORD reason, LPVOID reserved) {
  if (reason == DLL_THREAD_DETACH)
    mqlcl::release_thread_last_error();
  else if (reason == DLL_PROCESS_DETACH && reserved != nullptr)
    mqlcl::leave_state_at_exit();
  else if (reason == DLL_PROCESS_DETACH)
    mqlcl::release_at_unload();
  return TRUE;
}
