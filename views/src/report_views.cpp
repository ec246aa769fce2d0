// make_gpu_report: everything the report shows, computed once from the repository's files.
#include "roofcast/views/report_views.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "roofcast/json_input.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/tune/rank.hpp"
#include "roofcast/validation/runtime_occupancy.hpp"
#include "roofcast/validation/validate_plan.hpp"

namespace roofcast::views {

namespace {

namespace fs = std::filesystem;
using validation::CaseAccuracy;
using validation::LadderMeasurement;
using validation::MeasuredCase;

std::string read_text(const fs::path& path, const std::string& origin) {
  std::ifstream in(path);
  if (!in) throw ReportDataError(origin + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool same_problem(const gemm::Problem& a, const gemm::Problem& b) {
  return a.m == b.m && a.n == b.n && a.k == b.k;
}

const kernels::RegistryEntry* registry_entry(const std::string& id) {
  const std::size_t index = kernels::find_kernel(id);
  return index < kernels::kRegistrySize ? &kernels::kRegistry[index] : nullptr;
}

/// A registry config predicted with estimated registers (nothing compiled), as the tuner does.
Prediction predict_registered(const GpuSpec& gpu, const gemm::TileConfig& config,
                              const gemm::Problem& problem, const gemm::RasterOrder& raster,
                              const Calibration& calibration, L2Model l2_model) {
  PredictInput in = tune::predict_input(tune::Candidate{config, raster, std::nullopt, 0}, problem);
  in.l2_model = l2_model;
  return kernels::predict(gpu, in, calibration);
}

ReportRun ladder_run(const LadderMeasurement& m, const std::string& path, const std::string& what) {
  const validation::LadderContext& c = m.context;
  ReportRun run;
  run.path = path;
  run.what = what;
  run.revision = c.git_revision;
  run.date_utc = c.date_utc;
  run.gpu_name = c.gpu_name;
  run.driver = c.driver_version;
  run.cuda = c.cuda_runtime_version;
  run.cublas = c.cublas_version;
  run.tool = c.tool + " (" + c.mode + ")";
  run.sm_clock_rated_MHz = c.sm_clock_max_MHz;
  run.memory_clock_MHz = c.memory_clock_MHz;
  run.cases = static_cast<int>(m.cases.size());
  for (const MeasuredCase& mc : m.cases) {
    if (mc.ncu && !mc.ncu->error) ++run.ncu_cases;
    for (const auto& clock : {mc.sm_clock_MHz_before, mc.sm_clock_MHz_after}) {
      if (!clock) continue;
      run.sm_clock_min_MHz = std::min(run.sm_clock_min_MHz.value_or(*clock), *clock);
      run.sm_clock_max_MHz = std::max(run.sm_clock_max_MHz.value_or(*clock), *clock);
    }
  }
  run.extra = format("%d timed repeats (median) after %d warm-ups, inputs rotated over %.0f MiB",
                     c.repeats, c.warmups, c.rotation_min_bytes / 1048576.0);
  if (c.ncu_version) {
    run.extra += "; Nsight Compute " + *c.ncu_version + " (--clock-control none)";
  }
  return run;
}

/// The measured case behind an accuracy case.
const MeasuredCase* measured_case(const LadderMeasurement& m, const CaseAccuracy& c) {
  for (const MeasuredCase& mc : m.cases) {
    if (mc.kernel == c.kernel && mc.set == c.set && same_problem(mc.problem, c.problem) &&
        mc.raster && *mc.raster == c.raster) {
      return &mc;
    }
  }
  return nullptr;
}

std::vector<std::pair<std::string, double>> top_stalls(const validation::NcuMetrics& ncu) {
  std::vector<std::pair<std::string, double>> stalls;
  for (const auto& [reason, cycles] : ncu.stalls) {
    if (reason != "selected" && reason != "not_selected") stalls.emplace_back(reason, cycles);
  }
  std::stable_sort(stalls.begin(), stalls.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (stalls.size() > 3) stalls.resize(3);
  return stalls;
}

std::optional<double> cublas_at(const LadderMeasurement& m, const gemm::Problem& problem) {
  for (const MeasuredCase& mc : m.cases) {
    if (mc.kernel == validation::kCublasKernel && mc.set == validation::CaseSet::kLadder &&
        same_problem(mc.problem, problem) && mc.tflops) {
      return mc.tflops;
    }
  }
  return std::nullopt;
}

/// Headline kernels in registry order.
std::vector<const kernels::RegistryEntry*> headline_entries() {
  std::vector<const kernels::RegistryEntry*> out;
  for (const kernels::RegistryEntry& entry : kernels::kRegistry) {
    if (entry.role == kernels::Role::kLadder) out.push_back(&entry);
  }
  return out;
}

/// The ladder rows and the by-size table from the accuracy cases of a measurement.
void fill_measured_ladder(GpuReport& r, const LadderMeasurement& m,
                          const validation::ModelAccuracy& accuracy) {
  const auto headlines = headline_entries();
  for (const gemm::Problem& problem : validation::ladder_problems(false)) {
    bool present = false;
    for (const CaseAccuracy& c : accuracy.cases) {
      present =
          present || (c.set == validation::CaseSet::kLadder && same_problem(c.problem, problem));
    }
    if (present) r.by_size.problems.push_back(problem);
  }
  for (const gemm::Problem& problem : r.by_size.problems) {
    r.by_size.cublas_TFLOPS.push_back(cublas_at(m, problem));
  }
  for (const kernels::RegistryEntry* entry : headlines) {
    const std::string id = kernels::kernel_id(entry->config);
    r.by_size.kernels.push_back(id);
    r.by_size.rungs.push_back(entry->config.rung);
    std::vector<SizeCell>& cells = r.by_size.cells.emplace_back();
    for (const gemm::Problem& problem : r.by_size.problems) {
      const CaseAccuracy* best = nullptr;
      for (const CaseAccuracy& c : accuracy.cases) {
        if (c.kernel == id && c.set == validation::CaseSet::kLadder &&
            same_problem(c.problem, problem) &&
            (best == nullptr || c.measured_tflops > best->measured_tflops)) {
          best = &c;
        }
      }
      SizeCell cell;
      if (best != nullptr) {
        cell.measured_TFLOPS = best->measured_tflops;
        cell.predicted_TFLOPS = best->predicted_tflops;
      }
      cells.push_back(cell);
      if (best == nullptr || !same_problem(problem, r.problem)) continue;
      ReportLadderRow row;
      row.rung = entry->config.rung;
      row.kernel = id;
      row.raster = best->raster;
      row.prediction = best->prediction;
      row.training = best->training;
      row.measured_TFLOPS = best->measured_tflops;
      const MeasuredCase* mc = measured_case(m, *best);
      if (mc && mc->time_ms && mc->time_ms->min > 0 && mc->time_ms->max > 0) {
        row.measured_min_TFLOPS = validation::tflops_of(mc->problem, mc->time_ms->max);
        row.measured_max_TFLOPS = validation::tflops_of(mc->problem, mc->time_ms->min);
        row.measured_repeats = mc->repeats;
      }
      if (mc && mc->ncu && !mc->ncu->error) {
        row.measured_l2_hit_pct = mc->ncu->l2_hit_rate_pct;
        if (mc->ncu->dram_bytes_read && mc->ncu->dram_bytes_write) {
          row.measured_dram_bytes = *mc->ncu->dram_bytes_read + *mc->ncu->dram_bytes_write;
        }
        row.top_stalls = top_stalls(*mc->ncu);
      }
      if (const validation::MeasuredKernel* k = m.find_kernel(id)) {
        row.runtime_blocks_per_sm = k->runtime_blocks_per_sm;
      }
      r.ladder.push_back(std::move(row));
    }
  }
  r.cublas_TFLOPS = cublas_at(m, r.problem);
}

/// The ladder rows and the by-size table predicted (no measurement): the best predicted raster.
void fill_predicted_ladder(GpuReport& r, const Calibration& calibration) {
  r.by_size.problems = validation::ladder_problems(false);
  r.by_size.cublas_TFLOPS.assign(r.by_size.problems.size(), std::nullopt);
  for (const kernels::RegistryEntry* entry : headline_entries()) {
    const std::string id = kernels::kernel_id(entry->config);
    const bool supported =
        r.gpu.compute_capability.number() >= kernels::minimum_compute_capability(entry->config);
    r.by_size.kernels.push_back(id);
    r.by_size.rungs.push_back(entry->config.rung);
    std::vector<SizeCell>& cells = r.by_size.cells.emplace_back();
    for (const gemm::Problem& problem : r.by_size.problems) {
      std::optional<Prediction> best;
      if (supported) {
        for (const gemm::RasterOrder& raster : validation::ladder_rasters(entry->config)) {
          Prediction p = predict_registered(r.gpu, entry->config, problem, raster, calibration,
                                            L2Model::kRoofcast);
          if (p.launchable && (!best || p.tflops > best->tflops)) best = p;
        }
      }
      SizeCell cell;
      if (best) cell.predicted_TFLOPS = best->tflops;
      cells.push_back(cell);
      if (!same_problem(problem, r.problem)) continue;
      ReportLadderRow row;
      row.rung = entry->config.rung;
      row.kernel = id;
      row.supported = supported && best.has_value();
      if (best) {
        row.raster = best->raster;
        row.prediction = *best;
        if (r.transferred_calibration) {
          row.transferred_TFLOPS =
              predict_registered(r.gpu, entry->config, problem, best->raster,
                                 r.transferred_calibration->parameters, L2Model::kRoofcast)
                  .tflops;
        }
      }
      r.ladder.push_back(std::move(row));
    }
  }
}

/// The MAPE of `predicted` (a member of PublishedCheckRow) over the rows that have it.
std::optional<double> published_mape(const std::vector<PublishedCheckRow>& rows,
                                     std::optional<double> PublishedCheckRow::*predicted) {
  double sum = 0;
  int count = 0;
  for (const PublishedCheckRow& row : rows) {
    if (!(row.*predicted)) continue;
    sum += std::abs(*(row.*predicted) / row.published_TFLOPS - 1);
    ++count;
  }
  if (count == 0) return std::nullopt;
  return 100 * sum / count;
}

/// PublishedCheck of every published ladder run on the report's GPU.
void fill_published_checks(GpuReport& r, const Calibration& calibration) {
  for (const PublishedLadder& ladder : r.published) {
    if (!ladder.gpu_spec || *ladder.gpu_spec != r.gpu.id || !ladder.shape) continue;
    PublishedCheck check;
    check.ladder_id = ladder.id;
    check.author = ladder.author;
    check.problem = *ladder.shape;
    const std::vector<const kernels::RegistryEntry*> headlines = headline_entries();
    for (const PublishedStep& step : ladder.steps) {
      if (!step.maps_to_rung || !step.gflops || !(*step.gflops > 0)) continue;
      // The author's tiles where the ladder file gives them, else the rung's headline config.
      std::optional<gemm::TileConfig> config = step.kernel;
      if (!config) {
        const auto entry = std::find_if(
            headlines.begin(), headlines.end(),
            [&](const kernels::RegistryEntry* e) { return e->config.rung == *step.maps_to_rung; });
        if (entry == headlines.end()) continue;
        config = (*entry)->config;
      }
      PublishedCheckRow row;
      row.step = step.step;
      row.rung = *step.maps_to_rung;
      row.kernel = kernels::kernel_id(*config);
      row.authors_tiles = step.kernel.has_value();
      row.kernel_note = step.kernel_note;
      row.published_TFLOPS = *step.gflops / 1000;
      if (r.gpu.compute_capability.number() >= kernels::minimum_compute_capability(*config)) {
        std::optional<Prediction> best;
        for (const gemm::RasterOrder& raster : validation::ladder_rasters(*config)) {
          Prediction p = predict_registered(r.gpu, *config, check.problem, raster, calibration,
                                            L2Model::kRoofcast);
          if (p.launchable && (!best || p.tflops > best->tflops)) best = p;
        }
        if (best) {
          row.predicted_TFLOPS = best->tflops;
          if (r.transferred_calibration) {
            row.transferred_TFLOPS =
                predict_registered(r.gpu, *config, check.problem, best->raster,
                                   r.transferred_calibration->parameters, L2Model::kRoofcast)
                    .tflops;
          }
        }
      }
      check.rows.push_back(std::move(row));
    }
    check.mape_percent = published_mape(check.rows, &PublishedCheckRow::predicted_TFLOPS);
    check.transferred_mape_percent =
        published_mape(check.rows, &PublishedCheckRow::transferred_TFLOPS);
    r.published_checks.push_back(std::move(check));
  }
}

/// One config of a tile sweep.
struct SweepPoint {
  gemm::TileConfig config;
  std::string kernel;
  std::optional<double> measured_TFLOPS;
  double predicted_TFLOPS = 0;
};

/// The sweep's curve: tiles (BM x BN) by area then BM, each with its best config measured and
/// predicted; every config's point; both optima.
TileCurve make_tile_curve(const gemm::Problem& problem, const std::vector<SweepPoint>& points) {
  TileCurve curve;
  curve.problem = problem;
  std::vector<std::pair<int, int>> shapes;
  for (const SweepPoint& p : points) shapes.emplace_back(p.config.bm, p.config.bn);
  std::sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.first * a.second, a.first) <
           std::make_pair(b.first * b.second, b.first);
  });
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  for (const auto& [bm, bn] : shapes)
    curve.tiles.push_back(TilePoint{bm, bn, std::nullopt, "", 0, ""});
  for (const SweepPoint& p : points) {
    const int index = static_cast<int>(
        std::find(shapes.begin(), shapes.end(), std::make_pair(p.config.bm, p.config.bn)) -
        shapes.begin());
    TilePoint& tile = curve.tiles[index];
    if (p.measured_TFLOPS &&
        (!tile.measured_best_TFLOPS || *p.measured_TFLOPS > *tile.measured_best_TFLOPS)) {
      tile.measured_best_TFLOPS = p.measured_TFLOPS;
      tile.measured_best_kernel = p.kernel;
    }
    if (p.predicted_TFLOPS > tile.predicted_best_TFLOPS) {
      tile.predicted_best_TFLOPS = p.predicted_TFLOPS;
      tile.predicted_best_kernel = p.kernel;
    }
    curve.configs.push_back(TileConfigPoint{index, p.measured_TFLOPS, p.predicted_TFLOPS});
  }
  for (std::size_t i = 0; i < curve.tiles.size(); ++i) {
    const TilePoint& t = curve.tiles[i];
    if (t.measured_best_TFLOPS &&
        (!curve.measured_optimum ||
         *t.measured_best_TFLOPS > *curve.tiles[*curve.measured_optimum].measured_best_TFLOPS)) {
      curve.measured_optimum = static_cast<int>(i);
    }
    if (t.predicted_best_TFLOPS > curve.tiles[curve.predicted_optimum].predicted_best_TFLOPS) {
      curve.predicted_optimum = static_cast<int>(i);
    }
  }
  return curve;
}

void fill_measured_tile_curves(GpuReport& r, const validation::ModelAccuracy& accuracy) {
  for (const gemm::Problem& problem : validation::sweep_problems(false)) {
    std::vector<SweepPoint> points;
    for (const CaseAccuracy& c : accuracy.cases) {
      if (c.set != validation::CaseSet::kSweep || !same_problem(c.problem, problem)) continue;
      if (const kernels::RegistryEntry* entry = registry_entry(c.kernel)) {
        points.push_back({entry->config, c.kernel, c.measured_tflops, c.predicted_tflops});
      }
    }
    if (!points.empty()) r.tile_curves.push_back(make_tile_curve(problem, points));
  }
}

void fill_predicted_tile_curves(GpuReport& r, const Calibration& calibration) {
  for (const gemm::Problem& problem : validation::sweep_problems(false)) {
    std::vector<SweepPoint> points;
    for (const kernels::RegistryEntry& entry : kernels::kRegistry) {
      // The sweep: every registered config of rungs 4-10 (validate_plan.cpp).
      if (entry.config.rung < 4 ||
          r.gpu.compute_capability.number() < kernels::minimum_compute_capability(entry.config)) {
        continue;
      }
      const Prediction p =
          predict_registered(r.gpu, entry.config, problem, validation::sweep_raster(entry.config),
                             calibration, L2Model::kRoofcast);
      if (p.launchable) {
        points.push_back({entry.config, kernels::kernel_id(entry.config), std::nullopt, p.tflops});
      }
    }
    if (!points.empty()) r.tile_curves.push_back(make_tile_curve(problem, points));
  }
}

/// L2 by raster order: rungs 7-10's headline configs at 4096^3 and 8192^3.
void fill_l2_raster(GpuReport& r, const LadderMeasurement* m,
                    const validation::ModelAccuracy* accuracy, const Calibration& calibration) {
  const gemm::Problem problems[] = {{4096, 4096, 4096}, {8192, 8192, 8192}};
  for (const gemm::Problem& problem : problems) {
    for (const kernels::RegistryEntry* entry : headline_entries()) {
      if (!kernels::takes_raster_order(entry->config) ||
          r.gpu.compute_capability.number() < kernels::minimum_compute_capability(entry->config)) {
        continue;
      }
      const std::string id = kernels::kernel_id(entry->config);
      for (const gemm::RasterOrder& raster : validation::ladder_rasters(entry->config)) {
        L2RasterRow row;
        row.rung = entry->config.rung;
        row.kernel = id;
        row.problem = problem;
        row.raster = raster;
        if (accuracy != nullptr) {
          const CaseAccuracy* found = nullptr;
          for (const CaseAccuracy& c : accuracy->cases) {
            if (c.kernel == id && c.set == validation::CaseSet::kLadder &&
                same_problem(c.problem, problem) && c.raster == raster) {
              found = &c;
            }
          }
          if (found == nullptr) continue;
          const MeasuredCase* mc = measured_case(*m, *found);
          row.predicted_pct = 100 * found->prediction.l2_sector_hit_rate;
          row.predicted_TFLOPS = found->predicted_tflops;
          row.measured_TFLOPS = found->measured_tflops;
          if (mc && mc->ncu && !mc->ncu->error) row.measured_pct = mc->ncu->l2_hit_rate_pct;
          const validation::MeasuredKernel* k = m->find_kernel(id);
          const Prediction published = kernels::predict(
              r.gpu, validation::predict_input(*k, *mc, L2Model::kPublished), calibration);
          row.published_pct = 100 * published.l2_sector_hit_rate;
        } else {
          const Prediction p = predict_registered(r.gpu, entry->config, problem, raster,
                                                  calibration, L2Model::kRoofcast);
          if (!p.launchable) continue;
          row.predicted_pct = 100 * p.l2_sector_hit_rate;
          row.predicted_TFLOPS = p.tflops;
          row.published_pct = 100 * predict_registered(r.gpu, entry->config, problem, raster,
                                                       calibration, L2Model::kPublished)
                                        .l2_sector_hit_rate;
        }
        r.l2_raster.push_back(row);
      }
    }
  }
}

/// The staircases of the fastest headline config (measured when there is a run, else predicted).
void fill_occupancy(GpuReport& r, const LadderMeasurement* m) {
  const ReportLadderRow* top = nullptr;
  for (const ReportLadderRow& row : r.ladder) {
    if (!row.supported) continue;
    const double rate = row.measured_TFLOPS.value_or(row.prediction.tflops);
    if (top == nullptr || rate > top->measured_TFLOPS.value_or(top->prediction.tflops)) top = &row;
  }
  if (top == nullptr) return;
  r.occupancy_kernel = top->kernel;
  KernelLaunch launch;
  const validation::MeasuredKernel* k = m != nullptr ? m->find_kernel(top->kernel) : nullptr;
  if (k != nullptr) {
    launch = validation::kernel_launch(*k);
    // The staircases show what the SM allows: the kernel's own dynamic-size attribute (set to
    // what it uses) would cut the shared-memory staircase off right after the operating point.
    launch.max_dynamic_shared_memory_bytes.reset();
    r.occupancy_registers_measured = true;
  } else {
    launch.threads_per_block = top->prediction.config.threads;
    launch.registers_per_thread = top->prediction.registers_per_thread;
    launch.dynamic_shared_memory_bytes = top->prediction.shared_memory_bytes;
  }
  for (SweepAxis axis : {SweepAxis::kRegisters, SweepAxis::kSharedMemory, SweepAxis::kThreads}) {
    r.occupancy.push_back(make_occupancy_report(r.gpu, launch, axis));
  }
}

ReportRun occupancy_run(const nlohmann::json& doc, const std::string& path) {
  ReportRun run;
  run.path = path;
  run.what = "runtime occupancy";
  try {
    const nlohmann::json& c = doc.at("context");
    run.revision = c.at("git_revision").get<std::string>().substr(0, 7);
    run.date_utc = c.at("date_utc").get<std::string>();
    run.gpu_name = c.at("gpu").get<std::string>();
    run.driver = "CUDA " + c.at("cuda_driver_version").get<std::string>() + " (driver API)";
    run.cuda = c.at("cuda_runtime_version").get<std::string>();
    run.tool = c.at("tool").get<std::string>();
    run.sm_clock_rated_MHz = c.at("sm_clock_max_MHz").get<double>();
    run.memory_clock_MHz = c.at("memory_clock_MHz").get<double>();
    run.cases = static_cast<int>(doc.at("queries").size() + doc.at("residency").size());
  } catch (const nlohmann::json::exception& error) {
    throw ReportDataError(path + ": field 'context': " + error.what());
  }
  run.extra =
      "cudaOccupancyMaxActiveBlocksPerMultiprocessor answers and real launches counting "
      "resident blocks";
  return run;
}

/// The case's identity across runs: kernel, set, shape, raster order.
std::string case_key(const MeasuredCase& mc) {
  return mc.kernel + " " + std::string(validation::to_string(mc.set)) + " " +
         std::to_string(mc.problem.m) + "x" + std::to_string(mc.problem.n) + "x" +
         std::to_string(mc.problem.k) + " " + (mc.raster ? gemm::to_string(*mc.raster) : "-");
}

/// The p-quantile (0..1) of sorted values, nearest rank.
double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const std::size_t rank = static_cast<std::size_t>(std::ceil(p * sorted.size()));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

EarlierRun compare_earlier_run(const GpuSpec& gpu, const LadderMeasurement& earlier,
                               const std::string& path, const LadderMeasurement& current,
                               const gemm::Problem& problem, const Calibration& calibration) {
  EarlierRun out;
  out.run = ladder_run(earlier, path, "SGEMM ladder");
  out.cublas_TFLOPS = cublas_at(earlier, problem);
  std::map<std::string, double> current_rates;
  for (const MeasuredCase& mc : current.cases) {
    if (mc.outcome == validation::Outcome::kPassed && mc.tflops)
      current_rates[case_key(mc)] = *mc.tflops;
  }
  std::vector<double> differences;
  double error_sum = 0;
  for (const MeasuredCase& mc : earlier.cases) {
    if (mc.outcome != validation::Outcome::kPassed || !mc.tflops) continue;
    if (const auto it = current_rates.find(case_key(mc)); it != current_rates.end()) {
      const double difference = 100 * std::abs(*mc.tflops / it->second - 1);
      if (differences.empty() || difference > out.max_abs_difference_pct) {
        out.max_abs_difference_pct = difference;
        out.max_difference_case = case_key(mc);
      }
      differences.push_back(difference);
    }
    const validation::MeasuredKernel* kernel = earlier.find_kernel(mc.kernel);
    if (kernel == nullptr || kernels::find_kernel(mc.kernel) >= kernels::kRegistrySize) continue;
    const Prediction p = kernels::predict(
        gpu, validation::predict_input(*kernel, mc, L2Model::kRoofcast), calibration);
    if (!p.launchable) continue;
    error_sum += std::abs(p.tflops - *mc.tflops) / *mc.tflops;
    ++out.predicted_cases;
  }
  std::sort(differences.begin(), differences.end());
  out.common_cases = static_cast<int>(differences.size());
  out.median_abs_difference_pct = quantile(differences, 0.5);
  out.p90_abs_difference_pct = quantile(differences, 0.9);
  out.model_mape_pct = out.predicted_cases > 0 ? 100 * error_sum / out.predicted_cases : 0;
  return out;
}

}  // namespace

namespace {

/// For a GPU without a calibration of its own: the measured GPU nearest in compute capability's
/// (calibration_for_gpu); none when no GPU has one.
std::optional<StoredCalibration> nearest_calibration(const GpuSpec& gpu) {
  const StoredCalibration* stored = calibration_for_gpu(gpu);
  return stored != nullptr ? std::optional<StoredCalibration>(*stored) : std::nullopt;
}

}  // namespace

ReportPaths report_paths(const fs::path& root, const std::string& gpu_id) {
  ReportPaths p;
  const std::string dir = "data/measurements/" + gpu_id + "/";
  p.measurement = dir + "sgemm-ladder.json";
  p.selection = dir + "sgemm-selection.json";
  p.occupancy = dir + "occupancy-runtime.json";
  p.calibration = "data/calibration/" + gpu_id + ".json";
  p.notes = "data/notes/" + gpu_id + ".json";
  p.runs = dir + "runs";
  std::error_code error;
  for (const auto& file : fs::directory_iterator(root / "data/reference", error)) {
    if (file.path().extension() == ".json") {
      p.references.push_back("data/reference/" + file.path().filename().string());
    }
  }
  std::sort(p.references.begin(), p.references.end());
  return p;
}

GpuReport make_gpu_report(const GpuSpec& gpu, const fs::path& root, const std::string& model_digest,
                          const std::string& gnuplot_version,
                          const std::optional<std::string>& measurement_override) {
  GpuReport r;
  r.gpu = gpu;
  r.model_digest = model_digest;
  r.gnuplot_version = gnuplot_version;
  r.problem = gemm::Problem{4096, 4096, 4096};
  const ReportPaths paths = report_paths(root, gpu.id);
  if (paths.references.empty()) {
    throw ReportDataError((root / "data/reference").string() +
                          ": no published-ladder files (*.json); is --root the repository root?");
  }
  for (const std::string& file : paths.references) {
    for (PublishedLadder& ladder : parse_published_ladders(read_text(root / file, file), file)) {
      r.published.push_back(std::move(ladder));
    }
  }
  if (fs::exists(root / paths.notes)) {
    r.notes = parse_rung_notes(read_text(root / paths.notes, paths.notes), paths.notes, gpu.id);
  }
  if (const StoredCalibration* stored = embedded_calibration(gpu.id)) r.calibration = *stored;
  r.calibration_path = paths.calibration;
  const Calibration calibration = r.calibration ? r.calibration->parameters : Calibration{};
  r.roofline = make_roofline_report(gpu);
  r.latencies = gpu_latencies(gpu);

  std::optional<LadderMeasurement> measurement;
  const std::string measurement_path = measurement_override.value_or(paths.measurement);
  const fs::path measurement_file =
      measurement_override ? fs::path(*measurement_override) : root / paths.measurement;
  if (measurement_override || fs::exists(measurement_file)) {
    measurement = validation::load_ladder_measurement(measurement_file);
    if (measurement->context.spec_id != gpu.id) {
      throw ReportDataError(measurement_path + ": field 'context.spec_id': expected '" + gpu.id +
                            "', got '" + measurement->context.spec_id + "'");
    }
  }
  if (measurement) {
    r.validated = true;
    r.runs.push_back(ladder_run(*measurement, measurement_path, "SGEMM ladder"));
    if (measurement->microbenchmarks) {
      for (const auto& [name, raw] : measurement->microbenchmarks->raw) {
        r.microbenchmark_methods[name] = raw.method;
      }
    }
    // The measured sample's parts (data/measurements/<gpu>/sample/sgemm-sample-*.json) join the
    // ladder run in the accuracy, as `roofcast accuracy` reads them: the calibration is fitted on
    // the training cases of all of them.
    std::vector<LadderMeasurement> sample_parts;
    if (!measurement_override) {
      const std::vector<std::string> committed =
          validation::committed_measurement_paths(root / "data" / "measurements" / gpu.id);
      for (std::size_t i = 1; i < committed.size(); ++i) {
        sample_parts.push_back(validation::load_ladder_measurement(committed[i]));
        const std::string relative =
            fs::path(committed[i]).lexically_relative(root).generic_string();
        r.runs.push_back(ladder_run(sample_parts.back(), relative, "measured sample"));
      }
    }
    std::vector<const LadderMeasurement*> all{&*measurement};
    for (const LadderMeasurement& part : sample_parts) all.push_back(&part);
    try {
      r.accuracy = validation::evaluate_model(gpu, all);
      if (!r.calibration) {
        r.transferred_calibration = nearest_calibration(gpu);
        if (r.transferred_calibration) {
          r.transferred_accuracy = validation::evaluate_model(gpu, all, L2Model::kRoofcast,
                                                              r.transferred_calibration->parameters,
                                                              r.transferred_calibration->gpu_id);
        }
      }
    } catch (const std::invalid_argument& error) {  // e.g. a check-only run: nothing timed
      throw ReportDataError(measurement_path + ": " + error.what());
    }
    fill_measured_ladder(r, *measurement, *r.accuracy);
    fill_measured_tile_curves(r, *r.accuracy);
    fill_l2_raster(r, &*measurement, &*r.accuracy, r.accuracy->fit.calibration);
    for (const CaseAccuracy& c : r.accuracy->cases) {
      // The ladder and sweep sets; the sample's held-out cases have their own figure.
      if (!c.duplicate && c.set != validation::CaseSet::kSample) {
        r.scatter.push_back({c.measured_tflops, c.predicted_tflops, c.training});
      }
    }
    // Earlier runs, oldest first by their recorded date.
    std::vector<std::string> earlier;
    std::error_code error;
    for (const auto& dir : fs::directory_iterator(root / paths.runs, error)) {
      if (fs::exists(dir.path() / "sgemm-ladder.json")) {
        earlier.push_back(paths.runs + "/" + dir.path().filename().string() + "/sgemm-ladder.json");
      }
    }
    for (const std::string& path : earlier) {
      r.earlier_runs.push_back(
          compare_earlier_run(gpu, validation::load_ladder_measurement(root / path), path,
                              *measurement, r.problem, r.accuracy->fit.calibration));
    }
    std::sort(r.earlier_runs.begin(), r.earlier_runs.end(),
              [](const EarlierRun& a, const EarlierRun& b) {
                return std::tie(a.run.date_utc, a.run.path) < std::tie(b.run.date_utc, b.run.path);
              });
    // Ranked with the GPU's own calibration, else the transferred one (trained on none of it).
    if (fs::exists(root / paths.selection) && (r.calibration || r.transferred_calibration)) {
      const LadderMeasurement selection =
          validation::load_ladder_measurement(root / paths.selection);
      r.selection = validation::evaluate_selection(
          gpu, selection, r.calibration ? calibration : r.transferred_calibration->parameters,
          r.calibration ? &*measurement : nullptr, validation::RegisterSource::kEstimated);
      r.runs.push_back(ladder_run(selection, paths.selection, "selection"));
    }
  } else {
    if (!r.calibration) r.transferred_calibration = nearest_calibration(gpu);
    fill_predicted_ladder(r, calibration);
    fill_predicted_tile_curves(r, calibration);
    fill_l2_raster(r, nullptr, nullptr, calibration);
  }
  fill_published_checks(r, calibration);
  fill_occupancy(r, measurement ? &*measurement : nullptr);
  if (fs::exists(root / paths.occupancy)) {
    nlohmann::json doc;
    try {
      doc = json_input::parse_strict(read_text(root / paths.occupancy, paths.occupancy));
    } catch (const json_input::StrictJsonError& error) {
      throw ReportDataError(paths.occupancy + ": " + error.what());
    }
    r.runs.push_back(occupancy_run(doc, paths.occupancy));
    const auto comparison = validation::compare_runtime_occupancy(doc, gpu);
    r.runs.back().cases = comparison.queries + comparison.residency_runs;
    r.occupancy_agreement =
        std::make_pair(comparison.queries + comparison.residency_runs,
                       comparison.query_mismatches + comparison.residency_mismatches);
  }
  return r;
}

}  // namespace roofcast::views
