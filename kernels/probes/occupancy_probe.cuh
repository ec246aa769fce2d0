// Occupancy probe kernels: kernels whose register and static shared-memory use are set by
// template parameters, so the runtime's occupancy answer can be compared with the model's
// across many resource combinations on real hardware.
#pragma once

#include <cuda_runtime.h>

namespace roofcast::kernels {

/// Static shared memory of kBytes bytes (none for 0).
template <int kBytes>
struct StaticTile {
  __device__ static float* get() {
    __shared__ float tile[kBytes / sizeof(float)];
    return tile;
  }
};
template <>
struct StaticTile<0> {
  __device__ static float* get() { return nullptr; }
};

/// Per-SM residency counters for the residency experiment: `current[sm]` blocks now running,
/// `peak[sm]` the most seen at once. Pass nullptrs to skip the experiment.
struct Residency {
  int* current = nullptr;
  int* peak = nullptr;
  long long spin_cycles = 0;
};

__device__ inline unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

/// kLiveValues accumulators stay live across a loop of FMAs, so ptxas needs about that many
/// registers; kStaticBytes of static shared memory are touched so they are not removed.
template <int kLiveValues, int kStaticBytes>
__global__ void occupancy_probe(float* out, int iterations, int dynamic_floats,
                                Residency residency) {
  static_assert(kLiveValues >= 1, "at least one accumulator");
  static_assert(kStaticBytes % sizeof(float) == 0, "static shared memory is a float array");
  static_assert(kStaticBytes == 0 || kStaticBytes / sizeof(float) >= 1024,
                "one writer per static element for blocks of up to 1024 threads");
  extern __shared__ float dynamic_tile[];
  float* static_tile = StaticTile<kStaticBytes>::get();

  if (residency.current != nullptr && threadIdx.x == 0) {
    const unsigned sm = sm_id();
    const int now = atomicAdd(&residency.current[sm], 1) + 1;
    atomicMax(&residency.peak[sm], now);
  }

  float acc[kLiveValues];
#pragma unroll
  for (int i = 0; i < kLiveValues; ++i) acc[i] = threadIdx.x * 0.5f + i;
  for (int step = 0; step < iterations; ++step) {
#pragma unroll
    for (int i = 0; i < kLiveValues; ++i) acc[i] = fmaf(acc[i], 0.999f, acc[(i + 1) % kLiveValues]);
  }
  float sum = 0;
#pragma unroll
  for (int i = 0; i < kLiveValues; ++i) sum += acc[i];
  if constexpr (kStaticBytes > 0) {
    static_tile[threadIdx.x % (kStaticBytes / sizeof(float))] = sum;
    __syncthreads();
    sum += static_tile[(threadIdx.x + 1) % (kStaticBytes / sizeof(float))];
  }
  if (dynamic_floats > 0) {
    // One writer per element (no write-write hazard), read back after the barrier.
    const int written = min(dynamic_floats, static_cast<int>(blockDim.x));
    if (static_cast<int>(threadIdx.x) < written) dynamic_tile[threadIdx.x] = sum;
    __syncthreads();
    sum += dynamic_tile[(threadIdx.x + 1) % written];
  }

  if (residency.current != nullptr) {
    const long long start = clock64();
    while (clock64() - start < residency.spin_cycles) {
    }
    __syncthreads();
    if (threadIdx.x == 0) atomicSub(&residency.current[sm_id()], 1);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

}  // namespace roofcast::kernels
