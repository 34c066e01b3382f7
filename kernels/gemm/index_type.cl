// The index type of the library's GEMM kernels, a part of their files (included after their
// parameters): index_t is int, for 32-bit index arithmetic, or with INDEX64 = 1 long, for sizes
// whose indices pass 2^31 (the library sets it per call, bridge/src/gemm/gemm.hpp).

#ifndef INDEX64
#define INDEX64 0
#endif
#if INDEX64
typedef long index_t;
#else
typedef int index_t;
#endif
