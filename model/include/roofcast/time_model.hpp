// Time composition: the model's per-GPU calibration parameters, the time terms of one
// prediction (a full wave and the last wave) and how they compose into the predicted time.
// Formulas, units and sources here; the reasoning and the measurements behind the composition:
// docs/model.md#composition.
#pragma once

#include <array>
#include <string_view>

#include "roofcast/register_model.hpp"

namespace roofcast {

// ---- calibration ------------------------------------------------------------------------------

/// The model's global per-GPU parameters. Defaults (scales 1, shares and costs 0) mean
/// "uncalibrated": every term is taken at its face value and the data path overlaps issue
/// completely. Each scale multiplies one time term (see TimeTerm); none is per rung or per
/// size. fit_calibration() fits the first six by least squares and contention_share by a grid
/// search around them, then all of them by a Nelder-Mead search on the training MAPE
/// (docs/model.md#calibration-and-the-fit).
struct Calibration {
  double issue_scale = 1;  // x issue time: register-bank conflicts, dual-issue limits
  /// Weight of the L1/shared data-path time in the issue group's norm (issue_group_s): 0 the
  /// data path overlaps issue completely (the roofline's max), 1 their norm, which slows the two
  /// as they near balance, as the measured wave times do. A calibration holds it at 1;
  /// fit_calibration does not fit it.
  double shared_memory_scale = 0;
  double latency_scale = 1;      // x latency-bound time (exposed latency, barriers)
  double l2_scale = 1;           // x L2 bandwidth time
  double dram_scale = 1;         // x DRAM bandwidth time
  double launch_overhead_s = 0;  // + once per kernel: launch and drain
  /// Share of the memory terms that do not bind a wave (L1/shared data path, L2, DRAM, spill)
  /// that adds to the binding one: the contention of the wave's other traffic for the same
  /// pipes and queues (0: the terms overlap completely, the roofline's max).
  double contention_share = 0;
  /// Effective share of the L2 capacity in the roofcast L2 model (set by hand from measured hit
  /// rates; not part of the least-squares fit).
  double l2_capacity_fraction = 1;
  /// Registers of configs ptxas has not counted (fit_register_model; unfitted by default).
  RegisterModel registers;

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

/// The scale Calibration applies to a term (shared memory and spill: 1; shared_memory_scale is
/// the data path's weight in the issue group of compose_time_s, not a scale of the term).
double term_scale(const Calibration& calibration, TimeTerm term);

/// The issue group of a wave, seconds: sqrt(scaled_issue_s^2 + weighted_data_path_s^2). Issue
/// and the L1/shared data path are separate pipes that overlap: the group is about the larger
/// of the two while one dominates and sqrt(2) x either at balance, as measured wave times are
/// (1.0 x the larger below a ratio of 0.8, 1.25 x near 1: docs/model.md#composition).
double issue_group_s(double scaled_issue_s, double weighted_data_path_s);

/// Predicted time, seconds:
///   full_waves * wave(full_wave) + wave(last_wave) + launch_overhead_s,
///   wave(t) = binding(t) + contention_share * (the memory terms other than the binding one),
///   binding(t) = max(issue_group_s(issue_scale * t.issue, shared_memory_scale * t.shared_memory),
///                    t.shared_memory, latency_scale * t.latency, l2_scale * t.l2,
///                    dram_scale * t.dram, t.spill),
///   memory terms: t.shared_memory (already in the issue group when that binds), l2_scale *
///   t.l2, dram_scale * t.dram, t.spill.
/// Within a wave the terms overlap (each is a throughput or a latency chain of the same
/// work), so the largest one is the wave's time, plus the share of the other traffic that
/// queues in front of it; waves run one after another. The L1/shared
/// data path is its own unit (shared-memory wavefronts per cycle per SM, its ceiling the spec's
/// or the measured bandwidth) and overlaps issue: uncalibrated (shared_memory_scale 0) the
/// roofline's max, calibrated (1) the norm of the two; docs/model.md#composition.
double compose_time_s(const PredictionTerms& terms, const Calibration& calibration);

/// Each term over the whole launch, calibrated: full_waves * scale * full + scale * last.
TimeTerms total_terms(const PredictionTerms& terms, const Calibration& calibration);

/// The term with the largest total (the first on ties).
TimeTerm binding_term(const TimeTerms& totals);

}  // namespace roofcast
