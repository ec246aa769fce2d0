#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "roofcast/kernels/launch.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
#include "roofcast/validation/validate_runner.hpp"
#include "sgemm_check.hpp"

namespace roofcast::validation {
namespace {

std::string cublas_version_text() {
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
      cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
    return "unknown";
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

kernels::SgemmArgs args_of(const gemm::Problem& p, const float* a, const float* b, float* c) {
  kernels::SgemmArgs args;
  args.m = static_cast<int>(p.m);
  args.n = static_cast<int>(p.n);
  args.k = static_cast<int>(p.k);
  args.alpha = 1.0f;
  args.beta = 0.0f;
  args.a = a;
  args.b = b;
  args.c = c;
  return args;
}

/// Bytes rounded up to 256 so every matrix of a set starts 256-byte aligned.
std::int64_t aligned_bytes(std::int64_t elements) {
  return (elements * static_cast<std::int64_t>(sizeof(float)) + 255) / 256 * 256;
}

}  // namespace

DeviceReport read_device_report() {
  DeviceReport report;
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  auto attribute = [&](cudaDeviceAttr which, const char* what) {
    int value = 0;
    check_cuda(cudaDeviceGetAttribute(&value, which, device), what);
    return value;
  };
  report.name = properties.name;
  report.cc_major = properties.major;
  report.cc_minor = properties.minor;
  report.sm_count = properties.multiProcessorCount;
  report.sm_clock_max_MHz = attribute(cudaDevAttrClockRate, "cudaDevAttrClockRate") / 1000.0;
  report.memory_clock_MHz =
      attribute(cudaDevAttrMemoryClockRate, "cudaDevAttrMemoryClockRate") / 1000.0;
  report.l2_bytes = properties.l2CacheSize;
  report.dram_bytes = static_cast<std::int64_t>(properties.totalGlobalMem);
  check_cuda(cudaDriverGetVersion(&report.driver_api_version), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&report.runtime_version), "cudaRuntimeGetVersion");
  report.cublas_version = cublas_version_text();
  char bus_id[32] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) == cudaSuccess) {
    report.pci_bus_id = bus_id;
  }
  return report;
}

KernelResources read_kernel_resources(std::size_t index) {
  KernelResources r;
  const kernels::CompiledKernel& kernel = kernels::compiled_kernel(index);
  const kernels::TileConfig& config = kernels::compiled_config(index);
  r.threads_per_block = kernel.threads_per_block;
  r.dynamic_shared_bytes = kernel.dynamic_shared_memory_bytes;
  cudaError_t status = kernel.prepare();
  if (status != cudaSuccess) {
    r.error = std::string("prepare: ") + cudaGetErrorString(status);
    cudaGetLastError();
    return r;
  }
  cudaFuncAttributes attributes{};
  status = cudaFuncGetAttributes(&attributes, kernel.function);
  if (status != cudaSuccess) {
    r.error = std::string("cudaFuncGetAttributes: ") + cudaGetErrorString(status);
    cudaGetLastError();
    return r;
  }
  r.registers_per_thread = attributes.numRegs;
  r.static_shared_bytes = static_cast<int>(attributes.sharedSizeBytes);
  r.local_bytes = static_cast<int>(attributes.localSizeBytes);
  r.max_dynamic_shared_bytes = attributes.maxDynamicSharedSizeBytes;
  r.preferred_carveout_percent = attributes.preferredShmemCarveout;
  r.binary_version = attributes.binaryVersion;
  status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &r.runtime_blocks_per_sm, kernel.function, r.threads_per_block, r.dynamic_shared_bytes);
  if (status != cudaSuccess) {
    r.error =
        std::string("cudaOccupancyMaxActiveBlocksPerMultiprocessor: ") + cudaGetErrorString(status);
    cudaGetLastError();
    return r;
  }
  if (config.cluster > 1) {
    // With the cluster size as a launch attribute first; a kernel compiled with
    // __cluster_dims__ refuses that, so then without.
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = static_cast<unsigned>(config.cluster);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t launch{};
    launch.gridDim = dim3(static_cast<unsigned>(config.cluster), 1, 1);
    launch.blockDim = dim3(static_cast<unsigned>(r.threads_per_block), 1, 1);
    launch.dynamicSmemBytes = static_cast<std::size_t>(r.dynamic_shared_bytes);
    launch.attrs = &cluster;
    launch.numAttrs = 1;
    int clusters = 0;
    status = cudaOccupancyMaxActiveClusters(&clusters, kernel.function, &launch);
    if (status != cudaSuccess) {
      cudaGetLastError();
      launch.attrs = nullptr;
      launch.numAttrs = 0;
      status = cudaOccupancyMaxActiveClusters(&clusters, kernel.function, &launch);
    }
    if (status == cudaSuccess) {
      r.runtime_max_active_clusters = clusters;
    } else {
      cudaGetLastError();
    }
  }
  return r;
}

struct CaseRunner::Impl {
  explicit Impl(std::function<std::optional<double>()> clock) : read_clock_MHz(std::move(clock)) {}

  std::function<std::optional<double>()> read_clock_MHz;
  SgemmChecker checker;
  bool lost = false;

  // The input sets of the current problem: sets x (A, B, C) in one allocation.
  gemm::Problem problem{};
  std::int64_t rotation_min_bytes = -1;
  char* arena = nullptr;
  std::vector<kernels::SgemmArgs> sets;
  std::uint64_t next_input_seed = 0x5EED0000;

  std::vector<cudaEvent_t> events;

  ~Impl() {
    if (arena != nullptr) cudaFree(arena);
    for (cudaEvent_t event : events) cudaEventDestroy(event);
  }

  void ensure_inputs(const gemm::Problem& p, std::int64_t min_bytes) {
    if (arena != nullptr && p == problem && min_bytes == rotation_min_bytes) return;
    if (arena != nullptr) check_cuda(cudaFree(arena), "cudaFree (input sets)");
    arena = nullptr;
    sets.clear();
    const std::int64_t a_bytes = aligned_bytes(p.m * p.k);
    const std::int64_t b_bytes = aligned_bytes(p.k * p.n);
    const std::int64_t c_bytes = aligned_bytes(p.m * p.n);
    const std::int64_t set_bytes = a_bytes + b_bytes + c_bytes;
    const int count = input_sets_for(set_bytes, min_bytes);
    check_cuda(
        cudaMalloc(reinterpret_cast<void**>(&arena), static_cast<std::size_t>(set_bytes * count)),
        "cudaMalloc (input sets)");
    for (int i = 0; i < count; ++i) {
      char* base = arena + set_bytes * i;
      float* a = reinterpret_cast<float*>(base);
      float* b = reinterpret_cast<float*>(base + a_bytes);
      float* c = reinterpret_cast<float*>(base + a_bytes + b_bytes);
      fill_uniform(a, p.m * p.k, next_input_seed++, nullptr);
      fill_uniform(b, p.k * p.n, next_input_seed++, nullptr);
      fill_uniform(c, p.m * p.n, next_input_seed++, nullptr);
      sets.push_back(args_of(p, a, b, c));
    }
    check_cuda(cudaDeviceSynchronize(), "filling input sets");
    problem = p;
    rotation_min_bytes = min_bytes;
  }

  void ensure_events(std::size_t count) {
    while (events.size() < count) {
      cudaEvent_t event;
      check_cuda(cudaEventCreate(&event), "cudaEventCreate");
      events.push_back(event);
    }
  }

  cudaError_t launch(const CaseSpec& spec, const kernels::SgemmArgs& args) {
    if (!spec.registry_index) {
      const cublasStatus_t status = cublas_sgemm(checker.cublas(), args);
      return status == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    }
    return kernels::compiled_kernel(*spec.registry_index).launch(args, spec.raster, nullptr);
  }

  /// After a failure: a context that still fails a synchronize after the error was read is
  /// lost (sticky errors such as an illegal address).
  void note_possible_loss() {
    cudaDeviceSynchronize();
    cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess) lost = true;
  }

  void time_case(const CaseSpec& spec, const RunOptions& options, CaseRun& run) {
    ensure_inputs(spec.problem, options.rotation_min_bytes);
    const int count = static_cast<int>(sets.size());
    run.input_sets = count;
    for (int i = 0; i < options.warmups; ++i) {
      check_cuda(launch(spec, sets[i % count]), "warm-up launch");
    }
    check_cuda(cudaDeviceSynchronize(), "warm-up");
    run.sm_clock_MHz_before = read_clock_MHz();
    ensure_events(static_cast<std::size_t>(options.repeats) + 1);
    check_cuda(cudaEventRecord(events[0]), "cudaEventRecord");
    for (int r = 0; r < options.repeats; ++r) {
      check_cuda(launch(spec, sets[(options.warmups + r) % count]), "timed launch");
      check_cuda(cudaEventRecord(events[r + 1]), "cudaEventRecord");
    }
    check_cuda(cudaEventSynchronize(events[options.repeats]), "timed launches");
    run.sm_clock_MHz_after = read_clock_MHz();
    for (int r = 0; r < options.repeats; ++r) {
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, events[r], events[r + 1]), "cudaEventElapsedTime");
      run.times_ms.push_back(ms);
    }
  }
};

CaseRunner::CaseRunner(std::function<std::optional<double>()> read_clock_MHz)
    : impl_(std::make_unique<Impl>(std::move(read_clock_MHz))) {}

CaseRunner::~CaseRunner() = default;

bool CaseRunner::context_lost() const { return impl_->lost; }

CaseRun CaseRunner::run(const CaseSpec& spec, const RunOptions& options) {
  CaseRun run;
  if (impl_->lost) {
    run.detail = "not run: an earlier case left the CUDA context unusable";
    return run;
  }
  try {
    if (spec.registry_index) {
      const CheckResult check = impl_->checker.check_kernel(*spec.registry_index, spec.problem,
                                                            spec.raster, options.seed);
      run.outcome = check.outcome;
      run.detail = check.detail;
      if (check.outcome == Outcome::kPassed || check.outcome == Outcome::kIncorrect) {
        run.relative_error = check.relative_error;
        run.error_bound = check.error_bound;
      }
      if (check.outcome == Outcome::kFailed) impl_->note_possible_loss();
      if (check.outcome != Outcome::kPassed) return run;
    } else {
      run.outcome = Outcome::kPassed;
      run.detail = "reference";
    }
    if (options.time) impl_->time_case(spec, options, run);
  } catch (const std::exception& error) {
    run.outcome = Outcome::kFailed;
    run.detail = error.what();
    run.times_ms.clear();
    impl_->note_possible_loss();
  }
  return run;
}

void CaseRunner::profile_once(const CaseSpec& spec, std::uint64_t seed) {
  impl_->next_input_seed = seed;
  impl_->ensure_inputs(spec.problem, 0);
  if (spec.registry_index) {
    check_cuda(kernels::compiled_kernel(*spec.registry_index).prepare(), "prepare kernel");
  }
  const kernels::SgemmArgs& args = impl_->sets.front();
  check_cuda(impl_->launch(spec, args), "warm-up launch");
  check_cuda(cudaDeviceSynchronize(), "warm-up");
  check_cuda(cudaProfilerStart(), "cudaProfilerStart");
  check_cuda(impl_->launch(spec, args), "profiled launch");
  check_cuda(cudaDeviceSynchronize(), "profiled launch");
  check_cuda(cudaProfilerStop(), "cudaProfilerStop");
}

}  // namespace roofcast::validation
