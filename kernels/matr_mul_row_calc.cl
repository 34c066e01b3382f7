/* matr_mul_row_calc.cl - section 2.5, Listing 5: each work-item computes a whole row of the
   product, so the range becomes 1-D: ROWS1 work-items. in2 column-major as before.
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
  REALTYPE sum;
  for( int c = 0; c < COLS2; c ++ )
  {
     sum = 0.0;
     for( int cr = 0; cr < COLSROWS; cr ++ )
        sum += in1[ r * COLSROWS + cr ] * in2[ cr + c * COLSROWS ];
     out[ r * COLS2 + c ] = sum;
  }
}
