// Rung 6, bank-conflict-free shared layout: rung 5's kernel (vectorized_block) with its two
// shared tiles, As[BK][BM] (A transposed) and Bs[BK][BN], laid out so that the accesses that
// conflict in rung 5's plain layout do not. Shared memory has 32 banks of 4 bytes; a float4
// covers 4 consecutive banks, so the 8 float4 of one 128-byte row segment are 8 "bank groups".
// Rung 5's conflicts (headline tile 128x128x8, TM = TN = 8, 16 threads per tile row):
//   - transposed A stores: threads 2j and 2j + 1 load A[m][0..3] and A[m][4..7] and store
//     column m of rows k and k + 4, which lie BM floats apart, a multiple of 32: same bank;
//   - B fragment reads: threads tc = 0..7 of a warp read the float4 at columns 8 * tc (+ 4),
//     which fall into bank groups 0, 2, 4, 6, 0, 2, 4, 6: 2-way (4 groups of 8 used, not 8).
// The two variants (config.layout, SmemTile in common.cuh):
//   kPadded:   one float4 of padding after every 32 floats of a row, and the row stride an
//              odd number of float4 (rules::smem_row_floats). Columns 32 apart shift by one
//              bank group (B reads: groups 0, 2, 4, 6, 1, 3, 5, 7) and rows k, k + 4 shift by
//              16 banks (A stores). Costs shared memory; for BK >= 16 the A stores of rows
//              k, k + 8 meet again (2-way).
//   kSwizzled: float4 index v of a row stored at v ^ x, x = (v / 8 + (row / 4) * (32 / BK)) % 8:
//              the column term spreads B reads like the padding does, the row term sends the
//              BK / 4 k-groups of a warp's transposed A stores to different bank groups.
//              No extra shared memory; needs BM, BN % 32 == 0 and BK | 32.
//
// Tile vocabulary (registry fields this rung reads): as rung 5 (05_vectorized.cuh) — BM, BN,
// BK (% 4), TM, TN (% 4), threads = (BM / TM) * (BN / TN), vector_width 4 — plus
//   layout   kPadded or kSwizzled (kPlain is rung 5).
// Shared memory (dynamic): BK * (row(BM) + row(BN)) * 4 bytes, row = rules::smem_row_floats:
// padded row(L) = L + 4 * floor(L / 32), plus 4 when that is an even number of float4;
// swizzled row(L) = L (the rung-5 size).
// Edge tiles and unaligned rows: as rung 5 (zero-filled loads, guarded stores, scalar
// fallback when K % 4 != 0 or N % 4 != 0).
#pragma once

#include <cuda_runtime.h>

#include "ladder/05_vectorized.cuh"
#include "ladder/common.cuh"
#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

template <std::size_t kIndex, gemm::SmemLayout kLayout = compiled_config(kIndex).layout,
          int kBm = compiled_config(kIndex).bm, int kBn = compiled_config(kIndex).bn,
          int kBk = compiled_config(kIndex).bk, int kTm = compiled_config(kIndex).tm,
          int kTn = compiled_config(kIndex).tn, int kThreads = compiled_config(kIndex).threads>
__global__ void __launch_bounds__(kThreads, rules::tiling_min_blocks_per_sm(kBm, kBn, kBk, kTm, kTn,
                                                                            kThreads))
    sgemm_conflict_free(SgemmArgs args) {
  check_vectorized_tile<kBm, kBn, kBk, kTm, kTn, kThreads, compiled_config(kIndex).vector_width>();
  static_assert(kLayout == gemm::SmemLayout::kPadded || kLayout == gemm::SmemLayout::kSwizzled,
                "bank-conflict-free: layout must be padded or swizzled (plain is rung 5)");
  static_assert(
      kLayout != gemm::SmemLayout::kSwizzled || rules::conflict_free_swizzle_fits(kBm, kBn, kBk),
      "bank-conflict-free swizzle: the XOR permutes float4 inside groups of 8, so BM "
      "and BN must be multiples of 32, and its row term needs BK to divide 32");
  vectorized_block<kLayout, kBm, kBn, kBk, kTm, kTn, kThreads>(args);
}

struct ConflictFreeMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    return TiledKernelHost<kIndex, &sgemm_conflict_free<kIndex>>::make();
  }
};

}  // namespace roofcast::kernels::ladder
