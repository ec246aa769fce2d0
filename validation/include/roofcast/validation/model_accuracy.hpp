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

/// The training split, by name: the one split of tune::case_held_out (docs/sample.md#split). A
/// case is held out when its config (FNV-1a of the kernel id mod 4) or its shape (FNV-1a of
/// "MxNxK" mod 4) is held out; every other case of every committed measurement (ladder, sweeps,
/// sample) is a training case. Fixed before any fit.
inline constexpr const char* kTrainingSplit = "case_held_out: config or shape FNV-1a mod 4";

/// Whether the case of `config` at `problem` is a training case (not tune::case_held_out).
bool in_training_split(const gemm::TileConfig& config, const gemm::Problem& problem);

/// The model's input for a measured kernel on a case: the recorded registers, shared memory and
/// local bytes (or, with estimate_registers, none of the three: the model estimates registers and
/// spills as for a config never compiled, and computes shared memory from the tile rules), the
/// kernel's launch-bound minimum blocks, beta = 0 (as timed).
PredictInput predict_input(const MeasuredKernel& kernel, const MeasuredCase& measured,
                           L2Model l2_model, bool estimate_registers = false);

struct CaseAccuracy {
  std::string name;  // "<kernel id> <M>x<N>x<K> <raster>"
  std::string kernel;
  int rung = 0;
  CaseSet set = CaseSet::kLadder;
  gemm::Problem problem;
  gemm::RasterOrder raster;
  bool training = false;
  bool config_held_out = false;  // tune::config_held_out
  bool shape_held_out = false;   // tune::shape_held_out
  /// A case identical to an earlier one (a sweep case that is also a ladder case, a sample run's
  /// registry case that the ladder run measured too): scored once, as the first.
  bool duplicate = false;
  double measured_tflops = 0;
  double predicted_tflops = 0;     // calibrated
  double uncalibrated_tflops = 0;  // every scale 1
  double error_percent = 0;        // 100 * (predicted - measured) / measured, calibrated
  /// Calibrated, with registers and spills estimated (the config as never compiled); 0 when the
  /// model says that estimate cannot launch.
  double estimated_tflops = 0;
  TimeTerm binding = TimeTerm::kIssue;
  Prediction prediction;  // calibrated
};

struct ErrorSummary {
  int cases = 0;
  double mape_percent = 0;  // NaN when no case
  double max_abs_error_percent = 0;
  std::string worst_case;
};

/// One problem shape of the tile sweep or the sample: measured and predicted TFLOPS of every
/// config measured there (the sample: every sample config and the registry's rungs 4-10).
struct SweepShape {
  gemm::Problem problem;
  bool held_out = false;  // tune::shape_held_out
  int configs = 0;
  double spearman = 0;
  std::string measured_best;  // kernel id
  double measured_best_tflops = 0;
  std::string predicted_best;                 // the model's top-ranked config
  double predicted_best_measured_tflops = 0;  // what that config measured
  double top1_fraction = 0;                   // predicted_best_measured / measured_best
  double best_of_top5_fraction = 0;
  /// Pairs of distinct cases (config and raster) the model predicts in exactly the same time,
  /// and of those the pairs measured more than kTieMeasuredApart apart: the ties issue 15 asks
  /// the model not to make (it cannot rank what it cannot tell apart).
  int tied_pairs = 0;
  int tied_pairs_measured_apart = 0;
};

/// Two measured rates more than 2% apart (|a / b - 1| > 0.02): configs a tie hides.
inline constexpr double kTieMeasuredApart = 0.02;

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

/// The model's register estimate (Prediction::registers_per_thread with no count given, and its
/// spills) against ptxas's count (the measured kernel's registers_per_thread: the runtime reports
/// what ptxas allocated; spills: local_bytes > 0), per distinct measured kernel of rungs 4-10;
/// training and held-out by tune::config_held_out.
struct RegisterAccuracy {
  struct Row {
    std::string kernel;
    int rung = 0;
    bool training = false;
    int ptxas_registers = 0;
    int estimated_registers = 0;
    bool ptxas_spills = false;
    bool estimated_spills = false;
  };
  struct Summary {
    int configs = 0;
    double mean_abs_error = 0;  // registers; NaN when no config
    double mean_error = 0;      // estimated - ptxas, registers
    int max_abs_error = 0;
    std::string worst;
    double spills_correct = 0;  // fraction of configs whose spill-or-not is predicted right
  };
  std::vector<Row> rows;
  Summary training;
  Summary held_out;
};

/// Whether an Nsight Compute sector hit rate can be compared with a probability: 0..100%.
bool comparable_hit_rate(double measured_pct);

struct ModelAccuracy {
  std::string spec_id;
  std::string measurement_revision;
  std::string training_split = kTrainingSplit;
  FitResult fit;
  /// Set when the predictions took another GPU's committed calibration (transferred_calibration
  /// in evaluate_model) instead of fit.calibration: that GPU's id; fit still reports this
  /// measurement's own fit.
  std::string calibration_from;
  Calibration calibration_used;     // the calibration of every calibrated prediction below
  std::vector<CaseAccuracy> cases;  // every timed case: ladder, sweeps, then the sample
  ErrorSummary training;
  ErrorSummary held_out;
  ErrorSummary all;
  ErrorSummary uncalibrated_all;
  /// Held-out configs at held-out shapes (neither was fitted on): issue 15's headline.
  ErrorSummary held_out_both;
  /// The same cases with registers and spills estimated (estimated_tflops).
  ErrorSummary held_out_both_estimated;
  ErrorSummary held_out_estimated;
  /// The training cases with registers and spills estimated: what choices of the register
  /// model's mechanisms are judged on (the held-out figures above only report them).
  ErrorSummary training_estimated;
  std::map<int, ErrorSummary> per_rung;  // every non-duplicate case of the rung
  std::map<int, ErrorSummary> per_rung_held_out_both;
  std::vector<SweepShape> sweep;
  std::vector<SweepShape> sample;  // the sample set per shape (empty without a sample run)
  double sweep_spearman_all = 0;   // over every sweep case of every shape together
  std::vector<L2Agreement> l2;     // one per model
  RegisterAccuracy registers;
};

/// Evaluates the model on measurements of one GPU (the ladder run and the sample's parts):
/// predicts every passed case of a compiled kernel (registry or sample) with each measured
/// kernel's resources, fits the calibration on the training split, and summarises. A case met
/// again in a later measurement is a duplicate. Throws std::invalid_argument when there is no
/// timed case, or a case names a kernel that is not compiled in this build.
/// With transferred_calibration (and its GPU's id), every calibrated prediction takes that
/// calibration, register model included, instead of this measurement's fit: a GPU the
/// parameters were never fitted on (roofcast accuracy --calibration-of).
ModelAccuracy evaluate_model(const GpuSpec& gpu,
                             const std::vector<const LadderMeasurement*>& measurements,
                             L2Model l2_model = L2Model::kRoofcast,
                             const std::optional<Calibration>& transferred_calibration = {},
                             const std::string& transferred_from = {});
/// evaluate_model of one measurement.
ModelAccuracy evaluate_model(const GpuSpec& gpu, const LadderMeasurement& measurement,
                             L2Model l2_model = L2Model::kRoofcast);

}  // namespace roofcast::validation
