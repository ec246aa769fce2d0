// L2 hit-rate models: footprints of a window of blocks under each raster order, the published
// formula and roofcast's reuse-distance model on hand-computed cases.
#include "roofcast/l2.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <stdexcept>

namespace roofcast {
namespace {

using gemm::RasterKind;
using gemm::RasterOrder;

constexpr RasterOrder kRowMajor{RasterKind::kRowMajor, 1};
constexpr RasterOrder kColumnMajor{RasterKind::kColumnMajor, 1};
constexpr RasterOrder kZOrder{RasterKind::kZOrder, 1};
constexpr RasterOrder grouped(int g) { return RasterOrder{RasterKind::kGrouped, g}; }

/// A Tm x Tn grid of tiles with panels of `panel` bytes and slabs of `slab` bytes.
L2Input grid(std::int64_t tm, std::int64_t tn, std::int64_t resident, RasterOrder raster,
             double l2_bytes, double panel = 100, double slab = 1, int tile = 128) {
  L2Input in;
  in.tiles_m = tm;
  in.tiles_n = tn;
  in.raster = raster;
  in.resident_blocks = resident;
  in.bm = tile;
  in.bn = tile;
  in.a_panel_bytes = panel;
  in.b_panel_bytes = panel;
  in.a_slab_bytes = slab;
  in.b_slab_bytes = slab;
  in.l2_bytes = l2_bytes;
  return in;
}

TEST(WindowFootprint, RowMajorColumnMajorGroupedZOrder) {
  // 32 x 32 tiles, 132 blocks at once (one per SM on an H200).
  WindowFootprint f = window_footprint(32, 32, kRowMajor, 132);
  EXPECT_DOUBLE_EQ(f.rows, 1 + 131.0 / 32);
  EXPECT_DOUBLE_EQ(f.cols, 32);
  f = window_footprint(32, 32, kColumnMajor, 132);
  EXPECT_DOUBLE_EQ(f.rows, 32);
  EXPECT_DOUBLE_EQ(f.cols, 1 + 131.0 / 32);
  f = window_footprint(32, 32, grouped(8), 132);  // 8 rows per group, 256 blocks per group
  EXPECT_DOUBLE_EQ(f.rows, 8 * (1 + 131.0 / 256));
  EXPECT_DOUBLE_EQ(f.cols, 1 + 131.0 / 8);
  f = window_footprint(32, 32, kZOrder, 132);
  EXPECT_DOUBLE_EQ(f.rows, std::sqrt(132.0));
  EXPECT_DOUBLE_EQ(f.cols, 132 / std::sqrt(132.0));
}

TEST(WindowFootprint, OneBlockAndTheWholeGrid) {
  for (RasterOrder r : {kRowMajor, kColumnMajor, grouped(4), kZOrder}) {
    const WindowFootprint one = window_footprint(16, 8, r, 1);
    EXPECT_DOUBLE_EQ(one.rows, 1) << gemm::to_string(r);
    EXPECT_DOUBLE_EQ(one.cols, 1) << gemm::to_string(r);
    const WindowFootprint all = window_footprint(16, 8, r, 16 * 8);
    EXPECT_DOUBLE_EQ(all.rows, 16) << gemm::to_string(r);
    EXPECT_DOUBLE_EQ(all.cols, 8) << gemm::to_string(r);
    const WindowFootprint more = window_footprint(16, 8, r, 1e9);  // capped by the grid
    EXPECT_DOUBLE_EQ(more.rows, 16);
    EXPECT_DOUBLE_EQ(more.cols, 8);
  }
}

TEST(WindowFootprint, GroupedOfOneIsRowMajorAndOfAllRowsColumnMajor) {
  for (double w : {1.0, 7.0, 40.0, 300.0}) {
    const WindowFootprint r = window_footprint(24, 40, kRowMajor, w);
    const WindowFootprint g1 = window_footprint(24, 40, grouped(1), w);
    EXPECT_DOUBLE_EQ(r.rows, g1.rows);
    EXPECT_DOUBLE_EQ(r.cols, g1.cols);
    const WindowFootprint c = window_footprint(24, 40, kColumnMajor, w);
    const WindowFootprint gm = window_footprint(24, 40, grouped(1000), w);
    EXPECT_DOUBLE_EQ(c.rows, gm.rows);
    EXPECT_DOUBLE_EQ(c.cols, gm.cols);
  }
}

TEST(PublishedModel, HandComputed) {
  // Wm = 1 + 131/32, Wn = 32, Mblock = Nblock = 128:
  // hit = 1 - Wm Wn / (Wm Wn + Wm * 128 + Wn * 128).
  const L2Result r = published_hit_rate(grid(32, 32, 132, kRowMajor, 1e9));
  const double wm = 1 + 131.0 / 32;
  const double wn = 32;
  EXPECT_EQ(r.model, L2Model::kPublished);
  EXPECT_DOUBLE_EQ(r.wave_rows, wm);
  EXPECT_DOUBLE_EQ(r.wave_cols, wn);
  EXPECT_DOUBLE_EQ(r.hit_rate, 1 - wm * wn / (wm * wn + wm * 128 + wn * 128));
  EXPECT_NEAR(r.hit_rate, 0.96681, 1e-5);
  // One block at a time: 1 - 1 / (1 + 256).
  EXPECT_DOUBLE_EQ(published_hit_rate(grid(32, 32, 1, kRowMajor, 1e9)).hit_rate, 256.0 / 257);
}

TEST(PublishedModel, IgnoresCapacityAndK) {
  const double small = published_hit_rate(grid(32, 32, 132, kRowMajor, 1)).hit_rate;
  const double large = published_hit_rate(grid(32, 32, 132, kRowMajor, 1e12, 1e6)).hit_rate;
  EXPECT_DOUBLE_EQ(small, large);
}

TEST(RoofcastModel, OneTileHasOnlyTheCompulsoryMiss) {
  const L2Result r = roofcast_hit_rate(grid(1, 1, 1, kRowMajor, 1e9));
  EXPECT_DOUBLE_EQ(r.hit_rate, 0);
}

TEST(RoofcastModel, OneWaveThatFitsHitsAllButTheFirstRequest) {
  // 4 x 4 tiles all resident: A row panels are requested 4 times and loaded once, B the
  // same: hit = 1 - (4 + 4) / (2 * 16) = 0.75, whatever the raster order.
  for (RasterOrder r : {kRowMajor, kColumnMajor, grouped(2), kZOrder}) {
    const L2Result res = roofcast_hit_rate(grid(4, 4, 16, r, 1e9));
    EXPECT_DOUBLE_EQ(res.a_hit_rate, 0.75) << gemm::to_string(r);
    EXPECT_DOUBLE_EQ(res.b_hit_rate, 0.75) << gemm::to_string(r);
    EXPECT_DOUBLE_EQ(res.hit_rate, 0.75) << gemm::to_string(r);
  }
}

TEST(RoofcastModel, ReuseAcrossWavesWhenItFits) {
  // One block at a time on a 2 x 2 grid: every reuse crosses waves; with room for everything,
  // only the compulsory misses remain: 2 of 4 A requests and 2 of 4 B requests hit.
  const L2Result r = roofcast_hit_rate(grid(2, 2, 1, kRowMajor, 1e9));
  EXPECT_DOUBLE_EQ(r.a_hit_rate, 0.5);
  EXPECT_DOUBLE_EQ(r.b_hit_rate, 0.5);
  EXPECT_DOUBLE_EQ(r.cross_wave_retention, 1);
}

TEST(SetLruSurvival, SoftCliffAtTheCapacity) {
  // P(Poisson(16 x) < 16), hand-computed (Python, math.factorial).
  EXPECT_DOUBLE_EQ(set_lru_survival(0), 1);
  EXPECT_DOUBLE_EQ(set_lru_survival(-1), 1);  // no distinct data in between
  EXPECT_NEAR(set_lru_survival(0.5), 0.991768989013155, 1e-12);
  EXPECT_NEAR(set_lru_survival(1), 0.4667448913877208, 1e-12);
  EXPECT_NEAR(set_lru_survival(2), 0.0006599275525999415, 1e-15);
  EXPECT_LT(set_lru_survival(3), 1e-7);
  double previous = 2;
  for (double x = 0; x < 4; x += 0.05) {  // falls monotonically, stays in [0, 1]
    const double s = set_lru_survival(x);
    EXPECT_GE(s, 0);
    EXPECT_LE(s, 1);
    EXPECT_LT(s, previous);
    previous = s;
  }
}

TEST(RoofcastModel, CapacitySetsTheCrossWaveReuse) {
  // 1 x 2 grid of 1 x 1 tiles, one block at a time: the A panel is reused once, by the next
  // block, after D = a_panel + b_panel + one C tile = 100 + 100 + 4 = 204 bytes. An 816-byte
  // L2 leaves C = 408 bytes for data both partitions cache: x = D / C = 0.5, survival(0.5) of
  // the reuse hits: A hit = survival / 2 requests; B is never reused: hit = A hit / 2.
  const double s = set_lru_survival(0.5);
  L2Result r = roofcast_hit_rate(grid(1, 2, 1, kRowMajor, 816, 100, 1, 1));
  EXPECT_DOUBLE_EQ(r.wave_footprint_bytes, 204);
  EXPECT_DOUBLE_EQ(r.cross_wave_retention, s);
  EXPECT_DOUBLE_EQ(r.a_hit_rate, s / 2);
  EXPECT_DOUBLE_EQ(r.b_hit_rate, 0);
  EXPECT_DOUBLE_EQ(r.hit_rate, s / 4);
  // A 204-byte L2 (C = 102, x = 2): the footprint is twice the room and the reuse thrashes.
  r = roofcast_hit_rate(grid(1, 2, 1, kRowMajor, 204, 100, 1, 1));
  EXPECT_DOUBLE_EQ(r.cross_wave_retention, set_lru_survival(2));
  EXPECT_LT(r.hit_rate, 1e-3);
}

TEST(RoofcastModel, InFlightSlabsMustFitForReuseInsideAWave) {
  // 2 x 2 tiles in one wave; in flight: (2 A slabs + 2 B slabs) * 100 bytes = 400 bytes in an
  // 800-byte L2 (400 bytes for data both partitions cache): x = 1, survival(1) of the in-wave
  // reuses hit: survival * 2 / 4 per operand.
  L2Input in = grid(2, 2, 4, kRowMajor, 800, 100, 100);
  const L2Result r = roofcast_hit_rate(in);
  EXPECT_DOUBLE_EQ(r.in_flight_bytes, 400);
  EXPECT_DOUBLE_EQ(r.in_flight_retention, set_lru_survival(1));
  EXPECT_DOUBLE_EQ(r.hit_rate, set_lru_survival(1) / 2);
  in.slabs_in_flight = 2;  // twice the stages, twice the bytes in flight
  EXPECT_DOUBLE_EQ(roofcast_hit_rate(in).in_flight_retention, set_lru_survival(2));
  in.l2_bytes = 3200;  // x = 0.5 with two stages
  EXPECT_DOUBLE_EQ(roofcast_hit_rate(in).in_flight_retention, set_lru_survival(0.5));
}

TEST(RoofcastModel, GroupedIsRowMajorOrColumnMajorAtTheExtremes) {
  const L2Input base = grid(24, 40, 132, kRowMajor, 5000, 100, 1);
  L2Input g = base;
  g.raster = grouped(1);
  EXPECT_DOUBLE_EQ(roofcast_hit_rate(base).hit_rate, roofcast_hit_rate(g).hit_rate);
  L2Input c = base;
  c.raster = kColumnMajor;
  g.raster = grouped(24);
  EXPECT_DOUBLE_EQ(roofcast_hit_rate(c).hit_rate, roofcast_hit_rate(g).hit_rate);
}

TEST(RoofcastModel, GroupingHelpsWhenTheWaveFootprintExceedsL2) {
  // H200-like 4096^3 with 128 x 128 tiles, 132 resident blocks, panels of 128 * 4096 * 4
  // bytes and a 60 MiB L2: row-major's wave touches every B panel (77.8 MB > L2), grouped-8
  // keeps the wave's footprint small.
  const double panel = 128.0 * 4096 * 4;
  L2Input in = grid(32, 32, 132, kRowMajor, 60.0 * 1024 * 1024, panel, 128.0 * 8 * 4);
  const L2Result row = roofcast_hit_rate(in);
  in.raster = grouped(8);
  const L2Result grp = roofcast_hit_rate(in);
  EXPECT_GT(row.wave_footprint_bytes, 60.0 * 1024 * 1024);
  EXPECT_LT(grp.wave_footprint_bytes, row.wave_footprint_bytes);
  EXPECT_GT(grp.hit_rate, row.hit_rate);
  EXPECT_GT(row.hit_rate, 0.85);                     // most reuse is inside the wave either way
  EXPECT_LT(grp.hit_rate, 1 - 64.0 / 2048 + 1e-12);  // never above the compulsory bound
}

TEST(RoofcastModel, ZOrderWithoutRoomForReuseMisses) {
  // One block at a time and a 1-byte L2: nothing survives between blocks.
  const L2Result r = roofcast_hit_rate(grid(8, 8, 1, kZOrder, 1));
  EXPECT_LT(r.hit_rate, 0.01);
  // With room for everything: only compulsory misses, 1 - 16 / 128.
  EXPECT_DOUBLE_EQ(roofcast_hit_rate(grid(8, 8, 1, kZOrder, 1e9)).hit_rate, 1 - 16.0 / 128);
}

TEST(RoofcastModel, NeverAboveTheCompulsoryBound) {
  for (RasterOrder r : {kRowMajor, kColumnMajor, grouped(3), kZOrder}) {
    for (std::int64_t w : {1, 5, 64, 1000}) {
      const L2Result res = roofcast_hit_rate(grid(17, 29, w, r, 1e12));
      EXPECT_LE(res.hit_rate, 1 - (17.0 + 29.0) / (2 * 17 * 29) + 1e-12);
      EXPECT_GE(res.hit_rate, 0);
    }
  }
}

/// An H200-like SGEMM of M x N x K with 128 x 128 x 16 tiles and two blocks per SM.
L2Input h200_like(std::int64_t m, std::int64_t n, std::int64_t k, RasterOrder raster) {
  L2Input in = grid(m / 128, n / 128, 264, raster, 62914560.0, 128.0 * k * 4, 128.0 * 16 * 4);
  return in;
}

TEST(RoofcastProperties, BoundedAndMonotonicInL2Size) {
  for (RasterOrder r : {kRowMajor, kColumnMajor, grouped(4), grouped(8), kZOrder}) {
    double previous = -1;
    for (double l2 : {1e3, 1e6, 1e7, 3e7, 6e7, 1e8, 1e9, 1e12}) {
      L2Input in = h200_like(8192, 8192, 8192, r);
      in.l2_bytes = l2;
      const double hit = roofcast_hit_rate(in).hit_rate;
      EXPECT_GE(hit, 0) << gemm::to_string(r);
      EXPECT_LE(hit, 1) << gemm::to_string(r);
      EXPECT_GE(hit, previous - 1e-12) << gemm::to_string(r) << " L2 " << l2;
      previous = hit;
    }
  }
}

TEST(RoofcastProperties, GroupedBeatsRowMajorOnLargeGrids) {
  for (std::int64_t size : {8192, 16384}) {
    const double row = roofcast_hit_rate(h200_like(size, size, size, kRowMajor)).hit_rate;
    const double g8 = roofcast_hit_rate(h200_like(size, size, size, grouped(8))).hit_rate;
    EXPECT_GT(g8, row) << size;
  }
}

TEST(RoofcastProperties, CStoresShortenTheReuseThatSurvives) {
  // The same panels with larger C tiles (BM, BN up, panels fixed) leave less room for reuse.
  L2Input in = grid(32, 32, 1, kRowMajor, 2e6, 1e4, 1, 1);
  const double small_c = roofcast_hit_rate(in).hit_rate;
  in.bm = in.bn = 512;  // 1 MiB C tiles
  EXPECT_LT(roofcast_hit_rate(in).hit_rate, small_c);
}

TEST(SectorHitRate, BoundedAndRisingWithTheOperandHitRate) {
  double previous = -1;
  for (double h : {0.5, 0.7, 0.9, 0.99, 1.0}) {
    const double s = kernel_sector_hit_rate(h, 1e9, 6.7e7, 0);
    EXPECT_GE(s, 0);
    EXPECT_LE(s, 1);
    EXPECT_GT(s, previous);
    previous = s;
  }
}

TEST(L2Cost, IndependentOfKAndGridSize) {
  // No loop over blocks or K tiles: a grid of 2^40 tiles and K of 2^40 cost the same as a
  // small one (a loop over blocks would not finish within the test's time).
  const auto start = std::chrono::steady_clock::now();
  double sink = 0;
  for (int i = 0; i < 1000; ++i) {
    L2Input in = grid(std::int64_t{1} << 20, std::int64_t{1} << 20, 264, grouped(8), 6e7,
                      512.0 * 1099511627776.0, 4096);
    in.l2_bytes += i;
    sink += roofcast_hit_rate(in).hit_rate + published_hit_rate(in).hit_rate;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(sink, 0);
  EXPECT_LT(seconds, 0.5);  // ~1 us each; a loop over 2^40 blocks would take hours
}

TEST(L2Models, NamesAndDispatch) {
  EXPECT_EQ(to_string(L2Model::kPublished), "published");
  EXPECT_EQ(to_string(L2Model::kRoofcast), "roofcast");
  EXPECT_EQ(parse_l2_model("published"), L2Model::kPublished);
  EXPECT_EQ(parse_l2_model("roofcast"), L2Model::kRoofcast);
  EXPECT_FALSE(parse_l2_model("lru").has_value());
  const L2Input in = grid(32, 32, 132, kRowMajor, 1e6);
  EXPECT_DOUBLE_EQ(l2_hit_rate(in, L2Model::kPublished).hit_rate, published_hit_rate(in).hit_rate);
  EXPECT_DOUBLE_EQ(l2_hit_rate(in, L2Model::kRoofcast).hit_rate, roofcast_hit_rate(in).hit_rate);
}

TEST(L2Models, BadInputThrows) {
  EXPECT_THROW(roofcast_hit_rate(grid(0, 4, 1, kRowMajor, 1)), std::invalid_argument);
  EXPECT_THROW(published_hit_rate(grid(4, 4, 0, kRowMajor, 1)), std::invalid_argument);
  EXPECT_THROW(roofcast_hit_rate(grid(4, 4, 1, kRowMajor, 0)), std::invalid_argument);
  EXPECT_THROW(roofcast_hit_rate(grid(4, 4, 1, grouped(0), 1)), std::invalid_argument);
}

TEST(KernelSectorHitRate, CWritesHitCReadsMiss) {
  // Misses: kMissLookupsPerDramSector = 1.6 lookups per operand or C-read sector from DRAM.
  EXPECT_DOUBLE_EQ(kMissLookupsPerDramSector, 1.6);
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(0.5, 100, 50, 0), 1 - 1.6 * 50 / 150);
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(0.5, 100, 50, 50), 1 - 1.6 * 100 / 200);
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(1.0, 100, 50, 0), 1);
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(0.0, 100, 0, 0), 0);  // clamped at 0
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(0.9, 0, 0, 0), 0);
}

TEST(KernelSectorHitRate, SpillTrafficHits) {
  // Local-memory sectors that reach L2 are written before they are read: all hits.
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(0.5, 100, 50, 0, 850), 1 - 1.6 * 50 / 1000);
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(0.5, 100, 50, 0, 0),
                   kernel_sector_hit_rate(0.5, 100, 50, 0));
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(0.5, 100, 50, 0, -5),  // negative: none
                   kernel_sector_hit_rate(0.5, 100, 50, 0));
  EXPECT_DOUBLE_EQ(kernel_sector_hit_rate(0.0, 0, 0, 0, 100), 1);  // spills only
}

}  // namespace
}  // namespace roofcast
