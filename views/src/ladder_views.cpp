#include "roofcast/views/ladder_views.hpp"

#include <cstdio>
#include <sstream>

#include "roofcast/gemm_json.hpp"
#include "roofcast/views/csv.hpp"
#include "roofcast/views/schema.hpp"

#include "roofcast/calibration.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"

namespace roofcast::views {

LadderTable make_ladder_table(const std::vector<GpuSpec>& gpus, const gemm::Problem& problem,
                              bool use_stored_calibrations) {
  LadderTable table{problem, gpus, {}, {}, {}};
  for (const GpuSpec& gpu : gpus) {
    Calibration calibration;
    const StoredCalibration* stored = use_stored_calibrations ? calibration_for_gpu(gpu) : nullptr;
    if (stored) calibration = stored->parameters;
    table.calibrated.push_back(stored != nullptr);
    table.calibration_gpu.push_back(stored ? stored->gpu_id : std::string());
    std::vector<LadderPrediction>& row = table.rows.emplace_back();
    const int cc = gpu.compute_capability.number();
    for (const kernels::RegistryEntry& entry : kernels::kRegistry) {
      if (entry.role != kernels::Role::kLadder) continue;
      LadderPrediction p;
      p.kernel_id = kernels::kernel_id(entry.config);
      p.rung = entry.config.rung;
      p.supported = cc >= kernels::minimum_compute_capability(entry.config);
      if (p.supported) {
        PredictInput in;
        in.problem = problem;
        in.config = entry.config;
        in.raster = kernels::takes_raster_order(entry.config)
                        ? gemm::RasterOrder{gemm::RasterKind::kGrouped, 8}
                        : gemm::RasterOrder{};
        in.shared_memory_bytes = kernels::shared_memory_bytes(entry.config);
        in.min_blocks_per_sm = kernels::launch_bounds_min_blocks(entry.config);
        p.prediction = kernels::predict(gpu, in, calibration);
      }
      row.push_back(std::move(p));
    }
  }
  return table;
}

std::string ladder_table_text(const LadderTable& table) {
  std::ostringstream out;
  char line[512];
  out << "SGEMM ladder, every rung's headline config at M=" << table.problem.m
      << " N=" << table.problem.n << " K=" << table.problem.k
      << " (registers estimated, nothing compiled; grouped:8 raster for rungs 7-10)\n";
  for (std::size_t g = 0; g < table.gpus.size(); ++g) {
    const GpuSpec& gpu = table.gpus[g];
    out << "\n"
        << gpu.name << " (" << gpu.id << "), "
        << (!table.calibrated[g] ? std::string("uncalibrated")
            : table.calibration_gpu[g] == gpu.id
                ? "calibrated (data/calibration/" + gpu.id + ".json)"
                : "calibrated with " + table.calibration_gpu[g] +
                      "'s global parameters (data/calibration/" + table.calibration_gpu[g] +
                      ".json; none of " + gpu.id + " is committed, never validated on it)")
        << "\n";
    std::snprintf(line, sizeof line, "  %-4s %-60s %5s %7s %-16s %6s %5s %6s %-13s %8s %6s\n",
                  "rung", "kernel", "regs", "blk/SM", "limited by", "waves", "tail", "L2 sec",
                  "bound by", "TFLOPS", "%peak");
    out << line;
    for (const LadderPrediction& p : table.rows[g]) {
      if (!p.supported) {
        std::snprintf(line, sizeof line, "  %-4d %-60s needs a newer GPU (compute capability)\n",
                      p.rung, p.kernel_id.c_str());
        out << line;
        continue;
      }
      const Prediction& r = p.prediction;
      if (!r.launchable) {
        std::snprintf(line, sizeof line, "  %-4d %-60s cannot launch: %s\n", p.rung,
                      p.kernel_id.c_str(), to_string(r.occupancy.failure).c_str());
        out << line;
        continue;
      }
      const double peak = r.ceilings.ffma_TFLOPS.value();
      std::snprintf(line, sizeof line,
                    "  %-4d %-60s %5d %7d %-16s %6lld %4.0f%% %5.1f%% %-13s %8.2f %5.1f%%\n",
                    p.rung, p.kernel_id.c_str(), r.registers_per_thread, r.occupancy.blocks_per_sm,
                    limiter_names(r.occupancy.limiters).c_str(),
                    static_cast<long long>(r.waves.waves), 100 * r.waves.tail_efficiency,
                    100 * r.l2_sector_hit_rate, std::string(to_string(r.binding)).c_str(), r.tflops,
                    100 * r.tflops / peak);
      out << line;
    }
  }
  return out.str();
}

nlohmann::json ladder_table_json(const LadderTable& table) {
  nlohmann::json j = schema::document("ladder_table");
  j["problem"] = gemm::problem_json(table.problem);
  j["registers"] = "estimated";
  j["gpus"] = nlohmann::json::array();
  for (std::size_t g = 0; g < table.gpus.size(); ++g) {
    nlohmann::json gpu = schema::gpu(table.gpus[g]);
    gpu["calibrated"] = static_cast<bool>(table.calibrated[g]);
    gpu["calibration_gpu_id"] = table.calibration_gpu[g].empty()
                                    ? nlohmann::json(nullptr)
                                    : nlohmann::json(table.calibration_gpu[g]);
    gpu["ladder"] = nlohmann::json::array();
    for (const LadderPrediction& p : table.rows[g]) {
      nlohmann::json row = {
          {"rung", p.rung}, {"kernel_id", p.kernel_id}, {"supported", p.supported}};
      if (p.supported) {
        const Prediction& r = p.prediction;
        row["launchable"] = r.launchable;
        if (r.launchable) {
          row["registers_per_thread"] = r.registers_per_thread;
          row["blocks_per_sm"] = r.occupancy.blocks_per_sm;
          row["limiters"] = schema::limiters(r.occupancy.limiters);
          row["waves"] = r.waves.waves;
          row["tail_efficiency"] = r.waves.tail_efficiency;
          row["l2_operand_hit_rate"] = r.l2.hit_rate;
          row["l2_sector_hit_rate"] = r.l2_sector_hit_rate;
          row["binding_term"] = to_string(r.binding);
          row["time_s"] = r.time_s;
          row["tflops"] = r.tflops;
        } else {
          row["cannot_launch_reason"] = r.not_runnable != nullptr
                                            ? std::string(r.not_runnable)
                                            : std::string(to_string(r.occupancy.failure));
          row["time_s"] = nullptr;
          row["tflops"] = nullptr;
        }
      }
      gpu["ladder"].push_back(row);
    }
    j["gpus"].push_back(gpu);
  }
  return j;
}

namespace {

/// The prediction's columns of the ladder CSV and their cells.
const std::vector<std::string> kPredictionColumns = {"registers_per_thread",
                                                     "blocks_per_sm",
                                                     "limiters",
                                                     "waves",
                                                     "tail_efficiency_percent",
                                                     "l2_operand_hit_percent",
                                                     "l2_sector_hit_percent",
                                                     "binding_term",
                                                     "time_s",
                                                     "tflops",
                                                     "percent_of_peak"};

std::vector<std::string> prediction_cells(const Prediction& r) {
  const double peak = r.ceilings.ffma_TFLOPS.value();
  return {csv::number(r.registers_per_thread),
          csv::number(r.occupancy.blocks_per_sm),
          limiter_names(r.occupancy.limiters),
          csv::number(r.waves.waves),
          csv::number(100 * r.waves.tail_efficiency),
          csv::number(100 * r.l2.hit_rate),
          csv::number(100 * r.l2_sector_hit_rate),
          std::string(to_string(r.binding)),
          csv::number(r.time_s),
          csv::number(r.tflops),
          csv::number(100 * r.tflops / peak)};
}

}  // namespace

std::string ladder_table_csv(const LadderTable& table) {
  std::vector<std::string> header = {"gpu_id",    "calibrated", "rung",
                                     "kernel_id", "supported",  "launchable"};
  header.insert(header.end(), kPredictionColumns.begin(), kPredictionColumns.end());
  header.push_back("cannot_launch_reason");
  csv::Table out(header);
  for (std::size_t g = 0; g < table.gpus.size(); ++g) {
    for (const LadderPrediction& p : table.rows[g]) {
      const Prediction& r = p.prediction;
      const bool launchable = p.supported && r.launchable;
      std::vector<std::string> row = {
          table.gpus[g].id,          csv::boolean(table.calibrated[g]),
          csv::number(p.rung),       p.kernel_id,
          csv::boolean(p.supported), p.supported ? csv::boolean(r.launchable) : ""};
      const std::vector<std::string> cells =
          launchable ? prediction_cells(r) : std::vector<std::string>(kPredictionColumns.size());
      row.insert(row.end(), cells.begin(), cells.end());
      row.push_back(!p.supported || r.launchable ? std::string()
                    : r.not_runnable != nullptr  ? std::string(r.not_runnable)
                                                 : std::string(to_string(r.occupancy.failure)));
      out.add(row);
    }
  }
  return out.str();
}

}  // namespace roofcast::views
