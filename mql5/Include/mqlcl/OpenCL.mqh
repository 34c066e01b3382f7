//+------------------------------------------------------------------+
//|                                                    OpenCL.mqh     |
//|  COpenCL over mqlcl.dll: the public interface of the standard    |
//|  library's Include/OpenCL/OpenCL.mqh (as MQL5's documentation    |
//|  gives it), so that a program switches with one #include.        |
//|  Reference: docs/mql5.md, "Switching from COpenCL".              |
//+------------------------------------------------------------------+
// Written from the interface's documentation; no code of the original. Kernels, buffers and the
// program live in slots addressed by index, as in the original. Beyond it: build options,
// kernel times, non-blocking reads, the library's GEMM and the DLL's own error code.
//
// The parameters that take MQL5's own constants (CL_USE_ANY ..., CL_MEM_READ_WRITE ...,
// ENUM_OPENCL_PROPERTY_INTEGER) take the terminal's values and map them onto mqlcl's by name, so
// they work whatever numbers the terminal gives them.
#ifndef MQLCL_OPENCL_MQH
#define MQLCL_OPENCL_MQH

#include <mqlcl/mqlcl.mqh>

//+------------------------------------------------------------------+
//| COpenCL                                                          |
//+------------------------------------------------------------------+
class COpenCL
  {
private:
   int               m_context;
   int               m_program;
   int               m_kernels[];
   string            m_kernel_names[];
   int               m_buffers[];
   int               m_kernels_total;
   int               m_buffers_total;
   bool              m_double_support;
   string            m_build_options;

   //--- "what: error N: the DLL's message" for the DLL's last failure
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
   //--- grows a slot array to `total`, every slot empty (what was there is not freed)
   bool              ResetSlots(int &slots[],const int total)
     {
      if(ArraySize(slots)<total && ArrayResize(slots,total)<total)
         return(false);
      for(int i=0; i<total; i++)
         slots[i]=MQLCL_INVALID_HANDLE;
      return(true);
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

public:
                     COpenCL(void) : m_context(MQLCL_INVALID_HANDLE),m_program(MQLCL_INVALID_HANDLE),
                     m_kernels_total(0),m_buffers_total(0),m_double_support(false),m_build_options("") {}
                    ~COpenCL(void) { Shutdown(); }

   //--- handles
   int               GetContext(void) const { return(m_context); }
   int               GetProgram(void) const { return(m_program); }
   int               GetKernel(const int kernel_index) const
     {
      if(kernel_index<0 || kernel_index>=m_kernels_total)
         return(MQLCL_INVALID_HANDLE);
      return(m_kernels[kernel_index]);
     }
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
   bool              SupportDouble(void) const { return(m_double_support); }
   //--- a raw Khronos cl_device_info value's first 8 bytes, little-endian; -1 under 4 bytes
   long              GetDeviceInfo(const int prop)
     {
      uchar data[];
      uint size=0;
      if(ArrayResize(data,1024)<1024 || mqlcl::CLGetDeviceInfo(m_context,prop,data,size,1024)==0 || size<4)
         return(-1);
      long value=0;
      for(int i=(int)MathMin(size,8)-1; i>=0; i--)
         value=(value<<8)|data[i];
      return(value);
     }
   long              GetDeviceInfoInteger(const ENUM_OPENCL_PROPERTY_INTEGER prop)
     {
      if(m_context==MQLCL_INVALID_HANDLE)
         return(-1);
      return(mqlcl::CLGetInfoInteger(m_context,IntegerProperty(prop)));
     }
   long              GetKernelInfoInteger(const int kernel_index,const ENUM_OPENCL_PROPERTY_INTEGER prop)
     {
      if(GetKernel(kernel_index)==MQLCL_INVALID_HANDLE)
         return(-1);
      return(mqlcl::CLGetInfoInteger(m_kernels[kernel_index],IntegerProperty(prop)));
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
   bool              ContextCreate(const int device=CL_USE_ANY)
     {
      if(m_context!=MQLCL_INVALID_HANDLE)
         Shutdown();
      m_context=mqlcl::CLContextCreate(DeviceSelector(device));
      if(m_context==MQLCL_INVALID_HANDLE)
        {
         Report("OpenCL not found: CLContextCreate");
         return(false);
        }
      m_double_support=(mqlcl::CLGetInfoInteger(m_context,MQLCL_CL_DEVICE_DOUBLE_SUPPORT)==1);
      return(true);
     }
   void              ContextClean(void)
     {
      for(int i=0; i<m_buffers_total; i++)
         if(m_buffers[i]!=MQLCL_INVALID_HANDLE)
            mqlcl::CLBufferFree(m_buffers[i]);
      for(int i=0; i<m_kernels_total; i++)
         if(m_kernels[i]!=MQLCL_INVALID_HANDLE)
            mqlcl::CLKernelFree(m_kernels[i]);
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
      return(true);
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
      m_kernel_names[kernel_index]="";
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
      return(true);
     }
   bool              BufferFree(const int buffer_index)
     {
      if(buffer_index<0 || buffer_index>=m_buffers_total || m_buffers[buffer_index]==MQLCL_INVALID_HANDLE)
         return(false);
      mqlcl::CLBufferFree(m_buffers[buffer_index]);
      m_buffers[buffer_index]=MQLCL_INVALID_HANDLE;
      return(true);
     }
   template<typename T>
   bool              BufferFromArray(const int buffer_index,T &data[],const uint data_array_offset,const uint data_array_count,const uint flags)
     {
      if(data_array_count==0)
         return(Refuse(MQLCL_ERR_ZEROSIZE_ARRAY,"BufferFromArray: no elements"));
      if(!EnsureBuffer(buffer_index,(ulong)data_array_count*sizeof(T),flags,"BufferFromArray"))
         return(false);
      return(BufferWrite(buffer_index,data,0,data_array_offset,data_array_count));
     }
   template<typename T>
   bool              BufferRead(const int buffer_index,T &data[],const uint cl_buffer_offset,const uint data_array_offset,const uint data_array_count)
     {
      if(!Ready("BufferRead") || !BufferIndexValid(buffer_index,"BufferRead"))
         return(false);
      if((ulong)data_array_offset+data_array_count>(ulong)ArraySize(data))
         return(Refuse(MQLCL_ERR_SMALL_ARRAY,"BufferRead: elements "+IntegerToString(data_array_offset)+" to "+
                       IntegerToString((ulong)data_array_offset+data_array_count)+
                       " are outside the array of "+IntegerToString(ArraySize(data))));
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
      if(!BufferIndexValid(buffer_index,"BufferWrite"))
         return(false);
      if((ulong)data_array_offset+data_array_count>(ulong)ArraySize(data))
         return(Refuse(MQLCL_ERR_SMALL_ARRAY,"BufferWrite: elements "+IntegerToString(data_array_offset)+" to "+
                       IntegerToString((ulong)data_array_offset+data_array_count)+
                       " are outside the array of "+IntegerToString(ArraySize(data))));
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
         Report("BufferWrite");
      return(written==data_array_count);
     }
   //--- matrices and vectors: the slot's buffer is created to fit when empty; the DLL receives
   //--- the row-major elements
   bool              BufferFromMatrix(const int buffer_index,matrixf &data,const uint flags)
     {
      if(!EnsureBuffer(buffer_index,data.Rows()*data.Cols()*4,flags,"BufferFromMatrix"))
         return(false);
      return(WriteElements(buffer_index,mqlcl::CLBufferWrite(m_buffers[buffer_index],data,0,0,(uint)(data.Rows()*data.Cols())),
                           data.Rows()*data.Cols(),"BufferFromMatrix"));
     }
   bool              BufferFromMatrix(const int buffer_index,matrix &data,const uint flags)
     {
      if(!EnsureBuffer(buffer_index,data.Rows()*data.Cols()*8,flags,"BufferFromMatrix"))
         return(false);
      return(WriteElements(buffer_index,mqlcl::CLBufferWrite(m_buffers[buffer_index],data,0,0,(uint)(data.Rows()*data.Cols())),
                           data.Rows()*data.Cols(),"BufferFromMatrix"));
     }
   bool              BufferFromVector(const int buffer_index,vectorf &elements,const uint flags)
     {
      if(!EnsureBuffer(buffer_index,elements.Size()*4,flags,"BufferFromVector"))
         return(false);
      return(WriteElements(buffer_index,mqlcl::CLBufferWrite(m_buffers[buffer_index],elements,0,0,(uint)elements.Size()),
                           elements.Size(),"BufferFromVector"));
     }
   bool              BufferFromVector(const int buffer_index,vector &elements,const uint flags)
     {
      if(!EnsureBuffer(buffer_index,elements.Size()*8,flags,"BufferFromVector"))
         return(false);
      return(WriteElements(buffer_index,mqlcl::CLBufferWrite(m_buffers[buffer_index],elements,0,0,(uint)elements.Size()),
                           elements.Size(),"BufferFromVector"));
     }
   //--- rows and cols both given resize the matrix, both -1 keep its shape
   bool              BufferToMatrix(const int buffer_index,matrixf &data,const ulong rows=-1,const ulong cols=-1)
     {
      if(!Ready("BufferToMatrix") || !BufferIndexValid(buffer_index,"BufferToMatrix") ||
         !Shape(data.Rows(),data.Cols(),rows,cols,"BufferToMatrix"))
         return(false);
      if(rows!=(ulong)-1 && !data.Resize(rows,cols))
         return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferToMatrix: the matrix cannot be resized"));
      return(WriteElements(buffer_index,mqlcl::CLBufferRead(m_buffers[buffer_index],data,0,0,(uint)(data.Rows()*data.Cols())),
                           data.Rows()*data.Cols(),"BufferToMatrix"));
     }
   bool              BufferToMatrix(const int buffer_index,matrix &data,const ulong rows=-1,const ulong cols=-1)
     {
      if(!Ready("BufferToMatrix") || !BufferIndexValid(buffer_index,"BufferToMatrix") ||
         !Shape(data.Rows(),data.Cols(),rows,cols,"BufferToMatrix"))
         return(false);
      if(rows!=(ulong)-1 && !data.Resize(rows,cols))
         return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferToMatrix: the matrix cannot be resized"));
      return(WriteElements(buffer_index,mqlcl::CLBufferRead(m_buffers[buffer_index],data,0,0,(uint)(data.Rows()*data.Cols())),
                           data.Rows()*data.Cols(),"BufferToMatrix"));
     }
   bool              BufferToVector(const int buffer_index,vectorf &elements,const ulong size=-1)
     {
      if(!Ready("BufferToVector") || !BufferIndexValid(buffer_index,"BufferToVector"))
         return(false);
      if(size!=(ulong)-1 && !elements.Resize(size))
         return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferToVector: the vector cannot be resized"));
      return(WriteElements(buffer_index,mqlcl::CLBufferRead(m_buffers[buffer_index],elements,0,0,(uint)elements.Size()),
                           elements.Size(),"BufferToVector"));
     }
   bool              BufferToVector(const int buffer_index,vector &elements,const ulong size=-1)
     {
      if(!Ready("BufferToVector") || !BufferIndexValid(buffer_index,"BufferToVector"))
         return(false);
      if(size!=(ulong)-1 && !elements.Resize(size))
         return(Refuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"BufferToVector: the vector cannot be resized"));
      return(WriteElements(buffer_index,mqlcl::CLBufferRead(m_buffers[buffer_index],elements,0,0,(uint)elements.Size()),
                           elements.Size(),"BufferToVector"));
     }

   //--- kernel arguments
   //--- by value, any scalar type: bool, char ... ulong, float, double, datetime, color, enums;
   //--- the DLL receives sizeof(T) bytes, as an OpenCL scalar of that size
   template<typename T>
   bool              SetArgument(const int kernel_index,const int arg_index,T value)
     {
      if(!KernelIndexValid(kernel_index,"SetArgument"))
         return(false);
      int kernel=m_kernels[kernel_index];
      int done=0;
      if(sizeof(T)==1)
        {
         char byte=(char)value;
         done=mqlcl::CLSetKernelArg(kernel,arg_index,byte);
        }
      else
         if(sizeof(T)==2)
           {
            short half=(short)value;
            done=mqlcl::CLSetKernelArg(kernel,arg_index,half);
           }
         else
            if((T)1/(T)2!=0)   // float or double (integers divide to 0): kept as floating point
              {
               if(sizeof(T)==4)
                 {
                  float single=(float)value;
                  done=mqlcl::CLSetKernelArg(kernel,arg_index,single);
                 }
               else
                 {
                  double twice=(double)value;
                  done=mqlcl::CLSetKernelArg(kernel,arg_index,twice);
                 }
              }
            else
               if(sizeof(T)==4)
                 {
                  int word=(int)value;
                  done=mqlcl::CLSetKernelArg(kernel,arg_index,word);
                 }
               else
                 {
                  long wide=(long)value;
                  done=mqlcl::CLSetKernelArg(kernel,arg_index,wide);
                 }
      if(done==0)
         Report("SetArgument("+IntegerToString(kernel_index)+", "+IntegerToString(arg_index)+")");
      return(done!=0);
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
   //--- the DLL's code for the last failure (0 when the class refused before calling the DLL)
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
      if(!BufferIndexValid(buffer_index,"BufferReadTake"))
         return(false);
      if((ulong)data_array_offset+data_array_count>(ulong)ArraySize(data))
         return(Refuse(MQLCL_ERR_SMALL_ARRAY,"BufferReadTake: elements "+IntegerToString(data_array_offset)+" to "+
                       IntegerToString((ulong)data_array_offset+data_array_count)+
                       " are outside the array of "+IntegerToString(ArraySize(data))));
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
   //--- C = A*B on three buffer slots: A m x k, B k x n, C m x n, packed row-major, float
   //--- (MQLCL_GEMM_FLOAT) or double (MQLCL_GEMM_DOUBLE); enqueues like Execute
   bool              Gemm(const int a_index,const int b_index,const int c_index,const uint m,const uint n,const uint k,
                          const int element_type=MQLCL_GEMM_FLOAT)
     {
      if(!BufferIndexValid(a_index,"Gemm") || !BufferIndexValid(b_index,"Gemm") || !BufferIndexValid(c_index,"Gemm"))
         return(false);
      if(mqlcl::CLGemm(m_buffers[a_index],m_buffers[b_index],m_buffers[c_index],element_type,MQLCL_GEMM_EXACT,0,0,
                       m,n,k,1.0,0.0,0,0,0,0,0,0,1,0,0,0)!=0)
         return(true);
      Report("Gemm");
      return(false);
     }

private:
   bool              WriteElements(const int buffer_index,const uint moved,const ulong count,const string what)
     {
      if(count==0)
         return(Refuse(MQLCL_ERR_ZEROSIZE_ARRAY,what+": the matrix or vector is empty"));
      if(moved==count)
         return(true);
      Report(what+"("+IntegerToString(buffer_index)+")");
      return(false);
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
