//+------------------------------------------------------------------+
//|                                          mqlcl_gemm_wrappers.mq5 |
//+------------------------------------------------------------------+
// A test of tests/mql5, not shipped: mqlcl.mqh's GEMM wrappers through MQL5's matrix types -
// products against an fp64 loop, buffers kept and reused, and bad input (shapes that do not
// multiply, freed buffers, buffers too small). test_mql5_replay reads the lines it prints.
#property script_show_inputs

input int _device=0;        // OpenCL device ordinal

#include <mqlcl/mqlcl.mqh>
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   int ctx=mqlcl::CLContextCreate(_device);
   if(ctx==MQLCL_INVALID_HANDLE)
     {
      mqlclPrintError("CLContextCreate");
      return;
     }
   floatProducts(ctx);
   doubleProduct(ctx);
   badInput(ctx);
   mqlcl::CLContextFree(ctx);
  }
//+------------------------------------------------------------------+
//| floatProducts: 37 x 19 times 19 x 23 with buffers made for the   |
//| call, then twice with buffers kept, then a larger product in the |
//| same buffers                                                     |
//+------------------------------------------------------------------+
void floatProducts(const int ctx)
  {
   matrixf a;
   matrixf b;
   matrixf c;
   fillf(a,37,19,1);
   fillf(b,19,23,2);
   bool done=mqlclMatMul(ctx,a,b,c);
   report("matrixf",done,c.Rows(),c.Cols(),errorf(a,b,c));

   int buffers[3]={MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE};
   done=mqlclMatMul(ctx,a,b,c,buffers);
   int first_c=buffers[2];
   done=done && mqlclMatMul(ctx,a,b,c,buffers);
   Print("kept: ",done,", objects ",objects(),", the same C buffer ",buffers[2]==first_c);
   fillf(a,64,65,3);
   fillf(b,65,66,4);
   done=mqlclMatMul(ctx,a,b,c,buffers);
   report("matrixf larger",done,c.Rows(),c.Cols(),errorf(a,b,c));
   Print("larger: objects ",objects(),", a new C buffer ",buffers[2]!=first_c);
   mqlclBuffersFree(buffers);
   Print("freed: objects ",objects(),", ",buffers[0]," ",buffers[1]," ",buffers[2]);
  }
//+------------------------------------------------------------------+
//| doubleProduct: a matrix (double) product, where the device has   |
//| fp64; elsewhere the DLL's refusal                                |
//+------------------------------------------------------------------+
void doubleProduct(const int ctx)
  {
   matrix a;
   matrix b;
   matrix c;
   fill(a,7,37,5);
   fill(b,37,1,6);
   bool done=mqlclMatMul(ctx,a,b,c,MQLCL_GEMM_EXACT);
   Print("fp64 ",mqlcl::CLGetInfoInteger(ctx,MQLCL_CL_DEVICE_DOUBLE_SUPPORT));
   if(done)
      report("matrix",done,c.Rows(),c.Cols(),error(a,b,c));
   else
      failure("matrix");
  }
//+------------------------------------------------------------------+
//| badInput: each refusal's result, code and message                |
//+------------------------------------------------------------------+
void badInput(const int ctx)
  {
   matrixf a;
   matrixf b;
   matrixf c;
   fillf(a,3,4,7);
   fillf(b,5,2,8);
   fillf(c,1,1,9);
   long before=objects();
   bool done=mqlclMatMul(ctx,a,b,c);
   failure("mismatched shapes");
   Print("mismatched shapes: c ",c.Rows()," x ",c.Cols(),", objects ",objects()-before);

//--- buffers[] holding a buffer freed behind the wrapper's back
   fillf(b,4,2,8);
   int buffers[3]={MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE};
   done=mqlclMatMul(ctx,a,b,c,buffers);
   mqlcl::CLBufferFree(buffers[1]);
   done=mqlclMatMul(ctx,a,b,c,buffers);
   failure("a freed buffer in buffers[]");
   mqlclBuffersFree(buffers);
   int short_array[2]={MQLCL_INVALID_HANDLE,MQLCL_INVALID_HANDLE};
   done=mqlclMatMul(ctx,a,b,c,short_array);
   failure("buffers[] of 2");

//--- the buffer-handle wrapper
   int ba=mqlcl::CLBufferCreate(ctx,12*4,MQLCL_MEM_READ_ONLY);
   int bb=mqlcl::CLBufferCreate(ctx,8*4,MQLCL_MEM_READ_ONLY);
   int bc=mqlcl::CLBufferCreate(ctx,6*4,MQLCL_MEM_READ_WRITE);
   done=mqlclGemm(ba,bb,bc,3,2,4);
   Print("mqlclGemm 3 x 2 x 4: ",done);
   done=mqlclGemm(ba,bb,bc,3,2,5);
   failure("mqlclGemm with k past the buffers");
   mqlcl::CLBufferFree(bb);
   done=mqlclGemm(ba,bb,bc,3,2,4);
   failure("mqlclGemm on a freed buffer");
   mqlcl::CLBufferFree(ba);
   mqlcl::CLBufferFree(bc);
   Print("bad input: objects ",objects()-before);
  }
//+------------------------------------------------------------------+
//| report: "<what>: <done>, c <rows> x <cols>, max error <e>"       |
//+------------------------------------------------------------------+
void report(const string what,const bool done,const ulong rows,const ulong cols,const double max_error)
  {
   Print(what,": ",done,", c ",rows," x ",cols,", max error ",DoubleToString(max_error,9));
  }
//+------------------------------------------------------------------+
//| failure: "<what>: error <code>: <the bridge's message>"          |
//+------------------------------------------------------------------+
void failure(const string what)
  {
   Print(what,": error ",mqlcl::CLGetLastError(),": ",mqlclLastErrorText());
  }
long objects()
  {
   return(mqlcl::CLGetInfoInteger(0,MQLCL_CL_OBJECT_COUNT));
  }
//+------------------------------------------------------------------+
//| fillf, fill: rows x cols of small distinct values                |
//+------------------------------------------------------------------+
void fillf(matrixf &m,const int rows,const int cols,const int seed)
  {
   m.Resize(rows,cols);
   for(int r=0; r<rows; r++)
      for(int c=0; c<cols; c++)
         m[r][c]=(float)(((r*7+c*3+seed*5)%17)-8)/8.0f;
  }
void fill(matrix &m,const int rows,const int cols,const int seed)
  {
   m.Resize(rows,cols);
   for(int r=0; r<rows; r++)
      for(int c=0; c<cols; c++)
         m[r][c]=(((r*7+c*3+seed*5)%17)-8)/8.0;
  }
//+------------------------------------------------------------------+
//| errorf, error: the largest |c - a x b| against a double loop, or |
//| -1 when c has the wrong shape                                    |
//+------------------------------------------------------------------+
double errorf(const matrixf &a,const matrixf &b,const matrixf &c)
  {
   if(c.Rows()!=a.Rows() || c.Cols()!=b.Cols())
      return(-1);
   double worst=0;
   for(ulong r=0; r<a.Rows(); r++)
      for(ulong n=0; n<b.Cols(); n++)
        {
         double sum=0;
         for(ulong k=0; k<a.Cols(); k++)
            sum+=(double)a[r][k]*(double)b[k][n];
         worst=MathMax(worst,MathAbs(sum-c[r][n]));
        }
   return(worst);
  }
double error(const matrix &a,const matrix &b,const matrix &c)
  {
   if(c.Rows()!=a.Rows() || c.Cols()!=b.Cols())
      return(-1);
   double worst=0;
   for(ulong r=0; r<a.Rows(); r++)
      for(ulong n=0; n<b.Cols(); n++)
        {
         double sum=0;
         for(ulong k=0; k<a.Cols(); k++)
            sum+=a[r][k]*b[k][n];
         worst=MathMax(worst,MathAbs(sum-c[r][n]));
        }
   return(worst);
  }
//+------------------------------------------------------------------+
