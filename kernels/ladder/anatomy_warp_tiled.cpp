// Rungs 7-10's anatomy (warp_common.cuh, 07_warp_tiling.cuh to 10_hopper_cluster.cuh).
#include <algorithm>
#include <cstdint>

#include "anatomy_families.hpp"
#include "roofcast/kernels/anatomy.hpp"

namespace roofcast::kernels {

double unaligned_copy_integer(UnalignedCopy path) {
  switch (path) {
    case UnalignedCopy::kScalarLoad:
      return kUnalignedScalarLoadInteger;
    case UnalignedCopy::kByteCopy:
      return kUnalignedByteCopyInteger;
  }
  return 0.0;
}

int chain_prefetch_tiles(const gemm::TileConfig& c, int prefetch_tiles) {
  const bool a_in_registers = c.rung >= 9 && c.vector_width == ladder::kVectorFloats;
  return a_in_registers ? std::min(1, prefetch_tiles) : prefetch_tiles;
}

StageWait stage_wait_kind(int rung, bool b_bulk_copy) {
  if (rung != 10) return StageWait::kNone;
  return b_bulk_copy ? StageWait::kBulkCopy : StageWait::kFallback;
}

namespace ladder {

/// Padding after each A^T row of rungs 7-10 (rules::kWarpTilingPadFloatsA).
constexpr int kWarpTilingPadFloats = 4;

/// A cp.async writes shared memory as its global data returns: one write wavefront per global
/// wavefront of the copy at least, whatever the banks allow. Nsight Compute's shared wavefronts
/// of the 4-byte A copies (rungs 9-10, vector_width 1; 45 training configs at 2048^3, run
/// c97b1bb) imply a median 4.0 per copy instruction, where the banks alone give 1 and the copy
/// reads 4 global wavefronts (experiments/sample/ncu_counts.py; docs/model.md#asynchronous-copies).
constexpr int async_copy_store_wavefronts(int bank_wavefronts, int global_wavefronts) {
  return std::max(bank_wavefronts, global_wavefronts);
}

/// Rungs 7-10 (warp_common.cuh). Stage layout: A^T, BK rows of BM + 4 floats, then B, BK rows
/// of BN. Warp w holds warp tile (w / (BN/WN), w % (BN/WN)); lane l is thread
/// (l / (WN/TN), l % (WN/TN)) of the warp's grid and reads, per k, TM/4 float4 of A^T row k at
/// a_col = warp_m*WM + (l / (WN/TN))*4 + i*4*(WM/TM) and TN/4 float4 of B row k likewise.
/// Global copies:
///   A, vector_width 4 (every rung): float4 pairs through registers, thread t at row
///     (t/2) % BM, K-column 8*((t/2) / BM) + 4*(t%2), stored transposed by four 4-byte stores;
///   A, vector_width 1 (rungs 9, 10): 4-byte cp.async copies straight into A^T, thread t at
///     row (t/8) % BM, K-column 8*((t/8) / BM) + t%8;
///   B: float4 along rows, through registers (rungs 7, 8), by 16-byte cp.async (rung 9) or by
///     bulk copies of whole rows issued by the lanes of warp 0 and multicast to the cluster
///     (rung 10; cp.async where B's rows are not 16-byte aligned).
void warp_tiled_anatomy(const gemm::Problem& p, const TileConfig& c, const WarpShape& s,
                        KernelAnatomy& a) {
  const int lda = c.bm + kWarpTilingPadFloats;
  const int thread_cols = std::max(1, c.wn / c.tn);  // a warp's threads along N
  register_tile_work(c, a);
  a.warp_tiled = true;
  a.a_vector = p.k % kVectorFloats == 0;
  a.b_vector = p.n % kVectorFloats == 0;
  // Prefetch distance: rung 8 one stage; rung 9 and rung 10 without a cluster S - 1; rung 10
  // with a cluster S - 2 (one stage of slack before a multicast overwrites a peer's buffer).
  a.prefetch_tiles =
      c.rung == 7 ? 0 : std::max(1, c.stages - (c.rung == 10 && c.cluster > 1 ? 2 : 1));
  a.chain_prefetch_tiles = chain_prefetch_tiles(c, a.prefetch_tiles);
  a.fragment_double_buffer = c.rung >= 8;
  a.live_fragment_sets = 2;  // double-buffered (rungs 8-10) or hoisted by the compiler (rung 7)
  const bool a_in_registers = c.rung <= 8 || c.vector_width == kVectorFloats;
  a.a_async_copy = !a_in_registers;
  a.b_async_copy = c.rung >= 9;
  a.b_bulk_copy = c.rung == 10 && a.b_vector;
  a.b_multicast_blocks = a.b_bulk_copy ? std::max(1, c.cluster) : 1;
  // A staged copy's store and the read after the barrier; an asynchronous copy's read only.
  a.shared_round_trips = a.a_async_copy && a.b_async_copy ? 1 : 2;
  a.stage_wait = stage_wait_kind(c.rung, a.b_bulk_copy);
  const double a_vectors = copies_per_warp(c.bm * c.bk / kVectorFloats, a.threads);
  const double b_vectors = copies_per_warp(c.bk * c.bn / kVectorFloats, a.threads);
  const double a_elements = copies_per_warp(c.bm * c.bk, a.threads);
  std::int64_t words[kWarpLanes] = {};
  std::int64_t shared[kWarpLanes] = {};
  // Lane l's copy position: (row, col) = ((l / per) % BM, 8 * ((l / per) / BM) + ...), walked
  // by stepping (per = 2 float4 per chunk row, or 8 floats for the 4-byte copies).
  auto walk_chunks = [&](int per, int col_step) {
    int row = 0;
    int chunk = 0;
    int in_row = 0;
    for (int l = 0; l < s.lanes; ++l) {
      const int col = 8 * chunk + col_step * in_row;
      words[l] = static_cast<std::int64_t>(row) * p.k + col;
      shared[l] = static_cast<std::int64_t>(col) * lda + row;
      if (++in_row == per) {
        in_row = 0;
        if (++row == c.bm) {
          row = 0;
          ++chunk;
        }
      }
    }
  };
  if (a_in_registers) {
    walk_chunks(2, kVectorFloats);
    a.global_a.instructions = a.a_vector ? a_vectors : kVectorFloats * a_vectors;
    a.global_a.vector_floats = a.a_vector ? kVectorFloats : 1;
    a.global_a.wavefronts = global_wavefronts(words, s.lanes, kVectorFloats,
                                              &a.global_a.wavefronts_ideal, &a.global_a.sectors);
    if (!a.a_vector) a.global_a.wavefronts_ideal = std::max(1, a.global_a.wavefronts_ideal / 4);
    a.store_a.instructions = kVectorFloats * a_vectors;
    a.store_a.wavefronts =
        shared_wavefronts(shared, s.lanes, 1, s.banks, &a.store_a.wavefronts_ideal);
    a.staging_registers =
        kVectorFloats * (ceil_div(c.bm * c.bk / kVectorFloats, a.threads) +
                         (a.b_async_copy ? 0 : ceil_div(c.bk * c.bn / kVectorFloats, a.threads)));
  } else {
    walk_chunks(8, 1);
    a.global_a.instructions = a_elements;
    a.global_a.wavefronts =
        global_wavefronts(words, s.lanes, 1, &a.global_a.wavefronts_ideal, &a.global_a.sectors);
    a.store_a.instructions = a_elements;  // the copies' shared-memory writes
    a.store_a.wavefronts = async_copy_store_wavefronts(
        shared_wavefronts(shared, s.lanes, 1, s.banks, &a.store_a.wavefronts_ideal),
        a.global_a.wavefronts);
  }
  // B: float4 along rows (thread t at row t / (BN/4), column 4 * (t % (BN/4))).
  walk_lanes(s.lanes, c.bn / kVectorFloats, [&](int lane, int row, int v) {
    words[lane] = static_cast<std::int64_t>(row) * p.n + v * kVectorFloats;
    shared[lane] = static_cast<std::int64_t>(row) * c.bn + v * kVectorFloats;
  });
  if (a.b_bulk_copy) {
    // The bulk-copy engine writes whole B rows into shared memory: BK * BN * 4 bytes per
    // block per stage, spread over the warps here; no thread instructions, no L1.
    a.store_b.instructions =
        static_cast<double>(c.bk) * c.bn * kFloatBytes / kWavefrontBytes / a.warps;
    a.store_b.vector_floats = kVectorFloats;
    a.store_b.wavefronts = 1;
    a.store_b.wavefronts_ideal = 1;
  } else if (a.b_async_copy && !a.b_vector) {
    // Rungs 9-10 with unaligned B rows: 4-byte cp.async (BElementCopies), thread t at row
    // t / BN, column t % BN, a warp's 32 consecutive floats of a row.
    walk_lanes(s.lanes, c.bn, [&](int lane, int row, int col) {
      words[lane] = static_cast<std::int64_t>(row) * p.n + col;
      shared[lane] = static_cast<std::int64_t>(row) * c.bn + col;
    });
    a.global_b.instructions = copies_per_warp(c.bk * c.bn, a.threads);
    a.global_b.wavefronts =
        global_wavefronts(words, s.lanes, 1, &a.global_b.wavefronts_ideal, &a.global_b.sectors);
    a.store_b.instructions = a.global_b.instructions;
    a.store_b.wavefronts = async_copy_store_wavefronts(
        shared_wavefronts(shared, s.lanes, 1, s.banks, &a.store_b.wavefronts_ideal),
        a.global_b.wavefronts);
  } else {
    a.global_b = tile_global_load(s, c.bk, c.bn, p.n, a.threads, kVectorFloats, a.b_vector);
    a.store_b.instructions = b_vectors;
    a.store_b.vector_floats = kVectorFloats;
    a.store_b.wavefronts =
        shared_wavefronts(shared, s.lanes, kVectorFloats, s.banks, &a.store_b.wavefronts_ideal);
  }
  // Fragments at k = 0, first sub-tile.
  walk_lanes(s.lanes, thread_cols, [&](int lane, int tr, int tc) {
    words[lane] = static_cast<std::int64_t>(tr) * kVectorFloats;
    shared[lane] = static_cast<std::int64_t>(c.bk) * lda + tc * kVectorFloats;
  });
  a.load_a.instructions = static_cast<double>(c.tm) / kVectorFloats * c.bk;
  a.load_a.vector_floats = kVectorFloats;
  a.load_a.wavefronts =
      shared_load_wavefronts(words, s.lanes, kVectorFloats, s.banks, &a.load_a.wavefronts_ideal);
  a.load_b.instructions = static_cast<double>(c.tn) / kVectorFloats * c.bk;
  a.load_b.vector_floats = kVectorFloats;
  a.load_b.wavefronts =
      shared_load_wavefronts(shared, s.lanes, kVectorFloats, s.banks, &a.load_b.wavefronts_ideal);
  // Barriers per stage: two with one buffer (rung 7), one once the next stage lands in
  // another buffer (rungs 8, 10: one __syncthreads per K tile after thread 0's wait on the
  // stage's full barrier); rung 9 also waits for its cp.async groups: one more.
  a.barriers = c.rung == 7 || c.rung == 9 ? 2 : 1;
  // Rung 9's interior blocks (every stage inside A and B: K % BK == 0 and float4 rows; the
  // model takes every block as interior) copy B, and with vector_width 4 A, from per-thread
  // pointers advanced once per stage: no address or predicate per copy, one add per pointer.
  const bool interior = c.rung == 9 && p.k % c.bk == 0 && a.a_vector && a.b_vector;
  // Unaligned rows (unaligned_copy_integer): A through registers with K % 4 != 0 and B through
  // registers with N % 4 != 0 take the guarded scalar fallback of load4; B by cp.async with
  // N % 4 != 0 takes guarded 4-byte copies.
  const double scalar_a = a_in_registers && !a.a_vector ? a.global_a.instructions : 0.0;
  const double scalar_b =
      !a.b_bulk_copy && !a.b_vector && !a.b_async_copy ? a.global_b.instructions : 0.0;
  const double byte_b = a.b_async_copy && !a.b_vector ? a.global_b.instructions : 0.0;
  const double predicated_loads =
      interior ? (a_in_registers ? 0.0 : a.global_a.instructions)
               : a.global_a.instructions + a.global_b.instructions - scalar_a - scalar_b - byte_b;
  const double pointer_advances = interior ? (a_in_registers ? 2 : 1) : 0;
  const double unaligned_integer =
      unaligned_copy_integer(UnalignedCopy::kScalarLoad) * (scalar_a + scalar_b) +
      unaligned_copy_integer(UnalignedCopy::kByteCopy) * byte_b;
  a.unaligned_copy_instructions = unaligned_integer + scalar_a + scalar_b + byte_b;
  a.integer_overhead = kIntegerPerGlobalLoad * predicated_loads + unaligned_integer +
                       pointer_advances + kLoopInstructionsPerTile;
  a.compiled_overhead = compiled_overhead_instructions(c, a);
  const int c_vectors = a.outputs_per_thread / kVectorFloats;
  a.epilogue_instructions =
      a.outputs_per_thread + 2.0 * (a.b_vector ? c_vectors : kVectorFloats * c_vectors);
  a.c_store_sectors = c_store_sectors_per_warp(s.lanes, std::max(1, c.wn / c.tn), c.tm, c.tn,
                                               a.b_vector ? kVectorFloats : 1, p.n);
}

}  // namespace ladder
}  // namespace roofcast::kernels
