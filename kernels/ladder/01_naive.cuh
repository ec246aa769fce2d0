// Rung 1, naive: one thread per element of C, a K-long dot product straight from global memory.
// Consecutive threads of a warp take consecutive columns n, so the B loads and C stores are
// coalesced and the A load is a broadcast. Tile vocabulary: BM x BN is the block's C area,
// threads = BM * BN, TM = TN = 1; BK, stages and vector width are unused (0, 1, 1).
#pragma once

#include <cuda_runtime.h>

#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"

namespace roofcast::kernels::ladder {

// Kernels are templated on their registry index, so every compiled function (and its name in
// ptxas, cuobjdump and Nsight Compute output) maps back to exactly one kRegistry entry.
template <std::size_t kIndex, int kBm = compiled_config(kIndex).bm,
          int kBn = compiled_config(kIndex).bn>
__global__ void __launch_bounds__(kBm* kBn) sgemm_naive(SgemmArgs args) {
  static_assert(rules::naive_threads_match_tile(kBm, kBn),
                "naive: one thread per C element, so BM * BN threads, at most 1024");
  static_assert(rules::naive_block_is_warp_multiple(kBm, kBn),
                "naive: BN must be a multiple of 32 so each warp covers one row segment");
  const int n = blockIdx.x * kBn + static_cast<int>(threadIdx.x) % kBn;
  const int m = blockIdx.y * kBm + static_cast<int>(threadIdx.x) / kBn;
  if (m >= args.m || n >= args.n) return;
  const float* a_row = args.a + static_cast<long long>(m) * args.k;
  float sum = 0.0f;
  for (int k = 0; k < args.k; ++k) sum += a_row[k] * args.b[static_cast<long long>(k) * args.n + n];
  float* c = args.c + static_cast<long long>(m) * args.n + n;
  *c = args.alpha * sum + (args.beta == 0.0f ? 0.0f : args.beta * *c);
}

template <std::size_t kIndex>
cudaError_t launch_naive(const SgemmArgs& args, gemm::RasterOrder raster, cudaStream_t stream) {
  constexpr TileConfig c = compiled_config(kIndex);
  if (raster.kind != gemm::RasterKind::kRowMajor) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(ceil_div(std::int64_t{args.n}, c.bn)),
                  static_cast<unsigned>(ceil_div(std::int64_t{args.m}, c.bm)));
  sgemm_naive<kIndex><<<grid, c.bm * c.bn, 0, stream>>>(args);
  return cudaGetLastError();
}

inline cudaError_t prepare_nothing() { return cudaSuccess; }

struct NaiveMaker {
  template <std::size_t kIndex>
  static CompiledKernel make() {
    constexpr TileConfig c = compiled_config(kIndex);
    CompiledKernel compiled;
    compiled.function = reinterpret_cast<const void*>(&sgemm_naive<kIndex>);
    compiled.threads_per_block = c.bm * c.bn;
    compiled.dynamic_shared_memory_bytes = 0;
    compiled.prepare = &prepare_nothing;
    compiled.launch = &launch_naive<kIndex>;
    return compiled;
  }
};

}  // namespace roofcast::kernels::ladder
