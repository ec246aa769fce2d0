// Rung 4, 2D register thread tiling: each thread computes a TM x TN block of C as a sum of
// outer products. Per k it reads TM values of A and TN values of B from shared memory into
// registers and issues TM * TN FFMAs on TM x TN accumulator registers, so shared reads per
// FFMA fall to 1/TN + 1/TM. Loads stay scalar (float4 is rung 5).
//
// Tile vocabulary (registry fields this rung reads):
//   BM, BN   block tile (C rows and columns per block); BM % TM == 0, BN % TN == 0;
//   BK       K depth of one shared tile;
//   TM, TN   thread tile: thread t owns rows tr*TM .. +TM-1 and columns tc*TN .. +TN-1 of the
//            block tile, tr = t / (BN / TN), tc = t % (BN / TN); TM * TN accumulators and
//            TM + TN fragment registers per thread (loops over them are fully unrolled);
//   threads  = (BM / TM) * (BN / TN), a multiple of 32 in 32..1024;
//   layout plain, vector_width 1, stages 1, WM = WN = 0, cluster 1 (unused).
// Registers: __launch_bounds__(threads, rules::tiling_min_blocks_per_sm(...)) caps registers
// per thread near rules::tiling_register_estimate (the headline: 128, two blocks per SM).
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
          int kTm = compiled_config(kIndex).tm, int kTn = compiled_config(kIndex).tn,
          int kThreads = compiled_config(kIndex).threads>
__global__ void __launch_bounds__(kThreads, rules::tiling_min_blocks_per_sm(kBm, kBn, kBk, kTm, kTn,
                                                                            kThreads))
    sgemm_thread_tiling_2d(SgemmArgs args) {
  static_assert(rules::tiling_thread_tile_divides_block(kBm, kBn, kTm, kTn),
                "2D thread tiling: the thread tile divides the block tile, BM % TM == 0 and "
                "BN % TN == 0");
  static_assert(rules::tiling_threads_match_tile(kBm, kBn, kTm, kTn, kThreads),
                "2D thread tiling: one thread per TM x TN thread tile, threads = (BM / TM) * "
                "(BN / TN)");
  static_assert(rules::rungs_1_6_block_is_whole_warps(kThreads),
                "2D thread tiling: threads must be a multiple of 32 in 32..1024");
  float* as = dynamic_shared_floats();  // As[m][k] = A[row0 + m][k0 + k]
  float* bs = as + kBm * kBk;           // Bs[k][n] = B[k0 + k][col0 + n]
  const int tc = static_cast<int>(threadIdx.x) % (kBn / kTn);
  const int tr = static_cast<int>(threadIdx.x) / (kBn / kTn);
  const int row0 = static_cast<int>(blockIdx.y) * kBm;
  const int col0 = static_cast<int>(blockIdx.x) * kBn;
  const float* a_tile = args.a + static_cast<long long>(row0) * args.k;
  const float* b_tile = args.b + col0;
  float acc[kTm][kTn] = {};
  for (int k0 = 0; k0 < args.k; k0 += kBk) {
    load_tile_scalar<kBm, kBk, kThreads>(as, a_tile + k0, args.k, args.m - row0, args.k - k0);
    load_tile_scalar<kBk, kBn, kThreads>(bs, b_tile + static_cast<long long>(k0) * args.n, args.n,
                                         args.k - k0, args.n - col0);
    __syncthreads();
    // k unrolled by 2, not fully: full unrolling lets the compiler hoist the shared reads of
    // later k and exceed the register cap of __launch_bounds__ (spills); the TM x TN loops
    // stay fully unrolled so the accumulators stay in registers.
#pragma unroll 2
    for (int k = 0; k < kBk; ++k) {
      float a_frag[kTm];
      float b_frag[kTn];
#pragma unroll
      for (int i = 0; i < kTm; ++i) a_frag[i] = as[(tr * kTm + i) * kBk + k];
#pragma unroll
      for (int j = 0; j < kTn; ++j) b_frag[j] = bs[k * kBn + tc * kTn + j];
#pragma unroll
      for (int i = 0; i < kTm; ++i) {
#pragma unroll
        for (int j = 0; j < kTn; ++j) acc[i][j] += a_frag[i] * b_frag[j];
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTm; ++i) {
    const int m = row0 + tr * kTm + i;
    if (m < args.m) {
      float* c_row = args.c + static_cast<long long>(m) * args.n;
#pragma unroll
      for (int j = 0; j < kTn; ++j) {
        const int n = col0 + tc * kTn + j;
        if (n < args.n) store_c(c_row + n, acc[i][j], args.alpha, args.beta);
      }
    }
  }
}

struct ThreadTiling2dMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    return TiledKernelHost<kIndex, &sgemm_thread_tiling_2d<kIndex>>::make();
  }
};

}  // namespace roofcast::kernels::ladder
