//+------------------------------------------------------------------+
//|                                                  matr_mul.mqh    |
//|  The host plumbing every script of "OpenCL: From Naive Towards   |
//|  More Insightful Programming" (mql5.com/en/articles/407) shares, |
//|  through mqlcl.dll. A script defines ROWS1, COLSROWS, COLS2,     |
//|  REALTYPE, the arrays first[], second[], thirdGPU[], thirdCPU[], |
//|  input _device and clSrc (its kernel, a #resource), includes this |
//|  file, and writes what changes from step to step: OnStart,       |
//|  genMatrices, mulCPUOneCore, executeGPU and checkRandom.         |
//+------------------------------------------------------------------+
#include <mqlcl/mqlcl.mqh>

string d2s(double arg,int dig) { return DoubleToString(arg,dig); }
string i2s(long arg)           { return IntegerToString(arg); }
//+------------------------------------------------------------------+
//| initAllDataCPU                                                   |
//+------------------------------------------------------------------+
void initAllDataCPU()
  {
//--- initialize random number generator
   MathSrand((int)TimeLocal());
   Print("=======================================");
   Print("1st OCL martices mul:  device = "+i2s(_device)+";      ROWS1 = "+i2s(ROWS1)+
         "; COLSROWS = "+i2s(COLSROWS)+"; COLS2 = "+i2s(COLS2));

//--- set the required sizes of linear representations of the input and output matrices
   ArrayResize(first,ROWS1*COLSROWS);
   ArrayResize(second,COLSROWS*COLS2);
   ArrayResize(thirdGPU,ROWS1*COLS2);
   ArrayResize(thirdCPU,ROWS1*COLS2);

//--- generate both input matrices and initialize the output to zeros
   genMatrices();
   ArrayInitialize(thirdCPU,0.0);
   ArrayInitialize(thirdGPU,0.0);
  }
//+------------------------------------------------------------------+
//| genVal                                                           |
//| generate one value of the matrix element:                        |
//| uniformly distributed value lying in the range [-0.5; 0.5]       |
//+------------------------------------------------------------------+
REALTYPE genVal()
  {
   return((REALTYPE)((MathRand()-16383.5)/32767.));
  }
//+------------------------------------------------------------------+
//| genRnd: a random index 0..max-1                                  |
//+------------------------------------------------------------------+
int genRnd(int max)
  {
//--- MathRand() includes 32767: the article's MathRand()/32767.*max could return max itself,
//--- one past the last row or column ("array out of range" in checkRandom)
   return((int)(MathRand()/32768.*max));
  }
//+------------------------------------------------------------------+
//| buildOptions: the sizes as OpenCL build options - the kernel     |
//| files keep them as #ifndef defaults, so the same text serves     |
//| every size (the article pasted them into the source instead)     |
//+------------------------------------------------------------------+
string buildOptions()
  {
   return("-DCOLS2="+i2s(COLS2)+" -DCOLSROWS="+i2s(COLSROWS)+
          " -DREALTYPE="+(sizeof(REALTYPE)==sizeof(double) ? "double" : "float"));
  }
//+------------------------------------------------------------------+
//| flopCount: 2 * ROWS1 * COLSROWS * COLS2 operations (one multiply |
//| and one add per term of every scalar product)                    |
//+------------------------------------------------------------------+
double flopCount()
  {
   return(2.0*ROWS1*COLSROWS*COLS2);
  }
//+------------------------------------------------------------------+
//| initAllDataGPU: context, program, kernel, the three buffers and  |
//| the kernel's arguments; on failure prints why, frees what it     |
//| made and returns false                                           |
//+------------------------------------------------------------------+
bool initAllDataGPU(int &clCtx,       // context
                    int &clPrg,       // program on the device
                    int &clKrn,       // kernel
                    int &clMemIn1,    // first (input) buffer
                    int &clMemIn2,    // second (input) buffer
                    int &clMemOut)    // third (output) buffer
  {
   clPrg=clKrn=clMemIn1=clMemIn2=clMemOut=MQLCL_INVALID_HANDLE;

//--- create context, program and kernel
   clCtx=mqlcl::CLContextCreate(_device);
   if(clCtx==MQLCL_INVALID_HANDLE)
     {
      mqlclPrintError("CLContextCreate("+i2s(_device)+")");
      string devices;
      if(mqlclGetInfoString(0,MQLCL_CL_DEVICE_LIST,devices))
         Print("the devices are:\n"+devices);
      return(false);
     }
   string build_log;
   clPrg=mqlclProgramCreate(clCtx,clSrc,buildOptions(),build_log);
   if(clPrg==MQLCL_INVALID_HANDLE)
     {
      mqlclPrintError("CLProgramCreate");   // the message holds the build log
      destroyOpenCL(clCtx,clPrg,clKrn,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }
   clKrn=mqlcl::CLKernelCreate(clPrg,"matricesMul");
   if(clKrn==MQLCL_INVALID_HANDLE)
     {
      mqlclPrintError("CLKernelCreate");
      destroyOpenCL(clCtx,clPrg,clKrn,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }

//--- create all three buffers for the three matrices
   clMemIn1=mqlcl::CLBufferCreate(clCtx,ROWS1   *COLSROWS*sizeof(REALTYPE),MQLCL_MEM_READ_WRITE);
   clMemIn2=mqlcl::CLBufferCreate(clCtx,COLSROWS*COLS2   *sizeof(REALTYPE),MQLCL_MEM_READ_WRITE);
   clMemOut=mqlcl::CLBufferCreate(clCtx,ROWS1   *COLS2   *sizeof(REALTYPE),MQLCL_MEM_READ_WRITE);
   if(clMemIn1==MQLCL_INVALID_HANDLE || clMemIn2==MQLCL_INVALID_HANDLE || clMemOut==MQLCL_INVALID_HANDLE)
     {
      mqlclPrintError("CLBufferCreate");
      destroyOpenCL(clCtx,clPrg,clKrn,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }

//--- set arguments to the kernel
   if(!mqlcl::CLSetKernelArgMem(clKrn,0,clMemIn1) ||
      !mqlcl::CLSetKernelArgMem(clKrn,1,clMemIn2) ||
      !mqlcl::CLSetKernelArgMem(clKrn,2,clMemOut))
     {
      mqlclPrintError("CLSetKernelArgMem");
      destroyOpenCL(clCtx,clPrg,clKrn,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }

//--- write the generated matrices to the device buffers
   if(mqlclBufferWrite(clMemIn1,first)!=(uint)ArraySize(first) ||
      mqlclBufferWrite(clMemIn2,second)!=(uint)ArraySize(second) ||
      mqlclBufferWrite(clMemOut,thirdGPU)!=(uint)ArraySize(thirdGPU))   // 0.0 everywhere
     {
      mqlclPrintError("CLBufferWrite");
      destroyOpenCL(clCtx,clPrg,clKrn,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }
   return(true);
  }
//+------------------------------------------------------------------+
//| readOutBuf                                                       |
//+------------------------------------------------------------------+
bool readOutBuf(int clMemOut,REALTYPE &buf[])
  {
   ArrayResize(buf,COLS2*ROWS1);
//--- buf - a copy of what is written to the buffer thirdGPU[]
   uint read=mqlclBufferRead(clMemOut,buf);
   if(read==0)
     {
      mqlclPrintError("CLBufferRead");   // a kernel that failed to run surfaces here
      return(false);
     }
   Print("read = "+i2s(read)+" elements");
   return(true);
  }
//+------------------------------------------------------------------+
//| destroyOpenCL                                                    |
//+------------------------------------------------------------------+
void destroyOpenCL(int clCtx,int clPrg,int clKrn,int clMemIn1,int clMemIn2,int clMemOut)
  {
//--- destroy all that was created for calculations on the OpenCL device in reverse order
   if(clMemIn1!=MQLCL_INVALID_HANDLE) mqlcl::CLBufferFree(clMemIn1);
   if(clMemIn2!=MQLCL_INVALID_HANDLE) mqlcl::CLBufferFree(clMemIn2);
   if(clMemOut!=MQLCL_INVALID_HANDLE) mqlcl::CLBufferFree(clMemOut);
   if(clKrn!=MQLCL_INVALID_HANDLE)    mqlcl::CLKernelFree(clKrn);
   if(clPrg!=MQLCL_INVALID_HANDLE)    mqlcl::CLProgramFree(clPrg);
   if(clCtx!=MQLCL_INVALID_HANDLE)    mqlcl::CLContextFree(clCtx);
  }
//+------------------------------------------------------------------+
