// rank(): the order is predict()'s, pruning drops what each rule says with its reason, `top`
// keeps the same prefix, the anatomy reuse changes nothing, bad input is refused.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "roofcast/calibration.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/problems.hpp"
#include "roofcast/tune/rank.hpp"

namespace {

using namespace roofcast;
using tune::Candidate;
using tune::PruneReason;
using tune::RankOptions;

std::vector<Candidate> registry_candidates() {
  std::vector<gemm::TileConfig> configs;
  for (const auto& e : kernels::kRegistry) configs.push_back(e.config);
  return tune::with_raster_orders(configs);
}

std::vector<Candidate> small_space() {
  tune::SpaceBounds b;
  b.rungs = {4, 7, 9};
  b.block_tiles = {64, 128, 256};
  return tune::enumerate_candidates(embedded_spec("h200-sxm"), b);
}

TEST(Rank, OrderAndTimesArePredictsOwn) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  const gemm::Problem problem{4096, 4096, 4096};
  const std::vector<Candidate> candidates = registry_candidates();
  const tune::Ranking r = tune::rank(gpu, problem, candidates);
  EXPECT_TRUE(r.calibrated);  // h200-sxm has a committed calibration
  EXPECT_EQ(r.candidates, candidates.size());
  ASSERT_EQ(r.ranked.size(), r.kept);
  EXPECT_EQ(r.kept + r.pruned.size(), candidates.size());
  const Calibration calibration = tune::default_calibration(gpu);
  for (std::size_t i = 0; i < r.ranked.size(); ++i) {
    const tune::Ranked& x = r.ranked[i];
    if (i > 0) {
      EXPECT_LE(r.ranked[i - 1].time_s, x.time_s);
    }
    const Prediction p =
        kernels::predict(gpu, tune::predict_input(candidates[x.index], problem), calibration);
    ASSERT_TRUE(p.launchable);
    EXPECT_DOUBLE_EQ(p.time_s, x.time_s) << kernels::kernel_id(x.candidate.config);
    EXPECT_DOUBLE_EQ(p.tflops, x.tflops);
    EXPECT_EQ(x.why.blocks_per_sm, p.occupancy.blocks_per_sm);
    EXPECT_EQ(x.why.waves, p.waves.waves);
    EXPECT_DOUBLE_EQ(x.why.l2_operand_hit_rate, p.l2.hit_rate);
    EXPECT_EQ(x.why.binding_term, p.binding);
    EXPECT_TRUE(x.why.registers_estimated);
  }
}

TEST(Rank, AnatomyReuseAcrossRasterOrdersChangesNothing) {
  // Candidates with the same config adjacent (reuse) and interleaved (no reuse) rank alike.
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  const gemm::Problem problem{1999, 3001, 1537};
  std::vector<Candidate> adjacent = registry_candidates();
  std::vector<Candidate> interleaved;
  for (std::size_t stride = 0; stride < 5; ++stride) {
    for (std::size_t i = stride; i < adjacent.size(); i += 5) interleaved.push_back(adjacent[i]);
  }
  const tune::Ranking a = tune::rank(gpu, problem, adjacent);
  const tune::Ranking b = tune::rank(gpu, problem, interleaved);
  ASSERT_EQ(a.ranked.size(), b.ranked.size());
  std::multiset<double> ta, tb;
  for (const auto& x : a.ranked) ta.insert(x.time_s);
  for (const auto& x : b.ranked) tb.insert(x.time_s);
  EXPECT_EQ(ta, tb);
}

TEST(Rank, TopKeepsThePrefixOfTheFullOrder) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  const gemm::Problem problem{256, 4096, 4096};
  const std::vector<Candidate> candidates = small_space();
  const tune::Ranking all = tune::rank(gpu, problem, candidates);
  RankOptions options;
  options.top = 7;
  const tune::Ranking top = tune::rank(gpu, problem, candidates, options);
  ASSERT_EQ(top.ranked.size(), 7u);
  EXPECT_EQ(top.kept, all.kept);
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(top.ranked[i].index, all.ranked[i].index) << i;
    EXPECT_DOUBLE_EQ(top.ranked[i].time_s, all.ranked[i].time_s);
  }
  options.top = candidates.size() * 2;  // more than there are: all of them
  EXPECT_EQ(tune::rank(gpu, problem, candidates, options).ranked.size(), all.kept);
}

TEST(Rank, PruningRulesDropWithTheirReasons) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  const gemm::Problem problem{4096, 4096, 4096};
  const std::vector<Candidate> candidates = small_space();
  RankOptions options;
  options.prune.drop_spilling = true;
  options.prune.min_occupancy = 0.25;
  options.prune.min_blocks_per_sm = 2;
  options.prune.drop = [](const Candidate& c, const Prediction&) { return c.config.bk == 32; };
  const tune::Ranking r = tune::rank(gpu, problem, candidates, options);
  std::size_t counted = 0;
  for (std::size_t n : r.pruned_by_reason) counted += n;
  EXPECT_EQ(counted, r.pruned.size());
  EXPECT_EQ(r.kept + counted, candidates.size());
  EXPECT_GT(r.pruned_by_reason[static_cast<int>(PruneReason::kLowOccupancy)], 0u);
  EXPECT_GT(r.pruned_by_reason[static_cast<int>(PruneReason::kPredicate)], 0u);
  for (const tune::Ranked& x : r.ranked) {
    EXPECT_GE(x.why.occupancy, 0.25);
    EXPECT_GE(x.why.blocks_per_sm, 2);
    EXPECT_EQ(x.why.spill_bytes_per_thread, 0);
    EXPECT_NE(x.candidate.config.bk, 32);
  }
  // Each pruned candidate breaks the rule recorded (first in PruneReason order).
  const Calibration calibration = tune::default_calibration(gpu);
  for (const tune::Pruned& p : r.pruned) {
    const Prediction pred =
        kernels::predict(gpu, tune::predict_input(candidates[p.index], problem), calibration);
    switch (p.reason) {
      case PruneReason::kNotLaunchable:
        EXPECT_FALSE(pred.launchable);
        break;
      case PruneReason::kSpills:
        EXPECT_GT(pred.spill.bytes_per_thread, 0);
        break;
      case PruneReason::kLowOccupancy:
        EXPECT_LT(pred.occupancy.occupancy, 0.25);
        break;
      case PruneReason::kFewBlocks:
        EXPECT_LT(pred.occupancy.blocks_per_sm, 2);
        break;
      case PruneReason::kPredicate:
        EXPECT_EQ(candidates[p.index].config.bk, 32);
        break;
    }
  }
}

TEST(Rank, SpillingCandidatesArePrunedOnlyWhenAsked) {
  // r06 256x256x8 t16x16 needs 256 accumulators: it spills by design.
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  std::vector<Candidate> spilling;
  for (const auto& e : kernels::kRegistry) {
    if (e.config.tm * e.config.tn == 256) spilling.push_back({e.config, {}, std::nullopt, 0});
  }
  ASSERT_FALSE(spilling.empty());
  EXPECT_EQ(tune::rank(gpu, {4096, 4096, 4096}, spilling).kept, spilling.size());
  RankOptions options;
  options.prune.drop_spilling = true;
  const tune::Ranking r = tune::rank(gpu, {4096, 4096, 4096}, spilling, options);
  EXPECT_EQ(r.kept, 0u);
  EXPECT_EQ(r.pruned_by_reason[static_cast<int>(PruneReason::kSpills)], spilling.size());
}

TEST(Rank, GivenRegistersReplaceTheEstimate) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  Candidate c{kernels::kRegistry[0].config, {}, std::nullopt, 0};
  for (const auto& e : kernels::kRegistry) {
    if (e.config.rung == 9 && e.role == kernels::Role::kLadder) c.config = e.config;
  }
  c.registers_per_thread = 254;
  const tune::Ranking r = tune::rank(gpu, {4096, 4096, 4096}, {c});
  ASSERT_EQ(r.ranked.size(), 1u);
  EXPECT_EQ(r.ranked[0].why.registers_per_thread, 254);
  EXPECT_FALSE(r.ranked[0].why.registers_estimated);
}

TEST(Rank, ExplicitCalibrationIsUsed) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  RankOptions options;
  options.calibration = Calibration{};
  const auto candidates = registry_candidates();
  const tune::Ranking r = tune::rank(gpu, {2048, 2048, 2048}, candidates, options);
  const Prediction p = kernels::predict(
      gpu, tune::predict_input(candidates[r.ranked[0].index], {2048, 2048, 2048}), {});
  EXPECT_DOUBLE_EQ(r.ranked[0].time_s, p.time_s);
  // A GPU with no calibration of its own takes the nearest measured GPU's (calibration_for_gpu).
  EXPECT_TRUE(tune::rank(embedded_spec("v100-sxm2-32gb"), {2048, 2048, 2048},
                         tune::enumerate_candidates(embedded_spec("v100-sxm2-32gb"),
                                                    [] {
                                                      tune::SpaceBounds b;
                                                      b.rungs = {4};
                                                      return b;
                                                    }()))
                  .calibrated);
}

TEST(Rank, BadInputIsRefused) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  const auto candidates = registry_candidates();
  EXPECT_THROW(tune::rank(gpu, {0, 16, 16}, candidates), std::invalid_argument);
  RankOptions options;
  options.prune.min_occupancy = 1.5;
  EXPECT_THROW(tune::rank(gpu, {16, 16, 16}, candidates, options), std::invalid_argument);
  options = {};
  options.prune.min_blocks_per_sm = -1;
  EXPECT_THROW(tune::rank(gpu, {16, 16, 16}, candidates, options), std::invalid_argument);
  Candidate broken = candidates.front();
  broken.config.bn = 48;
  try {
    tune::rank(gpu, {16, 16, 16}, {candidates.front(), broken});
    FAIL() << "a config breaking a tile rule was ranked";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("candidate 1"), std::string::npos) << e.what();
  }
}

TEST(Rank, BestRasterOnlyKeepsEachConfigsFastestOrder) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  const gemm::Problem problem{4096, 4096, 4096};
  const std::vector<Candidate> candidates = small_space();
  const tune::Ranking all = tune::rank(gpu, problem, candidates);
  RankOptions options;
  options.best_raster_only = true;
  const tune::Ranking best = tune::rank(gpu, problem, candidates, options);
  std::size_t pruned = 0;
  for (std::size_t n : best.pruned_by_reason) pruned += n;
  EXPECT_EQ(best.kept + best.other_rasters + pruned, candidates.size());
  EXPECT_GT(best.other_rasters, 0u);
  std::set<std::string> ids;
  for (const tune::Ranked& x : best.ranked) {
    EXPECT_TRUE(ids.insert(kernels::kernel_id(x.candidate.config)).second);
    // No candidate of the same config in the full ranking is faster.
    for (const tune::Ranked& y : all.ranked) {
      if (y.candidate.config == x.candidate.config) {
        EXPECT_GE(y.time_s, x.time_s);
      }
    }
  }
  options.top = 3;
  const tune::Ranking top = tune::rank(gpu, problem, candidates, options);
  ASSERT_EQ(top.ranked.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(top.ranked[i].index, best.ranked[i].index);
}

// Ties: configs the model cannot tell apart (the same predicted time) rank by fewer resources
// first, whatever order the candidates come in.
TEST(Rank, TiesGoToFewerResourcesWhateverTheCandidateOrder) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  const gemm::Problem problem{4096, 4096, 4096};
  // Rung 9's 128x128x16 tile with 2, 3 and 4 stages (its latency is hidden from 2 on: the
  // same time), the same with vector width 1, and rung 8's 128x128x8 at 2 stages, under three
  // raster orders each.
  std::vector<gemm::TileConfig> configs;
  for (int stages : {2, 3, 4}) {
    for (int vector : {4, 1}) {
      configs.push_back(kernels::tile(9, gemm::SmemLayout::kPadded, 128, 128, 16, 8, 8, 128, 16,
                                      256, stages, vector));
    }
  }
  configs.push_back(
      kernels::tile(8, gemm::SmemLayout::kPadded, 128, 128, 8, 8, 8, 128, 16, 256, 2, 4));
  for (const gemm::TileConfig& c : configs) ASSERT_EQ(kernels::violated_rule(c), nullptr);
  tune::SpaceBounds bounds;
  bounds.rasters = {{gemm::RasterKind::kGrouped, 8},
                    {gemm::RasterKind::kRowMajor, 1},
                    {gemm::RasterKind::kColumnMajor, 1}};
  const std::vector<Candidate> forward = tune::with_raster_orders(configs, bounds);
  const std::vector<Candidate> backward(forward.rbegin(), forward.rend());
  for (const bool best_raster_only : {false, true}) {
    for (const std::size_t top : {std::size_t{0}, std::size_t{4}}) {
      RankOptions options;
      options.best_raster_only = best_raster_only;
      options.top = top;
      const tune::Ranking a = tune::rank(gpu, problem, forward, options);
      const tune::Ranking b = tune::rank(gpu, problem, backward, options);
      ASSERT_EQ(a.ranked.size(), b.ranked.size());
      for (std::size_t i = 0; i < a.ranked.size(); ++i) {
        SCOPED_TRACE("best_raster_only " + std::to_string(best_raster_only) + ", top " +
                     std::to_string(top) + ", rank " + std::to_string(i + 1));
        EXPECT_EQ(a.ranked[i].candidate, b.ranked[i].candidate);
        EXPECT_EQ(a.ranked[i].time_s, b.ranked[i].time_s);
        EXPECT_EQ(a.ranked[i].tied_with_previous, b.ranked[i].tied_with_previous);
      }
    }
  }
  // The rule itself, on the full ranking: times never decrease; within a tie, shared memory,
  // then threads, then stages, then the kernel id, then the raster order, never decrease.
  const tune::Ranking r = tune::rank(gpu, problem, backward);
  ASSERT_EQ(r.ranked.size(), forward.size());
  EXPECT_FALSE(r.ranked.front().tied_with_previous);
  int ties = 0;
  for (std::size_t i = 1; i < r.ranked.size(); ++i) {
    const tune::Ranked& before = r.ranked[i - 1];
    const tune::Ranked& x = r.ranked[i];
    ASSERT_LE(before.time_s, x.time_s);
    EXPECT_EQ(x.tied_with_previous, before.time_s == x.time_s);
    if (!x.tied_with_previous) continue;
    ++ties;
    const auto key = [](const tune::Ranked& y) {
      return std::make_tuple(y.why.shared_memory_bytes, y.why.threads, y.candidate.config.stages,
                             kernels::kernel_id(y.candidate.config),
                             static_cast<int>(y.candidate.raster.kind), y.candidate.raster.group);
    };
    EXPECT_LT(key(before), key(x))
        << kernels::kernel_id(before.candidate.config) << " "
        << gemm::to_string(before.candidate.raster) << " before "
        << kernels::kernel_id(x.candidate.config) << " " << gemm::to_string(x.candidate.raster);
  }
  EXPECT_GE(ties, 2);  // the stages of rung 9 at least
  // Rung 9's three stage counts of one tile tie, and two stages (the least shared memory) lead.
  std::vector<int> stages_in_order;
  for (const tune::Ranked& x : r.ranked) {
    const gemm::TileConfig& c = x.candidate.config;
    if (c.rung == 9 && c.vector_width == 4 &&
        x.candidate.raster.kind == gemm::RasterKind::kRowMajor) {
      stages_in_order.push_back(c.stages);
    }
  }
  EXPECT_EQ(stages_in_order, (std::vector<int>{2, 3, 4}));
}

// Every config of the enumerated space (the ids `roofcast rank --space enumerated` prints)
// reads back from its id: kernels::parse_kernel_id is kernel_id's inverse on the whole space.
TEST(RankSpace, EveryEnumeratedConfigsIdParsesBackToIt) {
  const std::vector<gemm::TileConfig> configs = tune::enumerate_configs(embedded_spec("h200-sxm"));
  ASSERT_GT(configs.size(), 1000u);
  std::set<std::string> ids;
  for (const gemm::TileConfig& c : configs) {
    const std::string id = kernels::kernel_id(c);
    EXPECT_TRUE(ids.insert(id).second) << "two configs share the id " << id;
    std::string problem;
    const std::optional<gemm::TileConfig> parsed = kernels::parse_kernel_id(id, &problem);
    ASSERT_TRUE(parsed.has_value()) << id << ": " << problem;
    EXPECT_EQ(*parsed, c) << id;
  }
}

TEST(Rank, EmptyCandidateListGivesAnEmptyRanking) {
  const tune::Ranking r = tune::rank(embedded_spec("h200-sxm"), {64, 64, 64}, {});
  EXPECT_EQ(r.candidates, 0u);
  EXPECT_TRUE(r.ranked.empty());
}

TEST(Problems, ParsesAndRefusesWithFieldNames) {
  const auto problems = tune::parse_problems(
      R"({"schema_version": 1, "problems": [{"name": "a", "m": 1, "n": 2, "k": 3},
                                            {"m": 4096, "n": 4096, "k": 4096}]})",
      "p.json");
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].name, "a");
  EXPECT_EQ(problems[0].problem, (gemm::Problem{1, 2, 3}));
  EXPECT_EQ(problems[1].name, "4096x4096x4096");
  const std::pair<const char*, const char*> bad[] = {
      {R"({"schema_version": 2, "problems": [{"m": 1, "n": 1, "k": 1}]})", "schema_version"},
      {R"({"schema_version": 1, "problems": []})", "problems"},
      {R"({"schema_version": 1, "problems": [{"m": 0, "n": 1, "k": 1}]})", "problems[0].m"},
      {R"({"schema_version": 1, "problems": [{"m": 1, "n": 1.5, "k": 1}]})", "problems[0].n"},
      {R"({"schema_version": 1, "problems": [{"m": 1, "n": 1}]})", "problems[0].k"},
      {R"({"schema_version": 1, "problems": [{"m": 1, "n": 1, "k": 1, "x": 2}]})", "problems[0].x"},
      {R"({"schema_version": 1, "problems": [{"name": "a", "m": 1, "n": 1, "k": 1},
                                              {"name": "a", "m": 2, "n": 2, "k": 2}]})",
       "problems[1].name"},
      {R"({"schema_version": 1, "problems": [], "extra": 1})", "problems"},
      {R"(not json)", "<document>"},
  };
  for (const auto& [text, field] : bad) {
    try {
      tune::parse_problems(text, "p.json");
      FAIL() << "accepted: " << text;
    } catch (const SpecError& e) {
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_EQ(e.file(), "p.json");
    }
  }
  EXPECT_THROW(tune::load_problems("/nonexistent/problems.json"), SpecError);
}

}  // namespace
