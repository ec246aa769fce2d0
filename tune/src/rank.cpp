#include "roofcast/tune/rank.hpp"
#include "roofcast/kernels/anatomy.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "roofcast/calibration.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/traffic.hpp"

namespace roofcast::tune {

namespace {

/// A kept candidate as the sort moves it: its time and the keys of the tie rule.
struct Scored {
  double time_s = 0;
  int shared_memory_bytes = 0;
  int threads = 0;
  int stages = 0;
  std::size_t index = 0;  // in the candidate list
  std::size_t slot = 0;   // in Ranking::ranked while every kept candidate is explained
};

/// A tile config's fields as a hashable key (threads filled in).
using ConfigKey = std::array<int, 13>;

ConfigKey key_of(const gemm::TileConfig& c) {
  return {c.rung,   static_cast<int>(c.layout),
          c.bm,     c.bn,
          c.bk,     c.tm,
          c.tn,     c.wm,
          c.wn,     c.threads,
          c.stages, c.vector_width,
          c.cluster};
}

struct ConfigKeyHash {
  std::size_t operator()(const ConfigKey& key) const {
    std::size_t h = 1469598103934665603ULL;  // FNV-1a over the fields
    for (int v : key)
      h = (h ^ static_cast<std::size_t>(static_cast<unsigned>(v))) * 1099511628211ULL;
    return h;
  }
};

/// Raster orders from the simplest: row-major, column-major, grouped by ascending G, Z-order.
std::pair<int, int> raster_key(const gemm::RasterOrder& raster) {
  return {static_cast<int>(raster.kind),
          raster.kind == gemm::RasterKind::kGrouped ? raster.group : 0};
}

/// The ranking's order (see Ranking::ranked): faster first; on the same predicted time, fewer
/// shared-memory bytes per block, fewer threads, fewer stages, then the kernel id; for one
/// config, the simpler raster order, fewer given registers, fewer spill bytes; the candidate
/// index only between candidates equal in every field.
class RanksBefore {
 public:
  explicit RanksBefore(const std::vector<Candidate>& candidates) : candidates_(candidates) {}

  bool operator()(const Scored& a, const Scored& b) const {
    if (a.time_s != b.time_s) return a.time_s < b.time_s;
    if (a.shared_memory_bytes != b.shared_memory_bytes) {
      return a.shared_memory_bytes < b.shared_memory_bytes;
    }
    if (a.threads != b.threads) return a.threads < b.threads;
    if (a.stages != b.stages) return a.stages < b.stages;
    const Candidate& ca = candidates_[a.index];
    const Candidate& cb = candidates_[b.index];
    const gemm::TileConfig config_a = filled(ca.config);
    const gemm::TileConfig config_b = filled(cb.config);
    if (!(config_a == config_b)) {
      const std::string id_a = kernels::kernel_id(config_a);
      const std::string id_b = kernels::kernel_id(config_b);
      // Two configs can share an id only through a field the id leaves out (WN with WM = 0):
      // their fields decide then, so that the order stays a strict weak order.
      return id_a != id_b ? id_a < id_b : key_of(config_a) < key_of(config_b);
    }
    if (raster_key(ca.raster) != raster_key(cb.raster)) {
      return raster_key(ca.raster) < raster_key(cb.raster);
    }
    // An estimate (no registers given) before any given count.
    const int registers_a = ca.registers_per_thread.value_or(-1);
    const int registers_b = cb.registers_per_thread.value_or(-1);
    if (registers_a != registers_b) return registers_a < registers_b;
    if (ca.spill_bytes_per_thread != cb.spill_bytes_per_thread) {
      return ca.spill_bytes_per_thread < cb.spill_bytes_per_thread;
    }
    return a.index < b.index;
  }

 private:
  static gemm::TileConfig filled(gemm::TileConfig config) {
    if (config.threads <= 0) config.threads = kernels::derived_threads(config);
    return config;
  }

  const std::vector<Candidate>& candidates_;
};

std::optional<PruneReason> prune_reason(const PruneRules& rules, const Candidate& candidate,
                                        const Prediction& p) {
  if (!p.launchable) return PruneReason::kNotLaunchable;
  if (rules.drop_spilling && p.spill.bytes_per_thread > 0) return PruneReason::kSpills;
  if (p.occupancy.occupancy < rules.min_occupancy) return PruneReason::kLowOccupancy;
  if (p.occupancy.blocks_per_sm < rules.min_blocks_per_sm) return PruneReason::kFewBlocks;
  if (rules.drop && rules.drop(candidate, p)) return PruneReason::kPredicate;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(PruneReason reason) {
  switch (reason) {
    case PruneReason::kNotLaunchable:
      return "not_launchable";
    case PruneReason::kSpills:
      return "spills";
    case PruneReason::kLowOccupancy:
      return "low_occupancy";
    case PruneReason::kFewBlocks:
      return "few_blocks";
    case PruneReason::kPredicate:
      return "predicate";
  }
  return "unknown";
}

Explanation explain(const Prediction& p) {
  Explanation e;
  e.registers_per_thread = p.registers_per_thread;
  e.registers_estimated = p.registers_estimated;
  e.spill_bytes_per_thread = p.spill.bytes_per_thread;
  e.shared_memory_bytes = p.shared_memory_bytes;
  e.threads = p.config.threads;
  e.blocks_per_sm = p.occupancy.blocks_per_sm;
  e.occupancy_limiters = p.occupancy.limiters;
  e.occupancy = p.occupancy.occupancy;
  e.grid_blocks = p.waves.grid_blocks;
  e.waves = p.waves.waves;
  e.tail_efficiency = p.waves.tail_efficiency;
  e.l2_operand_hit_rate = p.l2.hit_rate;
  e.l2_sector_hit_rate = p.l2_sector_hit_rate;
  e.binding_term = p.binding;
  e.binding_level = p.roofline.binding;
  e.roofline_TFLOPS = p.roofline.attainable_TFLOPS;
  return e;
}

Calibration default_calibration(const GpuSpec& gpu, bool* calibrated) {
  const StoredCalibration* stored = calibration_for_gpu(gpu);
  if (calibrated != nullptr) *calibrated = stored != nullptr;
  return stored ? stored->parameters : Calibration{};
}

PredictInput predict_input(const Candidate& candidate, const gemm::Problem& problem,
                           bool c_is_read) {
  PredictInput in;
  in.problem = problem;
  in.config = candidate.config;
  if (in.config.threads <= 0) in.config.threads = kernels::derived_threads(in.config);
  in.raster = candidate.raster;
  in.shared_memory_bytes = kernels::shared_memory_bytes(in.config);
  in.min_blocks_per_sm = kernels::launch_bounds_min_blocks(in.config);
  in.registers_per_thread = candidate.registers_per_thread;
  in.spill_bytes_per_thread = candidate.spill_bytes_per_thread;
  in.c_is_read = c_is_read;
  return in;
}

Ranking rank(const GpuSpec& gpu, const gemm::Problem& problem,
             const std::vector<Candidate>& candidates, const RankOptions& options) {
  if (problem.m < 1 || problem.n < 1 || problem.k < 1) {
    throw std::invalid_argument("rank: problem M, N and K must be >= 1 (got " +
                                std::to_string(problem.m) + "x" + std::to_string(problem.n) + "x" +
                                std::to_string(problem.k) + ")");
  }
  const PruneRules& rules = options.prune;
  if (!(rules.min_occupancy >= 0 && rules.min_occupancy <= 1)) {
    throw std::invalid_argument("rank: PruneRules.min_occupancy must be in 0..1 (got " +
                                std::to_string(rules.min_occupancy) + ")");
  }
  if (rules.min_blocks_per_sm < 0) {
    throw std::invalid_argument("rank: PruneRules.min_blocks_per_sm must be >= 0 (got " +
                                std::to_string(rules.min_blocks_per_sm) + ")");
  }
  Ranking r;
  r.gpu_id = gpu.id;
  r.problem = problem;
  r.calibration =
      options.calibration ? *options.calibration : default_calibration(gpu, &r.calibrated);
  if (options.calibration) r.calibrated = true;
  r.candidates = candidates.size();

  std::vector<Scored> scored;
  scored.reserve(candidates.size());
  // One anatomy per distinct tile config (it depends on the config and the problem, not on the
  // raster order or the registers): the last one is kept for runs of adjacent candidates,
  // the others in a map.
  std::unordered_map<ConfigKey, KernelAnatomy, ConfigKeyHash> anatomies;
  const KernelAnatomy* anatomy = nullptr;
  gemm::TileConfig anatomy_config{};
  const bool explain_all = options.top == 0;
  if (explain_all) r.ranked.reserve(candidates.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const PredictInput in = predict_input(c, problem, options.c_is_read);
    if (const char* rule = kernels::violated_rule(in.config)) {
      throw std::invalid_argument("rank: candidate " + std::to_string(i) + " (" +
                                  kernels::kernel_id(in.config) + ") breaks a tile rule: " + rule);
    }
    if (anatomy == nullptr || !(anatomy_config == in.config)) {
      const auto [it, added] = anatomies.try_emplace(key_of(in.config));
      if (added) it->second = kernels::anatomy(problem, in.config, gpu.sm.shared_memory_banks);
      anatomy = &it->second;
      anatomy_config = in.config;
    }
    Prediction p = predict(gpu, in, r.calibration, *anatomy);
    // A kernel the GPU cannot run at all (kernels::not_runnable_reason) has no time.
    if (const char* not_runnable = kernels::not_runnable_reason(gpu, in.config)) {
      p.launchable = false;
      p.not_runnable = not_runnable;
    }
    if (const std::optional<PruneReason> reason = prune_reason(rules, c, p)) {
      ++r.pruned_by_reason[static_cast<int>(*reason)];
      if (options.list_pruned) r.pruned.push_back(Pruned{i, *reason});
      continue;
    }
    scored.push_back(Scored{p.time_s, in.shared_memory_bytes, in.config.threads, in.config.stages,
                            i, r.ranked.size()});
    if (explain_all) r.ranked.push_back(Ranked{i, c, p.time_s, p.tflops, explain(p)});
  }
  const RanksBefore ranks_before(candidates);
  if (options.best_raster_only) {
    // Keep each tile config's first candidate in the ranking's order (its fastest raster order;
    // on a tie, the simplest).
    std::unordered_map<ConfigKey, std::size_t, ConfigKeyHash> best;  // key -> position in scored
    std::vector<bool> keep(scored.size(), false);
    for (std::size_t j = 0; j < scored.size(); ++j) {
      gemm::TileConfig config = candidates[scored[j].index].config;
      if (config.threads <= 0) config.threads = kernels::derived_threads(config);
      const auto [it, added] = best.try_emplace(key_of(config), j);
      if (added) {
        keep[j] = true;
      } else if (ranks_before(scored[j], scored[it->second])) {
        keep[it->second] = false;
        keep[j] = true;
        it->second = j;
      }
    }
    std::vector<Scored> reduced;
    std::vector<Ranked> reduced_ranked;
    for (std::size_t j = 0; j < scored.size(); ++j) {
      if (!keep[j]) continue;
      reduced.push_back(scored[j]);
      reduced.back().slot = reduced_ranked.size();
      if (explain_all) reduced_ranked.push_back(std::move(r.ranked[j]));
    }
    r.other_rasters = scored.size() - reduced.size();
    scored = std::move(reduced);
    if (explain_all) r.ranked = std::move(reduced_ranked);
  }
  r.kept = scored.size();

  if (explain_all) {
    std::sort(scored.begin(), scored.end(), ranks_before);
    std::vector<Ranked> sorted;
    sorted.reserve(scored.size());
    for (const Scored& s : scored) sorted.push_back(std::move(r.ranked[s.slot]));
    r.ranked = std::move(sorted);
  } else {
    // Keep the `top` first, then predict those again for their explanations.
    const std::size_t keep = std::min(options.top, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(keep),
                      scored.end(), ranks_before);
    r.ranked.reserve(keep);
    for (std::size_t j = 0; j < keep; ++j) {
      const Candidate& c = candidates[scored[j].index];
      const Prediction p =
          kernels::predict(gpu, predict_input(c, problem, options.c_is_read), r.calibration);
      r.ranked.push_back(Ranked{scored[j].index, c, p.time_s, p.tflops, explain(p)});
    }
  }
  for (std::size_t j = 1; j < r.ranked.size(); ++j) {
    r.ranked[j].tied_with_previous = r.ranked[j].time_s == r.ranked[j - 1].time_s;
  }
  return r;
}

}  // namespace roofcast::tune
