/* matr_mul_vect.cl - section 2.8, Listing 8: first vectorisation. Built on
   matr_mul_row_in_private (the fastest so far in the article); only the inner loop changes: it
   steps by 4 and takes dot() of two REALTYPE4 vectors assembled from scalars.
   COLSROWS must be a multiple of 4 (the host rejects other sizes). 1-D range of ROWS1 work-items;
   in2 column-major.
   Changed from the listing: sizes and type as build options (-DCOLS2, -DCOLSROWS, -DREALTYPE);
   REALTYPE4 follows REALTYPE. */
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
/* REALTYPE4/REALTYPE8 follow REALTYPE (float4/float8, or double4/double8 with -DREALTYPE=double) */
#define VECTOR_TYPE_( type, n )  type##n
#define VECTOR_TYPE( type, n )   VECTOR_TYPE_( type, n )
#ifndef REALTYPE4
#define REALTYPE4 VECTOR_TYPE( REALTYPE, 4 )
#endif

__kernel void matricesMul( __global REALTYPE *in1,
                           __global REALTYPE *in2,
                           __global REALTYPE *out  )
{
  int r = get_global_id( 0 );
  REALTYPE rowbuf[ COLSROWS ];
  for( int col = 0; col < COLSROWS; col ++ )
  {
     rowbuf[ col ] =  in1[r * COLSROWS + col ];
  }

  REALTYPE sum;

  for( int c = 0; c < COLS2; c ++ )
  {
     sum = 0.0;
     for( int cr = 0; cr < COLSROWS; cr += 4 )
        sum += dot( ( REALTYPE4 ) ( rowbuf[ cr ],
                                    rowbuf[ cr + 1 ],
                                    rowbuf[ cr + 2 ],
                                    rowbuf[ cr + 3 ] ),
                    ( REALTYPE4 ) ( in2[c * COLSROWS + cr     ],
                                    in2[c * COLSROWS + cr + 1 ],
                                    in2[c * COLSROWS + cr + 2 ],
                                    in2[c * COLSROWS + cr + 3 ] ) );
     out[ r * COLS2 + c ] = sum;
  }
}
