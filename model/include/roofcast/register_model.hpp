// The fitted register model: registers per thread of a config that ptxas has not compiled, as a
// linear function of what the config's anatomy keeps live, with global coefficients fitted on
// the training configs of a measurement against ptxas's counts (fit_register_model in fit.hpp).
// Features and the choice of them: docs/model.md#register-estimate.
#pragma once

#include <array>
#include <string_view>

namespace roofcast {

/// The register model's inputs for one config (register_features in registers.hpp).
enum class RegisterFeature : int {
  kAccumulators = 0,           // TM * TN outputs
  kFragments = 1,              // (A + B fragment values per k) x live fragment sets
  kLiveStaging = 2,            // prefetched global values held across the compute phase
  kRegisterStaged = 3,         // a thread-tiled kernel's whole tile of loads held before its stores
  kPipeline = 4,               // stages when more than one (stage index and per-stage offsets)
  kWarpTiled = 5,              // 1 for warp-tiled kernels (warp and lane index decomposition)
  kVectorLoads = 6,            // 1 when global loads are float4 (a second, scalar fallback path)
  kLog2Threads = 7,            // log2(threads per block)
  kGlobalLoads = 8,            // global (or cp.async) load instructions per thread per K tile
  kWarpTiledAccumulators = 9,  // TM * TN of a warp-tiled kernel (0 for thread-tiled ones)
};
inline constexpr int kRegisterFeatureCount = 10;

/// "accumulators", "fragments", "live_staging", "register_staged", "pipeline", "warp_tiled",
/// "vector_loads", "log2_threads", "global_loads", "warp_tiled_accumulators": the names in
/// calibration files and JSON.
std::string_view to_string(RegisterFeature feature);

using RegisterFeatures = std::array<double, kRegisterFeatureCount>;

/// registers = round(intercept + sum coefficient_i * feature_i), at least 1; when that exceeds
/// the launch bound's register cap by more than spill_margin registers ptxas spills the excess,
/// otherwise it fits the kernel into the cap without spilling. Unfitted (fitted false): the
/// model's hand-written count (estimate_registers, docs/model.md#register-estimate).
struct RegisterModel {
  bool fitted = false;
  double intercept = 0;
  RegisterFeatures coefficients{};
  double spill_margin = 0;
  /// Local words per thread of a config whose accumulators spill (they and one k's fragments
  /// exceed the registers): spill_words_scale * accumulators^spill_words_accumulator_exponent *
  /// BK^spill_words_k_tile_exponent, fitted in logs on the training configs ptxas spilled so
  /// (ptxas places whole register arrays in local memory, not just the overflow). 0 scale: not
  /// fitted, the overflow (needed - cap) is the spill.
  double spill_words_scale = 0;
  double spill_words_accumulator_exponent = 0;
  double spill_words_k_tile_exponent = 0;

  bool operator==(const RegisterModel&) const = default;
};

}  // namespace roofcast
