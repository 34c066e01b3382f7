// Article 407, listing 5 (matr_mul_row_calc): one work-item per output row, 1-D range of
// ROWS1.
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
  REALTYPE sum;
  for( int c = 0; c < COLS2; c ++ )
  {
     sum = 0.0;
     for( int cr = 0; cr < COLSROWS; cr ++ )
        sum += in1[ r * COLSROWS + cr ] * in2[ cr + c * COLSROWS ];
     out[ r * COLS2 + c ] = sum;
  }
}
