// The selection experiment's inputs and its report, shared by `selection` and `report`.
#pragma once

#include <filesystem>
#include <string>

#include "output_files.hpp"
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
/// ranked with the GPU's committed calibration, registers estimated and from ptxas.
SelectionReports evaluate_selection_files(const GpuSpec& gpu,
                                          const views::SelectionSources& sources,
                                          const std::filesystem::path& root);

/// selection.md and its two figures, staged in `out` (committed by the caller).
void write_selection_report(const SelectionReports& reports, const views::SelectionSources& sources,
                            StagedFolder& out);

/// The selection report's inputs for `gpu`, as repository paths.
views::SelectionSources selection_sources(const std::string& gpu_id);

}  // namespace roofcast::cli
