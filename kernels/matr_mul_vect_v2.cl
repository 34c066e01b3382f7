// Article 407, listing 9 (matr_mul_vect_v2): the row of the first matrix is kept as REALTYPE4
// vectors, so the main loop does no conversions; COLSROWS must be a multiple of 4.
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

__kernel void matricesMul( __global REALTYPE *in1,
                           __global REALTYPE *in2,
                           __global REALTYPE *out )
{
  int r = get_global_id( 0 );
  REALTYPE4 rowbuf[ COLSROWS / 4 ];
  for( int col = 0; col < COLSROWS / 4; col ++ )
  {
     rowbuf[ col ] =  ( REALTYPE4 ) ( in1[r * COLSROWS + 4 * col ],
                                      in1[r * COLSROWS + 4 * col + 1 ],
                                      in1[r * COLSROWS + 4 * col + 2 ],
                                      in1[r * COLSROWS + 4 * col + 3 ] );
  }

  REALTYPE sum;

  for( int c = 0; c < COLS2; c ++ )
  {
     sum = 0.0;
     for( int cr = 0; cr < COLSROWS / 4; cr ++ )
        sum += dot(                 rowbuf[ cr ],
                    ( REALTYPE4 ) ( in2[c * COLSROWS + 4 * cr     ],
                                    in2[c * COLSROWS + 4 * cr + 1 ],
                                    in2[c * COLSROWS + 4 * cr + 2 ],
                                    in2[c * COLSROWS + 4 * cr + 3 ] ) );
     out[ r * COLS2 + c ] = sum;
  }
}
