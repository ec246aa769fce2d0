// Rung 1's anatomy (01_naive.cuh).
#include <algorithm>

#include "anatomy_families.hpp"
#include "roofcast/kernels/anatomy.hpp"

namespace roofcast::kernels::ladder {

/// Rung 1 (01_naive.cuh): thread (m, n) = (t / BN, t % BN); per k one A load (a warp shares
/// its row: broadcast) and one B load (32 consecutive n), no shared memory.
void naive_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                   KernelAnatomy& a) {
  a.k_tile = 1;
  a.outputs_per_thread = 1;
  a.a_fragment = 1;
  a.b_fragment = 1;
  a.ffma = 1;
  std::int64_t words[kWarpLanes] = {};
  walk_lanes(s.lanes, c.bn, [&](int lane, int row, int) { words[lane] = row * p.k; });
  a.global_a.instructions = 1;
  a.global_a.wavefronts =
      global_wavefronts(words, s.lanes, 1, &a.global_a.wavefronts_ideal, &a.global_a.sectors);
  walk_lanes(s.lanes, c.bn, [&](int lane, int, int col) { words[lane] = col; });
  a.global_b.instructions = 1;
  a.global_b.wavefronts =
      global_wavefronts(words, s.lanes, 1, &a.global_b.wavefronts_ideal, &a.global_b.sectors);
  // Per k: the B pointer advances by N and the loop counts; the A address is k itself.
  a.integer_overhead = 2;
  a.epilogue_instructions = 2;  // alpha * sum, store
  // No shared memory, no barrier: warps wait on their own loads (barriers = 0).
  a.shared_round_trips = 0;
  a.live_fragment_sets = 1;
}

}  // namespace roofcast::kernels::ladder
