// Rung 3, 1D register thread tiling: each thread computes TM outputs of one C column, so one
// B value read from shared memory feeds TM FFMAs from a register (shared reads per FFMA drop
// from 2 to 1 + 1/TM). A and B tiles are staged in shared memory as in rung 2, but the tile
// is no longer square: the block computes BM x BN with (BM / TM) * BN threads and walks K in
// steps of BK.
//
// Tile vocabulary (registry fields this rung reads):
//   BM       block tile rows (C rows per block); BM % TM == 0;
//   BN       block tile columns; thread t owns column t % BN, so a warp reads 32 consecutive
//            B values (no bank conflict) and one A value (broadcast);
//   BK       K depth of one shared tile;
//   TM       C rows per thread (row tile tr = t / BN covers rows tr*TM .. tr*TM + TM - 1), held
//            in TM accumulator registers;
//   threads  = (BM / TM) * BN, a multiple of 32 in 32..1024;
//   TN = 1; layout plain, vector_width 1, stages 1, WM = WN = 0, cluster 1 (unused).
// Shared memory (dynamic): As[BM][BK] then Bs[BK][BN], (BM * BK + BK * BN) * 4 bytes.
// Edge tiles: loads past M, N or K fill 0, stores past M or N are skipped.
#pragma once

#include <cuda_runtime.h>

#include "ladder/common.cuh"
#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

template <std::size_t kIndex, int kBm = compiled_config(kIndex).bm,
          int kBn = compiled_config(kIndex).bn, int kBk = compiled_config(kIndex).bk,
          int kTm = compiled_config(kIndex).tm, int kThreads = compiled_config(kIndex).threads>
__global__ void __launch_bounds__(kThreads) sgemm_thread_tiling_1d(SgemmArgs args) {
  static_assert(rules::tiling_1d_is_one_column(compiled_config(kIndex).tn),
                "1D thread tiling: each thread owns one C column, TN = 1");
  static_assert(rules::tiling_thread_tile_divides_block(kBm, kBn, kTm, 1),
                "1D thread tiling: the thread tile divides the block tile, BM % TM == 0");
  static_assert(rules::tiling_threads_match_tile(kBm, kBn, kTm, 1, kThreads),
                "1D thread tiling: one thread per TM x 1 thread tile, threads = BM / TM * BN");
  static_assert(rules::rungs_1_6_block_is_whole_warps(kThreads),
                "1D thread tiling: threads must be a multiple of 32 in 32..1024");
  float* as = dynamic_shared_floats();  // As[m][k] = A[row0 + m][k0 + k]
  float* bs = as + kBm * kBk;           // Bs[k][n] = B[k0 + k][col0 + n]
  const int tc = static_cast<int>(threadIdx.x) % kBn;
  const int tr = static_cast<int>(threadIdx.x) / kBn;
  const int row0 = static_cast<int>(blockIdx.y) * kBm;
  const int col0 = static_cast<int>(blockIdx.x) * kBn;
  const float* a_tile = args.a + static_cast<long long>(row0) * args.k;
  const float* b_tile = args.b + col0;
  float acc[kTm] = {};
  for (int k0 = 0; k0 < args.k; k0 += kBk) {
    load_tile_scalar<kBm, kBk, kThreads>(as, a_tile + k0, args.k, args.m - row0, args.k - k0);
    load_tile_scalar<kBk, kBn, kThreads>(bs, b_tile + static_cast<long long>(k0) * args.n, args.n,
                                         args.k - k0, args.n - col0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBk; ++k) {
      const float b = bs[k * kBn + tc];
#pragma unroll
      for (int i = 0; i < kTm; ++i) acc[i] += as[(tr * kTm + i) * kBk + k] * b;
    }
    __syncthreads();
  }
  const int n = col0 + tc;
  if (n >= args.n) return;
#pragma unroll
  for (int i = 0; i < kTm; ++i) {
    const int m = row0 + tr * kTm + i;
    if (m < args.m) {
      store_c(args.c + static_cast<long long>(m) * args.n + n, acc[i], args.alpha, args.beta);
    }
  }
}

struct ThreadTiling1dMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    return TiledKernelHost<kIndex, &sgemm_thread_tiling_1d<kIndex>>::make();
  }
};

}  // namespace roofcast::kernels::ladder
