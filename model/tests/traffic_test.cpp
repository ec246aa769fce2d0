// Traffic: the one-warp bank-conflict and L1-line analysis, the host copy of the shared tile
// layouts, each rung's anatomy (hand-counted from its kernel) and the launch's bytes per level.
#include "roofcast/traffic.hpp"
#include "roofcast/kernels/anatomy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "roofcast/kernels/registry.hpp"

namespace roofcast {
namespace {

using gemm::SmemLayout;
using gemm::TileConfig;

using kernels::tile;

const TileConfig kRung4 = tile(4, SmemLayout::kPlain, 128, 128, 8, 8, 8, 0, 0, 256, 1, 1);
const TileConfig kRung5 = tile(5, SmemLayout::kPlain, 128, 128, 8, 8, 8, 0, 0, 256, 1, 4);
const gemm::Problem k4096{4096, 4096, 4096};

// ---- the warp analysis ------------------------------------------------------------------

TEST(SharedWavefronts, ConsecutiveWordsAreOneWavefront) {
  std::int64_t w[32];
  for (int l = 0; l < 32; ++l) w[l] = 100 + l;  // any start: 32 different banks
  int ideal = 0;
  EXPECT_EQ(shared_wavefronts(w, 32, 1, 32, &ideal), 1);
  EXPECT_EQ(ideal, 1);
}

TEST(SharedWavefronts, StridesConflict) {
  std::int64_t w[32];
  int ideal = 0;
  for (int l = 0; l < 32; ++l) w[l] = 2 * l;  // banks 0, 2, .., 30 twice each
  EXPECT_EQ(shared_wavefronts(w, 32, 1, 32, &ideal), 2);
  EXPECT_EQ(ideal, 1);
  for (int l = 0; l < 32; ++l) w[l] = 32 * l;  // one column: all in bank 0
  EXPECT_EQ(shared_wavefronts(w, 32, 1, 32, &ideal), 32);
  EXPECT_EQ(ideal, 1);
  for (int l = 0; l < 32; ++l) w[l] = 33 * l;  // padded column: 32 banks
  EXPECT_EQ(shared_wavefronts(w, 32, 1, 32, nullptr), 1);
}

TEST(SharedWavefronts, SameWordIsABroadcast) {
  std::int64_t w[32];
  for (int l = 0; l < 32; ++l) w[l] = 7;
  int ideal = 0;
  EXPECT_EQ(shared_wavefronts(w, 32, 1, 32, &ideal), 1);
  EXPECT_EQ(ideal, 1);
  for (int l = 0; l < 32; ++l) w[l] = l < 16 ? 0 : 64;  // two words, same bank
  EXPECT_EQ(shared_wavefronts(w, 32, 1, 32, &ideal), 2);
}

TEST(SharedWavefronts, Float4) {
  std::int64_t w[32];
  int ideal = 0;
  for (int l = 0; l < 32; ++l) w[l] = 4 * l;  // 512 consecutive bytes: 4 wavefronts
  EXPECT_EQ(shared_wavefronts(w, 32, 4, 32, &ideal), 4);
  EXPECT_EQ(ideal, 4);
  // Rung 5's B fragments: 16 threads at 8-float steps (twice each): float4 units 0, 2, .., 30
  // use bank groups 0, 2, 4, 6 only, 4 units each.
  for (int l = 0; l < 32; ++l) w[l] = 8 * (l % 16);
  EXPECT_EQ(shared_wavefronts(w, 32, 4, 32, &ideal), 4);
  EXPECT_EQ(ideal, 2);
  for (int l = 0; l < 32; ++l) w[l] = 0;  // all lanes one float4
  EXPECT_EQ(shared_wavefronts(w, 32, 4, 32, &ideal), 1);
  EXPECT_EQ(ideal, 1);
}

// Loads return one register per lane per cycle: an LDS.128 is served by quarter warps, two
// lanes per slot when every pair l, l ^ 1 (or l, l ^ 2) reads one address. The three patterns
// ncu measured on an H100 (shared_load_wavefronts' doc comment) and the warp-tiled fragments.
TEST(SharedLoadWavefronts, QuarterWarpPhasesAndPairedLanes) {
  std::int64_t w[32];
  int ideal = 0;
  for (int l = 0; l < 32; ++l) w[l] = 4 * l;  // contiguous LDS.128: 4
  EXPECT_EQ(shared_load_wavefronts(w, 32, 4, 32, &ideal), 4);
  EXPECT_EQ(ideal, 4);
  for (int l = 0; l < 32; ++l) w[l] = 8 * (l % 16);  // lanes l, l + 16 at 32-byte steps: 8
  EXPECT_EQ(shared_load_wavefronts(w, 32, 4, 32, &ideal), 8);
  EXPECT_EQ(ideal, 4);
  for (int l = 0; l < 32; ++l) w[l] = 8 * (l / 16);  // lanes 0-15 at +0, 16-31 at +32 B: 2
  EXPECT_EQ(shared_load_wavefronts(w, 32, 4, 32, &ideal), 2);
  EXPECT_EQ(ideal, 2);
  for (int l = 0; l < 32; ++l) w[l] = 0;  // one float4 for all: still two paired phases
  EXPECT_EQ(shared_load_wavefronts(w, 32, 4, 32, nullptr), 2);
  // Warp tile 64 x 64 at t8x16 (4 thread columns): A by lane / 4 is paired (2), B by
  // lane % 4 is not (4); at t16x8 (8 columns) A by lane / 8 (2), B by lane % 8 (4). Per k:
  // t8x16 2 * 2 + 4 * 4 = 20, t16x8 4 * 2 + 2 * 4 = 16.
  for (int l = 0; l < 32; ++l) w[l] = 4 * (l / 4);
  EXPECT_EQ(shared_load_wavefronts(w, 32, 4, 32, nullptr), 2);
  for (int l = 0; l < 32; ++l) w[l] = 4 * (l % 4);
  EXPECT_EQ(shared_load_wavefronts(w, 32, 4, 32, nullptr), 4);
  for (int l = 0; l < 32; ++l) w[l] = 4 * (l % 8);
  EXPECT_EQ(shared_load_wavefronts(w, 32, 4, 32, nullptr), 4);
  // LDS.64: half-warp phases; LDS.32 is shared_wavefronts.
  for (int l = 0; l < 32; ++l) w[l] = 2 * l;
  EXPECT_EQ(shared_load_wavefronts(w, 32, 2, 32, nullptr), 2);
  for (int l = 0; l < 32; ++l) w[l] = l;
  EXPECT_EQ(shared_load_wavefronts(w, 32, 1, 32, nullptr), 1);
}

TEST(SharedWavefronts, FarApartRowsTakeTheGeneralPath) {
  std::int64_t w[32];
  for (int l = 0; l < 32; ++l) w[l] = 4096 * l;  // 32 rows far apart, all bank 0
  EXPECT_EQ(shared_wavefronts(w, 32, 1, 32, nullptr), 32);
  for (int l = 0; l < 32; ++l) w[l] = 4096 * l + l;  // far apart, 32 banks
  EXPECT_EQ(shared_wavefronts(w, 32, 1, 32, nullptr), 1);
}

TEST(GlobalWavefronts, LinesAndSectors) {
  std::int64_t w[32];
  int ideal = 0;
  int sectors = 0;
  for (int l = 0; l < 32; ++l) w[l] = l;  // one aligned 128-byte line
  EXPECT_EQ(global_wavefronts(w, 32, 1, &ideal, &sectors), 1);
  EXPECT_EQ(ideal, 1);
  EXPECT_EQ(sectors, 4);
  for (int l = 0; l < 32; ++l) w[l] = (l / 8) * 4096 + l % 8;  // 4 rows x 32 bytes
  EXPECT_EQ(global_wavefronts(w, 32, 1, &ideal, &sectors), 4);
  EXPECT_EQ(ideal, 1);
  EXPECT_EQ(sectors, 4);
  for (int l = 0; l < 32; ++l) w[l] = 0;  // broadcast
  EXPECT_EQ(global_wavefronts(w, 32, 1, &ideal, &sectors), 1);
  EXPECT_EQ(sectors, 1);
  for (int l = 0; l < 32; ++l) w[l] = 4 * l;  // float4 x 32: 512 bytes, 4 lines
  EXPECT_EQ(global_wavefronts(w, 32, 4, &ideal, &sectors), 4);
  EXPECT_EQ(ideal, 4);
  EXPECT_EQ(sectors, 16);
}

// ---- layouts ----------------------------------------------------------------------------

TEST(Traffic, Square4096) {
  const KernelAnatomy a = kernels::anatomy(k4096, kRung4);
  const Traffic t = compute_traffic(k4096, a, compute_tile_waste(k4096, kRung4), false);
  const double n = 4096;
  EXPECT_DOUBLE_EQ(t.flops, 2 * n * n * n);
  EXPECT_DOUBLE_EQ(t.issued_flops, t.flops);
  EXPECT_DOUBLE_EQ(t.a_l2_bytes, 32 * n * n * 4);  // every tile column reads all of A
  EXPECT_DOUBLE_EQ(t.b_l2_bytes, 32 * n * n * 4);
  EXPECT_DOUBLE_EQ(t.c_write_bytes, n * n * 4);
  EXPECT_DOUBLE_EQ(t.c_read_bytes, 0);
  EXPECT_DOUBLE_EQ(t.compulsory_dram_bytes, 3 * n * n * 4);
  // 1024 blocks x 8 warps x 512 K tiles x 200 wavefronts.
  EXPECT_DOUBLE_EQ(t.shared_wavefronts, 1024.0 * 8 * 512 * 200);
  EXPECT_DOUBLE_EQ(t.ffma_warp_instructions * 32 * 2, t.issued_flops);
  EXPECT_DOUBLE_EQ(t.l1_hit_rate(), 0);  // tiles are loaded once per block
  EXPECT_DOUBLE_EQ(dram_bytes(t, k4096, 1.0), t.compulsory_dram_bytes);
  EXPECT_DOUBLE_EQ(dram_bytes(t, k4096, 0.0), t.operand_l2_bytes() + t.c_write_bytes);
  EXPECT_DOUBLE_EQ(dram_bytes(t, k4096, 0.5), 0.5 * t.operand_l2_bytes() + t.c_write_bytes);
}

TEST(Traffic, EdgeTilesIssueInFullButMoveOnlyUsefulBytes) {
  const gemm::Problem p{300, 4096, 4096};
  TileConfig c = kRung4;
  c.bm = 256;
  c.threads = 512;
  const TileWaste w = compute_tile_waste(p, c);
  const Traffic t = compute_traffic(p, kernels::anatomy(p, c), w, true);
  EXPECT_DOUBLE_EQ(t.issued_flops, 2.0 * 512 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(t.flops, 2.0 * 300 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(t.a_l2_bytes, 32.0 * 300 * 4096 * 4);
  EXPECT_DOUBLE_EQ(t.b_l2_bytes, 2.0 * 4096 * 4096 * 4);
  EXPECT_DOUBLE_EQ(t.c_read_bytes, 300.0 * 4096 * 4);
}

TEST(Traffic, OneByOneByOne) {
  const gemm::Problem p{1, 1, 1};
  const Traffic t =
      compute_traffic(p, kernels::anatomy(p, kRung4), compute_tile_waste(p, kRung4), false);
  EXPECT_DOUBLE_EQ(t.flops, 2);
  EXPECT_DOUBLE_EQ(t.issued_flops, 2.0 * 128 * 128 * 8);
  EXPECT_DOUBLE_EQ(t.a_l2_bytes, 4);
  EXPECT_DOUBLE_EQ(t.b_l2_bytes, 4);
  EXPECT_DOUBLE_EQ(dram_bytes(t, p, 0.0), 12);
}

TEST(Traffic, NaiveReusesInL1) {
  const TileConfig c = tile(1, SmemLayout::kPlain, 32, 32, 0, 1, 1, 0, 0, 1024, 1, 1);
  const Traffic t =
      compute_traffic(k4096, kernels::anatomy(k4096, c), compute_tile_waste(k4096, c), false);
  // Requested from L1 per warp per k: one A sector (32 B) and four B sectors (128 B); L2 sees
  // each block's A rows and B columns once: (32 + 32) * 4 bytes per block per k for 32 warps.
  EXPECT_DOUBLE_EQ(t.l1_global_bytes, 128.0 * 128 * 32 * 4096 * 160);
  EXPECT_NEAR(t.l1_hit_rate(), 1 - 256.0 / (32 * 160), 1e-12);
}

TEST(Traffic, ClusterMulticastDividesBBytes) {
  TileConfig c = tile(10, SmemLayout::kPadded, 128, 128, 8, 8, 16, 64, 64, 128, 3, 4, 2);
  const Traffic t =
      compute_traffic(k4096, kernels::anatomy(k4096, c), compute_tile_waste(k4096, c), false);
  EXPECT_DOUBLE_EQ(t.b_l2_bytes, 32.0 * 4096 * 4096 * 4 / 2);
  EXPECT_DOUBLE_EQ(t.a_l2_bytes, 32.0 * 4096 * 4096 * 4);
}

// The epilogue's C stores, in 32-byte sectors per warp: float4 stores of an 8-wide thread tile
// put one 16-byte vector in each sector (twice the bytes), 4-wide tiles pair up lanes in one
// sector, and scalar stores of unaligned rows touch one sector per 4-byte word.
TEST(CStoreSectors, VectorWidthAndTileWidthDecideTheSectors) {
  // 8 lanes along N, 4 rows per instruction; 8 rows x 2 float4 per thread: 16 instructions.
  EXPECT_DOUBLE_EQ(c_store_sectors_per_warp(32, 8, 8, 8, 4, 4096), 16 * 32);
  // TN = 4: lanes 2t and 2t + 1 share a sector: 16 per instruction, 4 instructions.
  EXPECT_DOUBLE_EQ(c_store_sectors_per_warp(32, 16, 4, 4, 4, 4096), 4 * 16);
  // Scalar stores (N odd): 8 x 8 instructions of 32 sectors each.
  EXPECT_DOUBLE_EQ(c_store_sectors_per_warp(32, 8, 8, 8, 1, 4097), 64 * 32);
  // All 32 lanes along one row, TN = 1: one 128-byte row, 4 sectors.
  EXPECT_DOUBLE_EQ(c_store_sectors_per_warp(32, 32, 1, 1, 1, 4096), 4);
  EXPECT_DOUBLE_EQ(c_store_sectors_per_warp(32, 0, 8, 8, 4, 4096), 0);  // no layout: nothing
}

}  // namespace
}  // namespace roofcast
