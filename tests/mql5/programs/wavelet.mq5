//+------------------------------------------------------------------+
//|                                                      wavelet.mq5 |
//+------------------------------------------------------------------+
// A multi-level Haar wavelet transform of a noisy step signal on the OpenCL device, one launch per
// level through the standard library's COpenCL class, checked against the same transform in
// double on the CPU and by the energy it keeps. Written for <OpenCL/OpenCL.mqh>: the #include
// below is the only line that differs from that version.
#property script_show_inputs
#include <mqlcl/OpenCL.mqh>
#include <Math\ArrayMath.mqh>
#resource "Kernels\\haar.cl" as string cl_haar

#define SAMPLES 2048

input int InpLevels=6;   // levels of the transform

vectorf     g_signal(SAMPLES);      // a global declared with its size
const float g_step=1.5;
int         g_runs=0;

//+------------------------------------------------------------------+
//| The transform on the device                                      |
//+------------------------------------------------------------------+
class CWavelet
  {
private:
   COpenCL           m_cl;
   int               m_levels;
public:
                     CWavelet(void) : m_levels(0) {}
   bool              Init(const int levels);
   bool              Run(const vectorf &signal,float &coefficients[]);
   void              Deinit(void);
  };
//+------------------------------------------------------------------+
bool CWavelet::Init(const int levels)
  {
   m_levels=levels;
   return(m_cl.Initialize(cl_haar,true) && m_cl.SetKernelsCount(1) && m_cl.SetBuffersCount(2) &&
          m_cl.KernelCreate(0,"haar_level"));
  }
//+------------------------------------------------------------------+
//| coefficients[]: the approximations of the last level, then the   |
//| details of each level from the last to the first                 |
//+------------------------------------------------------------------+
bool CWavelet::Run(const vectorf &signal,float &coefficients[])
  {
   int n=(int)signal.Size();
   float values[];
   ArrayResize(values,n);
   for(int i=0; i<n; i++)
      values[i]=signal[i];
   if(!m_cl.BufferFromArray(0,values,0,n,CL_MEM_READ_WRITE) ||
      !m_cl.BufferCreate(1,n*sizeof(float),CL_MEM_READ_WRITE))
      return(false);
   uint offset[1]={0};
   uint global[1];
   global[0]=(uint)n;
   int from=0;
   uint length=(uint)n;
   for(int level=0; level<m_levels; level++,length>>=1)
     {
      if(!m_cl.SetArgumentBuffer(0,0,from) || !m_cl.SetArgumentBuffer(0,1,1-from) ||
         !m_cl.SetArgument(0,2,length) || !m_cl.Execute(0,1,offset,global))
         return(false);
      from=1-from;
     }
   g_runs++;
   ArrayResize(coefficients,n);
   return(m_cl.BufferRead(from,coefficients,0,0,n));
  }
//+------------------------------------------------------------------+
void CWavelet::Deinit(void)
  {
   m_cl.Shutdown();
  }
//+------------------------------------------------------------------+
//| The same transform in double on the CPU                          |
//+------------------------------------------------------------------+
void HaarOnHost(const vectorf &signal,const int levels,double &coefficients[])
  {
   int n=(int)signal.Size();
   double scratch[];
   ArrayResize(coefficients,n);
   ArrayResize(scratch,n);
   for(int i=0; i<n; i++)
      coefficients[i]=signal[i];
   double scale=MathSqrt(0.5);
   for(int level=0,length=n; level<levels; level++,length/=2)
     {
      int half=length/2;
      for(int i=0; i<half; i++)
        {
         scratch[i]=(coefficients[2*i]+coefficients[2*i+1])*scale;
         scratch[half+i]=(coefficients[2*i]-coefficients[2*i+1])*scale;
        }
      ArrayCopy(coefficients,scratch,0,0,length);
     }
  }
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   MathSrand(5);
   for(int i=0; i<SAMPLES; i++)
      g_signal[i]=(float)((i<SAMPLES/3 ? 0.0 : g_step)+MathSin(i*0.05)+(MathRand()-16384)/65536.0);
   CWavelet wavelet;
   float device[];
   double host[],device_double[],squares[];
   if(!wavelet.Init(InpLevels) || !wavelet.Run(g_signal,device))
     {
      Print("wavelet: the transform failed");
      wavelet.Deinit();
      return;
     }
   wavelet.Deinit();
   HaarOnHost(g_signal,InpLevels,host);
   ArrayResize(device_double,SAMPLES);
   for(int i=0; i<SAMPLES; i++)
      device_double[i]=device[i];
   double error=MathMaxDifference(device_double,host);
//--- the transform is orthonormal: the coefficients keep the signal's energy
   double signal_double[];
   ArrayResize(signal_double,SAMPLES);
   for(int i=0; i<SAMPLES; i++)
      signal_double[i]=g_signal[i];
   MathPow(signal_double,2.0,squares);
   double energy_in=MathSum(squares);
   MathPow(device_double,2.0,squares);
   double energy_out=MathSum(squares);
   int approximations=SAMPLES>>InpLevels;
   PrintFormat("wavelet: %d samples, %d levels, %d approximations, %d runs; max error %.3e; energy %.4f and %.4f",
               SAMPLES,InpLevels,approximations,g_runs,error,energy_in,energy_out);
  }
//+------------------------------------------------------------------+
