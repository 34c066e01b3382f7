// The device's FP32 limit, measured in the style of clpeak: every work-item runs CHAINS
// independent chains of float4 multiply-adds, so nothing waits on memory or on a previous result.
// FLOPs = global size * ITERATIONS * CHAINS * 4 lanes * 2.
//
// Launch: 1-D, any global size (a few work-items per compute unit's lane), any local size.
// Arguments: in (>= local size floats), out (>= global size floats).

#ifndef ITERATIONS
#define ITERATIONS 4096
#endif
#ifndef CHAINS
#define CHAINS 16
#endif

__kernel void peak_fp32(__global const float *in, __global float *out) {
  // Values from memory, so the compiler cannot fold the chains away.
  const float4 y = (float4)(in[get_local_id(0)]);
  float4 x[CHAINS];
#pragma unroll
  for (int i = 0; i < CHAINS; ++i)
    x[i] = (float4)(in[i]);
  for (int it = 0; it < ITERATIONS; ++it) {
#pragma unroll
    for (int i = 0; i < CHAINS; ++i)
      x[i] = fma(x[i], y, x[i]);
  }
  float4 sum = (float4)(0);
#pragma unroll
  for (int i = 0; i < CHAINS; ++i)
    sum += x[i];
  out[get_global_id(0)] = sum.x + sum.y + sum.z + sum.w;
}
