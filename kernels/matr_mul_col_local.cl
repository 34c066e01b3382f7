/* matr_mul_col_local.cl - section 2.7, Listing 7, AS PRINTED (with its race).
   On top of matr_mul_row_in_private, the work-group copies column c of the second matrix into
   __local colbuf[ COLSROWS ] (each work-item copies every nlocal-th element), waits at a barrier,
   and then every work-item reads all of colbuf.
   The race: there is no barrier after the reads, so a fast work-item starts overwriting colbuf
   with column c + 1 while slower ones of its group still read column c. Whether that corrupts
   the product depends on how the device schedules a work-group; matr_mul_col_local_fixed.cl adds
   the missing barrier. 1-D range of ROWS1 work-items; in2 column-major.
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
  }
}
