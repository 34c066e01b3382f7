// Step 15 (beyond the article): the product on NVIDIA tensor cores, through inline PTX.
//
// MODE 3 (3xTF32) keeps FP32 accuracy: each operand is split into a TF32 head and a TF32 tail,
// a = a_hi + a_lo, and C = a_hi*b_hi + a_hi*b_lo + a_lo*b_hi (a_lo*b_lo is below FP32's
// precision). Tensor cores round their sums toward zero, so the products of one K slice go into
// a scratch accumulator that starts at zero, and that is added into the FP32 accumulator with an
// ordinary, round-to-nearest addition after every slice (Ootomo and Yokota, 2022).
// MODE 1 (plain TF32) multiplies the heads only: relative errors near 1e-3, for users who accept
// them. Needs mma.sync with TF32 (compute capability 8.0 or later) and NVIDIA's OpenCL compiler,
// which accepts inline PTX; the host checks both before building this file.
//
// Layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major; out = C, ROWS1 x COLS2, row-major. Both operands are
// K-contiguous, which is exactly what mma.m16n8k8.row.col wants, so tiles are staged in local
// memory as they are in global memory. Any sizes: loads past an edge read zeros.
//
// Launch: 1-D, global = ceil(ROWS1/BM) * ceil(COLS2/BN) * THREADS, local = THREADS.

#ifndef ROWS1
#define ROWS1 2000
#endif
#ifndef COLSROWS
#define COLSROWS 2000
#endif
#ifndef COLS2
#define COLS2 2000
#endif
#ifndef MODE // 3: 3xTF32 (FP32 accuracy), 1: plain TF32
#define MODE 3
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK // a multiple of 8 (the mma's K)
#define BK 16
#endif
#ifndef WM // rows of C per warp, a multiple of 16
#define WM 64
#endif
#ifndef WN // columns of C per warp, a multiple of 8
#define WN 32
#endif
#ifndef GROUP_M
#define GROUP_M 8
#endif

#define M_ ROWS1
#define N_ COLS2
#define K_ COLSROWS
#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (WARPS * 32)
#define MT (WM / 16) // mma tiles per warp along M
#define NT (WN / 8)  // and along N
#define LDS (BK + 4) // local row stride: fragment reads hit 32 different banks
#define A_LOADS (BM * BK / 4 / THREADS)
#define B_LOADS (BN * BK / 4 / THREADS)

#if (BM % WM) || (BN % WN) || (WM % 16) || (WN % 8) || (BK % 8)
#error "BM, BN must be multiples of WM, WN; WM of 16, WN and BK of 8"
#endif
#if (BM * BK / 4) % THREADS || (BN * BK / 4) % THREADS
#error "the A and B tiles must split evenly into float4 loads over the work-group"
#endif

// Round to TF32 (10 explicit mantissa bits), to nearest, ties away from zero.
inline uint to_tf32(float x) {
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// d += a * b for one 16x8x8 tile, a warp-wide operation.
inline void mma_tf32(float4 *d, const uint a[4], const uint b[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d->x), "+f"(d->y), "+f"(d->z), "+f"(d->w)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

inline float4 load_k4(const __global float *matrix, int line, int lines, int k) {
#if K_ % 4 == 0
  if (line < lines && k < K_)
    return *(const __global float4 *)(matrix + (size_t)line * K_ + k);
  return (float4)(0);
#else
  const __global float *p = matrix + (size_t)line * K_ + k;
  bool in = line < lines;
  return (float4)(in && k < K_ ? p[0] : 0, in && k + 1 < K_ ? p[1] : 0,
                  in && k + 2 < K_ ? p[2] : 0, in && k + 3 < K_ ? p[3] : 0);
#endif
}

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
matricesMul(__global const float *in1, __global const float *in2, __global float *out) {
  __local float As[2][BM][LDS] __attribute__((aligned(16)));
  __local float Bs[2][BN][LDS] __attribute__((aligned(16)));

  const int blocks_m = (M_ + BM - 1) / BM, blocks_n = (N_ + BN - 1) / BN;
  const int block = get_group_id(0);
  const int group = block / (GROUP_M * blocks_n);
  const int first_m = group * GROUP_M;
  const int group_rows = min(blocks_m - first_m, GROUP_M);
  const int block_m = (first_m + block % group_rows) * BM;
  const int block_n = (block % (GROUP_M * blocks_n)) / group_rows * BN;

  const int tid = get_local_id(0), lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / (BN / WN) * WM, warp_n = warp % (BN / WN) * WN;
  const int g = lane / 4, t = lane % 4; // the mma fragment coordinates of this lane

  float4 acc[MT][NT];
  #pragma unroll
  for (int i = 0; i < MT; ++i)
    #pragma unroll
    for (int j = 0; j < NT; ++j)
      acc[i][j] = (float4)(0);

  float4 a_next[A_LOADS], b_next[B_LOADS];
#define LOAD_SLICE(k0)                                                                             \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    a_next[l] = load_k4(in1, block_m + u / (BK / 4), M_, (k0) + (u % (BK / 4)) * 4);               \
  }                                                                                                \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    b_next[l] = load_k4(in2, block_n + u / (BK / 4), N_, (k0) + (u % (BK / 4)) * 4);               \
  }
// MODE 1 rounds to TF32 once per element here, not once per fragment read; MODE 3 keeps the
// FP32 values, because the tails need them.
#if MODE == 1
#define STAGED(v) as_float4((uint4)(to_tf32(v.x), to_tf32(v.y), to_tf32(v.z), to_tf32(v.w)))
#else
#define STAGED(v) (v)
#endif
#define STORE_SLICE(buf)                                                                           \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    *(__local float4 *)&As[buf][u / (BK / 4)][(u % (BK / 4)) * 4] = STAGED(a_next[l]);             \
  }                                                                                                \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    *(__local float4 *)&Bs[buf][u / (BK / 4)][(u % (BK / 4)) * 4] = STAGED(b_next[l]);             \
  }

  const int slices = (K_ + BK - 1) / BK;
  LOAD_SLICE(0)
  STORE_SLICE(0)
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int s = 0; s < slices; ++s) {
    const int buf = s & 1;
    if (s + 1 < slices) {
      LOAD_SLICE((s + 1) * BK)
    }
#if MODE == 3
    float4 part[MT][NT];
    #pragma unroll
    for (int i = 0; i < MT; ++i)
      #pragma unroll
      for (int j = 0; j < NT; ++j)
        part[i][j] = (float4)(0);
#define SLICE_ACC part
#else
#define SLICE_ACC acc
#endif
#pragma unroll
    for (int k = 0; k < BK; k += 8) {
      uint a_hi[MT][4], b_hi[NT][2];
#if MODE == 3
      uint a_lo[MT][4], b_lo[NT][2];
#endif
      #pragma unroll
      for (int i = 0; i < MT; ++i) {
        const int r = warp_m + i * 16 + g;
        const float v[4] = {As[buf][r][k + t], As[buf][r + 8][k + t], As[buf][r][k + t + 4],
                            As[buf][r + 8][k + t + 4]};
        #pragma unroll
        for (int q = 0; q < 4; ++q) {
#if MODE == 1
          a_hi[i][q] = as_uint(v[q]); // rounded when staged
#else
          a_hi[i][q] = to_tf32(v[q]);
          a_lo[i][q] = to_tf32(v[q] - as_float(a_hi[i][q]));
#endif
        }
      }
      #pragma unroll
      for (int j = 0; j < NT; ++j) {
        const int c = warp_n + j * 8 + g;
        const float v[2] = {Bs[buf][c][k + t], Bs[buf][c][k + t + 4]};
        #pragma unroll
        for (int q = 0; q < 2; ++q) {
#if MODE == 1
          b_hi[j][q] = as_uint(v[q]);
#else
          b_hi[j][q] = to_tf32(v[q]);
          b_lo[j][q] = to_tf32(v[q] - as_float(b_hi[j][q]));
#endif
        }
      }
      #pragma unroll
      for (int i = 0; i < MT; ++i)
        #pragma unroll
        for (int j = 0; j < NT; ++j) {
#if MODE == 3
          mma_tf32(&SLICE_ACC[i][j], a_lo[i], b_hi[j]); // small terms first
          mma_tf32(&SLICE_ACC[i][j], a_hi[i], b_lo[j]);
#endif
          mma_tf32(&SLICE_ACC[i][j], a_hi[i], b_hi[j]);
        }
    }
#if MODE == 3
    #pragma unroll
    for (int i = 0; i < MT; ++i)
      #pragma unroll
      for (int j = 0; j < NT; ++j)
        acc[i][j] += part[i][j]; // round-to-nearest FP32 additions
#endif
    if (s + 1 < slices) {
      STORE_SLICE(buf ^ 1)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  // Each lane holds C(g, 2t..2t+1) and C(g+8, 2t..2t+1) of every 16x8 tile.
  #pragma unroll
  for (int i = 0; i < MT; ++i)
    #pragma unroll
    for (int j = 0; j < NT; ++j) {
      const int col = block_n + warp_n + j * 8 + 2 * t;
      #pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = block_m + warp_m + i * 16 + g + 8 * h;
        const float2 v = h == 0 ? acc[i][j].xy : acc[i][j].zw;
        if (row >= M_)
          continue;
        __global float *c = out + (size_t)row * N_ + col;
#if N_ % 2 == 0
        if (col < N_)
          *(__global float2 *)c = v;
#else
        if (col < N_)
          c[0] = v.x;
        if (col + 1 < N_)
          c[1] = v.y;
#endif
      }
    }
}
