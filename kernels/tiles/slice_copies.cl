// Step 13's slice copies, a part of matr_mul_double_buffered.cl (included after its parameters
// and checks): each work-item's share of a BK-deep slice of A and B, loaded from global memory
// into registers a_next[] and b_next[] (LOAD_SLICE(k0): the slice at k0) and stored from there
// into local buffer `buf` of the tiles As and Bs (STORE_SLICE(buf)), in the form GATHER and
// POINTERS choose and the layouts A_LINES, B_LINES, ROTATE_A and ROTATE_B ask for. The macros
// name the kernel's variables (in1, in2, tid, block_m, block_n, a_next, b_next, As, Bs): they
// expand inside it. PIECE_POINTERS declares what the POINTERS form keeps from slice to slice.
// Lines, k and leading dimensions are index_t, the kernel's int or, with INDEX64, long.

// Four consecutive elements of a K-contiguous row, zero past the matrix; 16-byte loads when
// every row starts 16-byte aligned (K a multiple of 4). whole_lines: no line is past the edge.
inline REALTYPE4 load_k4(const __global REALTYPE *matrix, index_t ld, index_t line, index_t lines,
                         index_t k, bool whole_lines) {
#if VECTOR_K
  if ((whole_lines || line < lines) && INSIDE_K(k))
    return *(const __global REALTYPE4 *)(matrix + (size_t)line * ld + k);
  return (REALTYPE4)(0);
#else
  const __global REALTYPE *p = matrix + (size_t)line * ld + k;
  bool in = line < lines;
  return (REALTYPE4)(in && k < K_ ? p[0] : 0, in && k + 1 < K_ ? p[1] : 0,
                     in && k + 2 < K_ ? p[2] : 0, in && k + 3 < K_ ? p[3] : 0);
#endif
}

// Lines line..line+3 at k of an operand stored K x lines (rows ld apart), zero past the matrix;
// one 16-byte load where rows start 16-byte aligned.
inline REALTYPE4 load_lines4(const __global REALTYPE *matrix, index_t ld, index_t line,
                             index_t lines, index_t k, bool whole_lines) {
  if (!INSIDE_K(k))
    return (REALTYPE4)(0);
  const __global REALTYPE *p = matrix + (size_t)k * ld + line;
#if ALIGNED && LDA % 4 == 0 && LDB % 4 == 0
  if (whole_lines || line + 3 < lines)
    return *(const __global REALTYPE4 *)p;
#endif
  return (REALTYPE4)(line < lines ? p[0] : 0, line + 1 < lines ? p[1] : 0,
                     line + 2 < lines ? p[2] : 0, line + 3 < lines ? p[3] : 0);
}
// Piece u of a tile of `block` lines stored K x lines: lines L_LINE..+3 at k L_K; a warp's
// lanes run along the lines, so its loads read whole rows of the operand.
#define L_LINE(u, block) ((u) % ((block) / 4) * 4)
#define L_K(u, block) ((u) / ((block) / 4))

// Element k of lines line..line+3, zero past K; `first` points at element k of `line` (of the last
// line, or with whole_lines the first of the last four, if `line` is past the edge). Lines past the
// edge read those lines instead of zeros: they only reach rows (columns) of C that are never
// stored, and the loads need no guard. whole_lines: line..line+3 are all inside the matrix, or
// all past its edge, so they lie at fixed distances.
inline REALTYPE4 gather_lines4(const __global REALTYPE *first, index_t ld, index_t line,
                               index_t lines, index_t k, bool whole_lines) {
  if (!INSIDE_K(k))
    return (REALTYPE4)(0);
  const index_t last = lines - 1, from = min(line, last);
  const index_t d1 = whole_lines ? ld : (min(line + 1, last) - from) * ld;
  const index_t d2 = whole_lines ? 2 * ld : (min(line + 2, last) - from) * ld;
  const index_t d3 = whole_lines ? 3 * ld : (min(line + 3, last) - from) * ld;
  return (REALTYPE4)(first[0], first[d1], first[d2], first[d3]);
}

// A work-item's pieces of a slice are u = tid + l * THREADS, l < A_LOADS (B_LOADS): float4s along
// K of rows of A and columns of B, or with GATHER, or A_LINES (B_LINES), 4 rows (columns) at one k.
#if GATHER
// Piece u: lines G_LINE(u)..+3 of the tile at k G_K(u); a warp's lanes run along k, so each
// 4-byte load reads whole sectors of a few lines. Any K works: no load is wider than 4 bytes.
#define G_LINE(u) ((u) / BK * 4)
#define G_K(u) ((u) % BK)
// Pieces start at multiples of 4, so where the lines are a multiple of 4 no piece straddles the
// edge: a piece past it reads the last four lines, and every piece's lines are ld apart, as in a
// whole tile. The per-line clamps, in every slice's loads, cost 2000^3 6% on an H100 (NT's set of
// 128 x 128 tiles: 0.372 ms, with fixed strides 0.352; 181 registers, 150).
#define GROUPS_OF_4(lines) ((lines) % 4 == 0)
#define FIRST_LINE_PAST(lines) ((index_t)(GROUPS_OF_4(lines) ? (lines) - 4 : (lines) - 1))
#if POINTERS // each piece's address at the first slice, computed once, then advanced by k0
#define PIECE_POINTERS                                                                             \
  const __global REALTYPE *a_src[A_LOADS], *b_src[B_LOADS];                                        \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    a_src[l] = in1 + (size_t)min(block_m + G_LINE(u), FIRST_LINE_PAST(M_)) * LDA + G_K(u);       \
  }                                                                                                \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    b_src[l] = in2 + (size_t)min(block_n + G_LINE(u), FIRST_LINE_PAST(N_)) * LDB + G_K(u);       \
  }
#define A_PIECE(l, u) a_src[l]
#define B_PIECE(l, u) b_src[l]
#else
#define PIECE_POINTERS
#define A_PIECE(l, u) (in1 + (size_t)min(block_m + G_LINE(u), FIRST_LINE_PAST(M_)) * LDA + G_K(u))
#define B_PIECE(l, u) (in2 + (size_t)min(block_n + G_LINE(u), FIRST_LINE_PAST(N_)) * LDB + G_K(u))
#endif
#define LOAD_A_SLICE(k0)                                                                           \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    index_t line = block_m + G_LINE(u);                                                            \
    a_next[l] = gather_lines4(A_PIECE(l, u) + (k0), LDA, line, M_, (k0) + G_K(u),                  \
                              WHOLE_M || GROUPS_OF_4(M_));                                         \
  }
#define LOAD_B_SLICE(k0)                                                                           \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    index_t line = block_n + G_LINE(u);                                                            \
    b_next[l] = gather_lines4(B_PIECE(l, u) + (k0), LDB, line, N_, (k0) + G_K(u),                  \
                              WHOLE_N || GROUPS_OF_4(N_));                                         \
  }
#define STORE_A_SLICE(buf)                                                                         \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    *(__local REALTYPE4 *)&As[buf][G_K(u)][G_LINE(u)] = ROTATE4(a_next[l], ROTATE_A);              \
  }
#define STORE_B_SLICE(buf)                                                                         \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    *(__local REALTYPE4 *)&Bs[buf][G_K(u)][G_LINE(u)] = ROTATE4(b_next[l], ROTATE_B);              \
  }
#else // piece u: line u / (BK / 4) of the tile at k (u % (BK / 4)) * 4, stored as 4 floats
#define PIECE_POINTERS
#define LOAD_A_SLICE(k0)                                                                           \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    a_next[l] = load_k4(in1, LDA, block_m + u / (BK / 4), M_, (k0) + (u % (BK / 4)) * 4, WHOLE_M); \
  }
#define LOAD_B_SLICE(k0)                                                                           \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    b_next[l] = load_k4(in2, LDB, block_n + u / (BK / 4), N_, (k0) + (u % (BK / 4)) * 4, WHOLE_N); \
  }
#define STORE_A_SLICE(buf)                                                                         \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS, k = (u % (BK / 4)) * 4;                                             \
    int row = ROTATED_POSITION(u / (BK / 4), ROTATE_A);                                            \
    As[buf][k][row] = a_next[l].x;                                                                 \
    As[buf][k + 1][row] = a_next[l].y;                                                             \
    As[buf][k + 2][row] = a_next[l].z;                                                             \
    As[buf][k + 3][row] = a_next[l].w;                                                             \
  }
#define STORE_B_SLICE(buf)                                                                         \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS, k = (u % (BK / 4)) * 4;                                             \
    int col = ROTATED_POSITION(u / (BK / 4), ROTATE_B);                                            \
    Bs[buf][k][col] = b_next[l].x;                                                                 \
    Bs[buf][k + 1][col] = b_next[l].y;                                                             \
    Bs[buf][k + 2][col] = b_next[l].z;                                                             \
    Bs[buf][k + 3][col] = b_next[l].w;                                                             \
  }
#endif // GATHER
#if A_LINES // A stored K x M (transposed): piece u is 4 rows of the tile at one k, one float4
#undef LOAD_A_SLICE
#undef STORE_A_SLICE
#define LOAD_A_SLICE(k0)                                                                           \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    a_next[l] = load_lines4(in1, LDA, block_m + L_LINE(u, BM), M_, (k0) + L_K(u, BM), WHOLE_M);   \
  }
#define STORE_A_SLICE(buf)                                                                         \
  for (int l = 0; l < A_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    *(__local REALTYPE4 *)&As[buf][L_K(u, BM)][L_LINE(u, BM)] = ROTATE4(a_next[l], ROTATE_A);      \
  }
#endif
#if B_LINES // B stored K x N (row-major, not transposed): likewise 4 columns at one k
#undef LOAD_B_SLICE
#undef STORE_B_SLICE
#define LOAD_B_SLICE(k0)                                                                           \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    b_next[l] = load_lines4(in2, LDB, block_n + L_LINE(u, BN), N_, (k0) + L_K(u, BN), WHOLE_N);   \
  }
#define STORE_B_SLICE(buf)                                                                         \
  for (int l = 0; l < B_LOADS; ++l) {                                                              \
    int u = tid + l * THREADS;                                                                     \
    *(__local REALTYPE4 *)&Bs[buf][L_K(u, BN)][L_LINE(u, BN)] = ROTATE4(b_next[l], ROTATE_B);      \
  }
#endif
#define LOAD_SLICE(k0) LOAD_A_SLICE(k0) LOAD_B_SLICE(k0)
#define STORE_SLICE(buf) STORE_A_SLICE(buf) STORE_B_SLICE(buf)
