// The least-squares calibration fit of the model's global per-GPU parameters (Eigen,
// column-pivoting QR) on measured cases. Design: docs/model.md#calibration-and-the-fit.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofcast/register_model.hpp"
#include "roofcast/time_model.hpp"

namespace roofcast {

// ---- fitting ----------------------------------------------------------------------------------

/// One measured case for the fit: its uncalibrated terms (Prediction::terms) and its time.
struct FitSample {
  std::string name;
  PredictionTerms terms;
  double measured_time_s = 0;
};

/// The shares of the non-binding memory terms fit_calibration tries for contention_share.
inline constexpr std::array<double, 13> kContentionShareGrid{
    0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.175, 0.2, 0.25, 0.3, 0.4, 0.5};

/// The parameters fit_calibration estimates, in this order.
inline constexpr int kFittedParameterCount = 7;
/// "issue_scale", "shared_memory_scale", "latency_scale", "l2_scale", "dram_scale",
/// "launch_overhead_s", "contention_share".
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
/// `training_names`) for the lowest training MAPE of the rate, the metric of the accuracy goals:
///   minimise sum_i |t_i / compose_time_s(terms_i, p) - 1|.
/// compose_time_s is linear in p once each wave's binding term is fixed (the issue group's norm
/// linearised in issue_scale about the current p; shared_memory_scale is held at 1, not
/// fitted), so the fit alternates: fix the binding terms under the current p, solve a weighted
/// linear least squares whose weights make its objective the MAPE at the current p (iteratively
/// reweighted: fit.cpp, solve_given_bindings; Eigen, column-pivoting QR) for the scales of the
/// terms that bind at least two training cases (one case alone would fix its term's scale to
/// reproduce that case exactly: docs/model.md#calibration-and-the-fit) and the overhead, keep
/// scales positive and the overhead >= 0, repeat until the binding terms and the MAPE stop
/// changing; from several starts, keeping the best. contention_share enters the time non-linearly
/// (through which term binds): the fit above runs for each share of kContentionShareGrid and
/// keeps the lowest MAPE. The reweighting stops where the binding terms stop changing, which is
/// not in general the MAPE's minimum (a case whose binding term flips is a kink the linear solves
/// do not see), so a Nelder-Mead search on the training MAPE then starts from the best of the grid
/// over the fitted parameters and the contention share (continuous from there; fit.cpp, polish).
/// Reports MAPE on the training and the held-out samples. Throws
/// std::invalid_argument when a training name is not among the samples, a name repeats, no
/// case trains, or a measured time is not positive.
FitResult fit_calibration(const std::vector<FitSample>& samples,
                          const std::vector<std::string>& training_names);

// ---- the register model ---------------------------------------------------------------------

/// One compiled config for the register fit: its features, ptxas's count, the launch bound's
/// register cap (register_cap) and whether ptxas spilled.
struct RegisterSample {
  std::string name;
  RegisterFeatures features{};
  int ptxas_registers = 0;
  int cap = 255;
  bool spilled = false;
  // For the spill-words law: TM * TN, BK, whether the accumulators spill (accumulators_spill at
  // ptxas's count) and ptxas's local words per thread.
  int accumulators = 0;
  int k_tile = 0;
  bool accumulators_spilled = false;
  double local_words = 0;
};

/// Fits the register model on training configs: the intercept and coefficients by least squares
/// (Eigen, column-pivoting QR) on the configs ptxas compiled below their cap - 1 without
/// spilling, plus a one-sided squared term max(0, cap - 1 - estimate)^2 for the others (at the
/// cap the count says only "at least the cap": censored), then spill_margin as the smallest whole
/// number of registers in 0..64 that gets the most spill-or-not right over every training
/// config; the spill-words law (RegisterModel) by least squares in logs on the training configs
/// whose accumulators spill (left unfitted with fewer than 2 * 3 of them). Throws
/// std::invalid_argument with fewer uncensored configs than parameters.
RegisterModel fit_register_model(const std::vector<RegisterSample>& training);

}  // namespace roofcast
