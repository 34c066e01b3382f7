// Article 407, listing 7 (matr_mul_col_local), as printed: the column of the second matrix is
// staged in __local memory. It has a race: with no barrier after the sum loop, a fast work-item
// can overwrite colbuf for column c + 1 while a slower one still reads column c.
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

  int idlocal = get_local_id( 0 );
  int nlocal = get_local_size( 0 );
  __local  REALTYPE colbuf[ COLSROWS ] ;

  REALTYPE sum;
  for( int c = 0; c < COLS2; c ++ )
  {
     for( int cr = idlocal; cr < COLSROWS; cr = cr + nlocal )
        colbuf[ cr ] = in2[ cr + c * COLSROWS ];
     barrier( CLK_LOCAL_MEM_FENCE );

     sum = 0.0;
     for( int cr = 0; cr < COLSROWS; cr ++ )
        sum += rowbuf[ cr ] * colbuf[ cr ];
     out[ r * COLS2 + c ] = sum;
  }
}
