// Issue 4's accuracy bars, recomputed in CI from the committed H200 measurement: the model is
// calibrated on the training split only (global parameters); the printed tables show every case.
// Where the model meets a bar, the test asserts the bar. Where it does not yet (held-out MAPE,
// top-1 selection), the test asserts the level reached (a regression guard) and says so; the
// README and the issue notes record the gap.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "roofcast/calibration.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/validation/model_accuracy.hpp"

namespace roofcast::validation {
namespace {

const std::filesystem::path kMeasurement =
    std::filesystem::path(ROOFCAST_MEASUREMENTS_DIR) / "h200-sxm" / "sgemm-ladder.json";

const ModelAccuracy& h200_accuracy() {
  static const ModelAccuracy accuracy =
      evaluate_model(embedded_spec("h200-sxm"), load_ladder_measurement(kMeasurement));
  return accuracy;
}

void print_summary(const char* label, const ErrorSummary& s) {
  std::printf("  %-12s %3d cases  MAPE %5.1f%%  worst %6.1f%%  %s\n", label, s.cases,
              s.mape_percent, s.max_abs_error_percent, s.worst_case.c_str());
}

TEST(ModelAccuracyH200, SpecCarriesTheMeasuredCeilings) {
  const LadderMeasurement m = load_ladder_measurement(kMeasurement);
  ASSERT_TRUE(m.microbenchmarks.has_value());
  const GpuSpec gpu = embedded_spec("h200-sxm");
  ASSERT_TRUE(gpu.measured.has_value());
  EXPECT_EQ(*gpu.measured, m.microbenchmarks->measured)
      << "data/gpus/h200-sxm.json's measured block must equal the committed measurement's";
}

// data/calibration/h200-sxm.json is what `roofcast accuracy --write-calibration` fits on the
// committed measurement with this build's model: regenerate it when the model changes.
TEST(ModelAccuracyH200, CommittedCalibrationIsTheFreshFit) {
  const auto stored = embedded_calibration("h200-sxm");
  ASSERT_NE(stored, nullptr);
  const ModelAccuracy& a = h200_accuracy();
  const Calibration& fresh = a.fit.calibration;
  const double values[][2] = {
      {stored->parameters.issue_scale, fresh.issue_scale},
      {stored->parameters.shared_memory_scale, fresh.shared_memory_scale},
      {stored->parameters.latency_scale, fresh.latency_scale},
      {stored->parameters.l2_scale, fresh.l2_scale},
      {stored->parameters.dram_scale, fresh.dram_scale},
      {stored->parameters.launch_overhead_s, fresh.launch_overhead_s},
      {stored->parameters.l2_capacity_fraction, fresh.l2_capacity_fraction}};
  for (const auto& [committed, fitted] : values) {
    EXPECT_NEAR(committed, fitted, 1e-9 * std::max(1.0, std::fabs(fitted)))
        << "run: roofcast accuracy --gpu h200-sxm --write-calibration "
           "data/calibration/h200-sxm.json";
  }
  EXPECT_EQ(stored->measurement_revision, a.measurement_revision);
  EXPECT_EQ(stored->training_split, a.training_split);
}

TEST(ModelAccuracyH200, MapeOnTrainingAndHeldOut) {
  const ModelAccuracy& a = h200_accuracy();
  std::printf("training split '%s'; every case (calibrated prediction, error):\n",
              a.training_split.c_str());
  for (const CaseAccuracy& c : a.cases) {
    std::printf("  %-5s %-80s measured %6.2f predicted %6.2f %+6.1f%% %s\n",
                c.duplicate  ? "dup"
                : c.training ? "train"
                             : "held",
                c.name.c_str(), c.measured_tflops, c.predicted_tflops, c.error_percent,
                std::string(to_string(c.binding)).c_str());
  }
  print_summary("training", a.training);
  print_summary("held-out", a.held_out);
  for (const auto& [rung, s] : a.per_rung) {
    print_summary(("rung " + std::to_string(rung)).c_str(), s);
  }
  ASSERT_GT(a.training.cases, 50);
  ASSERT_GT(a.held_out.cases, 100);
  EXPECT_LE(a.training.mape_percent, 10.0);  // issue 4's bar (met: 6.2%)
  EXPECT_LE(a.held_out.mape_percent, 10.0);  // issue 4's bar (met: 6.4%)
  // Regression guards at the level reached. Run 45116ec: training 5.0%, held-out 6.4%; run
  // 42908a2 (rung 9's headline 3% faster, same model): training 5.33%, held-out 6.6%. Run
  // 8b790e0 adds 2049^3 (79 unaligned configs) to the training split: 6.88% / 6.15% with the
  // model of 42908a2, 6.16% / 6.43% with the unaligned copy paths (traffic.hpp
  // UnalignedCopy) and rung 10's fallback stage wait; the training guard moves from 5.5 to
  // 6.4 (the split changed), the held-out guard stays at 6.9. The cluster cap on the wave
  // (compute_waves' max_active_clusters: 30 clusters of 4 on the H200) gives 5.86% / 6.00%; the
  // guards move to the level before it, 6.2 / 6.5.
  EXPECT_LE(a.training.mape_percent, 6.2);
  EXPECT_LE(a.held_out.mape_percent, 6.5);
}

TEST(ModelAccuracyH200, L2RowsKeepRatesAbove100PercentApart) {
  EXPECT_TRUE(comparable_hit_rate(0));
  EXPECT_TRUE(comparable_hit_rate(100));
  EXPECT_FALSE(comparable_hit_rate(100.5));
  EXPECT_FALSE(comparable_hit_rate(-1));
  const ModelAccuracy& a = h200_accuracy();
  ASSERT_EQ(a.l2.size(), 2U);
  for (const L2Agreement& l2 : a.l2) {
    EXPECT_EQ(l2.cases, static_cast<int>(l2.rows.size()));
    // Run 8b790e0: rung 10 c2 at 2048^3 (ncu 105.8%, 111.4%) and six 2049^3 cases (r05, r06
    // and r07 tiles of 64 rows or columns: 100.9-114.2%).
    EXPECT_EQ(l2.not_comparable.size(), 8U);
    for (const L2Agreement::Row& r : l2.not_comparable) EXPECT_GT(r.measured_pct, 100);
    for (const L2Agreement::Row& r : l2.rows) EXPECT_LE(r.measured_pct, 100);
  }
}

TEST(ModelAccuracyH200, TileSweepRankingAndTopOneSelection) {
  const ModelAccuracy& a = h200_accuracy();
  ASSERT_GE(a.sweep.size(), 2U);
  for (const SweepShape& s : a.sweep) {
    std::printf(
        "  %lldx%lldx%lld: %d configs, Spearman %.3f, top-1 %s at %.1f%% of the best (%s)"
        ", best of top 5 %.1f%%\n",
        static_cast<long long>(s.problem.m), static_cast<long long>(s.problem.n),
        static_cast<long long>(s.problem.k), s.configs, s.spearman, s.predicted_best.c_str(),
        100 * s.top1_fraction, s.measured_best.c_str(), 100 * s.best_of_top5_fraction);
    const std::string shape = std::to_string(s.problem.m) + "x" + std::to_string(s.problem.n) +
                              "x" + std::to_string(s.problem.k);
    EXPECT_GE(s.spearman, 0.9) << shape;   // issue 4's bar (met: 0.975 and 0.974)
    EXPECT_GE(s.spearman, 0.97) << shape;  // guard at the level reached
    // Issue 4's bar for the top-1 config is 95% of the measured best: met at 256x4096x4096
    // (100%) and at 4096^3 (96.1%, since LDS.128 fragments count quarter-warp phases:
    // shared_load_wavefronts); the best of the model's top 5 is the measured best on both.
    if (s.problem.m == 256) EXPECT_GE(s.top1_fraction, 0.99) << shape;
    EXPECT_GE(s.top1_fraction, 0.95) << shape;
    EXPECT_GE(s.best_of_top5_fraction, 0.99) << shape;
  }
}

// The curve of data reuse against occupancy: at 4096^3, the best measured TFLOPS per tile area
// (BM x BN) rises with the area and then falls; the model must put the peak at the same area.
TEST(ModelAccuracyH200, TileSizeCurvePeaksAtTheMeasuredArea) {
  const ModelAccuracy& a = h200_accuracy();
  std::map<int, std::pair<double, double>> best_by_area;  // area -> (measured, predicted)
  for (const CaseAccuracy& c : a.cases) {
    if (c.set != CaseSet::kSweep || !(c.problem == gemm::Problem{4096, 4096, 4096})) continue;
    const gemm::TileConfig& config = kernels::kRegistry[kernels::find_kernel(c.kernel)].config;
    auto& best = best_by_area[config.bm * config.bn];
    best.first = std::max(best.first, c.measured_tflops);
    best.second = std::max(best.second, c.predicted_tflops);
  }
  ASSERT_GE(best_by_area.size(), 4U);
  int measured_peak = 0, predicted_peak = 0;
  double measured_max = 0, predicted_max = 0;
  for (const auto& [area, best] : best_by_area) {
    std::printf("  tile area %6d: best measured %6.2f, best predicted %6.2f TFLOPS\n", area,
                best.first, best.second);
    if (best.first > measured_max) measured_max = best.first, measured_peak = area;
    if (best.second > predicted_max) predicted_max = best.second, predicted_peak = area;
  }
  // The measured curve does rise and fall (otherwise the sweep is too narrow to test this).
  EXPECT_GT(measured_peak, best_by_area.begin()->first);
  EXPECT_LT(measured_peak, best_by_area.rbegin()->first);
  EXPECT_EQ(predicted_peak, measured_peak);
}

}  // namespace
}  // namespace roofcast::validation
