// Ranking for tuners: predict every candidate of a space for one problem, drop the ones a
// pruning rule rejects, and return the rest fastest first, each with the reasons for its
// predicted time (occupancy and its limiter, waves and tail, L2 hit rate, binding time term
// and roofline level, registers and spills).
//
// Cost: one prediction per candidate, the config's kernel anatomy (bank-conflict and
// coalescing analysis) computed once per distinct tile config in the list (the raster orders
// of a config share it); with `top` set only the kept ones are explained. tune/bench
// (rank_bench) measures the rate.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/space.hpp"

namespace roofcast::tune {

/// Why a candidate was dropped.
enum class PruneReason : int {
  kNotLaunchable = 0,  // no block fits an SM (registers, shared memory, threads): occupancy 0,
                       // or the GPU cannot run the kernel (kernels::not_runnable_reason)
  kSpills = 1,         // registers (estimated or given) above what ptxas may allocate
  kLowOccupancy = 2,   // active warps / max warps below PruneRules::min_occupancy
  kFewBlocks = 3,      // resident blocks per SM below PruneRules::min_blocks_per_sm
  kPredicate = 4,      // PruneRules::drop returned true
};
inline constexpr int kPruneReasonCount = 5;

/// "not_launchable", "spills", "low_occupancy", "few_blocks", "predicate".
std::string_view to_string(PruneReason reason);

/// What to drop before ranking. A candidate that cannot launch is always dropped (it has no
/// time); the rest are opt-in. Rules are checked in PruneReason order; the first that applies
/// is recorded.
struct PruneRules {
  bool drop_spilling = false;
  double min_occupancy = 0;   // 0..1
  int min_blocks_per_sm = 0;  // >= 0
  /// Any rule of the caller's: true drops the candidate. Sees the full prediction.
  std::function<bool(const Candidate&, const Prediction&)> drop;
};

/// The parts of a prediction that explain a rank, small enough to keep for every candidate.
struct Explanation {
  int registers_per_thread = 0;
  bool registers_estimated = false;  // estimate_registers, not ptxas
  double spill_bytes_per_thread = 0;
  int shared_memory_bytes = 0;
  int threads = 0;
  int blocks_per_sm = 0;
  unsigned occupancy_limiters = 0;  // Limiter bits (limiter_names)
  double occupancy = 0;             // active warps / max warps
  std::int64_t grid_blocks = 0;
  std::int64_t waves = 0;
  double tail_efficiency = 0;      // grid / (waves * blocks per wave)
  double l2_operand_hit_rate = 0;  // operand loads under the raster order
  double l2_sector_hit_rate = 0;   // every L2 sector (C and spills too), as ncu counts
  TimeTerm binding_term = TimeTerm::kIssue;
  RooflineLevel binding_level = RooflineLevel::kCompute;
  double roofline_TFLOPS = 0;  // attainable by the hierarchical roofline
};

/// Fills an Explanation from a launchable prediction.
Explanation explain(const Prediction& prediction);

struct Ranked {
  std::size_t index = 0;  // position in the candidate list given to rank()
  Candidate candidate;
  double time_s = 0;
  double tflops = 0;
  Explanation why;
  /// The same predicted time as the entry before it, to the last bit: the model cannot tell
  /// the two apart and the tie rule (Ranking::ranked) ordered them. False for the first entry.
  bool tied_with_previous = false;
};

struct Pruned {
  std::size_t index = 0;
  PruneReason reason = PruneReason::kNotLaunchable;
};

struct RankOptions {
  /// Empty: the GPU's committed calibration (embedded_calibration) when there is one, else
  /// the uncalibrated model.
  std::optional<Calibration> calibration;
  PruneRules prune;
  /// Keep the `top` fastest (0: every kept candidate).
  std::size_t top = 0;
  /// Record each pruned candidate's index and reason in Ranking::pruned (the counts are kept
  /// either way).
  bool list_pruned = true;
  bool c_is_read = false;  // beta != 0
  /// Keep only each tile config's fastest raster order, the simplest on a tie (the others are
  /// counted in Ranking::other_rasters): a top-N list of N different kernels.
  bool best_raster_only = false;
};

struct Ranking {
  std::string gpu_id;
  gemm::Problem problem;
  Calibration calibration;
  bool calibrated = false;
  std::size_t candidates = 0;
  /// Fastest first, so times never decrease down the list. Ties (the same predicted time to the
  /// last bit, e.g. one tile with 2, 3 or 4 stages when more stages hide no more latency;
  /// Ranked::tied_with_previous marks them) are broken by fewer resources first: fewer
  /// shared-memory bytes per block, then fewer threads, then fewer stages, then the kernel id
  /// (kernels::kernel_id, byte order) as the last key between configs; the raster orders of one
  /// config go row_major, column_major, grouped by ascending G, z_order, then fewer given registers
  /// and spill bytes. The order of the candidate list never decides (only between candidates
  /// equal in every field), so any order of the same candidates ranks alike.
  std::vector<Ranked> ranked;
  std::vector<Pruned> pruned;  // in candidate order
  std::array<std::size_t, kPruneReasonCount> pruned_by_reason{};
  /// Candidates that survived pruning (ranked.size() without `top`), after best_raster_only.
  std::size_t kept = 0;
  /// With best_raster_only: survivors dropped for a faster raster order of the same config.
  /// candidates = kept + other_rasters + every pruned_by_reason.
  std::size_t other_rasters = 0;
};

/// The calibration rank() uses when RankOptions::calibration is empty.
Calibration default_calibration(const GpuSpec& gpu, bool* calibrated = nullptr);

/// The prediction input of a candidate: shared memory from the kernels' formula, the
/// __launch_bounds__ minimum, registers when the candidate carries them.
PredictInput predict_input(const Candidate& candidate, const gemm::Problem& problem,
                           bool c_is_read = false);

/// Ranks `candidates` for `problem` on `gpu`. Throws std::invalid_argument for a problem with
/// M, N or K < 1, min_occupancy outside 0..1, a negative min_blocks_per_sm, or a candidate that
/// breaks a tile rule (the message names its index and the rule).
Ranking rank(const GpuSpec& gpu, const gemm::Problem& problem,
             const std::vector<Candidate>& candidates, const RankOptions& options = {});

}  // namespace roofcast::tune
