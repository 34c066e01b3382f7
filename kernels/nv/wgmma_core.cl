// What every wgmma product shares (nv/wgmma_tiles.cl for the TF32 steps, gemm/ozaki_wgmma.cl
// for the Ozaki scheme's INT8 products): the swizzled K-major layout of tiles in local memory and
// their matrix descriptors, the fences and groups around wgmma, and the operand lists of an
// m64nBN wgmma's accumulators. The includer includes nv/ptx_helpers.cl first, and defines BN
// before it calls a wgmma.

// Word k (4 bytes: a float, or 4 chars) of tile row r in wgmma's canonical swizzled K-major
// layout for rows of `row` words (8, 16 or 32): the 16-byte chunks of a row permuted by an XOR
// with bits of the row (the 32, 64 or 128-byte swizzle), so the tensor cores read 8 rows without
// bank conflicts. Each 32-byte piece of a global row stays together: cp.async into the no-swizzle
// layout, which puts a row's chunks 128 bytes apart, ran at a third of the speed on the H100.
// (The descriptors name the swizzle with a mode: 3, 2, 1 for rows of 8, 16, 32 words.)
#define SWIZZLED_AT(r, k, row)                                                                     \
  ((r) * (row) + ((((k) >> 2) ^ (((r) / (32 / (row))) % ((row) / 4))) << 2) + ((k) & 3))

// A wgmma matrix descriptor: start address and the stride between groups of 8 rows in units of
// 16 bytes, the swizzle mode in the top bits. The leading byte offset is unused by swizzled
// K-major layouts (1, as CUTLASS sets it). The swizzle applies to address bits, so tiles start
// on 1024-byte boundaries and a step along K is a plain offset of the start.
inline ulong descriptor_of(const __local float *start, uint row_floats, uint swizzle_mode) {
  return (ulong)((shared_address(start) & 0x3ffff) >> 4) | (1ul << 16) |
         ((ulong)(8 * row_floats * 4 / 16) << 32) | ((ulong)swizzle_mode << 62);
}

// Makes this work-item's writes to local memory (cp.async included) visible to the tensor
// cores' asynchronous reads; a barrier then extends that to the work-group.
inline void fence_to_async(void) { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

inline void wgmma_fence(void) { asm volatile("//@sm_90a wgmma.fence.sync.aligned;" ::: "memory"); }
inline void wgmma_commit(void) {
  asm volatile("//@sm_90a wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most INFLIGHT groups of wgmmas are still running (a macro: the count is the
// includer's where it calls it).
#define wgmma_wait()                                                                               \
  asm volatile("//@sm_90a wgmma.wait_group.sync.aligned " STRINGIFY(INFLIGHT) ";" ::: "memory")
inline void wgmma_wait_all(void) {
  asm volatile("//@sm_90a wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// The accumulator operands of an m64nBN wgmma: "{%0,...,%ACC-1}", then the two descriptors.
#define R10(a)                                                                                     \
  "%" #a "0,%" #a "1,%" #a "2,%" #a "3,%" #a "4,%" #a "5,%" #a "6,%" #a "7,%" #a "8,%" #a "9,"
// The accumulators' constraint: "+f" (floats), or "+r" where the includer defines WGMMA_ACC so.
#ifndef WGMMA_ACC
#define WGMMA_ACC "+f"
#endif
#define D8(i)                                                                                      \
  WGMMA_ACC(d[i]), WGMMA_ACC(d[i + 1]), WGMMA_ACC(d[i + 2]), WGMMA_ACC(d[i + 3]),                  \
      WGMMA_ACC(d[i + 4]), WGMMA_ACC(d[i + 5]), WGMMA_ACC(d[i + 6]), WGMMA_ACC(d[i + 7])
#define D32(i) D8(i), D8(i + 8), D8(i + 16), D8(i + 24)
#define REGS_64 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," R10(1) R10(2) "%30,%31}"
#define SS_64 ", %32, %33"
#define RS_64 ", {%32,%33,%34,%35}, %36"
#define OUT_64 D32(0)
#define REGS_128                                                                                   \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," R10(1) R10(2) R10(3) R10(4) R10(5) "%60,%61,%62,%63}"
#define SS_128 ", %64, %65"
#define RS_128 ", {%64,%65,%66,%67}, %68"
#define OUT_128 D32(0), D32(32)
#define REGS_256                                                                                   \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," R10(1) R10(2) R10(3) R10(4) R10(5) R10(6) R10(7) R10(8) R10(9)  \
      R10(10) R10(11) "%120,%121,%122,%123,%124,%125,%126,%127}"
#define SS_256 ", %128, %129"
#define RS_256 ", {%128,%129,%130,%131}, %132"
#define OUT_256 D32(0), D32(32), D32(64), D32(96)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define WGMMA_D CAT(REGS_, BN) CAT(SS_, BN)
#define WGMMA_OUT CAT(OUT_, BN)
