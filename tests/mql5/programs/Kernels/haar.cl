// One level of a Haar wavelet transform, one work-item per value: the first `length` values of
// `in` become length/2 approximations (scaled pair sums) followed by length/2 details (scaled
// pair differences) in `out`; the values past `length`, earlier levels' details, are copied.
__kernel void haar_level(__global const float *in, __global float *out, const uint length)
{
   uint i = get_global_id(0);
   uint pairs = length / 2;
   const float scale = 0.70710678118654752f;
   if (i < pairs)
      out[i] = (in[2 * i] + in[2 * i + 1]) * scale;
   else if (i < length)
      out[i] = (in[2 * (i - pairs)] - in[2 * (i - pairs) + 1]) * scale;
   else
      out[i] = in[i];
}
