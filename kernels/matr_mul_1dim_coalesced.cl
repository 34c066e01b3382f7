/* matr_mul_1dim_coalesced.cl - section 2.3, Listing 3: coalesced access to the second matrix.
   As matr_mul_1dim, but in2 is stored column-major (element [cr][c] at cr + c * COLSROWS), so the
   inner loop reads both inputs contiguously. The host fills and checks in2 in that layout.
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
  for( int cr = 0; cr < COLSROWS; cr ++ )
     out[ r * COLS2 + c ] +=
              in1[ r * COLSROWS + cr ] * in2[ cr + c * COLSROWS ];
}
