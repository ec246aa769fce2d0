// Runs the occupancy probe kernels on the GPU: the CUDA runtime's occupancy answers over a
// grid of launch settings, and the residency actually reached on the hardware. Plain structs
// cross from the CUDA translation unit to the host-only C++ that writes JSON.
#pragma once

#include <string>
#include <vector>

namespace roofcast::validation {

struct DeviceFacts {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0, max_threads_per_block = 0, max_blocks_per_sm = 0;
  int registers_per_sm = 0, registers_per_block = 0, warp_size = 0;
  long long shared_memory_per_sm_bytes = 0, shared_memory_per_block_bytes = 0;
  long long shared_memory_per_block_optin_bytes = 0, reserved_shared_memory_per_block_bytes = 0;
  long long l2_bytes = 0, dram_bytes = 0;
  int memory_bus_width_bits = 0;
  double sm_clock_max_MHz = 0, memory_clock_MHz = 0;
  int driver_version = 0, runtime_version = 0;
};

struct ProbeKernelFacts {
  std::string name;
  int live_values = 0;
  int static_shared_memory_bytes = 0;  // as cudaFuncGetAttributes reports
  int registers_per_thread = 0;
  int local_memory_bytes = 0;
  int default_max_dynamic_shared_memory_bytes = 0;
};

/// One cudaOccupancyMaxActiveBlocksPerMultiprocessor call and its answer.
struct RuntimeQuery {
  int kernel = 0;
  int threads_per_block = 0;
  int dynamic_shared_memory_bytes = 0;
  int max_dynamic_shared_memory_bytes = 0;  // the attribute in force
  int carveout_percent = -1;                // -1: the default
  int runtime_blocks_per_sm = 0;
  std::string runtime_error;  // empty when the call succeeded
};

/// A real launch of a grid larger than the GPU holds, counting blocks resident per SM.
struct ResidencyRun {
  int kernel = 0;
  int threads_per_block = 0;
  int dynamic_shared_memory_bytes = 0;
  int runtime_blocks_per_sm = 0;
  int grid_blocks = 0;
  int peak_blocks_on_any_sm = 0;
  int peak_blocks_on_least_busy_sm = 0;
};

struct ProbeResults {
  DeviceFacts device;
  std::vector<ProbeKernelFacts> kernels;
  std::vector<RuntimeQuery> queries;
  std::vector<ResidencyRun> residency;
};

/// True when a CUDA device is usable; otherwise `why` says what failed.
bool cuda_device_available(std::string& why);

/// Runs every query and residency experiment; `progress` receives one line per kernel.
ProbeResults run_occupancy_probes(void (*progress)(const std::string& line));

}  // namespace roofcast::validation
