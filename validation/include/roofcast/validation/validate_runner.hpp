// The GPU side of roofcast-validate: reads the device, a registry kernel's compiled resources,
// and runs one case (check against cuBLAS, then timed launches). Plain C++17 structs cross from
// the CUDA translation unit (validate_runner.cu) to the host code; no CUDA type appears here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/validation/outcome.hpp"

namespace roofcast::validation {

/// What the harness reads off the device once.
struct DeviceReport {
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  double sm_clock_max_MHz = 0;  // cudaDevAttrClockRate / 1000
  double memory_clock_MHz = 0;  // cudaDevAttrMemoryClockRate / 1000
  std::int64_t l2_bytes = 0;
  std::int64_t dram_bytes = 0;  // totalGlobalMem
  int driver_api_version = 0;   // cudaDriverGetVersion, 13000 = 13.0
  int runtime_version = 0;      // cudaRuntimeGetVersion
  std::string cublas_version;   // "13.1.0"
  std::string pci_bus_id;       // "0000:18:00.0", for NVML
};

DeviceReport read_device_report();

/// A registry kernel as compiled (cudaFuncGetAttributes after its prepare()) and the runtime's
/// blocks per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor at its dynamic shared memory).
struct KernelResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;
  int max_dynamic_shared_bytes = 0;
  int preferred_carveout_percent = -1;  // -1: the default
  int local_bytes = 0;
  int binary_version = 0;
  int runtime_blocks_per_sm = 0;
  std::optional<int> runtime_max_active_clusters;  // cluster > 1 only, when the query works
  std::string error;  // non-empty when a query failed (the fields above are then partial)
};

KernelResources read_kernel_resources(std::size_t registry_index);

/// One case: a registry kernel, or cuBLAS when registry_index is empty.
struct CaseSpec {
  std::optional<std::size_t> registry_index;
  gemm::Problem problem;
  gemm::RasterOrder raster;  // ignored for cuBLAS
};

struct RunOptions {
  bool time = true;  // false: check only
  int repeats = 20;  // timed launches, one CUDA event pair each
  int warmups = 3;   // untimed launches first
  /// Input sets (A, B, C) rotated over while timing together exceed this many bytes, so that
  /// a small problem does not run from the L2 its previous launch filled.
  std::int64_t rotation_min_bytes = 0;
  std::uint64_t seed = 1;  // seed of this case's check inputs (fresh per case)
};

struct CaseRun {
  Outcome outcome = Outcome::kFailed;
  std::string detail;  // why, for anything but kPassed; "reference" for cuBLAS
  std::optional<double> relative_error;
  std::optional<double> error_bound;
  std::vector<double> times_ms;  // empty unless timed
  int input_sets = 0;
  std::optional<double> sm_clock_MHz_before;  // after the warm-ups, before the timed launches
  std::optional<double> sm_clock_MHz_after;   // after the timed launches
};

/// The number of input sets of `set_bytes` each whose total exceeds `rotation_min_bytes`:
/// floor(rotation_min_bytes / set_bytes) + 1, at least 1. Host-only: defined in
/// validate_plan.cpp so the CPU tests cover it.
int input_sets_for(std::int64_t set_bytes, std::int64_t rotation_min_bytes);

/// Runs cases one after another, keeping the input sets of the current problem allocated.
class CaseRunner {
 public:
  /// `read_clock_MHz` returns the current SM clock, or empty when it cannot be read.
  explicit CaseRunner(std::function<std::optional<double>()> read_clock_MHz);
  ~CaseRunner();
  CaseRunner(const CaseRunner&) = delete;
  CaseRunner& operator=(const CaseRunner&) = delete;

  /// Checks the case against cuBLAS on fresh random inputs (poisoned C) and, when it passes
  /// and options.time, times it. Never throws for a kernel's failure: that is the outcome.
  CaseRun run(const CaseSpec& spec, const RunOptions& options);

  /// One warm-up launch, then exactly one launch between cudaProfilerStart and
  /// cudaProfilerStop (for Nsight Compute's --profile-from-start off). Throws on errors.
  void profile_once(const CaseSpec& spec, std::uint64_t seed);

  /// True once a kernel left the CUDA context unusable (an illegal address, say): every later
  /// case would fail, and the caller should stop.
  bool context_lost() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace roofcast::validation
