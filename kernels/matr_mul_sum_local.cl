// Article 407, listing 4 (matr_mul_sum_local): the scalar product accumulates in a private
// variable and is stored once.
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
  int c = get_global_id( 1 );
  REALTYPE sum = 0.0;
  for( int cr = 0; cr < COLSROWS; cr ++ )
     sum += in1[ r * COLSROWS + cr ] * in2[ cr + c * COLSROWS ];
  out[ r * COLS2 + c ] = sum;
}
