// Occupancy evaluation rate: roofcast next to the CUDA toolkit's cuda_occupancy.h on the same
// inputs. Prints each rate (evaluations per second, one core) and roofcast's ratio to the header.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "roofcast/occupancy.hpp"
#include "roofcast/spec.hpp"

#if __has_include(<cuda_occupancy.h>)
#include "support/cuda_occupancy_adapter.hpp"
#define ROOFCAST_HAVE_OCCUPANCY_HEADER 1
#endif

namespace {

using roofcast::KernelLaunch;

constexpr int kInputs = 4096;

const roofcast::GpuSpec& bench_gpu() { return roofcast::embedded_spec("h100-sxm5"); }

/// The same random launches for every benchmark: realistic block sizes, registers, shared
/// memory and carveouts, with a few that cannot launch.
const std::vector<KernelLaunch>& inputs() {
  static const std::vector<KernelLaunch> launches = [] {
    std::mt19937 random(42);
    auto uniform = [&](int low, int high) {
      return std::uniform_int_distribution<int>(low, high)(random);
    };
    std::vector<KernelLaunch> out;
    for (int i = 0; i < kInputs; ++i) {
      KernelLaunch launch;
      launch.threads_per_block = uniform(1, 32) * 32;
      launch.registers_per_thread = uniform(16, 255);
      launch.static_shared_memory_bytes = uniform(0, 1) ? uniform(0, 49152) : 0;
      launch.dynamic_shared_memory_bytes = uniform(0, 1) ? uniform(0, 160000) : 0;
      if (uniform(0, 3) == 0) launch.carveout_percent = uniform(0, 100);
      out.push_back(launch);
    }
    return out;
  }();
  return launches;
}

/// The next input, wrapping at `count`: the one loop step every benchmark here takes (a compare,
/// no division), so the rates compare the occupancy calls alone.
inline std::size_t next_index(std::size_t i, std::size_t count) {
  return i + 1 == count ? 0 : i + 1;
}

void BM_roofcast_limits(benchmark::State& state) {
  const roofcast::SmLimits& sm = bench_gpu().sm;
  const auto& launches = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    const auto result = roofcast::compute_occupancy_limits(sm, launches[i]);
    benchmark::DoNotOptimize(result.blocks_per_sm);
    i = next_index(i, launches.size());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_roofcast_limits);

void BM_roofcast_with_headroom(benchmark::State& state) {
  const roofcast::SmLimits& sm = bench_gpu().sm;
  const auto& launches = inputs();
  std::size_t i = 0;
  for (auto _ : state) {
    const auto result = roofcast::compute_occupancy(sm, launches[i]);
    benchmark::DoNotOptimize(result.headroom.shared_memory_addable_bytes);
    i = next_index(i, launches.size());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_roofcast_with_headroom);

#ifdef ROOFCAST_HAVE_OCCUPANCY_HEADER
void BM_cuda_occupancy_header(benchmark::State& state) {
  const roofcast::GpuSpec& gpu = bench_gpu();
  const cudaOccDeviceProp properties = roofcast::testing::device_properties(gpu);
  // Attributes and state prepared outside the timed loop, as roofcast's inputs are.
  struct Prepared {
    cudaOccFuncAttributes attributes;
    cudaOccDeviceState state;
    int threads;
    size_t dynamic_bytes;
  };
  std::vector<Prepared> prepared;
  for (const KernelLaunch& launch : inputs()) {
    const int max_dynamic =
        std::max(0, gpu.sm.shared_memory_per_block_optin_bytes - launch.static_shared_memory_bytes);
    Prepared p{roofcast::testing::function_attributes(launch, max_dynamic),
               roofcast::testing::device_state(launch), launch.threads_per_block,
               static_cast<size_t>(launch.dynamic_shared_memory_bytes)};
    prepared.push_back(p);
  }
  std::size_t i = 0;
  for (auto _ : state) {
    const Prepared& p = prepared[i];
    cudaOccResult result;
    cudaOccMaxActiveBlocksPerMultiprocessor(&result, &properties, &p.attributes, &p.state,
                                            p.threads, p.dynamic_bytes);
    benchmark::DoNotOptimize(result.activeBlocksPerMultiprocessor);
    i = next_index(i, prepared.size());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_cuda_occupancy_header);
#endif

/// Console output plus a closing summary of rates and ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    // Repetitions are averaged per benchmark; of the aggregate rows only the mean is used
    // (it is all this reporter sees with --benchmark_display_aggregates_only).
    for (const Run& run : runs) {
      const bool aggregate_mean = run.run_type == Run::RT_Aggregate && run.aggregate_name == "mean";
      if (run.run_type != Run::RT_Iteration && !aggregate_mean) continue;
      if (aggregate_mean) rates_.erase(run.run_name.function_name);
      const auto items = run.counters.find("items_per_second");
      if (items == run.counters.end()) continue;
      Rate& rate = rates_[run.run_name.function_name];
      rate.sum += items->second.value;
      ++rate.count;
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nOccupancy evaluations per second (one core, %d random H100 launches):\n",
                kInputs);
    for (const auto& [name, rate] : rates_) {
      std::printf("  %-28s %12.3e /s\n", name.c_str(), rate.mean());
    }
    const auto header = rates_.find("BM_cuda_occupancy_header");
    if (header == rates_.end()) {
      std::printf("cuda_occupancy.h not found: no ratio\n");
      return;
    }
    for (const auto& [name, rate] : rates_) {
      if (name == header->first) continue;
      std::printf("  ratio %-26s %6.2fx the header's rate\n", name.c_str(),
                  rate.mean() / header->second.mean());
    }
  }

 private:
  struct Rate {
    double sum = 0;
    int count = 0;
    double mean() const { return count == 0 ? 0 : sum / count; }
  };
  std::map<std::string, Rate> rates_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
