// Committed calibrations: the global per-GPU parameters of the time model (Calibration in
// time_model.hpp), fitted by `roofcast accuracy --write-calibration` on a measurement's training
// split, stored as data/calibration/<gpu id>.json and embedded in the library. predict() takes
// a Calibration; the CLI applies a GPU's stored one unless told not to. How the fit works:
// docs/model.md#calibration-and-the-fit.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "roofcast/predict.hpp"
#include "roofcast/time_model.hpp"

namespace roofcast {

inline constexpr int kCalibrationSchemaVersion = 1;

/// One parameter of Calibration: its name in calibration files, reports and JSON output, its
/// member, whether a calibration file may hold 0 (else it must be positive), and what it does.
struct CalibrationParameter {
  std::string_view name;
  double Calibration::*field;
  bool zero_allowed;
  std::string_view meaning;
};

/// Every Calibration parameter, in the order of files and outputs. The first
/// kFittedParameterCount are the ones fit_calibration estimates, in its order.
inline constexpr std::array<CalibrationParameter, 8> kCalibrationParameters{{
    {"issue_scale", &Calibration::issue_scale, false, "x issue time"},
    {"shared_memory_scale", &Calibration::shared_memory_scale, true,
     "weight of the L1/shared data-path time in the issue group's norm (0: roofline max)"},
    {"latency_scale", &Calibration::latency_scale, false, "x latency-bound time"},
    {"l2_scale", &Calibration::l2_scale, false, "x L2 bandwidth time"},
    {"dram_scale", &Calibration::dram_scale, false, "x DRAM bandwidth time"},
    {"launch_overhead_s", &Calibration::launch_overhead_s, true, "+ once per kernel, seconds"},
    {"contention_share", &Calibration::contention_share, true,
     "share of the non-binding memory terms that adds to a wave's time"},
    {"l2_capacity_fraction", &Calibration::l2_capacity_fraction, false,
     "effective share of the L2 capacity (set by hand, not fitted)"},
}};
static_assert(kFittedParameterCount <= static_cast<int>(kCalibrationParameters.size()));

struct StoredCalibration {
  std::string gpu_id;                // data/gpus id
  std::string measurement;           // the measurement file it was fitted on (repository path)
  std::string measurement_revision;  // that measurement's git revision
  std::string training_split;        // e.g. "square-pow2"
  int training_cases = 0;
  int held_out_cases = 0;
  double training_mape_percent = 0;
  double held_out_mape_percent = 0;
  Calibration parameters;
};

/// Parses a calibration file; throws SpecError naming `origin`, the field and the expectation.
StoredCalibration parse_calibration(std::string_view json_text, std::string_view origin);

/// The file's text (2-space JSON, keys in a fixed order, 17 significant digits).
std::string calibration_json(const StoredCalibration& calibration);

/// The embedded calibration of a GPU id, or nullptr when none is committed. Parsed once; the
/// object lives as long as the program (a prediction asks on every call: no copy).
const StoredCalibration* embedded_calibration(std::string_view gpu_id);

/// The calibration a prediction on `gpu` takes: its own committed one, else the one of the
/// measured GPU nearest in compute capability (the first in database order on ties). The fitted
/// parameters are global, so they carry to a GPU never measured, where nothing validated them
/// (StoredCalibration::gpu_id names where they were fitted). nullptr when none is committed.
const StoredCalibration* calibration_for_gpu(const GpuSpec& gpu);

}  // namespace roofcast
