// GPU specification: immutable, validated facts about one GPU product, loaded from
// data/gpus/*.json (embedded at build time) or from a user's file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "roofcast/compute_capability.hpp"

namespace roofcast {

/// The schema_version this build reads. A file with another version is rejected.
inline constexpr int kSpecSchemaVersion = 1;

/// Per-SM resource limits. Units are in the names; registers are 32-bit registers.
struct SmLimits {
  int warp_size = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;
  int max_registers_per_block = 0;
  /// 255 on every GPU in the database: the programming guide's limit and the most ptxas
  /// allocates. cuda_occupancy.h uses 256 for cc >= 7, a count no compiled kernel can have.
  int max_registers_per_thread = 0;
  /// Registers are allocated per warp in multiples of this many registers.
  int register_allocation_unit = 0;
  /// The register file is split into this many sub-partitions (one per warp scheduler);
  /// warps are placed whole into one sub-partition.
  int register_file_subpartitions = 0;
  /// The per-block register check rounds warps per block up to a multiple of this.
  int warp_allocation_granularity = 0;
  int shared_memory_per_sm_bytes = 0;
  /// Legal L1/shared-memory carveouts, ascending, KiB; the last equals the SM's capacity.
  std::vector<int> shared_memory_carveouts_KiB;
  int shared_memory_per_block_default_bytes = 0;
  int shared_memory_per_block_optin_bytes = 0;
  int reserved_shared_memory_per_block_bytes = 0;
  int shared_memory_allocation_granularity_bytes = 0;
  int shared_memory_banks = 0;
  int shared_memory_bank_width_bytes = 0;
  int fp32_lanes_per_sm = 0;

  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
  bool operator==(const SmLimits&) const = default;
};

/// Whole-chip figures. GB is 1e9 bytes; MiB is 2^20.
struct ChipFigures {
  int sm_count = 0;
  double boost_clock_MHz = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t dram_bytes = 0;
  double dram_bw_GBps = 0;
  int memory_bus_width_bits = 0;
  double memory_clock_MHz = 0;
  bool operator==(const ChipFigures&) const = default;
};

/// Vendor peak rates, TFLOPS (1e12 FLOP/s). Tensor figures are dense; an empty optional
/// means the GPU has no such unit.
struct PeakTflops {
  double fp32 = 0;
  double fp64 = 0;
  std::optional<double> tf32_tensor_dense;
  std::optional<double> fp16_tensor_dense;
  std::optional<double> bf16_tensor_dense;
  std::optional<double> fp8_tensor_dense;
  bool operator==(const PeakTflops&) const = default;
};

/// Ceilings measured by roofcast's microbenchmarks on real hardware, kept apart from vendor
/// figures. Each is optional; measurement_run names the run they came from.
/// How many clusters of `cluster` blocks the runtime co-schedules when `blocks_per_sm` blocks fit
/// an SM (cudaOccupancyMaxActiveClusters): fewer than SMs x blocks / cluster where a cluster must
/// sit in one GPC and the GPCs' SM counts are not multiples of the cluster (the H200: 30 clusters
/// of 4 at one block per SM, not 33).
struct ClusterResidency {
  int cluster = 0;
  int blocks_per_sm = 0;
  int clusters = 0;
  bool operator==(const ClusterResidency&) const = default;
};

struct MeasuredCeilings {
  std::string measurement_run;
  std::vector<ClusterResidency> max_active_clusters;  // as the runtime answered, any order
  std::optional<double> ffma_TFLOPS;
  std::optional<double> dram_bw_GBps;
  std::optional<double> l2_bw_GBps;
  std::optional<double> shared_memory_bw_GBps;
  std::optional<double> dram_latency_cycles;
  std::optional<double> l2_latency_cycles;
  std::optional<double> shared_memory_latency_cycles;
  bool operator==(const MeasuredCeilings&) const = default;
};

/// Per-architecture facts the time model uses beyond the datasheet, each from a stated source
/// (vendor documentation, a published microbenchmark, or roofcast's own measurement or SASS of
/// that architecture). Every one is optional: a datasheet-only spec still predicts, and the model
/// then takes the generic assumption that latency.hpp names and says so in the prediction's
/// notes. A measured block's figure, where present, wins over these.
/// One point of the L2 read rate per SM against the SMs reading at once (one block per SM).
struct L2ShareRow {
  int sms = 0;                        // SMs reading at once
  double bytes_per_cycle_per_sm = 0;  // L2 read bytes per SM cycle each of them receives
  bool operator==(const L2ShareRow&) const = default;
};

struct MicroarchitectureFacts {
  std::optional<double> ffma_latency_cycles;           // dependent FFMA issue to use
  std::optional<double> shared_memory_latency_cycles;  // LDS hit
  std::optional<double> l2_latency_cycles;             // L2 hit
  std::optional<double> dram_latency_cycles;           // L2 miss to DRAM
  std::optional<double> l2_bw_GBps;                    // vendor or published L2 bandwidth
  /// Cycles per instruction a warp alone stalls on its own stream (issue model's s).
  std::optional<double> warp_own_stall_cycles;
  /// Extra fixed-latency cycles per instruction of the unaligned copy paths (SASS control codes).
  std::optional<double> unaligned_copy_stall_cycles;
  /// The instruction cache a K loop's code must fit (bytes), and the cycles per instruction a warp
  /// stalls fetching code when the loop's body is larger (no_instruction stalls).
  std::optional<double> instruction_cache_bytes;
  std::optional<double> instruction_fetch_stall_cycles;
  /// Share of a spilling kernel's local loads that miss L1 (0..1; docs/model.md#spills).
  std::optional<double> local_load_l1_miss_share;
  /// Cycles per K tile a block waits on a bulk-copy stage's full mbarrier (rung 10; sm_90).
  std::optional<double> bulk_copy_stage_wait_cycles;
  /// The same with the guarded 4-byte cp.async fallback of unaligned rows (rung 10).
  std::optional<double> fallback_stage_wait_cycles;
  /// The L2 read rate each SM receives when k SMs read at once, measured at a few k (ascending,
  /// 1..sm_count): what a grid smaller than the GPU gets (l2_share_bytes_per_cycle in
  /// latency.hpp). Empty: every SM's share of the L2 bandwidth, as at full load.
  std::vector<L2ShareRow> l2_read_share;
  bool operator==(const MicroarchitectureFacts&) const = default;
};

struct GpuSpec {
  std::string id;
  std::string name;
  std::string architecture;
  ComputeCapability compute_capability;
  SmLimits sm;
  ChipFigures chip;
  PeakTflops peak_TFLOPS;
  std::optional<MeasuredCeilings> measured;
  MicroarchitectureFacts microarchitecture;  // the "microarchitecture" block (may be absent)
  /// Field path ("sm.warp_size") -> citation text, resolved through the file's references.
  std::map<std::string, std::string> sources;
  /// Where the spec came from: "embedded:h200-sxm.json" or a file path.
  std::string origin;
};

/// A spec file that cannot be used. what() reads "FILE: field 'FIELD': expected EXPECTATION".
class SpecError : public std::runtime_error {
 public:
  SpecError(std::string file, std::string field, std::string expectation);
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& expectation() const { return expectation_; }

 private:
  std::string file_;
  std::string field_;
  std::string expectation_;
};

/// A GPU id that is not in the database. what() lists the known ids.
class UnknownGpuError : public std::runtime_error {
 public:
  explicit UnknownGpuError(const std::string& message) : std::runtime_error(message) {}
};

/// Bounds of the spec's rates and latencies (and of every file that carries a measured block):
/// a TFLOPS figure in 1e-3..1e6 (a GFLOPS to an exaFLOPS), bandwidths in 1e-3..1e7 GB/s (1 MB/s
/// to 10 PB/s), latencies in 1..1e6 cycles: bounds a prediction stays finite within.
namespace spec_bounds {
inline constexpr double kMinTflops = 1e-3;
inline constexpr double kMaxTflops = 1e6;
inline constexpr double kMinGBps = 1e-3;
inline constexpr double kMaxGBps = 1e7;
inline constexpr double kMinCycles = 1;
inline constexpr double kMaxCycles = 1e6;
}  // namespace spec_bounds

/// Longest GPU id: ids name folders (data/measurements/<id>/, reports/<id>/) and files.
inline constexpr std::size_t kMaxGpuIdLength = 64;

/// Why `id` cannot be a GPU id, or empty when it can: 1..kMaxGpuIdLength characters of
/// [a-z0-9._-], starting with a letter or digit (so no '/', no "..", never absolute).
std::optional<std::string> gpu_id_problem(std::string_view id);

/// The measured ClusterResidency::clusters of `gpu` for (cluster, blocks_per_sm), or 0 when its
/// measured block has none for that pair (the model then takes SMs x blocks / cluster).
int measured_max_active_clusters(const GpuSpec& gpu, int cluster, int blocks_per_sm);

/// Parses and validates one spec document. `origin` names it in errors.
GpuSpec parse_spec(std::string_view json_text, std::string_view origin);

/// Reads, parses and validates a spec file. Throws SpecError (unreadable file included).
GpuSpec load_spec_file(const std::filesystem::path& path);

/// The specs embedded at build time from data/gpus/*.json, sorted by id; parsed once.
const std::vector<GpuSpec>& embedded_specs();

/// The embedded spec with this id; throws UnknownGpuError listing the known ids.
const GpuSpec& embedded_spec(std::string_view id);

/// Resolves a --gpu style argument: an embedded id, or a path to a JSON file when the
/// argument ends in ".json".
GpuSpec find_spec(std::string_view id_or_path);

}  // namespace roofcast
