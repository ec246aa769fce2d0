// Latency hiding: the latencies of the memory levels, the latency chain of one block's K tile
// and how many warps hide it (Little's law), and the issue rate of a scheduler holding W warps.
// Formulas, units and sources here; design: docs/model.md#latency-hiding-and-the-latency-chain,
// docs/model.md#issue-rate-with-w-warps-per-scheduler.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/roofline.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/traffic.hpp"

namespace roofcast {

// ---- latencies --------------------------------------------------------------------------------

/// Latencies in SM cycles: the spec's measured values when present, else assumed figures.
/// A microarchitecture fact the spec may lack (MicroarchitectureFacts), in the order of its fields.
enum class AssumedFact : int {
  kFfmaLatency = 0,
  kSharedMemoryLatency,
  kL2Latency,
  kDramLatency,
  kWarpOwnStall,
  kBulkCopyStageWait,
  kFallbackStageWait,
  kInstructionCache,
  kL2ReadShare,
  kLocalLoadL1MissShare,
};
inline constexpr int kAssumedFactCount = 10;

struct Latencies {
  double shared_memory_cycles = 0;
  double l2_cycles = 0;
  double dram_cycles = 0;
  double ffma_cycles = 0;  // dependent FFMA issue-to-use, 4 cycles from Volta on
  bool shared_memory_measured = false;
  bool l2_measured = false;
  bool dram_measured = false;
  /// The facts the spec does not give, taken as generic assumptions: a bit per AssumedFact
  /// (a bit set, not a list: predict() does not allocate). The prediction's notes name them.
  unsigned assumed = 0;
  bool is_assumed(AssumedFact fact) const { return (assumed >> static_cast<int>(fact)) & 1U; }
  void assume(AssumedFact fact) { assumed |= 1U << static_cast<int>(fact); }
};

/// The spec field an AssumedFact stands for: "microarchitecture.<name>".
std::string_view to_string(AssumedFact fact);

/// Assumed when neither the spec's measured block nor its microarchitecture block gives them:
/// shared memory 30, L2 200, DRAM 400 cycles, the figures of shared/reference/gemm-ladder.txt
/// ("20-30", "about 200", "300-400" cycles), and a dependent FFMA 4 cycles (Volta and later).
/// Generic assumptions, named in Latencies::assumed.
inline constexpr double kAssumedSharedMemoryLatencyCycles = 30;
inline constexpr double kAssumedL2LatencyCycles = 200;
inline constexpr double kAssumedDramLatencyCycles = 400;
/// Share of local (spill) loads that miss L1 when the spec does not give it: a quarter, a
/// generic figure (no measurement behind it; the H200's own is 0.111, docs/model.md#spills).
inline constexpr double kAssumedLocalLoadL1MissShare = 0.25;
inline constexpr double kAssumedFfmaLatencyCycles = 4;

/// The GPU's latencies: its measured block, else its microarchitecture block, else the
/// assumptions above (listed in Latencies::assumed).
Latencies gpu_latencies(const GpuSpec& gpu);

/// Cycles per K tile of a stage-barrier wait (KernelAnatomy::stage_wait) on this GPU: its
/// microarchitecture block's bulk_copy_stage_wait_cycles or fallback_stage_wait_cycles; 0 for
/// StageWait::kNone or when the spec does not give the figure (listed in Latencies::assumed).
double stage_wait_cycles(const MicroarchitectureFacts& facts, StageWait wait);

/// Latency hiding in a full wave, per SM. One block's K tile takes
///   tile_issue = max(instructions per warp * block_issue_cycles_per_instruction(
///                    ceil(warps / schedulers)), k_tile * FFMA latency)
/// cycles of issue when alone, and its latency chain per tile is (prefetch distance d):
///   d = 0:  tile_cycle = tile_issue + G * L_global + overhead  (load, wait, compute)
///   d >= 1: tile_cycle = expected_later_cycles(tile_issue + overhead + stage_wait,
///                                              (L_global + overhead) / d_A)
///           (the expected later of the compute and the next stage's loads, E[max], not the max
///           of their means)
/// (d = prefetch_tiles; d_A = chain_prefetch_tiles, the prefetch distance of the operand issued
/// last: 1 for rungs 9-10 with vector_width 4, whose A goes through registers one stage ahead
/// while B's cp.async or bulk copies run S - 1 ahead; see chain_prefetch_tiles in traffic.hpp.
/// Source: the kernel source and SASS cited at kernels::chain_prefetch_tiles; the measurement
/// that found it: docs/model.md#prefetch-distance-of-the-chain)
/// with L_global = global_wait_cycles(barriers > 0, l1_hit, L_shared,
/// slowest_load_latency_cycles(hit, sectors, L_l2, L_dram) (sectors: tile_sectors for rungs 2-10,
/// one warp's sectors of one k for rung 1), instruction counts in SM issue cycles
/// (warp_issue_cycles), and G = KernelAnatomy::serial_load_groups (the ladder's rungs 5-6: 2, A's
/// round trip then B's; else 1), overhead = the shared-memory round trips between the load and the
/// first FFMA (STS then LDS: 2 * L_shared; both operands by cp.async or bulk copies: L_shared; none
/// for rung 1). The SM runs B blocks: per K tile it needs round_issue = instructions per warp *
/// ceil(B * warps / schedulers) cycles of issue (Little's law: the latency is hidden when
/// round_issue >= tile_cycle). Design: docs/model.md#latency-hiding-and-the-latency-chain.
struct LatencyHiding {
  int blocks_per_sm = 0;
  int warps_per_scheduler = 0;       // ceil(B * warps / schedulers)
  double global_latency_cycles = 0;  // L_global
  /// Convoys without prefetch: one block's tile bytes / the SM's L2 bytes per cycle
  /// (convoy_transfer_cycles), part of the exposed wait; 0 otherwise.
  double transfer_cycles = 0;
  double overhead_cycles = 0;
  double tile_issue_cycles = 0;
  double stage_wait_cycles = 0;  // stage_wait_cycles(KernelAnatomy::stage_wait), in tile_cycle
  /// One block's C stores after its K loop: warps * c_store_sectors * 32 bytes at the SM's share
  /// of the L2 bandwidth (convoy_transfer_cycles); the latency term adds blocks_per_sm of them.
  double epilogue_store_cycles = 0;
  /// fragment_wait_cycles of the full wave's B blocks (rung 4; 0 otherwise), in tile_cycle and
  /// added to every K tile of the latency chain (per wave, with that wave's blocks per SM).
  double fragment_wait_cycles = 0;
  double tile_cycle_cycles = 0;
  double round_issue_cycles = 0;
  double round_l1_cycles = 0;  // B * warps * L1 wavefronts per warp per tile
  /// Warps without a barrier (rung 1): each load's wait behind the resident warps' global
  /// loads in the SM's L1 queue, lsu_queue_wait_cycles of the round; in tile_cycle (per wave,
  /// with that wave's blocks per SM); 0 otherwise.
  double lsu_queue_cycles = 0;
  /// max(0, 1 - round_issue / tile_cycle); with convoy: the share of the round spent waiting,
  /// E / (max(round_issue, tile_issue) + E), E = G * L_global + transfer + overhead (rungs 2-7)
  /// or stage_wait (rung 10)
  double exposed_fraction = 0;
  /// Rungs 2-7 (a barrier per tile, no prefetch): the resident blocks wait together.
  bool convoy = false;
  /// Warps per scheduler needed to hide the chain: warps_per_scheduler * tile_cycle /
  /// round_issue (Little's law: latency x issue rate / work per warp).
  double warps_needed_per_scheduler = 0;
  bool barrier_stalls = false;  // one block per SM and no prefetch (rungs 2-7)
};

/// Cycles a warp's global (or local) load waits, on average, behind the loads of the other
/// resident warps in the SM's L1 (LSU) queue, when warps wait on their own loads without a
/// barrier (rung 1, whose warps run free and load twice per FFMA):
///   wait = 0.5 * round_wavefronts * 128 B / (l1 bytes per SM cycle),
/// round_wavefronts = B * warps * global (and local) L1 wavefronts per warp per K tile: a
/// load arriving at a uniformly random point of a round that the L1 serves first come, first
/// served at its measured rate waits for half the round's wavefronts (H200: the measured shared
/// bandwidth 32903 GB/s over 132 SMs at 1980 MHz = 125.9 bytes per cycle, 1.02 cycles per
/// wavefront). 0 without an L1 rate. Motivated by Nsight Compute on the training case r01-naive
/// 32x32 at 4096^3, see docs/model.md#l1-load-queue.
double lsu_queue_wait_cycles(double round_wavefronts, double l1_bytes_per_cycle);

/// Distinct 32-byte sectors of one block's operand tiles per K tile: ceil((BM + BN) * k_tile
/// * 4 / 32).
double tile_sectors(const gemm::TileConfig& config, int k_tile);

/// Cycles a warp waits for its global loads of one K tile (L_global):
///   barrier per tile (rungs 2-10): memory_cycles (the slowest load's latency);
///   no barrier (rung 1): l1_hit * shared_cycles + (1 - l1_hit) * memory_cycles.
/// Why a tiled rung's L1 hits do not shorten its wait: docs/model.md#global-wait.
double global_wait_cycles(bool barrier_per_tile, double l1_hit_rate, double shared_cycles,
                          double memory_cycles);

/// Latency until the slowest of `sectors` independent loads arrives, each hitting L2 with
/// probability hit_rate: P = hit_rate^sectors (all hit), latency = P * L_l2 + (1 - P) * L_dram.
/// A barrier (or a warp's wait on its loads) ends with the last load, so one miss among the
/// tile's sectors costs the DRAM latency. Motivated by rungs 4-7 without prefetch, see
/// docs/model.md#slowest-load.
double slowest_load_latency_cycles(double hit_rate, double sectors, double l2_cycles,
                                   double dram_cycles);

/// L2 bytes per SM cycle each of `reading_sms` SMs receives when they read at once: the full-load
/// share l2_GBps * 1e9 / sm_count / (boost_clock_MHz * 1e6) (H200: the measured l2_read 7501.5
/// GB/s over 132 SMs at 1980 MHz = 28.7 bytes per cycle), or, with fewer SMs reading and a
/// measured table (MicroarchitectureFacts::l2_read_share), the table's rate at reading_sms
/// (linear between its points, its first or last point beyond them), never below the full-load
/// share; 0 without an L2 ceiling. reading_sms is clamped to 1..sm_count.
double l2_share_bytes_per_cycle(const Ceilings& ceilings, int sm_count, std::int64_t reading_sms,
                                const std::vector<L2ShareRow>& table);

/// Cycles the SM's share of the L2 bandwidth needs to deliver `bytes`:
///   bytes / l2_share_bytes_per_cycle(ceilings, sm_count, reading_sms, table);
/// 0 without an L2 ceiling. Blocks without prefetch (rungs 2-7) wait for the last sector of
/// their K tile: the exposed wait of their convoy round is the slowest sector's latency plus
/// this transfer of one block's tile (tile_sectors * 32 bytes). Motivated by Nsight Compute on
/// the training cases r05-vec and r06-bank 128x128x8 t8x8 at 4096^3, see docs/model.md#convoys.
double convoy_transfer_cycles(double bytes, const Ceilings& ceilings, int sm_count,
                              std::int64_t reading_sms, const std::vector<L2ShareRow>& table);

/// Cycles per K tile a block's warps wait for shared-memory fragment reads that are not hoisted
/// above the previous FFMAs (rung 4: fragment_round_trips = BK / 2 steps of its k loop, each
/// issuing its LDS and then the FFMAs that need them):
///   Q + (R - 1) * max(0, L_shared + Q - covering_issue_cycles),
/// Q = lsu_queue_wait_cycles(round_wavefronts / R, l1 bytes per cycle), R = round_trips,
/// round_wavefronts = B * warps * shared wavefronts per warp per K tile (stores included, spread
/// evenly over the steps; B = the wave's blocks per SM). All warps leave the barrier together and
/// issue the first step's reads at once: a read waits, on average, half the step's wavefronts of
/// the resident blocks in the L1 queue (Q), which nothing covers (the first read's latency is in
/// the tile's overhead). Each later step's read waits L_shared + Q, covered by the issue of the
/// block's other warps on the same scheduler (fragment_covering_issue_cycles). 0 for R <= 1.
/// Motivated by Nsight Compute on the training case r04-tile2d 128x128x8 t8x8 at 4096^3 and the
/// training residuals by warps per scheduler, see docs/model.md#fragment-round-trips.
double fragment_wait_cycles(int round_trips, double round_shared_wavefronts, double shared_cycles,
                            double l1_bytes_per_cycle, double covering_issue_cycles);

/// Issue cycles that cover one warp's fragment read: the step's issue of the block's other warps
/// on its scheduler, (ceil(warps / schedulers) - 1) * instructions_per_warp_tile / R, where
/// instructions_per_warp_tile is a warp's issue cycles per K tile (warp_issue_cycles). 0 for
/// R <= 0.
double fragment_covering_issue_cycles(int warps, int schedulers, double instructions_per_warp_tile,
                                      int round_trips);

/// Warp instructions one scheduler issues per SM cycle: the measured FFMA rate over the SM
/// clock, issue_clock_MHz / boost_clock_MHz, at most 1 (H200: 249.7 FLOP per cycle per SM from
/// the ffma microbenchmark = 0.976 of the 256 the 128 lanes allow); 1 without a measurement.
double issue_per_cycle(const Ceilings& ceilings);

/// Cycles per instruction a warp cannot issue because of its own instruction stream: fixed-latency
/// dependencies (control-code stall counts), dispatch conflicts, instruction fetch, branches,
/// math-pipe and MIO throttles and short-scoreboard (shared-memory result) waits. The GPU's
/// microarchitecture.warp_own_stall_cycles (H200: 0.56, Nsight Compute on the training cases
/// with one warp per scheduler, run 909d742, docs/model.md#issue-rate-with-w-warps-per-scheduler);
/// a spec without it: 0 (a warp alone issues every cycle), noted as assumed.
inline constexpr double kAssumedWarpOwnStallCycles = 0;

/// Issue cycles per warp instruction on a scheduler holding W warps (W = warps_per_scheduler):
/// each warp is ready in a cycle with probability p = 1 / (1 + s) (s = own_stall_cycles: a warp
/// alone issues every 1 + s cycles), independently of the others, so the scheduler issues in
/// 1 - (1 - p)^W of its cycles and each warp's instruction takes
///   W / (1 - (1 - p)^W) cycles  (W <= 0: as W = 1).
/// W = 1: 1 + s; W -> inf: W. H200 (s = 0.56): 1.56 (W = 1), 2.27 (W = 2, 88% busy), 4.06 (4).
/// predict() passes s = warp_own_stall_cycles(anatomy): 0.56 for aligned rows, more when the
/// guarded copy paths of unaligned rows are part of the K loop. Measured support (Nsight
/// Compute, training): docs/model.md#issue-rate-with-w-warps-per-scheduler.
double block_issue_cycles_per_instruction(int warps_per_scheduler, double own_stall_cycles);

/// Bytes of one SASS instruction (Volta and later: 128-bit instructions with their control bits).
inline constexpr double kSassInstructionBytes = 16;

/// Stall cycles per instruction a warp adds for its spill reloads: each local load feeds the
/// FFMA that updates the reloaded accumulator, so the warp waits an L1 hit for it,
/// reloads * l1_hit_cycles / instructions (per warp per K tile; l1_hit_cycles: the GPU's
/// shared-memory latency, the same L1 data path). 0 without reloads or instructions. Not added
/// where the k steps wait for their fragment reads (KernelAnatomy::fragment_round_trips > 1):
/// the reloads issue beside those reads and wait with them. docs/model.md#spills.
double spill_reload_stall_cycles(double reloads, double instructions, double l1_hit_cycles);

/// A warp's own stall cycles per instruction (block_issue_cycles_per_instruction's s):
///   warp_own_stall_cycles + unaligned_copy_stall_cycles * u / instructions
///   + instruction_fetch_stall_cycles when the K loop's body, instructions * 16 bytes (a fully
///     unrolled K tile), exceeds instruction_cache_bytes
/// (the GPU's microarchitecture facts; absent: 0), u = anatomy.unaligned_copy_instructions,
/// instructions = anatomy.instructions() + extra_instructions (spill accesses).
/// unaligned_copy_stall_cycles is the mean control-code stall count of the guarded fallback copy
/// paths of unaligned rows minus the K loop's (sm_90 SASS: 2.26 - 1.09,
/// docs/model.md#unaligned-copy-paths).
double warp_own_stall_cycles(const KernelAnatomy& anatomy, const MicroarchitectureFacts& facts,
                             double extra_instructions = 0);

/// Expected cycles until both a fixed amount of work and a latency overlapping it are done,
/// E[max(w, L)], when the latency L is exponentially distributed with mean m (the sojourn time of
/// an M/M/1 queue; the maximum-entropy law of a positive time of known mean):
///   E[max(w, L)] = w + m * exp(-w / m)   (w = fixed_cycles, m = mean_latency_cycles),
/// between max(w, m) and w + m; at w = m it is 1.37 m. m <= 0: w; w <= 0: m. A prefetching
/// block's K tile ends when its compute and its next stage's loads are both done; the max of
/// their means undercounts it where they are close. Motivated by Nsight Compute on the training
/// configs at 512x2048x4096 (run 530a3a6), see docs/model.md#latency-hiding-and-the-latency-chain.
double expected_later_cycles(double fixed_cycles, double mean_latency_cycles);

/// Cycles a scheduler's FP32 pipe is busy with one FFMA warp instruction:
/// warp_size * register_file_subpartitions / fp32_lanes_per_sm, at least 1 (32 lanes per
/// scheduler on sm_86+ and Hopper: 1 cycle; 16 on V100 and A100, whose 64 FP32 lanes per SM
/// are 16 per sub-partition: 2 cycles; CUDA C++ Programming Guide, "Arithmetic Instructions"
/// throughput table: 64 FP32 results per clock per SM on 7.0 and 8.0, 128 on 8.6 and 9.0).
/// 1 when the spec has no lane count.
double ffma_issue_cycles(const SmLimits& sm);

/// Issue cycles of one warp's instructions per K tile on its scheduler: the dispatcher issues
/// one warp instruction per cycle and the FP32 pipe accepts one FFMA every ffma_cycles, so
///   max(ffma * ffma_cycles, instructions) / issue_rate
/// (instructions include the FFMAs; issue_rate = issue_per_cycle). On the H200
/// (ffma_cycles = 1) this is instructions / issue_rate; on 64-lane SMs an FFMA-dominated loop
/// cannot exceed the FFMA ceiling.
double warp_issue_cycles(double ffma, double instructions, double ffma_cycles, double issue_rate);

}  // namespace roofcast
