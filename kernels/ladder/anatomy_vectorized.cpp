// Rungs 5-6's anatomy (05_vectorized.cuh, 06_conflict_free.cuh).
#include <algorithm>

#include "anatomy_families.hpp"
#include "roofcast/kernels/anatomy.hpp"

namespace roofcast::kernels::ladder {

/// Rungs 5-6 (05_vectorized.cuh, 06_conflict_free.cuh): float4 global loads; A stored
/// transposed As[k][m] by four scalar stores per float4 (element e -> m = e / (BK/4),
/// k = e % (BK/4) * 4); B stored as float4 at Bs[k][n]; thread (tr, tc) reads TM/4 and TN/4
/// float4 fragments of row k; tiles laid out by shared_tile_offset(layout).
void vectorized_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                        KernelAnatomy& a) {
  register_tile_work(c, a);
  a.a_vector = p.k % kVectorFloats == 0;
  a.b_vector = p.n % kVectorFloats == 0;
  a.global_a = tile_global_load(s, c.bm, c.bk, p.k, a.threads, kVectorFloats, a.a_vector);
  a.global_b = tile_global_load(s, c.bk, c.bn, p.n, a.threads, kVectorFloats, a.b_vector);
  const double a_vectors_per_thread = copies_per_warp(c.bm * c.bk / kVectorFloats, a.threads);
  const double b_vectors_per_thread = copies_per_warp(c.bk * c.bn / kVectorFloats, a.threads);
  std::int64_t words[kWarpLanes] = {};
  // A: four scalar stores per float4, transposed; the store of component 0 stands for all.
  walk_lanes(s.lanes, c.bk / kVectorFloats, [&](int lane, int m, int kq) {
    words[lane] = shared_tile_offset(c.layout, c.bk, c.bm, kq * kVectorFloats, m);
  });
  a.store_a.instructions = kVectorFloats * a_vectors_per_thread;
  a.store_a.wavefronts = shared_wavefronts(words, s.lanes, 1, s.banks, &a.store_a.wavefronts_ideal);
  // B: float4 stores in place.
  walk_lanes(s.lanes, c.bn / kVectorFloats, [&](int lane, int k, int nq) {
    words[lane] = shared_tile_offset(c.layout, c.bk, c.bn, k, nq * kVectorFloats);
  });
  a.store_b.instructions = b_vectors_per_thread;
  a.store_b.vector_floats = kVectorFloats;
  a.store_b.wavefronts =
      shared_wavefronts(words, s.lanes, kVectorFloats, s.banks, &a.store_b.wavefronts_ideal);
  a.staging_registers = kVectorFloats * (ceil_div(c.bm * c.bk / kVectorFloats, a.threads) +
                                         ceil_div(c.bk * c.bn / kVectorFloats, a.threads));
  a.register_staged_loads = a.staging_registers;  // the tile's loads come before its stores
  // Fragments at k = 0, first float4.
  const int threads_per_row = c.bn / c.tn;
  walk_lanes(s.lanes, threads_per_row, [&](int lane, int tr, int) {
    words[lane] = shared_tile_offset(c.layout, c.bk, c.bm, 0, tr * c.tm);
  });
  a.load_a.instructions = static_cast<double>(c.tm) / kVectorFloats * c.bk;
  a.load_a.vector_floats = kVectorFloats;
  a.load_a.wavefronts =
      shared_load_wavefronts(words, s.lanes, kVectorFloats, s.banks, &a.load_a.wavefronts_ideal);
  walk_lanes(s.lanes, threads_per_row, [&](int lane, int, int tc) {
    words[lane] = shared_tile_offset(c.layout, c.bk, c.bn, 0, tc * c.tn);
  });
  a.load_b.instructions = static_cast<double>(c.tn) / kVectorFloats * c.bk;
  a.load_b.vector_floats = kVectorFloats;
  a.load_b.wavefronts =
      shared_load_wavefronts(words, s.lanes, kVectorFloats, s.banks, &a.load_b.wavefronts_ideal);
  a.barriers = 2;
  a.integer_overhead = kIntegerPerGlobalLoad * (a.global_a.instructions + a.global_b.instructions) +
                       kLoopInstructionsPerTile;
  a.compiled_overhead = compiled_overhead_instructions(c, a);
  const int c_vectors = a.outputs_per_thread / kVectorFloats;
  a.epilogue_instructions =
      a.outputs_per_thread + 2.0 * (a.b_vector ? c_vectors : kVectorFloats * c_vectors);
  a.c_store_sectors = c_store_sectors_per_warp(s.lanes, threads_per_row, c.tm, c.tn,
                                               a.b_vector ? kVectorFloats : 1, p.n);
  a.shared_round_trips = 2;  // the staged store, the read after the barrier
  a.live_fragment_sets = 2;  // the next k's fragments are read during the current FFMAs
}

}  // namespace roofcast::kernels::ladder
