// The selection experiment: for each measured shape, which config would a tuner pick from the
// registered kernels, and how fast is it against the measured best? roofcast's ranking (the
// tuner API, tune::rank) against three baselines (tune::Selector): highest occupancy, largest
// tile, and Triton's former formula. Read from a `roofcast-validate --selection` measurement.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/baselines.hpp"
#include "roofcast/validation/ladder_measurements.hpp"

namespace roofcast::validation {

/// Where the ranking's registers come from.
enum class RegisterSource : int {
  kEstimated = 0,  // estimate_registers: what a tuner knows before compiling (the headline)
  kPtxas = 1,      // the compiled kernels' registers and spills, as the run recorded them
};

/// One selector on one shape.
struct SelectorOutcome {
  std::string top1_kernel;          // the selector's first choice
  double top1_TFLOPS = 0;           // its measured rate
  double top1_of_best = 0;          // measured best time / top-1's measured time (<= 1)
  double best_of_top5_of_best = 0;  // the same for the fastest measured of its first five
  /// Spearman correlation of the selector's order with the measured rates, over every measured
  /// config of the shape (rank 1 = the selector's first); empty for n < 2.
  std::optional<double> spearman;
};

struct ShapeSelection {
  gemm::Problem problem;
  int configs = 0;  // registered configs measured (passed and timed) at this shape
  /// Of those, how many were in the calibration's training split (the same kernel, shape and
  /// raster order trained in the ladder measurement the committed calibration was fitted on).
  int trained_configs = 0;
  std::string best_kernel;
  double best_TFLOPS = 0;
  std::optional<double> cublas_TFLOPS;
  std::array<SelectorOutcome, tune::kSelectorCount> selectors;  // by tune::Selector
  /// roofcast's predicted TFLOPS against the measured, per config (kernel id order).
  std::vector<std::string> kernels;
  std::vector<double> predicted_TFLOPS;
  std::vector<double> measured_TFLOPS;
};

struct SelectorSummary {
  double min_top1_of_best = 0;
  double mean_top1_of_best = 0;
  double min_best_of_top5_of_best = 0;
  double mean_spearman = 0;
  int shapes_top1_at_least_95 = 0;
  int shapes_top1_at_least_98 = 0;
  int shapes_top5_at_least_99 = 0;
};

struct SelectionReport {
  std::string spec_id;
  LadderContext context;             // the selection measurement's
  std::string calibration_revision;  // the measurement the calibration was fitted on
  RegisterSource registers = RegisterSource::kEstimated;
  std::vector<ShapeSelection> shapes;  // in measurement order
  std::array<SelectorSummary, tune::kSelectorCount> summary;
};

/// Evaluates every shape of the measurement's selection cases (set "selection", passed and
/// timed; the measured best is over those). roofcast ranks with `calibration`; `training`
/// (optional) is the measurement the calibration was fitted on, to count trained configs.
/// Throws std::invalid_argument when the measurement has no selection cases or names a
/// kernel that is not in this build's registry.
SelectionReport evaluate_selection(const GpuSpec& gpu, const LadderMeasurement& selection,
                                   const Calibration& calibration,
                                   const LadderMeasurement* training, RegisterSource registers);

}  // namespace roofcast::validation
