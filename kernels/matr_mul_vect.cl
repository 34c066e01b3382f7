// Article 407, listing 8 (matr_mul_vect): the inner loop vectorised with REALTYPE4 and dot();
// COLSROWS must be a multiple of 4.
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
