// Text and JSON views of the model's accuracy against a measurement (validation::ModelAccuracy).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "roofcast/validation/model_accuracy.hpp"

namespace roofcast::views {

/// Summary, per-rung table, sweep selection, L2 agreement; with `every_case`, one row per case.
std::string accuracy_text(const validation::ModelAccuracy& accuracy, bool every_case);
nlohmann::json accuracy_json(const validation::ModelAccuracy& accuracy);

}  // namespace roofcast::views
