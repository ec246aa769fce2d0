// Views: render model results as text or JSON. The model fills the structs; views only print.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofcast/calibration.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/roofline.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::views {

/// printf into a std::string.
std::string format(const char* pattern, ...) __attribute__((format(printf, 1, 2)));

/// `text` as a gnuplot string literal that nothing inside can end or run: single-quoted (no
/// backslash escapes, no backquote command substitution), ' written as '', and every control
/// character (a newline would end the command) as '?'. Every text from an input file that
/// reaches a gnuplot script goes through this or gnuplot_datum.
std::string gnuplot_string(std::string_view text);

/// `text` as one quoted string column of an inline data block: "text" with double quotes
/// written as ' and control characters as '?' (a newline could end the block).
std::string gnuplot_datum(std::string_view text);

// ---- the shared style of every gnuplot figure ------------------------------------------------
// Every figure (report, selection, occupancy --svg) is drawn 900 px wide and shown by the
// Markdown at the page's width (no width attribute: about 830-900 px on a repository page), so
// one set of font sizes, set here, reads the same in all of them.

inline constexpr int kFigureWidth = 900;
/// Title, axis labels and tick labels (the terminal's font).
inline constexpr int kFigureFontSize = 15;
/// Keys and the labels drawn next to points and steps.
inline constexpr int kFigureSmallFontSize = 13;

/// "font 'sans,SIZE'": the figures' typeface at `size` points.
std::string figure_font(int size);

/// The first lines of every figure script: UTF-8, the SVG terminal at `width` x `height` in the
/// shared font, white background, output to standard output (no path is ever in a script), and
/// a comment "# figure title: TITLE" (control characters as '?').
/// The SVG's <title> is what the terminal's `name` says, and gnuplot 5.4 accepts only letters,
/// digits and '_' there (it also prefixes the plots' ids with it): the name is
/// figure_identifier(title), and the CLI, once gnuplot has drawn, puts the title itself in
/// <title> (with_figure_title).
std::string figure_header(int width, int height, std::string_view title);

/// `title` as a name gnuplot's svg terminal takes: ASCII letters and digits kept, every run of
/// anything else one '_', never empty, never starting with a digit.
std::string figure_identifier(std::string_view title);

/// The title figure_header wrote into `script`, if any.
std::optional<std::string> figure_title(std::string_view script);

/// `svg` (gnuplot's output) with the text of its first <title> element replaced by `title`,
/// XML-escaped.
std::string with_figure_title(std::string svg, std::string_view title);

/// `text` with &, <, >, " and ' written as XML entities.
std::string xml_escape(std::string_view text);

/// One occupancy question and its answer, with an optional sweep.
struct OccupancyReport {
  GpuSpec gpu;
  KernelLaunch launch;
  OccupancyResult result;
  std::optional<SweepAxis> sweep_axis;
  std::vector<SweepStep> sweep;
  /// With `occupancy --kernel ID`: the ladder config the launch is of (empty: a launch given
  /// by its resources), whether its registers are the model's estimate, and how they were found.
  std::string kernel_id;
  bool registers_estimated = false;
  std::vector<std::string> notes;
};

OccupancyReport make_occupancy_report(const GpuSpec& gpu, const KernelLaunch& launch,
                                      std::optional<SweepAxis> sweep_axis);

std::string occupancy_text(const OccupancyReport& report);

/// A gnuplot script (data inline) that draws the report's sweep as an occupancy staircase,
/// the operating point marked and each step labelled with its limiter, to `svg_path`.
/// Requires report.sweep_axis.
std::string staircase_gnuplot_script(const OccupancyReport& report);
nlohmann::json occupancy_json(const OccupancyReport& report);
/// The staircase as CSV (csv.hpp): one row per step. Requires report.sweep_axis.
std::string occupancy_sweep_csv(const OccupancyReport& report);

std::string gpus_text(const std::vector<GpuSpec>& gpus);
nlohmann::json gpus_json(const std::vector<GpuSpec>& gpus);
/// One row per GPU, the JSON's fields (bytes where the text shows MiB and KiB).
std::string gpus_csv(const std::vector<GpuSpec>& gpus);

/// A named kernel resource profile for the overview table.
struct KernelProfile {
  std::string name;
  KernelLaunch launch;
};

/// Resource profiles typical of the SGEMM ladder's rungs (illustrative, not measured).
const std::vector<KernelProfile>& representative_kernels();

struct OccupancyTable {
  std::vector<GpuSpec> gpus;
  std::vector<KernelProfile> kernels;
  std::vector<std::vector<OccupancyResult>> results;  // [gpu][kernel]
};

/// One prediction with what the CLI knows about the kernel (its registry id when it follows
/// the rules, and how the unspecified tile parameters were filled in).
struct PredictReport {
  GpuSpec gpu;
  PredictInput input;
  Prediction prediction;
  std::string kernel_id;           // kernels::kernel_id of the config
  std::string rung_name;           // kernels::rung_name
  bool in_registry = false;        // a compiled ladder kernel has exactly this config
  std::vector<std::string> notes;  // derived parameters, raster caveats
};

/// The report of a prediction already made: the kernel's id, rung name and registry membership,
/// and the notes a reader needs (raster orders the kernel does not launch, a compute capability
/// the GPU lacks, the calibration used). `notes` come first (e.g. derived tile parameters).
/// `stored`: the committed calibration the prediction used, or null (uncalibrated).
PredictReport predict_report_of(const GpuSpec& gpu, const PredictInput& input,
                                Prediction prediction, const StoredCalibration* stored,
                                std::vector<std::string> notes = {});

/// Predicts `input` on `gpu` (kernels::predict) with the GPU's committed calibration when
/// `calibrated` and one exists, and reports it (predict_report_of). The CLI's `predict` and
/// Python's roofcast.predict both come here, so both print the same document.
PredictReport make_predict_report(const GpuSpec& gpu, const PredictInput& input, bool calibrated,
                                  std::vector<std::string> notes = {});

std::string predict_text(const PredictReport& report);
/// The "prediction" document (docs/schema.md).
nlohmann::json predict_json(const PredictReport& report);

/// A GPU's roofline ceilings: the spec's, the measured ones, those in effect, ridge points.
struct RooflineReport {
  GpuSpec gpu;
  Ceilings ceilings;
  RidgePoints ridge;       // with the ceilings in effect
  RidgePoints spec_ridge;  // with the spec's alone
};

RooflineReport make_roofline_report(const GpuSpec& gpu);
std::string roofline_text(const RooflineReport& report);
nlohmann::json roofline_json(const RooflineReport& report);

OccupancyTable make_occupancy_table(const std::vector<GpuSpec>& gpus,
                                    const std::vector<KernelProfile>& kernels);
std::string occupancy_table_text(const OccupancyTable& table);
nlohmann::json occupancy_table_json(const OccupancyTable& table);
/// One row per GPU and kernel profile.
std::string occupancy_table_csv(const OccupancyTable& table);

}  // namespace roofcast::views
