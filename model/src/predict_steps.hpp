// The steps of predict() that live beside their concern (registers.cpp, latency.cpp), and the
// per-wave model they share with the composition in predict.cpp. Private to the model library.
#pragma once

#include "roofcast/predict.hpp"

namespace roofcast::detail {

inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;

/// What the per-wave terms need, computed once per prediction.
struct WaveModel {
  double clock_Hz = 0;
  int schedulers = 1;
  int warps = 1;
  double k_tiles = 0;
  double instructions_per_warp_tile = 0;  // spill accesses included
  double l1_wavefronts_per_warp_tile = 0;
  double epilogue_instructions = 0;
  double own_stall_cycles = 0;  // warp_own_stall_cycles
  double tile_cycle = 0;
  double tile_issue = 0;
  /// Warps without a barrier (rung 1): L1 queue wait per resident block (lsu_queue_wait_cycles
  /// of one block's wavefronts; the wave's wait is this times its blocks per SM).
  double lsu_queue_per_block = 0;
  /// Fragment round trips per K tile and one block's shared wavefronts per K tile
  /// (fragment_wait_cycles of the wave's blocks per SM).
  int fragment_round_trips = 1;
  double block_shared_wavefronts = 0;
  double shared_cycles = 0;
  double fragment_covering_cycles = 0;  // fragment_covering_issue_cycles of one block
  double l1_bytes_per_cycle = 0;
  /// Barrier-per-tile kernels without prefetch (rungs 2-7): the resident blocks wait for their
  /// tiles together (convoy), exposing `exposed_cycles` per K tile round.
  bool convoy = false;
  double exposed_cycles = 0;
  double convoy_issue = 0;  // one block's issue part of the chain
  /// The prefetched load chain, (L_global + overhead) / d: a convoy round takes
  /// expected_later_cycles(issue + exposed, convoy_floor).
  double convoy_floor = 0;
  double prologue_cycles = 0;
  /// One block's C stores draining through its SM's share of the L2 bandwidth after its K loop
  /// (LatencyHiding::epilogue_store_cycles); the wave's blocks per SM store together.
  double epilogue_store_cycles = 0;
  double l1_bytes_per_s_per_sm = 0;
  double grid = 0;
  double l2_bytes = 0;
  double dram_bytes = 0;
  /// Local bytes one block moves to or from L2 over its K loop, through its SM's share of the L2
  /// bandwidth (l2_Bps / SMs): the wave's spill term is per SM.
  double spill_bytes_per_block = 0;
  double l2_Bps_per_sm = 0;
  double l2_Bps = 0;
  double dram_Bps = 0;
};

/// Registers per thread (given, or estimated and capped) and the spilled bytes:
/// p.register_estimate, p.registers_per_thread, p.registers_estimated, p.spill's register fields.
void assign_registers(const GpuSpec& gpu, const PredictInput& input, Prediction& p);

/// The local-memory traffic of the spilled registers: p.spill's access and L2 fields (needs the
/// occupancy and the tile waste).
void add_spill_traffic(const GpuSpec& gpu, Prediction& p);

/// Latency hiding in a full wave: fills p.latency and returns the per-wave model's latency part
/// (needs the occupancy, traffic, L2 hit rate, ceilings, latencies and spills).
WaveModel hide_latency(const GpuSpec& gpu, Prediction& p);

}  // namespace roofcast::detail
