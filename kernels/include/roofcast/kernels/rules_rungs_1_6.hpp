// Tile rules and resource formulas of rungs 1-6. Each rule is a named constexpr predicate;
// the rung's kernel static_asserts it with its reason, and violated_rule_rungs_1_6 returns
// the reason of the first one broken (the model's config enumeration uses it).
// Pure C++17, no CUDA.
//
// Names here are prefixed by the rung they belong to (naive_, smem_tiling_, tiling_1d_,
// tiling_2d_, vectorized_, conflict_free_, rungs_1_6_) so they never collide with the
// rules of rungs 7-10, which live in the same namespace.
#pragma once

#include "roofcast/gemm.hpp"

namespace roofcast::kernels::rules {

// ---- every rung 1-6 ------------------------------------------------------------------------

/// Largest block the hardware launches (all targeted architectures): 1024 threads.
inline constexpr int kRungs1To6MaxThreadsPerBlock = 1024;

/// Floats in one vector access of rungs 5-6 (float4 = 16 bytes).
inline constexpr int kRungs1To6VectorFloats = 4;

/// Threads fill whole warps and fit one block: threads % 32 == 0, 32 <= threads <= 1024.
constexpr bool rungs_1_6_block_is_whole_warps(int threads) {
  return threads >= 32 && threads <= kRungs1To6MaxThreadsPerBlock && threads % 32 == 0;
}
/// Rungs 1-6 have no warp tile: WM = WN = 0.
constexpr bool rungs_1_6_no_warp_tile(int wm, int wn) { return wm == 0 && wn == 0; }
/// Rungs 1-6 hold one shared buffer along K (double buffering is rung 8): stages = 1.
constexpr bool rungs_1_6_single_stage(int stages) { return stages == 1; }
/// Rungs 1-6 launch no thread-block clusters (rung 10): cluster = 1.
constexpr bool rungs_1_6_no_cluster(int cluster) { return cluster == 1; }
/// Every tile extent is positive.
constexpr bool rungs_1_6_tile_positive(int bm, int bn, int bk, int tm, int tn) {
  return bm >= 1 && bn >= 1 && bk >= 1 && tm >= 1 && tn >= 1;
}

// ---- rung 1 (naive) --------------------------------------------------------------------------
constexpr bool naive_threads_match_tile(int bm, int bn) {
  return bm >= 1 && bn >= 1 && bm * bn <= 1024;
}
constexpr bool naive_block_is_warp_multiple(int bm, int bn) { return bm >= 1 && bn % 32 == 0; }

// ---- rung 2 (shared-memory tiling) ------------------------------------------------------------
/// One square T x T tile: BM = BN = BK = T, so thread (ty, tx) loads A[ty][tx] and B[ty][tx]
/// of the tile and computes C[ty][tx].
constexpr bool smem_tiling_tile_is_square(int bm, int bn, int bk) {
  return bm >= 1 && bm == bn && bn == bk;
}
/// One thread per C element of the tile: threads = BM * BN.
constexpr bool smem_tiling_threads_match_tile(int bm, int bn, int threads) {
  return threads == bm * bn;
}

// ---- rungs 3-6 (register thread tiling) ------------------------------------------------------
/// The thread tile divides the block tile: BM % TM == 0 and BN % TN == 0.
constexpr bool tiling_thread_tile_divides_block(int bm, int bn, int tm, int tn) {
  return tm >= 1 && tn >= 1 && bm % tm == 0 && bn % tn == 0;
}
/// One thread per TM x TN thread tile: threads = (BM / TM) * (BN / TN).
constexpr bool tiling_threads_match_tile(int bm, int bn, int tm, int tn, int threads) {
  return tm >= 1 && tn >= 1 && threads == (bm / tm) * (bn / tn);
}
/// Registers per SM sub-partition (4 per SM) on every targeted architecture (sm_80, sm_90);
/// a warp's registers live in one sub-partition.
inline constexpr int kRungs1To6RegistersPerSubPartition = 16384;
inline constexpr int kRungs1To6SubPartitionsPerSm = 4;
/// Registers a rung 4-6 thread is expected to need: its TM * TN accumulators, two sets of
/// TM + TN fragment registers (the compiler overlaps the next k's shared reads with the current
/// FFMAs), the floats it stages from global memory per K step, (BM * BK + BK * BN) / threads
/// (rounded up, counted live throughout), and kTilingScalarRegisters for addresses, predicates
/// and loop state: register_count (roofcast/register_count.hpp).
inline constexpr int kTilingScalarRegisters = 16;
constexpr int tiling_register_estimate(int bm, int bn, int bk, int tm, int tn, int threads) {
  LiveRegisters live;
  live.accumulators = tm * tn;
  live.fragments = 2 * (tm + tn);
  live.staging = threads >= 1 ? ceil_div(bm * bk + bk * bn, threads) : 0;
  return register_count(live, kTilingScalarRegisters);
}
/// Minimum resident blocks per SM a rung 4-6 kernel asks of the compiler
/// (__launch_bounds__(threads, this)): as many blocks as the register file holds at the
/// estimate, at least 1. Warps per sub-partition at the estimate w = floor(16384 / (32 *
/// estimate)); blocks = max(1, floor(4 * w / (threads / 32))). It caps registers per thread
/// near the estimate, so the headline 128x128x8, TM = TN = 8, 256 threads (estimate
/// 64 + 32 + 8 + 16 = 120: w = 4, 2 blocks) and its BK = 16 variant (estimate 128) keep two
/// blocks per SM instead of drifting above 128 registers.
constexpr int tiling_min_blocks_per_sm(int bm, int bn, int bk, int tm, int tn, int threads) {
  const int estimate = tiling_register_estimate(bm, bn, bk, tm, tn, threads);
  const int warps_per_sub_partition = kRungs1To6RegistersPerSubPartition / (32 * estimate);
  const int warps = threads / 32;
  const int blocks =
      warps >= 1 ? kRungs1To6SubPartitionsPerSm * warps_per_sub_partition / warps : 1;
  return blocks >= 1 ? blocks : 1;
}
/// Rung 3 tiles along M only: TN = 1.
constexpr bool tiling_1d_is_one_column(int tn) { return tn == 1; }

// ---- rungs 5-6 (float4 loads, A transposed in shared memory) ---------------------------------
/// float4 loads and shared reads need 4-element groups along every axis they touch: a global
/// A vector spans 4 k (BK % 4), a B vector 4 n (BN % 4, implied by TN % 4), and the shared
/// reads of a thread's fragments 4 m and 4 n (TM % 4, TN % 4; BM % 4 follows from BM % TM).
constexpr bool vectorized_tile_is_vector_multiple(int bk, int tm, int tn) {
  return bk % kRungs1To6VectorFloats == 0 && tm % kRungs1To6VectorFloats == 0 &&
         tn % kRungs1To6VectorFloats == 0;
}
/// The XOR swizzle permutes the low 3 bits of a row's float4 index (8 float4 = 32 banks), so
/// a row must hold whole groups of 8 float4: BM % 32 == 0 and BN % 32 == 0. Its row term
/// (row / 4) * (32 / BK) spreads the BK/4 k-groups a warp's transposed A stores touch over
/// the 8 bank groups, which needs BK to divide 32.
constexpr bool conflict_free_swizzle_fits(int bm, int bn, int bk) {
  return bm % 32 == 0 && bn % 32 == 0 && bk >= 1 && 32 % bk == 0;
}

// ---- shared-memory layouts (rungs 5-6) -------------------------------------------------------

/// Floats of one shared row holding `cols` logical floats.
/// kPlain, kSwizzled: cols.
/// kPadded: one float4 of padding after every 32 floats (so float4 reads of threads 8 float4
/// apart in a row fall into different bank groups), then one more float4 when needed to make
/// the row stride an odd number of float4 (so the transposed A stores to rows k and k + 4 hit
/// different banks): s = cols + 4 * floor(cols / 32); stride = s if (s / 4) is odd, else s + 4.
constexpr int smem_row_floats(gemm::SmemLayout layout, int cols) {
  if (layout != gemm::SmemLayout::kPadded) return cols;
  const int s = cols + kRungs1To6VectorFloats * (cols / 32);
  return (s / kRungs1To6VectorFloats) % 2 == 1 ? s : s + kRungs1To6VectorFloats;
}

/// Shared memory of one block of a rung-1..6 config, bytes (sizeof(float) = 4):
///   rung 1: 0 (no shared memory);
///   rungs 2-5: (BM * BK + BK * BN) * 4, one A tile and one B tile (rung 2: 2 * T * T * 4);
///   rung 6: BK * (row(BM) + row(BN)) * 4 with row = smem_row_floats(layout, .), i.e. the
///           rung-5 size for kSwizzled and the padded rows for kPadded.
constexpr int shared_memory_bytes_rungs_1_6(const gemm::TileConfig& c) {
  constexpr int kFloatBytes = 4;
  if (c.rung == 1) return 0;
  if (c.rung == 6) {
    return c.bk * (smem_row_floats(c.layout, c.bm) + smem_row_floats(c.layout, c.bn)) * kFloatBytes;
  }
  return (c.bm * c.bk + c.bk * c.bn) * kFloatBytes;
}

/// Reason of the first broken rule, nullptr when valid.
constexpr const char* violated_rule_rungs_1_6(const gemm::TileConfig& c) {
  using gemm::SmemLayout;
  if (c.rung < 1 || c.rung > 6) return "rungs 1-6: rung must be 1..6";
  if (!rungs_1_6_no_warp_tile(c.wm, c.wn)) return "rungs 1-6: WM and WN are unused, must be 0";
  if (!rungs_1_6_single_stage(c.stages)) return "rungs 1-6: one shared buffer, stages must be 1";
  if (!rungs_1_6_no_cluster(c.cluster)) return "rungs 1-6: no clusters, cluster must be 1";
  if (!rungs_1_6_block_is_whole_warps(c.threads)) {
    return "rungs 1-6: threads must be a multiple of 32 in 32..1024";
  }
  if (c.rung <= 5 && c.layout != SmemLayout::kPlain) {
    return "rungs 1-5: plain shared layout only (padding and swizzle are rung 6)";
  }
  if (c.rung <= 4 && c.vector_width != 1) return "rungs 1-4: scalar loads, vector_width must be 1";
  if (c.rung == 1) {
    if (c.bk != 0) return "naive: no K tile, BK must be 0";
    if (c.tm != 1 || c.tn != 1) return "naive: one output per thread, TM = TN = 1";
    if (!naive_threads_match_tile(c.bm, c.bn)) return "naive: BM * BN threads, at most 1024";
    if (!naive_block_is_warp_multiple(c.bm, c.bn)) return "naive: BN must be a multiple of 32";
    if (c.threads != c.bm * c.bn) return "naive: threads must equal BM * BN";
    return nullptr;
  }
  if (!rungs_1_6_tile_positive(c.bm, c.bn, c.bk, c.tm, c.tn)) {
    return "rungs 2-6: BM, BN, BK, TM, TN must be >= 1";
  }
  if (c.rung == 2) {
    if (c.tm != 1 || c.tn != 1) return "shared tiling: one output per thread, TM = TN = 1";
    if (!smem_tiling_tile_is_square(c.bm, c.bn, c.bk)) {
      return "shared tiling: square tile, BM = BN = BK";
    }
    if (!smem_tiling_threads_match_tile(c.bm, c.bn, c.threads)) {
      return "shared tiling: one thread per C element, threads = BM * BN";
    }
    return nullptr;
  }
  if (!tiling_thread_tile_divides_block(c.bm, c.bn, c.tm, c.tn)) {
    return "thread tiling: the thread tile must divide the block tile, BM % TM = BN % TN = 0";
  }
  if (!tiling_threads_match_tile(c.bm, c.bn, c.tm, c.tn, c.threads)) {
    return "thread tiling: one thread per thread tile, threads = (BM / TM) * (BN / TN)";
  }
  if (c.rung == 3) {
    if (!tiling_1d_is_one_column(c.tn)) return "1D thread tiling: one column per thread, TN = 1";
    return nullptr;
  }
  if (c.rung == 4) return nullptr;
  if (c.vector_width != kRungs1To6VectorFloats) {
    return "rungs 5-6: float4 loads, vector_width must be 4";
  }
  if (!vectorized_tile_is_vector_multiple(c.bk, c.tm, c.tn)) {
    return "rungs 5-6: float4 accesses need BK, TM and TN to be multiples of 4";
  }
  if (c.rung == 5) return nullptr;
  if (c.layout == SmemLayout::kPlain) {
    return "bank-conflict-free: layout must be padded or swizzled (plain is rung 5)";
  }
  if (c.layout == SmemLayout::kSwizzled && !conflict_free_swizzle_fits(c.bm, c.bn, c.bk)) {
    return "bank-conflict-free swizzle: BM and BN multiples of 32, BK dividing 32";
  }
  return nullptr;
}

}  // namespace roofcast::kernels::rules
