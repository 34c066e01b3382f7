// Step 19 (beyond the article): FP32 SGEMM, its tiles copied into local memory by the copy unit.
//
// Step 13's product with the transposing stores gone. There every work-item loaded its share of
// the next slice into registers and, after computing, stored it float by float, transposed, into
// local memory: a fifth of the loop's other instructions, and registers held across the loop.
// Here each float of a slice goes from global to local memory with one `cp.async` (NVIDIA's
// LDGSTS, compute capability 8.0 and later), which writes it straight to its transposed place,
// zeros past an edge. (Other compilers get plain loads and stores in the same places: the same
// kernel, correct anywhere, fast on NVIDIA.) Nothing passes through registers, so STAGES slices can be in flight (a
// ring of local buffers, one wait and one barrier per slice), and the registers go to a larger
// block per work-item: TM x TN = 8 x 16 by default, 128 FMAs for every 6 local loads.
//
// Same layouts as the article's later steps: in1 = A, ROWS1 x COLSROWS, row-major; in2 = B,
// COLSROWS x COLS2, column-major (in2[k + n * COLSROWS]); out = C, ROWS1 x COLS2, row-major. FP32
// arithmetic throughout, the same FMAs in the same order as step 13: cuBLAS FP32's accuracy.
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
#ifndef BM // rows of C per work-group
#define BM 128
#endif
#ifndef BN // columns of C per work-group
#define BN 256
#endif
#ifndef BK // depth of one K slice: a multiple of 8
#define BK 8
#endif
#ifndef TM // rows per work-item (a multiple of 4)
#define TM 8
#endif
#ifndef TN // columns per work-item (a multiple of 4)
#define TN 16
#endif
#ifndef STAGES // slices in local memory: 2, 3 or 4
#define STAGES 3
#endif
#ifndef GROUP_M // block rows visited together, so tiles of B stay in cache
#define GROUP_M 8
#endif
#ifndef PAD // extra local columns: one row of the ring is BM + PAD floats, 16-byte aligned
#define PAD 4
#endif
#ifndef ASYNC // 1: cp.async; 0: plain copies. NVIDIA's compiler (compute capability 8.0+) or not
#if defined(__NV_CL_C_VERSION)
#define ASYNC 1
#else
#define ASYNC 0
#endif
#endif
#ifndef WARP_ROWS // a warp's 32 work-items cover WARP_ROWS x (32 / WARP_ROWS) of the thread grid
#define WARP_ROWS 4
#endif

#define M_ ROWS1
#define N_ COLS2
#define K_ COLSROWS
#define THREADS_M (BM / TM)
#define THREADS_N (BN / TN)
#define THREADS (THREADS_M * THREADS_N)
#define A_COPIES (BM * BK / THREADS) // floats of A each work-item copies per slice
#define B_COPIES (BN * BK / THREADS)
#define LDA (BM + PAD)
#define LDB (BN + PAD)

#if (BM % TM) || (BN % TN) || (TM % 4) || (TN % 4) || (BK % 8) || (PAD % 4)
#error "BM, BN must be multiples of TM, TN; TM, TN and PAD multiples of 4; BK a multiple of 8"
#endif
#if THREADS % 32 || (THREADS_N % (32 / WARP_ROWS)) || (THREADS_M % WARP_ROWS)
#error "the work-item grid must split into whole warps of WARP_ROWS x (32 / WARP_ROWS)"
#endif
#if (BM * BK) % THREADS || (BN * BK) % THREADS || THREADS % 8
#error "the A and B tiles must split evenly into copies over the work-group"
#endif
#if STAGES < 2 || STAGES > 4
#error "STAGES is 2, 3 or 4"
#endif

#if BM % (THREADS / 8) || BN % (THREADS / 8)
#error "BM and BN must be multiples of THREADS / 8, the lines one round of copies covers"
#endif

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#if STAGES == 2
#define IN_FLIGHT 0
#elif STAGES == 3
#define IN_FLIGHT 1
#else
#define IN_FLIGHT 2
#endif

#if ASYNC
// A __local pointer as the 32-bit .shared address that cp.async takes.
inline uint shared_address(const __local float *p) { return (uint)(size_t)p; }

// One float from `src` to local memory, or a zero when `in` is false (then nothing is read).
inline void copy_float(__local float *dst, const __global float *src, bool in) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(shared_address(dst)),
               "l"(src), "r"(in ? 4 : 0)
               : "memory");
}

inline void copies_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Waits until this work-item's copies of the slice about to be computed have landed: at most
// STAGES - 2 later groups may still be in flight.
inline void copies_wait(void) {
  asm volatile("cp.async.wait_group " STRINGIFY(IN_FLIGHT) ";" ::: "memory");
}
#else
// The same copies as plain loads and stores, done when issued: the ring of stages and its
// barriers are unchanged, so any device (and oclgrind) runs the same indexing.
inline void copy_float(__local float *dst, const __global float *src, bool in) {
  *dst = in ? *src : 0.0f;
}
inline void copies_commit(void) {}
inline void copies_wait(void) {}
#endif

// Copy l of a work-item's share of one operand's slice: of the slice's LINES lines and BK values
// of K, it takes line tid / 8 + (l * THREADS / 8) % LINES and value tid % 8 + 8 * (l * THREADS /
// (8 * LINES)). A warp thus reads 4 lines x 32 bytes, whole sectors, and writes 8 rows x 4 floats
// of the transposed tile, 32 distinct banks when a row's stride is 4 banks modulo 32. Both
// offsets are constants, so one pointer per operand serves every copy of every slice.
#define LINE_OFFSET(l, LINES) ((l) * THREADS / 8 % (LINES))
#define K_OFFSET(l, LINES) (8 * ((l) * THREADS / (8 * (LINES))))

#if K_ % BK
#define K_IN(k) ((k) < K_)
#else
#define K_IN(k) true
#endif

// Copies the slice that starts at value k0 of K of one K-contiguous operand into `dst`, this
// work-item's first slot of a stage of its tile (row tid % 8, column tid / 8). `first` points at
// this work-item's first value of the operand; `line_in` has one bit per copy: its line is in
// the matrix. Where LINES divides the matrix's lines, every bit is set and no address needs
// replacing; else a copy of a line past the edge reads nothing from the matrix's first float.
#define COPY_OPERAND(COPIES, LINES, LD, dst, matrix, lines, first, line_in, k0)                  \
  _Pragma("unroll") for (int l = 0; l < COPIES; ++l) {                                           \
    const int k = (k0) + K_OFFSET(l, LINES);                                                     \
    const bool in = (((line_in) >> l) & 1) && K_IN(k + tid % 8);                                 \
    const __global float *src = (first) + (size_t)LINE_OFFSET(l, LINES) * K_ + k;                \
    copy_float((dst) + K_OFFSET(l, LINES) * (LD) + LINE_OFFSET(l, LINES),                        \
               ((lines) % (LINES) || K_ % BK) && !in ? (matrix) : src, in);                                 \
  }

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1))) void
matricesMul(__global const float *in1, __global const float *in2, __global float *out) {
  __local float As[STAGES][BK][LDA] __attribute__((aligned(16)));
  __local float Bs[STAGES][BK][LDB] __attribute__((aligned(16)));

  // Which tile of C: block rows in groups of GROUP_M, column by column inside a group.
  const int blocks_m = (M_ + BM - 1) / BM, blocks_n = (N_ + BN - 1) / BN;
  const int block = get_group_id(0);
  const int group = block / (GROUP_M * blocks_n);
  const int first_m = group * GROUP_M;
  const int group_rows = min(blocks_m - first_m, GROUP_M);
  const int block_m = (first_m + block % group_rows) * BM;
  const int block_n = (block % (GROUP_M * blocks_n)) / group_rows * BN;

  // Warps tile the THREADS_M x THREADS_N grid of work-items in WARP_ROWS x (32/WARP_ROWS)
  // blocks: that shape decides how many distinct float4s one warp reads per local load.
  const int tid = get_local_id(0);
  const int warp_cols = 32 / WARP_ROWS, warps_n = THREADS_N / warp_cols;
  const int warp = tid / 32, lane = tid % 32;
  const int tm = warp / warps_n * WARP_ROWS + lane / warp_cols;
  const int tn = warp % warps_n * warp_cols + lane % warp_cols;

  // This work-item's copies start at line tid / 8 of each tile and value tid % 8 of each slice.
  const int a_first = block_m + tid / 8, b_first = block_n + tid / 8;
  const __global float *a_line = in1 + (size_t)a_first * K_ + tid % 8;
  const __global float *b_line = in2 + (size_t)b_first * K_ + tid % 8;
  uint a_in = 0, b_in = 0;
#pragma unroll
  for (int l = 0; l < A_COPIES; ++l)
    a_in |= (uint)(a_first + LINE_OFFSET(l, BM) < M_) << l;
#pragma unroll
  for (int l = 0; l < B_COPIES; ++l)
    b_in |= (uint)(b_first + LINE_OFFSET(l, BN) < N_) << l;
  __local float *a_slot = &As[0][tid % 8][tid / 8], *b_slot = &Bs[0][tid % 8][tid / 8];
#define COPY_SLICE(stage, s)                                                                      \
  do {                                                                                            \
    COPY_OPERAND(A_COPIES, BM, LDA, a_slot + (stage) * BK * LDA, in1, M_, a_line, a_in, (s) * BK) \
    COPY_OPERAND(B_COPIES, BN, LDB, b_slot + (stage) * BK * LDB, in2, N_, b_line, b_in, (s) * BK) \
    copies_commit();                                                                              \
  } while (0)

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0;

  const int slices = (K_ + BK - 1) / BK;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slices)
      COPY_SLICE(s, s);
    else
      copies_commit(); // an empty group keeps the count of groups in step
  }

  for (int s = 0; s < slices; ++s) {
    copies_wait();
    // Every work-item's copies of slice s have landed, and every work-item is done with slice
    // s - 1, whose stage the copies issued next overwrite.
    barrier(CLK_LOCAL_MEM_FENCE);
    const int next = s + STAGES - 1;
    if (next < slices)
      COPY_SLICE(next % STAGES, next);
    else
      copies_commit();

    const int stage = s % STAGES;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // Work-item rows tm*4.. in TM/4 groups spaced THREADS_M*4 apart (likewise columns), so a
      // warp's float4 reads cover consecutive local addresses.
      float a[TM], b[TN];
#pragma unroll
      for (int g = 0; g < TM / 4; ++g) {
        float4 v = *(__local float4 *)&As[stage][k][g * THREADS_M * 4 + tm * 4];
        a[g * 4] = v.x;
        a[g * 4 + 1] = v.y;
        a[g * 4 + 2] = v.z;
        a[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int g = 0; g < TN / 4; ++g) {
        float4 v = *(__local float4 *)&Bs[stage][k][g * THREADS_N * 4 + tn * 4];
        b[g * 4] = v.x;
        b[g * 4 + 1] = v.y;
        b[g * 4 + 2] = v.z;
        b[g * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = block_m + (i / 4) * THREADS_M * 4 + tm * 4 + i % 4;
    if (row >= M_)
      continue;
#pragma unroll
    for (int g = 0; g < TN / 4; ++g) {
      const int col = block_n + g * THREADS_N * 4 + tn * 4;
      __global float *c = out + (size_t)row * N_ + col;
      float4 v = (float4)(acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
#if N_ % 4 == 0
      if (col < N_) {
        *(__global float4 *)c = v;
        continue;
      }
#endif
      if (col < N_)
        c[0] = v.x;
      if (col + 1 < N_)
        c[1] = v.y;
      if (col + 2 < N_)
        c[2] = v.z;
      if (col + 3 < N_)
        c[3] = v.w;
    }
  }
}
