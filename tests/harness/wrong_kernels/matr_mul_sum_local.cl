/* A deliberately wrong matr_mul_sum_local: the inner loop stops one term short. The harness tests
   replay it (mqlcl-replay --kernels tests/harness/wrong_kernels) to show that a wrong product is
   caught element by element and gives exit status 1. */
#ifndef COLS2
#define COLS2     2000
#endif
#ifndef COLSROWS
#define COLSROWS  2000
#endif
#ifndef REALTYPE
#define REALTYPE  float
#endif

__kernel void matricesMul( __global REALTYPE *in1,
                           __global REALTYPE *in2,
                           __global REALTYPE *out  )
{
  int r = get_global_id( 0 );
  int c = get_global_id( 1 );
  REALTYPE sum = 0.0;
  for( int cr = 0; cr < COLSROWS - 1; cr ++ )
     sum += in1[ r * COLSROWS + cr ] * in2[ cr + c * COLSROWS ];
  out[ r * COLS2 + c ] = sum;
}
