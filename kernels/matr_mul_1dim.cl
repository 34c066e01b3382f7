/* matr_mul_1dim.cl - the article's first OpenCL kernel (section 2.2, Listing 2).
   One work-item per element of the product: a 2-D range of ROWS1 x COLS2 work-items, each running
   the inner loop over COLSROWS. All three matrices are row-major: in1 is ROWS1 x COLSROWS, in2 is
   COLSROWS x COLS2, out is ROWS1 x COLS2 (the host zeroes it first; the kernel adds into it).
   Changed from the listing: the sizes and the type come in as build options
   (-DCOLS2=... -DCOLSROWS=... -DREALTYPE=float) instead of #defines glued into the source string;
   the defaults below keep the file valid OpenCL C on its own (an MQL5 #resource, say). */
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
              in1[ r * COLSROWS + cr ] * in2[ cr * COLS2 + c ];
}
