// Tile rules and resource formulas of rungs 7-10. Each rule is a named constexpr predicate;
// the rung's kernel static_asserts it with its reason, and violated_rule_rungs_7_10 returns
// the reason of the first one broken (the model's config enumeration uses it).
// Pure C++17, no CUDA.
//
// The tile vocabulary of rungs 7-10 (kernels/ladder/warp_common.cuh implements it):
//   BM x BN   C tile of one block; BK the K depth of one shared-memory stage.
//   WM x WN   C tile of one warp; the block holds (BM / WM) x (BN / WN) warps, so
//             threads = (BM / WM) * (BN / WN) * 32.
//   TM x TN   C elements of one thread, made of (TM / 4) x (TN / 4) sub-tiles of 4 x 4: a warp's
//             32 threads form a (WM / TM) x (WN / TN) grid, and the warp tile is split into
//             (TM / 4) x (TN / 4) warp sub-tiles of 4 * (WM / TM) x 4 * (WN / TN) elements, so
//             each fragment is read from shared memory with one 16-byte load per sub-tile, and
//             the threads of a warp read consecutive 16-byte chunks (no bank conflict).
//   stages    shared-memory buffers along K: 1 (rung 7), 2 (rung 8), 2..4 (rungs 9, 10).
//   vector_width  width of A's global loads. 4: float4 loads into registers, stored transposed
//             into A^T with four 4-byte shared stores (rungs 7-10); 1: 4-byte cp.async copies
//             straight into A^T (rungs 9, 10: the 16-byte form cannot transpose). B is always
//             fetched 16 bytes at a time (4-byte loads only where its rows are misaligned) and
//             fragments are always read from shared memory as float4.
//   layout    kPadded: A is stored transposed (A^T, BK rows of BM floats) with each row padded
//             by one float4, so the transposing stores of a warp hit 32 different banks.
//   cluster   blocks per thread-block cluster (rung 10 only; 1 elsewhere): the blocks of a
//             cluster compute vertically adjacent C tiles and share each B stage, every block
//             fetching BK / cluster of its rows and multicasting them to all.
#pragma once

#include "roofcast/gemm.hpp"

namespace roofcast::kernels::rules {

/// Floats of padding after each BM-long row of A^T in shared memory (one float4).
inline constexpr int kWarpTilingPadFloatsA = 4;
/// Shared memory one block may opt into: sm_80 (A100) 163 KiB, sm_90 (H100, H200) 227 KiB.
inline constexpr int kMaxSharedBytesSm80 = 166912;
inline constexpr int kMaxSharedBytesSm90 = 232448;
/// 32-bit registers per SM and per thread (sm_80, sm_90).
inline constexpr int kRegistersPerSm = 65536;
inline constexpr int kMaxRegistersPerThread = 255;
/// Bytes of one mbarrier object (rung 10 keeps a "full" and an "empty" one per stage).
inline constexpr int kMbarrierBytes = 8;

// ---- The rules, one predicate each ----------------------------------------------------------

/// The block tile is tiled by whole warp tiles.
constexpr bool warp_tile_divides_block_tile(int bm, int bn, int wm, int wn) {
  return wm >= 1 && wn >= 1 && bm >= wm && bn >= wn && bm % wm == 0 && bn % wn == 0;
}
/// A thread's fragment is whole float4s in M and in N (one 16-byte shared load per 4 x 4
/// sub-tile), at most 16 x 16.
constexpr bool thread_tile_is_float4_sub_tiles(int tm, int tn) {
  return tm >= 4 && tn >= 4 && tm <= 16 && tn <= 16 && tm % 4 == 0 && tn % 4 == 0;
}
/// A warp's 32 threads tile the warp tile exactly: (WM / TM) x (WN / TN) = 32.
constexpr bool warp_tile_is_32_thread_tiles(int wm, int wn, int tm, int tn) {
  return tm >= 1 && tn >= 1 && wm % tm == 0 && wn % tn == 0 && (wm / tm) * (wn / tn) == 32;
}
/// threads = (BM / WM) * (BN / WN) * 32, between 32 and 1024.
constexpr bool threads_are_the_warps_of_the_block(int bm, int bn, int wm, int wn, int threads) {
  return wm >= 1 && wn >= 1 && threads == (bm / wm) * (bn / wn) * 32 && threads >= 32 &&
         threads <= 1024;
}
/// BK is 8, 16, 24 or 32: A is fetched in chunks of 8 K-columns (a warp stores 16 rows x
/// 2 float4s or 4 rows x 8 floats of a chunk into A^T, 32 different banks with the padding),
/// BK is even for the two alternating register fragments, and BK <= 32 bounds the unrolled code.
constexpr bool bk_is_whole_chunks_of_8(int bk) { return bk >= 8 && bk <= 32 && bk % 8 == 0; }
/// BM is a multiple of 32, so the padded A^T row stride BM + 4 is 4 (mod 32) banks: a store of
/// column k lands k * 4 banks further, which spreads a warp's transposing stores over all 32.
constexpr bool bm_is_multiple_of_32(int bm) { return bm >= 32 && bm % 32 == 0; }
/// Stages per rung: 1 (rung 7), 2 (rung 8: double buffering), 2..4 (rungs 9, 10: a pipeline).
constexpr bool stages_fit_the_rung(int rung, int stages) {
  if (rung == 7) return stages == 1;
  if (rung == 8) return stages == 2;
  return stages >= 2 && stages <= 4;
}
/// A's global loads: float4 through registers (4) on every rung, or 4-byte cp.async straight
/// into A^T (1) on the cp.async rungs 9 and 10.
constexpr bool a_vector_width_fits_the_rung(int rung, int vector_width) {
  return vector_width == 4 || (vector_width == 1 && rung >= 9);
}
/// The copy walks of rungs 7-10 (warp_common.cuh Walk) need, for A, threads / 2 (float4 pairs)
/// and threads / 8 (4-byte chunks) to divide BM or be divided by it, and for B, threads to
/// divide BN / 4 (float4s of a row) and BN or be divided by them: every thread's copies are
/// then one base address plus compile-time steps.
constexpr bool divides_or_divided(int a, int b) {
  return a >= 1 && b >= 1 && (a % b == 0 || b % a == 0);
}
constexpr bool copies_walk_regularly(int bm, int bn, int threads) {
  return divides_or_divided(bm, threads / 2) && divides_or_divided(bm, threads / 8) &&
         divides_or_divided(bn / 4, threads) && divides_or_divided(bn, threads);
}
/// Clusters only on rung 10: 1, 2 or 4 blocks, each multicasting BK / cluster rows of B.
constexpr bool cluster_fits_the_rung(int rung, int cluster, int bk) {
  if (rung != 10) return cluster == 1;
  return (cluster == 1 || cluster == 2 || cluster == 4) && bk % cluster == 0;
}

/// A cluster (rung 10, cluster > 1) runs with 3 or more stages: its blocks issue stage t + S - 2
/// while computing stage t, so a block may lag its peers by one stage before a multicast into a
/// buffer it still reads has to wait (cluster 1 issues stage t + S - 1).
constexpr bool cluster_stages_leave_slack(int cluster, int stages) {
  return cluster <= 1 || stages >= 3;
}

/// Floats of one shared-memory stage: A^T (BK rows of BM + 4) and B (BK rows of BN).
constexpr int stage_floats_rungs_7_10(const gemm::TileConfig& c) {
  return c.bk * (c.bm + kWarpTilingPadFloatsA) + c.bk * c.bn;
}

/// Shared memory of one block of a rung-7..10 config, bytes:
///   4 * stages * (BK * (BM + 4) + BK * BN)            (rungs 7, 8, 9; stages = 1, 2, S)
///   the same + 2 * stages * 8 mbarrier bytes           (rung 10: a full and an empty barrier
///                                                       per stage, after the stages).
constexpr int shared_memory_bytes_rungs_7_10(const gemm::TileConfig& c) {
  const int tiles = 4 * c.stages * stage_floats_rungs_7_10(c);
  return c.rung == 10 ? tiles + 2 * c.stages * kMbarrierBytes : tiles;
}

/// Staging registers of one thread for the register-staged global prefetch: the block's A and
/// B stage, (BM + BN) * BK floats, over its threads (rungs 7, 8); A's part, BM * BK, on rungs
/// 9 and 10 with float4 A loads (B goes by cp.async or bulk copies); 0 with 4-byte A copies.
constexpr int staging_registers_rungs_7_10(const gemm::TileConfig& c) {
  if (c.threads < 1) return 0;
  if (c.rung <= 8) return (c.bm + c.bn) * c.bk / c.threads;
  return c.vector_width == 4 ? c.bm * c.bk / c.threads : 0;
}

/// Registers per thread the kernel needs, an estimate used for __launch_bounds__:
///   TM * TN accumulators + 2 * (TM + TN) for two register fragments + staging (counted live
///   throughout) + kWarpTiledScalarRegisters for addresses, indices, predicates and loop state
///   (compared with ptxas in the ptxas report): register_count (roofcast/register_count.hpp).
inline constexpr int kWarpTiledScalarRegisters = 40;
constexpr int register_estimate_rungs_7_10(const gemm::TileConfig& c) {
  LiveRegisters live;
  live.accumulators = c.tm * c.tn;
  live.fragments = 2 * (c.tm + c.tn);
  live.staging = staging_registers_rungs_7_10(c);
  return register_count(live, kWarpTiledScalarRegisters);
}

/// The estimate fits the register file: at most 255 per thread, and one block resident.
constexpr bool registers_fit(const gemm::TileConfig& c) {
  const int estimate = register_estimate_rungs_7_10(c);
  return c.threads >= 32 && estimate <= kMaxRegistersPerThread &&
         estimate * c.threads <= kRegistersPerSm;
}

/// Blocks per SM asked of ptxas through __launch_bounds__(threads, min_blocks):
///   min(4, 65536 / (threads * round_up(estimate, 8))), at least 1. ptxas then keeps the
///   registers at or below 65536 / (threads * min_blocks).
constexpr int min_blocks_per_sm_rungs_7_10(const gemm::TileConfig& c) {
  const int per_thread = ceil_div(register_estimate_rungs_7_10(c), 8) * 8;
  const int blocks = c.threads > 0 ? kRegistersPerSm / (c.threads * per_thread) : 1;
  return blocks < 1 ? 1 : (blocks > 4 ? 4 : blocks);
}

/// The block's shared memory fits the opt-in maximum of every architecture the rung runs on
/// (rungs 7-9: sm_80 and sm_90; rung 10: sm_90).
constexpr bool shared_memory_fits(const gemm::TileConfig& c) {
  const int limit = c.rung == 10 ? kMaxSharedBytesSm90 : kMaxSharedBytesSm80;
  return shared_memory_bytes_rungs_7_10(c) <= limit;
}

/// Reason of the first broken rule, nullptr when valid.
constexpr const char* violated_rule_rungs_7_10(const gemm::TileConfig& c) {
  if (c.rung < 7 || c.rung > 10) return "rungs 7-10: rung must be 7..10";
  if (c.bm < 1 || c.bn < 1 || c.bk < 1) return "rungs 7-10: BM, BN and BK must be positive";
  if (!warp_tile_divides_block_tile(c.bm, c.bn, c.wm, c.wn)) {
    return "rungs 7-10: the warp tile WM x WN must divide the block tile BM x BN";
  }
  if (!thread_tile_is_float4_sub_tiles(c.tm, c.tn)) {
    return "rungs 7-10: TM and TN must be 4, 8, 12 or 16 (float4 fragments)";
  }
  if (!warp_tile_is_32_thread_tiles(c.wm, c.wn, c.tm, c.tn)) {
    return "rungs 7-10: (WM / TM) x (WN / TN) must be 32 threads (one warp)";
  }
  if (!threads_are_the_warps_of_the_block(c.bm, c.bn, c.wm, c.wn, c.threads)) {
    return "rungs 7-10: threads must equal (BM / WM) * (BN / WN) * 32, at most 1024";
  }
  if (!bk_is_whole_chunks_of_8(c.bk)) return "rungs 7-10: BK must be 8, 16, 24 or 32";
  if (!bm_is_multiple_of_32(c.bm)) {
    return "rungs 7-10: BM must be a multiple of 32 (conflict-free transposed A stores)";
  }
  if (!stages_fit_the_rung(c.rung, c.stages)) {
    return "rungs 7-10: stages must be 1 (rung 7), 2 (rung 8) or 2..4 (rungs 9, 10)";
  }
  if (!a_vector_width_fits_the_rung(c.rung, c.vector_width)) {
    return "rungs 7-10: vector_width must be 4 (float4 A loads), or 1 (4-byte cp.async A copies) "
           "on rungs 9 and 10";
  }
  if (!copies_walk_regularly(c.bm, c.bn, c.threads)) {
    return "rungs 7-10: threads / 2 and threads / 8 must divide BM or be divided by it, and "
           "threads must divide BN / 4 and BN or be divided by them (regular copy walks)";
  }
  if (c.layout != gemm::SmemLayout::kPadded) {
    return "rungs 7-10: layout must be padded (A^T rows padded by one float4)";
  }
  if (!cluster_fits_the_rung(c.rung, c.cluster, c.bk)) {
    return "rungs 7-10: cluster must be 1 (rungs 7-9) or 1, 2, 4 dividing BK (rung 10)";
  }
  if (!cluster_stages_leave_slack(c.cluster, c.stages)) {
    return "rungs 7-10: a cluster needs 3 or more stages (one stage of slack between its blocks)";
  }
  if (!registers_fit(c)) {
    return "rungs 7-10: TM * TN accumulators + fragments + staging exceed the registers a "
           "thread of this block can have (255, and 65536 / threads)";
  }
  if (!shared_memory_fits(c)) {
    return "rungs 7-10: shared memory exceeds the opt-in maximum (163 KiB on sm_80 for rungs "
           "7-9, 227 KiB on sm_90 for rung 10)";
  }
  return nullptr;
}

}  // namespace roofcast::kernels::rules
