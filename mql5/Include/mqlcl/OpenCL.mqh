//+------------------------------------------------------------------+
//|                                                    OpenCL.mqh     |
//|  COpenCL over mqlcl.dll: the public interface of the standard    |
//|  library's Include/OpenCL/OpenCL.mqh (as MQL5's documentation    |
//|  gives it), so that a program switches with one #include.        |
//|  Reference: docs/mql5.md, "Switching from COpenCL".              |
//+------------------------------------------------------------------+
// Written from the interface's documentation; no code of the original. Kernels, buffers and the
// program live in slots addressed by index, as in the original, and its state is in protected
// members of the original's names, so that subclasses that add buffers or kernels at run time
// compile against it. Beyond it: build options, kernel times, non-blocking reads, the library's
// GEMM (which knows each slot's element type), the DLL's own error code, and a method for each
// query a program would make with the built-ins on the class's handles - which are mqlcl.dll's,
// never the terminal's.
//
// The parameters that take MQL5's own constants (CL_USE_ANY ..., CL_MEM_READ_WRITE ...,
// ENUM_OPENCL_PROPERTY_INTEGER, ENUM_OPENCL_PROPERTY_STRING) take the terminal's values and map
// them onto mqlcl's by name, so they work whatever numbers the terminal gives them.
#ifndef MQLCL_OPENCL_MQH
#define MQLCL_OPENCL_MQH

#include <mqlcl/mqlcl.mqh>

//--- what a buffer slot holds, for Gemm: MQLCL_GEMM_FLOAT, MQLCL_GEMM_DOUBLE, or these
#define MQLCL_SLOT_UNKNOWN   (-1)   // nothing written through the class since the buffer was made
#define MQLCL_SLOT_OTHER     (-2)   // elements that are neither float nor double

//+------------------------------------------------------------------+
//| COpenCL                                                          |
//+------------------------------------------------------------------+
class COpenCL
  {
protected:
   int               m_context;
   int               m_program;
   string            m_kernel_names[];
   int               m_kernels[];
   int               m_kernels_total;
   int               m_buffers[];
   int               m_buffers_total;
   string            m_device_extensions;
   bool              m_support_cl_khr_fp64;
   //--- beyond the original
   string            m_build_options;
   int               m_buffer_types[];   // by slot: MQLCL_GEMM_FLOAT, MQLCL_GEMM_DOUBLE, MQLCL_SLOT_*

private:
   //--- "what failed, error code=N: the DLL's message" for the DLL's last failure
   void              Report(const string what)
     {
      int code=mqlcl::CLGetLastError();
      string text;
      if(StringInit(text,MQLCL_LOG_CAPACITY,0))
         mqlcl::CLGetInfoString(MQLCL_CL_LAST_ERROR,MQLCL_CL_ERROR_DESCRIPTION,text,MQLCL_LOG_CAPACITY);
      Print(what+" failed, error code="+IntegerToString(code)+": "+text);
     }
   //--- a refusal of the class's own, before any DLL call: its code and message become the
   //--- DLL's last error (GetLastErrorCode, mqlclLastErrorText), as a DLL failure's do
   bool              Refuse(const int code,const string why)
     {
      mqlcl::CLSetLastError(code,why);
      Print(why);
      return(false);
     }
   bool              KernelIndexValid(const int kernel_index,const string what)
     {
      if(kernel_index>=0 && kernel_index<m_kernels_total)
         return(true);
      return(Refuse(MQLCL_ERR_INVALID_PARAMETER,what+": kernel index "+IntegerToString(kernel_index)+" is outside 0.."+
                    IntegerToString(m_kernels_total-1)+" (SetKernelsCount)"));
     }
   bool              BufferIndexValid(const int buffer_index,const string what)
     {
      if(buffer_index>=0 && buffer_index<m_buffers_total)
         return(true);
      return(Refuse(MQLCL_ERR_INVALID_PARAMETER,what+": buffer index "+IntegerToString(buffer_index)+" is outside 0.."+
                    IntegerToString(m_buffers_total-1)+" (SetBuffersCount)"));
     }
   bool              Ready(const string what)
     {
      if(m_context!=MQLCL_INVALID_HANDLE && m_program!=MQLCL_INVALID_HANDLE)
         return(true);
      return(Refuse(MQLCL_ERR_OPENCL_INVALID_HANDLE,what+": no context and program (Initialize)"));
     }
   bool              Counted(const uint data_array_count,const string what)
     {
      if(data_array_count>0)
         return(true);
      return(Refuse(MQLCL_ERR_ZEROSIZE_ARRAY,what+": no elements (data_array_count is 0)"));
     }
   bool              InArray(const int size,const uint data_array_offset,const uint data_array_count,const string what)
     {
      if((ulong)data_array_offset+data_array_count<=(ulong)size)
         return(true);
      return(Refuse(MQLCL_ERR_SMALL_ARRAY,what+": elements "+IntegerToString(data_array_offset)+" to "+
                    IntegerToString((ulong)data_array_offset+data_array_count)+" are outside the array of "+
                    IntegerToString(size)));
     }
   //--- the terminal's CL_USE_* selectors as mqlcl's; ordinals as they are
   int               DeviceSelector(const int device)
     {
      if(device==CL_USE_ANY)
         return(MQLCL_USE_ANY);
      if(device==CL_USE_CPU_ONLY)
         return(MQLCL_USE_CPU_ONLY);
      if(device==CL_USE_GPU_ONLY)
         return(MQLCL_USE_GPU_ONLY);
      if(device==CL_USE_GPU_DOUBLE_ONLY)
         return(MQLCL_USE_GPU_DOUBLE_ONLY);
      return(device);
     }
   //--- the terminal's CL_MEM_* bits as mqlcl's; false for a bit that is none of them
   bool              MemoryFlags(const uint flags,uint &dll_flags)
     {
      uint known=(uint)(CL_MEM_READ_WRITE|CL_MEM_WRITE_ONLY|CL_MEM_READ_ONLY|CL_MEM_ALLOC_HOST_PTR);
      dll_flags=0;
      if((flags&(uint)CL_MEM_READ_WRITE)!=0)
         dll_flags|=MQLCL_MEM_READ_WRITE;
      if((flags&(uint)CL_MEM_WRITE_ONLY)!=0)
         dll_flags|=MQLCL_MEM_WRITE_ONLY;
      if((flags&(uint)CL_MEM_READ_ONLY)!=0)
         dll_flags|=MQLCL_MEM_READ_ONLY;
      if((flags&(uint)CL_MEM_ALLOC_HOST_PTR)!=0)
         dll_flags|=MQLCL_MEM_ALLOC_HOST_PTR;
      return((flags&~known)==0);
     }
   //--- MQL5's ENUM_OPENCL_PROPERTY_INTEGER as mqlcl's property numbers; -1 for none
   int               IntegerProperty(const ENUM_OPENCL_PROPERTY_INTEGER prop)
     {
      switch(prop)
        {
         case CL_DEVICE_COUNT:
            return(MQLCL_CL_DEVICE_COUNT);
         case CL_DEVICE_TYPE:
            return(MQLCL_CL_DEVICE_TYPE);
         case CL_DEVICE_VENDOR_ID:
            return(MQLCL_CL_DEVICE_VENDOR_ID);
         case CL_DEVICE_MAX_COMPUTE_UNITS:
            return(MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS);
         case CL_DEVICE_MAX_CLOCK_FREQUENCY:
            return(MQLCL_CL_DEVICE_MAX_CLOCK_FREQUENCY);
         case CL_DEVICE_GLOBAL_MEM_SIZE:
            return(MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE);
         case CL_DEVICE_LOCAL_MEM_SIZE:
            return(MQLCL_CL_DEVICE_LOCAL_MEM_SIZE);
         case CL_BUFFER_SIZE:
            return(MQLCL_CL_BUFFER_SIZE);
         case CL_DEVICE_MAX_WORK_GROUP_SIZE:
            return(MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE);
         case CL_KERNEL_WORK_GROUP_SIZE:
            return(MQLCL_CL_KERNEL_WORK_GROUP_SIZE);
         case CL_KERNEL_LOCAL_MEM_SIZE:
            return(MQLCL_CL_KERNEL_LOCAL_MEM_SIZE);
         case CL_KERNEL_PRIVATE_MEM_SIZE:
            return(MQLCL_CL_KERNEL_PRIVATE_MEM_SIZE);
         case CL_LAST_ERROR:
            return(MQLCL_CL_LAST_ERROR);
        }
      return(-1);
     }
   //--- MQL5's ENUM_OPENCL_PROPERTY_STRING as mqlcl's property numbers; -1 for none
   int               StringProperty(const ENUM_OPENCL_PROPERTY_STRING prop)
     {
      switch(prop)
        {
         case CL_PLATFORM_PROFILE:
            return(MQLCL_CL_PLATFORM_PROFILE);
         case CL_PLATFORM_VERSION:
            return(MQLCL_CL_PLATFORM_VERSION);
         case CL_PLATFORM_VENDOR:
            return(MQLCL_CL_PLATFORM_VENDOR);
         case CL_PLATFORM_EXTENSIONS:
            return(MQLCL_CL_PLATFORM_EXTENSIONS);
         case CL_PLATFORM_NAME:
            return(MQLCL_CL_PLATFORM_NAME);
         case CL_DEVICE_NAME:
            return(MQLCL_CL_DEVICE_NAME);
         case CL_DEVICE_VENDOR:
            return(MQLCL_CL_DEVICE_VENDOR);
         case CL_DRIVER_VERSION:
            return(MQLCL_CL_DRIVER_VERSION);
         case CL_DEVICE_PROFILE:
            return(MQLCL_CL_DEVICE_PROFILE);
         case CL_DEVICE_VERSION:
            return(MQLCL_CL_DEVICE_VERSION);
         case CL_DEVICE_EXTENSIONS:
            return(MQLCL_CL_DEVICE_EXTENSIONS);
         case CL_DEVICE_BUILT_IN_KERNELS:
            return(MQLCL_CL_DEVICE_BUILT_IN_KERNELS);
         case CL_DEVICE_OPENCL_C_VERSION:
            return(MQLCL_CL_DEVICE_OPENCL_C_VERSION);
         case CL_ERROR_DESCRIPTION:
            return(MQLCL_CL_ERROR_DESCRIPTION);
        }
      return(-1);
     }
   //--- grows a slot array to `total`, every slot empty (what was there is not freed)
   bool              ResetSlots(int &slots[],const int total)
     {
      if(ArraySize(slots)<total && ArrayResize(slots,total)<total)
         return(false);
      for(int i=0; i<ArraySize(slots); i++)
         slots[i]=MQLCL_INVALID_HANDLE;
      return(true);
     }
   //--- frees the kernels and buffers in the slots; the slots stay, empty (names kept)
   void              FreeSlots(void)
     {
      for(int i=0; i<m_buffers_total && i<ArraySize(m_buffers); i++)
         if(m_buffers[i]!=MQLCL_INVALID_HANDLE)
           {
            mqlcl::CLBufferFree(m_buffers[i]);
            m_buffers[i]=MQLCL_INVALID_HANDLE;
           }
      for(int i=0; i<m_kernels_total && i<ArraySize(m_kernels); i++)
         if(m_kernels[i]!=MQLCL_INVALID_HANDLE)
           {
            mqlcl::CLKernelFree(m_kernels[i]);
            m_kernels[i]=MQLCL_INVALID_HANDLE;
           }
      ResetSlots(m_buffer_types,ArraySize(m_buffer_types));
     }
   //--- the slot's buffer, created with `bytes` and `flags` when the slot is empty
   bool              EnsureBuffer(const int buffer_index,const ulong bytes,const uint flags,const string what)
     {
      if(!BufferIndexValid(buffer_index,what))
         return(false);
      if(m_buffers[buffer_index]!=MQLCL_INVALID_HANDLE)
         return(true);
      if(bytes==0 || bytes>0xFFFFFFFF)
         return(Refuse(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,what+": "+IntegerToString(bytes)+" bytes; a buffer holds 1 to 4294967295"));
      return(BufferCreate(buffer_index,(uint)bytes,flags));
     }
   //--- what a slot holds (MQLCL_SLOT_UNKNOWN past the slots the class has seen: a subclass may
   //--- add slots without telling it)
   int               SlotType(const int buffer_index)
     {
      if(buffer_index<0 || buffer_index>=ArraySize(m_buffer_types))
         return(MQLCL_SLOT_UNKNOWN);
      return(m_buffer_types[buffer_index]);
     }
   void              SetSlotType(const int buffer_index,const int type)
     {
      int size=ArraySize(m_buffer_types);
      if(buffer_index>=size)
        {
         if(ArrayResize(m_buffer_types,buffer_index+1)<buffer_index+1)
            return;
         for(int i=size; i<buffer_index; i++)
            m_buffer_types[i]=MQLCL_SLOT_UNKNOWN;
        }
      m_buffer_types[buffer_index]=type;
     }
   //--- the GEMM type of elements of `bytes` bytes, integers or not (float 4, double 8)
   int               ElementType(const uint bytes,const bool integer)
     {
      if(integer)
         return(MQLCL_SLOT_OTHER);
      return(bytes==4 ? MQLCL_GEMM_FLOAT : (bytes==8 ? MQLCL_GEMM_DOUBLE : MQLCL_SLOT_OTHER));
     }
   template<typename T>
   int               ArrayElementType(const T &data[])
     {
      if(sizeof(T)!=4 && sizeof(T)!=8)
         return(MQLCL_SLOT_OTHER);
      T one=(T)1;
      T two=(T)2;
      return(ElementType(sizeof(T),one/two==0));   // integers divide to 0
     }
   string            TypeName(const int type)
     {
      if(type==MQLCL_GEMM_FLOAT)
         return("float");
      if(type==MQLCL_GEMM_DOUBLE)
         return("double");
      return("neither float nor double");
     }
   //--- the element type the GEMM runs: the one stated, or the one the slots hold (float when
   //--- no slot's is known); a slot of another type refuses with ERR_INVALID_PARAMETER
   bool              GemmType(const int &slots[],const int stated,int &type)
     {
      type=stated;
      for(int i=0; i<3; i++)
        {
         int held=SlotType(slots[i]);
         if(held==MQLCL_SLOT_UNKNOWN)
            continue;
         if(held==MQLCL_SLOT_OTHER || (type!=MQLCL_SLOT_UNKNOWN && held!=type))
            return(Refuse(MQLCL_ERR_INVALID_PARAMETER,"Gemm: buffer slot "+IntegerToString(slots[i])+" holds "+TypeName(held)+
                          " elements, the product is of "+(type==MQLCL_SLOT_UNKNOWN ? "float or double" : TypeName(type))+
                          " (write A and B from arrays or matrices of one type, or state element_type)"));
         type=held;
        }
      if(type==MQLCL_SLOT_UNKNOWN)
         type=MQLCL_GEMM_FLOAT;
      return(true);
     }

public:
                     COpenCL(void) : m_context(MQLCL_INVALID_HANDLE),m_program(MQLCL_INVALID_HANDLE),
                     m_kernels_total(0),m_buffers_total(0),m_device_extensions(""),m_support_cl_khr_fp64(false),
                     m_build_options("") {}
                    ~COpenCL(void) { Shutdown(); }

   //--- handles: mqlcl.dll's, for mqlcl::CL* calls (never for MQL5's built-in CL* functions)
   int               GetContext(void) const { return(m_context); }
   int               GetProgram(void) const { return(m_program); }
   int               GetKernel(const int kernel_index) const
     {
      if(kernel_index<0 || kernel_index>=m_kernels_total)
         return(MQLCL_INVALID_HANDLE);
      return(m_kernels[kernel_index]);
     }
   //--- the slot's kernel name, kept after KernelFree as the original keeps it
   string            GetKernelName(const int kernel_index) const
     {
      if(kernel_index<0 || kernel_index>=m_kernels_total)
         return("");
      return(m_kernel_names[kernel_index]);
     }

   //--- the device
   bool              GetGlobalMemorySize(long &global_memory_size)
     {
      global_memory_size=mqlcl::CLGetInfoInteger(m_context,MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE);
      return(global_memory_size>=0);
     }
   bool              GetLocalMemorySize(long &local_memory_size)
     {
      local_memory_size=mqlcl::CLGetInfoInteger(m_context,MQLCL_CL_DEVICE_LOCAL_MEM_SIZE);
      return(local_memory_size>=0);
     }
   bool              GetMaxWorkgroupSize(long &max_workgroup_size)
     {
      max_workgroup_size=mqlcl::CLGetInfoInteger(m_context,MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE);
      return(max_workgroup_size>=0);
     }
   bool              SupportDouble(void) const { return(m_support_cl_khr_fp64); }
   //--- a raw Khronos cl_device_info value as a little-endian integer: its first 8 bytes, or for
   //--- a value of more than 8 bytes its bytes 8 to 15, as the original reads them; -1 under 4
   long              GetDeviceInfo(const int prop)
     {
      uchar data[];
      uint size=0;
      if(!mqlclGetDeviceInfo(m_context,prop,data,size) || size<4)
         return(-1);
      int first=(size>8 ? 8 : 0);
      int last=(int)MathMin(size,(uint)first+8)-1;
      long value=0;
      for(int i=last; i>=first; i--)
         value=(value<<8)|data[i];
      return(value);
     }
   //--- the whole raw value: CLGetDeviceInfo's bytes, data[] resized to `size`
   bool              GetDeviceInfo(const int prop,uchar &data[],uint &size)
     {
      if(mqlclGetDeviceInfo(m_context,prop,data,size))
         return(true);
      Report("GetDeviceInfo");
      return(false);
     }
   long              GetDeviceInfoInteger(const ENUM_OPENCL_PROPERTY_INTEGER prop)
     {
      if(m_context==MQLCL_INVALID_HANDLE)
         return(-1);
      return(mqlcl::CLGetInfoInteger(m_context,IntegerProperty(prop)));
     }
   //--- CLGetInfoString on the context: the device's name, version, extensions, ...
   bool              GetDeviceInfoString(const ENUM_OPENCL_PROPERTY_STRING prop,string &value)
     {
      if(m_context==MQLCL_INVALID_HANDLE)
         return(Refuse(MQLCL_ERR_OPENCL_INVALID_HANDLE,"GetDeviceInfoString: no context (ContextCreate)"));
      return(mqlclGetInfoString(m_context,StringProperty(prop),value));
     }
   long              GetKernelInfoInteger(const int kernel_index,const ENUM_OPENCL_PROPERTY_INTEGER prop)
     {
      if(GetKernel(kernel_index)==MQLCL_INVALID_HANDLE)
         return(-1);
      return(mqlcl::CLGetInfoInteger(m_kernels[kernel_index],IntegerProperty(prop)));
     }
   //--- CLGetInfoInteger on the slot's buffer (CL_BUFFER_SIZE); -1 for an empty slot
   long              GetBufferInfoInteger(const int buffer_index,const ENUM_OPENCL_PROPERTY_INTEGER prop)
     {
      if(buffer_index<0 || buffer_index>=m_buffers_total || m_buffers[buffer_index]==MQLCL_INVALID_HANDLE)
         return(-1);
      return(mqlcl::CLGetInfoInteger(m_buffers[buffer_index],IntegerProperty(prop)));
     }
   //--- CLExecutionStatus of the slot's kernel: CL_COMPLETE 0, CL_RUNNING 1, CL_SUBMITTED 2,
   //--- CL_QUEUED 3, or -1
   int               ExecutionStatus(const int kernel_index)
     {
      if(GetKernel(kernel_index)==MQLCL_INVALID_HANDLE)
         return(-1);
      return(mqlcl::CLExecutionStatus(m_kernels[kernel_index]));
     }

   //--- life cycle
   bool              Initialize(const string program,const bool show_log=true)
     {
      return(ContextCreate(CL_USE_ANY) && ProgramCreate(program,show_log));
     }
   void              Shutdown(void)
     {
      ContextClean();
      if(m_context!=MQLCL_INVALID_HANDLE)
         mqlcl::CLContextFree(m_context);
      m_context=MQLCL_INVALID_HANDLE;
     }
   //--- a context on the device; one there already is freed first, with what was made in it
   //--- (the slots and their counts stay, empty)
   bool              ContextCreate(const int device=CL_USE_ANY)
     {
      if(m_context!=MQLCL_INVALID_HANDLE)
        {
         FreeSlots();
         ProgramDelete();
         mqlcl::CLContextFree(m_context);
        }
      m_device_extensions="";
      m_support_cl_khr_fp64=false;
      m_context=mqlcl::CLContextCreate(DeviceSelector(device));
      if(m_context==MQLCL_INVALID_HANDLE)
        {
         Report("OpenCL not found: CLContextCreate");
         return(false);
        }
      if(mqlclGetInfoString(m_context,MQLCL_CL_DEVICE_EXTENSIONS,m_device_extensions))
         m_support_cl_khr_fp64=(StringFind(m_device_extensions,"cl_khr_fp64")>=0);
      return(true);
     }
   void              ContextClean(void)
     {
      FreeSlots();
      m_buffers_total=0;
      m_kernels_total=0;
      ProgramDelete();
     }
   bool              ProgramCreate(const string program,const bool show_log=true)
     {
      if(m_context==MQLCL_INVALID_HANDLE)
         return(Refuse(MQLCL_ERR_OPENCL_INVALID_HANDLE,"ProgramCreate: no context (ContextCreate)"));
      ProgramDelete();
      string build_log;
      if(!StringInit(build_log,MQLCL_LOG_CAPACITY,0))
         return(false);
      m_program=mqlcl::CLProgramCreateEx(m_context,program,m_build_options,build_log,MQLCL_LOG_CAPACITY);
      if(m_program!=MQLCL_INVALID_HANDLE)
         return(true);
      int code=mqlcl::CLGetLastError();
      if(show_log)
         Print(build_log);
      mqlcl::CLContextFree(m_context);   // as the original does after a failed build
      m_context=MQLCL_INVALID_HANDLE;
      Print("OpenCL program create failed, error code="+IntegerToString(code));
      return(false);
     }
   void              ProgramDelete(void)
     {
      if(m_program!=MQLCL_INVALID_HANDLE)
         mqlcl::CLProgramFree(m_program);
      m_program=MQLCL_INVALID_HANDLE;
     }

   //--- slots
   bool              SetBuffersCount(const int total_buffers)
     {
      if(total_buffers<=0 || !ResetSlots(m_buffers,total_buffers))
         return(false);
      m_buffers_total=total_buffers;
      return(ResetSlots(m_buffer_types,total_buffers));
     }
   bool              SetKernelsCount(const int total_kernels)
     {
      if(total_kernels<=0 || !ResetSlots(m_kernels,total_kernels))
         return(false);
      if(ArraySize(m_kernel_names)<total_kernels && ArrayResize(m_kernel_names,total_kernels)<total_kernels)
         return(false);
      for(int i=0; i<total_kernels; i++)
         m_kernel_names[i]="";
      m_kernels_total=total_kernels;
      return(true);
     }

   //--- kernels
   bool              KernelCreate(const int kernel_index,const string kernel_name)
     {
      if(!Ready("KernelCreate") || !KernelIndexValid(kernel_index,"KernelCreate"))
         return(false);
      if(m_kernels[kernel_index]!=MQLCL_INVALID_HANDLE && m_kernel_names[kernel_index]==kernel_name)
         return(true);
      int kernel=mqlcl::CLKernelCreate(m_program,kernel_name);
      if(kernel==MQLCL_INVALID_HANDLE)
        {
         Report("OpenCL kernel create: "+kernel_name);
         ProgramDelete();   // the original frees the program and the context too
         mqlcl::CLContextFree(m_context);
         m_context=MQLCL_INVALID_HANDLE;
         return(false);
        }
      if(m_kernels[kernel_index]!=MQLCL_INVALID_HANDLE)
         mqlcl::CLKernelFree(m_kernels[kernel_index]);
      m_kernels[kernel_index]=kernel;
      m_kernel_names[kernel_index]=kernel_name;
      return(true);
     }
   bool              KernelFree(const int kernel_index)
     {
      if(GetKernel(kernel_index)==MQLCL_INVALID_HANDLE)
         return(false);
      mqlcl::CLKernelFree(m_kernels[kernel_index]);
      m_kernels[kernel_index]=MQLCL_INVALID_HANDLE;
      return(true);
     }

   //--- buffers
   bool              BufferCreate(const int buffer_index,const uint size_in_bytes,const uint flags)
     {
      if(m_context==MQLCL_INVALID_HANDLE)
         return(Refuse(MQLCL_ERR_OPENCL_INVALID_HANDLE,"BufferCreate: no context (ContextCreate)"));
      if(!BufferIndexValid(buffer_index,"BufferCreate"))
         return(false);
      uint dll_flags=0;
      if(!MemoryFlags(flags,dll_flags))
         return(Refuse(MQLCL_ERR_INVALID_PARAMETER,"BufferCreate: flags "+IntegerToString(flags)+" are not CL_MEM_* flags"));
      int buffer=mqlcl::CLBufferCreate(m_context,size_in_bytes,dll_flags);
      if(buffer==MQLCL_INVALID_HANDLE)
        {
         Report("BufferCreate");
         return(false);
        }
      m_buffers[buffer_index]=buffer;
      SetSlotType(buffer_index,MQLCL_SLOT_UNKNOWN);
      return(true);
     }
   bool              BufferFree(const int buffer_index)
     {
      if(buffer_index<0 || buffer_index>=m_buffers_total || m_buffers[buffer_index]==MQLCL_INVALID_HANDLE)
         return(false);
      mqlcl::CLBufferFree(m_buffers[buffer_index]);
      m_buffers[buffer_index]=MQLCL_INVALID_HANDLE;
      SetSlotType(buffer_index,MQLCL_SLOT_UNKNOWN);
      return(true);
     }
   template<typename T>
   bool              BufferFromArray(const int buffer_index,T &data[],const uint data_array_offset,const uint data_array_count,const uint flags)
     {
      if(!Counted(data_array_count,"BufferFromArray"))
         return(false);
      if(!EnsureBuffer(buffer_index,(ulong)data_array_count*sizeof(T),flags,"BufferFromArray"))
         return(false);
      return(BufferWrite(buffer_index,data,0,data_array_offset,data_array_count));
     }
   template<typename T>
   bool              BufferRead(const int buffer_index,T &data[],const uint cl_buffer_offset,const uint data_array_offset,const uint data_array_count)
     {
      if(!Ready("BufferRead") || !BufferIndexValid(buffer_index,"BufferRead") || !Counted(data_array_count,"BufferRead") ||
         !InArray(ArraySize(data),data_array_offset,data_array_count,"BufferRead"))
         return(false);
      uint read=0;
      if(!ArrayGetAsSeries(data))
         read=mqlcl::CLBufferRead(m_buffers[buffer_index],data,cl_buffer_offset,data_array_offset,data_array_count);
      else   // AS_SERIES: data[offset], data[offset+1], ... as the program indexes them
        {
         T plain[];
         if(ArrayResize(plain,(int)data_array_count)!=(int)data_array_count)
            return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferRead: no memory for a copy of the series"));
         read=mqlcl::CLBufferRead(m_buffers[buffer_index],plain,cl_buffer_offset,0,data_array_count);
         for(uint i=0; i<read; i++)
            data[data_array_offset+i]=plain[i];
        }
      if(read!=data_array_count)
         Report("BufferRead");
      return(read==data_array_count);
     }
   template<typename T>
   bool              BufferWrite(const int buffer_index,T &data[],const uint cl_buffer_offset,const uint data_array_offset,const uint data_array_count)
     {
      if(!BufferIndexValid(buffer_index,"BufferWrite") || !Counted(data_array_count,"BufferWrite") ||
         !InArray(ArraySize(data),data_array_offset,data_array_count,"BufferWrite"))
         return(false);
      uint written=0;
      if(!ArrayGetAsSeries(data))
         written=mqlcl::CLBufferWrite(m_buffers[buffer_index],data,cl_buffer_offset,data_array_offset,data_array_count);
      else   // AS_SERIES: data[offset], data[offset+1], ... as the program indexes them
        {
         T plain[];
         if(ArrayResize(plain,(int)data_array_count)!=(int)data_array_count)
            return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferWrite: no memory for a copy of the series"));
         for(uint i=0; i<data_array_count; i++)
            plain[i]=data[data_array_offset+i];
         written=mqlcl::CLBufferWrite(m_buffers[buffer_index],plain,cl_buffer_offset,0,data_array_count);
        }
      if(written!=data_array_count)
        {
         Report("BufferWrite");
         return(false);
        }
      SetSlotType(buffer_index,ArrayElementType(data));
      return(true);
     }
   //--- matrices and vectors of float, double or complex: the slot's buffer is created to fit
   //--- when empty; the DLL receives the row-major elements
   template<typename T>
   bool              BufferFromMatrix(const int buffer_index,matrix<T> &data,const uint flags)
     {
      ulong count=data.Rows()*data.Cols();
      if(!Filled(count,"BufferFromMatrix") || !EnsureBuffer(buffer_index,count*sizeof(T),flags,"BufferFromMatrix"))
         return(false);
      return(Written(buffer_index,mqlcl::CLBufferWrite(m_buffers[buffer_index],data,0,0,(uint)count),count,
                     ElementType(sizeof(T),false),"BufferFromMatrix"));
     }
   template<typename T>
   bool              BufferFromVector(const int buffer_index,vector<T> &data,const uint flags)
     {
      ulong count=data.Size();
      if(!Filled(count,"BufferFromVector") || !EnsureBuffer(buffer_index,count*sizeof(T),flags,"BufferFromVector"))
         return(false);
      return(Written(buffer_index,mqlcl::CLBufferWrite(m_buffers[buffer_index],data,0,0,(uint)count),count,
                     ElementType(sizeof(T),false),"BufferFromVector"));
     }
   //--- rows and cols both given resize the matrix, both -1 keep its shape
   template<typename T>
   bool              BufferToMatrix(const int buffer_index,matrix<T> &data,const ulong rows=-1,const ulong cols=-1)
     {
      if(!Ready("BufferToMatrix") || !BufferIndexValid(buffer_index,"BufferToMatrix") ||
         !Shape(data.Rows(),data.Cols(),rows,cols,"BufferToMatrix"))
         return(false);
      if(rows!=(ulong)-1 && !data.Resize(rows,cols))
         return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferToMatrix: the matrix cannot be resized"));
      ulong count=data.Rows()*data.Cols();
      if(!Filled(count,"BufferToMatrix"))
         return(false);
      return(Moved(buffer_index,mqlcl::CLBufferRead(m_buffers[buffer_index],data,0,0,(uint)count),count,"BufferToMatrix"));
     }
   template<typename T>
   bool              BufferToVector(const int buffer_index,vector<T> &data,const ulong size=-1)
     {
      if(!Ready("BufferToVector") || !BufferIndexValid(buffer_index,"BufferToVector"))
         return(false);
      if(size!=(ulong)-1 && !data.Resize(size))
         return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferToVector: the vector cannot be resized"));
      ulong count=data.Size();
      if(!Filled(count,"BufferToVector"))
         return(false);
      return(Moved(buffer_index,mqlcl::CLBufferRead(m_buffers[buffer_index],data,0,0,(uint)count),count,"BufferToVector"));
     }

   //--- kernel arguments
   //--- by value, any scalar type: bool, char ... ulong, float, double, datetime, color, enums;
   //--- the DLL receives sizeof(T) bytes, as an OpenCL scalar of that size
   template<typename T>
   bool              SetArgument(const int kernel_index,const int arg_index,T value)
     {
      if(!KernelIndexValid(kernel_index,"SetArgument"))
         return(false);
      if(mqlclSetKernelArg(m_kernels[kernel_index],arg_index,value))
         return(true);
      Report("SetArgument("+IntegerToString(kernel_index)+", "+IntegerToString(arg_index)+")");
      return(false);
     }
   bool              SetArgumentBuffer(const int kernel_index,const int arg_index,const int buffer_index)
     {
      if(!KernelIndexValid(kernel_index,"SetArgumentBuffer") || !BufferIndexValid(buffer_index,"SetArgumentBuffer"))
         return(false);
      if(mqlcl::CLSetKernelArgMem(m_kernels[kernel_index],arg_index,m_buffers[buffer_index])!=0)
         return(true);
      Report("SetArgumentBuffer("+IntegerToString(kernel_index)+", "+IntegerToString(arg_index)+")");
      return(false);
     }
   bool              SetArgumentLocalMemory(const int kernel_index,const int arg_index,const int local_memory_size)
     {
      if(!KernelIndexValid(kernel_index,"SetArgumentLocalMemory"))
         return(false);
      long local_memory=mqlcl::CLGetInfoInteger(m_context,MQLCL_CL_DEVICE_LOCAL_MEM_SIZE);
      if(local_memory_size<=0 || local_memory_size>local_memory)
         return(Refuse(MQLCL_ERR_INVALID_PARAMETER,"SetArgumentLocalMemory: "+IntegerToString(local_memory_size)+
                       " bytes; the device has "+IntegerToString(local_memory)));
      if(mqlcl::CLSetKernelArgMemLocal(m_kernels[kernel_index],arg_index,(ulong)local_memory_size)!=0)
         return(true);
      Report("SetArgumentLocalMemory");
      return(false);
     }

   //--- launches
   bool              Execute(const int kernel_index,const int work_dim,const uint &work_offset[],const uint &work_size[])
     {
      uint runtime_chooses[3]={0,0,0};
      return(Execute(kernel_index,work_dim,work_offset,work_size,runtime_chooses));
     }
   bool              Execute(const int kernel_index,const int work_dim,const uint &work_offset[],const uint &work_size[],const uint &local_work_size[])
     {
      if(!KernelIndexValid(kernel_index,"Execute"))
         return(false);
      if(work_dim<1 || work_dim>3 || ArraySize(work_offset)<work_dim || ArraySize(work_size)<work_dim ||
         ArraySize(local_work_size)<work_dim)
         return(Refuse(MQLCL_ERR_INVALID_PARAMETER,"Execute: work_dim "+IntegerToString(work_dim)+
                       " must be 1 to 3, and each array must hold that many sizes"));
      if(mqlcl::CLExecute(m_kernels[kernel_index],(uint)work_dim,work_offset,work_size,local_work_size)!=0)
         return(true);
      Report("Execute("+m_kernel_names[kernel_index]+")");
      return(false);
     }

   //--- beyond COpenCL -------------------------------------------------
   //--- OpenCL build options for the next ProgramCreate ("-DN=64 -cl-fast-relaxed-math")
   void              SetBuildOptions(const string options) { m_build_options=options; }
   string            GetBuildOptions(void) const { return(m_build_options); }
   //--- the kernel's last launch in ns, from OpenCL profiling (waits for it); -1 on failure
   long              GetKernelTime(const int kernel_index)
     {
      if(GetKernel(kernel_index)==MQLCL_INVALID_HANDLE)
         return(-1);
      return(mqlcl::CLGetInfoInteger(m_kernels[kernel_index],MQLCL_CL_KERNEL_EXECUTION_TIME));
     }
   //--- the DLL's code for the last failure, the class's own refusals included (MQL5's
   //--- GetLastError() does not see either: no DLL can set it)
   int               GetLastErrorCode(void) const { return(mqlcl::CLGetLastError()); }
   //--- non-blocking read: start, poll (MQLCL_CL_COMPLETE when done), take
   bool              BufferReadStart(const int buffer_index,const uint cl_buffer_offset,const uint size_in_bytes)
     {
      if(!BufferIndexValid(buffer_index,"BufferReadStart"))
         return(false);
      if(mqlcl::CLBufferReadStart(m_buffers[buffer_index],cl_buffer_offset,size_in_bytes)!=0)
         return(true);
      Report("BufferReadStart");
      return(false);
     }
   int               BufferReadStatus(const int buffer_index)
     {
      if(!BufferIndexValid(buffer_index,"BufferReadStatus"))
         return(-1);
      return(mqlcl::CLBufferReadStatus(m_buffers[buffer_index]));
     }
   template<typename T>
   bool              BufferReadTake(const int buffer_index,T &data[],const uint data_array_offset,const uint data_array_count)
     {
      if(!BufferIndexValid(buffer_index,"BufferReadTake") ||
         !InArray(ArraySize(data),data_array_offset,data_array_count,"BufferReadTake"))
         return(false);
      uint taken=0;
      if(!ArrayGetAsSeries(data))
         taken=mqlcl::CLBufferReadTake(m_buffers[buffer_index],data,data_array_offset,data_array_count);
      else   // AS_SERIES, as BufferRead
        {
         T plain[];
         if(ArrayResize(plain,(int)data_array_count)!=(int)data_array_count)
            return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferReadTake: no memory for a copy of the series"));
         taken=mqlcl::CLBufferReadTake(m_buffers[buffer_index],plain,0,data_array_count);
         for(uint i=0; i<taken; i++)
            data[data_array_offset+i]=plain[i];
        }
      if(taken==data_array_count)
         return(true);
      Report("BufferReadTake");
      return(false);
     }
   //--- C = A*B on three buffer slots: A m x k, B k x n, C m x n, packed row-major, in the
   //--- element type the slots hold (BufferWrite, BufferFromArray, BufferFromMatrix, ... of float
   //--- or double; float when none is known) or the one stated (MQLCL_GEMM_FLOAT,
   //--- MQLCL_GEMM_DOUBLE). A slot written with another type refuses with ERR_INVALID_PARAMETER.
   //--- Enqueues, like Execute
   bool              Gemm(const int a_index,const int b_index,const int c_index,const uint m,const uint n,const uint k,
                          const int element_type=MQLCL_SLOT_UNKNOWN)
     {
      if(!BufferIndexValid(a_index,"Gemm") || !BufferIndexValid(b_index,"Gemm") || !BufferIndexValid(c_index,"Gemm"))
         return(false);
      int slots[3];
      slots[0]=a_index;
      slots[1]=b_index;
      slots[2]=c_index;
      int type=MQLCL_SLOT_UNKNOWN;
      if(!GemmType(slots,element_type,type))
         return(false);
      if(mqlcl::CLGemm(m_buffers[a_index],m_buffers[b_index],m_buffers[c_index],type,MQLCL_GEMM_EXACT,0,0,
                       m,n,k,1.0,0.0,0,0,0,0,0,0,1,0,0,0)==0)
        {
         Report("Gemm");
         return(false);
        }
      SetSlotType(c_index,type);
      return(true);
     }

private:
   bool              Filled(const ulong count,const string what)
     {
      if(count>0)
         return(true);
      return(Refuse(MQLCL_ERR_ZEROSIZE_ARRAY,what+": the matrix or vector is empty"));
     }
   bool              Moved(const int buffer_index,const uint moved,const ulong count,const string what)
     {
      if(moved==count)
         return(true);
      Report(what+"("+IntegerToString(buffer_index)+")");
      return(false);
     }
   bool              Written(const int buffer_index,const uint moved,const ulong count,const int type,const string what)
     {
      if(!Moved(buffer_index,moved,count,what))
         return(false);
      SetSlotType(buffer_index,type);
      return(true);
     }
   bool              Shape(const ulong rows_now,const ulong cols_now,const ulong rows,const ulong cols,const string what)
     {
      if((rows==(ulong)-1)==(cols==(ulong)-1))
         return(true);
      return(Refuse(MQLCL_ERR_INVALID_PARAMETER,what+": give both rows and cols, or neither (the matrix is "+IntegerToString(rows_now)+
                    " x "+IntegerToString(cols_now)+")"));
     }
  };
#endif // MQLCL_OPENCL_MQH
//+------------------------------------------------------------------+
