// `roofcast rank`: the tuner API's ranking of a config space (or the kernel registry) for a
// batch of problems, as text tables or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "roofcast/spec.hpp"
#include "roofcast/tune/problems.hpp"
#include "roofcast/tune/rank.hpp"

namespace roofcast::views {

struct RankReport {
  GpuSpec gpu;
  std::string space;  // "enumerated" (the tile rules' space) or "registry"
  std::vector<tune::NamedProblem> problems;
  std::vector<tune::Ranking> rankings;  // [problem]
};

/// Text tables, one per problem; '=' after a rank marks a tie with the row above.
std::string rank_text(const RankReport& report);
/// The text table of problem `index` alone (rank_text is these in order), so that a caller can
/// print each problem as soon as it is ranked.
std::string rank_problem_text(const RankReport& report, std::size_t index);

/// The "ranking" document (docs/schema.md). Each ranked entry carries "rank" and
/// "tied_with_previous" (the same predicted time as the entry before it;
/// tune::Ranking::ranked says how ties are ordered).
nlohmann::json rank_json(const RankReport& report);
/// One element of the document's "problems" list.
nlohmann::json rank_problem_json(const RankReport& report, std::size_t index);

/// One row per ranked entry of every problem (csv.hpp), the problem's name and shape first.
std::string rank_csv(const RankReport& report);
/// The CSV's header row, and the rows of problem `index` (rank_csv is the header, then these).
std::string rank_csv_header();
std::string rank_problem_csv(const RankReport& report, std::size_t index);

/// The explanation of a ranked config (the "explanation" object of a ranked entry).
nlohmann::json explanation_json(const tune::Explanation& explanation);

}  // namespace roofcast::views
