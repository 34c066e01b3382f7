//+------------------------------------------------------------------+
//|                                                    band_scan.mq5 |
//+------------------------------------------------------------------+
// Rolling means and deviations (Bollinger-style bands) of many synthetic price series at once on
// the OpenCL device, one work-item per series and bar, checked against the same loops on the
// CPU. Written against the documented interface of the standard library's COpenCL class only,
// with <OpenCL/OpenCL.mqh>; the #include below is the only line changed to run it on mqlcl.dll.
#property script_show_inputs
#include <mqlcl/OpenCL.mqh>

enum ENUM_PRICE_MODEL
  {
   MODEL_RANDOM_WALK,   // random walk
   MODEL_WAVE           // a wave with noise
  };

input ENUM_PRICE_MODEL InpModel=MODEL_RANDOM_WALK;   // price model
input int              InpSeries=24;                  // series
input int              InpBars=500;                   // bars per series
input int              InpWindow=20;                  // window

struct SBandStats
  {
   double            worst;
   int               compared;
   int               series_worst;
  };

COpenCL *ExtOpenCL=NULL;

string ExtKernel=
   "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\r\n"
   "__kernel void bands(__global const double *prices,__global double *means,__global double *deviations,\r\n"
   "                    int bars,int window)\r\n"
   "{\r\n"
   "   int series=get_global_id(0), bar=get_global_id(1);\r\n"
   "   int base=series*bars;\r\n"
   "   if(bar<window-1) { means[base+bar]=0; deviations[base+bar]=0; return; }\r\n"
   "   double sum=0, squares=0;\r\n"
   "   for(int k=bar-window+1; k<=bar; k++) { double p=prices[base+k]; sum+=p; squares+=p*p; }\r\n"
   "   double mean=sum/window;\r\n"
   "   means[base+bar]=mean;\r\n"
   "   deviations[base+bar]=sqrt(fmax(squares/window-mean*mean,0.0));\r\n"
   "}\r\n";

//+------------------------------------------------------------------+
//| The prices of every series, one after another                    |
//+------------------------------------------------------------------+
void MakePrices(double &prices[])
  {
   ArrayResize(prices,InpSeries*InpBars);
   MathSrand(17);
   for(int s=0; s<InpSeries; s++)
     {
      double price=100.0+s;
      for(int b=0; b<InpBars; b++)
        {
         double noise=(MathRand()-16383.5)/16384.0;
         switch(InpModel)
           {
            case MODEL_WAVE:
               price=100.0+s+5.0*MathSin(b*0.1+s)+noise;
               break;
            default:
               price+=noise;
           }
         prices[s*InpBars+b]=price;
        }
     }
  }
//+------------------------------------------------------------------+
//| The bands on the device                                          |
//+------------------------------------------------------------------+
bool BandsOnDevice(double &prices[],double &means[],double &deviations[])
  {
   int total=InpSeries*InpBars;
   ExtOpenCL=new COpenCL;
   if(!ExtOpenCL.Initialize(ExtKernel,true))
      return(false);
   if(!ExtOpenCL.SupportDouble())
     {
      Print("bands: the device has no double precision");
      return(false);
     }
   long memory=0,group=0;
   if(!ExtOpenCL.GetGlobalMemorySize(memory) || !ExtOpenCL.GetMaxWorkgroupSize(group) || memory<total*8*3)
      return(false);
   ArrayResize(means,total);
   ArrayResize(deviations,total);
   if(!ExtOpenCL.SetKernelsCount(1) || !ExtOpenCL.SetBuffersCount(3) || !ExtOpenCL.KernelCreate(0,"bands"))
      return(false);
   if(!ExtOpenCL.BufferFromArray(0,prices,0,total,CL_MEM_READ_ONLY) ||
      !ExtOpenCL.BufferCreate(1,total*sizeof(double),CL_MEM_WRITE_ONLY) ||
      !ExtOpenCL.BufferCreate(2,total*sizeof(double),CL_MEM_WRITE_ONLY))
      return(false);
   uint offsets[2]={0,0};
   uint sizes[2];
   sizes[0]=InpSeries;
   sizes[1]=InpBars;
   if(!ExtOpenCL.SetArgumentBuffer(0,0,0) || !ExtOpenCL.SetArgumentBuffer(0,1,1) ||
      !ExtOpenCL.SetArgumentBuffer(0,2,2) || !ExtOpenCL.SetArgument(0,3,InpBars) ||
      !ExtOpenCL.SetArgument(0,4,InpWindow) || !ExtOpenCL.Execute(0,2,offsets,sizes))
      return(false);
   bool read=ExtOpenCL.BufferRead(1,means,0,0,total) && ExtOpenCL.BufferRead(2,deviations,0,0,total);
   string kernel=ExtOpenCL.GetKernelName(0);
   ExtOpenCL.KernelFree(0);
   PrintFormat("kernel %s freed, name kept: %s",kernel,ExtOpenCL.GetKernelName(0)==kernel ? "true" : "false");
   return(read && ExtOpenCL.BufferFree(0) && ExtOpenCL.BufferFree(1) && ExtOpenCL.BufferFree(2));
  }
//+------------------------------------------------------------------+
//| The largest difference from the same loops on the CPU            |
//+------------------------------------------------------------------+
SBandStats Compare(double &prices[],double &means[],double &deviations[])
  {
   SBandStats stats;
   stats.worst=0;
   stats.compared=0;
   stats.series_worst=-1;
   for(int s=0; s<InpSeries; s++)
      for(int b=InpWindow-1; b<InpBars; b++)
        {
         double sum=0,squares=0;
         int k=b-InpWindow+1;
         while(k<=b)
           {
            double p=prices[s*InpBars+k];
            sum+=p;
            squares+=p*p;
            k++;
           }
         double mean=sum/InpWindow;
         double deviation=MathSqrt(MathMax(squares/InpWindow-mean*mean,0.0));
         double difference=MathMax(MathAbs(mean-means[s*InpBars+b]),MathAbs(deviation-deviations[s*InpBars+b]));
         if(difference>stats.worst)
           {
            stats.worst=difference;
            stats.series_worst=s;
           }
         stats.compared++;
        }
   return(stats);
  }
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   double prices[],means[],deviations[];
   MakePrices(prices);
   bool done=BandsOnDevice(prices,means,deviations);
   if(CheckPointer(ExtOpenCL)==POINTER_DYNAMIC)
     {
      ExtOpenCL.Shutdown();
      delete ExtOpenCL;
      ExtOpenCL=NULL;
     }
   if(!done)
     {
      Print("bands: failed on the device");
      return;
     }
   SBandStats stats=Compare(prices,means,deviations);
   string model=(InpModel==MODEL_WAVE ? "wave" : "random walk");
   Print("bands: ",InpSeries," series of ",InpBars," bars, window ",InpWindow,", ",model,", ",stats.compared,
         " values compared, max difference ",DoubleToString(stats.worst,12));
  }
//+------------------------------------------------------------------+
