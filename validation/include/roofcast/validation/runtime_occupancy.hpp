// Runtime-occupancy measurements (written by roofcast-occupancy-check on a GPU) compared with
// the model. Host-only C++: the CPU test suite runs this on the committed measurements.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofcast/spec.hpp"

namespace roofcast::validation {

inline constexpr int kRuntimeOccupancySchemaVersion = 1;

struct RuntimeOccupancyComparison {
  int queries = 0;               // cudaOccupancyMaxActiveBlocksPerMultiprocessor answers
  int query_mismatches = 0;      // model blocks per SM != runtime's
  int residency_runs = 0;        // real launches that counted resident blocks per SM
  int residency_mismatches = 0;  // most blocks seen on one SM != model's blocks per SM
  std::vector<std::string> first_mismatches;  // up to 20, described
  /// Device properties that disagree with the spec file: "field: spec X, device Y".
  std::vector<std::string> spec_disagreements;
};

/// Recomputes the model's blocks per SM for every query and residency run in `measurement`
/// and checks the recorded device properties against `spec`. Throws std::runtime_error naming
/// the field when the measurement is malformed.
RuntimeOccupancyComparison compare_runtime_occupancy(const nlohmann::json& measurement,
                                                     const GpuSpec& spec);

/// The embedded spec a device corresponds to: same compute capability and SM count, and of
/// those the one whose DRAM size is nearest. Throws UnknownGpuError when none matches.
const GpuSpec& match_spec(int cc_major, int cc_minor, int sm_count, long long dram_bytes,
                          const std::string& device_name);

}  // namespace roofcast::validation
