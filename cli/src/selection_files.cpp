// The selection experiment's inputs and its report, shared by `selection` and `report`.
#include "selection_files.hpp"

#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "roofcast/calibration.hpp"
#include "roofcast/validation/ladder_measurements.hpp"

namespace roofcast::cli {

/// The selection experiment from the files `sources` names (repository paths under `root`),
/// ranked with the GPU's committed calibration, registers estimated and from ptxas.
SelectionReports evaluate_selection_files(const roofcast::GpuSpec& gpu,
                                          const roofcast::views::SelectionSources& sources,
                                          const std::filesystem::path& root,
                                          const roofcast::StoredCalibration* transferred) {
  const roofcast::StoredCalibration* stored =
      transferred != nullptr ? transferred : roofcast::embedded_calibration(gpu.id);
  if (stored == nullptr) {
    throw std::runtime_error("no committed calibration for " + gpu.id + " (" +
                             sources.calibration_path +
                             "): the selection experiment ranks with the calibrated model");
  }
  const auto selection =
      roofcast::validation::load_ladder_measurement(root / sources.measurement_path);
  // The trained cases are this GPU's training measurement's; a transferred calibration was
  // trained on none of this GPU's cases.
  std::optional<roofcast::validation::LadderMeasurement> training;
  if (transferred == nullptr) {
    training = roofcast::validation::load_ladder_measurement(root / sources.training_path);
  }
  const roofcast::validation::LadderMeasurement* trained = training ? &*training : nullptr;
  SelectionReports reports{
      roofcast::validation::evaluate_selection(gpu, selection, stored->parameters, trained,
                                               roofcast::validation::RegisterSource::kEstimated),
      roofcast::validation::evaluate_selection(gpu, selection, stored->parameters, trained,
                                               roofcast::validation::RegisterSource::kPtxas)};
  if (transferred != nullptr) {
    reports.estimated.calibration_revision = transferred->measurement_revision;
    reports.ptxas.calibration_revision = transferred->measurement_revision;
  }
  return reports;
}

/// selection.md and its two figures, staged in `out` (committed by the caller).
void write_selection_report(const SelectionReports& reports,
                            const roofcast::views::SelectionSources& sources,
                            roofcast::cli::StagedFolder& out) {
  const std::string top1 = "selection-top1.svg";
  const std::string scatter = "selection-predicted-vs-measured.svg";
  roofcast::cli::draw_with_gnuplot(roofcast::views::selection_top1_gnuplot(reports.estimated),
                                   out.file(top1));
  roofcast::cli::draw_with_gnuplot(roofcast::views::selection_scatter_gnuplot(reports.estimated),
                                   out.file(scatter));
  const std::filesystem::path md_path = out.file("selection.md");
  std::ofstream md(md_path);
  if (!(md << roofcast::views::selection_markdown(reports.estimated, reports.ptxas, sources, top1,
                                                  scatter))) {
    throw std::runtime_error("cannot write " + md_path.string());
  }
}

/// The selection report's inputs for `gpu`, as repository paths.
roofcast::views::SelectionSources selection_sources(
    const std::string& gpu_id, const roofcast::StoredCalibration* transferred) {
  roofcast::views::SelectionSources sources;
  const std::string dir = "data/measurements/" + gpu_id + "/";
  sources.measurement_path = dir + "sgemm-selection.json";
  sources.training_path = dir + "sgemm-ladder.json";
  sources.calibration_path = "data/calibration/" + gpu_id + ".json";
  if (transferred != nullptr) {
    sources.training_path = transferred->measurement;
    sources.calibration_path = "data/calibration/" + transferred->gpu_id + ".json";
    sources.calibration_of = transferred->gpu_id;
  }
  return sources;
}

}  // namespace roofcast::cli
