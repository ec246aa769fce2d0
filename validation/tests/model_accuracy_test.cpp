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
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
#include "roofcast/tune/sample.hpp"
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/validation/model_accuracy.hpp"

namespace roofcast::validation {
namespace {

const std::filesystem::path kMeasurement =
    std::filesystem::path(ROOFCAST_MEASUREMENTS_DIR) / "h200-sxm" / "sgemm-ladder.json";

/// Every committed run of the H200 (the ladder run and the sample's parts), as `roofcast accuracy`
/// reads them by default.
const ModelAccuracy& h200_accuracy() {
  static const std::vector<LadderMeasurement> measurements = [] {
    std::vector<LadderMeasurement> out;
    for (const std::string& path : committed_measurement_paths(
             std::filesystem::path(ROOFCAST_MEASUREMENTS_DIR) / "h200-sxm")) {
      out.push_back(load_ladder_measurement(path));
    }
    return out;
  }();
  static const ModelAccuracy accuracy = [] {
    std::vector<const LadderMeasurement*> pointers;
    for (const LadderMeasurement& m : measurements) pointers.push_back(&m);
    return evaluate_model(embedded_spec("h200-sxm"), pointers);
  }();
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
  MeasuredCeilings ceilings = *gpu.measured;
  ceilings.max_active_clusters.clear();  // the runtime's answers, checked below
  EXPECT_EQ(ceilings, m.microbenchmarks->measured)
      << "data/gpus/h200-sxm.json's measured block must equal the committed measurement's";
  // The cluster residency table: every committed run's cudaOccupancyMaxActiveClusters answer.
  int answers = 0;
  for (const std::string& path : committed_measurement_paths(kMeasurement.parent_path())) {
    for (const MeasuredKernel& kernel : load_ladder_measurement(path).kernels) {
      if (!kernel.runtime_max_active_clusters || kernel.runtime_blocks_per_sm <= 0) continue;
      ++answers;
      EXPECT_EQ(
          measured_max_active_clusters(gpu, kernel.config.cluster, kernel.runtime_blocks_per_sm),
          *kernel.runtime_max_active_clusters)
          << path << " " << kernel.id;
    }
  }
  EXPECT_GT(answers, 20);
  EXPECT_EQ(gpu.measured->max_active_clusters.size(), 10u);
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
      {stored->parameters.contention_share, fresh.contention_share},
      {stored->parameters.l2_capacity_fraction, fresh.l2_capacity_fraction}};
  for (const auto& [committed, fitted] : values) {
    EXPECT_NEAR(committed, fitted, 1e-9 * std::max(1.0, std::fabs(fitted)))
        << "run: roofcast accuracy --gpu h200-sxm --write-calibration "
           "data/calibration/h200-sxm.json";
  }
  EXPECT_EQ(stored->measurement_revision, a.measurement_revision);
  EXPECT_EQ(stored->training_split, a.training_split);
  const RegisterModel& committed = stored->parameters.registers;
  const RegisterModel& fitted = fresh.registers;
  ASSERT_TRUE(committed.fitted && fitted.fitted);
  EXPECT_NEAR(committed.intercept, fitted.intercept,
              1e-9 * std::max(1.0, std::fabs(fitted.intercept)));
  for (std::size_t i = 0; i < fitted.coefficients.size(); ++i) {
    EXPECT_NEAR(committed.coefficients[i], fitted.coefficients[i],
                1e-9 * std::max(1.0, std::fabs(fitted.coefficients[i])))
        << to_string(static_cast<RegisterFeature>(i));
  }
  EXPECT_EQ(committed.spill_margin, fitted.spill_margin);
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
  print_summary("held x held", a.held_out_both);
  print_summary("  estimated", a.held_out_both_estimated);
  for (const auto& [rung, s] : a.per_rung_held_out_both) {
    print_summary(("held r" + std::to_string(rung)).c_str(), s);
  }
  // The ladder set alone (every rung's headline config at the ladder sizes), held-out cases.
  std::vector<const CaseAccuracy*> ladder_held;
  double ladder_sum = 0;
  for (const CaseAccuracy& c : a.cases) {
    if (c.set != CaseSet::kLadder || c.duplicate || c.training) continue;
    ladder_held.push_back(&c);
    ladder_sum += std::fabs(c.error_percent);
  }
  ASSERT_FALSE(ladder_held.empty());
  const double ladder_mape = ladder_sum / static_cast<double>(ladder_held.size());
  std::printf("  ladder set, held-out: %zu cases, MAPE %.1f%%\n", ladder_held.size(), ladder_mape);

  ASSERT_GT(a.training.cases, 5000);
  ASSERT_GT(a.held_out_both.cases, 1000);
  // Issue 15's goal for held-out configs at held-out shapes is 6% (9% per rung); not met. The
  // split is tune::case_held_out over the ladder run and the sample (12,712 cases): the
  // calibration of the ladder split (5.9% training, 6.0% held-out on the ladder run alone) gave
  // 34.5% here. Training / held-out / held x held (registers estimated) / the ladder set's
  // held-out cases, each change chosen on training residuals (docs/model.md): refit alone
  // 20.1 / 30.5 / 34.5 (45.8); the data path as its own unit 18.5 / 27.1 / 28.7 (37.3) / 8.0; the
  // epilogue's C stores in L2 sectors and the bandwidth scales held at 1 17.4 / 19.0 / 19.3
  // (26.9) / 8.0; the instruction cache (sample ncu subset 17e9505, its training configs only)
  // 16.4 / 18.4 / 19.0 (26.4) / 5.8; the register model's global-loads feature 16.4 / 18.4 /
  // 19.0 (25.9) / 5.8; contention of the non-binding memory terms (contention_share, chosen on
  // training MAPE) 16.1 / 17.8 / 18.2 (25.0) / 6.1; the compiled overhead of each rung's
  // instructions (Nsight Compute's counts at 2048^3, training configs) and the fit minimising
  // the training MAPE of the rate instead of the squared relative time error 14.7 / 16.1 / 16.1
  // (22.7) / 6.1; rungs 5-6's compiled overhead per float4 copy site rather than per load of
  // the unaligned fallback (the counts at 1459x2313x162, run 530a3a6) 14.4 / 16.1 / 16.2 (22.9)
  // / 6.8; a Nelder-Mead polish of the fit on the training MAPE (the reweighting stopped short of
  // its minimum) 14.2 / 15.7 / 15.7 (22.3) / 8.0 (the ladder set's held-out cases, 106 of them,
  // moved the other way); a prefetching block's K tile as the expected later of its compute and
  // its loads (expected_later_cycles) 13.8 / 15.5 / 15.6 (22.1) / 8.5; spills by Nsight
  // Compute's count law, their stores and missed reloads through the SM's L2 share and an L1
  // hit per reload (docs/model.md#spills) 13.2 / 15.3 / 15.6 (17.9) / 9.1; rung 4's fragment
  // waits inside a block's chain, covered by the SM's issue, and a prefetching block's prologue
  // filling its stages (docs/model.md#composition) 13.0 / 14.9 / 15.3 (17.6) / 9.1; the
  // register model fitted with censored configs, a warp-tiled accumulators feature and the
  // spill-words law (docs/model.md#register-estimate; chosen on training: registers estimated
  // 13.3 -> 12.9%) 13.0 / 14.9 / 15.3 (16.3) / 9.1; a 4-byte cp.async's shared writes at its
  // global wavefronts (docs/model.md#asynchronous-copies; Nsight Compute's counts, training
  // 12.99 -> 12.95%) 12.95 / 14.92 / 15.38 (16.41) / 9.1; the L2 read share of a grid smaller
  // than the GPU from the probe on the same GH100 die (an H100 SXM's; the H200's own not yet
  // measured; docs/model.md#convoys) 12.46 / 13.99 / 14.49 (15.68) / 9.7; rung 6's swizzle
  // patterns in the compiled overhead (docs/model.md#compiled-overhead) 12.41 / 13.89 / 14.35
  // (15.52) / 9.8; global loads on the data path at their data bytes, not their lines
  // (docs/model.md#the-data-path) 12.14 / 13.51 / 13.92 (15.06) / 10.0; the issue group as the
  // norm of issue and the data path, the data path's share no longer fitted, and the polish
  // restarted until it stops gaining (docs/model.md#composition) 12.09 / 13.45 / 13.91 (15.08)
  // / 10.9 (the ladder set's rungs 2-3, data-path bound, moved the other way); rungs 2-3's
  // shared reads and K loop as their SASS issues them (A's rows by LDS.128; docs/model.md#the-
  // data-path) 12.07 / 13.43 / 13.87 (15.04) / 9.2; rung 4's fragment latency covered by the
  // block's other warps on a scheduler (docs/model.md#fragment-round-trips) 12.02 / 13.38 /
  // 13.86 (15.01) / 9.3; its later steps' queue covered too, the first step's burst after the
  // barrier not 11.72 / 13.11 / 13.47 (14.61) / 9.9 (the ladder set moved the other way).
  // Guards at the level reached:
  EXPECT_LE(a.training.mape_percent, 11.73);
  EXPECT_LE(a.held_out.mape_percent, 13.12);
  EXPECT_LE(a.held_out_both.mape_percent, 13.48);
  EXPECT_LE(a.held_out_both_estimated.mape_percent, 14.62);
  EXPECT_LE(a.training_estimated.mape_percent, 11.62);
  EXPECT_LE(ladder_mape, 9.95);
}

// Issue 15: the register estimate against ptxas on the configs it was not fitted on. Goals: mean
// |error| <= 4 registers and spills right for >= 95% of configs; guards at the level reached.
TEST(ModelAccuracyH200, RegisterEstimateAgainstPtxasOnHeldOutConfigs) {
  const ModelAccuracy& a = h200_accuracy();
  const RegisterAccuracy& r = a.registers;
  std::printf(
      "register estimate: training %d configs MAE %.2f, spills right %.1f%%; held-out %d "
      "configs MAE %.2f (worst %d, %s), spills right %.1f%%\n",
      r.training.configs, r.training.mean_abs_error, 100 * r.training.spills_correct,
      r.held_out.configs, r.held_out.mean_abs_error, r.held_out.max_abs_error,
      r.held_out.worst.c_str(), 100 * r.held_out.spills_correct);
  ASSERT_GE(r.training.configs, 300);
  ASSERT_GE(r.held_out.configs, 80);
  for (const RegisterAccuracy::Row& row : r.rows) {
    EXPECT_EQ(
        row.training,
        !tune::config_held_out(kernels::compiled_config(kernels::find_compiled_kernel(row.kernel))))
        << row.kernel;
  }
  // Fitted (fit_register_model): held-out MAE 6.3, spills right 94.9%; censored configs and
  // the warp-tiled accumulators feature: 5.8 and 96.0% (the unfitted count: 27.1 and 92.9%).
  // The spill goal is met, the MAE goal is not.
  EXPECT_LE(r.held_out.mean_abs_error, 5.85);
  EXPECT_GE(r.held_out.spills_correct, 0.95);
}

// The spill count law (registers.hpp, spill_accesses) against Nsight Compute's local load and
// store instructions of every spilling config of the local-memory subset at 2048^3 (run
// ce3a6ad): which configs reload their accumulators inside the K loop, and how often. Fitted
// on the training configs (8.8% mean error of the loads); the held-out configs are reported.
TEST(ModelAccuracyH200, SpillCountLawAgreesWithNsightCompute) {
  const LadderMeasurement m =
      load_ladder_measurement(std::filesystem::path(ROOFCAST_MEASUREMENTS_DIR) / "h200-sxm" /
                              "sample" / "sgemm-sample-ncu-local.json");
  std::map<std::string, const MeasuredKernel*> kernels;
  for (const MeasuredKernel& k : m.kernels) kernels[k.id] = &k;
  const GpuSpec gpu = embedded_spec("h200-sxm");
  double error_sum[2] = {0, 0};
  int heavy[2] = {0, 0};
  int classified_right = 0;
  int configs = 0;
  for (const MeasuredCase& c : m.cases) {
    if (!c.ncu || c.problem.m != 2048 || c.problem.n != 2048 || c.problem.k != 2048) continue;
    const auto found = kernels.find(c.kernel);
    if (found == kernels.end() || found->second->local_bytes <= 0) continue;
    const MeasuredKernel& k = *found->second;
    ASSERT_TRUE(c.ncu->local_load_instructions && c.ncu->local_store_instructions && c.grid_blocks);
    const Prediction p = kernels::predict(gpu, predict_input(k, c, L2Model::kRoofcast));
    const double warp_tiles = static_cast<double>(*c.grid_blocks) * (k.threads_per_block / 32) *
                              static_cast<double>(p.waste.k_tiles);
    const double loads = *c.ncu->local_load_instructions / warp_tiles;
    const double stores = *c.ncu->local_store_instructions / warp_tiles;
    // Measured: accumulators reloaded in the loop store about as often as they load.
    const bool measured_heavy = stores > 0.3 * loads && stores > 20;
    ++configs;
    classified_right += measured_heavy == p.spill.accumulators_spilled;
    if (!measured_heavy) continue;
    const int held = tune::config_held_out(k.config) ? 1 : 0;
    ++heavy[held];
    error_sum[held] += std::fabs(p.spill.load_accesses_per_tile / loads - 1);
    EXPECT_NEAR(p.spill.store_accesses_per_tile / p.spill.load_accesses_per_tile, stores / loads,
                0.15)
        << k.id;
  }
  std::printf(
      "spill count law: %d of %d configs classified right; loads mean |error| %.1f%% "
      "(%d training configs), %.1f%% (%d held-out)\n",
      classified_right, configs, 100 * error_sum[0] / std::max(1, heavy[0]), heavy[0],
      100 * error_sum[1] / std::max(1, heavy[1]), heavy[1]);
  ASSERT_GE(configs, 40);
  ASSERT_GE(heavy[0], 10);
  ASSERT_GE(heavy[1], 8);
  EXPECT_EQ(classified_right, configs);
  EXPECT_LE(error_sum[0] / heavy[0], 0.10);
  EXPECT_LE(error_sum[1] / heavy[1], 0.20);
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
    // and r07 tiles of 64 rows or columns: 100.9-114.2%); the sample's ncu subset (17e9505):
    // r07 256x32x8 at 1459x2313x162 (102.2%) and r04 32x128x8 at 2048^3 (101.6%); the local and
    // every-config subsets (c97b1bb): r06 256x32x8 and the two rung-10 c2 configs again at 2048^3
    // (103.8, 111.0, 111.7%), r09 256x32x8 at 1459x2313x162 (108.7%) and r10 64x64x32 at
    // 512x2048x4096 (110.2%); every config at 512x2048x4096 and 1459x2313x162 (530a3a6): 19 more,
    // 14 of them tiles of 32 columns at 1459x2313x162 (100.1-110.7%), 5 at 512x2048x4096 (rung
    // 10's 64x64x32 c2 again, r07 64x64x8 at 32 threads, r05 256x64x32; 100.7-110.1%).
    EXPECT_EQ(l2.not_comparable.size(), 34U);
    for (const L2Agreement::Row& r : l2.not_comparable) EXPECT_GT(r.measured_pct, 100);
    for (const L2Agreement::Row& r : l2.rows) EXPECT_LE(r.measured_pct, 100);
  }
}

// Issue 15: configs measured more than 2% apart must not be predicted as exact ties. Not met:
// at the held-out sample shapes 203 pairs are tied, 114 of them measured apart (the sample's
// warp shapes, stage counts and padded against swizzled layouts whose every term is equal; 132
// before a prefetching block's prologue filled its stages, which tells stage counts apart).
// The counts themselves: a tied pair has equal predicted times, and is measured apart when its
// rates differ by more than kTieMeasuredApart.
TEST(ModelAccuracyH200, ExactTiesOfConfigsMeasuredApart) {
  const ModelAccuracy& a = h200_accuracy();
  int tied = 0;
  int apart = 0;
  for (const SweepShape& s : a.sample) {
    EXPECT_LE(s.tied_pairs_measured_apart, s.tied_pairs);
    std::map<double, std::vector<const CaseAccuracy*>> by_time;
    for (const CaseAccuracy& c : a.cases) {
      if (c.set == CaseSet::kSample && !c.duplicate && c.problem.m == s.problem.m &&
          c.problem.n == s.problem.n && c.problem.k == s.problem.k) {
        by_time[c.prediction.time_s].push_back(&c);
      }
    }
    int shape_tied = 0;
    int shape_apart = 0;
    for (const auto& [time, cases] : by_time) {
      for (std::size_t i = 0; i < cases.size(); ++i) {
        for (std::size_t j = i + 1; j < cases.size(); ++j) {
          ++shape_tied;
          shape_apart +=
              std::abs(cases[i]->measured_tflops / cases[j]->measured_tflops - 1) > 0.02 ? 1 : 0;
        }
      }
    }
    const std::string shape = std::to_string(s.problem.m) + "x" + std::to_string(s.problem.n) +
                              "x" + std::to_string(s.problem.k);
    EXPECT_EQ(s.tied_pairs, shape_tied) << shape;
    EXPECT_EQ(s.tied_pairs_measured_apart, shape_apart) << shape;
    if (s.held_out) {
      tied += s.tied_pairs;
      apart += s.tied_pairs_measured_apart;
    }
  }
  std::printf("  held-out sample shapes: %d tied pairs, %d measured more than 2%% apart\n", tied,
              apart);
  EXPECT_LE(apart, 37);  // guard at the level reached; the goal is 0
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
    EXPECT_GE(s.spearman, 0.9) << shape;    // issue 4's bar (met: 0.971 and 0.969)
    EXPECT_GE(s.spearman, 0.955) << shape;  // guard at the level reached
    // Issue 4's bar for the top-1 config is 95% of the measured best. Met at 256x4096x4096
    // (100%); at 4096^3 it was met (96.1%) with the calibration of the ladder split and is not
    // with the one fitted on the sample's training cases (90.3%: r08-dbuf-128x256x8 first,
    // issue 15's note), and is again (100%) since the compiled overhead and the rate-MAPE fit.
    // The best of the model's top 5 is the measured best on both.
    EXPECT_GE(s.top1_fraction, 0.99) << shape;
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
