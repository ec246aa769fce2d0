#include "roofcast/tune/baselines.hpp"
#include "roofcast/kernels/anatomy.hpp"

#include <algorithm>
#include <stdexcept>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/traffic.hpp"
#include "roofcast/tune/rank.hpp"

namespace roofcast::tune {

namespace {

/// Triton's constants (matmul_perf_model.py): subcores per SM, warps per CTA that count for
/// compute, CTAs that saturate DRAM, the A100's SM count, the L2-to-DRAM bandwidth ratio, the
/// L2 hit rate of re-reads, and the store bandwidth share.
constexpr double kSubcoresPerSm = 4;
constexpr double kCountedWarpsPerCta = 4;
constexpr double kSaturatingCtas = 32;
constexpr double kOriginalSmCount = 108;
constexpr double kL2OverDramBandwidth = 4;
constexpr double kAssumedL2Hit = 0.8;
constexpr double kStoreBandwidthShare = 0.6;
constexpr double kElementBytes = 4;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiOps = 1024.0 * 1024.0 * 1024.0;

struct Facts {
  std::size_t index = 0;
  int active_warps = 0;
  std::int64_t tile_area = 0;
  int bk = 0;
  double triton_ms = 0;
};

/// Resident warps per SM with the candidate's registers (given, or estimated and capped):
/// predict()'s own occupancy, so the baselines see exactly the registers roofcast does; -1 when
/// it cannot launch.
int active_warps(const GpuSpec& gpu, const gemm::Problem& problem, const Candidate& c) {
  // The GPU's calibration carries its fitted register model: the registers rank() sees.
  const Prediction p =
      kernels::predict(gpu, predict_input(c, problem), default_calibration(gpu, nullptr));
  return p.launchable ? p.occupancy.active_warps : -1;
}

}  // namespace

std::string_view to_string(Selector selector) {
  switch (selector) {
    case Selector::kRoofcast:
      return "roofcast";
    case Selector::kHighestOccupancy:
      return "highest_occupancy";
    case Selector::kLargestTile:
      return "largest_tile";
    case Selector::kTritonFormula:
      return "triton_formula";
  }
  return "unknown";
}

double triton_matmul_estimate_ms(const GpuSpec& gpu, const gemm::Problem& problem,
                                 const gemm::TileConfig& config) {
  if (config.bm < 1 || config.bn < 1) {
    throw std::invalid_argument("triton_matmul_estimate_ms: BM and BN must be >= 1");
  }
  const double ctas_m = static_cast<double>(gemm::tiles_m(problem, config));
  const double ctas_n = static_cast<double>(gemm::tiles_n(problem, config));
  const double ctas = ctas_m * ctas_n;
  const double m = std::max<double>(static_cast<double>(problem.m), config.bm);
  const double n = std::max<double>(static_cast<double>(problem.n), config.bn);
  const double k = static_cast<double>(problem.k);
  const int threads = config.threads > 0 ? config.threads : kernels::derived_threads(config);
  const double warps = std::max(1, (threads + 31) / 32);

  const double subcores = kSubcoresPerSm * gpu.chip.sm_count;
  const double tflops = std::min(subcores, ctas * std::min(warps, kCountedWarpsPerCta)) / subcores *
                        gpu.peak_TFLOPS.fp32;
  const double compute_ms = 2.0 * m * n * k / kGiOps / tflops;

  const double bw1 = std::min(1.0, ctas / kSaturatingCtas);
  const double bw2 =
      std::clamp((ctas - kSaturatingCtas) / (kOriginalSmCount - kSaturatingCtas), 0.0, 1.0);
  const double dram_GBps = gpu.chip.dram_bw_GBps * (0.95 * bw1 + 0.05 * bw2);
  const double l2_GBps = dram_GBps * kL2OverDramBandwidth;
  const double miss = 1 - kAssumedL2Hit;
  const double a_bytes = m * k * kElementBytes;
  const double b_bytes = n * k * kElementBytes;
  const double dram_MiB =
      (a_bytes * (1 + miss * (ctas_n - 1)) + b_bytes * (1 + miss * (ctas_m - 1))) / kMiB;
  const double l2_MiB =
      (a_bytes * kAssumedL2Hit * (ctas_n - 1) + b_bytes * kAssumedL2Hit * (ctas_m - 1)) / kMiB;
  const double load_ms = dram_MiB / dram_GBps + l2_MiB / l2_GBps;
  const double store_ms = m * n * kElementBytes / kMiB / (dram_GBps * kStoreBandwidthShare);
  return std::max(compute_ms, load_ms) + store_ms;
}

std::vector<std::size_t> baseline_order(const GpuSpec& gpu, const gemm::Problem& problem,
                                        const std::vector<Candidate>& candidates,
                                        Selector selector) {
  if (selector == Selector::kRoofcast) {
    throw std::invalid_argument("baseline_order: roofcast's own order comes from rank()");
  }
  std::vector<Facts> facts;
  facts.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const int warps = active_warps(gpu, problem, c);
    if (warps < 0) continue;
    Facts f;
    f.index = i;
    f.active_warps = warps;
    f.tile_area = static_cast<std::int64_t>(c.config.bm) * c.config.bn;
    f.bk = c.config.bk;
    if (selector == Selector::kTritonFormula) {
      f.triton_ms = triton_matmul_estimate_ms(gpu, problem, c.config);
    }
    facts.push_back(f);
  }
  auto by_occupancy = [](const Facts& a, const Facts& b) {
    if (a.active_warps != b.active_warps) return a.active_warps > b.active_warps;
    if (a.tile_area != b.tile_area) return a.tile_area > b.tile_area;
    if (a.bk != b.bk) return a.bk > b.bk;
    return a.index < b.index;
  };
  auto by_tile = [](const Facts& a, const Facts& b) {
    if (a.tile_area != b.tile_area) return a.tile_area > b.tile_area;
    if (a.bk != b.bk) return a.bk > b.bk;
    if (a.active_warps != b.active_warps) return a.active_warps > b.active_warps;
    return a.index < b.index;
  };
  auto by_triton = [](const Facts& a, const Facts& b) {
    if (a.triton_ms != b.triton_ms) return a.triton_ms < b.triton_ms;
    return a.index < b.index;
  };
  if (selector == Selector::kHighestOccupancy) std::sort(facts.begin(), facts.end(), by_occupancy);
  if (selector == Selector::kLargestTile) std::sort(facts.begin(), facts.end(), by_tile);
  if (selector == Selector::kTritonFormula) std::sort(facts.begin(), facts.end(), by_triton);
  std::vector<std::size_t> order;
  order.reserve(facts.size());
  for (const Facts& f : facts) order.push_back(f.index);
  return order;
}

}  // namespace roofcast::tune
