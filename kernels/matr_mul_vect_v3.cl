// Article 407, listing 10 (matr_mul_vect_v3): REALTYPE8 vectors and a dot8() helper;
// COLSROWS must be a multiple of 8.
// Provisional copy written on the mql5 branch from the article's listing; the harness branch
// owns kernels/ (same file name, same contract: matricesMul, -DCOLS2 -DCOLSROWS -DREALTYPE).
#ifndef COLS2
#define COLS2 2000
#endif
#ifndef COLSROWS
#define COLSROWS 2000
#endif
#ifndef REALTYPE
#define REALTYPE float
#endif
#define REALTYPE_CAT_(a, b) a##b
#define REALTYPE_CAT(a, b) REALTYPE_CAT_(a, b)
#ifndef REALTYPE4
#define REALTYPE4 REALTYPE_CAT(REALTYPE, 4)
#endif
#ifndef REALTYPE8
#define REALTYPE8 REALTYPE_CAT(REALTYPE, 8)
#endif

inline REALTYPE dot8( REALTYPE8 a, REALTYPE8 b )
{
  REALTYPE8  c = a * b;
  REALTYPE4  _1 = ( REALTYPE4 ) 1.;
  return( dot( c.lo + c.hi, _1 ) );
}

__kernel void matricesMul( __global REALTYPE *in1,
                           __global REALTYPE *in2,
                           __global REALTYPE *out )
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
