// The report's hand-maintained inputs: published SGEMM ladders (data/reference/*.json) and a
// GPU's rung notes (data/notes/<gpu>.json), with strict loaders whose errors name the file and
// the field. Pure C++ and JSON: part of roofcast::views, tested on its own.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "roofcast/gemm.hpp"

namespace roofcast::views {

// ---- reference data: published ladders and notes ------------------------------------------

/// One step of a published ladder, numbers as published (either may be missing).
struct PublishedStep {
  std::string step;
  std::optional<int> maps_to_rung;  // the roofcast rung doing the same thing, if any
  /// The roofcast config with the author's tile parameters (`kernel`, a kernel id of rung
  /// maps_to_rung, registered or not), and how the author's kernel differs from it
  /// (`kernel_note`, required with it). Without it the report predicts the rung's headline.
  std::optional<gemm::TileConfig> kernel;
  std::string kernel_note;
  std::optional<double> gflops;
  std::optional<double> pct_of_cublas;      // a single figure
  std::optional<double> pct_of_cublas_min;  // or a range
  std::optional<double> pct_of_cublas_max;
};

struct PublishedLadder {
  std::string id;
  std::string title;
  std::string author;
  std::string url;
  std::string gpu;
  /// The roofcast spec id of that GPU (data/gpus/<id>.json) and the problem as M, N, K, when the
  /// source states both: its report then predicts the published steps on it.
  std::optional<std::string> gpu_spec;
  std::optional<gemm::Problem> shape;
  std::string problem;
  std::string baseline;
  std::optional<double> baseline_gflops;   // the baseline's rate in the same table
  std::optional<double> fp32_peak_TFLOPS;  // the GPU's FP32 peak (datasheet)
  std::string fp32_peak_source;            // how the peak was obtained
  std::vector<PublishedStep> steps;
  std::string note;
  std::string file;  // the repository path it was read from
};

/// A data file of the report that cannot be used. what() names the file and the field.
class ReportDataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Every ladder of a published-ladders file ({"schema_version": 1, "about", "ladders": [...]}).
/// `origin` names the file in errors. Throws ReportDataError.
std::vector<PublishedLadder> parse_published_ladders(const std::string& json_text,
                                                     const std::string& origin);

/// Hand-written notes on a GPU's ladder: why a rung differs from the published ladders, read off
/// the run's Nsight Compute data. Tied to the measurement revision they were written for.
struct RungNotes {
  std::string measurement_revision;
  std::string general;               // optional: shown above the comparison table
  std::map<int, std::string> rungs;  // rung -> note (Markdown)
  std::string file;
};

/// {"schema_version": 1, "gpu": ID, "measurement_revision": REV, "about", ["general",]
/// "rungs": [{"rung", "note"}]};
/// `gpu_id` must match. Throws ReportDataError.
RungNotes parse_rung_notes(const std::string& json_text, const std::string& origin,
                           const std::string& gpu_id);

}  // namespace roofcast::views
