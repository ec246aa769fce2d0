// Translates roofcast's spec and launch into the inputs of the CUDA toolkit's occupancy
// calculator (cuda_occupancy.h), for the oracle test and the benchmark. Include only where
// <cuda_occupancy.h> is available.
#pragma once

#include <cuda_occupancy.h>

#include "roofcast/occupancy.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::testing {

/// cudaOccDeviceProp as cudaGetDeviceProperties would fill it for this GPU.
inline cudaOccDeviceProp device_properties(const GpuSpec& gpu) {
  cudaOccDeviceProp properties;
  properties.computeMajor = gpu.compute_capability.major;
  properties.computeMinor = gpu.compute_capability.minor;
  properties.maxThreadsPerBlock = gpu.sm.max_threads_per_block;
  properties.maxThreadsPerMultiprocessor = gpu.sm.max_threads_per_sm;
  properties.regsPerBlock = gpu.sm.max_registers_per_block;
  properties.regsPerMultiprocessor = gpu.sm.registers_per_sm;
  properties.warpSize = gpu.sm.warp_size;
  properties.sharedMemPerBlock = static_cast<size_t>(gpu.sm.shared_memory_per_block_default_bytes);
  properties.sharedMemPerMultiprocessor = static_cast<size_t>(gpu.sm.shared_memory_per_sm_bytes);
  properties.numSms = gpu.chip.sm_count;
  properties.sharedMemPerBlockOptin =
      static_cast<size_t>(gpu.sm.shared_memory_per_block_optin_bytes);
  properties.reservedSharedMemPerBlock =
      static_cast<size_t>(gpu.sm.reserved_shared_memory_per_block_bytes);
  return properties;
}

/// What the runtime passes for a kernel: cudaOccFuncAttributes(cudaFuncAttributes) sets the
/// opt-in shared-memory config and one block barrier.
inline cudaOccFuncAttributes function_attributes(const KernelLaunch& launch, int max_dynamic) {
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = 1024;
  attributes.numRegs = launch.registers_per_thread;
  attributes.sharedSizeBytes = static_cast<size_t>(launch.static_shared_memory_bytes);
  attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attributes.maxDynamicSharedSizeBytes = static_cast<size_t>(max_dynamic);
  attributes.numBlockBarriers = 1;
  return attributes;
}

/// The device state for a launch's carveout preference (-1: the default).
inline cudaOccDeviceState device_state(const KernelLaunch& launch) {
  cudaOccDeviceState state;
  state.carveoutConfig = launch.carveout_percent.value_or(SHAREDMEM_CARVEOUT_DEFAULT);
  return state;
}

}  // namespace roofcast::testing
