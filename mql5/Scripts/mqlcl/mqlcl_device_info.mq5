//+------------------------------------------------------------------+
//|                                            mqlcl_device_info.mq5 |
//+------------------------------------------------------------------+
// What the article read from GPU Caps Viewer (its Fig. 18) - local memory type, preferred vector
// width, work-group limits - read from MQL5 through mqlcl.dll, with the bridge's device listing.
#property script_show_inputs
#include <mqlcl/mqlcl.mqh>

input int _device=0;        // OpenCL device ordinal

//--- device properties and their names, in the order they are printed
int    integerIds[]=
  {
   MQLCL_CL_DEVICE_TYPE,MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS,MQLCL_CL_DEVICE_MAX_CLOCK_FREQUENCY,
   MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE,MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE,
   MQLCL_CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,MQLCL_CL_DEVICE_LOCAL_MEM_SIZE,
   MQLCL_CL_DEVICE_LOCAL_MEM_TYPE,MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE,
   MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_0,MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_1,
   MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_2,MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
   MQLCL_CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
   MQLCL_CL_DEVICE_DOUBLE_SUPPORT,MQLCL_CL_PROFILING_TIMER_RESOLUTION
  };
string integerNames[]=
  {
   "CL_DEVICE_TYPE","CL_DEVICE_MAX_COMPUTE_UNITS","CL_DEVICE_MAX_CLOCK_FREQUENCY",
   "CL_DEVICE_GLOBAL_MEM_SIZE","CL_DEVICE_MAX_MEM_ALLOC_SIZE",
   "CL_DEVICE_GLOBAL_MEM_CACHE_SIZE","CL_DEVICE_LOCAL_MEM_SIZE",
   "CL_DEVICE_LOCAL_MEM_TYPE (1 = Local, 2 = Global)","CL_DEVICE_MAX_WORK_GROUP_SIZE",
   "CL_DEVICE_MAX_WORK_ITEM_SIZES[0]","CL_DEVICE_MAX_WORK_ITEM_SIZES[1]",
   "CL_DEVICE_MAX_WORK_ITEM_SIZES[2]","CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT",
   "CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT","CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE",
   "cl_khr_fp64","CL_DEVICE_PROFILING_TIMER_RESOLUTION (ns)"
  };
int    stringIds[]=
  {
   MQLCL_CL_DEVICE_NAME,MQLCL_CL_DEVICE_VENDOR,MQLCL_CL_DEVICE_VERSION,
   MQLCL_CL_DEVICE_OPENCL_C_VERSION,MQLCL_CL_DRIVER_VERSION,MQLCL_CL_PLATFORM_NAME
  };
string stringNames[]=
  {
   "CL_DEVICE_NAME","CL_DEVICE_VENDOR","CL_DEVICE_VERSION",
   "CL_DEVICE_OPENCL_C_VERSION","CL_DRIVER_VERSION","CL_PLATFORM_NAME"
  };
#define KHR_DEVICE_MAX_WORK_ITEM_SIZES 0x1005   // a raw Khronos cl_device_info code
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   string text;
   if(!mqlclGetInfoString(0,MQLCL_CL_BRIDGE_VERSION,text))
     {
      mqlclPrintError("CLGetInfoString(CL_BRIDGE_VERSION)");
      return;
     }
   Print(text+": "+IntegerToString(mqlcl::CLGetInfoInteger(0,MQLCL_CL_DEVICE_COUNT))+
         " OpenCL device(s)");
   if(mqlclGetInfoString(0,MQLCL_CL_DEVICE_LIST,text))
      Print(text);

   Print("device = "+IntegerToString(_device));
   for(int i=0; i<ArraySize(stringIds); i++)
     {
      if(!mqlclGetInfoString(_device,stringIds[i],text))
        {
         mqlclPrintError("CLGetInfoString("+stringNames[i]+")");
         return;
        }
      Print(stringNames[i]+": "+text);
     }
   for(int i=0; i<ArraySize(integerIds); i++)
     {
      long value=mqlcl::CLGetInfoInteger(_device,integerIds[i]);
      if(value<0)
        {
         mqlclPrintError("CLGetInfoInteger("+integerNames[i]+")");
         return;
        }
      Print(integerNames[i]+": "+IntegerToString(value));
     }

//--- the raw bytes of a Khronos property, as MQL5's CLGetDeviceInfo returns them: size_t[3]
   uchar data[];
   uint size=0;
   if(!mqlclGetDeviceInfo(_device,KHR_DEVICE_MAX_WORK_ITEM_SIZES,data,size))
     {
      mqlclPrintError("CLGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)");
      return;
     }
   int width=(int)size/3;
   string sizes="";
   for(int d=0; d<3; d++)
     {
      ulong value=0;
      for(int b=width-1; b>=0; b--)
         value=(value<<8)|data[d*width+b];   // little-endian, as on every OpenCL host here
      sizes+=(d>0 ? ", " : "")+IntegerToString((long)value);
     }
   Print("CLGetDeviceInfo(0x1005) = "+IntegerToString(size)+" bytes: "+sizes);
  }
//+------------------------------------------------------------------+
