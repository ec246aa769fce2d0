// The kernel registry: every entry valid and unique, every rung present, the sweep broad enough,
// and the raster mapping a bijection. CPU only: the registry is pure C++.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::kernels {
namespace {

TEST(Registry, EveryEntryFollowsItsRungsRules) {
  for (const RegistryEntry& e : kRegistry) {
    const char* broken = violated_rule(e.config);
    EXPECT_EQ(broken, nullptr) << kernel_id(e.config) << ": " << (broken ? broken : "");
  }
}

TEST(Registry, IdsAreUniqueAndFound) {
  std::set<std::string> ids;
  for (std::size_t i = 0; i < kRegistrySize; ++i) {
    const std::string id = kernel_id(kRegistry[i].config);
    EXPECT_TRUE(ids.insert(id).second) << "duplicate id " << id;
    EXPECT_EQ(find_kernel(id), i) << id;
  }
  EXPECT_EQ(find_kernel("no-such-kernel"), kRegistrySize);
}

TEST(Registry, EveryRungHasAHeadlineConfig) {
  for (int rung = 1; rung <= gemm::kRungCount; ++rung) {
    int headline = 0;
    for (const RegistryEntry& e : kRegistry) {
      headline += e.config.rung == rung && e.role == Role::kLadder ? 1 : 0;
    }
    EXPECT_GE(headline, 1) << "rung " << rung << " (" << rung_name(rung) << ")";
  }
}

TEST(Registry, ConflictFreeRungHasBothLayouts) {
  std::set<SmemLayout> layouts;
  for (const RegistryEntry& e : kRegistry) {
    if (e.config.rung == 6 && e.role == Role::kLadder) layouts.insert(e.config.layout);
  }
  EXPECT_EQ(layouts, (std::set<SmemLayout>{SmemLayout::kPadded, SmemLayout::kSwizzled}));
}

// Issue 3: at least 60 valid configs for rungs 4-9 together, spanning the parameter ranges.
TEST(Registry, SweepIsBroadEnough) {
  int configs = 0;
  std::set<int> bms, bns, bks, tms, tns, threads;
  for (const RegistryEntry& e : kRegistry) {
    const TileConfig& c = e.config;
    if (c.rung < 4 || c.rung > 9) continue;
    ++configs;
    bms.insert(c.bm);
    bns.insert(c.bn);
    bks.insert(c.bk);
    tms.insert(c.tm);
    tns.insert(c.tn);
    threads.insert(c.threads);
  }
  ASSERT_GE(configs, 60);
  EXPECT_LE(*bms.begin(), 32);
  EXPECT_GE(*bms.rbegin(), 256);
  EXPECT_GE(*bns.rbegin(), 256);
  EXPECT_GE(bks.size(), 2U);
  EXPECT_GE(tms.size(), 3U);
  EXPECT_GE(tns.size(), 3U);
  EXPECT_GE(threads.size(), 3U);
}

TEST(Registry, SharedMemoryFitsEveryGpuThatCanRunIt) {
  const GpuSpec h200 = embedded_spec("h200-sxm");
  const GpuSpec a100 = embedded_spec("a100-sxm4-80gb");
  for (const RegistryEntry& e : kRegistry) {
    const int bytes = shared_memory_bytes(e.config);
    EXPECT_GE(bytes, 0) << kernel_id(e.config);
    if (e.config.rung >= 2) EXPECT_GT(bytes, 0) << kernel_id(e.config);
    EXPECT_LE(bytes, h200.sm.shared_memory_per_block_optin_bytes) << kernel_id(e.config);
    if (minimum_compute_capability(e.config) <= 80) {
      EXPECT_LE(bytes, a100.sm.shared_memory_per_block_optin_bytes) << kernel_id(e.config);
    }
  }
}

TEST(Registry, RungNamesAndIdPrefixes) {
  for (const RegistryEntry& e : kRegistry) {
    const std::string id = kernel_id(e.config);
    const std::string prefix = (e.config.rung < 10 ? "r0" : "r") + std::to_string(e.config.rung);
    EXPECT_EQ(id.rfind(prefix, 0), 0U) << id;
  }
  EXPECT_EQ(rung_name(1), "naive");
  EXPECT_EQ(rung_name(11), "unknown rung");
}

TEST(Rules, RejectObviouslyBrokenConfigs) {
  TileConfig c = kRegistry[0].config;
  c.rung = 0;
  EXPECT_NE(violated_rule(c), nullptr);
  c.rung = 11;
  EXPECT_NE(violated_rule(c), nullptr);
  for (const RegistryEntry& e : kRegistry) {
    TileConfig wrong_threads = e.config;
    wrong_threads.threads += 32;
    EXPECT_NE(violated_rule(wrong_threads), nullptr) << kernel_id(e.config) << " threads+32";
    TileConfig zero_tile = e.config;
    zero_tile.bm = 0;
    EXPECT_NE(violated_rule(zero_tile), nullptr) << kernel_id(e.config) << " bm=0";
  }
}

// Every raster order visits each tile exactly once, for awkward grids and group sizes.
TEST(Raster, TileOfBlockIsABijection) {
  using gemm::RasterKind;
  const int grids[][2] = {{1, 1}, {1, 9}, {9, 1}, {7, 13}, {16, 16}, {33, 5}};
  for (const auto& grid : grids) {
    const int tm = grid[0], tn = grid[1];
    for (RasterKind kind :
         {RasterKind::kRowMajor, RasterKind::kColumnMajor, RasterKind::kGrouped}) {
      for (int group : {1, 3, 8, 40}) {
        std::vector<int> seen(static_cast<std::size_t>(tm * tn), 0);
        for (int pid = 0; pid < tm * tn; ++pid) {
          const gemm::TileCoord t = gemm::tile_of_block(pid, tm, tn, kind, group);
          ASSERT_GE(t.m, 0);
          ASSERT_LT(t.m, tm);
          ASSERT_GE(t.n, 0);
          ASSERT_LT(t.n, tn);
          ++seen[static_cast<std::size_t>(t.m * tn + t.n)];
        }
        for (int count : seen) {
          ASSERT_EQ(count, 1) << tm << "x" << tn << " " << gemm::to_string(kind) << " G=" << group;
        }
      }
    }
  }
}

TEST(Raster, GroupedWalksDownAGroupFirst) {
  // 8 x 4 tiles, G = 2: blocks 0..7 cover rows 0-1, walking rows first.
  const gemm::TileCoord b1 = gemm::tile_of_block(1, 8, 4, gemm::RasterKind::kGrouped, 2);
  EXPECT_EQ(b1.m, 1);
  EXPECT_EQ(b1.n, 0);
  const gemm::TileCoord b2 = gemm::tile_of_block(2, 8, 4, gemm::RasterKind::kGrouped, 2);
  EXPECT_EQ(b2.m, 0);
  EXPECT_EQ(b2.n, 1);
  const gemm::TileCoord b8 = gemm::tile_of_block(8, 8, 4, gemm::RasterKind::kGrouped, 2);
  EXPECT_EQ(b8.m, 2);
  EXPECT_EQ(b8.n, 0);
}

TEST(Raster, TextRoundTripsAndRejectsJunk) {
  for (const char* text : {"row_major", "column_major", "grouped:8", "grouped:1", "z_order"}) {
    const auto parsed = gemm::parse_raster_order(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    EXPECT_EQ(gemm::to_string(*parsed), text);
  }
  for (const char* text : {"", "grouped", "grouped:", "grouped:0", "grouped:-2", "grouped:8x",
                           "rowmajor", "Row_Major"}) {
    EXPECT_FALSE(gemm::parse_raster_order(text).has_value()) << text;
  }
  EXPECT_EQ(gemm::parse_smem_layout("swizzled"), gemm::SmemLayout::kSwizzled);
  EXPECT_FALSE(gemm::parse_smem_layout("xor").has_value());
}

}  // namespace
}  // namespace roofcast::kernels
