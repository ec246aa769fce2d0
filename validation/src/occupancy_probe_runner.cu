#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "occupancy_probe_runner.hpp"
#include "probes/occupancy_probe.cuh"

namespace roofcast::validation {
namespace {

using kernels::occupancy_probe;
using kernels::Residency;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
  }
}

using LaunchFunction = void (*)(dim3 grid, dim3 block, int dynamic_bytes, float* out,
                                Residency residency);

struct ProbeKernel {
  const char* name;
  int live_values;
  const void* function;
  LaunchFunction launch;
};

template <int kLiveValues, int kStaticBytes>
void launch_probe(dim3 grid, dim3 block, int dynamic_bytes, float* out, Residency residency) {
  occupancy_probe<kLiveValues, kStaticBytes>
      <<<grid, block, dynamic_bytes>>>(out, 1, dynamic_bytes / 4, residency);
}

#define ROOFCAST_PROBE(LIVE, STATIC)                                                               \
  ProbeKernel {                                                                                    \
    "occupancy_probe<" #LIVE "," #STATIC ">", LIVE,                                                \
        reinterpret_cast<const void*>(&occupancy_probe<LIVE, STATIC>), &launch_probe<LIVE, STATIC> \
  }

// Accumulator counts chosen to spread registers per thread from ~16 to the 255 cap, each
// with no, 12 KiB and 48 KiB (the static maximum) of static shared memory.
const std::vector<ProbeKernel>& probe_kernels() {
  static const std::vector<ProbeKernel> kernels = {
      ROOFCAST_PROBE(4, 0),   ROOFCAST_PROBE(4, 12288),   ROOFCAST_PROBE(4, 49152),
      ROOFCAST_PROBE(24, 0),  ROOFCAST_PROBE(24, 12288),  ROOFCAST_PROBE(24, 49152),
      ROOFCAST_PROBE(56, 0),  ROOFCAST_PROBE(56, 12288),  ROOFCAST_PROBE(56, 49152),
      ROOFCAST_PROBE(88, 0),  ROOFCAST_PROBE(88, 12288),  ROOFCAST_PROBE(88, 49152),
      ROOFCAST_PROBE(120, 0), ROOFCAST_PROBE(120, 12288), ROOFCAST_PROBE(120, 49152),
      ROOFCAST_PROBE(168, 0), ROOFCAST_PROBE(168, 12288), ROOFCAST_PROBE(168, 49152),
      ROOFCAST_PROBE(240, 0), ROOFCAST_PROBE(240, 12288), ROOFCAST_PROBE(240, 49152),
  };
  return kernels;
}

DeviceFacts read_device() {
  DeviceFacts facts;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  auto attribute = [&](cudaDeviceAttr which) {
    int value = 0;
    check(cudaDeviceGetAttribute(&value, which, device), "cudaDeviceGetAttribute");
    return value;
  };
  facts.name = properties.name;
  facts.cc_major = properties.major;
  facts.cc_minor = properties.minor;
  facts.sm_count = properties.multiProcessorCount;
  facts.max_threads_per_sm = properties.maxThreadsPerMultiProcessor;
  facts.max_threads_per_block = properties.maxThreadsPerBlock;
  facts.max_blocks_per_sm = properties.maxBlocksPerMultiProcessor;
  facts.registers_per_sm = properties.regsPerMultiprocessor;
  facts.registers_per_block = properties.regsPerBlock;
  facts.warp_size = properties.warpSize;
  facts.shared_memory_per_sm_bytes = static_cast<long long>(properties.sharedMemPerMultiprocessor);
  facts.shared_memory_per_block_bytes = static_cast<long long>(properties.sharedMemPerBlock);
  facts.shared_memory_per_block_optin_bytes =
      static_cast<long long>(properties.sharedMemPerBlockOptin);
  facts.reserved_shared_memory_per_block_bytes =
      static_cast<long long>(properties.reservedSharedMemPerBlock);
  facts.l2_bytes = properties.l2CacheSize;
  facts.dram_bytes = static_cast<long long>(properties.totalGlobalMem);
  facts.memory_bus_width_bits = properties.memoryBusWidth;
  facts.sm_clock_max_MHz = attribute(cudaDevAttrClockRate) / 1000.0;        // kHz -> MHz
  facts.memory_clock_MHz = attribute(cudaDevAttrMemoryClockRate) / 1000.0;  // kHz -> MHz
  check(cudaDriverGetVersion(&facts.driver_version), "cudaDriverGetVersion");
  check(cudaRuntimeGetVersion(&facts.runtime_version), "cudaRuntimeGetVersion");
  return facts;
}

}  // namespace

bool cuda_device_available(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    why = std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
    return false;
  }
  if (count == 0) {
    why = "cudaGetDeviceCount found no CUDA device";
    return false;
  }
  return true;
}

ProbeResults run_occupancy_probes(void (*progress)(const std::string& line)) {
  ProbeResults results;
  results.device = read_device();
  const DeviceFacts& device = results.device;
  const int optin = static_cast<int>(device.shared_memory_per_block_optin_bytes);

  const std::vector<int> threads = {32, 64, 96, 128, 160, 192, 256, 384, 512, 640, 768, 1024};
  const std::vector<int> carveouts = {-1, 0, 10, 25, 50, 75, 100};

  float* out = nullptr;
  // Enough for the largest residency grid: sm_count * (32 + 1) blocks of 1024 threads.
  check(cudaMalloc(&out, sizeof(float) * 1024 * 33 * static_cast<std::size_t>(device.sm_count)),
        "cudaMalloc out");
  int* counters = nullptr;
  check(cudaMalloc(&counters, sizeof(int) * 2 * 1024), "cudaMalloc counters");

  const auto& kernels = probe_kernels();
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const ProbeKernel& kernel = kernels[k];
    cudaFuncAttributes attributes{};
    check(cudaFuncGetAttributes(&attributes, kernel.function), "cudaFuncGetAttributes");
    ProbeKernelFacts facts;
    facts.name = kernel.name;
    facts.live_values = kernel.live_values;
    facts.static_shared_memory_bytes = static_cast<int>(attributes.sharedSizeBytes);
    facts.registers_per_thread = attributes.numRegs;
    facts.local_memory_bytes = static_cast<int>(attributes.localSizeBytes);
    facts.default_max_dynamic_shared_memory_bytes = attributes.maxDynamicSharedSizeBytes;
    results.kernels.push_back(facts);

    const int raised = optin - facts.static_shared_memory_bytes;
    const std::vector<int> dynamic_sizes = {0,      4,      1024,          8192,   20000,
                                            32768,  49152,  65536,         99000,  120000,
                                            166912, 200000, raised - 1000, raised, raised + 1};
    // First with the default dynamic limit (48 KiB - static), then raised to the opt-in max.
    for (const int max_dynamic : {facts.default_max_dynamic_shared_memory_bytes, raised}) {
      check(cudaFuncSetAttribute(kernel.function, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 max_dynamic),
            "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
      for (const int carveout : carveouts) {
        check(cudaFuncSetAttribute(kernel.function, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   carveout),
              "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
        for (const int block : threads) {
          for (const int dynamic : dynamic_sizes) {
            if (dynamic < 0) continue;
            RuntimeQuery query{static_cast<int>(k), block, dynamic, max_dynamic, carveout, 0, ""};
            const cudaError_t status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &query.runtime_blocks_per_sm, kernel.function, block, static_cast<size_t>(dynamic));
            if (status != cudaSuccess) {
              query.runtime_error = cudaGetErrorName(status);
              query.runtime_blocks_per_sm = 0;
              cudaGetLastError();  // clear the sticky-free error state
            }
            results.queries.push_back(query);
          }
        }
      }
    }

    // Residency on the hardware: raised limit, default carveout.
    check(cudaFuncSetAttribute(kernel.function, cudaFuncAttributePreferredSharedMemoryCarveout, -1),
          "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
    for (const int block : {128, 256, 1024}) {
      for (const int dynamic : {0, 49152}) {
        ResidencyRun run{static_cast<int>(k), block, dynamic, 0, 0, 0, 0};
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                  &run.runtime_blocks_per_sm, kernel.function, block, static_cast<size_t>(dynamic)),
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
        if (run.runtime_blocks_per_sm == 0) continue;
        run.grid_blocks = device.sm_count * (run.runtime_blocks_per_sm + 1);
        check(cudaMemset(counters, 0, sizeof(int) * 2 * 1024), "cudaMemset");
        Residency residency{counters, counters + 1024,
                            static_cast<long long>(device.sm_clock_max_MHz * 100.0)};  // ~100 us
        kernel.launch(dim3(run.grid_blocks), dim3(block), dynamic, out, residency);
        check(cudaGetLastError(), "probe launch");
        check(cudaDeviceSynchronize(), "probe run");
        std::vector<int> peak(1024);
        check(cudaMemcpy(peak.data(), counters + 1024, sizeof(int) * 1024, cudaMemcpyDeviceToHost),
              "cudaMemcpy");
        peak.resize(static_cast<std::size_t>(device.sm_count));
        run.peak_blocks_on_any_sm = *std::max_element(peak.begin(), peak.end());
        run.peak_blocks_on_least_busy_sm = *std::min_element(peak.begin(), peak.end());
        results.residency.push_back(run);
      }
    }
    progress("[" + std::to_string(k + 1) + "/" + std::to_string(kernels.size()) + "] " +
             kernel.name + ": " + std::to_string(facts.registers_per_thread) + " registers, " +
             std::to_string(facts.static_shared_memory_bytes) + " B static, " +
             std::to_string(facts.local_memory_bytes) + " B local");
  }
  cudaFree(out);
  cudaFree(counters);
  return results;
}

}  // namespace roofcast::validation
