// SGEMM ladder measurements: what roofcast-validate writes (data/measurements/<gpu>/
// sgemm-ladder*.json, format in data/measurements/SCHEMA.md) and what the model's accuracy
// tests and the report generator read. Host-only C++ (no CUDA): it builds and is tested in CI.
//
// One struct per JSON object; the writer and the loader below are the only code that knows the
// JSON spelling. The loader is strict: a missing or mistyped field, an unknown key, an
// inconsistency (a case naming a kernel that is not listed, a kernel that is not this build's
// registry entry, a raster order its rung does not launch), a value no GPU can mean (a time,
// ceiling, clock, size or count outside the bounds in data/measurements/SCHEMA.md) or text with
// control characters is a LadderMeasurementError that names the file, the field and the bound.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/validation/outcome.hpp"

namespace roofcast::validation {

inline constexpr int kLadderMeasurementSchemaVersion = 1;
inline constexpr std::string_view kLadderMeasurementKind = "sgemm-ladder";
/// The `kernel` of a case timed through cuBLAS rather than a registry kernel.
inline constexpr std::string_view kCublasKernel = "cublas";

/// Where and how the measurement was taken.
struct LadderContext {
  std::string tool;                // "roofcast-validate"
  std::string mode;                // "full", "quick", "check-only", "quick check-only"
  std::string command_line;        // argv joined by spaces
  std::string gpu_name;            // cudaDeviceProp::name
  std::string spec_id;             // the data/gpus id the device matched
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  double sm_clock_max_MHz = 0;  // cudaDevAttrClockRate
  double memory_clock_MHz = 0;  // cudaDevAttrMemoryClockRate
  std::int64_t l2_bytes = 0;
  std::int64_t dram_bytes = 0;       // cudaDeviceProp::totalGlobalMem
  std::string driver_version;        // NVML's "580.159.04", else "CUDA 13.0" (driver API)
  std::string cuda_runtime_version;  // "13.0"
  std::string cublas_version;        // "13.1.0"
  std::string git_revision;
  std::string date_utc;  // ISO 8601, "2026-11-29T15:04:05Z"
  std::string host;
  /// How sm_clock_MHz_before/after were read: "nvml" (current SM clock) or a sentence saying
  /// that only the maximum clock was available.
  std::string clock_source;
  std::uint64_t seed = 0;  // base seed of the random inputs
  int repeats = 0;         // timed launches per case
  int warmups = 0;         // untimed launches before them
  /// Each case rotates over input sets (A, B, C) that together exceed this many bytes.
  std::int64_t rotation_min_bytes = 0;
  std::optional<std::string> ncu_version;  // only when the --ncu pass ran
  std::optional<std::string> ncu_status;   // what the --ncu pass did, or why it did not run
};

/// One microbenchmark's raw figures: a sentence on the method and named numbers (units in the
/// names: _GBps, _TFLOPS, _cycles, _bytes, _MHz, _ms).
struct RawMicrobenchmark {
  std::string method;
  std::map<std::string, double> values;
};

struct Microbenchmarks {
  /// Exactly the spec's `measured` block (data/gpus/*.json), ready to be copied there.
  MeasuredCeilings measured;
  /// "ffma", "dram_copy", "dram_read", "l2_read", "shared_memory_read", "l2_latency",
  /// "dram_latency", "shared_memory_latency".
  std::map<std::string, RawMicrobenchmark> raw;
};

/// A registry kernel as compiled for the device (cudaFuncGetAttributes) and its runtime
/// occupancy (cudaOccupancyMaxActiveBlocksPerMultiprocessor with its dynamic shared memory).
struct MeasuredKernel {
  std::string id;          // kernels::kernel_id(config)
  int registry_index = 0;  // -1 for a sample kernel (role kSample): its id names it
  kernels::Role role = kernels::Role::kSweep;
  gemm::TileConfig config;
  int threads_per_block = 0;
  int registers_per_thread = 0;
  int static_shared_bytes = 0;
  int dynamic_shared_bytes = 0;      // what each launch asks for (the registry's formula)
  int max_dynamic_shared_bytes = 0;  // cudaFuncAttributeMaxDynamicSharedMemorySize in force
  std::optional<int> preferred_carveout_percent;  // empty: the default (-1)
  int local_bytes = 0;                            // local memory per thread (spills)
  int binary_version = 0;                         // SASS target, 90 = sm_90
  int runtime_blocks_per_sm = 0;
  std::optional<int> runtime_max_active_clusters;  // cluster kernels only
};

/// The occupancy model's input that reproduces the runtime's query for this kernel.
KernelLaunch kernel_launch(const MeasuredKernel& kernel);

enum class CaseSet {
  kLadder,         // every rung's headline config (and cuBLAS) over the ladder sizes
  kSweep,          // the tile-config sweep at 4096^3 and one skinny shape
  kTrainingSweep,  // the same sweep at other shapes (2048^3, 512x2048x4096): training cases
  kCheck,          // --check-only: correctness at small sizes, never timed
  kSelection,      // --selection: every registered config at the selection shapes (tuner test)
  kSample,         // --sample: the measured sample and the registry's rungs 4-10 (docs/sample.md)
};
std::string_view to_string(CaseSet set);
std::optional<CaseSet> parse_case_set(std::string_view text);

/// Median, minimum and maximum of the timed repeats, milliseconds.
struct TimeSummaryMs {
  double median = 0;
  double min = 0;
  double max = 0;
};

/// The median (mean of the middle two for an even count), minimum and maximum.
/// Throws std::invalid_argument for an empty list.
TimeSummaryMs summarize_times(std::vector<double> times_ms);

/// TFLOPS = 2 M N K / (time_ms * 1e-3) / 1e12.
double tflops_of(const gemm::Problem& problem, double time_ms);

/// Nsight Compute's numbers for one case (one profiled launch).
struct NcuMetrics {
  std::optional<double> l2_hit_rate_pct;   // lts__t_sector_hit_rate.pct
  std::optional<double> dram_bytes_read;   // dram__bytes_read.sum
  std::optional<double> dram_bytes_write;  // dram__bytes_write.sum
  std::optional<double> l2_sectors_read;   // lts__t_sectors_srcunit_tex_op_read.sum
  std::optional<double>
      achieved_occupancy_pct;         // sm__warps_active.avg.pct_of_peak_sustained_active
  std::optional<double> duration_ns;  // gpu__time_duration.sum
  // Event counts over the launch (ncu_counts(); warp instructions, 32-byte sectors):
  std::optional<double> warp_instructions;          // smsp__inst_executed.sum
  std::optional<double> shared_load_instructions;   // smsp__inst_executed_op_shared_ld.sum
  std::optional<double> shared_store_instructions;  // smsp__inst_executed_op_shared_st.sum
  std::optional<double> shared_wavefronts;         // l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  std::optional<double> local_load_instructions;   // smsp__inst_executed_op_local_ld.sum
  std::optional<double> local_store_instructions;  // smsp__inst_executed_op_local_st.sum
  std::optional<double> local_load_sectors;        // l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum
  std::optional<double> local_store_sectors;       // l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
  /// l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum: local load sectors hit in L1.
  std::optional<double> local_load_hit_sectors;
  std::optional<double> global_load_instructions;  // smsp__inst_executed_op_global_ld.sum
  std::optional<double> global_load_sectors;       // l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  /// l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum: global load sectors hit in L1.
  std::optional<double> global_load_hit_sectors;
  /// Reason ("long_scoreboard", "barrier", ...) -> warp cycles stalled on it per issued
  /// instruction (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio).
  std::map<std::string, double> stalls;
  /// Kernels ncu profiled for the case: 1 for a ladder kernel; cuBLAS may launch more, and then
  /// the byte and sector counts and the duration are summed, the rates are the longest one's.
  int kernels = 0;
  std::optional<std::string> error;  // why the numbers are missing
};

/// An event count of NcuMetrics: its key in the measurement JSON, the ncu metric the pass asks
/// for (summed over the case's kernels) and the field it fills.
struct NcuCount {
  const char* key;
  const char* metric;
  std::optional<double> NcuMetrics::*field;
};
/// Every event count, one table for the ncu pass, the writer and the loader.
const std::vector<NcuCount>& ncu_counts();

struct MeasuredCase {
  std::string kernel;  // a MeasuredKernel id, or "cublas"
  CaseSet set = CaseSet::kLadder;
  gemm::Problem problem;
  std::optional<gemm::RasterOrder> raster;  // empty for cuBLAS
  Outcome outcome = Outcome::kFailed;
  std::optional<std::string> detail;  // why, when not passed
  std::optional<double> relative_error;
  std::optional<double> error_bound;
  std::optional<TimeSummaryMs> time_ms;  // timed cases only
  int repeats = 0;
  int input_sets = 0;  // input sets rotated over while timing
  std::optional<double> tflops;
  std::optional<std::int64_t> grid_blocks;  // registry kernels: one block per C tile
  std::optional<double> waves;              // grid / (runtime blocks per SM * SMs)
  std::optional<double> sm_clock_MHz_before;
  std::optional<double> sm_clock_MHz_after;
  std::optional<NcuMetrics> ncu;
};

struct LadderMeasurement {
  int schema_version = kLadderMeasurementSchemaVersion;
  LadderContext context;
  std::optional<Microbenchmarks> microbenchmarks;  // absent in --check-only runs
  std::vector<MeasuredKernel> kernels;
  std::vector<MeasuredCase> cases;

  /// The listed kernel with this id, or nullptr. A scan of `kernels`: for a lookup per case,
  /// build a map of the kernels once instead.
  const MeasuredKernel* find_kernel(std::string_view id) const;
};

/// A measurement file that cannot be used. what() reads "FILE: field 'FIELD': expected ...".
class LadderMeasurementError : public std::runtime_error {
 public:
  LadderMeasurementError(std::string file, std::string field, std::string expectation);
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_;
  std::string field_;
};

/// Parses and checks one document; `origin` names it in errors. O(size log size): the kernels
/// are indexed once for the duplicate check and the cases' lookups.
LadderMeasurement parse_ladder_measurement(std::string_view json_text, std::string_view origin);

/// Reads a file and parses it. Throws LadderMeasurementError (an unreadable file included).
LadderMeasurement load_ladder_measurement(const std::filesystem::path& path);

/// The committed measurements of one GPU in `gpu_directory` (data/measurements/<gpu id>):
/// sgemm-ladder.json, then sample/sgemm-sample-*.json in name order where that folder exists.
std::vector<std::string> committed_measurement_paths(const std::filesystem::path& gpu_directory);

/// The JSON text: top-level keys one per line, each kernel and each case on one line.
std::string to_json_text(const LadderMeasurement& measurement);

}  // namespace roofcast::validation
