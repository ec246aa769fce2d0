// Tile rules and resource formulas of rungs 1-6. Each rule is a named constexpr predicate;
// the rung's kernel static_asserts it with its reason, and violated_rule_rungs_1_6 returns
// the reason of the first one broken (the model's config enumeration uses it).
// Pure C++17, no CUDA.
#pragma once

#include "roofcast/gemm.hpp"

namespace roofcast::kernels::rules {

// Rung 1 (naive).
constexpr bool naive_threads_match_tile(int bm, int bn) {
  return bm >= 1 && bn >= 1 && bm * bn <= 1024;
}
constexpr bool naive_block_is_warp_multiple(int bm, int bn) { return bm >= 1 && bn % 32 == 0; }

/// Shared memory of one block of a rung-1..6 config, bytes.
constexpr int shared_memory_bytes_rungs_1_6(const gemm::TileConfig& c) {
  if (c.rung == 1) return 0;  // naive: no shared memory
  return 0;                   // TODO(rungs 2-6): formula per rung
}

/// Reason of the first broken rule, nullptr when valid.
constexpr const char* violated_rule_rungs_1_6(const gemm::TileConfig& c) {
  if (c.rung == 1) {
    if (!naive_threads_match_tile(c.bm, c.bn)) return "naive: BM * BN threads, at most 1024";
    if (!naive_block_is_warp_multiple(c.bm, c.bn)) return "naive: BN must be a multiple of 32";
    if (c.threads != c.bm * c.bn) return "naive: threads must equal BM * BN";
    return nullptr;
  }
  return "rungs 2-6: rules not written yet";
}

}  // namespace roofcast::kernels::rules
