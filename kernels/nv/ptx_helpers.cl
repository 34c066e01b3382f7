// Inline-PTX helpers of the NVIDIA tensor-core kernels (matr_mul_tf32.cl, matr_mul_wgmma_tf32.cl,
// gemm/ozaki.cl), included by each: cp.async copies of operand tiles into local memory, ldmatrix,
// BF16 pairs. The includer defines COPIES_IN_FLIGHT (the groups of copies copies_wait leaves in
// flight) before it calls copies_wait, and first, for copy_tile_chunk, K_ (floats per row of its
// K-contiguous operands).
// Helpers a build does not call cost nothing: inline functions are compiled where they are called.

// A __local pointer as the 32-bit .shared address that cp.async and ldmatrix take.
inline uint shared_address(const __local float *p) { return (uint)(size_t)p; }

// 16 bytes from `src` to local memory, or zeros when `in` is false (then nothing is read).
inline void copy_chunk(__local float *dst, const __global float *src, bool in) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared_address(dst)),
               "l"(src), "r"(in ? 16 : 0)
               : "memory");
}

// One float, for rows that are not 16-byte aligned (K not a multiple of 4).
inline void copy_float(__local float *dst, const __global float *src, bool in) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(shared_address(dst)),
               "l"(src), "r"(in ? 4 : 0)
               : "memory");
}

inline void copies_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
// Waits until at most COPIES_IN_FLIGHT groups of copies are still in flight (a macro: the count
// is the includer's where it calls it).
#define copies_wait()                                                                              \
  asm volatile("cp.async.wait_group " STRINGIFY(COPIES_IN_FLIGHT) ";" ::: "memory")

#ifdef K_ // an includer whose rows are a compile-time K_ floats long
// Chunk of row `row` at k of a K-contiguous matrix with `lines` rows, into a tile slot.
inline void copy_tile_chunk(__local float *dst, const __global float *matrix, int row, int lines,
                            int k) {
  const bool row_in = row < lines;
  const __global float *src = matrix + (size_t)(row_in ? row : 0) * K_;
#if K_ % 4 == 0
  copy_chunk(dst, src + (k < K_ ? k : 0), row_in && k < K_);
#else
  for (int e = 0; e < 4; ++e)
    copy_float(dst + e, src + (k + e < K_ ? k + e : 0), row_in && k + e < K_);
#endif
}
#endif

// Four 8x4 tiles of 32-bit elements, one row address per lane (lanes 8i..8i+7 give tile i):
// lane l receives element (l/4, l%4) of each tile.
inline void load_matrices(uint r[4], const __local float *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}

// Two floats as a BF16 pair, rounded to nearest, in one conversion: `low` in the low half (the
// element with the smaller K).
inline uint bf16_pair(float low, float high) {
  uint r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(high), "f"(low));
  return r;
}
