// The kernel registry: every entry valid and unique, every rung present, the sweep broad enough,
// and the raster mapping a bijection. CPU only: the registry is pure C++.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
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

// parse_kernel_id is kernel_id's inverse: every registered id reads back to its config.
TEST(RegistryKernelId, EveryRegistryIdRoundTrips) {
  for (const RegistryEntry& e : kRegistry) {
    const std::string id = kernel_id(e.config);
    std::string problem;
    const std::optional<TileConfig> parsed = parse_kernel_id(id, &problem);
    ASSERT_TRUE(parsed.has_value()) << id << ": " << problem;
    EXPECT_EQ(*parsed, e.config) << id;
    EXPECT_EQ(kernel_id(*parsed), id);
  }
}

TEST(RegistryKernelId, OptionalPartsAreReadWhereKernelIdWritesThem) {
  // Rung 1: BK 0, no warp tile, one stage, vector 1, plain, no cluster: none of the options.
  const auto naive = parse_kernel_id("r01-naive-32x32x0-t1x1-1024t");
  ASSERT_TRUE(naive.has_value());
  EXPECT_EQ(*naive, kRegistry[0].config);
  // Every optional part, an unregistered config of the rules (rung 10, cluster 4).
  const std::string every = "r10-cluster-128x128x8-w64x64-t8x16-128t-s3-padded-c4";
  EXPECT_EQ(find_kernel(every), kRegistrySize);
  std::string problem;
  const auto parsed = parse_kernel_id(every, &problem);
  ASSERT_TRUE(parsed.has_value()) << problem;
  EXPECT_EQ(parsed->cluster, 4);
  EXPECT_EQ(parsed->stages, 3);
  EXPECT_EQ(parsed->vector_width, 1);
  EXPECT_EQ(parsed->layout, SmemLayout::kPadded);
  EXPECT_EQ(parsed->wm, 64);
  EXPECT_EQ(kernel_id(*parsed), every);
  const auto swizzled = parse_kernel_id("r06-bank-128x128x8-t8x8-256t-v4-swizzled");
  ASSERT_TRUE(swizzled.has_value());
  EXPECT_EQ(swizzled->layout, SmemLayout::kSwizzled);
}

// Malformed ids are refused, each with the part that is wrong.
TEST(RegistryKernelId, MalformedIdsAreRefusedNamingThePart) {
  const std::string good = "r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded";
  ASSERT_TRUE(parse_kernel_id(good).has_value());
  const std::pair<const char*, const char*> cases[] = {
      {"", "not the rung"},
      {"r9-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded", "not the rung"},
      {"r11-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded", "not the rung"},
      {"r00-naive-32x32x0-t1x1-1024t", "not the rung"},
      {"R09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded", "not the rung"},
      {"r09-warp-256x128x16-w64x64-t16x8-256t-s3-v4-padded", "rung 9 is 'async', not 'warp'"},
      {"r09-ASYNC-256x128x16-w64x64-t16x8-256t-s3-v4-padded", "not 'ASYNC'"},
      {"r09", "missing the rung's short name"},
      {"r09-async", "missing the block tile"},
      {"r09-async-256x128x16", "missing the thread tile"},
      {"r09-async-256x128x16-w64x64", "missing the thread tile"},
      {"r09-async-256x128x16-w64x64-t16x8", "missing the threads"},
      {"r09-async-256x128-w64x64-t16x8-256t-s3-v4-padded", "not the block tile"},
      {"r09-async-256x128x16x2-w64x64-t16x8-256t-s3-v4-padded", "not the block tile"},
      {"r09-async-0256x128x16-w64x64-t16x8-256t-s3-v4-padded", "not the block tile"},
      {"r09-async-+256x128x16-w64x64-t16x8-256t-s3-v4-padded", "not the block tile"},
      {"r09-async-256x128x16-w64xx64-t16x8-256t-s3-v4-padded", "not the warp tile"},
      {"r09-async-256x128x16-w0x64-t16x8-256t-s3-v4-padded", "WM is > 0"},
      {"r09-async-256x128x16-w64x64-16x8-256t-s3-v4-padded", "not the thread tile"},
      {"r09-async-256x128x16-w64x64-t16x8-256-s3-v4-padded", "not the threads"},
      {"r09-async-256x128x16-w64x64-t16x8-t-s3-v4-padded", "not the threads"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s1-v4-padded", "'s1': 1 is the default"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s3-v1-padded", "'v1': 1 is the default"},
      {"r10-cluster-128x256x16-w64x64-t8x16-256t-s4-v4-padded-c1", "'c1': 1 is the default"},
      {"r04-tile2d-128x128x8-t8x8-256t-plain", "'plain' is the default layout"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-v4-s3-padded", "out of place"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded-s3", "out of place"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s3-s3-v4-padded", "out of place"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded-", "none of the optional parts"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-xor", "none of the optional parts"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded junk", "none of the optional parts"},
      {"r09-async-256x128x16--w64x64-t16x8-256t-s3-v4-padded", "not the thread tile"},
      {" r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded", "not the rung"},
      // Numbers out of range (gemm::tile_bounds_problem) and broken tile rules name the bound
      // or rule.
      {"r04-tile2d-8192x128x8-t8x8-256t", "out of range: BM and BN must be 1..4096"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s17-v4-padded",
       "out of range: stages must be 1..16"},
      {"r09-async-256x128x16-w64x64-t16x8-256t-s3-v8-padded", "out of range: vector width"},
      {"r10-cluster-128x256x16-w64x64-t8x16-256t-s4-v4-padded-c32", "out of range: cluster"},
      {"r04-tile2d-128x128x8-t8x8-99999999999t", "not the threads"},
      {"r09-async-256x128x16-w64x64-t16x8-128t-s3-v4-padded", "breaks a tile rule of rung 9"},
      {"r07-warp-128x128x8-w64x32-t8x4-256t-v4-swizzled", "breaks a tile rule of rung 7"},
      {"r04-tile2d-128x128x8-t8x8-0t", "breaks a tile rule of rung 4"},
  };
  for (const auto& [id, expected] : cases) {
    std::string problem;
    EXPECT_FALSE(parse_kernel_id(id, &problem).has_value()) << id;
    EXPECT_NE(problem.find(expected), std::string::npos)
        << "'" << id << "': " << problem << " (expected '" << expected << "')";
  }
  // Bytes that are not printable are shown escaped, never raw.
  std::string problem;
  EXPECT_FALSE(
      parse_kernel_id(std::string("r09-async-256x128x16-w64x64-t16x8-256t-") + "\n\x01", &problem)
          .has_value());
  EXPECT_NE(problem.find("\\x0a\\x01"), std::string::npos) << problem;
  EXPECT_EQ(problem.find('\n'), std::string::npos);
  EXPECT_FALSE(parse_kernel_id(std::string_view("r01-naive\0-32x32x0-t1x1-1024t", 29)));
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

TEST(CompiledKernels, TheRegistryThenTheSampleNoneTwice) {
  ASSERT_GE(kSampleSize, 400u);
  EXPECT_EQ(kCompiledSize, kRegistrySize + kSampleSize);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < kCompiledSize; ++i) {
    const TileConfig& c = compiled_config(i);
    EXPECT_EQ(c, i < kRegistrySize ? kRegistry[i].config : kSampleConfigs[i - kRegistrySize]);
    EXPECT_TRUE(ids.insert(kernel_id(c)).second) << kernel_id(c) << " is compiled twice";
    EXPECT_EQ(find_compiled_kernel(kernel_id(c)), i);
  }
  EXPECT_EQ(find_compiled_kernel("r99-nothing"), kCompiledSize);
  EXPECT_TRUE(sample_obeys_tile_rules());
}

}  // namespace
}  // namespace roofcast::kernels
