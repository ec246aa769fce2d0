#include "roofcast/views/rank_views.hpp"

#include <cstdio>
#include <sstream>

#include "roofcast/gemm_json.hpp"
#include "roofcast/views/csv.hpp"
#include "roofcast/views/schema.hpp"

#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"

namespace roofcast::views {

namespace {

std::string shape(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

/// Under a ranking that shows a tie: what '=' means and how ties are ordered (tune::Ranking).
constexpr const char* kTieLegend =
    "   = tied with the row above (the same predicted time): ties go by fewer shared-memory "
    "bytes per block, then fewer threads, fewer stages, then the kernel id\n";

const std::vector<std::string> kCsvColumns = {"problem",
                                              "m",
                                              "n",
                                              "k",
                                              "rank",
                                              "tied_with_previous",
                                              "kernel_id",
                                              "raster",
                                              "tflops",
                                              "time_s",
                                              "blocks_per_sm",
                                              "limiters",
                                              "occupancy",
                                              "waves",
                                              "tail_efficiency",
                                              "l2_operand_hit_rate",
                                              "l2_sector_hit_rate",
                                              "binding_term",
                                              "registers_per_thread",
                                              "shared_memory_bytes",
                                              "threads",
                                              "candidate_index"};

}  // namespace

nlohmann::json explanation_json(const tune::Explanation& e) {
  return {{"registers_per_thread", e.registers_per_thread},
          {"registers_estimated", e.registers_estimated},
          {"spill_bytes_per_thread", e.spill_bytes_per_thread},
          {"shared_memory_bytes", e.shared_memory_bytes},
          {"threads", e.threads},
          {"blocks_per_sm", e.blocks_per_sm},
          {"limiters", schema::limiters(e.occupancy_limiters)},
          {"occupancy", e.occupancy},
          {"grid_blocks", e.grid_blocks},
          {"waves", e.waves},
          {"tail_efficiency", e.tail_efficiency},
          {"l2_operand_hit_rate", e.l2_operand_hit_rate},
          {"l2_sector_hit_rate", e.l2_sector_hit_rate},
          {"binding_term", std::string(to_string(e.binding_term))},
          {"binding_roofline_level", std::string(to_string(e.binding_level))},
          {"roofline_tflops", e.roofline_TFLOPS}};
}

std::string rank_text(const RankReport& report) {
  std::string out;
  for (std::size_t i = 0; i < report.rankings.size(); ++i) out += rank_problem_text(report, i);
  return out;
}

std::string rank_problem_text(const RankReport& report, std::size_t i) {
  std::ostringstream out;
  char line[512];
  {
    const tune::NamedProblem& np = report.problems[i];
    const tune::Ranking& r = report.rankings[i];
    const std::string shape_text = shape(np.problem);
    out << report.gpu.id << "  " << np.name
        << (np.name == shape_text ? std::string() : " (" + shape_text + ")") << ": " << r.candidates
        << " candidates (" << report.space << " space), " << r.kept << " kept";
    bool first = true;
    for (int reason = 0; reason < tune::kPruneReasonCount; ++reason) {
      if (r.pruned_by_reason[reason] == 0) continue;
      out << (first ? "; pruned: " : ", ")
          << tune::to_string(static_cast<tune::PruneReason>(reason)) << " "
          << r.pruned_by_reason[reason];
      first = false;
    }
    if (r.other_rasters > 0) out << "; " << r.other_rasters << " slower raster orders folded";
    out << (r.calibrated ? "" : "; uncalibrated model") << "\n";
    std::snprintf(line, sizeof line, "%4s  %-54s %-12s %7s %10s %4s %-20s %5s %5s %5s %5s %-13s\n",
                  "#", "kernel", "raster", "TFLOPS", "time_us", "blk", "occupancy limiter", "occ",
                  "waves", "tail", "L2op", "binding");
    out << line;
    bool ties = false;
    for (std::size_t j = 0; j < r.ranked.size(); ++j) {
      const tune::Ranked& x = r.ranked[j];
      const tune::Explanation& e = x.why;
      ties = ties || x.tied_with_previous;
      std::snprintf(
          line, sizeof line,
          "%4zu%c %-54s %-12s %7.2f %10.1f %4d %-20s %5.2f %5lld %5.2f %5.2f %-13s\n", j + 1,
          x.tied_with_previous ? '=' : ' ', kernels::kernel_id(x.candidate.config).c_str(),
          gemm::to_string(x.candidate.raster).c_str(), x.tflops, x.time_s * 1e6, e.blocks_per_sm,
          limiter_names(e.occupancy_limiters).c_str(), e.occupancy, static_cast<long long>(e.waves),
          e.tail_efficiency, e.l2_operand_hit_rate, std::string(to_string(e.binding_term)).c_str());
      out << line;
    }
    if (ties) out << kTieLegend;
    out << "\n";
  }
  return out.str();
}

nlohmann::json rank_problem_json(const RankReport& report, std::size_t i) {
  const tune::NamedProblem& np = report.problems[i];
  const tune::Ranking& r = report.rankings[i];
  nlohmann::json pruned = nlohmann::json::object();
  for (int reason = 0; reason < tune::kPruneReasonCount; ++reason) {
    pruned[std::string(tune::to_string(static_cast<tune::PruneReason>(reason)))] =
        r.pruned_by_reason[reason];
  }
  nlohmann::json ranked = nlohmann::json::array();
  for (std::size_t j = 0; j < r.ranked.size(); ++j) {
    const tune::Ranked& x = r.ranked[j];
    ranked.push_back({{"rank", j + 1},
                      {"tied_with_previous", x.tied_with_previous},
                      {"candidate_index", x.index},
                      {"kernel_id", kernels::kernel_id(x.candidate.config)},
                      {"raster", gemm::to_string(x.candidate.raster)},
                      {"config", gemm::config_json(x.candidate.config)},
                      {"time_s", x.time_s},
                      {"tflops", x.tflops},
                      {"explanation", explanation_json(x.why)}});
  }
  nlohmann::json out = {
      {"name", np.name}, {"problem", gemm::problem_json(np.problem)}, {"candidates", r.candidates},
      {"kept", r.kept},  {"other_rasters", r.other_rasters},          {"pruned_candidates", pruned},
      {"ranked", ranked}};
  // Listed only when asked for (RankOptions::list_pruned): which candidate went, and why.
  if (!r.pruned.empty()) {
    nlohmann::json list = nlohmann::json::array();
    for (const tune::Pruned& x : r.pruned) {
      list.push_back(
          {{"candidate_index", x.index}, {"reason", std::string(tune::to_string(x.reason))}});
    }
    out["pruned"] = list;
  }
  return out;
}

nlohmann::json rank_json(const RankReport& report) {
  nlohmann::json out = schema::document("ranking");
  out["gpu"] = schema::gpu(report.gpu);
  out["space"] = report.space;
  out["calibrated"] = !report.rankings.empty() && report.rankings.front().calibrated;
  out["problems"] = nlohmann::json::array();
  for (std::size_t i = 0; i < report.rankings.size(); ++i) {
    out["problems"].push_back(rank_problem_json(report, i));
  }
  return out;
}

std::string rank_csv(const RankReport& report) {
  std::string out = rank_csv_header();
  for (std::size_t i = 0; i < report.rankings.size(); ++i) out += rank_problem_csv(report, i);
  return out;
}

std::string rank_csv_header() { return csv::Table(kCsvColumns).str(); }

std::string rank_problem_csv(const RankReport& report, std::size_t i) {
  csv::Table table(kCsvColumns);
  {
    const tune::NamedProblem& np = report.problems[i];
    const tune::Ranking& r = report.rankings[i];
    for (std::size_t j = 0; j < r.ranked.size(); ++j) {
      const tune::Ranked& x = r.ranked[j];
      const tune::Explanation& e = x.why;
      table.add({np.name,
                 csv::number(np.problem.m),
                 csv::number(np.problem.n),
                 csv::number(np.problem.k),
                 csv::number(j + 1),
                 csv::boolean(x.tied_with_previous),
                 kernels::kernel_id(x.candidate.config),
                 gemm::to_string(x.candidate.raster),
                 csv::number(x.tflops),
                 csv::number(x.time_s),
                 csv::number(e.blocks_per_sm),
                 limiter_names(e.occupancy_limiters),
                 csv::number(e.occupancy),
                 csv::number(e.waves),
                 csv::number(e.tail_efficiency),
                 csv::number(e.l2_operand_hit_rate),
                 csv::number(e.l2_sector_hit_rate),
                 std::string(to_string(e.binding_term)),
                 csv::number(e.registers_per_thread),
                 csv::number(e.shared_memory_bytes),
                 csv::number(e.threads),
                 csv::number(x.index)});
    }
  }
  return table.rows();
}

}  // namespace roofcast::views
