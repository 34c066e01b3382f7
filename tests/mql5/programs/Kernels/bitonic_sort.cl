// One step of a bitonic sorting network over `data`, whose length is a power of two, one
// work-item per element: the pairs `distance` apart are put in the order their block of
// `block` elements asks for (ascending where the index's `block` bit is 0, else descending).
// The program defines TYPE (float or double) and, for double, TYPE_IS_DOUBLE.
#ifdef TYPE_IS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel void bitonic_step(__global TYPE *data, const uint block, const uint distance)
{
   uint i = get_global_id(0);
   uint partner = i ^ distance;
   if (partner <= i)
      return;
   TYPE low = data[i], high = data[partner];
   bool ascending = (i & block) == 0;
   if ((low > high) == ascending && low != high) {
      data[i] = high;
      data[partner] = low;
   }
}
