// Article 407, listing 3 (matr_mul_1dim_coalesced): the second matrix column-major, so both
// inputs are read contiguously along cr.
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
  for( int cr = 0; cr < COLSROWS; cr ++ )
     out[ r * COLS2 + c ] +=
              in1[ r * COLSROWS + cr ] * in2[ cr + c * COLSROWS ];
}
