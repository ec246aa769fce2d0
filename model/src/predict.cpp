#include "roofcast/predict.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace roofcast {
namespace {

constexpr double kMega = 1e6;
constexpr double kGiga = 1e9;
constexpr double kTera = 1e12;

/// max(issue_scale * issue + shared_memory_scale * shared_memory, the other scaled terms).
double wave_time_s(const TimeTerms& terms, const Calibration& c) {
  double worst = c.issue_scale * terms[TimeTerm::kIssue] +
                 c.shared_memory_scale * terms[TimeTerm::kSharedMemory];
  for (int t = static_cast<int>(TimeTerm::kLatency); t < kTimeTermCount; ++t) {
    worst = std::max(worst, term_scale(c, static_cast<TimeTerm>(t)) * terms.seconds[t]);
  }
  return worst;
}

}  // namespace

std::string_view to_string(TimeTerm term) {
  switch (term) {
    case TimeTerm::kIssue:
      return "issue";
    case TimeTerm::kSharedMemory:
      return "shared_memory";
    case TimeTerm::kLatency:
      return "latency";
    case TimeTerm::kL2:
      return "l2";
    case TimeTerm::kDram:
      return "dram";
    case TimeTerm::kSpill:
      return "spill";
  }
  return "unknown";
}

double term_scale(const Calibration& c, TimeTerm term) {
  switch (term) {
    case TimeTerm::kIssue:
      return c.issue_scale;
    case TimeTerm::kSharedMemory:
      return c.shared_memory_scale;
    case TimeTerm::kLatency:
      return c.latency_scale;
    case TimeTerm::kL2:
      return c.l2_scale;
    case TimeTerm::kDram:
      return c.dram_scale;
    case TimeTerm::kSpill:
      break;
  }
  return 1;
}

double compose_time_s(const PredictionTerms& terms, const Calibration& calibration) {
  return terms.full_waves * wave_time_s(terms.full_wave, calibration) +
         wave_time_s(terms.last_wave, calibration) + calibration.launch_overhead_s;
}

TimeTerms total_terms(const PredictionTerms& terms, const Calibration& calibration) {
  TimeTerms totals;
  for (int t = 0; t < kTimeTermCount; ++t) {
    totals.seconds[t] =
        term_scale(calibration, static_cast<TimeTerm>(t)) *
        (terms.full_waves * terms.full_wave.seconds[t] + terms.last_wave.seconds[t]);
  }
  return totals;
}

TimeTerm binding_term(const TimeTerms& totals) {
  int best = 0;
  for (int t = 1; t < kTimeTermCount; ++t) {
    if (totals.seconds[t] > totals.seconds[best]) best = t;
  }
  return static_cast<TimeTerm>(best);
}

RegisterEstimate estimate_registers(const gemm::TileConfig& config, const KernelAnatomy& a) {
  RegisterEstimate r;
  r.accumulators = a.outputs_per_thread;
  r.fragments = (a.a_fragment + a.b_fragment) * std::max(1, a.live_fragment_sets);
  // Prefetching through registers keeps the next tile's values live during the compute phase;
  // otherwise they live only between the load and the store, before the compute phase.
  const bool staging_live = a.prefetch_tiles > 0;
  r.staging = staging_live ? a.staging_registers : 0;
  const int transient = staging_live ? 0 : a.staging_registers;
  r.addressing = kAddressRegisters;
  r.pipeline = config.stages > 1 ? 1 + config.stages : 0;
  r.total =
      r.accumulators + std::max(r.fragments, transient) + r.staging + r.addressing + r.pipeline;
  return r;
}

int register_cap(const SmLimits& sm, int threads, int min_blocks) {
  if (min_blocks <= 0 || threads <= 0) return sm.max_registers_per_thread;
  const int warps = ceil_div_int(threads, sm.warp_size);
  const int partitions = std::max(1, sm.register_file_subpartitions);
  const int warps_per_partition = ceil_div_int(min_blocks * warps, partitions);
  int per_warp = sm.registers_per_sm / partitions / warps_per_partition;
  const int granularity = std::max(1, sm.warp_allocation_granularity);
  per_warp = std::min(
      per_warp, sm.max_registers_per_block / (ceil_div_int(warps, granularity) * granularity));
  per_warp = per_warp / sm.register_allocation_unit * sm.register_allocation_unit;
  return std::max(0, std::min(sm.max_registers_per_thread, per_warp / sm.warp_size));
}

Latencies gpu_latencies(const GpuSpec& gpu) {
  Latencies l;
  l.shared_memory_cycles = kAssumedSharedMemoryLatencyCycles;
  l.l2_cycles = kAssumedL2LatencyCycles;
  l.dram_cycles = kAssumedDramLatencyCycles;
  l.ffma_cycles = kFfmaLatencyCycles;
  if (gpu.measured) {
    const MeasuredCeilings& m = *gpu.measured;
    if (m.shared_memory_latency_cycles) {
      l.shared_memory_cycles = *m.shared_memory_latency_cycles;
      l.shared_memory_measured = true;
    }
    if (m.l2_latency_cycles) {
      l.l2_cycles = *m.l2_latency_cycles;
      l.l2_measured = true;
    }
    if (m.dram_latency_cycles) {
      l.dram_cycles = *m.dram_latency_cycles;
      l.dram_measured = true;
    }
  }
  return l;
}

namespace {

/// What the per-wave terms need, computed once per prediction.
struct WaveModel {
  double clock_Hz = 0;
  int schedulers = 1;
  int warps = 1;
  double k_tiles = 0;
  double instructions_per_warp_tile = 0;  // spill accesses included
  double l1_wavefronts_per_warp_tile = 0;
  double epilogue_instructions = 0;
  double own_stall_cycles = kWarpOwnStallCyclesPerInstruction;  // warp_own_stall_cycles
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
  double l1_bytes_per_cycle = 0;
  /// Barrier-per-tile kernels without prefetch (rungs 2-7): the resident blocks wait for their
  /// tiles together (convoy), exposing `exposed_cycles` per K tile round.
  bool convoy = false;
  double exposed_cycles = 0;
  double convoy_issue = 0;  // one block's issue part of the chain
  double convoy_floor = 0;  // the prefetched load chain, (L_global + overhead) / d
  double prologue_cycles = 0;
  double l1_bytes_per_s_per_sm = 0;
  double grid = 0;
  double l2_bytes = 0;
  double dram_bytes = 0;
  double spill_bytes = 0;
  double l2_Bps = 0;
  double dram_Bps = 0;
};

TimeTerms wave_terms(const WaveModel& m, int blocks_per_sm, double wave_blocks) {
  TimeTerms t;
  const double issue_warps = block_issue_cycles_per_instruction(
      ceil_div_int(blocks_per_sm * m.warps, m.schedulers), m.own_stall_cycles);
  const double epilogue = m.epilogue_instructions * issue_warps;
  const double round_issue = m.instructions_per_warp_tile * issue_warps;
  t[TimeTerm::kIssue] = (m.k_tiles * round_issue + epilogue) / m.clock_Hz;
  t[TimeTerm::kSharedMemory] = m.k_tiles * blocks_per_sm * m.warps * m.l1_wavefronts_per_warp_tile *
                               kWavefrontBytes / m.l1_bytes_per_s_per_sm;
  const double one_block_epilogue =
      m.epilogue_instructions *
      block_issue_cycles_per_instruction(ceil_div_int(m.warps, m.schedulers), m.own_stall_cycles);
  const double fragment_wait =
      fragment_wait_cycles(m.fragment_round_trips, blocks_per_sm * m.block_shared_wavefronts,
                           m.shared_cycles, m.l1_bytes_per_cycle);
  const double tile =
      fragment_wait +
      (m.convoy ? std::max(std::max(round_issue, m.convoy_issue) + m.exposed_cycles, m.convoy_floor)
                : m.tile_cycle + blocks_per_sm * m.lsu_queue_per_block);
  t[TimeTerm::kLatency] = (m.k_tiles * tile + m.prologue_cycles + one_block_epilogue) / m.clock_Hz;
  const double share = wave_blocks / m.grid;
  t[TimeTerm::kL2] = m.l2_Bps > 0 ? m.l2_bytes * share / m.l2_Bps : 0.0;
  t[TimeTerm::kDram] = m.dram_Bps > 0 ? m.dram_bytes * share / m.dram_Bps : 0.0;
  const double spill_Bps = m.l2_Bps > 0 ? m.l2_Bps : m.dram_Bps;
  t[TimeTerm::kSpill] = spill_Bps > 0 ? m.spill_bytes * share / spill_Bps : 0.0;
  return t;
}

}  // namespace

double tile_sectors(const gemm::TileConfig& config, int k_tile) {
  return std::ceil(static_cast<double>(config.bm + config.bn) * std::max(1, k_tile) * kFloatBytes /
                   kSectorBytes);
}

double global_wait_cycles(bool barrier_per_tile, double l1_hit_rate, double shared_cycles,
                          double memory_cycles) {
  if (barrier_per_tile) return memory_cycles;
  const double hit = std::clamp(l1_hit_rate, 0.0, 1.0);
  return hit * shared_cycles + (1 - hit) * memory_cycles;
}

double slowest_load_latency_cycles(double hit_rate, double sectors, double l2_cycles,
                                   double dram_cycles) {
  const double all_hit = std::pow(std::clamp(hit_rate, 0.0, 1.0), std::max(1.0, sectors));
  return all_hit * l2_cycles + (1 - all_hit) * dram_cycles;
}

double convoy_transfer_cycles(double bytes, const Ceilings& c, int sm_count) {
  if (!c.l2_GBps.known() || !(c.boost_clock_MHz > 0) || sm_count < 1) return 0.0;
  const double bytes_per_cycle = c.l2_GBps.value() * kGiga / sm_count / (c.boost_clock_MHz * kMega);
  return bytes_per_cycle > 0 ? bytes / bytes_per_cycle : 0.0;
}

double lsu_queue_wait_cycles(double round_wavefronts, double l1_bytes_per_cycle) {
  if (!(l1_bytes_per_cycle > 0) || !(round_wavefronts > 0)) return 0.0;
  return 0.5 * round_wavefronts * kWavefrontBytes / l1_bytes_per_cycle;
}

double fragment_wait_cycles(int round_trips, double round_shared_wavefronts, double shared_cycles,
                            double l1_bytes_per_cycle) {
  if (round_trips <= 1) return 0.0;
  return (round_trips - 1) *
         (shared_cycles +
          lsu_queue_wait_cycles(round_shared_wavefronts / round_trips, l1_bytes_per_cycle));
}

double issue_per_cycle(const Ceilings& c) {
  if (!(c.issue_clock_MHz > 0) || !(c.boost_clock_MHz > 0)) return 1.0;
  return std::min(1.0, c.issue_clock_MHz / c.boost_clock_MHz);
}

double block_issue_cycles_per_instruction(int warps_per_scheduler, double own_stall_cycles) {
  const int w = std::max(warps_per_scheduler, 1);
  const double idle = 1 - 1 / (1 + std::max(0.0, own_stall_cycles));  // 1 - p
  double all_idle = 1;  // (1 - p)^W by multiplication: W is small, std::pow is not cheap
  for (int i = 0; i < w; ++i) all_idle *= idle;
  return w / (1 - all_idle);
}

double warp_own_stall_cycles(const KernelAnatomy& a, double extra_instructions) {
  const double instructions = a.instructions() + std::max(0.0, extra_instructions);
  const double unaligned_share =
      instructions > 0 ? std::clamp(a.unaligned_copy_instructions / instructions, 0.0, 1.0) : 0.0;
  return kWarpOwnStallCyclesPerInstruction + kUnalignedCopyStallCycles * unaligned_share;
}

double ffma_issue_cycles(const SmLimits& sm) {
  if (sm.fp32_lanes_per_sm <= 0 || sm.warp_size <= 0) return 1.0;
  const double cycles = static_cast<double>(sm.warp_size) *
                        std::max(1, sm.register_file_subpartitions) / sm.fp32_lanes_per_sm;
  return std::max(1.0, cycles);
}

double warp_issue_cycles(double ffma, double instructions, double ffma_cycles, double issue_rate) {
  return std::max(ffma * ffma_cycles, instructions) / issue_rate;
}

bool accumulators_spill(const KernelAnatomy& a, int registers_per_thread,
                        double spill_bytes_per_thread) {
  return spill_bytes_per_thread > 0 &&
         a.outputs_per_thread + a.a_fragment + a.b_fragment > registers_per_thread;
}

double spill_accesses_per_tile(double spilled_words, int k_tile, bool accumulators_spilled) {
  return 2 * spilled_words * (accumulators_spilled ? std::max(1, k_tile) : 1);
}

double spill_l2_fraction(double local_bytes_per_sm, double l1_bytes_left) {
  if (!(local_bytes_per_sm > 0)) return 0.0;
  return std::clamp(1 - std::max(0.0, l1_bytes_left) / local_bytes_per_sm, 0.0, 1.0);
}

Prediction predict(const GpuSpec& gpu, const PredictInput& input, const Calibration& calibration,
                   const KernelAnatomy& anatomy) {
  if (!gemm::extents_in_range(input.problem)) [[unlikely]] {
    throw std::invalid_argument("predict: M, N and K must be within 1.." +
                                std::to_string(gemm::kMaxExtent));
  }
  if (input.spill_bytes_per_thread < 0 ||
      (input.spill_bytes_per_thread > 0 && !input.registers_per_thread)) [[unlikely]] {
    throw std::invalid_argument(
        input.spill_bytes_per_thread < 0
            ? "predict: spill_bytes_per_thread must be >= 0"
            : "predict: spill_bytes_per_thread needs registers_per_thread (both as ptxas reports)");
  }
  Prediction p;
  p.problem = input.problem;
  p.config = input.config;
  if (p.config.threads <= 0) p.config.threads = anatomy.threads;
  p.raster = input.raster;
  p.shared_memory_bytes = input.shared_memory_bytes;
  p.calibration = calibration;
  p.waste = compute_tile_waste(input.problem, p.config);
  p.anatomy = anatomy;
  const KernelAnatomy& a = p.anatomy;

  // Registers and spills.
  p.register_estimate = estimate_registers(p.config, a);
  SpillEstimate& spill = p.spill;
  if (input.registers_per_thread) {
    p.registers_per_thread = *input.registers_per_thread;
    spill.registers_needed = p.registers_per_thread;
    spill.registers_allocated = p.registers_per_thread;
    spill.bytes_per_thread = input.spill_bytes_per_thread;
  } else {
    p.registers_estimated = true;
    spill.registers_needed = p.register_estimate.total;
    const int cap = register_cap(gpu.sm, p.config.threads, input.min_blocks_per_sm);
    spill.registers_allocated = std::min(spill.registers_needed, std::max(1, cap));
    spill.spilled_registers = spill.registers_needed - spill.registers_allocated;
    spill.bytes_per_thread = static_cast<double>(spill.spilled_registers) * kFloatBytes;
    p.registers_per_thread = spill.registers_allocated;
  }

  KernelLaunch launch;
  launch.threads_per_block = p.config.threads;
  launch.registers_per_thread = p.registers_per_thread;
  launch.dynamic_shared_memory_bytes = input.shared_memory_bytes;
  p.occupancy = compute_occupancy_limits(gpu.sm, launch);
  p.ceilings = roofline_ceilings(gpu);
  p.latencies = gpu_latencies(gpu);
  if (!p.occupancy.launchable() || p.occupancy.blocks_per_sm == 0) return p;

  p.waves = compute_waves(p.waste.grid_blocks(), p.occupancy.blocks_per_sm, gpu.chip.sm_count,
                          std::max(1, p.config.cluster), input.max_active_clusters);
  if (!p.waves.launchable()) return p;
  p.launchable = true;
  p.traffic = compute_traffic(input.problem, a, p.waste, input.c_is_read);

  // L2 hit rate of the operand loads under the raster order.
  const gemm::Problem& pr = input.problem;
  L2Input l2in;
  l2in.tiles_m = p.waste.tiles_m;
  l2in.tiles_n = p.waste.tiles_n;
  l2in.raster = input.raster;
  l2in.resident_blocks = std::min(p.waves.blocks_per_wave, p.waste.grid_blocks());
  l2in.bm = p.config.bm;
  l2in.bn = p.config.bn;
  const double k_bytes = static_cast<double>(pr.k) * kFloatBytes;
  l2in.a_panel_bytes = static_cast<double>(pr.m) / static_cast<double>(p.waste.tiles_m) * k_bytes;
  l2in.b_panel_bytes = static_cast<double>(pr.n) / static_cast<double>(p.waste.tiles_n) * k_bytes;
  l2in.a_slab_bytes = static_cast<double>(p.config.bm) * a.k_tile * kFloatBytes;
  l2in.b_slab_bytes = static_cast<double>(p.config.bn) * a.k_tile * kFloatBytes;
  l2in.slabs_in_flight = std::max(1, p.config.stages);
  if (a.b_multicast_blocks > 1) {
    // The raster walks cluster tiles (vertically adjacent blocks that fetch B once); to L2 a
    // cluster is one block of cluster * BM rows.
    const int cluster = a.b_multicast_blocks;
    l2in.tiles_m = p.waste.launched_tiles_m / cluster;
    l2in.resident_blocks = std::max<std::int64_t>(1, l2in.resident_blocks / cluster);
    l2in.bm = cluster * p.config.bm;
    l2in.a_panel_bytes *= cluster;
    l2in.a_slab_bytes *= cluster;
  }
  l2in.l2_bytes = static_cast<double>(gpu.chip.l2_bytes) * calibration.l2_capacity_fraction;
  p.l2 = l2_hit_rate(l2in, input.l2_model);
  p.dram_bytes = dram_bytes(p.traffic, pr, p.l2.hit_rate);

  // Spilled registers: a store and a reload per K tile each, or per k when the accumulators
  // themselves do not fit (spill_accesses_per_tile); L1 serves them unless the SM's local
  // footprint exceeds what shared memory leaves of L1 (spill_l2_fraction).
  const double spilled_words = spill.bytes_per_thread / kFloatBytes;
  spill.accumulators_spilled =
      accumulators_spill(a, p.registers_per_thread, spill.bytes_per_thread);
  spill.accesses_per_tile =
      spill_accesses_per_tile(spilled_words, a.k_tile, spill.accumulators_spilled);
  spill.l2_fraction = spill_l2_fraction(
      spill.bytes_per_thread * p.config.threads * p.occupancy.blocks_per_sm,
      static_cast<double>(gpu.sm.shared_memory_per_sm_bytes) -
          static_cast<double>(p.occupancy.blocks_per_sm) *
              (input.shared_memory_bytes + gpu.sm.reserved_shared_memory_per_block_bytes));
  const double block_tiles =
      static_cast<double>(p.waste.grid_blocks()) * static_cast<double>(p.waste.k_tiles);
  spill.l2_bytes =
      spill.l2_fraction * spill.accesses_per_tile * kFloatBytes * p.config.threads * block_tiles;
  p.l2_sector_hit_rate =
      kernel_sector_hit_rate(p.l2.hit_rate, p.traffic.operand_l2_bytes(), p.traffic.c_write_bytes,
                             p.traffic.c_read_bytes, spill.l2_bytes);

  p.roofline = evaluate_roofline(p.ceilings, p.traffic.flops, p.traffic.l1_bytes(),
                                 p.traffic.l2_bytes(), p.dram_bytes);

  // Latency hiding.
  WaveModel m;
  // Cycles are SM cycles (latencies are clock64 counts); a scheduler issues issue_rate warp
  // instructions per cycle (the FFMA microbenchmark's rate over the SM clock).
  const double issue_rate = issue_per_cycle(p.ceilings);
  m.clock_Hz = p.ceilings.boost_clock_MHz * kMega;
  m.schedulers = std::max(1, gpu.sm.register_file_subpartitions);
  m.warps = a.warps;
  m.k_tiles = static_cast<double>(p.waste.k_tiles);
  const double ffma_cycles = ffma_issue_cycles(gpu.sm);
  m.instructions_per_warp_tile = warp_issue_cycles(
      a.ffma, a.instructions() + spill.accesses_per_tile, ffma_cycles, issue_rate);
  m.l1_wavefronts_per_warp_tile = a.l1_wavefronts() + spill.accesses_per_tile;
  m.epilogue_instructions = warp_issue_cycles(0, a.epilogue_instructions, 1, issue_rate);
  m.own_stall_cycles = warp_own_stall_cycles(a, spill.accesses_per_tile);
  const Latencies& lat = p.latencies;
  const double hit = p.l2.hit_rate;
  const double l1_hit = p.traffic.l1_hit_rate();
  // The wait ends when the slowest load of the group arrives: the block's whole tile behind a
  // barrier, one warp's loads of one k without one.
  const double wait_sectors = a.barrier_per_tile() ? tile_sectors(p.config, a.k_tile)
                                                   : a.global_a.sectors + a.global_b.sectors;
  const double memory_latency =
      slowest_load_latency_cycles(hit, wait_sectors, lat.l2_cycles, lat.dram_cycles);
  LatencyHiding& h = p.latency;
  h.blocks_per_sm = p.occupancy.blocks_per_sm;
  h.global_latency_cycles =
      global_wait_cycles(a.barriers > 0, l1_hit, lat.shared_memory_cycles, memory_latency);
  // Without prefetch a K tile waits for its global round trips one after another
  // (serial_load_groups: rungs 5-6 load and store A before they load B).
  const double load_wait_cycles = a.serial_load_groups * h.global_latency_cycles;
  h.overhead_cycles = a.shared_round_trips * lat.shared_memory_cycles;
  // Warps without a barrier wait on their own loads, behind the other warps' loads in the L1
  // queue (lsu_queue_wait_cycles); the wait grows with the resident blocks.
  const double l1_bytes_per_cycle =
      p.ceilings.shared_memory_GBps.known() && gpu.chip.sm_count > 0
          ? p.ceilings.shared_memory_GBps.value() * kGiga / gpu.chip.sm_count / m.clock_Hz
          : 0.0;
  // Fragment reads not hoisted above the previous FFMAs (rung 4) wait once per k step, behind
  // the wave's resident blocks (wave_terms adds fragment_wait_cycles per wave).
  m.fragment_round_trips = a.fragment_round_trips;
  m.block_shared_wavefronts = m.warps * a.shared_wavefronts();
  m.shared_cycles = lat.shared_memory_cycles;
  m.l1_bytes_per_cycle = l1_bytes_per_cycle;
  h.fragment_wait_cycles =
      fragment_wait_cycles(a.fragment_round_trips, h.blocks_per_sm * m.block_shared_wavefronts,
                           m.shared_cycles, l1_bytes_per_cycle);
  const int block_warps_per_scheduler = ceil_div_int(m.warps, m.schedulers);
  h.tile_issue_cycles =
      std::max(m.instructions_per_warp_tile * block_issue_cycles_per_instruction(
                                                  block_warps_per_scheduler, m.own_stall_cycles),
               a.k_tile * lat.ffma_cycles);
  h.stage_wait_cycles = a.stage_wait_cycles;
  const double lg_wavefronts_per_warp_tile =
      a.global_a.wavefronts_per_tile() + a.global_b.wavefronts_per_tile() + spill.accesses_per_tile;
  m.lsu_queue_per_block =
      a.barriers == 0
          ? lsu_queue_wait_cycles(m.warps * lg_wavefronts_per_warp_tile, l1_bytes_per_cycle)
          : 0.0;
  h.lsu_queue_cycles = h.blocks_per_sm * m.lsu_queue_per_block;
  h.tile_cycle_cycles =
      a.prefetch_tiles == 0
          ? h.tile_issue_cycles + load_wait_cycles + h.overhead_cycles + h.lsu_queue_cycles
          : std::max(h.tile_issue_cycles + h.overhead_cycles + h.stage_wait_cycles,
                     (h.global_latency_cycles + h.overhead_cycles) / a.chain_prefetch_tiles);
  h.tile_cycle_cycles += h.fragment_wait_cycles;
  h.warps_per_scheduler = ceil_div_int(h.blocks_per_sm * m.warps, m.schedulers);
  h.round_issue_cycles =
      m.instructions_per_warp_tile *
      block_issue_cycles_per_instruction(h.warps_per_scheduler, m.own_stall_cycles);
  h.round_l1_cycles =
      static_cast<double>(h.blocks_per_sm) * m.warps * m.l1_wavefronts_per_warp_tile;
  // Convoys: with a barrier per tile and no prefetch the blocks wait for their tiles together;
  // blocks that wait on a copy engine's stage barrier (stage_wait_cycles) do too. The wait adds
  // to the SM's round.
  const bool unprefetched = a.barrier_per_tile() && a.prefetch_tiles == 0;
  h.convoy = unprefetched || h.stage_wait_cycles > 0;
  // A block's tile reaches the SM through its share of the L2 bandwidth after the first
  // sector's latency (convoy_transfer_cycles).
  h.transfer_cycles = unprefetched
                          ? convoy_transfer_cycles(tile_sectors(p.config, a.k_tile) * kSectorBytes,
                                                   p.ceilings, gpu.chip.sm_count)
                          : 0.0;
  const double exposed =
      unprefetched ? load_wait_cycles + h.transfer_cycles + h.overhead_cycles : h.stage_wait_cycles;
  const double exposed_with_fragments = exposed + h.fragment_wait_cycles;
  const double convoy_issue =
      unprefetched ? h.tile_issue_cycles : h.tile_issue_cycles + h.overhead_cycles;
  const double convoy_floor =
      unprefetched ? 0.0 : (h.global_latency_cycles + h.overhead_cycles) / a.chain_prefetch_tiles;
  h.exposed_fraction =
      h.convoy ? exposed_with_fragments /
                     (std::max(h.round_issue_cycles, convoy_issue) + exposed_with_fragments)
               : std::max(0.0, 1 - h.round_issue_cycles / h.tile_cycle_cycles);
  h.warps_needed_per_scheduler = h.warps_per_scheduler * h.tile_cycle_cycles / h.round_issue_cycles;
  h.barrier_stalls = unprefetched && h.blocks_per_sm == 1;
  // wave_terms adds the wave's queue and fragment wait
  m.tile_cycle = h.tile_cycle_cycles - h.lsu_queue_cycles - h.fragment_wait_cycles;
  m.tile_issue = h.tile_issue_cycles;
  m.convoy = h.convoy;
  m.exposed_cycles = exposed;
  m.convoy_issue = convoy_issue;
  m.convoy_floor = convoy_floor;
  m.prologue_cycles = (a.prefetch_tiles == 0 ? load_wait_cycles : h.global_latency_cycles) +
                      h.transfer_cycles + h.overhead_cycles;
  m.l1_bytes_per_s_per_sm = p.ceilings.shared_memory_GBps.value() * kGiga / gpu.chip.sm_count;
  m.grid = static_cast<double>(p.waste.grid_blocks());
  m.l2_bytes = p.traffic.l2_bytes();
  m.dram_bytes = p.dram_bytes;
  m.spill_bytes = spill.l2_bytes;
  m.l2_Bps = p.ceilings.l2_GBps.known() ? p.ceilings.l2_GBps.value() * kGiga : 0.0;
  m.dram_Bps = p.ceilings.dram_GBps.known() ? p.ceilings.dram_GBps.value() * kGiga : 0.0;
  p.issue_efficiency = a.ffma / (a.instructions() + spill.accesses_per_tile);

  // Terms per wave, composed.
  const WaveResult& w = p.waves;
  p.terms.full_waves = static_cast<double>(w.full_waves);
  if (w.full_waves > 0) {
    p.terms.full_wave =
        wave_terms(m, p.occupancy.blocks_per_sm, static_cast<double>(w.blocks_per_wave));
  }
  if (w.full_waves != w.waves) {
    const int last_per_sm = static_cast<int>(gemm::ceil_div(w.last_wave_blocks, gpu.chip.sm_count));
    p.terms.last_wave = wave_terms(m, std::min(last_per_sm, p.occupancy.blocks_per_sm),
                                   static_cast<double>(w.last_wave_blocks));
  }
  p.totals = total_terms(p.terms, calibration);
  p.binding = binding_term(p.totals);
  p.time_s = compose_time_s(p.terms, calibration);
  p.tflops = p.time_s > 0 ? p.traffic.flops / p.time_s / kTera : 0.0;
  // Bounded specs and calibrations keep every term finite; this is the guard that says so.
  if (!std::isfinite(p.time_s) || !(p.time_s > 0) || !std::isfinite(p.tflops)) [[unlikely]] {
    throw std::domain_error("prediction of " + gpu.id + " is not a finite positive time (time_s " +
                            std::to_string(p.time_s) +
                            "): check the spec's clocks, bandwidths and the calibration");
  }
  return p;
}

// ---- fitting ------------------------------------------------------------------------------

std::string_view fitted_parameter_name(int index) {
  static constexpr std::string_view kNames[kFittedParameterCount] = {
      "issue_scale", "shared_memory_scale", "latency_scale",
      "l2_scale",    "dram_scale",          "launch_overhead_s"};
  return index >= 0 && index < kFittedParameterCount ? kNames[index] : "unknown";
}

namespace {

using Parameters = std::array<double, kFittedParameterCount>;
constexpr int kScaleCount = 5;  // the scales of terms 0..4; term 5 (spill) is not scaled
constexpr int kOverhead = 5;
constexpr int kMinBindingCasesPerScale = 2;  // see fit_calibration

Calibration to_calibration(const Parameters& p, double l2_capacity_fraction) {
  Calibration c;
  c.issue_scale = p[0];
  c.shared_memory_scale = p[1];
  c.latency_scale = p[2];
  c.l2_scale = p[3];
  c.dram_scale = p[4];
  c.launch_overhead_s = p[kOverhead];
  c.l2_capacity_fraction = l2_capacity_fraction;
  return c;
}

/// The binding group of a wave under p: 0 = issue + shared memory (one sum, see
/// compose_time_s), else the term's index; -1 for an empty wave.
int binding_in_wave(const TimeTerms& terms, const Parameters& p) {
  int best = -1;
  double worst = p[0] * terms.seconds[0] + p[1] * terms.seconds[1];
  if (worst > 0) best = 0;
  for (int t = 2; t < kTimeTermCount; ++t) {
    const double scale = t < kScaleCount ? p[t] : 1.0;
    if (scale * terms.seconds[t] > worst) {
      worst = scale * terms.seconds[t];
      best = t;
    }
  }
  return best;
}

double relative_objective(const std::vector<const FitSample*>& training, const Parameters& p) {
  const Calibration c = to_calibration(p, 1);
  double sum = 0;
  for (const FitSample* s : training) {
    const double e = (compose_time_s(s->terms, c) - s->measured_time_s) / s->measured_time_s;
    sum += e * e;
  }
  return sum;
}

struct Solve {
  Parameters parameters{};
  std::array<bool, kFittedParameterCount> fitted{};
  std::vector<int> bindings;
};

/// One weighted least-squares solve with the binding terms fixed by `current`.
Solve solve_given_bindings(const std::vector<const FitSample*>& training,
                           const Parameters& current) {
  Solve out;
  out.parameters = current;
  const int n = static_cast<int>(training.size());
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, kFittedParameterCount);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    const FitSample& s = *training[i];
    const int full = binding_in_wave(s.terms.full_wave, current);
    const int last = binding_in_wave(s.terms.last_wave, current);
    out.bindings.push_back(full);
    out.bindings.push_back(last);
    double offset = 0;
    auto add = [&](int term, double seconds) {
      if (term < 0) return;
      if (term < kScaleCount) {
        x(i, term) += seconds;
      } else {
        offset += seconds;
      }
    };
    auto add_wave = [&](int group, double count, const TimeTerms& wave) {
      if (group < 0) return;
      add(group, count * wave.seconds[group]);
      if (group == 0) add(1, count * wave.seconds[1]);  // issue + shared memory
    };
    add_wave(full, s.terms.full_waves, s.terms.full_wave);
    add_wave(last, 1.0, s.terms.last_wave);
    x(i, kOverhead) = 1;
    const double weight = 1 / s.measured_time_s;
    x.row(i) *= weight;
    y(i) = (s.measured_time_s - offset) * weight;
  }
  // Columns the data determines; a column that would go non-positive is fixed at its
  // current value (moved into the target) and the rest re-solved.
  std::array<bool, kFittedParameterCount> active{};
  // A scale needs at least kMinBindingCasesPerScale training cases where its term binds: one
  // case alone would set it to reproduce that case exactly (no information about the term).
  for (int j = 0; j < kFittedParameterCount; ++j) {
    const auto binding_cases = (x.col(j).array() != 0).count();
    active[j] = binding_cases >= (j == kOverhead ? 1 : kMinBindingCasesPerScale);
    if (!active[j] && j != kOverhead) out.parameters[j] = 1;  // undetermined: the default
  }
  for (int round = 0; round <= kFittedParameterCount; ++round) {
    std::vector<int> columns;
    for (int j = 0; j < kFittedParameterCount; ++j) {
      if (active[j]) columns.push_back(j);
    }
    Eigen::VectorXd target = y;
    for (int j = 0; j < kFittedParameterCount; ++j) {
      if (!active[j]) target -= x.col(j) * (j == kOverhead ? 0.0 : out.parameters[j]);
    }
    if (columns.empty()) break;
    Eigen::MatrixXd a(n, static_cast<Eigen::Index>(columns.size()));
    for (std::size_t c = 0; c < columns.size(); ++c)
      a.col(static_cast<Eigen::Index>(c)) = x.col(columns[c]);
    const Eigen::VectorXd solution = a.colPivHouseholderQr().solve(target);
    bool clamped = false;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const int j = columns[c];
      const double v = solution(static_cast<Eigen::Index>(c));
      const bool bad = j == kOverhead ? v < 0 : !(v > 0);
      if (bad) {
        active[j] = false;
        if (j == kOverhead) out.parameters[j] = 0;
        clamped = true;
      }
    }
    if (clamped) continue;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out.parameters[columns[c]] = solution(static_cast<Eigen::Index>(c));
    }
    break;
  }
  out.fitted = active;
  return out;
}

/// The median of t / term over the training cases where the term is not zero (1 if none).
double median_ratio(const std::vector<const FitSample*>& training, int term) {
  std::vector<double> ratios;
  for (const FitSample* s : training) {
    const double seconds =
        s->terms.full_waves * s->terms.full_wave.seconds[term] + s->terms.last_wave.seconds[term];
    if (seconds > 0) ratios.push_back(s->measured_time_s / seconds);
  }
  if (ratios.empty()) return 1;
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  return ratios[ratios.size() / 2];
}

[[noreturn]] void throw_fit_error(const std::string& message) {
  throw std::invalid_argument("fit_calibration: " + message);
}

}  // namespace

FitResult fit_calibration(const std::vector<FitSample>& samples,
                          const std::vector<std::string>& training_names) {
  std::set<std::string> names;
  for (const FitSample& s : samples) {
    if (!names.insert(s.name).second) throw_fit_error("sample name '" + s.name + "' repeats");
    if (!(s.measured_time_s > 0)) {
      throw_fit_error("sample '" + s.name + "': measured time must be positive");
    }
  }
  const std::set<std::string> training_set(training_names.begin(), training_names.end());
  for (const std::string& name : training_set) {
    if (!names.count(name)) throw_fit_error("training case '" + name + "' is not a sample");
  }
  std::vector<const FitSample*> training;
  for (const FitSample& s : samples) {
    if (training_set.count(s.name)) training.push_back(&s);
  }
  if (training.empty()) throw_fit_error("no training case");

  // Starts: uncalibrated, and each scale alone set to its median ratio.
  std::vector<Parameters> starts;
  starts.push_back(Parameters{1, 1, 1, 1, 1, 0});
  for (int term = 0; term < kScaleCount; ++term) {
    Parameters p{1, 1, 1, 1, 1, 0};
    p[term] = median_ratio(training, term);
    starts.push_back(p);
  }
  FitResult result;
  double best_objective = INFINITY;
  Parameters best = starts.front();
  for (const Parameters& start : starts) {
    Parameters current = start;
    std::vector<int> previous;
    for (int iteration = 1; iteration <= 100; ++iteration) {
      const Solve s = solve_given_bindings(training, current);
      current = s.parameters;
      const double objective = relative_objective(training, current);
      ++result.iterations;
      if (objective < best_objective) {
        best_objective = objective;
        best = current;
        result.fitted = s.fitted;
      }
      if (s.bindings == previous) break;
      previous = s.bindings;
    }
  }
  result.calibration = to_calibration(best, 1);

  double training_sum = 0;
  double held_out_sum = 0;
  for (const FitSample& s : samples) {
    FitCase c;
    c.name = s.name;
    c.training = training_set.count(s.name) > 0;
    c.measured_time_s = s.measured_time_s;
    c.predicted_time_s = compose_time_s(s.terms, result.calibration);
    c.error_percent = 100 * (c.predicted_time_s - c.measured_time_s) / c.measured_time_s;
    (c.training ? training_sum : held_out_sum) += std::abs(c.error_percent);
    (c.training ? result.training_cases : result.held_out_cases) += 1;
    result.cases.push_back(c);
  }
  result.training_mape_percent = training_sum / result.training_cases;
  if (result.held_out_cases > 0) {
    result.held_out_mape_percent = held_out_sum / result.held_out_cases;
  }
  return result;
}

// ---- accuracy statistics ------------------------------------------------------------------

double mean_absolute_percentage_error(const std::vector<double>& predicted,
                                      const std::vector<double>& measured) {
  if (predicted.size() != measured.size()) {
    throw std::invalid_argument(
        "mean_absolute_percentage_error: " + std::to_string(predicted.size()) +
        " predictions for " + std::to_string(measured.size()) + " measurements");
  }
  if (measured.empty()) return NAN;
  double sum = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    if (!(measured[i] > 0)) {
      throw std::invalid_argument("mean_absolute_percentage_error: measurement " +
                                  std::to_string(i) + " is not positive");
    }
    sum += std::abs(predicted[i] - measured[i]) / measured[i];
  }
  return 100 * sum / static_cast<double>(measured.size());
}

namespace {

/// Ranks 1..n, ties sharing their average rank.
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t x, std::size_t y) { return values[x] < values[y]; });
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double average = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (std::size_t k = i; k <= j; ++k) out[order[k]] = average;
    i = j + 1;
  }
  return out;
}

}  // namespace

double spearman_rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("spearman_rank_correlation: " + std::to_string(a.size()) +
                                " values against " + std::to_string(b.size()));
  }
  const std::size_t n = a.size();
  if (n < 2) return NAN;
  const std::vector<double> ra = ranks(a);
  const std::vector<double> rb = ranks(b);
  const double mean = (static_cast<double>(n) + 1) / 2;
  double cov = 0;
  double va = 0;
  double vb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : NAN;
}

}  // namespace roofcast
