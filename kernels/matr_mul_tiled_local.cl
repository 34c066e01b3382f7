// Step 11 (beyond the article): the Hands-on OpenCL course's blocked kernel with local tiles.
//
// The article's last steps kept whole rows in private memory; here the work-group shares
// BLK x BLK tiles of both matrices in local memory and every work-item computes one element of
// C. The tiles are __local kernel arguments, set from the host with CLSetKernelArgMemLocal —
// the call MQL5 lacked in 2012, which made the article declare __local arrays inside kernels.
//
// Layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major; out = C, ROWS1 x COLS2, row-major. Any sizes: loads past an
// edge read zeros, and work-items past an edge store nothing.
//
// Launch: 2-D, global = (COLS2, ROWS1) rounded up to multiples of BLK, local = (BLK, BLK);
// Awrk and Bwrk: BLK * BLK * sizeof(REALTYPE) bytes each.

#ifndef ROWS1
#define ROWS1 2000
#endif
#ifndef COLSROWS
#define COLSROWS 2000
#endif
#ifndef COLS2
#define COLS2 2000
#endif
#ifndef REALTYPE
#define REALTYPE float
#endif
#ifndef BLK
#define BLK 16
#endif

#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel void matricesMul(__global const REALTYPE *in1, __global const REALTYPE *in2,
                          __global REALTYPE *out, __local REALTYPE *Awrk, __local REALTYPE *Bwrk) {
  const int x = get_local_id(0), y = get_local_id(1);
  const int col = get_global_id(0), row = get_global_id(1);
  const int col0 = get_group_id(0) * BLK, row0 = get_group_id(1) * BLK;
  REALTYPE sum = 0;

  for (int k0 = 0; k0 < COLSROWS; k0 += BLK) {
    // Both loads run along K, the contiguous direction of A's rows and B's columns; B's tile
    // is stored transposed so the inner loop reads consecutive words across work-items.
    const int k = k0 + x;
    Awrk[y * BLK + x] = row0 + y < ROWS1 && k < COLSROWS ? in1[(row0 + y) * COLSROWS + k] : 0;
    Bwrk[x * BLK + y] = col0 + y < COLS2 && k < COLSROWS ? in2[(col0 + y) * COLSROWS + k] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int kk = 0; kk < BLK; ++kk)
      sum += Awrk[y * BLK + kk] * Bwrk[kk * BLK + x];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < ROWS1 && col < COLS2)
    out[row * COLS2 + col] = sum;
}
