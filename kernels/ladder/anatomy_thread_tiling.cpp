// Rungs 3-4's anatomy (03_thread_tiling_1d.cuh, 04_thread_tiling_2d.cuh).
#include <algorithm>

#include "anatomy_families.hpp"
#include "roofcast/kernels/anatomy.hpp"

namespace roofcast::kernels {

int fragment_read_floats_a(const gemm::TileConfig& c) {
  if (c.rung == 2 || c.rung == 3) {
    return c.bk % ladder::kVectorFloats == 0 ? ladder::kVectorFloats : 1;
  }
  return c.rung == 4 && c.bk % 2 == 0 ? 2 : 1;
}

int fragment_reloads_a(const gemm::TileConfig& c) {
  return c.rung == 3 && fragment_read_floats_a(c) == ladder::kVectorFloats ? c.tm : 0;
}

int fragment_read_floats_b(const gemm::TileConfig& c) {
  if (c.rung != 4) return 1;
  return c.tn % ladder::kVectorFloats == 0 ? ladder::kVectorFloats : c.tn % 2 == 0 ? 2 : 1;
}

int fragment_round_trips(const gemm::TileConfig& c) {
  return c.rung == 4 ? std::max(1, c.bk / fragment_read_floats_a(c)) : 1;
}

namespace ladder {

/// Rungs 3-4 (03_thread_tiling_1d.cuh, 04_thread_tiling_2d.cuh): scalar tile copies
/// (load_tile_scalar: element e -> (e / cols, e % cols)), As[m][k] and Bs[k][n] plain; thread
/// (tr, tc) = (t / (BN/TN), t % (BN/TN)) reads TM values as[(tr*TM + i)*BK + k] and TN values
/// bs[k*BN + tc*TN + j] per k.
void thread_tiling_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                           KernelAnatomy& a) {
  register_tile_work(c, a);
  a.global_a = tile_global_load(s, c.bm, c.bk, p.k, a.threads, 1, true);
  a.global_b = tile_global_load(s, c.bk, c.bn, p.n, a.threads, 1, true);
  a.store_a = contiguous_store(s, a.global_a.instructions, 1);
  a.store_b = contiguous_store(s, a.global_b.instructions, 1);
  a.staging_registers = ceil_div(c.bm * c.bk, a.threads) + ceil_div(c.bk * c.bn, a.threads);
  a.register_staged_loads = a.staging_registers;  // the tile's loads come before its stores
  const int threads_per_row = c.bn / c.tn;
  std::int64_t words[kWarpLanes] = {};
  const int a_width = fragment_read_floats_a(c);
  const int b_width = fragment_read_floats_b(c);
  a.load_a.instructions = static_cast<double>(c.tm) * c.bk / a_width;
  a.load_a.vector_floats = a_width;
  walk_lanes(s.lanes, threads_per_row,
             [&](int lane, int tr, int) { words[lane] = tr * c.tm * c.bk; });
  a.load_a.wavefronts =
      shared_load_wavefronts(words, s.lanes, a_width, s.banks, &a.load_a.wavefronts_ideal);
  a.reload_a.instructions = fragment_reloads_a(c);
  if (a.reload_a.instructions > 0) {
    walk_lanes(s.lanes, threads_per_row,
               [&](int lane, int tr, int) { words[lane] = tr * c.tm * c.bk + c.bk - 1; });
    a.reload_a.wavefronts =
        shared_load_wavefronts(words, s.lanes, 1, s.banks, &a.reload_a.wavefronts_ideal);
  }
  a.load_b.instructions = static_cast<double>(c.tn) * c.bk / b_width;
  a.load_b.vector_floats = b_width;
  walk_lanes(s.lanes, threads_per_row, [&](int lane, int, int tc) { words[lane] = tc * c.tn; });
  a.load_b.wavefronts =
      shared_load_wavefronts(words, s.lanes, b_width, s.banks, &a.load_b.wavefronts_ideal);
  a.fragment_round_trips = fragment_round_trips(c);
  a.barriers = 2;
  a.integer_overhead = kIntegerPerGlobalLoad * (a.global_a.instructions + a.global_b.instructions) +
                       kLoopInstructionsPerTile;
  a.compiled_overhead = compiled_overhead_instructions(c, a);
  a.epilogue_instructions = 2.0 * c.tm * c.tn;
  a.c_store_sectors = c_store_sectors_per_warp(s.lanes, threads_per_row, c.tm, c.tn, 1, p.n);
  a.shared_round_trips = 2;  // the staged store, the read after the barrier
  a.live_fragment_sets = 2;  // the next k's fragments are read during the current FFMAs
}

}  // namespace ladder
}  // namespace roofcast::kernels
