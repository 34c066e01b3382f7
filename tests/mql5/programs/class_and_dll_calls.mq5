//+------------------------------------------------------------------+
//|                                          class_and_dll_calls.mq5 |
//+------------------------------------------------------------------+
// A sum of many values on the OpenCL device through the COpenCL class of <mqlcl/OpenCL.mqh>,
// sized from what the class and mqlcl.dll say of the kernel and the device - the documented way
// to mix the class with direct calls (docs/mql5.md, "Switching from COpenCL"): the class's
// handles are mqlcl.dll's, so they go to mqlcl::CL* functions and the class's own methods, never
// to MQL5's built-in CL* functions. Checked against the sum on the CPU.
#include <mqlcl/OpenCL.mqh>

#define COUNT 100000

const string cl_sum=
   "__kernel void partial_sums(__global const float *x,__global float *sums,__local float *scratch,\r\n"+
   "                           const uint n)\r\n"+
   "{\r\n"+
   "   uint i=get_global_id(0), local_id=get_local_id(0), size=get_local_size(0);\r\n"+
   "   float s=0;\r\n"+
   "   for(uint k=i; k<n; k+=get_global_size(0))\r\n"+
   "      s+=x[k];\r\n"+
   "   scratch[local_id]=s;\r\n"+
   "   for(uint stride=size/2; stride>0; stride/=2)\r\n"+
   "     {\r\n"+
   "      barrier(CLK_LOCAL_MEM_FENCE);\r\n"+
   "      if(local_id<stride)\r\n"+
   "         scratch[local_id]+=scratch[local_id+stride];\r\n"+
   "     }\r\n"+
   "   if(local_id==0)\r\n"+
   "      sums[get_group_id(0)]=scratch[0];\r\n"+
   "}\r\n";

//+------------------------------------------------------------------+
//| "what: class N, dll N, agree true"                               |
//+------------------------------------------------------------------+
void Compare(const string what,const long by_class,const long by_dll)
  {
   PrintFormat("%s: class %I64d, dll %I64d, agree %s",what,by_class,by_dll,by_class==by_dll ? "true" : "false");
  }
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   COpenCL cl;
   if(!cl.Initialize(cl_sum) || !cl.SetKernelsCount(1) || !cl.SetBuffersCount(2) ||
      !cl.KernelCreate(0,"partial_sums"))
     {
      PrintFormat("set-up failed, error %d (mqlcl.dll's: GetLastError() cannot see it)",cl.GetLastErrorCode());
      return;
     }
//--- the kernel's and the device's limits: the class's methods and the DLL on the class's handles
   long group=cl.GetKernelInfoInteger(0,CL_KERNEL_WORK_GROUP_SIZE);
   Compare("work-group limit",group,mqlcl::CLGetInfoInteger(cl.GetKernel(0),MQLCL_CL_KERNEL_WORK_GROUP_SIZE));
   long local_memory=cl.GetDeviceInfoInteger(CL_DEVICE_LOCAL_MEM_SIZE);
   Compare("local memory",local_memory,mqlcl::CLGetInfoInteger(cl.GetContext(),MQLCL_CL_DEVICE_LOCAL_MEM_SIZE));
   string name,dll_name;
   bool named=cl.GetDeviceInfoString(CL_DEVICE_NAME,name) && mqlclGetInfoString(cl.GetContext(),MQLCL_CL_DEVICE_NAME,dll_name);
   PrintFormat("device name: the same %s",named && name==dll_name && StringLen(name)>0 ? "true" : "false");
//--- a work-group of a power of two that both allow, at most 256
   uint local=1;
   while(local*2<=(uint)MathMin(group,256) && (local*2)*sizeof(float)<=(uint)local_memory)
      local*=2;
   uint groups=64;
   float values[];
   float sums[];
   ArrayResize(values,COUNT);
   ArrayResize(sums,groups);
   MathSrand(3);
   double host=0;
   for(int i=0; i<COUNT; i++)
     {
      values[i]=(float)(MathRand()/32768.0);
      host+=values[i];
     }
   uint offset[1]={0};
   uint global[1];
   uint local_size[1];
   global[0]=groups*local;
   local_size[0]=local;
   bool done=cl.BufferFromArray(0,values,0,COUNT,CL_MEM_READ_ONLY) && cl.BufferCreate(1,groups*sizeof(float),CL_MEM_WRITE_ONLY) &&
             cl.SetArgumentBuffer(0,0,0) && cl.SetArgumentBuffer(0,1,1) &&
             cl.SetArgumentLocalMemory(0,2,(int)(local*sizeof(float))) && cl.SetArgument(0,3,(uint)COUNT) &&
             cl.Execute(0,1,offset,global,local_size);
   int status=cl.ExecutionStatus(0);
   int dll_status=mqlcl::CLExecutionStatus(cl.GetKernel(0));
   done=done && cl.BufferRead(1,sums,0,0,groups);
   long bytes=cl.GetBufferInfoInteger(1,CL_BUFFER_SIZE);
   PrintFormat("buffer size: %I64d bytes, as created %s",bytes,bytes==groups*sizeof(float) ? "true" : "false");
   double device=0;
   for(uint g=0; g<groups; g++)
      device+=sums[g];
   PrintFormat("sum: %s, %d values in %u groups of %u, status %s, relative error %.2e",done ? "true" : "false",COUNT,
               groups,local,status>=CL_COMPLETE && dll_status>=CL_COMPLETE ? "read" : "failed",
               MathAbs(device-host)/host);
   cl.Shutdown();
  }
//+------------------------------------------------------------------+
