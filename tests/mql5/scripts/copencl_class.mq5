//+------------------------------------------------------------------+
//|                                                copencl_class.mq5 |
//+------------------------------------------------------------------+
// Run by tests/mql5 only: the COpenCL class of mqlcl/OpenCL.mqh with a value of every scalar type
// passed by value, matrices, vectors and AS_SERIES arrays, the class's refusals and the DLL's
// codes for bad input, a non-blocking read, the GEMM on slots of each element type (and its
// refusal of a type the slots do not hold), the original's edges, and an owner that frees what
// the class made. Each line is "what: result, code" or the values.
#include <mqlcl/OpenCL.mqh>

enum ECount
  {
   COUNT_ONE=1,
   COUNT_TWO=2
  };

const string kScalars=
   "__kernel void scalars(__global long *out,char b,char c,uchar uc,short s,ushort us,int i,\r\n"+
   "                      uint ui,long l,ulong ul,float f,long dt,uint col,int e)\r\n"+
   "{\r\n"+
   "   out[0]=b; out[1]=c; out[2]=uc; out[3]=s; out[4]=us; out[5]=i; out[6]=ui; out[7]=l;\r\n"+
   "   out[8]=(long)(ul>>32); out[9]=(long)(f*1000.0f); out[10]=dt; out[11]=col; out[12]=e;\r\n"+
   "}\r\n";
const string kTwice=
   "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\r\n"+
   "__kernel void twice(__global double *out,double v) { out[0]=2*v; }\r\n";
//+------------------------------------------------------------------+
//| "what: true|false, code N"                                       |
//+------------------------------------------------------------------+
void Outcome(const string what,const bool result,COpenCL &cl)
  {
   Print(what+": "+(result ? "true" : "false")+", code "+IntegerToString(cl.GetLastErrorCode()));
  }
//+------------------------------------------------------------------+
//| A value of each scalar type, by value, through one kernel        |
//+------------------------------------------------------------------+
bool Scalars(COpenCL &cl)
  {
   if(!cl.Initialize(kScalars) || !cl.SetKernelsCount(1) || !cl.SetBuffersCount(2) ||
      !cl.KernelCreate(0,"scalars") || !cl.BufferCreate(0,13*8,CL_MEM_READ_WRITE))
      return(false);
   ECount count=COUNT_TWO;
   bool set=cl.SetArgumentBuffer(0,0,0) && cl.SetArgument(0,1,true) && cl.SetArgument(0,2,(char)-5) &&
            cl.SetArgument(0,3,(uchar)200) && cl.SetArgument(0,4,(short)-30000) &&
            cl.SetArgument(0,5,(ushort)60000) && cl.SetArgument(0,6,-123456) &&
            cl.SetArgument(0,7,(uint)4000000000) && cl.SetArgument(0,8,-9000000000) &&
            cl.SetArgument(0,9,(ulong)0x123456789ABCDEF0) && cl.SetArgument(0,10,(float)1.5) &&
            cl.SetArgument(0,11,(datetime)1700000000) && cl.SetArgument(0,12,(color)0x00FF8040) &&
            cl.SetArgument(0,13,count);
   uint offset[1]={0};
   uint one[1]={1};
   long out[];
   ArrayResize(out,13);
   if(!set || !cl.Execute(0,1,offset,one) || !cl.BufferRead(0,out,0,0,13))
      return(false);
   string text="scalars:";
   for(int i=0; i<13; i++)
      text+=" "+IntegerToString(out[i]);
   Print(text);
//--- mqlcl.mqh's by-value setter on the class's kernel handle: the same rules
   bool again=mqlclSetKernelArg(cl.GetKernel(0),6,777) && mqlclSetKernelArg(cl.GetKernel(0),10,(float)-0.25) &&
              mqlclSetKernelArg(cl.GetKernel(0),1,false) && cl.Execute(0,1,offset,one) && cl.BufferRead(0,out,0,0,13);
   Print("mqlclSetKernelArg: "+(again ? "true" : "false")+", "+IntegerToString(out[0])+" "+IntegerToString(out[5])+" "+
         IntegerToString(out[9]));
   return(true);
  }
//+------------------------------------------------------------------+
//| Bad input: the class's refusals (their codes) and the DLL's codes |
//+------------------------------------------------------------------+
void BadInput(COpenCL &cl)
  {
   Outcome("buffer index 5",cl.SetArgumentBuffer(0,0,5),cl);
   Outcome("kernel index -1",cl.SetArgument(-1,1,7),cl);
   long size=cl.GetKernelInfoInteger(0,CL_BUFFER_SIZE);   // before the code is read
   Print("a kernel handle asked for CL_BUFFER_SIZE: "+IntegerToString(size)+", code "+
         IntegerToString(cl.GetLastErrorCode()));
   matrixf shape;
   Outcome("a 10 x 10 matrixf from a 104-byte buffer",cl.BufferToMatrix(0,shape,10,10),cl);
   Outcome("rows without cols",cl.BufferToMatrix(0,shape,10),cl);
   long large[];
   ArrayResize(large,20);
   Outcome("20 longs from a 104-byte buffer",cl.BufferRead(0,large,0,0,20),cl);
   Outcome("elements 18 to 22 of an array of 20",cl.BufferRead(0,large,0,18,4),cl);
   Outcome("flags 0x1000",cl.BufferCreate(1,16,0x1000),cl);
   Outcome("an argument of the wrong kind",cl.SetArgument(0,0,1),cl);
   Outcome("a kernel that is not in the program",cl.KernelCreate(0,"nothing"),cl);
  }
//+------------------------------------------------------------------+
//| Matrices and vectors in and out                                  |
//+------------------------------------------------------------------+
void Matrices(COpenCL &cl)
  {
   matrixf m;
   m.Resize(2,3);
   for(int r=0; r<2; r++)
      for(int c=0; c<3; c++)
         m[r][c]=(float)(10*r+c);
   vector v;
   v.Resize(2);
   v[0]=0.25;
   v[1]=-8;
   matrixf back;
   vector vback;
   bool done=cl.BufferFromMatrix<float>(1,m,CL_MEM_READ_WRITE) && cl.BufferToMatrix(1,back,3,2) &&
             cl.BufferFromVector(0,v,CL_MEM_READ_WRITE) && cl.BufferToVector(0,vback,2);
   Print("matrices: "+(done ? "true" : "false")+", "+IntegerToString(back.Rows())+" x "+IntegerToString(back.Cols())+
         ", "+DoubleToString(back[2][1],1)+", "+DoubleToString(vback[0],2)+" "+DoubleToString(vback[1],2));
  }
//+------------------------------------------------------------------+
//| A read that does not block: start, poll, take                    |
//+------------------------------------------------------------------+
void NonBlocking(COpenCL &cl)
  {
   int never=cl.BufferReadStatus(0);
   Print("poll before a start: "+IntegerToString(never)+", code "+IntegerToString(cl.GetLastErrorCode()));
   int polls=0;
   bool started=cl.BufferReadStart(1,4,20);
   int status=cl.BufferReadStatus(1);
   while(started && status>MQLCL_CL_COMPLETE && polls<1000000)
     {
      polls++;
      status=cl.BufferReadStatus(1);
     }
   float got[];
   ArrayResize(got,5);
   bool taken=cl.BufferReadTake(1,got,0,5);
   Print("non-blocking: "+(started ? "true" : "false")+", status "+IntegerToString(status)+", "+(taken ? "true" : "false")+
         ", "+DoubleToString(got[0],1)+" "+DoubleToString(got[4],1));
  }
//+------------------------------------------------------------------+
//| AS_SERIES arrays: offsets and order as the program indexes them  |
//+------------------------------------------------------------------+
void Series(COpenCL &cl)
  {
   double series[];
   ArrayResize(series,4);
   ArraySetAsSeries(series,true);
   for(int i=0; i<4; i++)
      series[i]=i+1;
   double plain[];
   ArrayResize(plain,2);
   bool done=cl.BufferWrite(1,series,0,1,2) && cl.BufferRead(1,plain,0,0,2) &&
             cl.BufferRead(1,series,0,2,2);
   Print("series: "+(done ? "true" : "false")+", "+DoubleToString(plain[0],1)+" "+DoubleToString(plain[1],1)+
         ", "+DoubleToString(series[0],1)+" "+DoubleToString(series[1],1)+" "+DoubleToString(series[2],1)+
         " "+DoubleToString(series[3],1));
  }
//+------------------------------------------------------------------+
//| Rows x cols values of r - c/2                                    |
//+------------------------------------------------------------------+
template<typename T>
void Ramp(matrix<T> &m,const ulong rows,const ulong cols)
  {
   m.Resize(rows,cols);
   for(ulong r=0; r<rows; r++)
      for(ulong c=0; c<cols; c++)
         m[r][c]=(T)(r-0.5*c);
  }
//+------------------------------------------------------------------+
//| The largest |a - b|                                              |
//+------------------------------------------------------------------+
template<typename T>
double MaxError(matrix<T> &a,matrix<T> &b)
  {
   if(a.Rows()!=b.Rows() || a.Cols()!=b.Cols())
      return(-1);
   matrix<T> difference=a-b;
   return(MathMax(MathAbs((double)difference.Max()),MathAbs((double)difference.Min())));
  }
//+------------------------------------------------------------------+
//| The GEMM on slots: the element type they were written with, and  |
//| a refusal of a type they do not hold                             |
//+------------------------------------------------------------------+
void GemmSlots(void)
  {
   COpenCL cl;
   matrixf af,bf,cf;
   Ramp(af,3,4);
   Ramp(bf,4,2);
   bool floats=cl.Initialize(kScalars) && cl.SetBuffersCount(6) && cl.BufferFromMatrix(0,af,CL_MEM_READ_ONLY) &&
               cl.BufferFromMatrix(1,bf,CL_MEM_READ_ONLY) && cl.BufferCreate(2,3*2*4,CL_MEM_READ_WRITE) &&
               cl.Gemm(0,1,2,3,2,4) && cl.BufferToMatrix(2,cf,3,2);
   matrixf expected=af.MatMul(bf);
   Print("gemm of float slots: "+(floats ? "true" : "false")+", max error "+DoubleToString(MaxError(cf,expected),6));
   if(cl.SupportDouble())
     {
      matrix ad,bd,cd;
      Ramp(ad,3,4);
      Ramp(bd,4,2);
      bool written=cl.BufferFromMatrix(3,ad,CL_MEM_READ_ONLY) && cl.BufferFromMatrix(4,bd,CL_MEM_READ_ONLY) &&
                   cl.BufferCreate(5,3*2*8,CL_MEM_READ_WRITE);
      Outcome("gemm of double slots as float",written && cl.Gemm(3,4,5,3,2,4,MQLCL_GEMM_FLOAT),cl);
      bool doubles=cl.Gemm(3,4,5,3,2,4) && cl.BufferToMatrix(5,cd,3,2);
      matrix expected_double=ad.MatMul(bd);
      Print("gemm of double slots: "+(doubles ? "true" : "false")+", max error "+
            DoubleToString(MaxError(cd,expected_double),12));
      Outcome("gemm of a float and a double slot",cl.Gemm(0,4,2,3,2,4),cl);
     }
   else
      Print("gemm of double slots: not supported");
   int whole[];
   ArrayResize(whole,12);
   ArrayInitialize(whole,1);
   Outcome("gemm of an int slot",cl.BufferWrite(0,whole,0,0,12) && cl.Gemm(0,1,2,3,2,4),cl);
   cl.Shutdown();
  }
//+------------------------------------------------------------------+
//| Where the original has edges: what it does there                 |
//+------------------------------------------------------------------+
void Edges(void)
  {
   COpenCL cl;
   long values[];
   ArrayResize(values,4);
   bool made=cl.Initialize(kScalars) && cl.SetKernelsCount(2) && cl.SetBuffersCount(3) &&
             cl.KernelCreate(0,"scalars") && cl.BufferCreate(0,64,CL_MEM_READ_WRITE);
   Outcome("a read of 0 elements",made && cl.BufferRead(0,values,0,0,0),cl);
   Outcome("a write of 0 elements",cl.BufferWrite(0,values,0,0,0),cl);
   cl.KernelFree(0);
   Print("the name after KernelFree: "+cl.GetKernelName(0));
//--- a complex matrix through a slot
   matrixc mc,back;
   mc.Resize(2,2);
   for(int i=0; i<4; i++)
     {
      complex z;
      z.real=i;
      z.imag=-i;
      mc[i/2][i%2]=z;
     }
   bool moved=cl.BufferFromMatrix(1,mc,CL_MEM_READ_WRITE) && cl.BufferToMatrix(1,back,2,2);
   Print("matrixc: "+(moved ? "true" : "false")+", "+DoubleToString(back[1][1].real,1)+" "+DoubleToString(back[1][1].imag,1));
//--- raw device values: a value over 8 bytes reads its bytes 8 to 15, as the original's does
   uchar raw[];
   uint size=0;
   long second=0;
   bool got=cl.GetDeviceInfo(0x1005,raw,size);   // CL_DEVICE_MAX_WORK_ITEM_SIZES: three size_t
   for(int i=15; got && i>=8; i--)
      second=(second<<8)|raw[i];
   Print("GetDeviceInfo(0x1005): "+IntegerToString(size)+" bytes, the second size "+
         (got && cl.GetDeviceInfo(0x1005)==second ? "true" : "false")+", compute units "+
         (cl.GetDeviceInfo(0x1002)==cl.GetDeviceInfoInteger(CL_DEVICE_MAX_COMPUTE_UNITS) ? "true" : "false"));
//--- a second context: what was made in the first is freed, the slots stay
   bool again=cl.ContextCreate(CL_USE_ANY);
   Print("a second ContextCreate: "+(again ? "true" : "false")+", buffer slot 2 kept "+
         (cl.BufferCreate(2,16,CL_MEM_READ_WRITE) ? "true" : "false")+", kernel 0 "+IntegerToString(cl.GetKernel(0)));
   cl.Shutdown();
  }
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   COpenCL cl;
   if(!Scalars(cl))
     {
      Print("scalars: set-up failed, code "+IntegerToString(cl.GetLastErrorCode()));
      return;
     }
   Matrices(cl);
   NonBlocking(cl);
   Series(cl);
   BadInput(cl);
//--- the failed KernelCreate freed the program and the context, as COpenCL does
   Print("after a failed KernelCreate: context "+IntegerToString(cl.GetContext())+", program "+
         IntegerToString(cl.GetProgram()));
   cl.Shutdown();
   GemmSlots();
   Edges();
//--- double, where the device has it
   COpenCL fp64;
   if(fp64.ContextCreate(CL_USE_ANY) && fp64.SupportDouble())
     {
      double twice[];
      ArrayResize(twice,1);
      uint offset[1]={0};
      uint one[1]={1};
      bool done=fp64.ProgramCreate(kTwice) && fp64.SetKernelsCount(1) && fp64.SetBuffersCount(1) &&
                fp64.KernelCreate(0,"twice") && fp64.BufferCreate(0,8,CL_MEM_READ_WRITE) &&
                fp64.SetArgumentBuffer(0,0,0) && fp64.SetArgument(0,1,1.25) && fp64.Execute(0,1,offset,one) &&
                fp64.BufferRead(0,twice,0,0,1);
      Print("double: "+(done ? "true" : "false")+", "+DoubleToString(twice[0],3));
     }
   else
      Print("double: not supported");
   fp64.Shutdown();
//--- an owner: what the class makes while it is selected is the owner's alone, and one call
//--- frees it all
   int owner=mqlcl::CLOwnerCreate();
   COpenCL owned;
   bool made=owned.Initialize(kScalars) && owned.SetKernelsCount(1) && owned.SetBuffersCount(1) &&
             owned.KernelCreate(0,"scalars") && owned.BufferCreate(0,16,CL_MEM_READ_WRITE);
   mqlcl::CLOwnerSelect(0);
   long data[];
   ArrayResize(data,2);
   Outcome("another owner's buffer",owned.BufferWrite(0,data,0,0,2),owned);
   mqlcl::CLOwnerSelect(owner);
   Print("owner: made "+(made ? "true" : "false")+", freed "+IntegerToString(mqlcl::CLOwnerFree(owner)));
  }
//+------------------------------------------------------------------+
