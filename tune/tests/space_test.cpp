// The config space: every enumerated config obeys the kernels' tile rules and fits the GPU;
// the registry's configs are in it; bad bounds are refused with the field named.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/tune/space.hpp"

namespace {

using roofcast::embedded_spec;
using roofcast::gemm::RasterKind;
using roofcast::gemm::TileConfig;
using roofcast::tune::Candidate;
using roofcast::tune::enumerate_candidates;
using roofcast::tune::enumerate_configs;
using roofcast::tune::Exclusion;
using roofcast::tune::exclusion;
using roofcast::tune::SpaceBounds;
using roofcast::tune::with_raster_orders;
namespace kernels = roofcast::kernels;

TEST(Space, EveryEnumeratedConfigIsValidAndFits) {
  const auto& gpu = embedded_spec("h200-sxm");
  const std::vector<TileConfig> configs = enumerate_configs(gpu);
  ASSERT_GT(configs.size(), 1000u);
  for (const TileConfig& c : configs) {
    ASSERT_EQ(kernels::violated_rule(c), nullptr) << kernels::kernel_id(c);
    ASSERT_LE(kernels::shared_memory_bytes(c), gpu.sm.shared_memory_per_block_optin_bytes);
    ASSERT_LE(c.threads, gpu.sm.max_threads_per_block);
    ASSERT_GT(c.threads, 0);
  }
}

TEST(Space, HasNoDuplicatesAndEveryRung) {
  const std::vector<TileConfig> configs = enumerate_configs(embedded_spec("h200-sxm"));
  std::set<std::string> ids;
  std::set<int> rungs;
  for (const TileConfig& c : configs) {
    ids.insert(kernels::kernel_id(c));
    rungs.insert(c.rung);
  }
  EXPECT_EQ(ids.size(), configs.size());
  EXPECT_EQ(rungs.size(), 10u);
}

TEST(Space, ContainsEveryRegisteredConfigWithinTheDefaultBounds) {
  const std::vector<TileConfig> configs = enumerate_configs(embedded_spec("h200-sxm"));
  for (const kernels::RegistryEntry& e : kernels::kRegistry) {
    EXPECT_NE(std::find(configs.begin(), configs.end(), e.config), configs.end())
        << kernels::kernel_id(e.config);
  }
}

TEST(Space, OlderGpusLoseTheRungsTheyCannotRun) {
  // V100 (7.0): no cp.async (rung 9), no clusters (rung 10). A100 (8.0): no rung 10.
  for (const auto& [id, highest] :
       {std::pair{"v100-sxm2-32gb", 8}, std::pair{"a100-sxm4-80gb", 9}}) {
    const auto& gpu = embedded_spec(id);
    const std::vector<TileConfig> configs = enumerate_configs(gpu);
    ASSERT_FALSE(configs.empty());
    int top = 0;
    for (const TileConfig& c : configs) top = std::max(top, c.rung);
    EXPECT_EQ(top, highest) << id;
  }
}

TEST(Space, ExclusionNamesTheReason) {
  const auto& h200 = embedded_spec("h200-sxm");
  std::string detail;
  TileConfig bad = kernels::kRegistry[0].config;
  bad.bn = 48;  // naive: BN must be a multiple of 32
  bad.threads = bad.bm * bad.bn;
  EXPECT_EQ(exclusion(h200, bad, &detail), Exclusion::kTileRule);
  EXPECT_FALSE(detail.empty());

  const auto& a100 = embedded_spec("a100-sxm4-80gb");
  for (const kernels::RegistryEntry& e : kernels::kRegistry) {
    if (e.config.rung != 10) continue;
    EXPECT_EQ(exclusion(a100, e.config, &detail), Exclusion::kComputeCapability);
    EXPECT_NE(detail.find("9.0"), std::string::npos) << detail;
    break;
  }
  EXPECT_EQ(exclusion(h200, kernels::kRegistry[0].config, &detail), Exclusion::kNone);
}

TEST(Space, SharedMemoryLimitExcludesLargeStagedTiles) {
  // 256 x 128 x 32, 3 stages: 4 * 3 * 32 * (260 + 128) B = 148992 B. The tile rules allow it
  // (they cap rungs 7-9 at sm_80's 166912 B), the H200 (232448 B) runs it, the L4 (cc 8.9,
  // 101376 B opt-in) cannot.
  TileConfig c =
      kernels::tile(9, roofcast::gemm::SmemLayout::kPadded, 256, 128, 32, 16, 8, 64, 64, 0, 3, 4);
  c.threads = 32 * (256 / 64) * (128 / 64);
  ASSERT_EQ(kernels::violated_rule(c), nullptr) << kernels::violated_rule(c);
  ASSERT_EQ(kernels::shared_memory_bytes(c), 148992);
  const auto& l4 = embedded_spec("l4");
  std::string detail;
  EXPECT_EQ(exclusion(l4, c, &detail), Exclusion::kSharedMemory);
  EXPECT_NE(detail.find("shared_memory_per_block_optin_bytes"), std::string::npos) << detail;
  EXPECT_EQ(exclusion(embedded_spec("h200-sxm"), c), Exclusion::kNone);

  SpaceBounds b;
  b.rungs = {9};
  b.block_tiles = {128, 256};
  b.k_tiles = {16, 32};
  b.stages = {2, 3};
  const std::vector<TileConfig> on_l4 = enumerate_configs(l4, b);
  const std::vector<TileConfig> on_h200 = enumerate_configs(embedded_spec("h200-sxm"), b);
  ASSERT_FALSE(on_l4.empty());
  EXPECT_LT(on_l4.size(), on_h200.size());
  EXPECT_EQ(std::find(on_l4.begin(), on_l4.end(), c), on_l4.end());
  EXPECT_NE(std::find(on_h200.begin(), on_h200.end(), c), on_h200.end());
  for (const TileConfig& x : on_l4) {
    EXPECT_LE(kernels::shared_memory_bytes(x), l4.sm.shared_memory_per_block_optin_bytes);
  }
}

TEST(Space, RasterOrdersOnlyForRungsThatTakeThem) {
  SpaceBounds b;
  const std::vector<Candidate> candidates = enumerate_candidates(embedded_spec("h200-sxm"), b);
  const std::vector<TileConfig> configs = enumerate_configs(embedded_spec("h200-sxm"), b);
  std::size_t expected = 0;
  for (const TileConfig& c : configs) {
    expected += kernels::takes_raster_order(c) ? b.rasters.size() : 1;
  }
  EXPECT_EQ(candidates.size(), expected);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!kernels::takes_raster_order(candidates[i].config)) {
      EXPECT_EQ(candidates[i].raster.kind, RasterKind::kRowMajor);
    }
  }
  // Candidates of one config are adjacent: a config never comes back after another one.
  std::set<std::string> finished;
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    if (candidates[i].config == candidates[i - 1].config) continue;
    finished.insert(kernels::kernel_id(candidates[i - 1].config));
    ASSERT_EQ(finished.count(kernels::kernel_id(candidates[i].config)), 0u) << i;
  }
}

TEST(Space, RepeatedBoundValuesDoNotRepeatConfigs) {
  SpaceBounds b;
  b.rungs = {7, 7};
  b.block_tiles = {64, 128, 64};
  const auto configs = enumerate_configs(embedded_spec("h200-sxm"), b);
  SpaceBounds once = b;
  once.rungs = {7};
  once.block_tiles = {64, 128};
  EXPECT_EQ(configs.size(), enumerate_configs(embedded_spec("h200-sxm"), once).size());
  const auto candidates = with_raster_orders(configs, [] {
    SpaceBounds r;
    r.rasters = {{RasterKind::kRowMajor, 1}, {RasterKind::kRowMajor, 1}};
    return r;
  }());
  EXPECT_EQ(candidates.size(), configs.size());
}

TEST(Space, BadBoundsNameTheField) {
  const auto& gpu = embedded_spec("h200-sxm");
  SpaceBounds b;
  b.rungs = {11};
  try {
    enumerate_configs(gpu, b);
    FAIL() << "rung 11 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rungs"), std::string::npos) << e.what();
  }
  b = SpaceBounds{};
  b.k_tiles.clear();
  EXPECT_THROW(enumerate_configs(gpu, b), std::invalid_argument);
  b = SpaceBounds{};
  b.rasters = {{RasterKind::kZOrder, 1}};
  EXPECT_THROW(enumerate_candidates(gpu, b), std::invalid_argument);
  b.rasters = {{RasterKind::kGrouped, 0}};
  EXPECT_THROW(enumerate_candidates(gpu, b), std::invalid_argument);
}

}  // namespace
