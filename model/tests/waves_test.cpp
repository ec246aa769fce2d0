// Waves and boundary-tile waste: hand-computed cases at the edges (a grid smaller than one
// wave, exactly one wave, one block more, clusters, a config that cannot launch).
#include "roofcast/waves.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace roofcast {
namespace {

gemm::TileConfig tile(int bm, int bn, int bk, int cluster = 1) {
  gemm::TileConfig c;
  c.rung = 4;
  c.bm = bm;
  c.bn = bn;
  c.bk = bk;
  c.cluster = cluster;
  return c;
}

TEST(Waves, GridSmallerThanOneWave) {
  const WaveResult w = compute_waves(1, 2, 132);
  EXPECT_TRUE(w.launchable());
  EXPECT_EQ(w.blocks_per_wave, 264);
  EXPECT_EQ(w.waves, 1);
  EXPECT_EQ(w.full_waves, 0);
  EXPECT_EQ(w.last_wave_blocks, 1);
  EXPECT_DOUBLE_EQ(w.tail_efficiency, 1.0 / 264);
}

TEST(Waves, ExactlyOneWave) {
  const WaveResult w = compute_waves(264, 2, 132);
  EXPECT_EQ(w.waves, 1);
  EXPECT_EQ(w.full_waves, 1);
  EXPECT_EQ(w.last_wave_blocks, 264);
  EXPECT_DOUBLE_EQ(w.tail_efficiency, 1.0);
}

TEST(Waves, OneBlockMoreThanAWaveAddsAWave) {
  const WaveResult w = compute_waves(265, 2, 132);
  EXPECT_EQ(w.waves, 2);
  EXPECT_EQ(w.full_waves, 1);
  EXPECT_EQ(w.last_wave_blocks, 1);
  EXPECT_DOUBLE_EQ(w.tail_efficiency, 265.0 / 528);
}

TEST(Waves, ManyWavesWithATail) {
  // 4096^3 with 128 x 128 tiles: 1024 blocks, one block per SM on 132 SMs.
  const WaveResult w = compute_waves(1024, 1, 132);
  EXPECT_EQ(w.waves, 8);
  EXPECT_EQ(w.full_waves, 7);
  EXPECT_EQ(w.last_wave_blocks, 1024 - 7 * 132);
  EXPECT_DOUBLE_EQ(w.tail_efficiency, 1024.0 / (8 * 132));
}

TEST(Waves, ClustersRoundTheWaveDownToWholeClusters) {
  const WaveResult w = compute_waves(1000, 1, 131, 2);
  EXPECT_EQ(w.blocks_per_wave, 130);
  EXPECT_EQ(w.waves, 8);
  EXPECT_EQ(compute_waves(1000, 3, 131, 4).blocks_per_wave, 392);  // 393 -> 98 clusters
}

TEST(Waves, MaxActiveClustersCapTheWave) {
  // H200, 4-block clusters at one block per SM: the runtime reports 30 clusters (120 blocks),
  // so 128 blocks (32 clusters) take two waves, not one of 132.
  const WaveResult w = compute_waves(128, 1, 132, 4, 30);
  EXPECT_EQ(w.blocks_per_wave, 120);
  EXPECT_EQ(w.waves, 2);
  EXPECT_EQ(w.full_waves, 1);
  EXPECT_EQ(w.last_wave_blocks, 8);
  // Exactly at the cap: one full wave.
  EXPECT_EQ(compute_waves(120, 1, 132, 4, 30).waves, 1);
  // A count above what the SMs hold does not raise the wave; 0 means unknown.
  EXPECT_EQ(compute_waves(128, 1, 132, 2, 100).blocks_per_wave, 132);
  EXPECT_EQ(compute_waves(128, 1, 132, 4, 0).blocks_per_wave, 132);
  // Without clusters the count is ignored.
  EXPECT_EQ(compute_waves(128, 1, 132, 1, 30).blocks_per_wave, 132);
  EXPECT_THROW(compute_waves(128, 1, 132, 4, -1), std::invalid_argument);
}

TEST(Waves, ZeroBlocksPerSmCannotLaunch) {
  const WaveResult w = compute_waves(100, 0, 132);
  EXPECT_FALSE(w.launchable());
  EXPECT_EQ(w.waves, 0);
  EXPECT_EQ(w.tail_efficiency, 0);
}

TEST(Waves, BadArgumentsThrowNamingTheArgument) {
  EXPECT_THROW(compute_waves(0, 1, 132), std::invalid_argument);
  EXPECT_THROW(compute_waves(10, -1, 132), std::invalid_argument);
  EXPECT_THROW(compute_waves(10, 1, 0), std::invalid_argument);
  EXPECT_THROW(compute_waves(10, 1, 132, 0), std::invalid_argument);
  try {
    compute_waves(0, 1, 132);
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "grid_blocks must be >= 1, got 0");
  }
}

TEST(TileWaste, M300WithBm256LaunchesTwoTileRows) {
  const TileWaste w = compute_tile_waste({300, 4096, 4096}, tile(256, 128, 8));
  EXPECT_EQ(w.tiles_m, 2);
  EXPECT_EQ(w.launched_tiles_m, 2);
  EXPECT_EQ(w.tiles_n, 32);
  EXPECT_EQ(w.launched_m, 512);
  EXPECT_EQ(w.launched_n, 4096);
  EXPECT_EQ(w.grid_blocks(), 64);
  EXPECT_DOUBLE_EQ(w.useful_fraction, 300.0 / 512);
  EXPECT_DOUBLE_EQ(w.useful_k_fraction, 1.0);
}

TEST(TileWaste, OneByOneByOne) {
  const TileWaste w = compute_tile_waste({1, 1, 1}, tile(128, 128, 8));
  EXPECT_EQ(w.grid_blocks(), 1);
  EXPECT_EQ(w.k_tiles, 1);
  EXPECT_EQ(w.launched_k, 8);
  EXPECT_DOUBLE_EQ(w.useful_fraction, 1.0 / (128 * 128));
  EXPECT_DOUBLE_EQ(w.useful_k_fraction, 1.0 / 8);
}

TEST(TileWaste, ExactTilesWasteNothing) {
  const TileWaste w = compute_tile_waste({4096, 4096, 4096}, tile(128, 128, 8));
  EXPECT_EQ(w.grid_blocks(), 1024);
  EXPECT_EQ(w.k_tiles, 512);
  EXPECT_DOUBLE_EQ(w.useful_fraction, 1.0);
  EXPECT_DOUBLE_EQ(w.useful_k_fraction, 1.0);
}

TEST(TileWaste, NaiveRungStepsKOneAtATime) {
  gemm::TileConfig naive = tile(32, 32, 0);
  naive.rung = 1;
  const TileWaste w = compute_tile_waste({100, 100, 5}, naive);
  EXPECT_EQ(k_tile_depth(naive), 1);
  EXPECT_EQ(w.k_tiles, 5);
  EXPECT_DOUBLE_EQ(w.useful_k_fraction, 1.0);
  EXPECT_EQ(w.grid_blocks(), 16);
}

TEST(TileWaste, ClustersRoundTileRowsUp) {
  // 5 tile rows in clusters of 2: 6 launched; the sixth row computes nothing useful.
  const TileWaste w = compute_tile_waste({5 * 128, 256, 64}, tile(128, 128, 8, 2));
  EXPECT_EQ(w.tiles_m, 5);
  EXPECT_EQ(w.launched_tiles_m, 6);
  EXPECT_EQ(w.grid_blocks(), 12);
  EXPECT_DOUBLE_EQ(w.useful_fraction, 5.0 / 6);
}

TEST(TileWaste, BadShapesThrow) {
  EXPECT_THROW(compute_tile_waste({0, 1, 1}, tile(128, 128, 8)), std::invalid_argument);
  EXPECT_THROW(compute_tile_waste({1, 1, 0}, tile(128, 128, 8)), std::invalid_argument);
  EXPECT_THROW(compute_tile_waste({1, 1, 1}, tile(0, 128, 8)), std::invalid_argument);
}

}  // namespace
}  // namespace roofcast
