// One dense layer for a batch: y = tanh(x w + b), x rows x inputs, w inputs x outputs, b one row
// of outputs, y rows x outputs, all row-major; one work-item per element of y (row, output).
__kernel void dense_tanh(__global const float *x, __global const float *w,
                         __global const float *b, __global float *y, const int inputs,
                         const int outputs)
{
   int row = get_global_id(0), out = get_global_id(1);
   float sum = b[out];
   for (int k = 0; k < inputs; ++k)
      sum += x[row * inputs + k] * w[k * outputs + out];
   y[row * outputs + out] = tanh(sum);
}
