// Rung 2's anatomy (02_shared_tiling.cuh).
#include "anatomy_families.hpp"
#include "roofcast/kernels/anatomy.hpp"

namespace roofcast::kernels::ladder {

/// Rung 2 (02_shared_tiling.cuh): T x T tiles, thread (ty, tx); per K tile one A and one B
/// element loaded and stored; per k as[ty*T + k] and bs[k*T + tx]. nvcc 13.0 reads a thread's
/// row of A four k at a time (sm_90 SASS of 32x32x32: 8 LDS.128 of A, 32 LDS of B per tile; the
/// row starts at ty*T words, 16-byte aligned when T % 4 == 0).
void shared_tiling_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                           KernelAnatomy& a) {
  const int t = c.bm;
  a.k_tile = t;
  a.outputs_per_thread = 1;
  a.a_fragment = 1;
  a.b_fragment = 1;
  a.ffma = t;
  a.global_a = tile_global_load(s, t, t, p.k, a.threads, 1, true);
  a.global_b = tile_global_load(s, t, t, p.n, a.threads, 1, true);
  a.store_a = contiguous_store(s, 1, 1);
  a.store_b = contiguous_store(s, 1, 1);
  a.staging_registers = 2;
  std::int64_t words[kWarpLanes] = {};
  const int a_width = fragment_read_floats_a(c);
  a.load_a.instructions = t / a_width;
  a.load_a.vector_floats = a_width;
  walk_lanes(s.lanes, t, [&](int lane, int ty, int) { words[lane] = ty * t; });
  a.load_a.wavefronts =
      shared_load_wavefronts(words, s.lanes, a_width, s.banks, &a.load_a.wavefronts_ideal);
  a.load_b.instructions = t;
  walk_lanes(s.lanes, t, [&](int lane, int, int tx) { words[lane] = tx; });
  a.load_b.wavefronts =
      shared_load_wavefronts(words, s.lanes, 1, s.banks, &a.load_b.wavefronts_ideal);
  a.barriers = 2;
  a.integer_overhead = 2 * kIntegerPerGlobalLoad + kLoopInstructionsPerTile;
  a.compiled_overhead = compiled_overhead_instructions(c, a);
  a.epilogue_instructions = 2;
  a.shared_round_trips = 2;  // the staged store, the read after the barrier
  a.live_fragment_sets = 1;  // one value of A and of B per k, read as used
}

}  // namespace roofcast::kernels::ladder
