// The measured sample's draw (tune/sample.hpp): fixed by its seed, stratified, inside the space,
// apart from the registry, and split by config and shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "roofcast/kernels/registry.hpp"
#include "roofcast/tune/sample.hpp"
#include "roofcast/tune/space.hpp"

namespace {

using namespace roofcast;

const std::vector<gemm::TileConfig>& h200_sample() {
  static const std::vector<gemm::TileConfig> sample =
      tune::sample_configs(embedded_spec("h200-sxm"));
  return sample;
}

TEST(SampleRandom, IsSplitmix64) {
  // splitmix64's first outputs from seed 0 (the reference implementation's).
  tune::SampleRandom random(0);
  EXPECT_EQ(random.next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(random.next(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(random.next(), 0x06C45D188009454FULL);
}

TEST(SampleConfigs, AtLeast400FromEveryRungAndShapeNoneRegistered) {
  const auto& sample = h200_sample();
  ASSERT_GE(sample.size(), 400u);
  std::map<std::pair<int, tune::TileShape>, int> strata;
  std::set<std::string> ids;
  for (const gemm::TileConfig& c : sample) {
    EXPECT_EQ(kernels::violated_rule(c), nullptr) << kernels::kernel_id(c);
    EXPECT_EQ(tune::exclusion(embedded_spec("h200-sxm"), c), tune::Exclusion::kNone)
        << kernels::kernel_id(c);
    EXPECT_EQ(kernels::find_kernel(kernels::kernel_id(c)), kernels::kRegistrySize)
        << kernels::kernel_id(c) << " is a registry config";
    EXPECT_TRUE(ids.insert(kernels::kernel_id(c)).second) << kernels::kernel_id(c) << " twice";
    ++strata[std::make_pair(c.rung, tune::tile_shape(c))];
  }
  for (int rung = 4; rung <= 10; ++rung) {
    for (const tune::TileShape shape :
         {tune::TileShape::kSquare, tune::TileShape::kWide, tune::TileShape::kThin}) {
      EXPECT_GE((strata[{rung, shape}]), 1) << "rung " << rung << " " << tune::to_string(shape);
    }
  }
  // The thin 128x16 warp tiles the ranking favours are measured.
  EXPECT_TRUE(std::any_of(sample.begin(), sample.end(),
                          [](const gemm::TileConfig& c) { return c.wm == 128 && c.wn == 16; }));
}

TEST(SampleConfigs, TheSeedFixesTheDraw) {
  const auto again = tune::sample_configs(embedded_spec("h200-sxm"));
  EXPECT_EQ(again, h200_sample());
  tune::ConfigSampleOptions other;
  other.seed = tune::kSampleSeed + 1;
  EXPECT_NE(tune::sample_configs(embedded_spec("h200-sxm"), other), h200_sample());
}

TEST(SampleShapes, LogUniformWithSmallKAndSmallMAndOddExtents) {
  const auto shapes = tune::sample_shapes();
  ASSERT_GE(shapes.size(), 16u);
  EXPECT_EQ(shapes, tune::sample_shapes());
  int odd = 0, small_k = 0, small_m = 0;
  for (const gemm::Problem& p : shapes) {
    for (const std::int64_t x : {p.m, p.n, p.k}) {
      EXPECT_GE(x, 32);
      EXPECT_LE(x, 16384);
    }
    EXPECT_LE(p.flops(), tune::ShapeSampleOptions{}.max_flops);
    odd += p.m % 4 != 0 || p.n % 4 != 0 || p.k % 4 != 0;
    small_k += p.k <= 128;
    small_m += p.m <= 128;
  }
  EXPECT_GE(3 * odd, static_cast<int>(shapes.size())) << "a third not multiples of 4";
  EXPECT_GE(small_k, 3);
  EXPECT_GE(small_m, 3);
}

TEST(SampleSplit, AQuarterOfConfigsAndShapesAreHeldOutAndACaseFollowsEither) {
  const auto& sample = h200_sample();
  const auto held_configs = std::count_if(sample.begin(), sample.end(), tune::config_held_out);
  EXPECT_GE(held_configs, static_cast<long>(sample.size() / 6));
  EXPECT_LE(held_configs, static_cast<long>(sample.size() / 3));
  const auto shapes = tune::sample_shapes();
  const auto held_shapes = std::count_if(shapes.begin(), shapes.end(), tune::shape_held_out);
  EXPECT_GE(held_shapes, 3);
  EXPECT_LE(held_shapes, static_cast<long>(shapes.size()) / 2);
  for (const gemm::TileConfig& c : sample) {
    for (const gemm::Problem& p : shapes) {
      EXPECT_EQ(tune::case_held_out(c, p), tune::config_held_out(c) || tune::shape_held_out(p));
    }
  }
  EXPECT_EQ(tune::fnv1a(""), 14695981039346656037ULL);
  EXPECT_EQ(tune::fnv1a("a"), 0xAF63DC4C8601EC8CULL);
}

}  // namespace
