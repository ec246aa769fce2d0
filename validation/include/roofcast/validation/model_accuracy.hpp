// How well the prediction model matches committed measurements: the calibration fit on a named
// training split, MAPE on training and held-out cases (overall and per rung), the worst cases,
// the tile sweep's rank correlation and top-1 selection, and the L2 hit-rate models against
// Nsight Compute. Host-only C++: CI recomputes it from data/measurements (no GPU).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "roofcast/l2.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/validation/ladder_measurements.hpp"

namespace roofcast::validation {

/// The training split, by name. Everything else is held out.
///   "square-pow2+sweep-train": the ladder set's square power-of-two sizes (M = N = K in
///   512..8192), every rung and raster order, and the training sweep (every config of rungs 4+
///   at 2048^3 and 512x2048x4096). Held out: the ladder's odd and non-square shapes and the
///   whole tile sweep at 4096^3 and 256x4096x4096 except cases identical to a training case.
inline constexpr const char* kTrainingSplit = "square-pow2+sweep-train";

/// Whether a case of `set` at `problem` is in the training split (the one definition: the
/// harness's default Nsight Compute subset profiles exactly these cases).
bool in_training_split(CaseSet set, const gemm::Problem& problem);
/// in_training_split(measured.set, measured.problem).
bool in_training_split(const MeasuredCase& measured);

/// The model's input for a measured registry kernel on a case: the recorded registers, shared
/// memory and local bytes, the kernel's launch-bound minimum blocks, beta = 0 (as timed).
PredictInput predict_input(const MeasuredKernel& kernel, const MeasuredCase& measured,
                           L2Model l2_model);

struct CaseAccuracy {
  std::string name;  // "<kernel id> <M>x<N>x<K> <raster>"
  std::string kernel;
  int rung = 0;
  CaseSet set = CaseSet::kLadder;
  gemm::Problem problem;
  gemm::RasterOrder raster;
  bool training = false;
  bool duplicate = false;  // a sweep case identical to a ladder case (scored once, as ladder)
  double measured_tflops = 0;
  double predicted_tflops = 0;     // calibrated
  double uncalibrated_tflops = 0;  // every scale 1
  double error_percent = 0;        // 100 * (predicted - measured) / measured, calibrated
  TimeTerm binding = TimeTerm::kIssue;
  Prediction prediction;  // calibrated
};

struct ErrorSummary {
  int cases = 0;
  double mape_percent = 0;  // NaN when no case
  double max_abs_error_percent = 0;
  std::string worst_case;
};

/// One problem shape of the tile sweep: measured and predicted TFLOPS of every config.
struct SweepShape {
  gemm::Problem problem;
  int configs = 0;
  double spearman = 0;
  std::string measured_best;  // kernel id
  double measured_best_tflops = 0;
  std::string predicted_best;                 // the model's top-ranked config
  double predicted_best_measured_tflops = 0;  // what that config measured
  double top1_fraction = 0;                   // predicted_best_measured / measured_best
  double best_of_top5_fraction = 0;
};

/// Measured against predicted L2 hit rate (Nsight Compute lts__t_sector_hit_rate.pct, every
/// L2 sector, against Prediction::l2_sector_hit_rate), percentage points. A measured rate above
/// 100% is not a probability (rung 10's cluster kernels: ncu counts more sector hits than
/// sector lookups, the bulk copies multicast to the cluster's SMs are looked up once and
/// delivered to each): such cases are listed in not_comparable, outside the mean and the worst.
struct L2Agreement {
  L2Model model = L2Model::kRoofcast;
  int cases = 0;  // comparable cases (rows)
  double mean_abs_error_pp = 0;
  double max_abs_error_pp = 0;
  std::string worst_case;
  struct Row {
    std::string name;
    double measured_pct = 0;
    double predicted_pct = 0;
  };
  std::vector<Row> rows;
  std::vector<Row> not_comparable;  // measured > 100%
};

/// Whether an Nsight Compute sector hit rate can be compared with a probability: 0..100%.
bool comparable_hit_rate(double measured_pct);

struct ModelAccuracy {
  std::string spec_id;
  std::string measurement_revision;
  std::string training_split = kTrainingSplit;
  FitResult fit;
  std::vector<CaseAccuracy> cases;  // every timed registry case, ladder then sweep
  ErrorSummary training;
  ErrorSummary held_out;
  ErrorSummary all;
  ErrorSummary uncalibrated_all;
  std::map<int, ErrorSummary> per_rung;  // every non-duplicate case of the rung
  std::vector<SweepShape> sweep;
  double sweep_spearman_all = 0;  // over every sweep case of every shape together
  std::vector<L2Agreement> l2;    // one per model
};

/// Evaluates the model on a measurement: predicts every passed registry case with each
/// measured kernel's resources, fits the calibration on the training split, and summarises.
/// Throws std::invalid_argument when the measurement has no timed registry case or names a
/// kernel that is not in this build's registry.
ModelAccuracy evaluate_model(const GpuSpec& gpu, const LadderMeasurement& measurement,
                             L2Model l2_model = L2Model::kRoofcast);

}  // namespace roofcast::validation
