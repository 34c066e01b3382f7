//+------------------------------------------------------------------+
//|                                      matr_mul_row_in_private.mq5 |
//+------------------------------------------------------------------+
// Article 407, 2.6, listing 6: the work-item's row of the first matrix is copied into private
// memory first
// Kernel: kernels/matr_mul_row_in_private.cl (a #resource: the text is compiled into the .ex5)
#property script_show_inputs
#resource "Kernels/matr_mul_row_in_private.cl" as string clSrc

#define ROWS1       2000      // rows in the first matrix
#define COLSROWS    2000      // columns in the first matrix = rows in the second matrix
#define COLS2       2000      // columns in the second matrix
#define REALTYPE    float

REALTYPE first[];           // first linear buffer (matrix)     rows1 * colsrows
REALTYPE second[];          // second buffer                    colsrows * cols2
REALTYPE thirdGPU[];        // product - also a buffer          rows1 * cols2
REALTYPE thirdCPU[];        // product - also a buffer          rows1 * cols2

input int _device=0;        // OpenCL device ordinal (see MQLCL_CL_DEVICE_LIST)

#include <mqlcl/matr_mul.mqh>
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
   int clPrg;             // handle to the program on the device
   int clKrn;             // kernel handle
   int clMemIn1;          // first (input) buffer handle
   int clMemIn2;          // second (input) buffer handle
   int clMemOut;          // third (output) buffer handle
   if(!initAllDataGPU(clCtx,clPrg,clKrn,clMemIn1,clMemIn2,clMemOut))
      return;             // it printed why and freed what it had made

//--- start calculating total OCL code runtime
   st=GetTickCount();

//--- CLExecute only enqueues: the read below waits for the kernel
   bool done=executeGPU(clKrn);

//--- create a buffer for reading and read the result; we will need it later
   REALTYPE buf[];
   if(done)
      done=readOutBuf(clMemOut,buf);

//--- stop calculating the total program runtime
//--- together with the time required for retrieval of data from GPU and transferring it back to RAM
   double timeGPUTotal=(GetTickCount()-st)/1000.;
   if(!done)
     {
      destroyOpenCL(clCtx,clPrg,clKrn,clMemIn1,clMemIn2,clMemOut);
      return;
     }
   Print("OpenCL total: time = "+d2s(timeGPUTotal,3)+" sec.");
   mqlclPrintBridgeLines(clKrn,flopCount());

   destroyOpenCL(clCtx,clPrg,clKrn,clMemIn1,clMemIn2,clMemOut);

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
//| column-major order: second[r][c] = buffer[r + c * COLSROWS]      |
//+------------------------------------------------------------------+
void genMatrices()
  {
   for(int r=0; r<ROWS1; r++)
      for(int c=0; c<COLSROWS; c++)
         first[r*COLSROWS+c]=genVal();

   for(int r=0; r<COLSROWS; r++)
      for(int c=0; c<COLS2; c++)
         second[r+c*COLSROWS]=genVal();
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
            thirdCPU[r*COLS2+c]+=first[r*COLSROWS+cr]*second[cr+c*COLSROWS];
  }
//+------------------------------------------------------------------+
//| executeGPU                                                       |
//+------------------------------------------------------------------+
bool executeGPU(int clKrn)
  {
//--- set the workspace parameters for the task and execute the OpenCL program
   uint offs[1]  = { 0 };
   uint works[1] = { ROWS1 };
   bool ex=mqlclExecute(clKrn,1,offs,works);
   if(!ex)
      mqlclPrintError("CLExecute");
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
           second[runningIdx+c0*COLSROWS];
//--- element of the buffer m[]
   REALTYPE bufElement=buf[r0*COLS2+c0];
//--- element of the matrix not calculated in OpenCL
   REALTYPE CPUElement=thirdCPU[r0*COLS2+c0];
   Print("sum( "+i2s(r0)+","+i2s(c0)+" ) = "+d2s(sum,8)+
         ";    thirdCPU[ "+i2s(r0)+","+i2s(c0)+" ] = "+d2s(CPUElement,8)+
         ";    buf[ "+i2s(r0)+","+i2s(c0)+" ] = "+d2s(bufElement,8));
  }
//+------------------------------------------------------------------+
