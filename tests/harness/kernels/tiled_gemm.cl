/* tiled_gemm.cl - not an article step: a small blocked kernel in the shape later steps will take,
   used by tests/harness/test_replays.cpp to exercise the catalogue's extension points: a step
   parameter (-DTS), padding to whole tiles, int size arguments, two __local arguments and a
   geometry function. A is row-major, B column-major, C row-major; all sizes are multiples of TS. */
#ifndef TS
#define TS 8
#endif
#ifndef REALTYPE
#define REALTYPE float
#endif
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel void tiledMul(__global const REALTYPE *a, __global const REALTYPE *b,
                       __global REALTYPE *c, int rows, int inner, int cols,
                       __local REALTYPE *a_tile, __local REALTYPE *b_tile)
{
  int lr = get_local_id(0), lc = get_local_id(1);
  int r = get_global_id(0), col = get_global_id(1);
  REALTYPE sum = 0;
  for (int t = 0; t < inner; t += TS) {
    a_tile[lr * TS + lc] = a[r * inner + t + lc];
    b_tile[lr * TS + lc] = b[(t + lr) + (get_group_id(1) * TS + lc) * inner];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TS; ++k)
      sum += a_tile[lr * TS + k] * b_tile[k * TS + lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (r < rows && col < cols)
    c[r * cols + col] = sum;
}
