#include "roofcast/validation/model_accuracy.hpp"
#include "roofcast/kernels/anatomy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <tuple>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
#include "roofcast/registers.hpp"
#include "roofcast/tune/sample.hpp"

namespace roofcast::validation {
namespace {

std::string problem_text(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

enum class Variant { kCalibrated, kUncalibrated, kEstimatedRegisters };

double predicted_of(const CaseAccuracy& c, Variant variant) {
  switch (variant) {
    case Variant::kCalibrated:
      return c.predicted_tflops;
    case Variant::kUncalibrated:
      return c.uncalibrated_tflops;
    case Variant::kEstimatedRegisters:
      return c.estimated_tflops;
  }
  return c.predicted_tflops;
}

/// MAPE over the cases; a case whose estimate cannot launch (estimated_tflops 0) counts 100%.
ErrorSummary summarize(const std::vector<const CaseAccuracy*>& cases, Variant variant) {
  ErrorSummary s;
  s.cases = static_cast<int>(cases.size());
  if (cases.empty()) {
    s.mape_percent = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double sum = 0;
  for (const CaseAccuracy* c : cases) {
    const double predicted = predicted_of(*c, variant);
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

/// Each shape of `set`: Spearman, the model's first choice and best of its top 5 against the
/// measured best.
std::vector<SweepShape> per_shape(const std::vector<CaseAccuracy>& all_cases, CaseSet set) {
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<const CaseAccuracy*>>
      shapes;
  for (const CaseAccuracy& a : all_cases) {
    if (a.set == set) shapes[{a.problem.m, a.problem.n, a.problem.k}].push_back(&a);
  }
  std::vector<SweepShape> result;
  for (auto& [key, cases] : shapes) {
    SweepShape s;
    s.problem = cases.front()->problem;
    s.held_out = tune::shape_held_out(s.problem);
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
    // Ties: equal predicted times sit next to each other in by_prediction (a duplicate case is
    // the same config measured again, not a pair).
    for (std::size_t i = 0; i < by_prediction.size(); ++i) {
      for (std::size_t j = i + 1;
           j < by_prediction.size() &&
           by_prediction[j]->prediction.time_s == by_prediction[i]->prediction.time_s;
           ++j) {
        const CaseAccuracy& x = *by_prediction[i];
        const CaseAccuracy& y = *by_prediction[j];
        if (x.duplicate || y.duplicate) continue;
        ++s.tied_pairs;
        if (std::abs(x.measured_tflops / y.measured_tflops - 1) > kTieMeasuredApart) {
          ++s.tied_pairs_measured_apart;
        }
      }
    }
    result.push_back(std::move(s));
  }
  return result;
}

RegisterAccuracy::Summary summarize_registers(
    const std::vector<const RegisterAccuracy::Row*>& rows) {
  RegisterAccuracy::Summary s;
  s.configs = static_cast<int>(rows.size());
  if (rows.empty()) {
    s.mean_abs_error = s.mean_error = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double abs_sum = 0, sum = 0;
  int spills_right = 0;
  for (const RegisterAccuracy::Row* r : rows) {
    const int error = r->estimated_registers - r->ptxas_registers;
    abs_sum += std::abs(error);
    sum += error;
    if (std::abs(error) >= s.max_abs_error) {
      s.max_abs_error = std::abs(error);
      s.worst = r->kernel;
    }
    spills_right += r->estimated_spills == r->ptxas_spills ? 1 : 0;
  }
  s.mean_abs_error = abs_sum / s.configs;
  s.mean_error = sum / s.configs;
  s.spills_correct = static_cast<double>(spills_right) / s.configs;
  return s;
}

/// The register model's domain: the measured kernels of rungs 4-10 (the enumerated space's rungs).
bool in_register_domain(const MeasuredKernel& kernel) { return kernel.config.rung >= 4; }

/// A config's register sample: features from its anatomy (at 4096^3: registers do not depend on
/// the problem), ptxas's count, its launch bound's cap.
RegisterSample register_sample(const GpuSpec& gpu, const MeasuredKernel& kernel) {
  RegisterSample s;
  s.name = kernel.id;
  const KernelAnatomy a =
      kernels::anatomy({4096, 4096, 4096}, kernel.config, gpu.sm.shared_memory_banks);
  s.features = register_features(kernel.config, a);
  s.ptxas_registers = kernel.registers_per_thread;
  s.cap =
      register_cap(gpu.sm, kernel.config.threads, kernels::launch_bounds_min_blocks(kernel.config));
  s.spilled = kernel.local_bytes > 0;
  s.accumulators = a.outputs_per_thread;
  s.k_tile = a.k_tile;
  s.accumulators_spilled = accumulators_spill(a, kernel.registers_per_thread, kernel.local_bytes);
  s.local_words = static_cast<double>(kernel.local_bytes) / kFloatBytes;
  return s;
}

/// fit_register_model on the training configs (not tune::config_held_out); unfitted when the
/// measurements have too few (a ladder run alone has some 70 of rungs 4-10: enough).
RegisterModel fit_registers(const GpuSpec& gpu,
                            const std::map<std::string, const MeasuredKernel*>& kernels) {
  std::vector<RegisterSample> training;
  for (const auto& [id, kernel] : kernels) {
    if (in_register_domain(*kernel) && !tune::config_held_out(kernel->config)) {
      training.push_back(register_sample(gpu, *kernel));
    }
  }
  if (training.size() < 2 * kRegisterFeatureCount) return {};
  return fit_register_model(training);
}

/// The estimate of every measured kernel of rungs 4-10 against its ptxas count.
RegisterAccuracy register_accuracy(const GpuSpec& gpu,
                                   const std::map<std::string, const MeasuredKernel*>& kernels,
                                   const Calibration& calibration) {
  RegisterAccuracy result;
  for (const auto& [id, kernel] : kernels) {
    if (!in_register_domain(*kernel)) continue;
    PredictInput in;
    in.problem = {4096, 4096, 4096};  // registers do not depend on the problem
    in.config = kernel->config;
    in.shared_memory_bytes = kernels::shared_memory_bytes(kernel->config);
    in.min_blocks_per_sm = kernels::launch_bounds_min_blocks(kernel->config);
    const Prediction p = kernels::predict(gpu, in, calibration);
    RegisterAccuracy::Row row;
    row.kernel = id;
    row.rung = kernel->config.rung;
    row.training = !tune::config_held_out(kernel->config);
    row.ptxas_registers = kernel->registers_per_thread;
    row.estimated_registers = p.registers_per_thread;
    row.ptxas_spills = kernel->local_bytes > 0;
    row.estimated_spills = p.spill.spilled_registers > 0;
    result.rows.push_back(row);
  }
  std::vector<const RegisterAccuracy::Row*> training, held_out;
  for (const RegisterAccuracy::Row& r : result.rows)
    (r.training ? training : held_out).push_back(&r);
  result.training = summarize_registers(training);
  result.held_out = summarize_registers(held_out);
  return result;
}

}  // namespace

bool in_training_split(const gemm::TileConfig& config, const gemm::Problem& problem) {
  return !tune::case_held_out(config, problem);
}

PredictInput predict_input(const MeasuredKernel& kernel, const MeasuredCase& measured,
                           L2Model l2_model, bool estimate_registers) {
  PredictInput in;
  in.problem = measured.problem;
  in.config = kernel.config;
  in.raster = measured.raster.value_or(gemm::RasterOrder{});
  if (estimate_registers) {
    in.shared_memory_bytes = kernels::shared_memory_bytes(kernel.config);
  } else {
    in.shared_memory_bytes = kernel.static_shared_bytes + kernel.dynamic_shared_bytes;
    in.registers_per_thread = kernel.registers_per_thread;
    in.spill_bytes_per_thread = kernel.local_bytes;
  }
  in.min_blocks_per_sm = kernels::launch_bounds_min_blocks(kernel.config);
  in.c_is_read = false;
  in.l2_model = l2_model;
  in.max_active_clusters = kernel.runtime_max_active_clusters.value_or(0);
  return in;
}

bool comparable_hit_rate(double measured_pct) { return measured_pct >= 0 && measured_pct <= 100; }

ModelAccuracy evaluate_model(const GpuSpec& gpu, const LadderMeasurement& measurement,
                             L2Model l2_model) {
  return evaluate_model(gpu, std::vector<const LadderMeasurement*>{&measurement}, l2_model);
}

ModelAccuracy evaluate_model(const GpuSpec& gpu,
                             const std::vector<const LadderMeasurement*>& measurements,
                             L2Model l2_model,
                             const std::optional<Calibration>& transferred_calibration,
                             const std::string& transferred_from) {
  ModelAccuracy result;
  result.spec_id = gpu.id;
  // One kernel table over every measurement: a sample run lists the registry kernels again
  // (same id, same build rules); the first listing is used.
  std::map<std::string, const MeasuredKernel*> kernels_by_id;
  for (const LadderMeasurement* measurement : measurements) {
    if (!result.measurement_revision.empty()) result.measurement_revision += " + ";
    result.measurement_revision += measurement->context.git_revision;
    for (const MeasuredKernel& k : measurement->kernels) kernels_by_id.emplace(k.id, &k);
  }

  // Predict every timed case, uncalibrated; ladder cases first so that a later case identical
  // to one of them is the duplicate.
  std::set<std::string> seen;
  std::vector<FitSample> samples;
  std::vector<std::string> training_names;
  for (CaseSet set :
       {CaseSet::kLadder, CaseSet::kTrainingSweep, CaseSet::kSweep, CaseSet::kSample}) {
    for (const LadderMeasurement* measurement : measurements) {
      for (const MeasuredCase& c : measurement->cases) {
        if (c.set != set || c.kernel == kCublasKernel || c.outcome != Outcome::kPassed ||
            !c.time_ms.has_value()) {
          continue;
        }
        const auto found = kernels_by_id.find(c.kernel);
        if (found == kernels_by_id.end()) {
          throw std::invalid_argument("measurement case names kernel '" + c.kernel +
                                      "' that is not in its kernel list");
        }
        if (kernels::find_compiled_kernel(c.kernel) == kernels::kCompiledSize) {
          throw std::invalid_argument("measured kernel '" + c.kernel +
                                      "' is neither a registry nor a sample config of this build");
        }
        const gemm::TileConfig& config = found->second->config;
        CaseAccuracy a;
        a.kernel = c.kernel;
        a.rung = config.rung;
        a.set = c.set;
        a.problem = c.problem;
        a.raster = c.raster.value_or(gemm::RasterOrder{});
        a.name = c.kernel + " " + problem_text(c.problem) + " " + gemm::to_string(a.raster);
        a.training = in_training_split(config, c.problem);
        a.config_held_out = tune::config_held_out(config);
        a.shape_held_out = tune::shape_held_out(c.problem);
        a.duplicate = !seen.insert(a.name).second;
        a.measured_tflops = tflops_of(c.problem, c.time_ms->median);
        a.prediction = kernels::predict(gpu, predict_input(*found->second, c, l2_model));
        if (!a.prediction.launchable) {
          throw std::invalid_argument("the model says measured case '" + a.name +
                                      "' cannot launch");
        }
        a.uncalibrated_tflops = a.prediction.tflops;
        if (!a.duplicate) {
          samples.push_back({a.name, a.prediction.terms, c.time_ms->median * 1e-3});
          if (a.training) training_names.push_back(a.name);
        }
        result.cases.push_back(std::move(a));
      }
    }
  }
  if (samples.empty()) throw std::invalid_argument("the measurements have no timed case");

  result.fit = fit_calibration(samples, training_names);
  result.fit.calibration.registers = fit_registers(gpu, kernels_by_id);
  result.calibration_used = transferred_calibration.value_or(result.fit.calibration);
  if (transferred_calibration) result.calibration_from = transferred_from;
  for (CaseAccuracy& a : result.cases) {
    MeasuredCase shape;
    shape.kernel = a.kernel;
    shape.set = a.set;
    shape.problem = a.problem;
    shape.raster = a.raster;
    const MeasuredKernel& kernel = *kernels_by_id.at(a.kernel);
    a.prediction =
        kernels::predict(gpu, predict_input(kernel, shape, l2_model), result.calibration_used);
    a.predicted_tflops = a.prediction.tflops;
    a.error_percent = 100.0 * (a.predicted_tflops - a.measured_tflops) / a.measured_tflops;
    a.binding = a.prediction.binding;
    const Prediction estimated = kernels::predict(gpu, predict_input(kernel, shape, l2_model, true),
                                                  result.calibration_used);
    a.estimated_tflops = estimated.launchable ? estimated.tflops : 0.0;
  }

  std::vector<const CaseAccuracy*> training, held_out, all, held_out_both;
  std::map<int, std::vector<const CaseAccuracy*>> by_rung, by_rung_held_out_both;
  for (const CaseAccuracy& a : result.cases) {
    if (a.duplicate) continue;
    (a.training ? training : held_out).push_back(&a);
    all.push_back(&a);
    by_rung[a.rung].push_back(&a);
    if (a.config_held_out && a.shape_held_out) {
      held_out_both.push_back(&a);
      by_rung_held_out_both[a.rung].push_back(&a);
    }
  }
  result.training = summarize(training, Variant::kCalibrated);
  result.held_out = summarize(held_out, Variant::kCalibrated);
  result.all = summarize(all, Variant::kCalibrated);
  result.uncalibrated_all = summarize(all, Variant::kUncalibrated);
  result.held_out_both = summarize(held_out_both, Variant::kCalibrated);
  result.held_out_both_estimated = summarize(held_out_both, Variant::kEstimatedRegisters);
  result.held_out_estimated = summarize(held_out, Variant::kEstimatedRegisters);
  result.training_estimated = summarize(training, Variant::kEstimatedRegisters);
  for (const auto& [rung, cases] : by_rung) {
    result.per_rung[rung] = summarize(cases, Variant::kCalibrated);
  }
  for (const auto& [rung, cases] : by_rung_held_out_both) {
    result.per_rung_held_out_both[rung] = summarize(cases, Variant::kCalibrated);
  }

  // The tile sweep and the sample per shape: every case of the set (duplicates included: they
  // are configs too).
  std::vector<double> all_measured, all_predicted;
  for (const CaseAccuracy& a : result.cases) {
    if (a.set != CaseSet::kSweep) continue;
    all_measured.push_back(a.measured_tflops);
    all_predicted.push_back(a.predicted_tflops);
  }
  result.sweep_spearman_all = spearman_rank_correlation(all_predicted, all_measured);
  result.sweep = per_shape(result.cases, CaseSet::kSweep);
  result.sample = per_shape(result.cases, CaseSet::kSample);
  result.registers = register_accuracy(gpu, kernels_by_id, result.calibration_used);

  // L2 hit rate against Nsight Compute, for both models.
  for (L2Model model : {L2Model::kPublished, L2Model::kRoofcast}) {
    L2Agreement agreement;
    agreement.model = model;
    double sum = 0;
    for (const LadderMeasurement* measurement : measurements) {
      for (const MeasuredCase& c : measurement->cases) {
        if (c.kernel == kCublasKernel || !c.ncu.has_value() || !c.ncu->l2_hit_rate_pct) continue;
        const MeasuredKernel& kernel = *kernels_by_id.at(c.kernel);
        const Prediction p =
            kernels::predict(gpu, predict_input(kernel, c, model), result.calibration_used);
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
    }
    agreement.cases = static_cast<int>(agreement.rows.size());
    agreement.mean_abs_error_pp =
        agreement.rows.empty() ? std::numeric_limits<double>::quiet_NaN() : sum / agreement.cases;
    result.l2.push_back(std::move(agreement));
  }
  return result;
}

}  // namespace roofcast::validation
