#include "roofcast/validation/selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/tune/rank.hpp"
#include "roofcast/validation/model_accuracy.hpp"

namespace roofcast::validation {

namespace {

using CaseKey = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::string>;

CaseKey key_of(const MeasuredCase& c) {
  return {c.kernel, c.problem.m, c.problem.n, c.problem.k,
          gemm::to_string(c.raster.value_or(gemm::RasterOrder{}))};
}

bool timed(const MeasuredCase& c) {
  return c.outcome == Outcome::kPassed && c.time_ms.has_value() && c.tflops.has_value();
}

/// The outcome of a selector's order (candidate indices, best first) against measured times.
/// `scores`, when given, rank the candidates for the Spearman coefficient instead of their
/// positions in `order` (roofcast's predicted rates: configs it predicts alike share a rank, so
/// the coefficient does not depend on how ties were ordered).
SelectorOutcome outcome_of(const std::vector<std::size_t>& order,
                           const std::vector<double>& measured_time_ms,
                           const std::vector<double>& measured_tflops,
                           const std::vector<std::string>& kernels, double best_time_ms,
                           const std::vector<double>* scores = nullptr) {
  SelectorOutcome o;
  if (order.empty()) return o;
  o.top1_kernel = kernels[order.front()];
  o.top1_TFLOPS = measured_tflops[order.front()];
  o.top1_of_best = best_time_ms / measured_time_ms[order.front()];
  double best5 = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < std::min<std::size_t>(5, order.size()); ++i) {
    best5 = std::min(best5, measured_time_ms[order[i]]);
  }
  o.best_of_top5_of_best = best_time_ms / best5;
  if (order.size() >= 2) {
    // The selector's rank as a score (first = highest) against the measured rates; configs the
    // selector left out (cannot launch by its count) share the lowest score.
    std::vector<double> score(measured_tflops.size(), 0.0);
    for (std::size_t r = 0; r < order.size(); ++r) {
      score[order[r]] = static_cast<double>(order.size() - r);
    }
    if (scores != nullptr) score = *scores;
    // NaN when either side is constant (every config measured alike): no correlation then.
    const double rho = spearman_rank_correlation(score, measured_tflops);
    if (std::isfinite(rho)) o.spearman = rho;
  }
  return o;
}

}  // namespace

SelectionReport evaluate_selection(const GpuSpec& gpu, const LadderMeasurement& selection,
                                   const Calibration& calibration,
                                   const LadderMeasurement* training, RegisterSource registers) {
  SelectionReport report;
  report.spec_id = gpu.id;
  report.context = selection.context;
  report.registers = registers;
  if (training != nullptr) report.calibration_revision = training->context.git_revision;

  std::set<CaseKey> trained;
  if (training != nullptr) {
    for (const MeasuredCase& c : training->cases) {
      const MeasuredKernel* kernel = training->find_kernel(c.kernel);
      if (kernel != nullptr && in_training_split(kernel->config, c.problem)) {
        trained.insert(key_of(c));
      }
    }
  }

  // Shapes in measurement order.
  std::vector<gemm::Problem> shapes;
  for (const MeasuredCase& c : selection.cases) {
    if (c.set != CaseSet::kSelection) continue;
    if (std::find(shapes.begin(), shapes.end(), c.problem) == shapes.end()) {
      shapes.push_back(c.problem);
    }
  }
  if (shapes.empty()) {
    throw std::invalid_argument("the measurement (revision " + selection.context.git_revision +
                                ") has no selection cases: run roofcast-validate --selection");
  }

  // The listed kernels that this build's registry has, by id, built once: one lookup per case
  // (scanning the kernel list and the registry per case is cases x kernels).
  std::map<std::string, const MeasuredKernel*, std::less<>> kernels_by_id;
  for (const MeasuredKernel& k : selection.kernels) {
    if (kernels::find_kernel(k.id) != kernels::kRegistrySize) kernels_by_id.emplace(k.id, &k);
  }

  for (const gemm::Problem& problem : shapes) {
    ShapeSelection s;
    s.problem = problem;
    std::vector<tune::Candidate> candidates;
    std::vector<double> time_ms;
    for (const MeasuredCase& c : selection.cases) {
      if (c.set != CaseSet::kSelection || !(c.problem == problem) || !timed(c)) continue;
      if (c.kernel == kCublasKernel) {
        s.cublas_TFLOPS = *c.tflops;
        continue;
      }
      const auto listed = kernels_by_id.find(c.kernel);
      if (listed == kernels_by_id.end()) {
        throw std::invalid_argument("selection case names kernel '" + c.kernel +
                                    "' that is not in this build's registry");
      }
      const MeasuredKernel* kernel = listed->second;
      tune::Candidate candidate;
      candidate.config = kernel->config;
      candidate.raster = c.raster.value_or(gemm::RasterOrder{});
      if (registers == RegisterSource::kPtxas) {
        candidate.registers_per_thread = kernel->registers_per_thread;
        candidate.spill_bytes_per_thread = kernel->local_bytes;
      }
      candidates.push_back(candidate);
      time_ms.push_back(c.time_ms->median);
      s.kernels.push_back(c.kernel);
      s.measured_TFLOPS.push_back(*c.tflops);
      if (trained.count(key_of(c)) != 0U) ++s.trained_configs;
    }
    s.configs = static_cast<int>(candidates.size());
    if (candidates.empty()) continue;
    const auto best = std::min_element(time_ms.begin(), time_ms.end());
    const double best_time = *best;
    s.best_kernel = s.kernels[static_cast<std::size_t>(best - time_ms.begin())];
    s.best_TFLOPS = s.measured_TFLOPS[static_cast<std::size_t>(best - time_ms.begin())];

    tune::RankOptions options;
    options.calibration = calibration;
    const tune::Ranking ranking = tune::rank(gpu, problem, candidates, options);
    std::vector<std::size_t> roofcast_order;
    s.predicted_TFLOPS.assign(candidates.size(), 0.0);
    for (const tune::Ranked& r : ranking.ranked) {
      roofcast_order.push_back(r.index);
      s.predicted_TFLOPS[r.index] = r.tflops;
    }
    s.selectors[static_cast<int>(tune::Selector::kRoofcast)] = outcome_of(
        roofcast_order, time_ms, s.measured_TFLOPS, s.kernels, best_time, &s.predicted_TFLOPS);
    for (tune::Selector selector : {tune::Selector::kHighestOccupancy, tune::Selector::kLargestTile,
                                    tune::Selector::kTritonFormula}) {
      s.selectors[static_cast<int>(selector)] =
          outcome_of(tune::baseline_order(gpu, problem, candidates, selector), time_ms,
                     s.measured_TFLOPS, s.kernels, best_time);
    }
    report.shapes.push_back(std::move(s));
  }

  if (report.shapes.empty()) {
    throw std::invalid_argument("the measurement (revision " + selection.context.git_revision +
                                ") has no shape with a timed registry case: nothing to select "
                                "from (every selection case failed or is cuBLAS)");
  }
  for (int i = 0; i < tune::kSelectorCount; ++i) {
    SelectorSummary& sum = report.summary[i];
    sum.min_top1_of_best = std::numeric_limits<double>::infinity();
    sum.min_best_of_top5_of_best = std::numeric_limits<double>::infinity();
    int spearman_count = 0;
    for (const ShapeSelection& s : report.shapes) {
      const SelectorOutcome& o = s.selectors[i];
      sum.min_top1_of_best = std::min(sum.min_top1_of_best, o.top1_of_best);
      sum.mean_top1_of_best += o.top1_of_best;
      sum.min_best_of_top5_of_best = std::min(sum.min_best_of_top5_of_best, o.best_of_top5_of_best);
      if (o.spearman) {
        sum.mean_spearman += *o.spearman;
        ++spearman_count;
      }
      sum.shapes_top1_at_least_95 += o.top1_of_best >= 0.95 ? 1 : 0;
      sum.shapes_top1_at_least_98 += o.top1_of_best >= 0.98 ? 1 : 0;
      sum.shapes_top5_at_least_99 += o.best_of_top5_of_best >= 0.99 ? 1 : 0;
    }
    if (!report.shapes.empty()) {
      sum.mean_top1_of_best /= static_cast<double>(report.shapes.size());
    }
    if (spearman_count > 0) sum.mean_spearman /= spearman_count;
  }
  return report;
}

}  // namespace roofcast::validation
