// Rung 9, cp.async multi-stage pipeline, on rung 8's warp tiling and register double
// buffering: `stages` shared buffers (a template parameter through the registry, >= 2) filled
// by asynchronous copies that skip the registers. Stage t lives in buffer t % stages; the
// copies of stage t + stages - 1 are issued at the start of stage t into the buffer that stage
// t - 1 used (free since the barrier that ended stage t - 1), so up to stages - 1 stages are in
// flight while one is computed. One commit group per stage; before the last k of stage t the
// thread waits until stage t + 1's group has landed (cp.async.wait_group stages - 2) and one
// barrier makes every thread's copies visible.
//
// B is copied with 16-byte cp.async when its rows are 16-byte aligned (N % 4 == 0), else
// 4-byte, zero-filling outside B (src-size 0). A must be transposed into A^T, which a 16-byte
// copy cannot do, so A goes one of two ways (config.vector_width):
//  - 1: 4-byte cp.async straight into A^T, in the same stage pipeline as B (any K);
//  - 4: float4 loads into registers one stage ahead (issued at the start of stage t for stage
//    t + 1) and transposing 4-byte shared stores just before the barrier that ends stage t, as
//    on rung 8: a quarter of the copy instructions, at the cost of the staging registers.
// A block whose stages all lie inside A and B (warp::block_is_interior) runs the same pipeline
// with unpredicated copies from per-thread pointers advanced once per stage; edge blocks run it
// with bounds-checked, zero-filling copies.
//
// Tile vocabulary (rules_rungs_7_10.hpp): BM, BN, BK, WM, WN, TM, TN, threads =
// (BM / WM) * (BN / WN) * 32, stages = 2..4, vector_width = 1 or 4, layout = padded,
// cluster = 1.
// The block raster order is a launch parameter (row-major, column-major or grouped).
#pragma once

#include <cuda_runtime.h>

#include "ladder/warp_common.cuh"
#include "launch_table.cuh"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

/// Whether config G runs the stage barrier block (A^T store, wait, barrier, next fragments)
/// after the last stage too, with no branch around it: only the geometry it was measured on.
/// Behind the branch ptxas hoists the last k-step's FFMAs above the barrier, and the next
/// stage's six fragment loads follow BAR.SYNC with their first use 5-31 instructions later;
/// without it 94 FFMAs follow the barrier and the first fragment load comes 68 instructions
/// after it. H200, rung 9's headline (development probe, 2026-11-29,
/// data/measurements/h200-sxm/probes/2026-11-29-rung9-search): 52.6 TFLOPS at 4096^3 and 53.0
/// at 8192^3, against 50.9 and 51.2 with the branch and cuBLAS's 51.2 and 51.0.
template <class G>
__device__ __forceinline__ constexpr bool barrier_every_stage() {
  return G::kBm == 256 && G::kBn == 128 && G::kBk == 16 && G::kTm == 16 && G::kTn == 8 &&
         G::kStages == 3 && G::kConfig.vector_width == 4;
}

/// The K loop and epilogue of one block. kInterior (warp::block_is_interior): every stage is
/// wholly inside A and B, so B's copies are unpredicated 16-byte cp.async (and, with
/// vector_width 4, A's loads unpredicated float4s) from per-thread pointers that move BK rows
/// of B (BK columns of A) per stage; otherwise each stage's copies are bounds-checked and
/// zero-filled. The two versions copy, store and synchronise alike.
template <class G, bool kInterior>
__device__ __forceinline__ void cp_async_block(const SgemmArgs& args, const warp::BlockTile& tile) {
  float* const smem = warp::shared_floats();
  const warp::ThreadPlace place = warp::thread_place<G>();
  const int k_tiles = warp::k_tiles<G>(args);
  float acc[G::kTm][G::kTn];
  warp::zero<G>(acc);
  warp::Fragment<G> fragment[2];
  constexpr bool kAInRegisters = G::kConfig.vector_width == 4;
  const warp::AElementCopies<G> a_elements;
  const warp::AVectorCopies<G> a_vectors;
  const warp::BVectorCopies<G> b_vectors;
  const warp::BElementCopies<G> b_elements;
  warp::AStaging<G> a_staging;
  const std::uint32_t smem_address = warp::shared_address(smem);
  constexpr std::uint32_t kStageBytes = 4u * G::kStageFloats;
  // Interior: this thread's first B float4 of the next stage to issue, and its first A float4
  // of the next stage to load into registers (vector_width 4).
  const float* b_source = nullptr;
  const float* a_source = nullptr;
  if constexpr (kInterior) {
    b_source = warp::interior_b_source<G>(args, tile, b_vectors);
    a_source = warp::interior_a_source<G>(args, tile, a_vectors);
  }

  // Prologue: stages 0 .. S - 2 in flight, one commit group each (empty past the last stage).
#pragma unroll
  for (int s = 0; s < G::kStages - 1; ++s) {
    if (s < k_tiles) {
      const std::uint32_t stage = smem_address + s * kStageBytes;
      if constexpr (!kAInRegisters) {
        warp::issue_a_async<G>(stage, args, tile, s * G::kBk, a_elements);
      }
      if constexpr (kInterior) {
        warp::issue_b_async_interior<G>(stage, b_source, args.n, b_vectors);
        b_source += static_cast<long long>(G::kBk) * args.n;
      } else {
        warp::issue_b_async<G>(stage, args, tile, s * G::kBk, b_vectors, b_elements);
      }
    }
    warp::cp_async_commit();
  }
  if constexpr (kAInRegisters) {
    if constexpr (kInterior) {
      warp::load_a_interior<G>(a_staging, a_source, args.k);
    } else {
      warp::load_a_to_registers<G>(a_staging, args, tile, 0, a_vectors);
    }
    warp::store_a_to_shared<G>(a_staging, smem, a_vectors);
  }
  warp::cp_async_wait<G::kStages - 2>();
  __syncthreads();
  warp::load_fragment<G>(fragment[0], smem, 0, place);

  int read_stage = 0;                // buffer of stage t
  int write_stage = G::kStages - 1;  // buffer of stage t + S - 1
  for (int t = 0; t < k_tiles; ++t) {
    const float* current = smem + read_stage * G::kStageFloats;
    const int fetch = t + G::kStages - 1;
    if (fetch < k_tiles) {
      const std::uint32_t stage = smem_address + write_stage * kStageBytes;
      if constexpr (!kAInRegisters) {
        warp::issue_a_async<G>(stage, args, tile, fetch * G::kBk, a_elements);
      }
      if constexpr (kInterior) {
        warp::issue_b_async_interior<G>(stage, b_source, args.n, b_vectors);
        b_source += static_cast<long long>(G::kBk) * args.n;
      } else {
        warp::issue_b_async<G>(stage, args, tile, fetch * G::kBk, b_vectors, b_elements);
      }
    }
    warp::cp_async_commit();
    write_stage = write_stage + 1 == G::kStages ? 0 : write_stage + 1;
    read_stage = read_stage + 1 == G::kStages ? 0 : read_stage + 1;
    const bool has_next = t + 1 < k_tiles;
    if constexpr (kAInRegisters) {
      if (has_next) {
        if constexpr (kInterior) {
          a_source += G::kBk;
          warp::load_a_interior<G>(a_staging, a_source, args.k);
        } else {
          warp::load_a_to_registers<G>(a_staging, args, tile, (t + 1) * G::kBk, a_vectors);
        }
      }
    }
#pragma unroll
    for (int kk = 0; kk < G::kBk; ++kk) {
      if (kk + 1 < G::kBk) {
        warp::load_fragment<G>(fragment[(kk + 1) & 1], current, kk + 1, place);
      } else if (barrier_every_stage<G>() || has_next) {
        // After the last stage this stores A^T into, and reads fragments from, a buffer that
        // nothing reads afterwards (barrier_every_stage).
        float* next = smem + read_stage * G::kStageFloats;
        // A^T of stage t + 1 goes into a buffer last read in stage t + 1 - S <= t - 1, before
        // the barrier that ended that stage.
        if constexpr (kAInRegisters) warp::store_a_to_shared<G>(a_staging, next, a_vectors);
        // Committed so far: stages up to t + S - 1; stage t + 1 is complete when at most
        // S - 2 groups are pending.
        warp::cp_async_wait<G::kStages - 2>();
        __syncthreads();
        warp::load_fragment<G>(fragment[(kk + 1) & 1], next, 0, place);
      }
      warp::outer_product<G>(acc, fragment[kk & 1]);
    }
  }
  warp::cp_async_wait<0>();
  warp::store_c<G>(acc, args, tile, place);
}

template <std::size_t kIndex, class G = warp::Geometry<kIndex>>
__global__ void __launch_bounds__(G::kThreads, G::kMinBlocks)
    sgemm_cp_async(SgemmArgs args, gemm::RasterOrder raster) {
  warp::assert_tile_rules<G>();
  static_assert(G::kConfig.rung == 9 && G::kStages >= 2 && G::kStages <= 4,
                "rung 9 pipelines 2..4 shared stages");
  static_assert(G::kBk % 2 == 0, "the two register fragments alternate over an even BK");
  const warp::BlockTile tile = warp::block_tile<G>(args, raster, static_cast<int>(blockIdx.x));
  if (warp::block_is_interior<G>(args, tile)) {
    cp_async_block<G, true>(args, tile);
  } else {
    cp_async_block<G, false>(args, tile);
  }
}

template <std::size_t kIndex>
cudaError_t launch_cp_async(const SgemmArgs& args, gemm::RasterOrder raster, cudaStream_t stream) {
  using G = warp::Geometry<kIndex>;
  const cudaError_t raster_ok = detail::check_raster(G::kConfig, raster);
  if (raster_ok != cudaSuccess) return raster_ok;
  sgemm_cp_async<kIndex>
      <<<warp::grid_blocks<G>(args), G::kThreads, shared_memory_bytes(G::kConfig), stream>>>(
          args, raster);
  return cudaGetLastError();
}

template <std::size_t kIndex>
cudaError_t prepare_cp_async() {
  return warp::allow_shared_memory<warp::Geometry<kIndex>>(
      reinterpret_cast<const void*>(&sgemm_cp_async<kIndex>));
}

struct CpAsyncMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    constexpr TileConfig c = compiled_config(kIndex);
    CompiledKernel compiled;
    compiled.function = reinterpret_cast<const void*>(&sgemm_cp_async<kIndex>);
    compiled.threads_per_block = c.threads;
    compiled.dynamic_shared_memory_bytes = shared_memory_bytes(c);
    compiled.prepare = &prepare_cp_async<kIndex>;
    compiled.launch = &launch_cp_async<kIndex>;
    return compiled;
  }
};

}  // namespace roofcast::kernels::ladder
