// The main job's view: every rung's headline config (the kernel registry's Role::kLadder
// entries) predicted on every GPU of the database, registers estimated (nothing compiled).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "roofcast/gemm.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::views {

struct LadderPrediction {
  std::string kernel_id;
  int rung = 0;
  bool supported = false;  // the GPU's compute capability can run the rung
  Prediction prediction;   // filled when supported
};

struct LadderTable {
  gemm::Problem problem;
  std::vector<GpuSpec> gpus;
  std::vector<bool> calibrated;  // [gpu]: a committed calibration was applied (calibration_for_gpu)
  std::vector<std::vector<LadderPrediction>> rows;  // [gpu][headline config]
  std::vector<std::string> calibration_gpu;         // [gpu]: whose calibration; empty: none
};

/// Predicts each headline config on each GPU at `problem` (row-major raster for rungs 1-6,
/// grouped:8 for rungs 7-10), registers from the model's estimate, with the GPU's committed
/// calibration (data/calibration) when it has one and `use_stored_calibrations`.
LadderTable make_ladder_table(const std::vector<GpuSpec>& gpus, const gemm::Problem& problem,
                              bool use_stored_calibrations = true);
std::string ladder_table_text(const LadderTable& table);
nlohmann::json ladder_table_json(const LadderTable& table);
/// One row per GPU and headline config (csv.hpp); a rung the GPU cannot run leaves the
/// prediction's cells empty, a config that cannot launch says why in the last.
std::string ladder_table_csv(const LadderTable& table);

}  // namespace roofcast::views
