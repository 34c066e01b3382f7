//+------------------------------------------------------------------+
//|                                                          fft.mq5 |
//+------------------------------------------------------------------+
// The spectrum of a test signal - two tones over a slow ramp - on the OpenCL device: a radix-2
// Stockham FFT in double precision, one launch per stage, on MQL5's complex vectors through the
// standard library's COpenCL class; checked against a direct DFT on the CPU, and drawn on the
// chart. Written for <OpenCL/OpenCL.mqh>: the #include below is the only line that differs from
// that version.
#property script_show_inputs
#include <mqlcl/OpenCL.mqh>
#include <Math\ArrayMath.mqh>
#include <Plot\Chart.mqh>
#resource "Kernels\\fft.cl" as string cl_fft

input int InpPower=10;   // 2^10 points
input int InpToneA=37;   // the first tone's frequency bin
input int InpToneB=200;  // the second's

//+------------------------------------------------------------------+
//| The FFT on the device                                            |
//+------------------------------------------------------------------+
class CFourier
  {
private:
   COpenCL           m_cl;
   uint              m_points;
   uint              m_group;
   int               m_stages;
public:
                     CFourier(void) : m_points(0),m_group(1),m_stages(0) {}
   bool              Init(const uint points);
   bool              Transform(vectorc &signal,vectorc &spectrum);
   void              Deinit(void) { m_cl.Shutdown(); }
   uint              Group(void) const { return(m_group); }
   int               Stages(void) const { return(m_stages); }
  };
//+------------------------------------------------------------------+
//| The kernel, and a work-group size from its limit                 |
//+------------------------------------------------------------------+
bool CFourier::Init(const uint points)
  {
   m_points=points;
   if(!m_cl.ContextCreate(CL_USE_ANY))
      return(false);
   if(!m_cl.SupportDouble())
     {
      Print("fft: the device has no double precision");
      return(false);
     }
   if(!m_cl.ProgramCreate(cl_fft) || !m_cl.SetKernelsCount(1) || !m_cl.SetBuffersCount(2) ||
      !m_cl.KernelCreate(0,"fft_stage"))
      return(false);
//--- the largest power of two under the kernel's work-group limit, at most 64, dividing points/2
   long limit=m_cl.GetKernelInfoInteger(0,CL_KERNEL_WORK_GROUP_SIZE);
   long local_memory=m_cl.GetDeviceInfoInteger(CL_DEVICE_LOCAL_MEM_SIZE);
   if(limit<=0 || local_memory<=0)
      return(false);
   m_group=1;
   while(m_group*2<=(uint)MathMin(limit,64) && m_group*2<=m_points/2)
      m_group*=2;
   return(true);
  }
//+------------------------------------------------------------------+
//| spectrum = DFT(signal), log2(points) launches                    |
//+------------------------------------------------------------------+
bool CFourier::Transform(vectorc &signal,vectorc &spectrum)
  {
   uint half=m_points/2;
   if(!m_cl.BufferFromVector(0,signal,CL_MEM_READ_WRITE) || !m_cl.BufferFromVector(1,signal,CL_MEM_READ_WRITE))
      return(false);
   uint offset[1]={0};
   uint global[1];
   uint local[1];
   global[0]=half;
   local[0]=m_group;
   int from=0;
   m_stages=0;
   for(uint p=1; p<=half; p<<=1)
     {
      if(!m_cl.SetArgumentBuffer(0,0,from) || !m_cl.SetArgumentBuffer(0,1,1-from) || !m_cl.SetArgument(0,2,half) ||
         !m_cl.SetArgument(0,3,p) || !m_cl.Execute(0,1,offset,global,local))
         return(false);
      from=1-from;
      m_stages++;
     }
   return(m_cl.BufferToVector(from,spectrum,m_points));
  }
//+------------------------------------------------------------------+
//| The DFT by its definition, on the CPU                            |
//+------------------------------------------------------------------+
void DirectTransform(const vectorc &signal,vectorc &spectrum)
  {
   int n=(int)signal.Size();
   spectrum.Resize(n);
   for(int f=0; f<n; f++)
     {
      double re=0,im=0;
      for(int t=0; t<n; t++)
        {
         double angle=-2.0*M_PI*(double)(((long)f*t)%n)/n;
         double c=MathCos(angle);
         double s=MathSin(angle);
         re+=signal[t].real*c-signal[t].imag*s;
         im+=signal[t].real*s+signal[t].imag*c;
        }
      complex z;
      z.real=re;
      z.imag=im;
      spectrum[f]=z;
     }
  }
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   int n=1<<InpPower;
   vectorc signal(n);
   double phase[];
   ArrayResize(phase,n);
   for(int t=0; t<n; t++)
      phase[t]=2.0*M_PI*t/n;
   double wave_a[],wave_b[],angles_b[];
   ArrayResize(angles_b,n);
   for(int t=0; t<n; t++)
      angles_b[t]=phase[t]*InpToneB;
   MathCos(angles_b,wave_b);                      // the array forms of ArrayMath.mqh
   for(int t=0; t<n; t++)
     {
      complex z;
      z.real=MathSin(phase[t]*InpToneA)+0.5*wave_b[t]+t/(double)n;
      z.imag=0;
      signal[t]=z;
     }
   CFourier fourier;
   vectorc device,host;
   ulong start=GetMicrosecondCount();
   bool done=fourier.Init(n) && fourier.Transform(signal,device);
   ulong device_us=GetMicrosecondCount()-start;
   fourier.Deinit();
   if(!done)
     {
      Print("fft: the transform failed");
      return;
     }
   DirectTransform(signal,host);
//--- the error against the DFT, relative to the largest magnitude; the magnitudes' peaks
   double power[],magnitude[],reference[];
   ArrayResize(power,n);
   ArrayResize(reference,n);
   for(int f=0; f<n; f++)
     {
      power[f]=device[f].real*device[f].real+device[f].imag*device[f].imag;
      reference[f]=MathSqrt(host[f].real*host[f].real+host[f].imag*host[f].imag);
     }
   MathSqrt(power,magnitude);
   double error=0;
   for(int f=0; f<n; f++)
      error=MathMax(error,MathMax(MathAbs(device[f].real-host[f].real),MathAbs(device[f].imag-host[f].imag)));
   double largest=reference[ArrayMaximum(reference)];
   int first=ArrayMaximum(magnitude,1,n/2-1);
   magnitude[first]=0;
   int second=ArrayMaximum(magnitude,1,n/2-1);
   PrintFormat("fft: %d points, %d stages, work-group %u, %I64u us; max error %.3e of %.3f; peaks at %d and %d",n,
               fourier.Stages(),fourier.Group(),device_us,error,largest,MathMin(first,second),MathMax(first,second));
//--- the spectrum on the chart
   CPlotChart chart;
   MathSqrt(power,magnitude);
   if(!chart.Create("fft_spectrum",640,240))
      PrintFormat("chart: not shown, error %d",GetLastError());
   PrintFormat("chart: %d points plotted",chart.Plot(magnitude,clrBlue));
   chart.Update();
   chart.Destroy();
  }
//+------------------------------------------------------------------+
