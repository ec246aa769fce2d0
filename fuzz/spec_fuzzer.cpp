// libFuzzer target: the spec loader (roofcast::parse_spec) and the model behind it.
//
// Input: one GPU spec document (data/gpus/*.json are the seeds). A document the loader refuses
// with SpecError is the expected outcome for most inputs; any other exception escapes and is a
// finding. A document it accepts must be usable: the occupancy model runs for a few launches
// (fixed ones and ones at the spec's own limits) and keeps its invariants, and predict() runs
// for every rung's headline config of the registry on three problems, each launchable one with
// a finite, positive time.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "roofcast/calibration.hpp"
#include "roofcast/gemm.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"

namespace {

using roofcast::fuzz::check;

/// Launches whose arguments compute_occupancy accepts on any spec (so any exception is a
/// finding): small fixed ones, and ones at and just past the spec's limits.
std::vector<roofcast::KernelLaunch> launches(const roofcast::SmLimits& sm) {
  auto clamp = [](int value, int low, int high) { return std::clamp(value, low, high); };
  std::vector<roofcast::KernelLaunch> out;
  out.push_back({256, 64, 0, 0, std::nullopt, std::nullopt});
  out.push_back({1024, 32, 4096, 0, std::nullopt, std::nullopt});
  out.push_back({128, 255, 0, 49152, std::nullopt, std::nullopt});
  out.push_back({96, 0, 0, 0, std::nullopt, 0});
  out.push_back({33, 17, 100, 1000, std::nullopt, 37});
  // At the limits: the most threads, registers and opt-in shared memory a block may have.
  const int threads = clamp(sm.max_threads_per_block, 1, 1 << 24);
  const int registers = clamp(sm.max_registers_per_thread, 0, 1 << 16);
  const int optin = clamp(sm.shared_memory_per_block_optin_bytes, 0, 1 << 30);
  out.push_back({threads, registers, 0, optin, std::nullopt, 100});
  out.push_back({clamp(threads + 1, 1, 1 << 24), clamp(registers + 1, 0, 1 << 16), 0,
                 clamp(optin + 1, 0, 1 << 30), std::nullopt, std::nullopt});
  // An explicit kernel maximum equal to the dynamic size.
  out.push_back(
      {sm.warp_size > 0 ? clamp(sm.warp_size, 1, 1 << 24) : 32, 40, 0, optin / 2, optin / 2, 50});
  return out;
}

void check_occupancy(const roofcast::SmLimits& sm, const roofcast::KernelLaunch& launch) {
  const roofcast::OccupancyResult r = roofcast::compute_occupancy(sm, launch);
  check(r.blocks_per_sm >= 0, "blocks_per_sm >= 0");
  check(r.launchable() == (r.blocks_per_sm > 0), "launchable exactly when a block is resident");
  check(r.active_warps <= r.max_warps, "active warps <= max warps");
  check(r.occupancy >= 0 && r.occupancy <= 1, "occupancy within 0..1");
  if (r.launchable()) {
    check(r.headroom.registers_addable >= 0, "headroom.registers_addable >= 0");
    check(r.headroom.shared_memory_addable_bytes >= 0, "headroom.shared_memory_addable >= 0");
  }
}

void check_predictions(const roofcast::GpuSpec& gpu) {
  namespace gemm = roofcast::gemm;
  roofcast::Calibration calibration;
  if (const auto stored = roofcast::embedded_calibration(gpu.id)) {
    calibration = stored->parameters;
  }
  static constexpr gemm::Problem kProblems[] = {{4096, 4096, 4096}, {1, 1, 1}, {2049, 127, 4099}};
  int variant = 0;
  for (const auto& entry : roofcast::kernels::kRegistry) {
    if (entry.role != roofcast::kernels::Role::kLadder) continue;
    for (const gemm::Problem& problem : kProblems) {
      // Alternate raster orders, L2 models and beta so that each is reached.
      ++variant;
      gemm::RasterOrder raster;
      if (roofcast::kernels::takes_raster_order(entry.config) && variant % 2 == 0) {
        raster = {gemm::RasterKind::kGrouped, 8};
      }
      const roofcast::L2Model l2 =
          variant % 3 == 0 ? roofcast::L2Model::kPublished : roofcast::L2Model::kRoofcast;
      const roofcast::PredictInput in =
          roofcast::fuzz::registry_input(entry.config, problem, raster, l2, variant % 5 == 0);
      roofcast::fuzz::check_prediction(roofcast::kernels::predict(gpu, in, calibration));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  roofcast::GpuSpec gpu;
  try {
    gpu = roofcast::parse_spec(text, "fuzz-input.json");
  } catch (const roofcast::SpecError& error) {
    roofcast::fuzz::refused(error);
    return 0;
  }
  roofcast::fuzz::accepted("a spec");
  check(gpu.origin == "fuzz-input.json", "the spec's origin is the name given");
  check(!roofcast::gpu_id_problem(gpu.id), "a parsed spec's id is a valid GPU id");
  for (const roofcast::KernelLaunch& launch : launches(gpu.sm)) check_occupancy(gpu.sm, launch);
  check_predictions(gpu);
  return 0;
}
