// `roofcast rank`: the tuner API's ranking of a config space (or the kernel registry) for a
// batch of problems, as text tables or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "roofcast/tune/problems.hpp"
#include "roofcast/tune/rank.hpp"

namespace roofcast::views {

struct RankReport {
  std::string gpu_id;
  std::string space;  // "enumerated" (the tile rules' space) or "registry"
  std::vector<tune::NamedProblem> problems;
  std::vector<tune::Ranking> rankings;  // [problem]
};

std::string rank_text(const RankReport& report);
nlohmann::json rank_json(const RankReport& report);

}  // namespace roofcast::views
