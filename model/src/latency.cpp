#include "roofcast/latency.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "predict_steps.hpp"

namespace roofcast {

using detail::kGiga;
using detail::kMega;

Latencies gpu_latencies(const GpuSpec& gpu) {
  Latencies l;
  const MicroarchitectureFacts& facts = gpu.microarchitecture;
  const MeasuredCeilings none;
  const MeasuredCeilings& m = gpu.measured ? *gpu.measured : none;
  // Measured, else the spec's microarchitecture fact, else the generic assumption (noted).
  auto pick = [&l](const std::optional<double>& measured, const std::optional<double>& fact,
                   double assumed, AssumedFact which, bool* measured_flag) {
    if (measured) {
      if (measured_flag != nullptr) *measured_flag = true;
      return *measured;
    }
    if (fact) return *fact;
    l.assume(which);
    return assumed;
  };
  l.shared_memory_cycles = pick(m.shared_memory_latency_cycles, facts.shared_memory_latency_cycles,
                                kAssumedSharedMemoryLatencyCycles,
                                AssumedFact::kSharedMemoryLatency, &l.shared_memory_measured);
  l.l2_cycles = pick(m.l2_latency_cycles, facts.l2_latency_cycles, kAssumedL2LatencyCycles,
                     AssumedFact::kL2Latency, &l.l2_measured);
  l.dram_cycles = pick(m.dram_latency_cycles, facts.dram_latency_cycles, kAssumedDramLatencyCycles,
                       AssumedFact::kDramLatency, &l.dram_measured);
  l.ffma_cycles = pick(std::nullopt, facts.ffma_latency_cycles, kAssumedFfmaLatencyCycles,
                       AssumedFact::kFfmaLatency, nullptr);
  if (!facts.warp_own_stall_cycles) l.assume(AssumedFact::kWarpOwnStall);
  if (!facts.instruction_cache_bytes || !facts.instruction_fetch_stall_cycles) {
    l.assume(AssumedFact::kInstructionCache);
  }
  return l;
}

std::string_view to_string(AssumedFact fact) {
  switch (fact) {
    case AssumedFact::kFfmaLatency:
      return "microarchitecture.ffma_latency_cycles";
    case AssumedFact::kSharedMemoryLatency:
      return "microarchitecture.shared_memory_latency_cycles";
    case AssumedFact::kL2Latency:
      return "microarchitecture.l2_latency_cycles";
    case AssumedFact::kDramLatency:
      return "microarchitecture.dram_latency_cycles";
    case AssumedFact::kWarpOwnStall:
      return "microarchitecture.warp_own_stall_cycles";
    case AssumedFact::kBulkCopyStageWait:
      return "microarchitecture.bulk_copy_stage_wait_cycles";
    case AssumedFact::kFallbackStageWait:
      return "microarchitecture.fallback_stage_wait_cycles";
    case AssumedFact::kInstructionCache:
      return "microarchitecture.instruction_cache_bytes";
    case AssumedFact::kL2ReadShare:
      return "microarchitecture.l2_read_share";
    case AssumedFact::kLocalLoadL1MissShare:
      return "microarchitecture.local_load_l1_miss_share";
  }
  return "unknown";
}

double stage_wait_cycles(const MicroarchitectureFacts& facts, StageWait wait) {
  switch (wait) {
    case StageWait::kNone:
      return 0.0;
    case StageWait::kBulkCopy:
      return facts.bulk_copy_stage_wait_cycles.value_or(0.0);
    case StageWait::kFallback:
      return facts.fallback_stage_wait_cycles.value_or(0.0);
  }
  return 0.0;
}

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

double l2_share_bytes_per_cycle(const Ceilings& c, int sm_count, std::int64_t reading_sms,
                                const std::vector<L2ShareRow>& table) {
  if (!c.l2_GBps.known() || !(c.boost_clock_MHz > 0) || sm_count < 1) return 0.0;
  const double full_load = c.l2_GBps.value() * kGiga / sm_count / (c.boost_clock_MHz * kMega);
  const auto k = static_cast<double>(std::clamp<std::int64_t>(reading_sms, 1, sm_count));
  if (table.empty() || k >= sm_count) return full_load;
  double rate = table.back().bytes_per_cycle_per_sm;
  if (k <= table.front().sms) {
    rate = table.front().bytes_per_cycle_per_sm;
  } else {
    for (std::size_t i = 1; i < table.size(); ++i) {
      if (k <= table[i].sms) {
        const L2ShareRow& lo = table[i - 1];
        const L2ShareRow& hi = table[i];
        const double t = (k - lo.sms) / static_cast<double>(hi.sms - lo.sms);
        rate =
            lo.bytes_per_cycle_per_sm + t * (hi.bytes_per_cycle_per_sm - lo.bytes_per_cycle_per_sm);
        break;
      }
    }
  }
  return std::max(rate, full_load);
}

double convoy_transfer_cycles(double bytes, const Ceilings& c, int sm_count,
                              std::int64_t reading_sms, const std::vector<L2ShareRow>& table) {
  const double bytes_per_cycle = l2_share_bytes_per_cycle(c, sm_count, reading_sms, table);
  return bytes_per_cycle > 0 ? bytes / bytes_per_cycle : 0.0;
}

double lsu_queue_wait_cycles(double round_wavefronts, double l1_bytes_per_cycle) {
  if (!(l1_bytes_per_cycle > 0) || !(round_wavefronts > 0)) return 0.0;
  return 0.5 * round_wavefronts * kWavefrontBytes / l1_bytes_per_cycle;
}

double fragment_wait_cycles(int round_trips, double round_shared_wavefronts, double shared_cycles,
                            double l1_bytes_per_cycle, double covering_issue_cycles) {
  if (round_trips <= 1) return 0.0;
  const double queue =
      lsu_queue_wait_cycles(round_shared_wavefronts / round_trips, l1_bytes_per_cycle);
  return queue + (round_trips - 1) * std::max(0.0, shared_cycles + queue - covering_issue_cycles);
}

double fragment_covering_issue_cycles(int warps, int schedulers, double instructions_per_warp_tile,
                                      int round_trips) {
  if (round_trips <= 0 || schedulers <= 0) return 0.0;
  const int block_warps_per_scheduler = ceil_div(warps, schedulers);
  return (block_warps_per_scheduler - 1) * instructions_per_warp_tile / round_trips;
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

double warp_own_stall_cycles(const KernelAnatomy& a, const MicroarchitectureFacts& facts,
                             double extra_instructions) {
  const double instructions = a.instructions() + std::max(0.0, extra_instructions);
  const double unaligned_share =
      instructions > 0 ? std::clamp(a.unaligned_copy_instructions / instructions, 0.0, 1.0) : 0.0;
  const bool code_spills_cache =
      facts.instruction_cache_bytes && facts.instruction_fetch_stall_cycles &&
      instructions * kSassInstructionBytes > *facts.instruction_cache_bytes;
  return facts.warp_own_stall_cycles.value_or(kAssumedWarpOwnStallCycles) +
         facts.unaligned_copy_stall_cycles.value_or(0.0) * unaligned_share +
         (code_spills_cache ? *facts.instruction_fetch_stall_cycles : 0.0);
}

double ffma_issue_cycles(const SmLimits& sm) {
  if (sm.fp32_lanes_per_sm <= 0 || sm.warp_size <= 0) return 1.0;
  const double cycles = static_cast<double>(sm.warp_size) *
                        std::max(1, sm.register_file_subpartitions) / sm.fp32_lanes_per_sm;
  return std::max(1.0, cycles);
}

double expected_later_cycles(double fixed_cycles, double mean_latency_cycles) {
  if (!(mean_latency_cycles > 0)) return std::max(0.0, fixed_cycles);
  if (!(fixed_cycles > 0)) return mean_latency_cycles;
  return fixed_cycles + mean_latency_cycles * std::exp(-fixed_cycles / mean_latency_cycles);
}

double spill_reload_stall_cycles(double reloads, double instructions, double l1_hit_cycles) {
  return reloads > 0 && instructions > 0 ? reloads * l1_hit_cycles / instructions : 0.0;
}

double warp_issue_cycles(double ffma, double instructions, double ffma_cycles, double issue_rate) {
  return std::max(ffma * ffma_cycles, instructions) / issue_rate;
}
namespace detail {

WaveModel hide_latency(const GpuSpec& gpu, Prediction& p) {
  const KernelAnatomy& a = p.anatomy;
  SpillEstimate& spill = p.spill;
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
  const Latencies& lat = p.latencies;
  m.own_stall_cycles = warp_own_stall_cycles(a, gpu.microarchitecture, spill.accesses_per_tile);
  // A reloaded spill feeds the next FFMA: the warp waits the L1 hit latency for each reload,
  // unless its k steps already wait for their fragment reads (fragment_round_trips > 1: the
  // reloads issue beside those reads and wait with them).
  if (a.fragment_round_trips <= 1) {
    m.own_stall_cycles += spill_reload_stall_cycles(spill.load_accesses_per_tile,
                                                    a.instructions() + spill.accesses_per_tile,
                                                    lat.shared_memory_cycles);
  }
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
  m.fragment_covering_cycles = fragment_covering_issue_cycles(
      m.warps, m.schedulers, m.instructions_per_warp_tile, a.fragment_round_trips);
  h.fragment_wait_cycles =
      fragment_wait_cycles(a.fragment_round_trips, h.blocks_per_sm * m.block_shared_wavefronts,
                           m.shared_cycles, l1_bytes_per_cycle, m.fragment_covering_cycles);
  const int block_warps_per_scheduler = ceil_div(m.warps, m.schedulers);
  h.tile_issue_cycles =
      std::max(m.instructions_per_warp_tile * block_issue_cycles_per_instruction(
                                                  block_warps_per_scheduler, m.own_stall_cycles),
               a.k_tile * lat.ffma_cycles);
  h.stage_wait_cycles = stage_wait_cycles(gpu.microarchitecture, a.stage_wait);
  if (a.stage_wait == StageWait::kBulkCopy && !gpu.microarchitecture.bulk_copy_stage_wait_cycles) {
    p.latencies.assume(AssumedFact::kBulkCopyStageWait);
  }
  if (a.stage_wait == StageWait::kFallback && !gpu.microarchitecture.fallback_stage_wait_cycles) {
    p.latencies.assume(AssumedFact::kFallbackStageWait);
  }
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
          : expected_later_cycles(
                h.tile_issue_cycles + h.overhead_cycles + h.stage_wait_cycles,
                (h.global_latency_cycles + h.overhead_cycles) / a.chain_prefetch_tiles);
  h.tile_cycle_cycles += h.fragment_wait_cycles;
  h.warps_per_scheduler = ceil_div(h.blocks_per_sm * m.warps, m.schedulers);
  h.round_issue_cycles =
      m.instructions_per_warp_tile *
      block_issue_cycles_per_instruction(h.warps_per_scheduler, m.own_stall_cycles);
  h.round_l1_cycles =
      static_cast<double>(h.blocks_per_sm) * m.warps * m.l1_wavefronts_per_warp_tile;
  // Convoys: with a barrier per tile and no prefetch the blocks wait for their tiles together;
  // blocks that wait on a copy engine's stage barrier (stage_wait_cycles) do too. The wait adds
  // to the SM's round.
  const bool unprefetched = a.barrier_per_tile() && a.prefetch_tiles == 0;
  // The SMs that read the L2 at once: a grid smaller than the GPU runs one block per SM.
  const std::int64_t reading_sms = std::min<std::int64_t>(gpu.chip.sm_count, p.waste.grid_blocks());
  const std::vector<L2ShareRow>& share_table = gpu.microarchitecture.l2_read_share;
  if (share_table.empty() && reading_sms < gpu.chip.sm_count && p.ceilings.l2_GBps.known()) {
    p.latencies.assume(AssumedFact::kL2ReadShare);
  }
  h.convoy = unprefetched || h.stage_wait_cycles > 0;
  // A block's tile reaches the SM through its share of the L2 bandwidth after the first
  // sector's latency (convoy_transfer_cycles).
  h.transfer_cycles =
      unprefetched ? convoy_transfer_cycles(tile_sectors(p.config, a.k_tile) * kSectorBytes,
                                            p.ceilings, gpu.chip.sm_count, reading_sms, share_table)
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
  // A prefetching block starts by loading its first prefetch_tiles stages at once; every SM of
  // the wave does, and the L2 serves them interleaved, so the first stage is there when about all
  // of them are: their transfer at the SM's share of the L2 bandwidth.
  if (a.prefetch_tiles > 0) {
    m.prologue_cycles +=
        convoy_transfer_cycles(tile_sectors(p.config, a.k_tile) * kSectorBytes * a.prefetch_tiles,
                               p.ceilings, gpu.chip.sm_count, reading_sms, share_table);
  }
  // The epilogue's C stores: every sector they touch is one L2 write (c_store_sectors), through
  // the SM's share of the L2 bandwidth (convoy_transfer_cycles), after the block's K loop.
  h.epilogue_store_cycles =
      convoy_transfer_cycles(m.warps * a.c_store_sectors * kSectorBytes, p.ceilings,
                             gpu.chip.sm_count, reading_sms, share_table);
  m.epilogue_store_cycles = h.epilogue_store_cycles;
  return m;
}

}  // namespace detail
}  // namespace roofcast
