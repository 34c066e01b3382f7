/* matr_mul_vect_v3.cl - section 2.8, Listing 10: as matr_mul_vect_v2 with vectors of 8
   (REALTYPE8); dot8() reduces a product of two 8-vectors, since dot() stops at 4 components.
   COLSROWS must be a multiple of 8 (the host rejects other sizes). 1-D range of ROWS1 work-items;
   in2 column-major.
   Changed from the listing: sizes and type as build options (-DCOLS2, -DCOLSROWS, -DREALTYPE);
   REALTYPE4 and REALTYPE8 follow REALTYPE. */
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
#ifndef REALTYPE8
#define REALTYPE8 VECTOR_TYPE( REALTYPE, 8 )
#endif

inline REALTYPE dot8( REALTYPE8 a, REALTYPE8 b )
{
  REALTYPE8  c = a * b;
  REALTYPE4  _1 = ( REALTYPE4 ) 1.;
  return( dot( c.lo + c.hi, _1 ) );
}

__kernel void matricesMul( __global REALTYPE *in1,
                           __global REALTYPE *in2,
                           __global REALTYPE *out  )
{
  int r = get_global_id( 0 );
  REALTYPE8 rowbuf[ COLSROWS / 8 ];
  for( int col = 0; col < COLSROWS / 8; col ++ )
  {
     rowbuf[ col ] =  ( REALTYPE8 ) ( in1[r * COLSROWS + 8 * col ],
                                      in1[r * COLSROWS + 8 * col + 1 ],
                                      in1[r * COLSROWS + 8 * col + 2 ],
                                      in1[r * COLSROWS + 8 * col + 3 ],
                                      in1[r * COLSROWS + 8 * col + 4 ],
                                      in1[r * COLSROWS + 8 * col + 5 ],
                                      in1[r * COLSROWS + 8 * col + 6 ],
                                      in1[r * COLSROWS + 8 * col + 7 ] );
  }

  REALTYPE sum;

  for( int c = 0; c < COLS2; c ++ )
  {
     sum = 0.0;
     for( int cr = 0; cr < COLSROWS / 8; cr ++ )
        sum += dot8(                rowbuf[ cr ],
                    ( REALTYPE8 ) ( in2[c * COLSROWS + 8 * cr     ],
                                    in2[c * COLSROWS + 8 * cr + 1 ],
                                    in2[c * COLSROWS + 8 * cr + 2 ],
                                    in2[c * COLSROWS + 8 * cr + 3 ],
                                    in2[c * COLSROWS + 8 * cr + 4 ],
                                    in2[c * COLSROWS + 8 * cr + 5 ],
                                    in2[c * COLSROWS + 8 * cr + 6 ],
                                    in2[c * COLSROWS + 8 * cr + 7 ] ) );
     out[ r * COLS2 + c ] = sum;
  }
}
