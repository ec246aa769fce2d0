// Rung 10, what Hopper adds, still FP32 FFMA: thread-block clusters, distributed shared memory
// and the bulk copy engine, on rung 9's warp tiling, register double buffering and stage
// pipeline.
//
// The `cluster` blocks of a cluster compute vertically adjacent C tiles (the same columns), so
// they need the same B stage. Each block fetches BK / cluster rows of every B stage with bulk
// copies (cp.async.bulk ... .multicast::cluster, one row per lane of warp 0, no registers) that
// land at the same offset in the shared memory of every block of the cluster: B crosses L2 -> SM
// once per cluster instead of once per block. A stays per block and must be transposed into
// A^T, which neither the bulk engine nor 16-byte cp.async can do; as on rung 9 it goes one of
// two ways (config.vector_width): 1, 4-byte cp.async copies by all threads in the same stage
// pipeline; 4, float4 loads into registers one stage ahead, stored transposed just before the
// barrier that ends the previous stage (as on rung 8).
//
// Pipeline (per K tile one __syncthreads, as on rung 9): stage f lives in buffer f % S; at the
// start of stage t the copies of stage t + L are issued, L (the lead) = S - 1 with cluster 1
// and S - 2 with a cluster, whose peers then have one whole stage of slack before a block
// overwrites (by multicast) a buffer they still read. Synchronisation per buffer s:
//  - full[s] (count 1): a producer-only barrier. Thread 0 arrives once per use, with expect_tx
//    of the whole B stage when B is multicast (every block's bulk copies complete their bytes
//    on full[s] of every block), plainly otherwise. At the end of stage t thread 0 alone waits
//    on full[(t + 1) % S] before the block barrier; after it every thread checks the (already
//    completed) phase once, so no warp polls.
//  - cp.async copies (A with vector_width 1; B in a fallback stage) are tracked per thread with
//    one commit group per issued stage and cp.async.wait_group L - 1 before the block barrier,
//    as on rung 9; A staged through registers is stored just before the same barrier.
//  - empty[s] (count cluster, only with a cluster): after the barrier that ends stage t,
//    thread 0 arrives on empty[t % S] of every block of the cluster (remote arrive through
//    DSMEM); before refilling buffer s (use u > 0), thread 0 waits on its own empty[s] for use
//    u - 1, so no block's buffer is overwritten while a block still reads it.
// Two cluster barriers in all: after the mbarrier init and before exit.
// A B stage that is not wholly inside B or whose rows are not 16-byte aligned (N % 4 != 0,
// the N edge, the K tail) is copied by each block for itself with cp.async instead; the choice
// depends only on the stage's K offset and the cluster's columns, so all blocks of a cluster
// agree. A cluster may reach past M (ceil(tiles_m / cluster) clusters per tile column): its
// extra blocks take part in the copies and store nothing.
//
// The linear block index maps to the cluster's tile pair through the raster order applied to
// the grid of cluster tiles (ceil(tiles_m / cluster) x tiles_n); the block's rank inside the
// cluster gives its tile row.
//
// Tile vocabulary (rules_rungs_7_10.hpp): BM, BN, BK, WM, WN, TM, TN, threads =
// (BM / WM) * (BN / WN) * 32, stages = 2..4, vector_width = 1 or 4, layout = padded,
// cluster = 1, 2 or 4 (dividing BK). sm_90 only: the kernel body is empty below sm_90 and the
// launcher returns cudaErrorNotSupported on such a device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ladder/warp_common.cuh"
#include "launch_table.cuh"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {
namespace cluster {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ std::uint32_t rank_in_cluster() {
  std::uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

/// All threads of all blocks of the cluster (release / acquire).
__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n" ::
          : "memory");
}

__device__ __forceinline__ void mbarrier_init(std::uint32_t bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/// Makes the initialised mbarriers visible to the cluster (before the cluster barrier).
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/// Arrives on `bar` and adds `bytes` to the transactions its phase waits for.
__device__ __forceinline__ void arrive_expect_bytes(std::uint32_t bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void arrive(std::uint32_t bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/// Arrives on the mbarrier at the same offset as `bar` in the shared memory of cluster block
/// `rank` (distributed shared memory; default semantics, as CUTLASS's ClusterBarrier: the
/// block barrier before it has ended every read of the buffer it releases).
__device__ __forceinline__ void arrive_in_block(std::uint32_t bar, std::uint32_t rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}\n" ::"r"(bar),
      "r"(rank)
      : "memory");
}

/// Waits until the phase of `bar` with parity `parity` has completed (acquire, CTA scope).
__device__ __forceinline__ void wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (done == 0);
}

/// Bulk copy of `bytes` (a multiple of 16, both addresses 16-byte aligned) global -> shared of
/// every block in `mask`, at the offset `dst` has in this block; completes on the mbarrier at
/// `bar`'s offset in each of those blocks.
__device__ __forceinline__ void bulk_copy_multicast(std::uint32_t dst, const float* src,
                                                    std::uint32_t bytes, std::uint32_t bar,
                                                    std::uint16_t mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1], %2, [%3], %4;\n" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar), "h"(mask)
      : "memory");
}

/// Bulk copy into this block's shared memory only.
__device__ __forceinline__ void bulk_copy(std::uint32_t dst, const float* src, std::uint32_t bytes,
                                          std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(dst),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}
#endif

/// Per block: where its stage buffers and mbarriers are, and its place in the cluster.
struct Pipeline {
  std::uint32_t stages = 0;  // shared address of stage 0
  std::uint32_t full = 0;    // shared address of full[0]; full[s] = full + 8 s
  std::uint32_t empty = 0;   // shared address of empty[0]
  int rank = 0;              // block rank in the cluster
};

}  // namespace cluster

/// Stages issued ahead of the one computed: S - 1 (cluster 1), S - 2 with a cluster (a peer
/// may then lag one stage before a multicast into a buffer it reads has to wait).
template <int kStages, int kCluster>
constexpr int lead_stages() {
  return kCluster > 1 ? kStages - 2 : kStages - 1;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// Issues the copies of K-stage `fetch` into buffer `buffer` (its use number `use` = fetch /
/// stages) and commits one cp.async group (empty when nothing went by cp.async): A by every
/// thread with 4-byte cp.async unless kAInRegisters; B multicast by warp 0 of every block of
/// the cluster (BK / cluster rows each, one row per lane) when the stage is wholly inside B
/// with aligned rows, else by every thread of each block for itself with cp.async. Thread 0 is
/// the producer: it waits until every block of the cluster has released the buffer's previous
/// use (cluster > 1) and arrives once on full[buffer], with the B stage's bytes when bulk.
template <class G, int kCluster, bool kAInRegisters>
__device__ __forceinline__ void issue_cluster_stage(
    int fetch, int buffer, int use, const cluster::Pipeline& pipe, const SgemmArgs& args,
    const warp::BlockTile& tile, const warp::AElementCopies<G>& a_copies,
    const warp::BVectorCopies<G>& b_vectors, const warp::BElementCopies<G>& b_elements) {
  constexpr std::uint32_t kStageBytes = 4u * G::kStageFloats;
  constexpr int kRowsPerBlock = G::kBk / kCluster;
  constexpr std::uint32_t kRowBytes = 4u * G::kBn;
  const int k0 = fetch * G::kBk;
  const std::uint32_t stage = pipe.stages + static_cast<std::uint32_t>(buffer) * kStageBytes;
  const std::uint32_t full = pipe.full + 8u * static_cast<std::uint32_t>(buffer);
  const std::uint32_t empty = pipe.empty + 8u * static_cast<std::uint32_t>(buffer);
  if constexpr (!kAInRegisters) warp::issue_a_async<G>(stage, args, tile, k0, a_copies);
  const bool bulk = warp::b_stage_is_full<G>(args, tile, k0);
  if (!bulk) warp::issue_b_async<G>(stage, args, tile, k0, b_vectors, b_elements);
  warp::cp_async_commit();
  static_assert(kRowsPerBlock <= 32, "one B row per lane of warp 0");
  if (threadIdx.x < 32) {
    const int lane = static_cast<int>(threadIdx.x);
    if constexpr (kCluster > 1) {
      // Every block of the cluster has finished reading this buffer's previous use.
      if (lane == 0 && use > 0) cluster::wait(empty, static_cast<std::uint32_t>((use - 1) & 1));
      __syncwarp();
    }
    if (lane == 0) {
      if (bulk) {
        cluster::arrive_expect_bytes(full, static_cast<std::uint32_t>(G::kBk) * kRowBytes);
      } else {
        cluster::arrive(full);
      }
    }
    if (bulk && lane < kRowsPerBlock) {
      const int row = pipe.rank * kRowsPerBlock + lane;
      const float* src = args.b + static_cast<long long>(k0 + row) * args.n + tile.n0;
      const std::uint32_t dst =
          stage + 4u * G::kAFloats + static_cast<std::uint32_t>(row) * kRowBytes;
      if constexpr (kCluster > 1) {
        cluster::bulk_copy_multicast(dst, src, kRowBytes, full,
                                     static_cast<std::uint16_t>((1u << kCluster) - 1u));
      } else {
        cluster::bulk_copy(dst, src, kRowBytes, full);
      }
    }
  }
}

/// Makes stage buffer `buffer` (use `use`) readable by every thread: this thread's cp.async
/// groups up to it have landed (kPending newer ones may be in flight), thread 0 alone waits for
/// full[buffer]'s phase (the bulk bytes), the block barrier publishes both (and A^T stored from
/// registers), and every thread then checks the completed phase once (no polling).
template <int kPending>
__device__ __forceinline__ void publish_stage(const cluster::Pipeline& pipe, int buffer, int use) {
  const std::uint32_t full = pipe.full + 8u * static_cast<std::uint32_t>(buffer);
  const std::uint32_t parity = static_cast<std::uint32_t>(use & 1);
  warp::cp_async_wait<kPending>();
  if (threadIdx.x == 0) cluster::wait(full, parity);
  __syncthreads();
  cluster::wait(full, parity);
}
#endif

template <std::size_t kIndex, class G = warp::Geometry<kIndex>>
__global__ void __launch_bounds__(G::kThreads, G::kMinBlocks)
    sgemm_cluster(SgemmArgs args, gemm::RasterOrder raster) {
  warp::assert_tile_rules<G>();
  static_assert(G::kConfig.rung == 10 && G::kStages >= 2 && G::kStages <= 4,
                "rung 10 pipelines 2..4 shared stages");
  static_assert(G::kBk % 2 == 0, "the two register fragments alternate over an even BK");
  static_assert(rules::cluster_fits_the_rung(10, G::kConfig.cluster, G::kBk),
                "a cluster of 1, 2 or 4 blocks, each multicasting BK / cluster rows of B");
  static_assert(rules::cluster_stages_leave_slack(G::kConfig.cluster, G::kStages),
                "a cluster needs 3 or more stages: one stage of slack between the blocks");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kCluster = G::kConfig.cluster;
  constexpr int kS = G::kStages;
  constexpr int kLead = lead_stages<kS, kCluster>();
  constexpr bool kAInRegisters = G::kConfig.vector_width == 4;
  float* const smem = warp::shared_floats();
  cluster::Pipeline pipe;
  pipe.stages = warp::shared_address(smem);
  pipe.full = pipe.stages + 4u * kS * G::kStageFloats;
  pipe.empty = pipe.full + 8u * kS;
  pipe.rank = kCluster > 1 ? static_cast<int>(cluster::rank_in_cluster()) : 0;

  const int cluster_rows = ceil_div(warp::tiles_m<G>(args), kCluster);
  const gemm::TileCoord pair =
      gemm::tile_of_block(static_cast<int>(blockIdx.x) / kCluster, cluster_rows,
                          warp::tiles_n<G>(args), raster.kind, raster.group);
  const warp::BlockTile tile = warp::block_at<G>(args, pair.m * kCluster + pipe.rank, pair.n);
  const warp::ThreadPlace place = warp::thread_place<G>();
  const int k_tiles = warp::k_tiles<G>(args);
  const warp::AElementCopies<G> a_copies;
  const warp::AVectorCopies<G> a_vectors;
  const warp::BVectorCopies<G> b_vectors;
  const warp::BElementCopies<G> b_elements;
  warp::AStaging<G> a_staging;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kS; ++s) {
      cluster::mbarrier_init(pipe.full + 8u * s, 1);
      cluster::mbarrier_init(pipe.empty + 8u * s, kCluster);
    }
    cluster::fence_mbarrier_init();
  }
  // Every block's barriers exist before any block multicasts or arrives remotely.
  if constexpr (kCluster > 1) {
    cluster::cluster_sync();
  } else {
    __syncthreads();
  }

  float acc[G::kTm][G::kTn];
  warp::zero<G>(acc);
  warp::Fragment<G> fragment[2];

  // Prologue: stages 0 .. L - 1 in flight, one commit group each (empty past the last stage).
#pragma unroll
  for (int s = 0; s < kLead; ++s) {
    if (s < k_tiles) {
      issue_cluster_stage<G, kCluster, kAInRegisters>(s, s, 0, pipe, args, tile, a_copies,
                                                      b_vectors, b_elements);
    } else {
      warp::cp_async_commit();
    }
  }
  if constexpr (kAInRegisters) {
    warp::load_a_to_registers<G>(a_staging, args, tile, 0, a_vectors);
    warp::store_a_to_shared<G>(a_staging, smem, a_vectors);
  }
  publish_stage<kLead - 1>(pipe, 0, 0);
  warp::load_fragment<G>(fragment[0], smem, 0, place);

  int read_buffer = 0;  // buffer of stage t
  int read_use = 0;     // t / kS
  for (int t = 0; t < k_tiles; ++t) {
    const float* current = smem + read_buffer * G::kStageFloats;
    const int fetch = t + kLead;
    if (fetch < k_tiles) {
      issue_cluster_stage<G, kCluster, kAInRegisters>(fetch, fetch % kS, fetch / kS, pipe, args,
                                                      tile, a_copies, b_vectors, b_elements);
    } else {
      warp::cp_async_commit();
    }
    const bool has_next = t + 1 < k_tiles;
    if constexpr (kAInRegisters) {
      if (has_next)
        warp::load_a_to_registers<G>(a_staging, args, tile, (t + 1) * G::kBk, a_vectors);
    }
    const int released = read_buffer;
    if (++read_buffer == kS) {
      read_buffer = 0;
      ++read_use;
    }
#pragma unroll
    for (int kk = 0; kk < G::kBk; ++kk) {
      if (kk + 1 < G::kBk) {
        warp::load_fragment<G>(fragment[(kk + 1) & 1], current, kk + 1, place);
      } else if (has_next) {
        // A^T of stage t + 1 goes into a buffer last read in stage t + 1 - S <= t - 1, before
        // the barrier that ended that stage; publish_stage's barrier publishes it.
        if constexpr (kAInRegisters) {
          warp::store_a_to_shared<G>(a_staging, smem + read_buffer * G::kStageFloats, a_vectors);
        }
        // Committed: stages up to t + L; stage t + 1 is complete when at most L - 1 are pending.
        publish_stage<kLead - 1>(pipe, read_buffer, read_use);
        if constexpr (kCluster > 1) {
          // The barrier above ended every read of stage t: release its buffer cluster-wide.
          if (threadIdx.x == 0) {
            const std::uint32_t empty = pipe.empty + 8u * static_cast<std::uint32_t>(released);
#pragma unroll
            for (int r = 0; r < kCluster; ++r) {
              cluster::arrive_in_block(empty, static_cast<std::uint32_t>(r));
            }
          }
        }
        warp::load_fragment<G>(fragment[(kk + 1) & 1], smem + read_buffer * G::kStageFloats, 0,
                               place);
      }
      warp::outer_product<G>(acc, fragment[kk & 1]);
    }
  }
  warp::cp_async_wait<0>();
  warp::store_c<G>(acc, args, tile, place);
  // No block leaves while another may still multicast into it or arrive on its barriers.
  if constexpr (kCluster > 1) cluster::cluster_sync();
#else
  (void)args;
  (void)raster;
#endif
}

/// True when the current device is sm_90 or newer (clusters, bulk copies).
inline bool device_has_clusters() {
  int device = 0;
  int major = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    return false;
  }
  return major >= 9;
}

template <std::size_t kIndex>
cudaError_t launch_cluster(const SgemmArgs& args, gemm::RasterOrder raster, cudaStream_t stream) {
  using G = warp::Geometry<kIndex>;
  constexpr int kCluster = G::kConfig.cluster;
  const cudaError_t raster_ok = detail::check_raster(G::kConfig, raster);
  if (raster_ok != cudaSuccess) return raster_ok;
  if (!device_has_clusters()) return cudaErrorNotSupported;
  const long long cluster_rows = ceil_div(ceil_div(std::int64_t{args.m}, G::kBm), kCluster);
  const long long blocks = kCluster * cluster_rows * ceil_div(std::int64_t{args.n}, G::kBn);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(G::kThreads);
  config.dynamicSmemBytes = static_cast<std::size_t>(shared_memory_bytes(G::kConfig));
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeClusterDimension;
  attribute[0].val.clusterDim.x = kCluster;
  attribute[0].val.clusterDim.y = 1;
  attribute[0].val.clusterDim.z = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  const cudaError_t launched = cudaLaunchKernelEx(&config, sgemm_cluster<kIndex>, args, raster);
  if (launched != cudaSuccess) return launched;
  return cudaGetLastError();
}

template <std::size_t kIndex>
cudaError_t prepare_cluster() {
  return warp::allow_shared_memory<warp::Geometry<kIndex>>(
      reinterpret_cast<const void*>(&sgemm_cluster<kIndex>));
}

struct ClusterMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    constexpr TileConfig c = compiled_config(kIndex);
    CompiledKernel compiled;
    compiled.function = reinterpret_cast<const void*>(&sgemm_cluster<kIndex>);
    compiled.threads_per_block = c.threads;
    compiled.dynamic_shared_memory_bytes = shared_memory_bytes(c);
    compiled.prepare = &prepare_cluster<kIndex>;
    compiled.launch = &launch_cluster<kIndex>;
    return compiled;
  }
};

}  // namespace roofcast::kernels::ladder
