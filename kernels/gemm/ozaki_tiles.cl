// What the two tensor-core forms of the Ozaki scheme's integer products share (ozaki_int8.cl,
// ozaki_wgmma.cl): which tile of a plane a work-group computes, and the store of its sums.

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

// Two neighbouring sums of an m x n plane, (row, col) and (row, col + 1), col even, reduced
// modulo p (`inverse` 1.0 / p) into chars: one 2-byte store where both lie in an even-width
// plane; nothing past the plane's edges.
inline void store_residue_pair(__global char *plane, ulong row, ulong col, int2 sums, int p,
                               double inverse, uint m, uint n) {
  if (row >= m)
    return;
  const char2 residues = (char2)((char)nearest_remainder(sums.x, p, inverse),
                                 (char)nearest_remainder(sums.y, p, inverse));
  __global char *const at = plane + row * n + col;
  if (n % 2 == 0 && col + 1 < n) {
    *(__global char2 *)at = residues;
    return;
  }
  if (col < n)
    at[0] = residues.x;
  if (col + 1 < n)
    at[1] = residues.y;
}
