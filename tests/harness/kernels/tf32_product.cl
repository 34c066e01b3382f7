/* tf32_product.cl - not an article step: the product of the TF32 steps' arithmetic in plain
   OpenCL C, so that their verification runs on any device: each input rounded to TF32 (10
   mantissa bits) as ROUNDING says, the products summed in FP32. ROUNDING 1: to nearest, ties away
   from zero (cvt.rna, and the kernels' integer form of it); 2: toward zero (the tensor cores
   reading FP32 values); 3: to nearest, ties to even (a tie rule the host cannot assume).
   LEAVE_OUT, when set, leaves that 16-deep slice of K out of the 16 x 16 block of C at (0, 0):
   the wrong product that tests/harness/test_beyond.cpp requires the verification to refuse, as
   `--param LEAVE_OUT=S` makes one for the tensor-core kernels. One work-item per element of C;
   A row-major, B column-major, C row-major. */
#ifndef ROUNDING
#define ROUNDING 1
#endif

#ifdef LEAVE_OUT
#define LEFT_OUT(r, c, k) ((r) < 16 && (c) < 16 && (k) / 16 == LEAVE_OUT)
#else
#define LEFT_OUT(r, c, k) 0
#endif

inline float tf32(float x) {
  const uint bits = as_uint(x);
#if ROUNDING == 1
  return as_float((bits + 0x1000u) & 0xffffe000u);
#elif ROUNDING == 2
  return as_float(bits & 0xffffe000u);
#else
  return as_float((bits + 0xfffu + ((bits >> 13) & 1u)) & 0xffffe000u);
#endif
}

__kernel void matricesMul(__global const float *in1, __global const float *in2,
                          __global float *out) {
  const int r = get_global_id(0), c = get_global_id(1);
  float sum = 0.0f;
  for (int k = 0; k < COLSROWS; ++k)
    if (!LEFT_OUT(r, c, k))
      sum += tf32(in1[r * COLSROWS + k]) * tf32(in2[c * COLSROWS + k]);
  out[r * COLS2 + c] = sum;
}
