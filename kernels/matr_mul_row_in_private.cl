// Article 407, listing 6 (matr_mul_row_in_private): the work-item's row of the first matrix
// is copied into private memory first.
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

__kernel void matricesMul( __global REALTYPE *in1,
                           __global REALTYPE *in2,
                           __global REALTYPE *out )
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
        sum += rowbuf[ cr ] * in2[ cr + c * COLSROWS ];
     out[ r * COLS2 + c ] = sum;
  }
}
