//+------------------------------------------------------------------+
//|                                      class_handle_to_builtin.mq5 |
//+------------------------------------------------------------------+
// MetaEditor compiles this, and with the standard library's COpenCL it runs; with mqlcl's class
// the handle is mqlcl.dll's, which MQL5's built-in CLGetInfoInteger never issued (the terminal
// answers -1). mql5-translate refuses it and says what to call instead.
#include <mqlcl/OpenCL.mqh>

void OnStart()
  {
   COpenCL cl;
   if(!cl.Initialize("__kernel void twice(__global float *x) { x[0]*=2; }") ||
      !cl.SetKernelsCount(1) || !cl.KernelCreate(0,"twice"))
      return;
   int kernel=cl.GetKernel(0);
   long group=CLGetInfoInteger(cl.GetKernel(0),CL_KERNEL_WORK_GROUP_SIZE);
   Print("work-group size ",group," of kernel ",kernel);
  }
