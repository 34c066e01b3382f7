//+------------------------------------------------------------------+
//|                                                    mqlcl.mqh      |
//|  mqlcl.dll for MQL5: MetaTrader's OpenCL API as a DLL, with the  |
//|  work-group sizes, __local arguments, kernel timing and build    |
//|  options the built-in API lacks. Reference: docs/mql5.md.        |
//+------------------------------------------------------------------+
// Call the DLL as mqlcl::CLxxx(...). An unqualified CLxxx(...) is MQL5's built-in function of the
// same name: built-ins take priority over imported functions.
//
// tests/mql5 checks this file against include/mqlcl/mqlcl.h and the built library's export
// table: every #define below has the header's value, every export has an import here, and every
// import has the export's parameter count and types:
//    int32_t -> int, uint32_t -> uint, int64_t -> long, uint64_t -> ulong,
//    const char16_t * -> string (a copy), char16_t * -> string & (pre-sized with StringInit),
//    T * -> T &x or T &x[] (const T * may be const), void * -> one overload per element type
//    (and per matrix type: MQL5 passes a matrix or vector (float, double, complex) as a pointer to its
//    row-major elements), double -> double.
#ifndef MQLCL_MQH
#define MQLCL_MQH

//--- version of the C header this file mirrors
#define MQLCL_VERSION_MAJOR                                  1
#define MQLCL_VERSION_MINOR                                  0
#define MQLCL_VERSION_PATCH                                  0

//--- failure value of the handle-returning functions (MQL5's INVALID_HANDLE)
#define MQLCL_INVALID_HANDLE                                 (-1)

//--- error codes (mqlcl::CLGetLastError): MQL5's own numbers
#define MQLCL_ERR_SUCCESS                                    0
#define MQLCL_ERR_INTERNAL_ERROR                             4001
#define MQLCL_ERR_INVALID_PARAMETER                          4003
#define MQLCL_ERR_NOT_ENOUGH_MEMORY                          4004
#define MQLCL_ERR_SMALL_ARRAY                                5052
#define MQLCL_ERR_ZEROSIZE_ARRAY                             5053
#define MQLCL_ERR_OPENCL_NOT_SUPPORTED                       5100
#define MQLCL_ERR_OPENCL_INTERNAL                            5101
#define MQLCL_ERR_OPENCL_INVALID_HANDLE                      5102
#define MQLCL_ERR_OPENCL_CONTEXT_CREATE                      5103
#define MQLCL_ERR_OPENCL_QUEUE_CREATE                        5104
#define MQLCL_ERR_OPENCL_PROGRAM_CREATE                      5105
#define MQLCL_ERR_OPENCL_TOO_LONG_KERNEL_NAME                5106
#define MQLCL_ERR_OPENCL_KERNEL_CREATE                       5107
#define MQLCL_ERR_OPENCL_SET_KERNEL_PARAMETER                5108
#define MQLCL_ERR_OPENCL_EXECUTE                             5109
#define MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE                   5110
#define MQLCL_ERR_OPENCL_WRONG_BUFFER_OFFSET                 5111
#define MQLCL_ERR_OPENCL_BUFFER_CREATE                       5112
#define MQLCL_ERR_OPENCL_TOO_MANY_OBJECTS                    5113
#define MQLCL_ERR_OPENCL_SELECTDEVICE                        5114
//--- mqlcl's own, in MQL5's user range (SetUserError(1), (2), (3))
#define MQLCL_ERR_OPENCL_NOT_OWNER                           65537
#define MQLCL_ERR_OPENCL_READ_NOT_STARTED                    65538
#define MQLCL_ERR_OPENCL_DEVICE_LOST                         65539

//--- mqlcl::CLHandleType results
#define MQLCL_OPENCL_INVALID                                 0
#define MQLCL_OPENCL_CONTEXT                                 1
#define MQLCL_OPENCL_PROGRAM                                 2
#define MQLCL_OPENCL_KERNEL                                  3
#define MQLCL_OPENCL_BUFFER                                  4

//--- mqlcl::CLContextCreate device selectors (device ordinals are 0, 1, 2, ...)
#define MQLCL_USE_ANY                                        (-1)
#define MQLCL_USE_CPU_ONLY                                   (-2)
#define MQLCL_USE_GPU_ONLY                                   (-3)
#define MQLCL_USE_GPU_DOUBLE_ONLY                            (-4)
#define MQLCL_USE_SPREAD                                     (-100)

//--- mqlcl::CLBufferCreate flags (the Khronos bits)
#define MQLCL_MEM_READ_WRITE                                 1
#define MQLCL_MEM_WRITE_ONLY                                 2
#define MQLCL_MEM_READ_ONLY                                  4
#define MQLCL_MEM_ALLOC_HOST_PTR                             16

//--- mqlcl::CLExecutionStatus results
#define MQLCL_CL_COMPLETE                                    0
#define MQLCL_CL_RUNNING                                     1
#define MQLCL_CL_SUBMITTED                                   2
#define MQLCL_CL_QUEUED                                      3

//--- mqlcl::CLGetInfoInteger properties: 0-12 as MQL5's, 100 and up are the bridge's
#define MQLCL_CL_DEVICE_COUNT                                0
#define MQLCL_CL_DEVICE_TYPE                                 1
#define MQLCL_CL_DEVICE_VENDOR_ID                            2
#define MQLCL_CL_DEVICE_MAX_COMPUTE_UNITS                    3
#define MQLCL_CL_DEVICE_MAX_CLOCK_FREQUENCY                  4
#define MQLCL_CL_DEVICE_GLOBAL_MEM_SIZE                      5
#define MQLCL_CL_DEVICE_LOCAL_MEM_SIZE                       6
#define MQLCL_CL_BUFFER_SIZE                                 7
#define MQLCL_CL_DEVICE_MAX_WORK_GROUP_SIZE                  8
#define MQLCL_CL_KERNEL_WORK_GROUP_SIZE                      9
#define MQLCL_CL_KERNEL_LOCAL_MEM_SIZE                       10
#define MQLCL_CL_KERNEL_PRIVATE_MEM_SIZE                     11
#define MQLCL_CL_LAST_ERROR                                  12
#define MQLCL_CL_KERNEL_EXECUTION_TIME                       100
#define MQLCL_CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE   101
#define MQLCL_CL_KERNEL_NUM_ARGS                             102
#define MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT         103
#define MQLCL_CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE        104
#define MQLCL_CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT            105
#define MQLCL_CL_DEVICE_LOCAL_MEM_TYPE                       106
#define MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_0                 107
#define MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_1                 108
#define MQLCL_CL_DEVICE_MAX_WORK_ITEM_SIZE_2                 109
#define MQLCL_CL_DEVICE_MAX_MEM_ALLOC_SIZE                   110
#define MQLCL_CL_DEVICE_DOUBLE_SUPPORT                       111
#define MQLCL_CL_DEVICE_GLOBAL_MEM_CACHE_SIZE                112
#define MQLCL_CL_DEVICE_ORDINAL                              113
#define MQLCL_CL_DEVICE_PLATFORM_INDEX                       114
#define MQLCL_CL_PLATFORM_COUNT                              115
#define MQLCL_CL_BUFFER_FLAGS                                116
#define MQLCL_CL_OBJECT_COUNT                                117
#define MQLCL_CL_PROFILING_TIMER_RESOLUTION                  118
#define MQLCL_CL_LAST_ERROR_DESCRIPTION_LENGTH               119
#define MQLCL_CL_GEMM_EXECUTION_TIME                         120
#define MQLCL_CL_PROGRAM_FROM_CACHE                          121
#define MQLCL_CL_DEVICE_KERNEL_LOCAL_MEM_SIZE                122

//--- mqlcl::CLGetInfoString properties: 0-13 as MQL5's, 100 and up are the bridge's
#define MQLCL_CL_PLATFORM_PROFILE                            0
#define MQLCL_CL_PLATFORM_VERSION                            1
#define MQLCL_CL_PLATFORM_VENDOR                             2
#define MQLCL_CL_PLATFORM_EXTENSIONS                         3
#define MQLCL_CL_DEVICE_NAME                                 4
#define MQLCL_CL_DEVICE_VENDOR                               5
#define MQLCL_CL_DRIVER_VERSION                              6
#define MQLCL_CL_DEVICE_PROFILE                              7
#define MQLCL_CL_DEVICE_VERSION                              8
#define MQLCL_CL_DEVICE_EXTENSIONS                           9
#define MQLCL_CL_DEVICE_BUILT_IN_KERNELS                     10
#define MQLCL_CL_DEVICE_OPENCL_C_VERSION                     11
#define MQLCL_CL_ERROR_DESCRIPTION                           12
#define MQLCL_CL_PLATFORM_NAME                               13
#define MQLCL_CL_DEVICE_LIST                                 100
#define MQLCL_CL_PROGRAM_BUILD_LOG                           101
#define MQLCL_CL_PROGRAM_BUILD_OPTIONS                       102
#define MQLCL_CL_KERNEL_FUNCTION_NAME                        103
#define MQLCL_CL_BRIDGE_VERSION                              104
#define MQLCL_CL_GEMM_PLAN                                   105
#define MQLCL_CL_GEMM_PASSES                                 106
#define MQLCL_CL_LAST_TRANSFER                               107

//--- CLBufferTensorMap element types
#define MQLCL_TENSOR_FLOAT32                                 0
#define MQLCL_TENSOR_TF32                                    1

//--- mqlcl::CLGemm element types and precisions
#define MQLCL_GEMM_FLOAT                                     0
#define MQLCL_GEMM_DOUBLE                                    1
#define MQLCL_GEMM_EXACT                                     0
#define MQLCL_GEMM_ACCURATE                                  1
#define MQLCL_GEMM_TF32                                      2
#define MQLCL_GEMM_FASTEST                                   3

//--- longest kernel name mqlcl::CLKernelCreate accepts (MQL5's limit)
#define MQLCL_KERNEL_NAME_MAX                                127

//--- the wrappers' string capacities, in characters (terminator included)
#define MQLCL_STRING_CAPACITY                                1024
#define MQLCL_STRING_CAPACITY_MAX                            4194304
#define MQLCL_LOG_CAPACITY                                   65536

//+------------------------------------------------------------------+
//| The exports of mqlcl.dll. Arrays arrive as a pointer to their    |
//| first element: the DLL never sees their length, so the count or  |
//| capacity parameter must never exceed ArraySize().                |
//+------------------------------------------------------------------+
#import "mqlcl.dll"
//--- handles and information
int  CLHandleType(int handle);
long CLGetInfoInteger(int handle,int prop);
int  CLGetInfoString(int handle,int prop,string &value,uint capacity);
//--- context: one device, one in-order queue with profiling
int  CLContextCreate(int device);
void CLContextFree(int context);
int  CLGetDeviceInfo(int handle,int property_id,uchar &data[],uint &size,uint capacity);
//--- programs and kernels
int  CLProgramCreate(int context,string source);
int  CLProgramCreateEx(int context,string source,string build_options,string &build_log,uint log_capacity);
void CLProgramFree(int program);
int  CLKernelCreate(int program,string kernel_name);
void CLKernelFree(int kernel);
//--- by-value kernel arguments: one overload per type, each passing its own size
int  CLSetKernelArg(int kernel,uint arg_index,const char &value,uint size=1);
int  CLSetKernelArg(int kernel,uint arg_index,const uchar &value,uint size=1);
int  CLSetKernelArg(int kernel,uint arg_index,const short &value,uint size=2);
int  CLSetKernelArg(int kernel,uint arg_index,const ushort &value,uint size=2);
int  CLSetKernelArg(int kernel,uint arg_index,const int &value,uint size=4);
int  CLSetKernelArg(int kernel,uint arg_index,const uint &value,uint size=4);
int  CLSetKernelArg(int kernel,uint arg_index,const long &value,uint size=8);
int  CLSetKernelArg(int kernel,uint arg_index,const ulong &value,uint size=8);
int  CLSetKernelArg(int kernel,uint arg_index,const float &value,uint size=4);
int  CLSetKernelArg(int kernel,uint arg_index,const double &value,uint size=8);
int  CLSetKernelArgMem(int kernel,uint arg_index,int buffer);
int  CLSetKernelArgMemLocal(int kernel,uint arg_index,ulong local_mem_size);
//--- buffers: buffer_offset in bytes, data_offset and data_count in elements
int  CLBufferCreate(int context,uint size,uint flags);
void CLBufferFree(int buffer);
uint CLBufferWrite(int buffer,const char &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=1);
uint CLBufferWrite(int buffer,const uchar &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=1);
uint CLBufferWrite(int buffer,const short &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=2);
uint CLBufferWrite(int buffer,const ushort &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=2);
uint CLBufferWrite(int buffer,const int &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferWrite(int buffer,const uint &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferWrite(int buffer,const long &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferWrite(int buffer,const ulong &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferWrite(int buffer,const float &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferWrite(int buffer,const double &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferWrite(int buffer,const matrixf &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferWrite(int buffer,const matrix &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferWrite(int buffer,const vectorf &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferWrite(int buffer,const vector &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferWrite(int buffer,const matrixc &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=16);
uint CLBufferWrite(int buffer,const vectorc &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=16);
uint CLBufferRead(int buffer,char &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=1);
uint CLBufferRead(int buffer,uchar &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=1);
uint CLBufferRead(int buffer,short &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=2);
uint CLBufferRead(int buffer,ushort &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=2);
uint CLBufferRead(int buffer,int &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferRead(int buffer,uint &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferRead(int buffer,long &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferRead(int buffer,ulong &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferRead(int buffer,float &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferRead(int buffer,double &data[],uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferRead(int buffer,matrixf &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferRead(int buffer,matrix &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferRead(int buffer,vectorf &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferRead(int buffer,vector &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferRead(int buffer,matrixc &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=16);
uint CLBufferRead(int buffer,vectorc &data,uint buffer_offset,uint data_offset,uint data_count,uint element_size=16);
//--- the same with 64-bit sizes, offsets and counts: buffers of 4 GiB and more
int   CLBufferCreate64(int context,ulong size,uint flags);
ulong CLBufferWrite64(int buffer,const char &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=1);
ulong CLBufferWrite64(int buffer,const uchar &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=1);
ulong CLBufferWrite64(int buffer,const short &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=2);
ulong CLBufferWrite64(int buffer,const ushort &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=2);
ulong CLBufferWrite64(int buffer,const int &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=4);
ulong CLBufferWrite64(int buffer,const uint &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=4);
ulong CLBufferWrite64(int buffer,const long &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=8);
ulong CLBufferWrite64(int buffer,const ulong &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=8);
ulong CLBufferWrite64(int buffer,const float &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=4);
ulong CLBufferWrite64(int buffer,const double &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=8);
ulong CLBufferWrite64(int buffer,const matrixf &data,ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=4);
ulong CLBufferWrite64(int buffer,const matrix &data,ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=8);
ulong CLBufferRead64(int buffer,char &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=1);
ulong CLBufferRead64(int buffer,uchar &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=1);
ulong CLBufferRead64(int buffer,short &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=2);
ulong CLBufferRead64(int buffer,ushort &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=2);
ulong CLBufferRead64(int buffer,int &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=4);
ulong CLBufferRead64(int buffer,uint &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=4);
ulong CLBufferRead64(int buffer,long &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=8);
ulong CLBufferRead64(int buffer,ulong &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=8);
ulong CLBufferRead64(int buffer,float &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=4);
ulong CLBufferRead64(int buffer,double &data[],ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=8);
ulong CLBufferRead64(int buffer,matrixf &data,ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=4);
ulong CLBufferRead64(int buffer,matrix &data,ulong buffer_offset,ulong data_offset,ulong data_count,uint element_size=8);
//--- tensor maps for Hopper's copy engine (NVIDIA compute capability 9.0+): 1, or 0
int  CLBufferTensorMap(int map_buffer,uint map_offset,int buffer,uint buffer_offset,uint rows,uint cols,uint row_pitch,uint box_rows,uint box_cols,uint swizzle,int element_type);
//--- execution: all three arrays are always passed; zero offsets, and a local size of all
//--- zeros lets the runtime choose (mqlclExecute below builds them)
int  CLExecute(int kernel,uint work_dim,const uint &global_work_offset[],const uint &global_work_size[],const uint &local_work_size[]);
int  CLExecutionStatus(int kernel);
//--- C = alpha*op(A)*op(B) + beta*C on buffers of one context, row-major; enqueues like
//--- CLExecute (mqlclGemm and mqlclMatMul below cover the common cases): 1, or 0
int  CLGemm(int buffer_a,int buffer_b,int buffer_c,int element_type,int precision,int transpose_a,int transpose_b,uint m,uint n,uint k,double alpha,double beta,ulong offset_a,uint lda,ulong offset_b,uint ldb,ulong offset_c,uint ldc,uint batch,ulong stride_a,ulong stride_b,ulong stride_c);
//--- c = a x b from matrices to a matrix through three buffers (a m x k, b k x n, c m x n,
//--- already that size); the transfers overlap the product: 1 once c holds it, or 0
int  CLMatMul(int buffer_a,int buffer_b,int buffer_c,int element_type,int precision,const matrixf &a,const matrixf &b,matrixf &c,uint m,uint n,uint k);
int  CLMatMul(int buffer_a,int buffer_b,int buffer_c,int element_type,int precision,const matrix &a,const matrix &b,matrix &c,uint m,uint n,uint k);
//--- owners: handles no other program can use or free, all freed with one call (docs/api.md)
int  CLOwnerCreate();
int  CLOwnerSelect(int owner);
int  CLOwnerFree(int owner);
//--- non-blocking reads: start, poll (CLExecutionStatus's values), take
int  CLBufferReadStart(int buffer,uint buffer_offset,uint size);
int  CLBufferReadStatus(int buffer);
uint CLBufferReadTake(int buffer,char &data[],uint data_offset,uint data_count,uint element_size=1);
uint CLBufferReadTake(int buffer,uchar &data[],uint data_offset,uint data_count,uint element_size=1);
uint CLBufferReadTake(int buffer,short &data[],uint data_offset,uint data_count,uint element_size=2);
uint CLBufferReadTake(int buffer,ushort &data[],uint data_offset,uint data_count,uint element_size=2);
uint CLBufferReadTake(int buffer,int &data[],uint data_offset,uint data_count,uint element_size=4);
uint CLBufferReadTake(int buffer,uint &data[],uint data_offset,uint data_count,uint element_size=4);
uint CLBufferReadTake(int buffer,long &data[],uint data_offset,uint data_count,uint element_size=8);
uint CLBufferReadTake(int buffer,ulong &data[],uint data_offset,uint data_count,uint element_size=8);
uint CLBufferReadTake(int buffer,float &data[],uint data_offset,uint data_count,uint element_size=4);
uint CLBufferReadTake(int buffer,double &data[],uint data_offset,uint data_count,uint element_size=8);
uint CLBufferReadTake(int buffer,matrixf &data,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferReadTake(int buffer,matrix &data,uint data_offset,uint data_count,uint element_size=8);
uint CLBufferReadTake(int buffer,vectorf &data,uint data_offset,uint data_count,uint element_size=4);
uint CLBufferReadTake(int buffer,vector &data,uint data_offset,uint data_count,uint element_size=8);
//--- this thread's last failure
int  CLGetLastError();
void CLResetLastError();
void CLSetLastError(int code,string description);   // a wrapper's own refusal (SetUserError's like)
#import

//+------------------------------------------------------------------+
//| Wrappers with the shape of MQL5's built-ins: bool results, whole |
//| arrays, optional arrays. They check the array sizes the DLL      |
//| cannot see before they pass an array to it.                      |
//+------------------------------------------------------------------+
//| mqlclGetInfoString: CLGetInfoString(handle, prop, value) that     |
//| grows the string until the value fits                            |
//+------------------------------------------------------------------+
bool mqlclGetInfoString(const int handle,const int prop,string &value)
  {
   for(uint capacity=MQLCL_STRING_CAPACITY; capacity<=MQLCL_STRING_CAPACITY_MAX; capacity*=4)
     {
      if(!StringInit(value,(int)capacity,0))
         return(false);
      if(mqlcl::CLGetInfoString(handle,prop,value,capacity)!=0)
         return(true);
      if(mqlcl::CLGetLastError()!=MQLCL_ERR_SMALL_ARRAY)
         return(false);
     }
   return(false);
  }
//+------------------------------------------------------------------+
//| mqlclGetDeviceInfo: CLGetDeviceInfo(handle, id, data, size) that  |
//| resizes data[] to the value's size                               |
//+------------------------------------------------------------------+
bool mqlclGetDeviceInfo(const int handle,const int property_id,uchar &data[],uint &size)
  {
   size=0;
   if(ArraySize(data)<256 && ArrayResize(data,256)<0)
      return(false);
   if(mqlcl::CLGetDeviceInfo(handle,property_id,data,size,(uint)ArraySize(data))!=0)
      return(ArrayResize(data,(int)size)>=0);
   if(mqlcl::CLGetLastError()!=MQLCL_ERR_SMALL_ARRAY || ArrayResize(data,(int)size)<0)
      return(false);
   return(mqlcl::CLGetDeviceInfo(handle,property_id,data,size,(uint)ArraySize(data))!=0);
  }
//+------------------------------------------------------------------+
//| mqlclProgramCreate: CLProgramCreate(context, source, build_log)  |
//| with OpenCL build options ("-DN=100 -cl-fast-relaxed-math")      |
//+------------------------------------------------------------------+
int mqlclProgramCreate(const int context,const string source,const string build_options,string &build_log)
  {
   if(!StringInit(build_log,MQLCL_LOG_CAPACITY,0))
      return(MQLCL_INVALID_HANDLE);
   return(mqlcl::CLProgramCreateEx(context,source,build_options,build_log,MQLCL_LOG_CAPACITY));
  }
//+------------------------------------------------------------------+
//| mqlclBufferWrite: CLBufferWrite(buffer, data) - the whole array  |
//+------------------------------------------------------------------+
template<typename T>
uint mqlclBufferWrite(const int buffer,const T &data[])
  {
   return(mqlcl::CLBufferWrite(buffer,data,0,0,(uint)ArraySize(data)));
  }
//+------------------------------------------------------------------+
//| mqlclBufferWrite: data_count elements from data[data_offset]     |
//| to byte buffer_offset of the buffer                              |
//+------------------------------------------------------------------+
template<typename T>
uint mqlclBufferWrite(const int buffer,const T &data[],const uint buffer_offset,const uint data_offset,const uint data_count)
  {
   if(!mqlclArrayHolds(ArraySize(data),data_offset,data_count,"mqlclBufferWrite"))
      return(0);
   return(mqlcl::CLBufferWrite(buffer,data,buffer_offset,data_offset,data_count));
  }
//+------------------------------------------------------------------+
//| mqlclBufferRead: CLBufferRead(buffer, data) - the whole array    |
//| (size it first: the DLL writes ArraySize(data) elements)         |
//+------------------------------------------------------------------+
template<typename T>
uint mqlclBufferRead(const int buffer,T &data[])
  {
   return(mqlcl::CLBufferRead(buffer,data,0,0,(uint)ArraySize(data)));
  }
//+------------------------------------------------------------------+
//| mqlclBufferRead: data_count elements from byte buffer_offset     |
//| into data[data_offset]                                           |
//+------------------------------------------------------------------+
template<typename T>
uint mqlclBufferRead(const int buffer,T &data[],const uint buffer_offset,const uint data_offset,const uint data_count)
  {
   if(!mqlclArrayHolds(ArraySize(data),data_offset,data_count,"mqlclBufferRead"))
      return(0);
   return(mqlcl::CLBufferRead(buffer,data,buffer_offset,data_offset,data_count));
  }
//+------------------------------------------------------------------+
//| mqlclSetKernelArg: CLSetKernelArg(kernel, index, value) by value, |
//| as the built-in takes it: literals and expressions of any scalar |
//| type (bool, char ... ulong, float, double, datetime, color,      |
//| enums), given to the kernel as sizeof(T) bytes                   |
//+------------------------------------------------------------------+
template<typename T>
bool mqlclSetKernelArg(const int kernel,const uint arg_index,T value)
  {
   if(sizeof(T)==1)
     {
      char byte=(char)value;
      return(mqlcl::CLSetKernelArg(kernel,arg_index,byte)!=0);
     }
   if(sizeof(T)==2)
     {
      short half=(short)value;
      return(mqlcl::CLSetKernelArg(kernel,arg_index,half)!=0);
     }
   if((T)1/(T)2!=0)   // float or double (integers divide to 0): kept as floating point
     {
      if(sizeof(T)==4)
        {
         float single=(float)value;
         return(mqlcl::CLSetKernelArg(kernel,arg_index,single)!=0);
        }
      double twice=(double)value;
      return(mqlcl::CLSetKernelArg(kernel,arg_index,twice)!=0);
     }
   if(sizeof(T)==4)
     {
      int word=(int)value;
      return(mqlcl::CLSetKernelArg(kernel,arg_index,word)!=0);
     }
   long wide=(long)value;
   return(mqlcl::CLSetKernelArg(kernel,arg_index,wide)!=0);
  }
//+------------------------------------------------------------------+
//| mqlclExecute: CLExecute(kernel) - a single work-item             |
//+------------------------------------------------------------------+
bool mqlclExecute(const int kernel)
  {
   uint none[1]={0};
   return(mqlcl::CLExecute(kernel,0,none,none,none)!=0);
  }
//+------------------------------------------------------------------+
//| mqlclExecute: CLExecute(kernel, work_dim, offset, global) - the  |
//| runtime chooses the work-group size                              |
//+------------------------------------------------------------------+
bool mqlclExecute(const int kernel,const uint work_dim,const uint &global_work_offset[],const uint &global_work_size[])
  {
   uint runtime_chooses[3]={0,0,0};
   return(mqlclExecute(kernel,work_dim,global_work_offset,global_work_size,runtime_chooses));
  }
//+------------------------------------------------------------------+
//| mqlclExecute: CLExecute(kernel, work_dim, offset, global, local) |
//| with an explicit work-group size (the article's MQL5 had none)   |
//+------------------------------------------------------------------+
bool mqlclExecute(const int kernel,const uint work_dim,const uint &global_work_offset[],const uint &global_work_size[],const uint &local_work_size[])
  {
   if(work_dim>3)
     {
      Print("mqlclExecute: work_dim is ",work_dim,"; it must be 1, 2 or 3");
      return(false);
     }
   if(!mqlclArrayHolds(ArraySize(global_work_offset),0,work_dim,"mqlclExecute: global_work_offset") ||
      !mqlclArrayHolds(ArraySize(global_work_size),0,work_dim,"mqlclExecute: global_work_size") ||
      !mqlclArrayHolds(ArraySize(local_work_size),0,work_dim,"mqlclExecute: local_work_size"))
      return(false);
   return(mqlcl::CLExecute(kernel,work_dim,global_work_offset,global_work_size,local_work_size)!=0);
  }
//+------------------------------------------------------------------+
//| mqlclGemm: C = A*B on buffers of one context - A m x k, B k x n, |
//| C m x n, packed row-major from each buffer's start. Enqueues, as |
//| CLExecute does: a read of C waits. Transposes, alpha and beta,   |
//| offsets, leading dimensions and batches: mqlcl::CLGemm           |
//+------------------------------------------------------------------+
bool mqlclGemm(const int buffer_a,const int buffer_b,const int buffer_c,const uint m,const uint n,const uint k,
               const int element_type=MQLCL_GEMM_FLOAT,const int precision=MQLCL_GEMM_EXACT)
  {
   return(mqlcl::CLGemm(buffer_a,buffer_b,buffer_c,element_type,precision,0,0,m,n,k,1.0,0.0,
                        0,0,0,0,0,0,1,0,0,0)!=0);
  }
//+------------------------------------------------------------------+
//| mqlclMatMul: c = a x b (MQL5's c=a.MatMul(b)) on the device of   |
//| the context: c resized to a.Rows() x b.Cols(), then one DLL call |
//| (mqlcl::CLMatMul) writes a and b, runs the GEMM and reads c, its |
//| transfers overlapping the product. buffers[3] keeps A's, B's and |
//| C's device buffers for the next call (MQLCL_INVALID_HANDLE: made |
//| here, as is one too small); mqlclBuffersFree frees them. false:  |
//| the code is mqlcl::CLGetLastError(), the DLL's or the wrapper's  |
//| own refusal's (mqlclRefuse); c is unchanged when the shapes or   |
//| the buffers are refused, else it may hold part of the product    |
//+------------------------------------------------------------------+
bool mqlclMatMul(const int context,const matrixf &a,const matrixf &b,matrixf &c,int &buffers[],const int precision=MQLCL_GEMM_EXACT)
  {
   if(!mqlclMatMulBuffers(context,a.Rows(),a.Cols(),b.Rows(),b.Cols(),MQLCL_GEMM_FLOAT,buffers))
      return(false);
   if(!c.Resize(a.Rows(),b.Cols()))
      return(mqlclRefuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"mqlclMatMul: c cannot be resized to "+IntegerToString(a.Rows())+" x "+IntegerToString(b.Cols())));
   return(mqlcl::CLMatMul(buffers[0],buffers[1],buffers[2],MQLCL_GEMM_FLOAT,precision,a,b,c,
                          (uint)a.Rows(),(uint)b.Cols(),(uint)a.Cols())!=0);
  }
//+------------------------------------------------------------------+
//| mqlclMatMul: the same for matrix (double: the device needs fp64) |
//+------------------------------------------------------------------+
bool mqlclMatMul(const int context,const matrix &a,const matrix &b,matrix &c,int &buffers[],const int precision=MQLCL_GEMM_EXACT)
  {
   if(!mqlclMatMulBuffers(context,a.Rows(),a.Cols(),b.Rows(),b.Cols(),MQLCL_GEMM_DOUBLE,buffers))
      return(false);
   if(!c.Resize(a.Rows(),b.Cols()))
      return(mqlclRefuse(MQLCL_ERR_NOT_ENOUGH_MEMORY,"mqlclMatMul: c cannot be resized to "+IntegerToString(a.Rows())+" x "+IntegerToString(b.Cols())));
   return(mqlcl::CLMatMul(buffers[0],buffers[1],buffers[2],MQLCL_GEMM_DOUBLE,precision,a,b,c,
                          (uint)a.Rows(),(uint)b.Cols(),(uint)a.Cols())!=0);
  }
//+------------------------------------------------------------------+
//| mqlclMatMul: c = a x b through buffers made for this call and    |
//| freed before it returns, whatever the outcome                    |
//+------------------------------------------------------------------+
bool mqlclMatMul(const int context,const matrixf &a,const matrixf &b,matrixf &c,const int precision=MQLCL_GEMM_EXACT)
  {
   int buffers[3]={MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE};
   bool done=mqlclMatMul(context,a,b,c,buffers,precision);
   mqlclBuffersFree(buffers);   // frees only live buffers: the last error stays the failure's
   return(done);
  }
bool mqlclMatMul(const int context,const matrix &a,const matrix &b,matrix &c,const int precision=MQLCL_GEMM_EXACT)
  {
   int buffers[3]={MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE};
   bool done=mqlclMatMul(context,a,b,c,buffers,precision);
   mqlclBuffersFree(buffers);
   return(done);
  }
//+------------------------------------------------------------------+
//| mqlclBuffersFree: frees the live buffers of buffers[] and sets   |
//| every element to MQLCL_INVALID_HANDLE                            |
//+------------------------------------------------------------------+
void mqlclBuffersFree(int &buffers[])
  {
   for(int i=0; i<ArraySize(buffers); i++)
     {
      if(mqlcl::CLHandleType(buffers[i])==MQLCL_OPENCL_BUFFER)
         mqlcl::CLBufferFree(buffers[i]);
      buffers[i]=MQLCL_INVALID_HANDLE;
     }
  }
//+------------------------------------------------------------------+
//| mqlclMatMulBuffers: mqlclMatMul's shapes checked and its buffers |
//| made or kept                                                     |
//+------------------------------------------------------------------+
bool mqlclMatMulBuffers(const int context,const ulong rows_a,const ulong cols_a,const ulong rows_b,const ulong cols_b,
                        const int element_type,int &buffers[])
  {
   if(cols_a!=rows_b)
      return(mqlclRefuse(MQLCL_ERR_INVALID_PARAMETER,"mqlclMatMul: a is "+IntegerToString(rows_a)+" x "+IntegerToString(cols_a)+
                         " and b is "+IntegerToString(rows_b)+" x "+IntegerToString(cols_b)+
                         "; a's columns must equal b's rows"));
   if(ArraySize(buffers)!=3)
      return(mqlclRefuse(MQLCL_ERR_INVALID_PARAMETER,"mqlclMatMul: buffers[] has "+IntegerToString(ArraySize(buffers))+
                         " elements; it must hold 3 handles (MQLCL_INVALID_HANDLE for none)"));
   ulong size=(element_type==MQLCL_GEMM_DOUBLE ? 8 : 4);
   if(!mqlclGemmBuffer(context,buffers[0],rows_a*cols_a*size,MQLCL_MEM_READ_ONLY) ||
      !mqlclGemmBuffer(context,buffers[1],rows_b*cols_b*size,MQLCL_MEM_READ_ONLY) ||
      !mqlclGemmBuffer(context,buffers[2],rows_a*cols_b*size,MQLCL_MEM_READ_WRITE))
      return(false);
   return(true);
  }
//+------------------------------------------------------------------+
//| mqlclGemmBuffer: a buffer of at least `bytes` in buffer: the one |
//| it holds when large enough, else a new one (a smaller one is     |
//| freed). A handle that is not a live buffer fails with the DLL's  |
//| code (5102) and is left as it is                                 |
//+------------------------------------------------------------------+
bool mqlclGemmBuffer(const int context,int &buffer,const ulong bytes,const uint flags)
  {
   if(bytes>0xFFFFFFFF)
      return(mqlclRefuse(MQLCL_ERR_OPENCL_WRONG_BUFFER_SIZE,"mqlclMatMul: a matrix of "+IntegerToString(bytes)+
                         " bytes; a buffer holds at most 4294967295"));
   if(buffer!=MQLCL_INVALID_HANDLE)
     {
      long size=mqlcl::CLGetInfoInteger(buffer,MQLCL_CL_BUFFER_SIZE);
      if(size<0)
         return(false);
      if((ulong)size>=bytes)
         return(true);
      mqlcl::CLBufferFree(buffer);
     }
   buffer=mqlcl::CLBufferCreate(context,(uint)bytes,flags);
   return(buffer!=MQLCL_INVALID_HANDLE);
  }
//+------------------------------------------------------------------+
//| mqlclRefuse: a wrapper's own refusal, before any DLL call: prints |
//| why and returns false, with `code` as mqlcl::CLGetLastError() and |
//| `why` as mqlclLastErrorText(), as for the DLL's own failures      |
//+------------------------------------------------------------------+
bool mqlclRefuse(const int code,const string why)
  {
   mqlcl::CLSetLastError(code,why);
   Print(why);
   return(false);
  }
//+------------------------------------------------------------------+
//| mqlclArrayHolds: true when elements offset..offset+count-1 lie   |
//| inside an array of array_size elements                           |
//+------------------------------------------------------------------+
bool mqlclArrayHolds(const int array_size,const uint offset,const uint count,const string caller)
  {
   if((ulong)offset+(ulong)count<=(ulong)array_size)
      return(true);
   Print(caller,": elements ",offset," to ",(ulong)offset+count," are outside the array of ",array_size);
   return(false);
  }
//+------------------------------------------------------------------+
//| mqlclLastErrorText: the bridge's message for this thread's last  |
//| failure (MQL5: CLGetInfoString(CL_LAST_ERROR, CL_ERROR_...))     |
//+------------------------------------------------------------------+
string mqlclLastErrorText()
  {
//--- one large call: a retry would describe the retry's own failure, not the first one
   string text;
   if(!StringInit(text,MQLCL_LOG_CAPACITY,0))
      return("");
   mqlcl::CLGetInfoString(MQLCL_CL_LAST_ERROR,MQLCL_CL_ERROR_DESCRIPTION,text,MQLCL_LOG_CAPACITY);
   return(text);   // a message longer than the capacity arrives truncated, not lost
  }
//+------------------------------------------------------------------+
//| mqlclPrintError: "<what> failed: error <code>: <message>"        |
//+------------------------------------------------------------------+
void mqlclPrintError(const string what)
  {
   int code=mqlcl::CLGetLastError();
   Print(what+" failed: error "+IntegerToString(code)+": "+mqlclLastErrorText());
  }
//+------------------------------------------------------------------+
//| mqlclPrintBridgeLines: what the bridge measures beyond MQL5's    |
//| API - the device's name, the last launch's time from OpenCL      |
//| profiling (a kernel's, or with MQLCL_CL_GEMM_EXECUTION_TIME and  |
//| a context, its last GEMM's), and the throughput that time gives. |
//| The lines match mqlcl-replay's (harness/): reword them here only.|
//+------------------------------------------------------------------+
void mqlclPrintBridgeLines(const int handle,const double flop_count,const int time_property=MQLCL_CL_KERNEL_EXECUTION_TIME)
  {
   string device_name;
   if(!mqlclGetInfoString(handle,MQLCL_CL_DEVICE_NAME,device_name))
      mqlclPrintError("CLGetInfoString(CL_DEVICE_NAME)");
   else
      Print("device name = "+device_name);
   long nanoseconds=mqlcl::CLGetInfoInteger(handle,time_property);
   if(nanoseconds<0)
     {
      mqlclPrintError(time_property==MQLCL_CL_GEMM_EXECUTION_TIME ? "CLGetInfoInteger(CL_GEMM_EXECUTION_TIME)" :
                      "CLGetInfoInteger(CL_KERNEL_EXECUTION_TIME)");
      return;
     }
   double seconds=nanoseconds/1e9;
   Print("kernel time = "+DoubleToString(seconds,6)+" sec. (profiling)");
   if(nanoseconds>0)
      Print("throughput = "+DoubleToString(flop_count/seconds/1e9,3)+" GFLOPS");
  }
#endif // MQLCL_MQH
//+------------------------------------------------------------------+
