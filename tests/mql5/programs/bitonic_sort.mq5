//+------------------------------------------------------------------+
//|                                                 bitonic_sort.mq5 |
//+------------------------------------------------------------------+
// Sorts random values on the OpenCL device with a bitonic sorting network, once in float and once
// in double, through the standard library's COpenCL class, and checks the device's order against
// ArraySort's on the CPU. Written for <OpenCL/OpenCL.mqh>: the #include below is the only line
// that differs from that version.
#property script_show_inputs
#include <mqlcl/OpenCL.mqh>
#resource "Kernels\\bitonic_sort.cl" as string cl_bitonic

input int InpPower=12;   // 2^12 values
input int InpSeed=42;    // MathSrand seed

//+------------------------------------------------------------------+
//| A bitonic sort of one element type on the device                 |
//+------------------------------------------------------------------+
class CBitonicSort
  {
private:
   COpenCL           m_cl;
   string            m_type;
   ulong             m_microseconds;
   int               m_launches;
   bool              Step(const uint count,const uint block,const uint distance);
public:
                     CBitonicSort(void) : m_type(""),m_microseconds(0),m_launches(0) {}
   bool              Init(const string type);
   void              Deinit(void);
   ulong             Microseconds(void) const { return(m_microseconds); }
   int               Launches(void) const { return(m_launches); }
   //--- sorts values[] (a power of two of them) ascending on the device
   template<typename T>
   bool              Sort(T &values[])
     {
      uint count=(uint)ArraySize(values);
      ulong start=GetMicrosecondCount();
      if(!m_cl.BufferFromArray(0,values,0,count,CL_MEM_READ_WRITE) || !m_cl.SetArgumentBuffer(0,0,0))
         return(false);
      for(uint block=2; block<=count; block<<=1)
         for(uint distance=block>>1; distance>0; distance>>=1)
            if(!Step(count,block,distance))
               return(false);
      bool done=m_cl.BufferRead(0,values,0,0,count);
      m_microseconds=GetMicrosecondCount()-start;
      return(done);
     }
  };
//+------------------------------------------------------------------+
//| The kernel for `type`: float, or double where the device has it  |
//+------------------------------------------------------------------+
bool CBitonicSort::Init(const string type)
  {
   m_type=type;
   if(!m_cl.ContextCreate(CL_USE_ANY))
      return(false);
   if(type=="double" && !m_cl.SupportDouble())
     {
      Print("double: the device has no double precision");
      return(false);
     }
   string defines="#define TYPE "+type+"\r\n";
   if(type=="double")
      defines+="#define TYPE_IS_DOUBLE\r\n";
   return(m_cl.ProgramCreate(defines+cl_bitonic) && m_cl.SetKernelsCount(1) && m_cl.SetBuffersCount(1) &&
          m_cl.KernelCreate(0,"bitonic_step"));
  }
//+------------------------------------------------------------------+
void CBitonicSort::Deinit(void)
  {
   m_cl.Shutdown();
  }
//+------------------------------------------------------------------+
//| One step of the network over all values                          |
//+------------------------------------------------------------------+
bool CBitonicSort::Step(const uint count,const uint block,const uint distance)
  {
   uint offset[1]={0};
   uint size[1];
   size[0]=count;
   m_launches++;
   return(m_cl.SetArgument(0,1,block) && m_cl.SetArgument(0,2,distance) && m_cl.Execute(0,1,offset,size));
  }
//+------------------------------------------------------------------+
//| Whether values[] ascends                                         |
//+------------------------------------------------------------------+
template<typename T>
bool Ascending(T &values[])
  {
   for(int i=1; i<ArraySize(values); i++)
      if(values[i-1]>values[i])
         return(false);
   return(true);
  }
//+------------------------------------------------------------------+
//| The first index where a[] and b[] differ, -1 where none does     |
//+------------------------------------------------------------------+
template<typename T>
int FirstDifference(T &a[],T &b[])
  {
   for(int i=0; i<ArraySize(a) && i<ArraySize(b); i++)
      if(a[i]!=b[i])
         return(i);
   return(ArraySize(a)==ArraySize(b) ? -1 : MathMin(ArraySize(a),ArraySize(b)));
  }
//+------------------------------------------------------------------+
//| The device's order against the CPU's                             |
//+------------------------------------------------------------------+
template<typename T>
void Report(const string type,const T &device[],const T &host[],CBitonicSort &sorter)
  {
   string label=type;
   StringToUpper(label);
   PrintFormat("%s: %d values, %d launches, %I64u us; ascending %s, first difference from ArraySort %d",label,
               ArraySize(device),sorter.Launches(),sorter.Microseconds(),Ascending(device) ? "true" : "false",
               FirstDifference(device,host));
  }
//+------------------------------------------------------------------+
//| Script program start function                                    |
//+------------------------------------------------------------------+
void OnStart()
  {
   MathSrand(InpSeed);
   int count=1<<InpPower;
   float  singles[],singles_sorted[];
   double doubles[],doubles_sorted[];
   if(ArrayResize(singles,count)!=count || ArrayResize(doubles,count)!=count)
      return;
   for(int i=0; i<count; i++)
     {
      singles[i]=(float)((MathRand()-16384)/128.0);
      doubles[i]=MathRand()*32768.0+MathRand()-5.0e8;
     }
   ArrayCopy(singles_sorted,singles);
   ArrayCopy(doubles_sorted,doubles,0,0,WHOLE_ARRAY);
   ArraySort(singles_sorted);
   ArraySort(doubles_sorted);
   CBitonicSort sorter;
   if(sorter.Init("float") && sorter.Sort(singles))
      Report("float",singles,singles_sorted,sorter);
   else
      Print("float: the sort failed");
   sorter.Deinit();
   CBitonicSort sorter_double;
   if(sorter_double.Init("double") && sorter_double.Sort(doubles))
      Report("double",doubles,doubles_sorted,sorter_double);
   sorter_double.Deinit();
  }
//+------------------------------------------------------------------+
