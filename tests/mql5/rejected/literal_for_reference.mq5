//+------------------------------------------------------------------+
//|                                        literal_for_reference.mq5 |
//+------------------------------------------------------------------+
// MetaEditor refuses this program: a DLL import takes the value by reference, and MQL5 passes no
// literal to a reference ("parameter passed as reference, variable expected"). mql5-translate
// must refuse it too (tests/mql5/CMakeLists.txt).
#include <mqlcl/mqlcl.mqh>

void OnStart()
  {
   mqlcl::CLSetKernelArg(1,2,0.5);
  }
