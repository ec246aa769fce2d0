// Rung 8, double buffering at both levels, on rung 7's warp tiling:
//  - global -> shared: two shared stages. While the block computes stage t, each thread's
//    float4 loads of stage t + 1 are in flight into registers (issued before the FFMAs of
//    stage t); they are stored into the other stage after its last read, and one barrier per
//    stage publishes them.
//  - shared -> registers: two fragments. The fragment of k + 1 is read while the FFMAs of k
//    run; at the last k of a stage, the first fragment of the next stage is read after the
//    barrier.
//
// Tile vocabulary (rules_rungs_7_10.hpp): BM, BN, BK, WM, WN, TM, TN, threads =
// (BM / WM) * (BN / WN) * 32, stages = 2, vector_width = 4, layout = padded, cluster = 1.
// The block raster order is a launch parameter (row-major, column-major or grouped).
#pragma once

#include <cuda_runtime.h>

#include "ladder/warp_common.cuh"
#include "launch_table.cuh"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

template <std::size_t kIndex, class G = warp::Geometry<kIndex>>
__global__ void __launch_bounds__(G::kThreads, G::kMinBlocks)
    sgemm_double_buffered(SgemmArgs args, gemm::RasterOrder raster) {
  warp::assert_tile_rules<G>();
  static_assert(G::kConfig.rung == 8 && G::kStages == 2, "rung 8 has two shared stages");
  static_assert(G::kBk % 2 == 0, "the two register fragments alternate over an even BK");
  float* const smem = warp::shared_floats();
  const warp::BlockTile tile = warp::block_tile<G>(args, raster, static_cast<int>(blockIdx.x));
  const warp::ThreadPlace place = warp::thread_place<G>();
  const int k_tiles = warp::k_tiles<G>(args);
  float acc[G::kTm][G::kTn];
  warp::zero<G>(acc);
  const warp::AVectorCopies<G> a_copies;
  const warp::BVectorCopies<G> b_copies;
  warp::Staging<G> staging;
  warp::Fragment<G> fragment[2];

  warp::load_stage_to_registers<G>(staging, args, tile, 0, a_copies, b_copies);
  warp::store_stage_to_shared<G>(staging, smem, a_copies, b_copies);
  __syncthreads();
  warp::load_fragment<G>(fragment[0], smem, 0, place);

  for (int t = 0; t < k_tiles; ++t) {
    const float* current = smem + (t & 1) * G::kStageFloats;
    float* next = smem + ((t + 1) & 1) * G::kStageFloats;
    const bool has_next = t + 1 < k_tiles;
    if (has_next) {
      warp::load_stage_to_registers<G>(staging, args, tile, (t + 1) * G::kBk, a_copies, b_copies);
    }
#pragma unroll
    for (int kk = 0; kk < G::kBk; ++kk) {
      if (kk + 1 < G::kBk) {
        warp::load_fragment<G>(fragment[(kk + 1) & 1], current, kk + 1, place);
      } else if (has_next) {
        // `next` was last read in stage t - 1, before that stage's barrier.
        warp::store_stage_to_shared<G>(staging, next, a_copies, b_copies);
        __syncthreads();
        warp::load_fragment<G>(fragment[(kk + 1) & 1], next, 0, place);
      }
      warp::outer_product<G>(acc, fragment[kk & 1]);
    }
  }
  warp::store_c<G>(acc, args, tile, place);
}

template <std::size_t kIndex>
cudaError_t launch_double_buffered(const SgemmArgs& args, gemm::RasterOrder raster,
                                   cudaStream_t stream) {
  using G = warp::Geometry<kIndex>;
  const cudaError_t raster_ok = detail::check_raster(G::kConfig, raster);
  if (raster_ok != cudaSuccess) return raster_ok;
  sgemm_double_buffered<kIndex>
      <<<warp::grid_blocks<G>(args), G::kThreads, shared_memory_bytes(G::kConfig), stream>>>(
          args, raster);
  return cudaGetLastError();
}

template <std::size_t kIndex>
cudaError_t prepare_double_buffered() {
  return warp::allow_shared_memory<warp::Geometry<kIndex>>(
      reinterpret_cast<const void*>(&sgemm_double_buffered<kIndex>));
}

struct DoubleBufferedMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    constexpr TileConfig c = compiled_config(kIndex);
    CompiledKernel compiled;
    compiled.function = reinterpret_cast<const void*>(&sgemm_double_buffered<kIndex>);
    compiled.threads_per_block = c.threads;
    compiled.dynamic_shared_memory_bytes = shared_memory_bytes(c);
    compiled.prepare = &prepare_double_buffered<kIndex>;
    compiled.launch = &launch_double_buffered<kIndex>;
    return compiled;
  }
};

}  // namespace roofcast::kernels::ladder
