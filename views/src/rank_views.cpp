#include "roofcast/views/rank_views.hpp"

#include <cstdio>
#include <sstream>

#include "roofcast/views/csv.hpp"

#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"

namespace roofcast::views {

namespace {

std::string shape(const gemm::Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
}

nlohmann::json explanation_json(const tune::Explanation& e) {
  return {{"registers_per_thread", e.registers_per_thread},
          {"registers_estimated", e.registers_estimated},
          {"spill_bytes_per_thread", e.spill_bytes_per_thread},
          {"shared_memory_bytes", e.shared_memory_bytes},
          {"threads", e.threads},
          {"blocks_per_sm", e.blocks_per_sm},
          {"occupancy_limiters", limiter_names(e.occupancy_limiters)},
          {"occupancy", e.occupancy},
          {"grid_blocks", e.grid_blocks},
          {"waves", e.waves},
          {"tail_efficiency", e.tail_efficiency},
          {"l2_hit_rate", e.l2_hit_rate},
          {"binding_term", std::string(to_string(e.binding_term))},
          {"binding_roofline_level", std::string(to_string(e.binding_level))},
          {"roofline_TFLOPS", e.roofline_TFLOPS}};
}

/// Under a ranking that shows a tie: what '=' means and how ties are ordered (tune::Ranking).
constexpr const char* kTieLegend =
    "   = tied with the row above (the same predicted time): ties go by fewer shared-memory "
    "bytes per block, then fewer threads, fewer stages, then the kernel id\n";

}  // namespace

std::string rank_text(const RankReport& report) {
  std::ostringstream out;
  char line[512];
  for (std::size_t i = 0; i < report.problems.size(); ++i) {
    const tune::NamedProblem& np = report.problems[i];
    const tune::Ranking& r = report.rankings[i];
    const std::string shape_text = shape(np.problem);
    out << report.gpu_id << "  " << np.name
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
                  "waves", "tail", "L2hit", "binding");
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
          e.tail_efficiency, e.l2_hit_rate, std::string(to_string(e.binding_term)).c_str());
      out << line;
    }
    if (ties) out << kTieLegend;
    out << "\n";
  }
  return out.str();
}

nlohmann::json rank_json(const RankReport& report) {
  nlohmann::json problems = nlohmann::json::array();
  for (std::size_t i = 0; i < report.problems.size(); ++i) {
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
      const gemm::TileConfig& c = x.candidate.config;
      ranked.push_back({{"rank", j + 1},
                        {"tied_with_previous", x.tied_with_previous},
                        {"candidate_index", x.index},
                        {"kernel_id", kernels::kernel_id(c)},
                        {"raster", gemm::to_string(x.candidate.raster)},
                        {"config",
                         {{"rung", c.rung},
                          {"layout", std::string(gemm::to_string(c.layout))},
                          {"bm", c.bm},
                          {"bn", c.bn},
                          {"bk", c.bk},
                          {"tm", c.tm},
                          {"tn", c.tn},
                          {"wm", c.wm},
                          {"wn", c.wn},
                          {"threads", c.threads},
                          {"stages", c.stages},
                          {"vector_width", c.vector_width},
                          {"cluster", c.cluster}}},
                        {"predicted_time_s", x.time_s},
                        {"predicted_TFLOPS", x.tflops},
                        {"explanation", explanation_json(x.why)}});
    }
    problems.push_back({{"name", np.name},
                        {"m", np.problem.m},
                        {"n", np.problem.n},
                        {"k", np.problem.k},
                        {"candidates", r.candidates},
                        {"kept", r.kept},
                        {"other_rasters", r.other_rasters},
                        {"pruned", pruned},
                        {"ranked", ranked}});
  }
  return {{"gpu", report.gpu_id},
          {"space", report.space},
          {"calibrated", !report.rankings.empty() && report.rankings.front().calibrated},
          {"problems", problems}};
}

std::string rank_csv(const RankReport& report) {
  csv::Table table({"problem",
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
                    "occupancy_limiter",
                    "occupancy",
                    "waves",
                    "tail_efficiency",
                    "l2_hit_rate",
                    "binding_term",
                    "registers_per_thread",
                    "shared_memory_bytes",
                    "threads",
                    "candidate_index"});
  for (std::size_t i = 0; i < report.problems.size(); ++i) {
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
                 csv::number(e.l2_hit_rate),
                 std::string(to_string(e.binding_term)),
                 csv::number(e.registers_per_thread),
                 csv::number(e.shared_memory_bytes),
                 csv::number(e.threads),
                 csv::number(x.index)});
    }
  }
  return table.str();
}

}  // namespace roofcast::views
