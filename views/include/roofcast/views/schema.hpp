// The parts every JSON document of roofcast shares (docs/schema.md): the document header, the
// GPU, the limiter list, the occupancy summary and the calibration. Each result's writer (views
// and Python alike) builds its document from these, so a quantity has one name and one type
// everywhere. Units are in the key names, lower case: _s, _tflops, _gbps, _mhz, _bytes, _cycles.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "roofcast/occupancy.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::views::schema {

/// The version of every document's shape; raised when a key is renamed, removed or changes type
/// (adding a key does not raise it).
inline constexpr int kVersion = 1;

/// A top-level document: {"schema_version": kVersion, "kind": kind}. Kinds: gpus, occupancy,
/// occupancy_table, prediction, roofline, ranking, ladder_table, accuracy, selection, report.
nlohmann::json document(std::string_view kind);

/// {"id", "name", "compute_capability": "9.0", "origin"}.
nlohmann::json gpu(const GpuSpec& gpu);

/// The binding occupancy limits as a list of names, in the order warps, registers,
/// shared_memory, blocks (empty when the kernel does not launch).
nlohmann::json limiters(unsigned limiter_bits);

/// A per-limit block count: null where the limit does not bind (LimitBlocks::kUnlimited).
nlohmann::json block_limit(int blocks);

/// {"blocks_per_sm", "active_warps", "max_warps", "occupancy", "limiters"}.
nlohmann::json occupancy_summary(const OccupancyResult& result);

/// Every calibration parameter by name, plus "calibrated" (false: the identity calibration).
nlohmann::json calibration(const Calibration& calibration);

}  // namespace roofcast::views::schema
