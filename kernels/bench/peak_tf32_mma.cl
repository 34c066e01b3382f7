// The ceiling of NVIDIA's warp-level TF32 tensor-core instruction (mma.sync.m16n8k8), measured
// like peak_fp32.cl: every warp runs CHAINS independent 16x8x8 products, operands in registers.
// FLOPs = (global size / 32) * ITERATIONS * CHAINS * 2048. NVIDIA only (inline PTX, compute
// capability 8.0 or later): the host checks before building this file.

#ifndef ITERATIONS
#define ITERATIONS 4096
#endif
#ifndef CHAINS
#define CHAINS 8
#endif

inline void mma_tf32(float4 *d, uint a0, uint a1, uint a2, uint a3, uint b0, uint b1) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d->x), "+f"(d->y), "+f"(d->z), "+f"(d->w)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

__kernel void peak_tf32_mma(__global const float *in, __global float *out) {
  const uint a = as_uint(in[get_local_id(0)]), b = as_uint(in[get_local_id(0) + 1]);
  float4 d[CHAINS];
#pragma unroll
  for (int i = 0; i < CHAINS; ++i)
    d[i] = (float4)(0);
  for (int it = 0; it < ITERATIONS; ++it) {
#pragma unroll
    for (int i = 0; i < CHAINS; ++i)
      mma_tf32(&d[i], a, a + 1, a + 2, a + 3, b, b + i);
  }
  float4 sum = (float4)(0);
#pragma unroll
  for (int i = 0; i < CHAINS; ++i)
    sum += d[i];
  out[get_global_id(0)] = sum.x + sum.y + sum.z + sum.w;
}
