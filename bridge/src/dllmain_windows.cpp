// mqlcl.dll's entry point. Two ways out of a process, two behaviours (as lifetime.cpp does on
// Linux):
//  - FreeLibrary (lpReserved == NULL): the process and its OpenCL driver live on, so every live
//    object is released here (release_at_unload), with every thread's last-error record.
//  - Process exit (lpReserved != NULL): other threads are gone and the driver may already be
//    unloaded, so nothing may call into it: mark the process as exiting and let the OS reclaim.
// A thread that ends frees its last-error record (errors.hpp says why it is not a thread_local).
#include "errors.hpp"
#include "objects.hpp"

#include <windows.h>

extern "C" BOOL WINAPI DllMain(HINSTANCE /*module*/, DWORD reason, LPVOID reserved) {
  if (reason == DLL_THREAD_DETACH)
    mqlcl::release_thread_last_error();
  else if (reason == DLL_PROCESS_DETACH && reserved != nullptr)
    mqlcl::mark_process_exiting();
  else if (reason == DLL_PROCESS_DETACH)
    mqlcl::release_at_unload();
  return TRUE;
}
