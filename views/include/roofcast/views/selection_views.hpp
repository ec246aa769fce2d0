// `roofcast selection`: the selection experiment (validation/selection.hpp) as text, JSON, and
// the Markdown report reports/<gpu>/selection.md with its gnuplot figures.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "roofcast/validation/selection.hpp"

namespace roofcast::views {

/// The report's inputs besides the evaluation: file paths as the repository names them.
struct SelectionSources {
  std::string measurement_path;
  std::string calibration_path;
  std::string training_path;
  std::string calibration_of;  // another GPU whose calibration ranks (--calibration-of), or empty
};

std::string selection_text(const validation::SelectionReport& estimated,
                           const validation::SelectionReport& ptxas);
nlohmann::json selection_json(const validation::SelectionReport& estimated,
                              const validation::SelectionReport& ptxas);

/// selection.md; `figures` are the SVG file names beside it (top-1 bars, predicted vs measured).
std::string selection_markdown(const validation::SelectionReport& estimated,
                               const validation::SelectionReport& ptxas,
                               const SelectionSources& sources, const std::string& top1_svg,
                               const std::string& scatter_svg);

/// gnuplot scripts writing the figures to standard output (the caller opens the file).
std::string selection_top1_gnuplot(const validation::SelectionReport& report);
std::string selection_scatter_gnuplot(const validation::SelectionReport& report);

}  // namespace roofcast::views
