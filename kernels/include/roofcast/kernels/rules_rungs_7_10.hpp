// Tile rules and resource formulas of rungs 7-10. Each rule is a named constexpr predicate;
// the rung's kernel static_asserts it with its reason, and violated_rule_rungs_7_10 returns
// the reason of the first one broken (the model's config enumeration uses it).
// Pure C++17, no CUDA.
#pragma once

#include "roofcast/gemm.hpp"

namespace roofcast::kernels::rules {

/// Shared memory of one block of a rung-7..10 config, bytes.
constexpr int shared_memory_bytes_rungs_7_10(const gemm::TileConfig& c) {
  (void)c;
  return 0;  // TODO(rungs 7-10): formula per rung
}

/// Reason of the first broken rule, nullptr when valid.
constexpr const char* violated_rule_rungs_7_10(const gemm::TileConfig& c) {
  (void)c;
  return "rungs 7-10: rules not written yet";
}

}  // namespace roofcast::kernels::rules
