// Kernels the bridge tests build: small, with every argument kind the bridge distinguishes.
#pragma once

namespace mqlcl_test {

// UTF-16 on purpose: non-ASCII comments must survive the trip to the OpenCL compiler.
inline constexpr const char16_t *kTestKernels = uR"CL(
// Сложение векторов — vector addition, y = a*x + y.  ∑ 𝔼 (a non-BMP character, as a pair)
__kernel void axpy(__global const float *x, __global float *y, float a)
{
  size_t i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}

// Every work-item copies its group's slice through __local memory, reversed.
__kernel void reverse_in_group(__global const int *in, __global int *out, __local int *scratch)
{
  size_t l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);
  scratch[l] = in[g * n + l];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[g * n + l] = scratch[n - 1 - l];
}

// Writes its global id and offset in up to three dimensions.
__kernel void coordinates(__global int *out)
{
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  size_t w = get_global_size(0) + get_global_offset(0), h = get_global_size(1) + get_global_offset(1);
  out[(z * h + y) * w + x] = (int)(x + 1000 * y + 1000000 * z);
}

// work_dim 0 (MQL5's one-argument CLExecute) runs exactly one work-item.
__kernel void count_items(__global int *counter)
{
  atomic_inc(counter);
}

__kernel void takes_struct(__global float *out, float4 v)
{
  out[0] = v.x + v.y + v.z + v.w;
}
)CL";

} // namespace mqlcl_test
