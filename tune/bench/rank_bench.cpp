// Ranking rate: rank() over 1,000,000 candidates for one problem on one core (the tuner target:
// under one second), with the candidates as a tuner enumerates them (one tile config's raster
// orders adjacent, so its kernel anatomy is computed once) and shuffled (every candidate
// analysed from scratch); plus enumeration of the space and ranking the kernel registry.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <vector>

#include "roofcast/calibration.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/rank.hpp"
#include "roofcast/tune/space.hpp"

namespace {

using namespace roofcast;

constexpr std::size_t kMillion = 1000000;

// The whole of what roofcast.predict does per call in C++ (python/src/core.cpp predict_config),
// for python/bench/interface_bench.py: the rung-9 headline at 4096^3 on the H200, row-major,
// tune::predict_input, the tile-rule check, the embedded calibration's lookup, kernels::predict.
void BM_predict_like_python(benchmark::State& state) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  gemm::TileConfig config;
  for (const kernels::RegistryEntry& e : kernels::kRegistry) {
    if (e.config.rung == 9 && e.role == kernels::Role::kLadder) config = e.config;
  }
  const tune::Candidate candidate{config, {gemm::RasterKind::kRowMajor, 1}, std::nullopt, 0};
  for (auto _ : state) {
    const PredictInput in = tune::predict_input(candidate, {4096, 4096, 4096}, false);
    benchmark::DoNotOptimize(kernels::violated_rule(in.config));
    const StoredCalibration* stored = embedded_calibration(gpu.id);
    const Prediction p = kernels::predict(gpu, in, stored ? stored->parameters : Calibration{});
    benchmark::DoNotOptimize(p.tflops);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_predict_like_python);

/// A wide space: BM, BN in steps of 32 up to 256, grouped orders with every group size
/// 1..64. Its distinct (config, raster) candidates number more than a million; the first
/// million in enumeration order are used.
tune::SpaceBounds wide_bounds() {
  tune::SpaceBounds b;
  b.block_tiles = {32, 64, 96, 128, 160, 192, 224, 256};
  b.rasters = {{gemm::RasterKind::kRowMajor, 1}, {gemm::RasterKind::kColumnMajor, 1}};
  for (int g = 1; g <= 64; ++g) b.rasters.push_back({gemm::RasterKind::kGrouped, g});
  return b;
}

const std::vector<tune::Candidate>& million_candidates() {
  static const std::vector<tune::Candidate> candidates = [] {
    std::vector<tune::Candidate> all =
        tune::enumerate_candidates(embedded_spec("h200-sxm"), wide_bounds());
    if (all.size() > kMillion) all.resize(kMillion);
    return all;
  }();
  return candidates;
}

const std::vector<tune::Candidate>& million_shuffled() {
  static const std::vector<tune::Candidate> candidates = [] {
    std::vector<tune::Candidate> all = million_candidates();
    std::shuffle(all.begin(), all.end(), std::mt19937_64(42));
    return all;
  }();
  return candidates;
}

void rank_all(benchmark::State& state, const std::vector<tune::Candidate>& candidates) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  tune::RankOptions options;
  options.top = 10;
  options.list_pruned = false;
  for (auto _ : state) {
    const tune::Ranking r = tune::rank(gpu, {4096, 4096, 4096}, candidates, options);
    benchmark::DoNotOptimize(r.ranked.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(candidates.size()));
  state.counters["candidates"] = static_cast<double>(candidates.size());
}

void BM_rank_million(benchmark::State& state) { rank_all(state, million_candidates()); }
BENCHMARK(BM_rank_million)->Unit(benchmark::kMillisecond)->MinTime(3);

void BM_rank_million_shuffled(benchmark::State& state) { rank_all(state, million_shuffled()); }
BENCHMARK(BM_rank_million_shuffled)->Unit(benchmark::kMillisecond)->MinTime(3);

void BM_enumerate_default_space(benchmark::State& state) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  std::size_t n = 0;
  for (auto _ : state) {
    const auto candidates = tune::enumerate_candidates(gpu);
    n = candidates.size();
    benchmark::DoNotOptimize(candidates.data());
  }
  state.counters["candidates"] = static_cast<double>(n);
}
BENCHMARK(BM_enumerate_default_space)->Unit(benchmark::kMillisecond);

void BM_rank_registry(benchmark::State& state) {
  std::vector<gemm::TileConfig> configs;
  for (const auto& e : kernels::kRegistry) configs.push_back(e.config);
  const std::vector<tune::Candidate> candidates = tune::with_raster_orders(configs);
  rank_all(state, candidates);
}
BENCHMARK(BM_rank_registry)->Unit(benchmark::kMicrosecond);

// The call python/bench/interface_bench.py times through roofcast.rank: the H200's default
// enumerated space at 4096^3, top 10.
void BM_rank_default_space(benchmark::State& state) {
  rank_all(state, tune::enumerate_candidates(embedded_spec("h200-sxm")));
}
BENCHMARK(BM_rank_default_space)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
