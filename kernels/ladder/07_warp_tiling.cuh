// Rung 7, warp tiling: the block tile BM x BN is split into warp tiles WM x WN, each warp tile
// into the 32 threads' TM x TN tiles, arranged as (TM / 4) x (TN / 4) warp sub-tiles so that a
// thread's fragment at one k is TM / 4 + TN / 4 float4 reads from shared memory, and the 32
// threads of a warp read consecutive float4s (no bank conflicts). A is stored transposed in
// shared memory (rows padded by one float4: the transposing stores are conflict-free too).
// Global loads are float4 (4-byte loads when rows are not 16-byte aligned, chosen by a uniform
// run-time flag). One shared stage: load, barrier, compute BK outer products, barrier.
//
// Tile vocabulary (rules_rungs_7_10.hpp): BM, BN, BK, WM, WN, TM, TN, threads =
// (BM / WM) * (BN / WN) * 32, stages = 1, vector_width = 4, layout = padded, cluster = 1.
// The block raster order is a launch parameter (row-major, column-major or grouped).
#pragma once

#include <cuda_runtime.h>

#include "ladder/warp_common.cuh"
#include "launch_table.cuh"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

template <std::size_t kIndex, class G = warp::Geometry<kIndex>>
__global__ void __launch_bounds__(G::kThreads, G::kMinBlocks)
    sgemm_warp_tiling(SgemmArgs args, gemm::RasterOrder raster) {
  warp::assert_tile_rules<G>();
  static_assert(G::kConfig.rung == 7 && G::kStages == 1, "rung 7 has one shared stage");
  float* stage = warp::shared_floats();
  const warp::BlockTile tile = warp::block_tile<G>(args, raster, static_cast<int>(blockIdx.x));
  const warp::ThreadPlace place = warp::thread_place<G>();
  float acc[G::kTm][G::kTn];
  warp::zero<G>(acc);
  const warp::AVectorCopies<G> a_copies;
  const warp::BVectorCopies<G> b_copies;
  warp::Staging<G> staging;
  warp::Fragment<G> fragment;
  for (int k0 = 0; k0 < args.k; k0 += G::kBk) {
    warp::load_stage_to_registers<G>(staging, args, tile, k0, a_copies, b_copies);
    warp::store_stage_to_shared<G>(staging, stage, a_copies, b_copies);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < G::kBk; ++kk) {
      warp::load_fragment<G>(fragment, stage, kk, place);
      warp::outer_product<G>(acc, fragment);
    }
    __syncthreads();
  }
  warp::store_c<G>(acc, args, tile, place);
}

template <std::size_t kIndex>
cudaError_t launch_warp_tiling(const SgemmArgs& args, gemm::RasterOrder raster,
                               cudaStream_t stream) {
  using G = warp::Geometry<kIndex>;
  const cudaError_t raster_ok = detail::check_raster(G::kConfig, raster);
  if (raster_ok != cudaSuccess) return raster_ok;
  sgemm_warp_tiling<kIndex>
      <<<warp::grid_blocks<G>(args), G::kThreads, shared_memory_bytes(G::kConfig), stream>>>(
          args, raster);
  return cudaGetLastError();
}

template <std::size_t kIndex>
cudaError_t prepare_warp_tiling() {
  return warp::allow_shared_memory<warp::Geometry<kIndex>>(
      reinterpret_cast<const void*>(&sgemm_warp_tiling<kIndex>));
}

struct WarpTilingMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    constexpr TileConfig c = compiled_config(kIndex);
    CompiledKernel compiled;
    compiled.function = reinterpret_cast<const void*>(&sgemm_warp_tiling<kIndex>);
    compiled.threads_per_block = c.threads;
    compiled.dynamic_shared_memory_bytes = shared_memory_bytes(c);
    compiled.prepare = &prepare_warp_tiling<kIndex>;
    compiled.launch = &launch_warp_tiling<kIndex>;
    return compiled;
  }
};

}  // namespace roofcast::kernels::ladder
