// Step 13's thin edges: where a product's tiles leave C's last rows or columns a few lines wide,
// or K a few elements past its last whole slice, the tiles run the whole-tile block alone (no
// checks compiled in, and the block's own tuned set), and kernels/gemm/thin.cl adds the rest:
// K's rest as a rank update of the block, the last rows and the last columns as strips, each
// reading its long operand once across the device. On an H200 a one-line edge cost the tiles
// 18.5% at 4097 and K's checks 16% (docs/performance.md).
#pragma once

#include "gemm/gemm.hpp"
#include "gemm/planner.hpp"

#include <optional>

namespace mqlcl::gemm {

// Strips at most this many lines wide run as strips; wider edges stay in the tiles.
constexpr uint32_t kThinLines = 4;

// Products of fewer multiply-adds (M * N * K * batch) keep their edges in the tiles: the pieces'
// launches would cost more than the edges (unless MQLCL_GEMM_EDGES says otherwise).
constexpr double kSplitEdgesFrom = 8589934592.0; // 2^33

// The block of whole tiles, M x N x K: smaller than the call in at least one size.
struct EdgeSplit {
  uint32_t m = 0, n = 0, k = 0;
};

// Whether `call`, planned as `plan`, runs as a block and thin pieces. MQLCL_GEMM_EDGES: "split"
// splits wherever the edges are thin, whatever the size (tests, measurements); "tiles" never.
std::optional<EdgeSplit> edge_split(const Call &call, const Plan &plan,
                                    EnvironmentReader environment);

// The call restricted to the block: the same operands, from the same elements.
Call block_of(const Call &call, const EdgeSplit &split);

// `block` (block_of's) with each operand whose rows do not all start on 16-byte boundaries first
// copied (enqueued here) into one whose rows do: on an H200 the block of 4097³ took 11% (NN) and
// 48% (TN) longer reading its operands in place. Not an operand that the block's own plan copies
// transposed anyway (`a_copied`, `b_copied`): that copy reads rows wherever they start.
Call aligned_block(const Context &context, ContextState &state, Call block, bool a_copied,
                   bool b_copied, bool &first);

// Builds the pieces' kernels (kept by the context), so that a build that fails does so before
// the block has written C.
void build_thin_edges(const Context &context, ContextState &state, const Call &call,
                      const EdgeSplit &split);

// Enqueues the pieces past the block (after the block's product, which they update).
void run_thin_edges(const Context &context, ContextState &state, const Call &call,
                    const EdgeSplit &split, bool &first);

// What CL_GEMM_PLAN adds to the block's plan: " + thin.cl for K 4096..4096, rows 4096..4096,
// columns 4096..4096 (block 4096 x 4096 x 4096)".
std::string edges_text(const Call &call, const EdgeSplit &split);

} // namespace mqlcl::gemm
