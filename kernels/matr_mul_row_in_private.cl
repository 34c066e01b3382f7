/* matr_mul_row_in_private.cl - section 2.6, Listing 6: the work-item's row of the first matrix is
   copied once into a private array, rowbuf[ COLSROWS ], and reused for every column.
   A private array of COLSROWS elements (8000 bytes at 2000 floats) cannot live in registers: GPUs
   spill it to off-chip memory. 1-D range of ROWS1 work-items; in2 column-major.
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
  REALTYPE rowbuf[ COLSROWS ];
  for( int col = 0; col < COLSROWS; col ++ )
     rowbuf[ col ] = in1[ r * COLSROWS + col ];
  REALTYPE sum;

  for( int c = 0; c < COLS2; c ++ )
  {
     sum = 0.0;
     for( int cr = 0; cr < COLSROWS; cr ++ )
        ///sum += in1[ r * COLSROWS + cr ] * in2[ cr + c * COLSROWS ];
        sum += rowbuf[ cr ] * in2[ cr + c * COLSROWS ];
     out[ r * COLS2 + c ] = sum;
  }
}
