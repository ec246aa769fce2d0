// The L2 models against the committed Nsight Compute measurement (CPU, runs in CI): every
// registry case with ncu numbers is predicted (uncalibrated: the L2 model does not depend on the
// time calibration) and its sector hit rate compared with lts__t_sector_hit_rate, its DRAM bytes
// read with dram__bytes_read. The bounds are regression guards set just above the achieved
// agreement; the printed table shows every case, grouped into the 4096^3 cases (the training
// split, where the one chosen constant of the sector hit rate, kMissLookupsPerDramSector, was
// chosen) and the rest (held out).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/validation/model_accuracy.hpp"

namespace roofcast::validation {
namespace {

namespace fs = std::filesystem;

struct Errors {
  int cases = 0;
  double sum_pp = 0;
  double max_pp = 0;
  double sum_dram_log = 0;  // |ln(predicted / measured DRAM bytes read)|
  void add(double error_pp, double dram_log) {
    ++cases;
    sum_pp += std::fabs(error_pp);
    max_pp = std::max(max_pp, std::fabs(error_pp));
    sum_dram_log += std::fabs(dram_log);
  }
  double mean_pp() const { return cases ? sum_pp / cases : 0.0; }
  double mean_dram_ratio() const { return cases ? std::exp(sum_dram_log / cases) : 1.0; }
};

struct Summary {
  Errors training;  // the 4096^3 cases
  Errors held_out;  // every other size
  Errors all;
  std::map<std::string, Errors> by_group;  // "<size> <raster>"
  int not_comparable = 0;  // ncu rate above 100% (comparable_hit_rate): listed, not scored
};

std::string size_text(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

bool in_l2_training_split(const gemm::Problem& p) {
  return p.m == 4096 && p.n == 4096 && p.k == 4096;
}

Summary evaluate(L2Model model, bool print) {
  const GpuSpec gpu =
      load_spec_file(fs::path(ROOFCAST_MEASUREMENTS_DIR) / ".." / "gpus" / "h200-sxm.json");
  const LadderMeasurement m = load_ladder_measurement(fs::path(ROOFCAST_MEASUREMENTS_DIR) /
                                                      "h200-sxm" / "sgemm-ladder.json");
  Summary s;
  for (const MeasuredCase& c : m.cases) {
    if (c.kernel == "cublas" || !c.ncu || !c.ncu->l2_hit_rate_pct || !c.ncu->dram_bytes_read) {
      continue;
    }
    const MeasuredKernel* kernel = m.find_kernel(c.kernel);
    if (kernel == nullptr) continue;
    const Prediction p = kernels::predict(gpu, predict_input(*kernel, c, model));
    const double predicted_pct = 100 * p.l2_sector_hit_rate;
    if (!comparable_hit_rate(*c.ncu->l2_hit_rate_pct)) {
      // Not a probability (rung 10 clusters: more sector hits than lookups), so no error.
      ++s.not_comparable;
      if (print) {
        std::printf("%-9s r%02d %-15s %-13s measured %6.2f%% predicted %6.2f%% (not comparable)\n",
                    to_string(model).data(), kernel->config.rung, size_text(c.problem).c_str(),
                    gemm::to_string(c.raster.value_or(gemm::RasterOrder{})).c_str(),
                    *c.ncu->l2_hit_rate_pct, predicted_pct);
      }
      continue;
    }
    const double error_pp = predicted_pct - *c.ncu->l2_hit_rate_pct;
    const double predicted_read = p.dram_bytes - p.traffic.c_write_bytes - p.traffic.c_read_bytes;
    const double dram_log = std::log(predicted_read / *c.ncu->dram_bytes_read);
    const std::string raster = gemm::to_string(c.raster.value_or(gemm::RasterOrder{}));
    (in_l2_training_split(c.problem) ? s.training : s.held_out).add(error_pp, dram_log);
    s.all.add(error_pp, dram_log);
    s.by_group[size_text(c.problem) + " " + raster].add(error_pp, dram_log);
    if (print) {
      std::printf(
          "%-9s r%02d %-15s %-13s measured %6.2f%% predicted %6.2f%% (%+6.2f pp)  "
          "operand hit %6.2f%%  DRAM read measured %8.1f MB predicted %8.1f MB\n",
          to_string(model).data(), kernel->config.rung, size_text(c.problem).c_str(),
          raster.c_str(), *c.ncu->l2_hit_rate_pct, predicted_pct, error_pp, 100 * p.l2.hit_rate,
          *c.ncu->dram_bytes_read / 1e6, predicted_read / 1e6);
    }
  }
  if (print) {
    for (const auto& [name, e] : s.by_group) {
      std::printf("%-9s %-30s %2d cases mean |error| %5.2f pp max %5.2f pp, DRAM read x%.2f\n",
                  to_string(model).data(), name.c_str(), e.cases, e.mean_pp(), e.max_pp,
                  e.mean_dram_ratio());
    }
    for (const auto& [name, e] :
         {std::pair<const char*, const Errors&>{"training 4096^3", s.training},
          {"held-out", s.held_out},
          {"all", s.all}}) {
      std::printf("%-9s %-16s %2d cases mean |error| %5.2f pp max %5.2f pp, DRAM read x%.2f\n",
                  to_string(model).data(), name, e.cases, e.mean_pp(), e.max_pp,
                  e.mean_dram_ratio());
    }
  }
  return s;
}

TEST(L2Agreement, RoofcastModelAgainstNsightCompute) {
  const Summary s = evaluate(L2Model::kRoofcast, true);
  ASSERT_GE(s.all.cases, 64);
  ASSERT_GE(s.training.cases, 16);
  // Achieved on the ad17452 measurement (85 cases) with the set-LRU survival and
  // kMissLookupsPerDramSector = 1.6 (chosen on the training split): training (4096^3, 23
  // cases) 3.55 pp, held out (62 cases) 2.79 pp, all 3.00 pp. The case set grew with run
  // 909d742 to 303 ncu cases (every training case, the ladder at 512^3..8192^3, the sweeps at
  // 2048^3, 512x2048x4096 and 256x4096x4096), so the guards are re-set at the levels reached on
  // it, not loosened on the old set. 2 rung-10 cluster cases (ncu 110-112%) are not comparable
  // (comparable_hit_rate) and are listed, not scored. With spill traffic counted as L2 hits
  // (kernel_sector_hit_rate's local_l2_bytes): training 4096^3 (23) 3.40 pp, held out (278)
  // 4.71 pp, all (301) 4.61 pp (before: 4.94 over 303 with the two > 100% cases), max 26.4
  // (rung 10 128x256 c2 at 512^3: ncu 61-62%, predicted 36%); DRAM read x1.05. The goal stays
  // 3 pp; the misses are 512x2048x4096 (79 cases, 6.7-7.4 pp, predicted above ncu),
  // 256x4096x4096 (7.9 pp) and 512^3 (8.4-13.0 pp). Run 42908a2 (new measurement, same
  // model): training 3.64 pp, held out 4.70, all 4.62, max 27.6. Run 8b790e0 (new
  // measurement with 2049^3 in the training sweep; the L2 model unchanged): training 3.49 pp,
  // held out 4.60, all 4.53, max 29.86 (the same rung 10 128x256 c2 at 512^3, column-major:
  // ncu 65.9%, predicted 36.0%; it was the 27.6 of 42908a2), so the max guard moves from 28.0
  // to 30.5; 8 cases above 100% (the two rung-10 c2 at 2048^3 and six at 2049^3: r05 64x64x8,
  // 64x64x16, 128x64x8, r06 64x64x8 padded and swizzled, r07 64x128x8; ncu 100.9-114.2%).
  // Regression guards:
  EXPECT_EQ(s.not_comparable, 8);
  EXPECT_LT(s.training.mean_pp(), 3.8);
  EXPECT_LT(s.held_out.mean_pp(), 4.9);
  EXPECT_LT(s.all.mean_pp(), 4.8);
  EXPECT_LT(s.all.max_pp, 30.5);
  EXPECT_LT(s.all.mean_dram_ratio(), 1.08);
}

TEST(L2Agreement, PublishedModelAgainstNsightCompute) {
  const Summary s = evaluate(L2Model::kPublished, true);
  ASSERT_GE(s.all.cases, 64);
  // The published formula, untuned (literal; only the shared operand -> sector conversion,
  // kernel_sector_hit_rate, changed with d 1.8 -> 1.6): 16.72 pp on all 85 cases of ad17452
  // (training 14.37, held out 17.59; it was 16.3 with d = 1.8); on the 301 comparable cases of
  // run 909d742: 19.90 pp (training 4096^3 14.06, held out 20.39). Re-set for the new set:
  EXPECT_LT(s.all.mean_pp(), 20.5);
}

}  // namespace
}  // namespace roofcast::validation
