/* matr_mul_col_local_fixed.cl - Listing 7 (section 2.7) with its race fixed; not in the article.
   Identical to matr_mul_col_local.cl except for the second barrier at the end of the column loop:
   no work-item may overwrite colbuf with the next column until the whole group has read this one.
   1-D range of ROWS1 work-items; in2 column-major.
   Changed from the listing: the second barrier; sizes and type as build options. */
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
                           __global REALTYPE *out )
{
  int r = get_global_id( 0 );
  REALTYPE rowbuf[ COLSROWS ];
  for( int col = 0; col < COLSROWS; col ++ )
     rowbuf[ col ] = in1[ r * COLSROWS + col ];

  int idlocal = get_local_id( 0 );
  int nlocal = get_local_size( 0 );
  __local  REALTYPE colbuf[ COLSROWS ] ;

  REALTYPE sum;
  for( int c = 0; c < COLS2; c ++ )
  {
     for( int cr = idlocal; cr < COLSROWS; cr = cr + nlocal )
        colbuf[ cr ] = in2[ cr + c * COLSROWS ];
     barrier( CLK_LOCAL_MEM_FENCE );

     sum = 0.0;
     for( int cr = 0; cr < COLSROWS; cr ++ )
        sum += rowbuf[ cr ] * colbuf[ cr ];
     out[ r * COLS2 + c ] = sum;
     barrier( CLK_LOCAL_MEM_FENCE );
  }
}
