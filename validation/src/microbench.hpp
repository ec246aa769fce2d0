// Microbenchmarks for the ceilings the model needs: FFMA rate, DRAM, L2 and shared-memory
// bandwidth, and L2, DRAM and shared-memory latency. GB = 1e9 bytes, TFLOPS = 1e12 FLOP/s.
// Each result carries its method and raw figures; the harness writes them in the spec's
// `measured` format plus the raw details.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace roofcast::validation {

struct MicrobenchResult {
  std::string name;    // "ffma", "dram_copy", ...
  std::string method;  // one sentence: what ran and what is counted
  /// The headline value first (e.g. {"TFLOPS", 66.1}), then the raw figures.
  std::vector<std::pair<std::string, double>> values;

  double value(const std::string& key) const;  // throws std::out_of_range when absent
};

struct MicrobenchResults {
  double ffma_TFLOPS = 0;
  double dram_bw_GBps = 0;  // copy: bytes read + bytes written over time
  double l2_bw_GBps = 0;
  double shared_memory_bw_GBps = 0;
  double dram_latency_cycles = 0;
  double l2_latency_cycles = 0;
  double shared_memory_latency_cycles = 0;
  std::vector<MicrobenchResult> raw;
};

/// Runs every microbenchmark on the current device (a few seconds in all). `progress` receives
/// one line per benchmark. Throws std::runtime_error naming the CUDA call that failed.
MicrobenchResults run_microbenchmarks(void (*progress)(const std::string& line));

/// Median of a non-empty list (mean of the middle two for an even count).
double median_of(std::vector<double> values);

}  // namespace roofcast::validation
