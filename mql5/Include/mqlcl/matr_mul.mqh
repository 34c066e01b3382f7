//+------------------------------------------------------------------+
//|                                                  matr_mul.mqh    |
//|  The plumbing every kernel script of "OpenCL: From Naive Towards |
//|  More Insightful Programming" (mql5.com/en/articles/407) shares, |
//|  through mqlcl.dll: matr_mul_host.mqh, and the context, program, |
//|  kernel and buffers. A script defines what matr_mul_host.mqh     |
//|  asks for and clSrc (its kernel, a #resource), includes this     |
//|  file, and writes what changes from step to step: OnStart,       |
//|  genMatrices, mulCPUOneCore, executeGPU and checkRandom.         |
//+------------------------------------------------------------------+
#include <mqlcl/matr_mul_host.mqh>

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
