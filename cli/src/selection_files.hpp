// The selection experiment's inputs and its report, shared by `selection` and `report`.
#pragma once

#include <filesystem>
#include <string>

#include "output_files.hpp"
#include "roofcast/calibration.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/validation/selection.hpp"
#include "roofcast/views/selection_views.hpp"

namespace roofcast::cli {

/// The selection experiment ranked with registers estimated and with ptxas's registers.
struct SelectionReports {
  validation::SelectionReport estimated;
  validation::SelectionReport ptxas;
};

/// The selection experiment from the files `sources` names (repository paths under `root`),
/// ranked with the GPU's committed calibration, registers estimated and from ptxas; with
/// `transferred`, another GPU's calibration instead (nothing of this GPU was trained on).
SelectionReports evaluate_selection_files(const GpuSpec& gpu,
                                          const views::SelectionSources& sources,
                                          const std::filesystem::path& root,
                                          const StoredCalibration* transferred = nullptr);

/// selection.md and its two figures, staged in `out` (committed by the caller).
void write_selection_report(const SelectionReports& reports, const views::SelectionSources& sources,
                            StagedFolder& out);

/// The selection report's inputs for `gpu`, as repository paths; with `transferred`, its
/// calibration file and the measurements it was fitted on.
views::SelectionSources selection_sources(const std::string& gpu_id,
                                          const StoredCalibration* transferred = nullptr);

}  // namespace roofcast::cli
