#include "roofcast/predict.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "predict_steps.hpp"

namespace roofcast {
namespace {

using detail::kGiga;
using detail::kTera;
using detail::WaveModel;

TimeTerms wave_terms(const WaveModel& m, int blocks_per_sm, double wave_blocks) {
  TimeTerms t;
  const double issue_warps = block_issue_cycles_per_instruction(
      ceil_div(blocks_per_sm * m.warps, m.schedulers), m.own_stall_cycles);
  const double epilogue = m.epilogue_instructions * issue_warps;
  const double round_issue = m.instructions_per_warp_tile * issue_warps;
  t[TimeTerm::kIssue] = (m.k_tiles * round_issue + epilogue) / m.clock_Hz;
  t[TimeTerm::kSharedMemory] = m.k_tiles * blocks_per_sm * m.warps * m.l1_wavefronts_per_warp_tile *
                               kWavefrontBytes / m.l1_bytes_per_s_per_sm;
  const double one_block_epilogue =
      m.epilogue_instructions *
      block_issue_cycles_per_instruction(ceil_div(m.warps, m.schedulers), m.own_stall_cycles);
  const double fragment_wait =
      fragment_wait_cycles(m.fragment_round_trips, blocks_per_sm * m.block_shared_wavefronts,
                           m.shared_cycles, m.l1_bytes_per_cycle, m.fragment_covering_cycles);
  // A convoy's K tile round is the later of the SM's issue and a block's issue with its fragment
  // waits (a stalled warp is covered by the other warps' issue), then the exposed wait; without
  // a convoy, a block's chain.
  const double tile =
      m.convoy ? expected_later_cycles(
                     std::max(round_issue, m.convoy_issue + fragment_wait) + m.exposed_cycles,
                     m.convoy_floor)
               : m.tile_cycle + fragment_wait + blocks_per_sm * m.lsu_queue_per_block;
  t[TimeTerm::kLatency] = (m.k_tiles * tile + m.prologue_cycles + one_block_epilogue +
                           blocks_per_sm * m.epilogue_store_cycles) /
                          m.clock_Hz;
  const double share = wave_blocks / m.grid;
  t[TimeTerm::kL2] = m.l2_Bps > 0 ? m.l2_bytes * share / m.l2_Bps : 0.0;
  t[TimeTerm::kDram] = m.dram_Bps > 0 ? m.dram_bytes * share / m.dram_Bps : 0.0;
  t[TimeTerm::kSpill] =
      m.l2_Bps_per_sm > 0 ? blocks_per_sm * m.spill_bytes_per_block / m.l2_Bps_per_sm : 0.0;
  return t;
}

/// Throws std::invalid_argument for extents out of range or spill bytes without registers.
void check_input(const PredictInput& input) {
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
}

/// The prediction's inputs: problem, config (threads filled in), raster, tile waste, anatomy.
Prediction start_prediction(const PredictInput& input, const Calibration& calibration,
                            const KernelAnatomy& anatomy) {
  Prediction p;
  p.problem = input.problem;
  p.config = input.config;
  if (p.config.threads <= 0) p.config.threads = anatomy.threads;
  p.raster = input.raster;
  p.shared_memory_bytes = input.shared_memory_bytes;
  p.calibration = calibration;
  p.waste = compute_tile_waste(input.problem, p.config);
  p.anatomy = anatomy;
  return p;
}

/// Occupancy of the kernel's launch, and the GPU's ceilings and latencies.
void place_on_sm(const GpuSpec& gpu, const PredictInput& input, Prediction& p) {
  KernelLaunch launch;
  launch.threads_per_block = p.config.threads;
  launch.registers_per_thread = p.registers_per_thread;
  launch.dynamic_shared_memory_bytes = input.shared_memory_bytes;
  p.occupancy = compute_occupancy_limits(gpu.sm, launch);
  p.ceilings = roofline_ceilings(gpu);
  p.latencies = gpu_latencies(gpu);
}

/// The L2 hit rate of the operand loads under the raster order, and the DRAM bytes.
void add_l2(const GpuSpec& gpu, const PredictInput& input, const Calibration& calibration,
            Prediction& p) {
  const KernelAnatomy& a = p.anatomy;
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
}

/// The throughput part of the per-wave model: L1, L2, DRAM and spill bytes and rates.
void add_throughputs(const GpuSpec& gpu, const Prediction& p, WaveModel& m) {
  const SpillEstimate& spill = p.spill;
  m.l1_bytes_per_s_per_sm = p.ceilings.shared_memory_GBps.value() * kGiga / gpu.chip.sm_count;
  m.grid = static_cast<double>(p.waste.grid_blocks());
  m.l2_bytes = p.traffic.l2_bytes();
  m.dram_bytes = p.dram_bytes;
  m.spill_bytes_per_block = m.grid > 0 ? spill.l2_bytes / m.grid : 0.0;
  m.l2_Bps = p.ceilings.l2_GBps.known() ? p.ceilings.l2_GBps.value() * kGiga : 0.0;
  m.dram_Bps = p.ceilings.dram_GBps.known() ? p.ceilings.dram_GBps.value() * kGiga : 0.0;
  // Spills go through the SM's share of the L2 (DRAM's when the spec has no L2 ceiling).
  const double spill_Bps = m.l2_Bps > 0 ? m.l2_Bps : m.dram_Bps;
  m.l2_Bps_per_sm = spill_Bps / gpu.chip.sm_count;
}

/// The terms of the full waves and the last wave, composed under the calibration.
void compose(const GpuSpec& gpu, const WaveModel& m, const Calibration& calibration,
             Prediction& p) {
  const WaveResult& w = p.waves;
  p.terms.full_waves = static_cast<double>(w.full_waves);
  if (w.full_waves > 0) {
    p.terms.full_wave =
        wave_terms(m, p.occupancy.blocks_per_sm, static_cast<double>(w.blocks_per_wave));
  }
  if (w.full_waves != w.waves) {
    const int last_per_sm = static_cast<int>(ceil_div(w.last_wave_blocks, gpu.chip.sm_count));
    p.terms.last_wave = wave_terms(m, std::min(last_per_sm, p.occupancy.blocks_per_sm),
                                   static_cast<double>(w.last_wave_blocks));
  }
  p.totals = total_terms(p.terms, calibration);
  p.binding = binding_term(p.totals);
  p.time_s = compose_time_s(p.terms, calibration);
  p.tflops = p.time_s > 0 ? p.traffic.flops / p.time_s / kTera : 0.0;
}

/// Bounded specs and calibrations keep every term finite; this is the guard that says so.
void check_finite(const GpuSpec& gpu, const Prediction& p) {
  if (!std::isfinite(p.time_s) || !(p.time_s > 0) || !std::isfinite(p.tflops)) [[unlikely]] {
    throw std::domain_error("prediction of " + gpu.id + " is not a finite positive time (time_s " +
                            std::to_string(p.time_s) +
                            "): check the spec's clocks, bandwidths and the calibration");
  }
}

}  // namespace

Prediction predict(const GpuSpec& gpu, const PredictInput& input, const Calibration& calibration,
                   const KernelAnatomy& anatomy) {
  check_input(input);
  Prediction p = start_prediction(input, calibration, anatomy);
  detail::assign_registers(gpu, input, p);
  place_on_sm(gpu, input, p);
  if (!p.occupancy.launchable() || p.occupancy.blocks_per_sm == 0) return p;

  // The runtime's answer for this kernel when given, else the GPU's measured table.
  const int cluster = std::max(1, p.config.cluster);
  const int max_active_clusters =
      input.max_active_clusters > 0
          ? input.max_active_clusters
          : (cluster > 1 ? measured_max_active_clusters(gpu, cluster, p.occupancy.blocks_per_sm)
                         : 0);
  p.waves = compute_waves(p.waste.grid_blocks(), p.occupancy.blocks_per_sm, gpu.chip.sm_count,
                          cluster, max_active_clusters);
  if (!p.waves.launchable()) return p;
  p.launchable = true;
  p.traffic = compute_traffic(input.problem, p.anatomy, p.waste, input.c_is_read);
  add_l2(gpu, input, calibration, p);
  detail::add_spill_traffic(gpu, p);
  p.l2_sector_hit_rate =
      kernel_sector_hit_rate(p.l2.hit_rate, p.traffic.operand_l2_bytes(), p.traffic.c_write_bytes,
                             p.traffic.c_read_bytes, p.spill.l2_bytes);

  p.roofline = evaluate_roofline(p.ceilings, p.traffic.flops, p.traffic.l1_bytes(),
                                 p.traffic.l2_bytes(), p.dram_bytes);

  WaveModel m = detail::hide_latency(gpu, p);
  add_throughputs(gpu, p, m);
  p.issue_efficiency = p.anatomy.ffma / (p.anatomy.instructions() + p.spill.accesses_per_tile);
  compose(gpu, m, calibration, p);
  check_finite(gpu, p);
  return p;
}

}  // namespace roofcast
