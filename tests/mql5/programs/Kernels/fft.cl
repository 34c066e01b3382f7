// One radix-2 stage of a Stockham FFT (forward, unscaled) of 2 * pairs complex points, one
// work-item per butterfly: the transforms of length p held in `in` are merged pairwise into
// transforms of length 2p in `out`, already in natural order. log2(2 * pairs) stages, p = 1, 2,
// 4, ..., pairs, alternating the two buffers, give the DFT.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void fft_stage(__global const double2 *in, __global double2 *out, const uint pairs,
                        const uint p)
{
   uint i = get_global_id(0);
   uint k = i & (p - 1);                   // the frequency inside the merged transform
   double angle = -M_PI * (double)k / (double)p;
   double2 twiddle = (double2)(cos(angle), sin(angle));
   double2 even = in[i];
   double2 odd = in[i + pairs];
   double2 turned = (double2)(odd.x * twiddle.x - odd.y * twiddle.y,
                              odd.x * twiddle.y + odd.y * twiddle.x);
   uint at = 2 * i - k;                    // the merged transform starts at 2 * (i - k)
   out[at] = even + turned;
   out[at + p] = even - turned;
}
