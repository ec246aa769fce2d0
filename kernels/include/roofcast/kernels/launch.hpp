// Host API to the compiled ladder kernels: one launch-table entry per kRegistry entry, in the
// same order. Needs the CUDA runtime (cuda_runtime.h); the model never includes this.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "roofcast/gemm.hpp"

namespace roofcast::kernels {

/// C = alpha * A * B + beta * C; row-major, dense (lda = K, ldb = N, ldc = N); device pointers
/// from cudaMalloc (256-byte aligned). Any M, N, K >= 1.
struct SgemmArgs {
  int m = 0;
  int n = 0;
  int k = 0;
  float alpha = 1.0f;
  const float* a = nullptr;
  const float* b = nullptr;
  float beta = 0.0f;
  float* c = nullptr;
};

/// What the launcher of one registry entry compiled to.
struct CompiledKernel {
  /// The __global__ function, for cudaFuncGetAttributes and the occupancy API.
  const void* function = nullptr;
  int threads_per_block = 0;
  int dynamic_shared_memory_bytes = 0;
  /// Sets the function's attributes (max dynamic shared memory, cluster settings). Call once
  /// before launching or querying occupancy.
  cudaError_t (*prepare)() = nullptr;
  /// Launches on `stream`; returns cudaErrorInvalidValue for a raster order the rung does not
  /// take (rungs 1-6 accept only row-major; no rung launches z_order) and the launch's status
  /// otherwise. Grid: one block per C tile.
  cudaError_t (*launch)(const SgemmArgs& args, gemm::RasterOrder raster,
                        cudaStream_t stream) = nullptr;
};

/// The compiled kernel of compiled index `index` (kernels/sample.hpp: the registry, then the
/// sample). A sample index in a build without the sample (ROOFCAST_BUILD_SAMPLE=OFF) aborts with
/// a message: check sample_kernels_compiled() first.
const CompiledKernel& compiled_kernel(std::size_t index);

/// Whether this build compiled the sample's kernels (ROOFCAST_BUILD_SAMPLE=ON).
bool sample_kernels_compiled();

}  // namespace roofcast::kernels
