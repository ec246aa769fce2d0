// The measured sample's configs (docs/sample.md): drawn from the tile rules by tune::sample_configs
// and committed as sample_configs.inc by `roofcast sample --write-include` (a CPU test regenerates
// it). Compiled kernels are numbered registry first, then the sample: compiled index i names
// kRegistry[i].config for i < kRegistrySize, else kSampleConfigs[i - kRegistrySize]. The sample's
// kernels are compiled only in the opt-in build (ROOFCAST_BUILD_SAMPLE=ON).
//
// Pure C++17, no CUDA.
#pragma once

#include <cstddef>

#include "roofcast/kernels/registry.hpp"

namespace roofcast::kernels {

inline constexpr TileConfig kSampleConfigs[] = {
#include "roofcast/kernels/sample_configs.inc"
};
inline constexpr std::size_t kSampleSize = sizeof(kSampleConfigs) / sizeof(kSampleConfigs[0]);
inline constexpr std::size_t kCompiledSize = kRegistrySize + kSampleSize;

/// The config of compiled index `index` (< kCompiledSize).
constexpr const TileConfig& compiled_config(std::size_t index) {
  return index < kRegistrySize ? kRegistry[index].config : kSampleConfigs[index - kRegistrySize];
}

/// Whether every sample config obeys its rung's tile rules (what its kernel static_asserts).
constexpr bool sample_obeys_tile_rules() {
  for (const TileConfig& config : kSampleConfigs) {
    if (violated_rule(config) != nullptr) return false;
  }
  return true;
}
static_assert(sample_obeys_tile_rules(), "a sample config breaks a tile rule: regenerate it");

/// The compiled index of the kernel whose kernel_id is `id` (registry first); kCompiledSize
/// when neither the registry nor the sample has it.
std::size_t find_compiled_kernel(std::string_view id);

}  // namespace roofcast::kernels
