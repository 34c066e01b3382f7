// mqlcl.dll's entry point. Two ways out of a process, two behaviours:
//  - FreeLibrary (lpReserved == NULL): the process and its OpenCL driver live on, so the static
//    destructors that run after this function (the Registry's) release every live object.
//  - Process exit (lpReserved != NULL): other threads are gone and the driver may already be
//    unloaded, so nothing may call into it: mark the process as exiting and let the OS reclaim.
// A thread that ends frees its last-error record (errors.cpp says why it is not a thread_local).
// MinGW's CRT calls DllMain before it runs the DLL's static destructors.
#include "errors.hpp"
#include "objects.hpp"

#include <windows.h>

extern "C" BOOL WINAPI DllMain(HINSTANCE /*module*/, DWORD reason, LPVOID reserved) {
  if (reason == DLL_THREAD_DETACH)
    mqlcl::release_thread_last_error();
  else if (reason == DLL_PROCESS_DETACH && reserved != nullptr)
    mqlcl::mark_process_exiting();
  return TRUE;
}
