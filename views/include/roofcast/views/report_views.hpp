// `roofcast report`: the validation report of one GPU (reports/<gpu>/README.md and its gnuplot
// figures), generated from the committed measurements (data/measurements/<gpu>/), the model and
// the published reference ladders (data/reference/). make_gpu_report fills one GpuReport; the
// Markdown and every figure render that struct and nothing else, so the output is a function of
// the repository's files (no clock, no host, no git call) and a CI test regenerates it exactly.
// A GPU without a committed ladder measurement gets a prediction-only report under a banner.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "roofcast/calibration.hpp"
#include "roofcast/gemm.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/validation/model_accuracy.hpp"
#include "roofcast/validation/selection.hpp"
#include "roofcast/views/report_data.hpp"
#include "roofcast/views/views.hpp"

namespace roofcast::views {

// ---- the report -----------------------------------------------------------------------------

/// One measurement run the report reads.
struct ReportRun {
  std::string path;  // repository path
  std::string what;  // "SGEMM ladder", "selection", "runtime occupancy"
  std::string revision;
  std::string date_utc;
  std::string gpu_name;
  std::string driver;
  std::string cuda;
  std::string cublas;
  std::string tool;
  int cases = 0;
  int ncu_cases = 0;
  std::optional<double> sm_clock_min_MHz;  // over every case's NVML reads, before and after
  std::optional<double> sm_clock_max_MHz;
  double sm_clock_rated_MHz = 0;
  double memory_clock_MHz = 0;
  std::string extra;  // repeats, rotation, ncu version: one sentence
};

/// An earlier ladder run kept under data/measurements/<gpu>/runs/: how its cases compare with the
/// current run's (the same kernel, set, shape and raster order), and how the current model
/// (committed calibration, no refit) predicts it.
struct EarlierRun {
  ReportRun run;
  int common_cases = 0;
  double median_abs_difference_pct = 0;  // |earlier / current - 1| of the measured TFLOPS
  double p90_abs_difference_pct = 0;
  double max_abs_difference_pct = 0;
  std::string max_difference_case;
  std::optional<double> cublas_TFLOPS;  // at the report's problem
  int predicted_cases = 0;
  double model_mape_pct = 0;
};

/// One headline config of the ladder at the report's problem.
struct ReportLadderRow {
  int rung = 0;
  std::string kernel;
  bool supported = true;  // the GPU's compute capability runs the rung
  gemm::RasterOrder raster;
  Prediction prediction;  // calibrated when the GPU has a calibration
  /// Prediction-only reports of an uncalibrated GPU: the same config predicted with another
  /// GPU's fitted scales (GpuReport::transferred_calibration).
  std::optional<double> transferred_TFLOPS;
  bool training = false;                  // the case is in the calibration's training split
  std::optional<double> measured_TFLOPS;  // of the median time
  /// The spread of the timed repeats: TFLOPS of the slowest and of the fastest launch.
  std::optional<double> measured_min_TFLOPS;
  std::optional<double> measured_max_TFLOPS;
  int measured_repeats = 0;
  std::optional<double> measured_l2_hit_pct;
  std::optional<double> measured_dram_bytes;  // read + write (Nsight Compute)
  std::optional<int> runtime_blocks_per_sm;
  std::vector<std::pair<std::string, double>> top_stalls;  // 3 largest, cycles per instruction
};

/// The headline configs over every ladder size: best raster order per rung and size.
struct SizeCell {
  std::optional<double> measured_TFLOPS;
  std::optional<double> predicted_TFLOPS;
};
struct LadderBySize {
  std::vector<gemm::Problem> problems;
  std::vector<std::string> kernels;
  std::vector<int> rungs;
  std::vector<std::vector<SizeCell>> cells;  // [kernel][problem]
  std::vector<std::optional<double>> cublas_TFLOPS;
};

/// One tile shape (BM x BN) of a tile sweep: the best config measured and predicted.
struct TilePoint {
  int bm = 0;
  int bn = 0;
  std::optional<double> measured_best_TFLOPS;
  std::string measured_best_kernel;
  double predicted_best_TFLOPS = 0;
  std::string predicted_best_kernel;
};
struct TileConfigPoint {
  int tile_index = 0;  // into TileCurve::tiles
  std::optional<double> measured_TFLOPS;
  double predicted_TFLOPS = 0;
};
struct TileCurve {
  gemm::Problem problem;
  std::vector<TilePoint> tiles;  // by BM * BN, then BM
  std::vector<TileConfigPoint> configs;
  std::optional<int> measured_optimum;  // index into tiles
  int predicted_optimum = 0;
};

/// L2 hit rate of a headline config under one raster order.
struct L2RasterRow {
  int rung = 0;
  std::string kernel;
  gemm::Problem problem;
  gemm::RasterOrder raster;
  std::optional<double> measured_pct;  // Nsight Compute lts__t_sector_hit_rate.pct
  double predicted_pct = 0;            // roofcast's L2 model, every sector
  double published_pct = 0;            // the published formula, every sector
  std::optional<double> measured_TFLOPS;
  double predicted_TFLOPS = 0;
};

/// Every case predicted against measured (the scatter plot).
struct ScatterPoint {
  double measured_TFLOPS = 0;
  double predicted_TFLOPS = 0;
  bool training = false;
};

/// A published ladder run on the report's GPU (PublishedLadder::gpu_spec), its steps predicted:
/// each step with a rate and a rung, against the roofcast config with the author's tiles
/// (PublishedStep::kernel) or else that rung's headline config, at the published shape (fastest
/// predicted raster order, registers estimated). A check of direction, never a fit.
struct PublishedCheckRow {
  std::string step;
  int rung = 0;
  std::string kernel;
  bool authors_tiles = false;  // `kernel` is the step's own config, not the rung's headline
  std::string kernel_note;     // with authors_tiles: how the author's kernel still differs
  double published_TFLOPS = 0;
  std::optional<double> predicted_TFLOPS;    // with the report's calibration (or none)
  std::optional<double> transferred_TFLOPS;  // with GpuReport::transferred_calibration
};
struct PublishedCheck {
  std::string ladder_id;
  std::string author;
  gemm::Problem problem;
  std::vector<PublishedCheckRow> rows;
  std::optional<double> mape_percent;  // over the rows predicted
  std::optional<double> transferred_mape_percent;
};

struct GpuReport {
  GpuSpec gpu;
  bool validated = false;  // a committed ladder measurement exists
  std::string model_digest;
  std::string gnuplot_version;
  std::optional<StoredCalibration> calibration;
  std::string calibration_path;
  /// For a GPU without a calibration of its own: the calibration of the measured GPU nearest in
  /// compute capability. Unmeasured: shown beside the uncalibrated prediction as a second
  /// estimate (never validated on this GPU); measured: transferred_accuracy.
  std::optional<StoredCalibration> transferred_calibration;
  /// A measured GPU without its own calibration: the accuracy of the transferred calibration on
  /// its measurements (nothing fitted on this GPU), beside the report's own fit.
  std::optional<validation::ModelAccuracy> transferred_accuracy;
  std::vector<ReportRun> runs;
  std::vector<EarlierRun> earlier_runs;                    // oldest first
  std::optional<std::pair<int, int>> occupancy_agreement;  // runtime answers + launches, mismatches
  RooflineReport roofline;
  Latencies latencies;
  std::map<std::string, std::string> microbenchmark_methods;
  gemm::Problem problem;  // of the ladder table: 4096^3
  std::vector<ReportLadderRow> ladder;
  std::optional<double> cublas_TFLOPS;
  LadderBySize by_size;
  std::vector<TileCurve> tile_curves;
  std::string occupancy_kernel;
  bool occupancy_registers_measured = false;
  std::vector<OccupancyReport> occupancy;  // registers, shared memory, threads
  std::vector<L2RasterRow> l2_raster;
  std::vector<ScatterPoint> scatter;
  std::optional<validation::ModelAccuracy> accuracy;
  std::optional<validation::SelectionReport> selection;
  std::vector<PublishedLadder> published;
  std::vector<PublishedCheck> published_checks;  // the ladders of `published` run on this GPU
  std::optional<RungNotes> notes;
};

/// Where the report's inputs are, relative to the repository root.
struct ReportPaths {
  std::string measurement;              // data/measurements/<id>/sgemm-ladder.json
  std::string selection;                // data/measurements/<id>/sgemm-selection.json
  std::string occupancy;                // data/measurements/<id>/occupancy-runtime.json
  std::string calibration;              // data/calibration/<id>.json
  std::string notes;                    // data/notes/<id>.json
  std::string runs;                     // data/measurements/<id>/runs: earlier runs, a folder each
  std::vector<std::string> references;  // data/reference/*.json, sorted
};
ReportPaths report_paths(const std::filesystem::path& root, const std::string& gpu_id);

/// Fills the report of `gpu` from the files under `root` (optional ones may be missing: no
/// measurement means a prediction-only report). `measurement`, when given, replaces
/// ReportPaths::measurement: a ladder run outside the repository (a fresh one in build/), read
/// as given and required to exist. Throws on a malformed or missing file, naming it.
GpuReport make_gpu_report(const GpuSpec& gpu, const std::filesystem::path& root,
                          const std::string& model_digest, const std::string& gnuplot_version,
                          const std::optional<std::string>& measurement = std::nullopt);

/// The figure files of a report, in the order gpu_report_figures returns their scripts.
struct ReportFigure {
  std::string file;    // e.g. "ladder.svg"
  std::string script;  // gnuplot, writing the SVG to standard output
};
std::vector<ReportFigure> gpu_report_figures(const GpuReport& report);

/// "4096³" for a cube, else "300×4096×4096" (Markdown and figures alike).
std::string problem_label(const gemm::Problem& problem);

/// The rung as the report labels it: "6 (padded)" / "6 (swizzled)" for rung 6's two headline
/// configs (`short_form`: "6p" / "6s"), the number otherwise.
std::string rung_label(int rung, const std::string& kernel, bool short_form = false);

/// README.md of reports/<gpu>/.
std::string gpu_report_markdown(const GpuReport& report);

/// The same report as JSON (schema_version 1): runs, ceilings, ladder rows, tile sweeps, L2 by
/// raster order, error summaries.
nlohmann::json gpu_report_json(const GpuReport& report);

}  // namespace roofcast::views
