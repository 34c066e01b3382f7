//+------------------------------------------------------------------+
//|                                                    ArrayMath.mqh |
//+------------------------------------------------------------------+
// Element-wise array forms of MQL5's math functions under the built-ins' own names, as the
// standard library's Math/Stat/Math.mqh declares them: MathSin(x) of a number stays the built-in,
// MathSin(a,r) of arrays is this file's. Written for mqlcl's tests and stored as MetaQuotes stores
// its include files: UTF-16LE with a byte-order mark, CRLF lines.
#define ARRAY_MATH_CHECK(array,result) if(ArrayResize(result,ArraySize(array))!=ArraySize(array)) return(false)
//+------------------------------------------------------------------+
bool MathSin(const double &array[],double &result[])
  {
   ARRAY_MATH_CHECK(array,result);
   for(int i=0; i<ArraySize(array); i++)
      result[i]=MathSin(array[i]);
   return(true);
  }
//+------------------------------------------------------------------+
bool MathCos(const double &array[],double &result[])
  {
   ARRAY_MATH_CHECK(array,result);
   for(int i=0; i<ArraySize(array); i++)
      result[i]=MathCos(array[i]);
   return(true);
  }
//+------------------------------------------------------------------+
bool MathSqrt(const double &array[],double &result[])
  {
   ARRAY_MATH_CHECK(array,result);
   for(int i=0; i<ArraySize(array); i++)
      result[i]=MathSqrt(array[i]);
   return(true);
  }
//+------------------------------------------------------------------+
bool MathPow(const double &array[],const double power,double &result[])
  {
   ARRAY_MATH_CHECK(array,result);
   for(int i=0; i<ArraySize(array); i++)
      result[i]=MathPow(array[i],power);
   return(true);
  }
//+------------------------------------------------------------------+
//| The sum of the elements, in the elements' type                   |
//+------------------------------------------------------------------+
template<typename T>
T MathSum(const T &array[])
  {
   T sum=0;
   for(int i=0; i<ArraySize(array); i++)
      sum+=array[i];
   return(sum);
  }
//+------------------------------------------------------------------+
//| The largest |a[i] - b[i]|                                        |
//+------------------------------------------------------------------+
template<typename T>
T MathMaxDifference(const T &a[],const T &b[])
  {
   T largest=0;
   for(int i=0; i<ArraySize(a) && i<ArraySize(b); i++)
      largest=MathMax(largest,MathAbs(a[i]-b[i]));
   return(largest);
  }
//+------------------------------------------------------------------+
