// The optional Nsight Compute pass: roofcast-validate re-runs itself under
//   ncu --clock-control none --profile-from-start off --metrics ... --csv
// with one --profile-one argument per case; each case launches its kernel once between
// cudaProfilerStart and cudaProfilerStop. This file builds that command, runs it, and parses
// ncu's CSV into NcuMetrics. The parsing is pure and tested on the CPU.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "roofcast/validation/ladder_measurements.hpp"

namespace roofcast::validation {

/// Stall reasons asked for, each as
/// smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio.
const std::vector<std::string>& ncu_stall_reasons();

/// Every metric the pass asks for, in the order of the --metrics argument.
std::vector<std::string> ncu_metric_names();

/// One profiled kernel launch: its ncu ID, name and metric -> (unit, value).
struct NcuKernelRecord {
  std::string id;
  std::string name;
  std::map<std::string, std::pair<std::string, double>> metrics;
};

/// Parses the details page of `ncu --csv` (columns "ID", "Kernel Name", "Metric Name",
/// "Metric Unit", "Metric Value"; lines before the header, such as ==PROF== messages, are
/// skipped). Values lose thousands separators; "n/a" values are left out. Kernels in order of
/// first appearance. Throws std::runtime_error when there is no header.
std::vector<NcuKernelRecord> parse_ncu_csv(std::string_view text);

/// A value in the metric's base unit: bytes, sectors, nanoseconds; percentages and ratios as
/// given. Throws std::runtime_error naming an unknown unit.
double base_value(const std::string& metric, const std::string& unit, double value);

/// The case's metrics from the kernels ncu profiled for it: one kernel as is; several (cuBLAS)
/// with bytes, sectors and durations summed and the rates of the longest kernel.
NcuMetrics summarize_ncu(const std::vector<NcuKernelRecord>& kernels);

/// The ncu executable: `ncu` on PATH, else /usr/local/cuda/bin/ncu; empty with the reason.
std::optional<std::string> find_ncu(std::string* why);

/// The last line of `ncu --version` ("Version 2025.3.1.0 (build ...)"), or "unknown".
std::string ncu_version_text(const std::string& ncu);

struct NcuBatch {
  std::vector<std::string> profile_cases;  // --profile-one arguments, in launch order
};

/// Runs one batch under ncu (a child process group, killed after `timeout_s`) and returns one
/// NcuMetrics per case, each with `error` set when its numbers are missing. Logs go to
/// `log_dir` as ncu-<batch>.csv and ncu-<batch>.log.
std::vector<NcuMetrics> run_ncu_batch(const std::string& ncu, const std::string& self_exe,
                                      const NcuBatch& batch, std::uint64_t seed,
                                      const std::string& log_dir, int batch_number, int timeout_s);

}  // namespace roofcast::validation
