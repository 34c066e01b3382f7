//+------------------------------------------------------------------+
//|                                                matr_mul_gemm.mq5 |
//+------------------------------------------------------------------+
// Beyond the article: the same product through mqlcl's GEMM, one call (mqlclGemm, which calls
// mqlcl::CLGemm) and no kernel in the script: the library runs the fastest verified product it
// has for the device. Its lines compare with matr_mul_vect_v2's, the article's best step.
#property script_show_inputs

#define ROWS1       2000      // rows in the first matrix
#define COLSROWS    2000      // columns in the first matrix = rows in the second matrix
#define COLS2       2000      // columns in the second matrix
#define REALTYPE    float

REALTYPE first[];           // first linear buffer (matrix)     rows1 * colsrows
REALTYPE second[];          // second buffer                    colsrows * cols2
REALTYPE thirdGPU[];        // product - also a buffer          rows1 * cols2
REALTYPE thirdCPU[];        // product - also a buffer          rows1 * cols2

input int _device=0;        // OpenCL device ordinal (see MQLCL_CL_DEVICE_LIST)

#include <mqlcl/matr_mul_host.mqh>
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   initAllDataCPU();

//--- start working with non-parallel version ("bare" CPU, single core)
//--- calculate the output matrix on a single core CPU
   uint st=GetTickCount();
   mulCPUOneCore();

//--- output total calculation time
   double timeCPU=(GetTickCount()-st)/1000.;
   Print("CPUTime = "+d2s(timeCPU,3));

//--- start working with OCL
   int clCtx;             // context handle
   int clMemIn1;          // first (input) buffer handle
   int clMemIn2;          // second (input) buffer handle
   int clMemOut;          // third (output) buffer handle
   if(!initAllDataGPU(clCtx,clMemIn1,clMemIn2,clMemOut))
      return;             // it printed why and freed what it had made

//--- start calculating total OCL code runtime
   st=GetTickCount();

//--- the GEMM only enqueues, as CLExecute does: the read below waits for it
   bool done=executeGPU(clMemIn1,clMemIn2,clMemOut);

//--- create a buffer for reading and read the result; we will need it later
   REALTYPE buf[];
   if(done)
      done=readOutBuf(clMemOut,buf);

//--- stop calculating the total program runtime
//--- together with the time required for retrieval of data from GPU and transferring it back to RAM
   double timeGPUTotal=(GetTickCount()-st)/1000.;
   if(!done)
     {
      destroyOpenCL(clCtx,clMemIn1,clMemIn2,clMemOut);
      return;
     }
   Print("OpenCL total: time = "+d2s(timeGPUTotal,3)+" sec.");
   mqlclPrintBridgeLines(clCtx,flopCount(),MQLCL_CL_GEMM_EXECUTION_TIME);

   destroyOpenCL(clCtx,clMemIn1,clMemIn2,clMemOut);

//--- calculate the time elapsed (GetTickCount counts whole milliseconds: never divide by 0)
   Print("CPUTime / GPUTotalTime = "+d2s(timeCPU/MathMax(timeGPUTotal,0.001),3));

//--- debugging: random checks. Multiplication accuracy is checked directly
//--- on the initial and output matrices using a few dozen examples
   for(int i=0; i<10; i++) checkRandom(buf,ROWS1,COLS2);

   Print("________________________");
  }
//+------------------------------------------------------------------+
//| genMatrices                                                      |
//| generate initial matrices; this generation is not reflected      |
//| in the final runtime calculation                                 |
//| the first matrix in row-major order, the second in               |
//| row-major order: second[r][c] = buffer[r * COLS2 + c]            |
//+------------------------------------------------------------------+
void genMatrices()
  {
   for(int r=0; r<ROWS1; r++)
      for(int c=0; c<COLSROWS; c++)
         first[r*COLSROWS+c]=genVal();

   for(int r=0; r<COLSROWS; r++)
      for(int c=0; c<COLS2; c++)
         second[r*COLS2+c]=genVal();
  }
//+------------------------------------------------------------------+
//| Main matrix multiplication function;                             |
//| Input matrices are already generated,                            |
//| the output matrix is initialized to zeros                        |
//+------------------------------------------------------------------+
void mulCPUOneCore()
  {
//--- c-r-cr
   for(int c=0; c<COLS2; c++)
      for(int r=0; r<ROWS1; r++)
         for(int cr=0; cr<COLSROWS; cr++)
            thirdCPU[r*COLS2+c]+=first[r*COLSROWS+cr]*second[cr*COLS2+c];
  }
//+------------------------------------------------------------------+
//| initAllDataGPU: context, the three buffers, both matrices        |
//| written, and a first product that builds the GEMM's kernels for  |
//| this shape (the article's CLProgramCreate, which its timing also |
//| leaves out); on failure prints why, frees what it made and       |
//| returns false                                                    |
//+------------------------------------------------------------------+
bool initAllDataGPU(int &clCtx,       // context
                    int &clMemIn1,    // first (input) buffer
                    int &clMemIn2,    // second (input) buffer
                    int &clMemOut)    // third (output) buffer
  {
   clMemIn1=clMemIn2=clMemOut=MQLCL_INVALID_HANDLE;
   clCtx=mqlcl::CLContextCreate(_device);
   if(clCtx==MQLCL_INVALID_HANDLE)
     {
      mqlclPrintError("CLContextCreate("+i2s(_device)+")");
      string devices;
      if(mqlclGetInfoString(0,MQLCL_CL_DEVICE_LIST,devices))
         Print("the devices are:\n"+devices);
      return(false);
     }

//--- create all three buffers for the three matrices
   clMemIn1=mqlcl::CLBufferCreate(clCtx,ROWS1   *COLSROWS*sizeof(REALTYPE),MQLCL_MEM_READ_ONLY);
   clMemIn2=mqlcl::CLBufferCreate(clCtx,COLSROWS*COLS2   *sizeof(REALTYPE),MQLCL_MEM_READ_ONLY);
   clMemOut=mqlcl::CLBufferCreate(clCtx,ROWS1   *COLS2   *sizeof(REALTYPE),MQLCL_MEM_READ_WRITE);
   if(clMemIn1==MQLCL_INVALID_HANDLE || clMemIn2==MQLCL_INVALID_HANDLE || clMemOut==MQLCL_INVALID_HANDLE)
     {
      mqlclPrintError("CLBufferCreate");
      destroyOpenCL(clCtx,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }

//--- write the generated matrices to the device buffers (the GEMM does not read the output)
   if(mqlclBufferWrite(clMemIn1,first)!=(uint)ArraySize(first) ||
      mqlclBufferWrite(clMemIn2,second)!=(uint)ArraySize(second))
     {
      mqlclPrintError("CLBufferWrite");
      destroyOpenCL(clCtx,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }

//--- the first product builds the kernels; reading its time waits for it to finish
   if(!executeGPU(clMemIn1,clMemIn2,clMemOut))
     {
      destroyOpenCL(clCtx,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }
   if(mqlcl::CLGetInfoInteger(clCtx,MQLCL_CL_GEMM_EXECUTION_TIME)<0)
     {
      mqlclPrintError("CLGetInfoInteger(CL_GEMM_EXECUTION_TIME)");
      destroyOpenCL(clCtx,clMemIn1,clMemIn2,clMemOut);
      return(false);
     }
   return(true);
  }
//+------------------------------------------------------------------+
//| executeGPU: thirdGPU = first x second, one call                  |
//+------------------------------------------------------------------+
bool executeGPU(int clMemIn1,int clMemIn2,int clMemOut)
  {
   int type=(sizeof(REALTYPE)==sizeof(double) ? MQLCL_GEMM_DOUBLE : MQLCL_GEMM_FLOAT);
   bool ex=mqlclGemm(clMemIn1,clMemIn2,clMemOut,ROWS1,COLS2,COLSROWS,type);
   if(!ex)
      mqlclPrintError("CLGemm");
   return(ex);
  }
//+------------------------------------------------------------------+
//| checkRandom                                                      |
//| random check of calculation accuracy                             |
//+------------------------------------------------------------------+
void checkRandom(REALTYPE &buf[],int rows,int cols)
  {
   int r0 = genRnd( rows );
   int c0 = genRnd( cols );

   REALTYPE sum=0.0;
   for(int runningIdx=0; runningIdx<COLSROWS; runningIdx++)
      sum+=first[r0*COLSROWS+runningIdx]*
           second[runningIdx*COLS2+c0];
//--- element of the buffer m[]
   REALTYPE bufElement=buf[r0*COLS2+c0];
//--- element of the matrix not calculated in OpenCL
   REALTYPE CPUElement=thirdCPU[r0*COLS2+c0];
   Print("sum( "+i2s(r0)+","+i2s(c0)+" ) = "+d2s(sum,8)+
         ";    thirdCPU[ "+i2s(r0)+","+i2s(c0)+" ] = "+d2s(CPUElement,8)+
         ";    buf[ "+i2s(r0)+","+i2s(c0)+" ] = "+d2s(bufElement,8));
  }
//+------------------------------------------------------------------+
//| destroyOpenCL                                                    |
//+------------------------------------------------------------------+
void destroyOpenCL(int clCtx,int clMemIn1,int clMemIn2,int clMemOut)
  {
//--- destroy all that was created for calculations on the OpenCL device in reverse order
   if(clMemIn1!=MQLCL_INVALID_HANDLE) mqlcl::CLBufferFree(clMemIn1);
   if(clMemIn2!=MQLCL_INVALID_HANDLE) mqlcl::CLBufferFree(clMemIn2);
   if(clMemOut!=MQLCL_INVALID_HANDLE) mqlcl::CLBufferFree(clMemOut);
   if(clCtx!=MQLCL_INVALID_HANDLE)    mqlcl::CLContextFree(clCtx);
  }
//+------------------------------------------------------------------+
