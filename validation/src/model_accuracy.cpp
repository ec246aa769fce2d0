#include "roofcast/validation/model_accuracy.hpp"
#include "roofcast/kernels/anatomy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "roofcast/kernels/registry.hpp"

namespace roofcast::validation {
namespace {

std::string problem_text(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

bool is_pow2(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

ErrorSummary summarize(const std::vector<const CaseAccuracy*>& cases, bool calibrated) {
  ErrorSummary s;
  s.cases = static_cast<int>(cases.size());
  if (cases.empty()) {
    s.mape_percent = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double sum = 0;
  for (const CaseAccuracy* c : cases) {
    const double predicted = calibrated ? c->predicted_tflops : c->uncalibrated_tflops;
    const double error = 100.0 * std::fabs(predicted - c->measured_tflops) / c->measured_tflops;
    sum += error;
    if (error >= s.max_abs_error_percent) {
      s.max_abs_error_percent = error;
      s.worst_case = c->name;
    }
  }
  s.mape_percent = sum / static_cast<double>(cases.size());
  return s;
}

}  // namespace

bool in_training_split(CaseSet set, const gemm::Problem& p) {
  if (set == CaseSet::kTrainingSweep) return true;
  return set == CaseSet::kLadder && p.m == p.n && p.n == p.k && is_pow2(p.m);
}

bool in_training_split(const MeasuredCase& c) { return in_training_split(c.set, c.problem); }

PredictInput predict_input(const MeasuredKernel& kernel, const MeasuredCase& measured,
                           L2Model l2_model) {
  PredictInput in;
  in.problem = measured.problem;
  in.config = kernel.config;
  in.raster = measured.raster.value_or(gemm::RasterOrder{});
  in.shared_memory_bytes = kernel.static_shared_bytes + kernel.dynamic_shared_bytes;
  in.registers_per_thread = kernel.registers_per_thread;
  in.spill_bytes_per_thread = kernel.local_bytes;
  in.min_blocks_per_sm = kernels::launch_bounds_min_blocks(kernel.config);
  in.c_is_read = false;
  in.l2_model = l2_model;
  in.max_active_clusters = kernel.runtime_max_active_clusters.value_or(0);
  return in;
}

bool comparable_hit_rate(double measured_pct) { return measured_pct >= 0 && measured_pct <= 100; }

ModelAccuracy evaluate_model(const GpuSpec& gpu, const LadderMeasurement& measurement,
                             L2Model l2_model) {
  ModelAccuracy result;
  result.spec_id = gpu.id;
  result.measurement_revision = measurement.context.git_revision;
  std::map<std::string, const MeasuredKernel*> kernels_by_id;
  for (const MeasuredKernel& k : measurement.kernels) kernels_by_id[k.id] = &k;

  // Predict every timed registry case, uncalibrated; ladder cases first so that a sweep case
  // identical to one of them is the duplicate.
  std::set<std::string> seen;
  std::vector<FitSample> samples;
  std::vector<std::string> training_names;
  for (CaseSet set : {CaseSet::kLadder, CaseSet::kTrainingSweep, CaseSet::kSweep}) {
    for (const MeasuredCase& c : measurement.cases) {
      if (c.set != set || c.kernel == kCublasKernel || c.outcome != Outcome::kPassed ||
          !c.time_ms.has_value()) {
        continue;
      }
      const auto found = kernels_by_id.find(c.kernel);
      if (found == kernels_by_id.end()) {
        throw std::invalid_argument("measurement case names kernel '" + c.kernel +
                                    "' that is not in its kernel list");
      }
      if (kernels::find_kernel(c.kernel) == kernels::kRegistrySize) {
        throw std::invalid_argument("measured kernel '" + c.kernel +
                                    "' is not in this build's registry");
      }
      CaseAccuracy a;
      a.kernel = c.kernel;
      a.rung = found->second->config.rung;
      a.set = c.set;
      a.problem = c.problem;
      a.raster = c.raster.value_or(gemm::RasterOrder{});
      a.name = c.kernel + " " + problem_text(c.problem) + " " + gemm::to_string(a.raster);
      a.training = in_training_split(c);
      a.duplicate = !seen.insert(a.name).second;
      a.measured_tflops = tflops_of(c.problem, c.time_ms->median);
      a.prediction = kernels::predict(gpu, predict_input(*found->second, c, l2_model));
      if (!a.prediction.launchable) {
        throw std::invalid_argument("the model says measured case '" + a.name + "' cannot launch");
      }
      a.uncalibrated_tflops = a.prediction.tflops;
      if (!a.duplicate) {
        samples.push_back({a.name, a.prediction.terms, c.time_ms->median * 1e-3});
        if (a.training) training_names.push_back(a.name);
      }
      result.cases.push_back(std::move(a));
    }
  }
  if (samples.empty()) throw std::invalid_argument("the measurement has no timed registry case");

  result.fit = fit_calibration(samples, training_names);
  for (CaseAccuracy& a : result.cases) {
    MeasuredCase shape;
    shape.kernel = a.kernel;
    shape.set = a.set;
    shape.problem = a.problem;
    shape.raster = a.raster;
    a.prediction = kernels::predict(
        gpu, predict_input(*kernels_by_id.at(a.kernel), shape, l2_model), result.fit.calibration);
    a.predicted_tflops = a.prediction.tflops;
    a.error_percent = 100.0 * (a.predicted_tflops - a.measured_tflops) / a.measured_tflops;
    a.binding = a.prediction.binding;
  }

  std::vector<const CaseAccuracy*> training, held_out, all;
  std::map<int, std::vector<const CaseAccuracy*>> by_rung;
  for (const CaseAccuracy& a : result.cases) {
    if (a.duplicate) continue;
    (a.training ? training : held_out).push_back(&a);
    all.push_back(&a);
    by_rung[a.rung].push_back(&a);
  }
  result.training = summarize(training, true);
  result.held_out = summarize(held_out, true);
  result.all = summarize(all, true);
  result.uncalibrated_all = summarize(all, false);
  for (const auto& [rung, cases] : by_rung) result.per_rung[rung] = summarize(cases, true);

  // The tile sweep per shape: every sweep case (duplicates included: they are configs too).
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<const CaseAccuracy*>>
      shapes;
  std::vector<double> all_measured, all_predicted;
  for (const CaseAccuracy& a : result.cases) {
    if (a.set != CaseSet::kSweep) continue;
    shapes[{a.problem.m, a.problem.n, a.problem.k}].push_back(&a);
    all_measured.push_back(a.measured_tflops);
    all_predicted.push_back(a.predicted_tflops);
  }
  result.sweep_spearman_all = spearman_rank_correlation(all_predicted, all_measured);
  for (auto& [key, cases] : shapes) {
    SweepShape s;
    s.problem = cases.front()->problem;
    s.configs = static_cast<int>(cases.size());
    std::vector<double> measured, predicted;
    for (const CaseAccuracy* c : cases) {
      measured.push_back(c->measured_tflops);
      predicted.push_back(c->predicted_tflops);
    }
    s.spearman = spearman_rank_correlation(predicted, measured);
    std::vector<const CaseAccuracy*> by_prediction = cases;
    std::stable_sort(by_prediction.begin(), by_prediction.end(),
                     [](const CaseAccuracy* x, const CaseAccuracy* y) {
                       return x->predicted_tflops > y->predicted_tflops;
                     });
    const CaseAccuracy* best = *std::max_element(cases.begin(), cases.end(),
                                                 [](const CaseAccuracy* x, const CaseAccuracy* y) {
                                                   return x->measured_tflops < y->measured_tflops;
                                                 });
    s.measured_best = best->kernel;
    s.measured_best_tflops = best->measured_tflops;
    s.predicted_best = by_prediction.front()->kernel;
    s.predicted_best_measured_tflops = by_prediction.front()->measured_tflops;
    s.top1_fraction = s.predicted_best_measured_tflops / s.measured_best_tflops;
    double top5 = 0;
    for (std::size_t i = 0; i < std::min<std::size_t>(5, by_prediction.size()); ++i) {
      top5 = std::max(top5, by_prediction[i]->measured_tflops);
    }
    s.best_of_top5_fraction = top5 / s.measured_best_tflops;
    result.sweep.push_back(std::move(s));
  }

  // L2 hit rate against Nsight Compute, for both models.
  for (L2Model model : {L2Model::kPublished, L2Model::kRoofcast}) {
    L2Agreement agreement;
    agreement.model = model;
    double sum = 0;
    for (const MeasuredCase& c : measurement.cases) {
      if (c.kernel == kCublasKernel || !c.ncu.has_value() || !c.ncu->l2_hit_rate_pct) continue;
      const MeasuredKernel& kernel = *kernels_by_id.at(c.kernel);
      const Prediction p =
          kernels::predict(gpu, predict_input(kernel, c, model), result.fit.calibration);
      L2Agreement::Row row;
      row.name = c.kernel + " " + problem_text(c.problem) + " " +
                 gemm::to_string(c.raster.value_or(gemm::RasterOrder{}));
      row.measured_pct = *c.ncu->l2_hit_rate_pct;
      row.predicted_pct = 100.0 * p.l2_sector_hit_rate;
      if (!comparable_hit_rate(row.measured_pct)) {
        agreement.not_comparable.push_back(row);
        continue;
      }
      const double error = std::fabs(row.predicted_pct - row.measured_pct);
      sum += error;
      if (error >= agreement.max_abs_error_pp) {
        agreement.max_abs_error_pp = error;
        agreement.worst_case = row.name;
      }
      agreement.rows.push_back(row);
    }
    agreement.cases = static_cast<int>(agreement.rows.size());
    agreement.mean_abs_error_pp =
        agreement.rows.empty() ? std::numeric_limits<double>::quiet_NaN() : sum / agreement.cases;
    result.l2.push_back(std::move(agreement));
  }
  return result;
}

}  // namespace roofcast::validation
