/* matr_mul_sum_local.cl - section 2.4, Listing 4: the dot product is summed in a private
   variable and written to global memory once, instead of += on out[] in every iteration.
   Layouts as matr_mul_1dim_coalesced (in2 column-major); a 2-D range of ROWS1 x COLS2.
   Changed from the listing: sizes and type as build options (-DCOLS2, -DCOLSROWS, -DREALTYPE). */
#ifndef COLS2
#define COLS2     2000
#endif
#ifndef COLSROWS
#define COLSROWS  2000
#endif
#ifndef REALTYPE
#define REALTYPE  float
#endif
/* double needs cl_khr_fp64; enabling it where the device has it leaves float kernels as they are */
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel void matricesMul( __global REALTYPE *in1,
                           __global REALTYPE *in2,
                           __global REALTYPE *out  )
{
  int r = get_global_id( 0 );
  int c = get_global_id( 1 );
  REALTYPE sum = 0.0;
  for( int cr = 0; cr < COLSROWS; cr ++ )
     sum += in1[ r * COLSROWS + cr ] * in2[ cr + c * COLSROWS ];
  out[ r * COLS2 + c ] = sum;
}
