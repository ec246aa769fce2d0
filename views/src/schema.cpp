#include "roofcast/views/schema.hpp"

#include <string>

#include "roofcast/calibration.hpp"

namespace roofcast::views::schema {

using nlohmann::json;

json document(std::string_view kind) {
  return {{"schema_version", kVersion}, {"kind", std::string(kind)}};
}

json gpu(const GpuSpec& gpu) {
  return {{"id", gpu.id},
          {"name", gpu.name},
          {"compute_capability", std::to_string(gpu.compute_capability.major) + "." +
                                     std::to_string(gpu.compute_capability.minor)},
          {"origin", gpu.origin}};
}

json limiters(unsigned limiter_bits) {
  json out = json::array();
  for (unsigned bit : {kLimitWarps, kLimitRegisters, kLimitSharedMemory, kLimitBlocks}) {
    if ((limiter_bits & bit) != 0) out.push_back(limiter_names(bit));
  }
  return out;
}

json block_limit(int blocks) {
  return blocks == LimitBlocks::kUnlimited ? json(nullptr) : json(blocks);
}

json occupancy_summary(const OccupancyResult& r) {
  return {{"blocks_per_sm", r.blocks_per_sm},
          {"active_warps", r.active_warps},
          {"max_warps", r.max_warps},
          {"occupancy", r.occupancy},
          {"limiters", limiters(r.limiters)}};
}

json calibration(const Calibration& c) {
  json out = json::object();
  for (const CalibrationParameter& parameter : kCalibrationParameters) {
    out[std::string(parameter.name)] = c.*parameter.field;
  }
  out["calibrated"] = !(c == Calibration{});
  return out;
}

}  // namespace roofcast::views::schema
