#include "roofcast/registers.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "predict_steps.hpp"

namespace roofcast {

std::string_view to_string(RegisterFeature feature) {
  switch (feature) {
    case RegisterFeature::kAccumulators:
      return "accumulators";
    case RegisterFeature::kFragments:
      return "fragments";
    case RegisterFeature::kLiveStaging:
      return "live_staging";
    case RegisterFeature::kRegisterStaged:
      return "register_staged";
    case RegisterFeature::kPipeline:
      return "pipeline";
    case RegisterFeature::kWarpTiled:
      return "warp_tiled";
    case RegisterFeature::kVectorLoads:
      return "vector_loads";
    case RegisterFeature::kLog2Threads:
      return "log2_threads";
    case RegisterFeature::kGlobalLoads:
      return "global_loads";
    case RegisterFeature::kWarpTiledAccumulators:
      return "warp_tiled_accumulators";
  }
  return "unknown";
}

RegisterFeatures register_features(const gemm::TileConfig& config, const KernelAnatomy& a) {
  RegisterFeatures f{};
  auto set = [&f](RegisterFeature feature, double value) {
    f[static_cast<std::size_t>(feature)] = value;
  };
  set(RegisterFeature::kAccumulators, a.outputs_per_thread);
  set(RegisterFeature::kFragments,
      (a.a_fragment + a.b_fragment) * std::max(1, a.live_fragment_sets));
  set(RegisterFeature::kLiveStaging, a.prefetch_tiles > 0 ? a.staging_registers : 0);
  set(RegisterFeature::kRegisterStaged, a.register_staged_loads);
  set(RegisterFeature::kPipeline, config.stages > 1 ? config.stages : 0);
  set(RegisterFeature::kWarpTiled, a.warp_tiled ? 1 : 0);
  set(RegisterFeature::kVectorLoads, config.vector_width == 4 ? 1 : 0);
  set(RegisterFeature::kLog2Threads, std::log2(std::max(1, a.threads)));
  set(RegisterFeature::kGlobalLoads, a.global_a.instructions + a.global_b.instructions);
  set(RegisterFeature::kWarpTiledAccumulators, a.warp_tiled ? a.outputs_per_thread : 0);
  return f;
}

int fitted_registers(const RegisterModel& model, const RegisterFeatures& features) {
  double count = model.intercept;
  for (std::size_t i = 0; i < features.size(); ++i) count += model.coefficients[i] * features[i];
  return std::max(1, static_cast<int>(std::lround(count)));
}

RegisterEstimate estimate_registers(const gemm::TileConfig& config, const KernelAnatomy& a,
                                    const RegisterModel& model) {
  RegisterEstimate r;
  r.accumulators = a.outputs_per_thread;
  r.fragments = (a.a_fragment + a.b_fragment) * std::max(1, a.live_fragment_sets);
  // Prefetching through registers keeps the next tile's values live during the compute phase;
  // otherwise they live only between the load and the store, before the compute phase.
  const bool staging_live = a.prefetch_tiles > 0;
  r.staging = staging_live ? a.staging_registers : 0;
  const int transient = staging_live ? 0 : a.staging_registers;
  r.addressing = kAddressRegisters;
  r.pipeline = config.stages > 1 ? 1 + config.stages : 0;
  r.total = register_count({.accumulators = r.accumulators,
                            .fragments = r.fragments,
                            .staging = r.staging,
                            .transient_staging = transient,
                            .pipeline = r.pipeline},
                           r.addressing);
  if (model.fitted) {
    r.total = fitted_registers(model, register_features(config, a));
    r.fitted = true;
  }
  return r;
}

int register_cap(const SmLimits& sm, int threads, int min_blocks) {
  if (min_blocks <= 0 || threads <= 0) return sm.max_registers_per_thread;
  const int warps = ceil_div(threads, sm.warp_size);
  const int partitions = std::max(1, sm.register_file_subpartitions);
  const int warps_per_partition = ceil_div(min_blocks * warps, partitions);
  int per_warp = sm.registers_per_sm / partitions / warps_per_partition;
  const int granularity = std::max(1, sm.warp_allocation_granularity);
  per_warp =
      std::min(per_warp, sm.max_registers_per_block / (ceil_div(warps, granularity) * granularity));
  per_warp = per_warp / sm.register_allocation_unit * sm.register_allocation_unit;
  return std::max(0, std::min(sm.max_registers_per_thread, per_warp / sm.warp_size));
}

bool accumulators_spill(const KernelAnatomy& a, int registers_per_thread,
                        double spill_bytes_per_thread) {
  return spill_bytes_per_thread > 0 &&
         a.outputs_per_thread + a.a_fragment + a.b_fragment > registers_per_thread;
}

SpillAccesses spill_accesses(double spilled_words, int k_tile, int accumulators,
                             bool accumulators_spilled) {
  if (!(spilled_words > 0)) return {};
  if (!accumulators_spilled) {
    return {kSpillPartialLoadsPerWord * spilled_words, kSpillPartialStoresPerWord * spilled_words};
  }
  const double loads = kSpillReloadScale * std::pow(spilled_words, kSpillReloadWordsExponent) *
                       std::pow(std::max(1, accumulators), kSpillReloadAccumulatorExponent) *
                       std::pow(std::max(1, k_tile), kSpillReloadKTileExponent);
  return {loads, kSpillStoresPerReload * loads};
}

namespace detail {

void assign_registers(const GpuSpec& gpu, const PredictInput& input, Prediction& p) {
  const KernelAnatomy& a = p.anatomy;
  const RegisterModel& model = p.calibration.registers;
  p.register_estimate = estimate_registers(p.config, a, model);
  SpillEstimate& spill = p.spill;
  if (input.registers_per_thread) {
    p.registers_per_thread = *input.registers_per_thread;
    spill.registers_needed = p.registers_per_thread;
    spill.registers_allocated = p.registers_per_thread;
    spill.bytes_per_thread = input.spill_bytes_per_thread;
  } else {
    p.registers_estimated = true;
    spill.registers_needed = p.register_estimate.total;
    const int cap = std::max(1, register_cap(gpu.sm, p.config.threads, input.min_blocks_per_sm));
    spill.registers_allocated = std::min(spill.registers_needed, cap);
    // The fitted model: within spill_margin of the cap ptxas fits the kernel without spilling.
    const bool spills = spill.registers_needed > cap + (model.fitted ? model.spill_margin : 0.0);
    spill.spilled_registers = spills ? spill.registers_needed - cap : 0;
    spill.bytes_per_thread = static_cast<double>(spill.spilled_registers) * kFloatBytes;
    // Spilled accumulators: the fitted law's local words (RegisterModel), not the overflow.
    if (spills && model.spill_words_scale > 0 &&
        a.outputs_per_thread + a.a_fragment + a.b_fragment > spill.registers_allocated) {
      spill.bytes_per_thread =
          model.spill_words_scale *
          std::pow(std::max(1, a.outputs_per_thread), model.spill_words_accumulator_exponent) *
          std::pow(std::max(1, a.k_tile), model.spill_words_k_tile_exponent) * kFloatBytes;
    }
    p.registers_per_thread = spill.registers_allocated;
  }
}

void add_spill_traffic(const GpuSpec& gpu, Prediction& p) {
  const KernelAnatomy& a = p.anatomy;
  SpillEstimate& spill = p.spill;
  // Local accesses by the count law (spill_accesses). Stores write through L1 to L2; the loads
  // that miss L1 (the spec's share) are read from L2.
  const double spilled_words = spill.bytes_per_thread / kFloatBytes;
  spill.accumulators_spilled =
      accumulators_spill(a, p.registers_per_thread, spill.bytes_per_thread);
  const SpillAccesses accesses =
      spill_accesses(spilled_words, a.k_tile, a.outputs_per_thread, spill.accumulators_spilled);
  spill.load_accesses_per_tile = accesses.loads;
  spill.store_accesses_per_tile = accesses.stores;
  spill.accesses_per_tile = accesses.loads + accesses.stores;
  const std::optional<double>& miss_share = gpu.microarchitecture.local_load_l1_miss_share;
  if (spilled_words > 0 && !miss_share) p.latencies.assume(AssumedFact::kLocalLoadL1MissShare);
  spill.l2_fraction = spilled_words > 0 ? miss_share.value_or(kAssumedLocalLoadL1MissShare) : 0.0;
  const double block_tiles =
      static_cast<double>(p.waste.grid_blocks()) * static_cast<double>(p.waste.k_tiles);
  spill.l2_bytes = (accesses.stores + spill.l2_fraction * accesses.loads) * kFloatBytes *
                   p.config.threads * block_tiles;
}

}  // namespace detail
}  // namespace roofcast
