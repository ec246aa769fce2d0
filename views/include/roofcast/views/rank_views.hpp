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

/// Text tables, one per problem; '=' after a rank marks a tie with the row above.
std::string rank_text(const RankReport& report);
/// Each ranked entry carries "rank" and "tied_with_previous" (the same predicted time as the
/// entry before it; tune::Ranking::ranked says how ties are ordered).
nlohmann::json rank_json(const RankReport& report);
/// One row per ranked entry of every problem (csv.hpp), the problem's name and shape first.
std::string rank_csv(const RankReport& report);

}  // namespace roofcast::views
