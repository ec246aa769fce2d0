// gpu_report_json: the same GpuReport as the Markdown, as JSON (for dashboards and scripts).
#include "roofcast/gemm_json.hpp"
#include "roofcast/views/accuracy_views.hpp"
#include "roofcast/views/report_views.hpp"
#include "roofcast/views/schema.hpp"

namespace roofcast::views {

namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& value) {
  return value ? json(*value) : json(nullptr);
}

/// A percentage as the rate it is of (0..1), as every rate of the schema is written.
json optional_rate(const std::optional<double>& percent) {
  return percent ? json(*percent / 100) : json(nullptr);
}

json run_json(const ReportRun& run) {
  return {{"path", run.path},
          {"what", run.what},
          {"tool", run.tool},
          {"revision", run.revision},
          {"date_utc", run.date_utc},
          {"gpu_name", run.gpu_name},
          {"driver", run.driver},
          {"cuda_runtime", run.cuda},
          {"cublas", run.cublas},
          {"cases", run.cases},
          {"ncu_cases", run.ncu_cases},
          {"sm_clock_rated_mhz", run.sm_clock_rated_MHz},
          {"sm_clock_min_mhz", optional_number(run.sm_clock_min_MHz)},
          {"sm_clock_max_mhz", optional_number(run.sm_clock_max_MHz)},
          {"memory_clock_mhz", run.memory_clock_MHz}};
}

json ceiling_json(const LevelCeiling& c) {
  return {{"datasheet", c.spec > 0 ? json(c.spec) : json(nullptr)},
          {"measured", optional_number(c.measured)},
          {"in_effect", c.value()}};
}

json ladder_row_json(const ReportLadderRow& row) {
  json out = {{"rung", row.rung}, {"kernel_id", row.kernel}, {"supported", row.supported}};
  if (!row.supported) return out;
  const Prediction& p = row.prediction;
  json stalls = json::object();
  for (const auto& [reason, cycles] : row.top_stalls) stalls[reason] = cycles;
  out.update({{"raster", gemm::to_string(row.raster)},
              {"training", row.training},
              {"measured_tflops", optional_number(row.measured_TFLOPS)},
              {"predicted_tflops", p.tflops},
              {"predicted_with_transferred_scales_tflops", optional_number(row.transferred_TFLOPS)},
              {"blocks_per_sm", p.occupancy.blocks_per_sm},
              {"runtime_blocks_per_sm",
               row.runtime_blocks_per_sm ? json(*row.runtime_blocks_per_sm) : json(nullptr)},
              {"occupancy", p.occupancy.occupancy},
              {"limiters", schema::limiters(p.occupancy.limiters)},
              {"registers_per_thread", p.registers_per_thread},
              {"registers_estimated", p.registers_estimated},
              {"shared_memory_bytes", p.shared_memory_bytes},
              {"grid_blocks", p.waves.grid_blocks},
              {"blocks_per_wave", p.waves.blocks_per_wave},
              {"tail_efficiency", p.waves.tail_efficiency},
              {"measured_l2_sector_hit_rate", optional_rate(row.measured_l2_hit_pct)},
              {"l2_operand_hit_rate", p.l2.hit_rate},
              {"l2_sector_hit_rate", p.l2_sector_hit_rate},
              {"binding_roofline_level", std::string(to_string(p.roofline.binding))},
              {"binding_term", std::string(to_string(p.binding))},
              {"largest_stalls", stalls}});
  return out;
}

}  // namespace

nlohmann::json gpu_report_json(const GpuReport& r) {
  json out = schema::document("report");
  out["gpu"] = schema::gpu(r.gpu);
  out["validated"] = r.validated;
  out["model_sources_sha256"] = r.model_digest;
  if (r.calibration) {
    out["calibration"] = {{"file", r.calibration_path},
                          {"measurement_revision", r.calibration->measurement_revision},
                          {"training_split", r.calibration->training_split},
                          {"parameters", schema::calibration(r.calibration->parameters)}};
  } else {
    out["calibration"] = nullptr;
  }
  if (r.transferred_calibration) {
    out["transferred_calibration"] = {
        {"gpu_id", r.transferred_calibration->gpu_id},
        {"parameters", schema::calibration(r.transferred_calibration->parameters)}};
  }
  out["runs"] = json::array();
  for (const ReportRun& run : r.runs) out["runs"].push_back(run_json(run));
  out["earlier_runs"] = json::array();
  for (const EarlierRun& e : r.earlier_runs) {
    out["earlier_runs"].push_back({{"run", run_json(e.run)},
                                   {"common_cases", e.common_cases},
                                   {"median_abs_difference_pct", e.median_abs_difference_pct},
                                   {"p90_abs_difference_pct", e.p90_abs_difference_pct},
                                   {"max_abs_difference_pct", e.max_abs_difference_pct},
                                   {"model_mape_pct", e.model_mape_pct},
                                   {"predicted_cases", e.predicted_cases}});
  }
  if (r.occupancy_agreement) {
    out["occupancy_runtime"] = {{"answers_and_launches", r.occupancy_agreement->first},
                                {"mismatches", r.occupancy_agreement->second}};
  }
  const Ceilings& c = r.roofline.ceilings;
  out["ceilings"] = {{"ffma_tflops", ceiling_json(c.ffma_TFLOPS)},
                     {"shared_memory_gbps", ceiling_json(c.shared_memory_GBps)},
                     {"l2_gbps", ceiling_json(c.l2_GBps)},
                     {"dram_gbps", ceiling_json(c.dram_GBps)}};
  out["ladder"] = {{"problem", gemm::problem_json(r.problem)},
                   {"cublas_tflops", optional_number(r.cublas_TFLOPS)},
                   {"rows", json::array()}};
  for (const ReportLadderRow& row : r.ladder) out["ladder"]["rows"].push_back(ladder_row_json(row));
  out["tile_sweeps"] = json::array();
  for (const TileCurve& curve : r.tile_curves) {
    json tiles = json::array();
    for (const TilePoint& t : curve.tiles) {
      tiles.push_back({{"bm", t.bm},
                       {"bn", t.bn},
                       {"measured_best_tflops", optional_number(t.measured_best_TFLOPS)},
                       {"measured_best_kernel", t.measured_best_kernel},
                       {"predicted_best_tflops", t.predicted_best_TFLOPS},
                       {"predicted_best_kernel", t.predicted_best_kernel}});
    }
    out["tile_sweeps"].push_back(
        {{"problem", gemm::problem_json(curve.problem)}, {"tiles", tiles}});
  }
  out["l2_by_raster"] = json::array();
  for (const L2RasterRow& row : r.l2_raster) {
    out["l2_by_raster"].push_back(
        {{"rung", row.rung},
         {"kernel_id", row.kernel},
         {"problem", gemm::problem_json(row.problem)},
         {"raster", gemm::to_string(row.raster)},
         {"measured_l2_sector_hit_rate", optional_rate(row.measured_pct)},
         {"l2_sector_hit_rate", row.predicted_pct / 100},
         {"published_formula_l2_sector_hit_rate", row.published_pct / 100}});
  }
  if (r.accuracy) {
    out["errors"] = accuracy_json(*r.accuracy);  // the `roofcast accuracy --json` view
  } else {
    out["errors"] = nullptr;
  }
  // A measured GPU without its own calibration: the same view with the transferred one
  // (`roofcast accuracy --calibration-of`).
  out["errors_with_transferred_calibration"] =
      r.transferred_accuracy ? accuracy_json(*r.transferred_accuracy) : json();
  out["published_checks"] = json::array();
  for (const PublishedCheck& check : r.published_checks) {
    json rows = json::array();
    for (const PublishedCheckRow& row : check.rows) {
      rows.push_back({{"step", row.step},
                      {"rung", row.rung},
                      {"kernel", row.kernel},
                      {"kernel_source", row.authors_tiles ? "authors_tiles" : "rung_headline"},
                      {"kernel_note", row.authors_tiles ? json(row.kernel_note) : json()},
                      {"published_tflops", row.published_TFLOPS},
                      {"predicted_tflops", optional_number(row.predicted_TFLOPS)},
                      {"transferred_tflops", optional_number(row.transferred_TFLOPS)}});
    }
    out["published_checks"].push_back(
        {{"ladder", check.ladder_id},
         {"problem", gemm::problem_json(check.problem)},
         {"rows", rows},
         {"mape_percent", optional_number(check.mape_percent)},
         {"transferred_mape_percent", optional_number(check.transferred_mape_percent)}});
  }
  out["published_ladders"] = json::array();
  for (const PublishedLadder& l : r.published) {
    out["published_ladders"].push_back({{"id", l.id}, {"gpu_name", l.gpu}, {"url", l.url}});
  }
  return out;
}

}  // namespace roofcast::views
