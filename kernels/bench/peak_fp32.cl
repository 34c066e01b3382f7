// The device's FP32 limit, measured in the style of clpeak: every work-item runs CHAINS
// independent chains of VW-wide multiply-adds, so nothing waits on memory or on a previous
// result. FLOPs = global size * ITERATIONS * CHAINS * VW * 2. VW = 4 suits GPUs (scalar lanes;
// the vector only adds independent work); CPUs need their SIMD width (16 for AVX-512), and
// vec_type_hint keeps PoCL from re-vectorizing across work-items.
//
// Launch: 1-D, any global size (a few work-items per lane), any local size.
// Arguments: in (>= local size + CHAINS floats), out (>= global size floats).

#ifndef ITERATIONS
#define ITERATIONS 4096
#endif
#ifndef CHAINS
#define CHAINS 16
#endif
#ifndef VW
#define VW 4
#endif

#define CONCAT_(a, b) a##b
#define CONCAT(a, b) CONCAT_(a, b)
#define floatVW CONCAT(float, VW)

__kernel __attribute__((vec_type_hint(floatVW))) void peak_fp32(__global const float *in,
                                                                __global float *out) {
  // Values from memory, so the compiler cannot fold the chains away.
  const floatVW y = (floatVW)(in[get_local_id(0)]);
  floatVW x[CHAINS];
#pragma unroll
  for (int i = 0; i < CHAINS; ++i)
    x[i] = (floatVW)(in[i]);
  for (int it = 0; it < ITERATIONS; ++it) {
#pragma unroll
    for (int i = 0; i < CHAINS; ++i)
      x[i] = fma(x[i], y, x[i]);
  }
  floatVW sum = (floatVW)(0);
#pragma unroll
  for (int i = 0; i < CHAINS; ++i)
    sum += x[i];
  float total = 0;
  const float *lanes = (const float *)&sum;
  for (int i = 0; i < VW; ++i)
    total += lanes[i];
  out[get_global_id(0)] = total;
}
