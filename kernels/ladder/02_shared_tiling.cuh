// Rung 2, shared-memory tiling: the block walks K in steps of T, staging a T x T tile of A and
// a T x T tile of B in shared memory, so each global element is loaded once per block instead
// of once per output (reuse T). One thread per C element, as in rung 1.
//
// Tile vocabulary (registry fields this rung reads):
//   BM = BN = BK = T  the square tile: the block computes C[T x T], one K step is T deep;
//   threads = T * T   thread (ty, tx) = (tid / T, tid % T) loads A[ty][tx] and B[ty][tx] of the
//                     step's tiles and computes C[ty][tx];
//   TM = TN = 1; layout plain, vector_width 1, stages 1, WM = WN = 0, cluster 1 (unused).
// Shared memory (dynamic): As[T][T] then Bs[T][T], (BM * BK + BK * BN) * 4 bytes.
// Edge tiles: loads past M, N or K fill 0, stores past M or N are skipped.
#pragma once

#include <cuda_runtime.h>

#include "ladder/common.cuh"
#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

template <std::size_t kIndex, int kTile = compiled_config(kIndex).bm,
          int kThreads = compiled_config(kIndex).threads>
__global__ void __launch_bounds__(kThreads) sgemm_shared_tiling(SgemmArgs args) {
  constexpr TileConfig c = compiled_config(kIndex);
  static_assert(rules::smem_tiling_tile_is_square(c.bm, c.bn, c.bk),
                "shared tiling: the tile is square, BM = BN = BK, so every thread loads one A "
                "and one B element per K step");
  static_assert(rules::smem_tiling_threads_match_tile(c.bm, c.bn, kThreads),
                "shared tiling: one thread per C element, threads = BM * BN");
  static_assert(rules::rungs_1_6_block_is_whole_warps(kThreads),
                "shared tiling: threads must be a multiple of 32 in 32..1024");
  float* as = dynamic_shared_floats();  // As[ty][tx]: A[row0 + ty][k0 + tx]
  float* bs = as + kTile * kTile;       // Bs[ty][tx]: B[k0 + ty][col0 + tx]
  const int tx = static_cast<int>(threadIdx.x) % kTile;
  const int ty = static_cast<int>(threadIdx.x) / kTile;
  const int m = static_cast<int>(blockIdx.y) * kTile + ty;
  const int n = static_cast<int>(blockIdx.x) * kTile + tx;
  const float* a_row = args.a + static_cast<long long>(m) * args.k;  // used only when m < M
  float sum = 0.0f;
  for (int k0 = 0; k0 < args.k; k0 += kTile) {
    as[ty * kTile + tx] = load_or_zero(a_row + k0 + tx, m < args.m && k0 + tx < args.k);
    bs[ty * kTile + tx] = load_or_zero(args.b + static_cast<long long>(k0 + ty) * args.n + n,
                                       k0 + ty < args.k && n < args.n);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += as[ty * kTile + k] * bs[k * kTile + tx];
    __syncthreads();
  }
  if (m < args.m && n < args.n) {
    store_c(args.c + static_cast<long long>(m) * args.n + n, sum, args.alpha, args.beta);
  }
}

struct SharedTilingMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    return TiledKernelHost<kIndex, &sgemm_shared_tiling<kIndex>>::make();
  }
};

}  // namespace roofcast::kernels::ladder
