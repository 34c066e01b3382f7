// The interface of CLGemm's exact products, a part of steps 13, 14 and 19's files (included after
// M_, N_, K_, REALTYPE and INDEX64; bridge/src/gemm/gemm.cpp sets the arguments of all three).
// Built with -DGEMM, the kernel is `gemm`: after (in1, in2, out), element offsets of A, B and C,
// the strides of a batch, alpha and beta; LDA, LDB, LDC and ALIGNED come from the host. Without
// it, the replay's matricesMul(in1, in2, out) on packed matrices. index_t: lines, k and leading
// dimensions in int or, with INDEX64, long. RESULT(v, c): C's element at c for the product's
// value v, alpha * v + beta * c in the GEMM, with c left unread when beta is 0.

#ifdef GEMM
#define KERNEL_NAME gemm
#define GEMM_ARGS                                                                                  \
  , ulong offset_a, ulong offset_b, ulong offset_c, ulong stride_a, ulong stride_b,                \
      ulong stride_c, REALTYPE alpha, REALTYPE beta
#define RESULT(v, c) (beta != 0 ? alpha * (v) + beta * (c) : alpha * (v))
#else
#define KERNEL_NAME matricesMul
#define GEMM_ARGS
#define LDA K_
#define LDB K_
#define LDC N_
#define ALIGNED 1
#define RESULT(v, c) (v)
#endif

#include "index_type.cl"
