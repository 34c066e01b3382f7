//+------------------------------------------------------------------+
//|                                             matr_mul_host.mqh    |
//|  What every script of "OpenCL: From Naive Towards More           |
//|  Insightful Programming" (mql5.com/en/articles/407) shares,      |
//|  whatever computes the product on the device: the matrices, the  |
//|  log's first lines, the read of the result. A script defines     |
//|  ROWS1, COLSROWS, COLS2, REALTYPE, the arrays first[], second[], |
//|  thirdGPU[], thirdCPU[] and input _device, includes this file    |
//|  (or matr_mul.mqh, which adds a kernel's plumbing), and writes   |
//|  genMatrices.                                                    |
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
//| flopCount: 2 * ROWS1 * COLSROWS * COLS2 operations (one multiply |
//| and one add per term of every scalar product)                    |
//+------------------------------------------------------------------+
double flopCount()
  {
   return(2.0*ROWS1*COLSROWS*COLS2);
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
