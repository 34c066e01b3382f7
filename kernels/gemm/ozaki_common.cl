// What the Ozaki scheme's two programs share (gemm/ozaki.cl, gemm/ozaki_rebuild.cl): the moduli,
// a line's shift, and the largest of a work-group's values.

#pragma OPENCL EXTENSION cl_khr_fp64 : enable
// No multiply and add fused but where fma() says so: the reconstruction's error-free sums need each
// product rounded on its own (NVIDIA's compiler fused them, and the result lost its last bit).
#pragma OPENCL FP_CONTRACT OFF

#ifndef OZAKI_MODULI
#error "OZAKI_MODULI: the moduli, odd, pairwise coprime and under 256 (bridge/src/gemm/ozaki.hpp)"
#endif
#ifndef OZAKI_COUNT
#error "OZAKI_COUNT: how many moduli OZAKI_MODULI lists"
#endif

__constant int moduli[OZAKI_COUNT] = {OZAKI_MODULI};

// The operands' and C's elements: float with OZAKI_FLOAT 1 (float products at FP32's accuracy),
// else double. Every sum, shift and reconstruction is in double either way.
#if OZAKI_FLOAT
typedef float element;
#else
typedef double element;
#endif

// The shift that takes a line whose largest |x| is `largest` to at most 2^(bits - 1) before
// rounding (so at most 2^bits after); 0 for a line of zeros.
int line_shift(double largest, int bits) {
  return largest > 0 ? bits - 1 - ilogb(largest) : 0;
}

// The largest of a work-group's values >= 0 into *largest, as the high word of the double: it
// orders as the double does and, without its low word, is at most the double. One word per
// product by an atomic, not a partial per work-group read back (2 MiB at 4096).
void store_largest(__local double *top, int t, int group, double value,
                   volatile __global uint *largest) {
  top[t] = value;
  for (int width = group / 2; width > 0; width /= 2) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t < width)
      top[t] = fmax(top[t], top[t + width]);
  }
  if (t == 0)
    atomic_max(largest, convert_uint(as_ulong(top[0]) >> 32));
}
