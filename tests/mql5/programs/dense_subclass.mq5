//+------------------------------------------------------------------+
//|                                               dense_subclass.mq5 |
//+------------------------------------------------------------------+
// A dense layer, y = tanh(x w + b), for a batch on the OpenCL device through a subclass of the
// standard library's COpenCL that adds its buffers at run time - the way neural-network code
// extends the class - checked against MQL5's own matrix methods on the CPU. Written for
// <OpenCL/OpenCL.mqh>: the #include below is the only line that differs from that version.
#include <mqlcl/OpenCL.mqh>
#resource "Kernels\\dense_layer.cl" as string cl_dense

#define INPUTS  16
#define OUTPUTS 8
#define BATCH   32

int g_built=0;   // layers built, counted by the subclass

//+------------------------------------------------------------------+
//| COpenCL with buffer slots added one at a time                    |
//+------------------------------------------------------------------+
class CLayerOpenCL : public COpenCL
  {
public:
   bool              Build(void);
   int               AddBuffer(const uint bytes,const uint flags);
   bool              Forward(const int x,const int w,const int b,const int y,const uint rows);
   int               Buffers(void) const { return(m_buffers_total); }
   //--- a slot holding the matrix, added at run time
   template<typename T>
   int               AddMatrix(matrix<T> &values,const uint flags)
     {
      int index=AddBuffer((uint)(values.Rows()*values.Cols()*sizeof(T)),flags);
      if(index==INVALID_HANDLE || !this.BufferFromMatrix(index,values,flags))
         return(INVALID_HANDLE);
      return(index);
     }
  };
//+------------------------------------------------------------------+
bool CLayerOpenCL::Build(void)
  {
   g_built++;
   return(Initialize(cl_dense,true) && SetKernelsCount(1) && KernelCreate(0,"dense_tanh"));
  }
//+------------------------------------------------------------------+
//| One more buffer slot, with a buffer of `bytes`; its index        |
//+------------------------------------------------------------------+
int CLayerOpenCL::AddBuffer(const uint bytes,const uint flags)
  {
   int index=m_buffers_total;
   if(ArrayResize(m_buffers,index+1)!=index+1)
      return(INVALID_HANDLE);
   m_buffers[index]=INVALID_HANDLE;
   m_buffers_total=index+1;
   if(!BufferCreate(index,bytes,flags))
      return(INVALID_HANDLE);
   return(index);
  }
//+------------------------------------------------------------------+
bool CLayerOpenCL::Forward(const int x,const int w,const int b,const int y,const uint rows)
  {
   uint offset[2]={0,0};
   uint size[2];
   size[0]=rows;
   size[1]=OUTPUTS;
   return(SetArgumentBuffer(0,0,x) && SetArgumentBuffer(0,1,w) && SetArgumentBuffer(0,2,b) &&
          SetArgumentBuffer(0,3,y) && SetArgument(0,4,INPUTS) && SetArgument(0,5,OUTPUTS) &&
          this.Execute(0,2,offset,size));
  }
//+------------------------------------------------------------------+
//| Values in [-1, 1)                                                |
//+------------------------------------------------------------------+
void Fill(matrixf &m)
  {
   for(ulong r=0; r<m.Rows(); r++)
      for(ulong c=0; c<m.Cols(); c++)
         m[r][c]=(float)(MathRand()/16384.0-1.0);
  }
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   MathSrand(11);
   matrixf x(BATCH,INPUTS);
   matrixf w(INPUTS,OUTPUTS);
   matrixf bias,device,host;
   bias.Init(1,OUTPUTS);
   Fill(x);
   Fill(w);
   Fill(bias);
   CLayerOpenCL layer;
   if(!layer.Build())
     {
      Print("dense: the kernel was not built");
      return;
     }
   int bx=layer.AddMatrix(x,CL_MEM_READ_ONLY);
   int bw=layer.AddMatrix(w,CL_MEM_READ_ONLY);
   int bb=layer.AddMatrix(bias,CL_MEM_READ_ONLY);
   int by=layer.AddBuffer(BATCH*OUTPUTS*sizeof(float),CL_MEM_WRITE_ONLY);
   if(bx==INVALID_HANDLE || bw==INVALID_HANDLE || bb==INVALID_HANDLE || by==INVALID_HANDLE ||
      !layer.Forward(bx,bw,bb,by,BATCH) || !layer.BufferToMatrix(by,device,BATCH,OUTPUTS))
     {
      Print("dense: the layer failed");
      layer.Shutdown();
      return;
     }
//--- the CPU: x w + b, through the matrix methods
   host=x.MatMul(w);
   matrixf ones=matrixf::Ones(BATCH,1);
   host=host+ones.MatMul(bias);
   for(ulong r=0; r<host.Rows(); r++)
      for(ulong c=0; c<host.Cols(); c++)
         host[r][c]=(float)MathTanh(host[r][c]);
   matrixf difference=device-host;
   float error=MathMax(difference.Max(),-difference.Min());
   PrintFormat("dense: %d x %d by %d x %d, %d buffers added at run time, %d built, transposed w %d x %d; max error %.3e",
               BATCH,INPUTS,INPUTS,OUTPUTS,layer.Buffers(),g_built,w.Transpose().Rows(),w.Transpose().Cols(),error);
   layer.Shutdown();
  }
//+------------------------------------------------------------------+
