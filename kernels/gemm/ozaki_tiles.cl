// What the two tensor-core forms of the Ozaki scheme's integer products share (ozaki_int8.cl,
// ozaki_wgmma.cl; ozaki.cl includes nv/ptx_helpers.cl first): the copy of a chunk of residue
// lines into a tile, which tile of a plane a work-group computes, the copies of a slice of K, and
// the store of the sums.

// Chunk k (16 chars) of line `line` of `lines` residue lines of `padded` chars, into a tile slot;
// zeros past the last line or K.
inline void copy_residues(__local uint *dst, __global const char *residues, size_t line,
                          size_t lines, uint padded, uint k) {
  const bool in = line < lines && k < padded;
  __global const char *src = residues + (in ? line * padded + k : 0);
  copy_chunk((__local float *)dst, (__global const float *)src, in);
}

// The first row and column of this work-group's `rows` x `columns` tile of an m x n plane:
// tile rows in groups of `group_m`, column by column inside a group, so the work-groups running
// together share tiles of B in L2.
inline ulong2 tile_origin(uint m, uint n, int rows, int columns, int group_m) {
  const int blocks_m = (m + rows - 1) / rows, blocks_n = (n + columns - 1) / columns;
  const int block = get_group_id(0);
  const int first_m = block / (group_m * blocks_n) * group_m;
  const int group_rows = min(blocks_m - first_m, group_m);
  return (ulong2)((ulong)(first_m + block % group_rows) * rows,
                  (ulong)((block % (group_m * blocks_n)) / group_rows) * columns);
}

// Two neighbouring sums of an m x n plane, (row, col) and (row, col + 1), reduced modulo p into
// chars; nothing past the plane's edges.
inline void store_residue_pair(__global char *plane, ulong row, ulong col, int2 sums, int p,
                               uint m, uint n) {
  if (row >= m)
    return;
  if (col < n)
    plane[row * n + col] = (char)symmetric(sums.x % p, p);
  if (col + 1 < n)
    plane[row * n + col + 1] = (char)symmetric(sums.y % p, p);
}

// Copies slice s of K of the work-group's tiles of A and B (lines of BK chars, WORDS words, CHUNKS
// 16-byte chunks, laid out by the includer's TILE_AT) into stage s % STAGES of As and Bs, and
// commits them as a group: one group for every slice, empty past the last (`slices`), so waiting
// for copies always counts the same way. A macro over the kernel's variables (tid, a, b, m, n,
// padded, block_m, block_n), expanded where the kernel uses it.
#define COPY_RESIDUE_SLICE(s)                                                                      \
  {                                                                                                \
    const int stage = (s) % STAGES;                                                                \
    const uint k0 = (uint)(s) * BK;                                                                \
    if ((s) < slices) {                                                                            \
      _Pragma("unroll") for (int l = 0; l < A_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = u / CHUNKS, w = (u % CHUNKS) * 4;                     \
        copy_residues(&As[stage * BM * WORDS + TILE_AT(r, w)], a, block_m + r, m, padded,          \
                      k0 + 4 * w);                                                                 \
      }                                                                                            \
      _Pragma("unroll") for (int l = 0; l < B_COPIES; ++l) {                                       \
        const int u = tid + l * THREADS, r = u / CHUNKS, w = (u % CHUNKS) * 4;                     \
        copy_residues(&Bs[stage * BN * WORDS + TILE_AT(r, w)], b, block_n + r, n, padded,          \
                      k0 + 4 * w);                                                                 \
      }                                                                                            \
    }                                                                                              \
    copies_commit();                                                                               \
  }
