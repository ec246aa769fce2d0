// The one JSON form of a tile config and of a GEMM problem. Every document that holds one (the
// CLI's and Python's results, the report, the measurement files) writes it with these.
#pragma once

#include <nlohmann/json.hpp>

#include "roofcast/gemm.hpp"

namespace roofcast::gemm {

/// {"rung", "layout", "bm", "bn", "bk", "tm", "tn", "wm", "wn", "threads", "stages",
/// "vector_width", "cluster"}: every field, 0 where the rung does not use it.
nlohmann::json config_json(const TileConfig& config);

/// {"m", "n", "k", "flops"}: flops = 2 M N K.
nlohmann::json problem_json(const Problem& problem);

}  // namespace roofcast::gemm
