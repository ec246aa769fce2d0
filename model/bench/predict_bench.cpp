// Prediction rate: full predictions (occupancy, waves, anatomy with its bank-conflict analysis,
// traffic, L2 under the raster order, roofline, latency, terms) per second on one core, and
// benchmarks that show the cost does not grow with M, N, K or the grid size.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "roofcast/calibration.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/predict.hpp"

namespace {

using roofcast::PredictInput;
namespace gemm = roofcast::gemm;
namespace kernels = roofcast::kernels;

const roofcast::GpuSpec& bench_gpu() { return roofcast::embedded_spec("h200-sxm"); }

PredictInput input_for(const gemm::TileConfig& c, gemm::Problem p, gemm::RasterOrder raster) {
  PredictInput in;
  in.problem = p;
  in.config = c;
  in.raster = raster;
  in.shared_memory_bytes = kernels::shared_memory_bytes(c);
  return in;
}

/// Every registry config at sizes from the validation plan (square, skinny, odd), each raster
/// order the rung launches (rungs 1-6: row-major).
const std::vector<PredictInput>& registry_inputs() {
  static const std::vector<PredictInput> inputs = [] {
    std::vector<PredictInput> out;
    const gemm::Problem sizes[] = {{512, 512, 512},   {4096, 4096, 4096}, {8192, 8192, 8192},
                                   {300, 4096, 4096}, {4097, 4097, 4097}, {8192, 1024, 4096}};
    const gemm::RasterOrder rasters[] = {{gemm::RasterKind::kRowMajor, 1},
                                         {gemm::RasterKind::kColumnMajor, 1},
                                         {gemm::RasterKind::kGrouped, 8}};
    for (const kernels::RegistryEntry& e : kernels::kRegistry) {
      for (const gemm::Problem& p : sizes) {
        for (const gemm::RasterOrder& r : rasters) {
          if (r.kind != gemm::RasterKind::kRowMajor && !kernels::takes_raster_order(e.config)) {
            continue;
          }
          out.push_back(input_for(e.config, p, r));
        }
      }
    }
    return out;
  }();
  return inputs;
}

const gemm::TileConfig& headline(int rung) {
  for (const kernels::RegistryEntry& e : kernels::kRegistry) {
    if (e.config.rung == rung && e.role == kernels::Role::kLadder) return e.config;
  }
  return kernels::kRegistry[0].config;
}

void BM_predict_registry(benchmark::State& state) {
  const roofcast::GpuSpec& gpu = bench_gpu();
  const auto& inputs = registry_inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    const roofcast::Prediction p = roofcast::kernels::predict(gpu, inputs[i]);
    benchmark::DoNotOptimize(p.time_s);
    i = i + 1 == inputs.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["inputs"] = static_cast<double>(inputs.size());
}
BENCHMARK(BM_predict_registry);

/// The same rung-9 config on M = N = K = 2^range(0): the grid grows as 4^k, K as 2^k.
void BM_predict_square(benchmark::State& state) {
  const std::int64_t size = std::int64_t{1} << state.range(0);
  const PredictInput in =
      input_for(headline(9), {size, size, size}, {gemm::RasterKind::kGrouped, 8});
  const roofcast::GpuSpec& gpu = bench_gpu();
  for (auto _ : state) benchmark::DoNotOptimize(roofcast::kernels::predict(gpu, in).time_s);
  state.SetItemsProcessed(state.iterations());
  state.counters["grid_blocks"] = static_cast<double>((size + 127) / 128 * ((size + 127) / 128));
}
BENCHMARK(BM_predict_square)->DenseRange(7, 30, 23 / 3);

/// K alone from 2^4 to 2^30 (M = N = 4096).
void BM_predict_k(benchmark::State& state) {
  const PredictInput in = input_for(headline(8), {4096, 4096, std::int64_t{1} << state.range(0)},
                                    {gemm::RasterKind::kRowMajor, 1});
  const roofcast::GpuSpec& gpu = bench_gpu();
  for (auto _ : state) benchmark::DoNotOptimize(roofcast::kernels::predict(gpu, in).time_s);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_predict_k)->Arg(4)->Arg(12)->Arg(20)->Arg(30);

/// The grid alone: M = N = 2^range(0) with K = 4096, for each raster order including
/// Z-order (whose gap sum loops over the bits of the grid side).
void BM_predict_grid(benchmark::State& state) {
  const std::int64_t side = std::int64_t{1} << state.range(0);
  const auto kind = static_cast<gemm::RasterKind>(state.range(1));
  const PredictInput in = input_for(headline(9), {side, side, 4096}, {kind, 8});
  const roofcast::GpuSpec& gpu = bench_gpu();
  for (auto _ : state) benchmark::DoNotOptimize(roofcast::kernels::predict(gpu, in).time_s);
  state.SetItemsProcessed(state.iterations());
  state.counters["grid_blocks"] = static_cast<double>((side + 127) / 128 * ((side + 127) / 128));
}
BENCHMARK(BM_predict_grid)->ArgsProduct({{7, 12, 17, 22, 30}, {0, 1, 2, 3}});

/// Each rung's headline config at 4096^3: the anatomy differs per rung.
void BM_predict_rung(benchmark::State& state) {
  const PredictInput in = input_for(headline(static_cast<int>(state.range(0))), {4096, 4096, 4096},
                                    {gemm::RasterKind::kRowMajor, 1});
  const roofcast::GpuSpec& gpu = bench_gpu();
  for (auto _ : state) benchmark::DoNotOptimize(roofcast::kernels::predict(gpu, in).time_s);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_predict_rung)->DenseRange(1, 10);

/// The L2 models alone on a grid of 2^range(0) tiles a side.
void BM_l2_model(benchmark::State& state) {
  roofcast::L2Input in;
  in.tiles_m = in.tiles_n = std::int64_t{1} << state.range(0);
  in.raster = {static_cast<gemm::RasterKind>(state.range(1)), 8};
  in.resident_blocks = 264;
  in.bm = in.bn = 128;
  in.a_panel_bytes = in.b_panel_bytes = 128.0 * 4096 * 4;
  in.a_slab_bytes = in.b_slab_bytes = 128.0 * 8 * 4;
  in.l2_bytes = 60.0 * 1024 * 1024;
  const auto model = static_cast<roofcast::L2Model>(state.range(2));
  for (auto _ : state) benchmark::DoNotOptimize(roofcast::l2_hit_rate(in, model).hit_rate);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_l2_model)->ArgsProduct({{1, 10, 20}, {0, 2, 3}, {0, 1}});

}  // namespace

BENCHMARK_MAIN();
