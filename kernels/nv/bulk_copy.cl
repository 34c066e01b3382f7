// The copy engine's copies (Hopper's TMA: bulk copies, and boxes of tensor maps) and the mbarriers
// that count them, through inline PTX for sm_90a: the TF32 steps 17 and 18 (nv/wgmma_bulk.cl), the
// double product of step 19 (matr_mul_dmma.cl with TMA) and the Ozaki scheme's integer products on
// wgmma (gemm/ozaki_wgmma.cl). The includer includes nv/ptx_helpers.cl first (shared_address).

inline uint barrier_address(const __local ulong *bar) { return (uint)(size_t)bar; }

inline void mbarrier_init(__local ulong *bar, uint count) {
  asm volatile("//@sm_90a mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier_address(bar)),
               "r"(count)
               : "memory");
}
// Makes the initialised mbarriers visible to the copy engine.
inline void mbarrier_init_fence(void) {
  asm volatile("//@sm_90a fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Arrives on `bar` and tells it `bytes` more are coming: the phase ends when they have.
inline void mbarrier_expect(__local ulong *bar, uint bytes) {
  asm volatile("//@sm_90a mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   barrier_address(bar)),
               "r"(bytes)
               : "memory");
}
// Waits until the phase of `bar` with this parity is complete.
inline void mbarrier_wait(__local ulong *bar, uint parity) {
  uint done = 0;
  while (!done)
    asm volatile("//@sm_90a { .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                 "selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(barrier_address(bar)), "r"(parity)
                 : "memory");
}

// `bytes` from global memory to local memory by the copy engine, counted on `bar`.
inline void bulk_copy(__local float *dst, const __global float *src, uint bytes,
                      __local ulong *bar) {
  asm volatile("//@sm_90a cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], "
               "[%1], %2, [%3];" ::"r"(shared_address(dst)),
               "l"(src), "r"(bytes), "r"(barrier_address(bar))
               : "memory");
}

// The box of the 2-D tensor `map` whose corner is at (inner, outer) (the element along the rows,
// then the row) to local memory at `dst` (a .shared address), counted on `bar`; zeros where the box
// lies past the tensor's edges. The box's bytes all count, zeros included.
inline void tensor_copy(uint dst, const __global ulong *map, int inner, int outer,
                        __local ulong *bar) {
  asm volatile("//@sm_90a cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx"
               "::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
               "l"(map), "r"(inner), "r"(outer), "r"(barrier_address(bar))
               : "memory");
}
// The maps were written by the host: ordered before the copy engine reads them.
inline void tensor_map_acquire(const __global ulong *map) {
  asm volatile("//@sm_90a fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map)
               : "memory");
}
