// Time model: predicted time and TFLOPS of an SGEMM config on a GPU, composed from waves,
// occupancy, per-level traffic, the L2 hit rate under the raster order, the roofline, latency
// hiding (Little's law) and spills, with every term's value in the result. Plus the register
// estimate for a config that has not been compiled, and the least-squares calibration of the
// model's few global per-GPU parameters.
//
// The comments here state formulas, units and the source of each constant; the reasoning and
// the measurement history behind each mechanism are in docs/model.md (sections cited below).
//
// predict() is pure and allocation-free (no strings or vectors on its path).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/l2.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/roofline.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/traffic.hpp"
#include "roofcast/waves.hpp"

namespace roofcast {

// ---- calibration ------------------------------------------------------------------------------

/// The model's global per-GPU parameters. Defaults (1, 0) mean "uncalibrated": every term is
/// taken at its face value. Each scale multiplies one time term (see TimeTerm); none is per
/// rung or per size. fit_calibration() fits the first six by least squares
/// (docs/model.md#calibration-and-the-fit).
struct Calibration {
  double issue_scale = 1;          // x issue time: register-bank conflicts, dual-issue limits
  double shared_memory_scale = 1;  // x L1/shared data-path time
  double latency_scale = 1;        // x latency-bound time (exposed latency, barriers)
  double l2_scale = 1;             // x L2 bandwidth time
  double dram_scale = 1;           // x DRAM bandwidth time
  double launch_overhead_s = 0;    // + once per kernel: launch and drain
  /// Effective share of the L2 capacity in the roofcast L2 model (set by hand from measured hit
  /// rates; not part of the least-squares fit).
  double l2_capacity_fraction = 1;

  bool operator==(const Calibration&) const = default;
};

// ---- terms ------------------------------------------------------------------------------------

/// The terms of the time model.
enum class TimeTerm : int {
  kIssue = 0,         // every instruction through the warp schedulers (FFMA + overhead)
  kSharedMemory = 1,  // L1/shared data-path wavefronts, bank-conflict replays included
  kLatency = 2,       // per-block latency chain not hidden by other blocks (Little's law)
  kL2 = 3,            // bytes requested from L2 / L2 bandwidth
  kDram = 4,          // bytes from DRAM / DRAM bandwidth
  kSpill = 5,         // local-memory traffic of spilled registers / L2 (or DRAM) bandwidth
};
inline constexpr int kTimeTermCount = 6;

/// "issue", "shared_memory", "latency", "l2", "dram", "spill".
std::string_view to_string(TimeTerm term);

/// One value per term, seconds.
struct TimeTerms {
  std::array<double, kTimeTermCount> seconds{};

  double& operator[](TimeTerm t) { return seconds[static_cast<int>(t)]; }
  double operator[](TimeTerm t) const { return seconds[static_cast<int>(t)]; }
};

/// The uncalibrated terms of one prediction: a full wave and the last, partial wave.
struct PredictionTerms {
  TimeTerms full_wave;    // one full wave (blocks_per_sm blocks on every SM)
  double full_waves = 0;  // how many full waves
  TimeTerms last_wave;    // the partial last wave; zeros when the grid fills its waves
};

/// The scale Calibration applies to a term (spill: 1).
double term_scale(const Calibration& calibration, TimeTerm term);

/// Predicted time, seconds:
///   full_waves * wave(full_wave) + wave(last_wave) + launch_overhead_s,
///   wave(t) = max(issue_scale * t.issue + shared_memory_scale * t.shared_memory,
///                 latency_scale * t.latency, l2_scale * t.l2, dram_scale * t.dram, t.spill).
/// Within a wave the terms overlap (each is a throughput or a latency chain of the same
/// work), so the largest one is the wave's time; waves run one after another. Issue and the
/// L1/shared data path add instead of overlapping (every LDS/LDG/local access occupies the
/// sub-partition's MIO issue and the data path's register-file writes that the FFMAs' operands
/// share); the H200 measurements behind this: docs/model.md#composition.
double compose_time_s(const PredictionTerms& terms, const Calibration& calibration);

/// Each term over the whole launch, calibrated: full_waves * scale * full + scale * last.
TimeTerms total_terms(const PredictionTerms& terms, const Calibration& calibration);

/// The term with the largest total (the first on ties).
TimeTerm binding_term(const TimeTerms& totals);

// ---- registers --------------------------------------------------------------------------------

/// Registers per thread a config needs, estimated without compiling it. ptxas decides the
/// real count; the estimate counts what must be live at the peak (the compute phase), see
/// docs/model.md#register-estimate:
struct RegisterEstimate {
  int accumulators = 0;  // outputs per thread (TM * TN)
  int fragments = 0;     // A + B fragment values per k, x 2 when two are live: rungs 8-10
                         // double-buffer them, and for rungs 3-7 the compiler hoists the next
                         // k's shared reads above the current FFMAs (BK loop fully unrolled)
  int staging = 0;       // global values held across the compute phase (prefetching rungs
                         // that stage A or B through registers; without prefetch they are
                         // loaded and stored before the compute phase and count only when
                         // larger than the fragments)
  int addressing = 0;    // pointers (A, B, C: 2 each), sizes, tile origins, thread indices,
                         // loop counter, alpha and beta: kAddressRegisters
  int pipeline = 0;      // stage index and one shared offset per stage (stages > 1)
  int total = 0;         // accumulators + max(fragments, transient staging) + staging
                         // + addressing + pipeline
};

/// Registers for addresses, sizes, indices and scalars (see RegisterEstimate::addressing).
inline constexpr int kAddressRegisters = 18;

/// The estimate for a config's kernel from its anatomy (config: stages).
RegisterEstimate estimate_registers(const gemm::TileConfig& config, const KernelAnatomy& anatomy);

/// The most registers per thread at which `min_blocks` blocks of `threads` threads stay
/// resident (what ptxas aims for under __launch_bounds__(threads, min_blocks)), and never above
/// the per-thread maximum: with W = ceil(threads / warp_size) warps, P sub-partitions,
///   per-warp allocation A = floor((registers_per_sm / P) / ceil(min_blocks * W / P)),
///   also <= max_registers_per_block / roundup(W, warp_allocation_granularity),
///   rounded down to the allocation unit; cap = min(max per thread, A / warp_size).
/// min_blocks <= 0 gives the per-thread maximum.
int register_cap(const SmLimits& sm, int threads, int min_blocks);

// ---- latencies --------------------------------------------------------------------------------

/// Latencies in SM cycles: the spec's measured values when present, else assumed figures.
struct Latencies {
  double shared_memory_cycles = 0;
  double l2_cycles = 0;
  double dram_cycles = 0;
  double ffma_cycles = 0;  // dependent FFMA issue-to-use, 4 cycles from Volta on
  bool shared_memory_measured = false;
  bool l2_measured = false;
  bool dram_measured = false;
};

/// Assumed when the spec has no measurement: shared memory 30, L2 200, DRAM 400 cycles, the
/// figures of shared/reference/gemm-ladder.txt ("20-30", "about 200", "300-400" cycles).
inline constexpr double kAssumedSharedMemoryLatencyCycles = 30;
inline constexpr double kAssumedL2LatencyCycles = 200;
inline constexpr double kAssumedDramLatencyCycles = 400;
inline constexpr double kFfmaLatencyCycles = 4;

Latencies gpu_latencies(const GpuSpec& gpu);

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

/// Latency hiding in a full wave, per SM. One block's K tile takes
///   tile_issue = max(instructions per warp * block_issue_cycles_per_instruction(
///                    ceil(warps / schedulers)), k_tile * FFMA latency)
/// cycles of issue when alone, and its latency chain per tile is (prefetch distance d):
///   d = 0:  tile_cycle = tile_issue + G * L_global + overhead  (load, wait, compute)
///   d >= 1: tile_cycle = max(tile_issue + overhead + stage_wait, (L_global + overhead) / d_A)
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
  double stage_wait_cycles = 0;  // KernelAnatomy::stage_wait_cycles, in tile_cycle with prefetch
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

/// Registers that do not fit and what they cost.
struct SpillEstimate {
  int registers_needed = 0;           // the estimate (or the given count)
  int registers_allocated = 0;        // what the kernel gets: min(needed, register_cap)
  int spilled_registers = 0;          // estimate only: needed - allocated
  double bytes_per_thread = 0;        // local memory per thread: given, or spilled * 4
  bool accumulators_spilled = false;  // see accumulators_spill
  double accesses_per_tile = 0;       // local loads + stores per thread per K tile
  double l2_fraction = 0;             // share of local accesses L1 misses (spill_l2_fraction)
  double l2_bytes = 0;                // local traffic reaching L2, whole launch:
                                      // l2_fraction * accesses_per_tile * 4 * threads * tiles
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

/// Cycles the SM's share of the L2 bandwidth needs to deliver `bytes`:
///   bytes / (l2_GBps * 1e9 / sm_count / (boost_clock_MHz * 1e6))
/// (H200: the measured l2_read 7501.5 GB/s over 132 SMs at 1980 MHz = 28.7 bytes per cycle);
/// 0 without an L2 ceiling. Blocks without prefetch (rungs 2-7) wait for the last sector of
/// their K tile: the exposed wait of their convoy round is the slowest sector's latency plus
/// this transfer of one block's tile (tile_sectors * 32 bytes). Motivated by Nsight Compute on
/// the training cases r05-vec and r06-bank 128x128x8 t8x8 at 4096^3, see docs/model.md#convoys.
double convoy_transfer_cycles(double bytes, const Ceilings& ceilings, int sm_count);

/// Cycles per K tile a block's warps wait for shared-memory fragment reads that are not hoisted
/// above the previous FFMAs (rung 4: fragment_round_trips = BK / 2 steps of its k loop, each
/// issuing its LDS and then the FFMAs that need them), beyond the first read after the barrier
/// (in the tile's overhead):
///   (R - 1) * (L_shared + lsu_queue_wait_cycles(round_wavefronts / R, l1 bytes per cycle)),
/// R = round_trips, round_wavefronts = B * warps * shared wavefronts per warp per K tile (stores
/// included, spread evenly over the steps; B = the wave's blocks per SM): all warps leave the
/// barrier together and issue a step's reads together, so a read waits the shared latency plus,
/// on average, half the step's wavefronts of the resident blocks in the L1 queue. 0 for R <= 1.
/// Motivated by Nsight Compute on the training case r04-tile2d 128x128x8 t8x8 at 4096^3, see
/// docs/model.md#fragment-round-trips.
double fragment_wait_cycles(int round_trips, double round_shared_wavefronts, double shared_cycles,
                            double l1_bytes_per_cycle);

/// Warp instructions one scheduler issues per SM cycle: the measured FFMA rate over the SM
/// clock, issue_clock_MHz / boost_clock_MHz, at most 1 (H200: 249.7 FLOP per cycle per SM from
/// the ffma microbenchmark = 0.976 of the 256 the 128 lanes allow); 1 without a measurement.
double issue_per_cycle(const Ceilings& ceilings);

/// Cycles per instruction a warp cannot issue because of its own instruction stream: fixed-latency
/// dependencies (control-code stall counts), dispatch conflicts, instruction fetch, branches,
/// math-pipe and MIO throttles and short-scoreboard (shared-memory result) waits. Nsight Compute
/// on the training cases with one warp per scheduler (run 909d742): the mean of those stall
/// reasons per issued instruction. Raw ncu figures, not fitted; the cases and the cross-check:
/// docs/model.md#issue-rate-with-w-warps-per-scheduler.
inline constexpr double kWarpOwnStallCyclesPerInstruction = 0.56;

/// Issue cycles per warp instruction on a scheduler holding W warps (W = warps_per_scheduler):
/// each warp is ready in a cycle with probability p = 1 / (1 + s) (s = own_stall_cycles: a warp
/// alone issues every 1 + s cycles), independently of the others, so the scheduler issues in
/// 1 - (1 - p)^W of its cycles and each warp's instruction takes
///   W / (1 - (1 - p)^W) cycles  (W <= 0: as W = 1).
/// W = 1: 1 + s; W -> inf: W. H200 (s = 0.56): 1.56 (W = 1), 2.27 (W = 2, 88% busy), 4.06 (4).
/// predict() passes s = warp_own_stall_cycles(anatomy): 0.56 for aligned rows, more when the
/// guarded copy paths of unaligned rows are part of the K loop. Measured support (Nsight
/// Compute, training): docs/model.md#issue-rate-with-w-warps-per-scheduler.
double block_issue_cycles_per_instruction(
    int warps_per_scheduler, double own_stall_cycles = kWarpOwnStallCyclesPerInstruction);

/// Fixed-latency cycles per instruction that the guarded fallback copy paths of unaligned rows
/// (KernelAnatomy::unaligned_copy_instructions, UnalignedCopy in traffic.hpp) stall a warp
/// beyond the FFMA stream's: the mean control-code stall count of those paths minus the K
/// loop's. Read off the SASS (nvcc 13.0, sm_90, nvdisasm -hex; stall count = bits 41-44 of the
/// control word) of registry indices 49, 64 and 72 along the path taken when K % 4 != 0 and
/// N % 4 != 0: 2.26 cycles per instruction on those paths against 1.09 in index 64's interior
/// K loop; the per-path counts: docs/model.md#unaligned-copy-paths.
inline constexpr double kUnalignedCopyStallCycles = 2.26 - 1.09;

/// A warp's own stall cycles per instruction (block_issue_cycles_per_instruction's s):
///   kWarpOwnStallCyclesPerInstruction + kUnalignedCopyStallCycles * u / instructions,
/// u = anatomy.unaligned_copy_instructions, instructions = anatomy.instructions() +
/// extra_instructions (spill accesses). Aligned rows: 0.56. Checked against Nsight Compute on
/// the training cases at 2049^3, see docs/model.md#unaligned-copy-paths.
double warp_own_stall_cycles(const KernelAnatomy& anatomy, double extra_instructions = 0);

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

/// Whether the spilled values include accumulators: spills present and the accumulators plus
/// one k's fragments (outputs_per_thread + a_fragment + b_fragment) exceed the registers. A
/// spilled accumulator is reloaded and stored at every k (each FFMA updates it), not once per
/// tile. Motivated by a measured spilling config, see docs/model.md#spills.
bool accumulators_spill(const KernelAnatomy& anatomy, int registers_per_thread,
                        double spill_bytes_per_thread);

/// Local loads plus stores per thread per K tile: 2 * spilled words, times k_tile when
/// accumulators spill.
double spill_accesses_per_tile(double spilled_words, int k_tile, bool accumulators_spilled);

/// Share of local (spill) accesses that miss L1 and reach L2: the SM's local footprint
/// (bytes per thread * threads * resident blocks) beyond the L1 bytes that shared memory leaves
/// (configurable shared capacity minus what the resident blocks use; the unified L1 is at least
/// that large): clamp(1 - l1_left / footprint, 0, 1); 0 without spills.
double spill_l2_fraction(double local_bytes_per_sm, double l1_bytes_left);

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
///                   with prefetch), epilogue = C-store issue;
///                   rungs 2-7 (a barrier per tile, no prefetch) instead take per K tile
///                   max(round_issue, tile_issue) + G * L_global + transfer + overhead
///                   (G = serial_load_groups: rungs 5-6 wait for A's round trip, then B's;
///                   docs/model.md#serial-load-groups)
///                   (transfer: convoy_transfer_cycles of one block's tile); every tile also
///                   adds fragment_wait_cycles of the wave's B blocks (rung 4's k steps): the
///                   resident blocks issue interleaved, finish their compute together and wait for
///                   their next tiles together (a convoy), so the wait is not hidden behind the
///                   other blocks (measured rounds: docs/model.md#convoys)
///   l2            = the wave's share of L2 bytes / L2 bandwidth (0 without a ceiling)
///   dram          = the wave's share of DRAM bytes / DRAM bandwidth
///   spill         = the wave's spill bytes / L2 bandwidth (DRAM's when L2 has none)
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

// ---- fitting ----------------------------------------------------------------------------------

/// One measured case for the fit: its uncalibrated terms (Prediction::terms) and its time.
struct FitSample {
  std::string name;
  PredictionTerms terms;
  double measured_time_s = 0;
};

/// The parameters fit_calibration estimates, in this order.
inline constexpr int kFittedParameterCount = 6;
/// "issue_scale", "shared_memory_scale", "latency_scale", "l2_scale", "dram_scale",
/// "launch_overhead_s".
std::string_view fitted_parameter_name(int index);

struct FitCase {
  std::string name;
  bool training = false;
  double measured_time_s = 0;
  double predicted_time_s = 0;
  double error_percent = 0;  // 100 * (predicted - measured) / measured
};

struct FitResult {
  Calibration calibration;
  /// Which parameters the training data determined; the others keep their default (fewer than
  /// two training cases are bound by their term).
  std::array<bool, kFittedParameterCount> fitted{};
  double training_mape_percent = 0;
  std::optional<double> held_out_mape_percent;  // empty when every case trained
  int training_cases = 0;
  int held_out_cases = 0;
  int iterations = 0;
  std::vector<FitCase> cases;  // every sample, in input order
};

/// Fits the scales and the launch overhead to the training samples (those whose name is in
/// `training_names`) by least squares on the relative error:
///   minimise sum_i ((compose_time_s(terms_i, p) - t_i) / t_i)^2.
/// compose_time_s is linear in p once each wave's binding term is fixed, so the fit
/// alternates: fix the binding terms under the current p, solve the weighted linear least
/// squares (Eigen, column-pivoting QR) for the scales of the terms that bind at least two
/// training cases (one case alone would fix its term's scale to reproduce that case exactly:
/// docs/model.md#calibration-and-the-fit) and the overhead, keep scales positive and the
/// overhead >= 0, repeat until the binding terms stop changing; from several starts, keeping
/// the best. Reports MAPE on the training and the held-out samples. Throws
/// std::invalid_argument when a training name is not among the samples, a name repeats, no
/// case trains, or a measured time is not positive.
FitResult fit_calibration(const std::vector<FitSample>& samples,
                          const std::vector<std::string>& training_names);

// ---- accuracy statistics ----------------------------------------------------------------------

/// Mean absolute percentage error, percent: 100 / n * sum |predicted_i - measured_i| /
/// measured_i. NaN for n = 0. Throws std::invalid_argument for different lengths or a
/// measured value that is not positive.
double mean_absolute_percentage_error(const std::vector<double>& predicted,
                                      const std::vector<double>& measured);

/// Spearman's rank correlation: Pearson's correlation of the ranks (ties share their average
/// rank). NaN for n < 2 or when either side is constant. Throws std::invalid_argument for
/// different lengths.
double spearman_rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace roofcast
