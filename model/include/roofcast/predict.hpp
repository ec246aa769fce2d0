// Time model: predicted time and TFLOPS of an SGEMM config on a GPU, composed from waves,
// occupancy, per-level traffic, the L2 hit rate under the raster order, the roofline, latency
// hiding (Little's law) and spills, with every term's value in the result.
//
// This header is also the model's umbrella: it includes the headers of each concern,
//   time_model.hpp  calibration parameters, time terms and their composition
//   latency.hpp     latencies, the latency chain and the issue rate
//   registers.hpp   the register estimate, the register cap and spills
//   fit.hpp         the least-squares calibration fit
//   statistics.hpp  MAPE and Spearman's rank correlation
//
// The comments state formulas, units and the source of each constant; the reasoning and the
// measurement history behind each mechanism are in docs/model.md (sections cited).
//
// predict() is pure and allocation-free (no strings or vectors on its path).
#pragma once

#include <optional>

#include "roofcast/fit.hpp"
#include "roofcast/gemm.hpp"
#include "roofcast/l2.hpp"
#include "roofcast/latency.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/registers.hpp"
#include "roofcast/roofline.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/statistics.hpp"
#include "roofcast/time_model.hpp"
#include "roofcast/traffic.hpp"
#include "roofcast/waves.hpp"

namespace roofcast {

// ---- prediction -------------------------------------------------------------------------------

struct PredictInput {
  gemm::Problem problem;
  gemm::TileConfig config;  // threads = 0: the anatomy's threads
  gemm::RasterOrder raster;
  /// Shared memory per block, bytes (kernels::shared_memory_bytes(config) for a registry
  /// kernel); the kernel allocates it dynamically and raises its limit to the opt-in maximum.
  int shared_memory_bytes = 0;
  /// Registers per thread as ptxas reports; empty: estimate_registers (capped at the GPU's
  /// per-thread maximum, the excess spilled).
  std::optional<int> registers_per_thread;
  /// Local-memory bytes per thread spilled (ptxas "bytes spill stores"); used when
  /// registers_per_thread is given.
  int spill_bytes_per_thread = 0;
  /// The kernel's __launch_bounds__ minimum blocks per SM (0: none). ptxas then keeps the
  /// registers at or below register_cap(gpu, threads, min_blocks); an estimate above the cap
  /// spills the difference.
  int min_blocks_per_sm = 0;
  bool c_is_read = false;  // beta != 0
  L2Model l2_model = L2Model::kRoofcast;
  /// Clusters that can be resident at once as the runtime reports
  /// (cudaOccupancyMaxActiveClusters); 0: unknown, the wave is rounded to whole clusters only
  /// (compute_waves). Cluster kernels only.
  int max_active_clusters = 0;
};

struct Prediction {
  bool launchable = false;
  /// Why the GPU cannot run the kernel at all (its family's reason, a static string: e.g. a
  /// compute capability the kernel needs); nullptr when it can. Then launchable is false and the
  /// prediction has no time.
  const char* not_runnable = nullptr;
  gemm::Problem problem;
  gemm::TileConfig config;  // threads filled in
  gemm::RasterOrder raster;
  int shared_memory_bytes = 0;
  int registers_per_thread = 0;
  bool registers_estimated = false;
  RegisterEstimate register_estimate;
  OccupancyResult occupancy;
  KernelAnatomy anatomy;
  TileWaste waste;
  WaveResult waves;
  Traffic traffic;
  L2Result l2;
  double dram_bytes = 0;
  double l2_sector_hit_rate = 0;  // every L2 access (kernel_sector_hit_rate)
  Ceilings ceilings;
  Roofline roofline;
  Latencies latencies;
  LatencyHiding latency;
  SpillEstimate spill;
  /// FFMA share of issued instructions: ffma / instructions per K tile.
  double issue_efficiency = 0;
  Calibration calibration;
  PredictionTerms terms;  // uncalibrated
  TimeTerms totals;       // calibrated, whole launch
  TimeTerm binding = TimeTerm::kIssue;
  double time_s = 0;
  double tflops = 0;  // useful FLOPs / time
};

/// Predicts (gpu, input). A config that cannot launch (occupancy LaunchFailure) returns
/// launchable = false with the occupancy filled in and no times. Throws
/// std::invalid_argument for a problem with M, N or K < 1 or a config without a tile.
///
/// Per wave with B blocks on an SM (the last wave: ceil(blocks / SMs) per SM), seconds:
/// (The last wave's ceil(blocks / SMs) is the breadth-first placement; its measured tails and
/// the packings tried and not adopted: docs/model.md#waves-and-tails.)
///   issue         = (k_tiles * round_issue + epilogue) / f
///   shared_memory = k_tiles * B * warps * L1 wavefronts per warp per tile * 128 B
///                   / (shared-memory bandwidth / SMs)
///   latency       = (k_tiles * tile_cycle + prologue + epilogue) / f (rung 1: tile_cycle
///                   + lsu_queue_wait_cycles of the wave's B blocks per SM),  prologue =
///                   G * L_global + transfer + overhead (the first tile; G = 1 and transfer 0
///                   with prefetch, where the transfer of the prefetch_tiles stages the block
///                   fills first, at the SM's share of the L2, is added instead), epilogue =
///                   C-store issue; rungs 2-7 (a barrier per tile, no prefetch) instead take per
///                   K tile max(round_issue, tile_issue + fragment_wait) + G * L_global +
///                   transfer + overhead (G = serial_load_groups: rungs 5-6 wait for A's round
///                   trip, then B's; docs/model.md#serial-load-groups; transfer:
///                   convoy_transfer_cycles of one block's tile): the resident blocks issue
///                   interleaved, finish their compute together and wait for their next tiles
///                   together (a convoy), so the wait is not hidden behind the other blocks
///                   (measured rounds: docs/model.md#convoys); fragment_wait_cycles of the
///                   wave's B blocks (rung 4's k steps) stalls a warp while the other warps
///                   issue (prefetching kernels add it to tile_cycle)
///   l2            = the wave's share of L2 bytes / L2 bandwidth (0 without a ceiling)
///   dram          = the wave's share of DRAM bytes / DRAM bandwidth
///   spill         = B * one block's spill bytes / the SM's share of the L2 bandwidth
///                   (l2 / SMs; DRAM's when L2 has none)
/// f = the SM clock (Ceilings::boost_clock_MHz, the GPU's own); instruction counts are issue
/// cycles, warp_issue_cycles(ffma, instructions, ffma_issue_cycles(sm), issue_per_cycle), and
/// include SpillEstimate::accesses_per_tile, the L1 wavefronts too (one per local warp
/// access). Then compose_time_s.
///
/// The kernel reaches the model as data: `anatomy` is what its family says one thread does per
/// K tile on input.problem with the GPU's shared-memory banks (the ladder's:
/// kernels::anatomy(); kernels::predict() builds it and calls this). config.threads = 0 takes
/// anatomy.threads. The anatomy does not depend on the raster order, so a ranker computes it
/// once per config and problem and reuses it across raster orders.
Prediction predict(const GpuSpec& gpu, const PredictInput& input, const Calibration& calibration,
                   const KernelAnatomy& anatomy);

}  // namespace roofcast
