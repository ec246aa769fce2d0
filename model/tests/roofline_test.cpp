// Hierarchical roofline: ceilings from the spec (and the measured block when present), ridge
// points, the bound at each level and the binding level.
#include "roofcast/roofline.hpp"

#include <gtest/gtest.h>

namespace roofcast {
namespace {

// The H200 as the datasheet and the card describe it, without its measured block.
GpuSpec h200() {
  GpuSpec gpu = embedded_spec("h200-sxm");
  gpu.measured.reset();
  return gpu;
}

GpuSpec h200_measured() {
  GpuSpec gpu = h200();
  MeasuredCeilings m;
  m.measurement_run = "test";
  m.ffma_TFLOPS = 60.0;
  m.dram_bw_GBps = 4000.0;
  m.l2_bw_GBps = 10000.0;
  m.shared_memory_bw_GBps = 30000.0;
  gpu.measured = m;
  return gpu;
}

TEST(Ceilings, FromTheSpec) {
  const Ceilings c = roofline_ceilings(h200());
  EXPECT_DOUBLE_EQ(c.ffma_TFLOPS.value(), 66.9);
  EXPECT_EQ(c.ffma_TFLOPS.source(), CeilingSource::kSpec);
  // 32 banks * 4 bytes * 132 SMs * 1980 MHz.
  EXPECT_DOUBLE_EQ(c.shared_memory_GBps.value(), 32.0 * 4 * 132 * 1980e6 / 1e9);
  EXPECT_EQ(c.shared_memory_GBps.source(), CeilingSource::kDerivedFromSpec);
  EXPECT_FALSE(c.l2_GBps.known());
  EXPECT_EQ(c.l2_GBps.source(), CeilingSource::kMissing);
  EXPECT_DOUBLE_EQ(c.dram_GBps.value(), 4800);
  EXPECT_EQ(c.dram_GBps.source(), CeilingSource::kSpec);
  EXPECT_EQ(c.sm_count, 132);
  // 66.9e12 / (2 * 128 lanes * 132 SMs) = 1979.76 MHz: the boost clock.
  EXPECT_NEAR(c.issue_clock_MHz, 66.9e6 / (2 * 128 * 132), 1e-9);
}

TEST(Ceilings, MeasuredValuesWinAndSayWhereTheyCameFrom) {
  const Ceilings c = roofline_ceilings(h200_measured());
  EXPECT_DOUBLE_EQ(c.ffma_TFLOPS.value(), 60.0);
  EXPECT_DOUBLE_EQ(c.ffma_TFLOPS.spec, 66.9);
  EXPECT_EQ(c.ffma_TFLOPS.source(), CeilingSource::kMeasured);
  EXPECT_DOUBLE_EQ(c.l2_GBps.value(), 10000);
  EXPECT_EQ(c.l2_GBps.source(), CeilingSource::kMeasured);
  EXPECT_DOUBLE_EQ(c.dram_GBps.value(), 4000);
  EXPECT_DOUBLE_EQ(c.shared_memory_GBps.value(), 30000);
  EXPECT_NEAR(c.issue_clock_MHz, 60e6 / (2 * 128 * 132), 1e-9);
  const Ceilings spec = spec_only(c);
  EXPECT_DOUBLE_EQ(spec.ffma_TFLOPS.value(), 66.9);
  EXPECT_FALSE(spec.l2_GBps.known());
  EXPECT_NEAR(spec.issue_clock_MHz, 66.9e6 / (2 * 128 * 132), 1e-9);
}

TEST(Ceilings, SourceNames) {
  EXPECT_EQ(to_string(CeilingSource::kSpec), "spec");
  EXPECT_EQ(to_string(CeilingSource::kDerivedFromSpec), "derived from spec");
  EXPECT_EQ(to_string(CeilingSource::kMeasured), "measured");
  EXPECT_EQ(to_string(CeilingSource::kMissing), "missing");
  EXPECT_EQ(to_string(RooflineLevel::kDram), "dram");
  EXPECT_EQ(to_string(RooflineLevel::kSharedMemory), "shared_memory");
}

TEST(RidgePoints, ComputeOverBandwidth) {
  const RidgePoints r = ridge_points(roofline_ceilings(h200()));
  EXPECT_DOUBLE_EQ(r.dram, 66.9e12 / 4800e9);  // 13.94 FLOP/byte
  EXPECT_DOUBLE_EQ(r.shared_memory, 66.9e12 / (32.0 * 4 * 132 * 1980e6));
  EXPECT_EQ(r.l2, 0);  // no L2 ceiling
  const RidgePoints m = ridge_points(roofline_ceilings(h200_measured()));
  EXPECT_DOUBLE_EQ(m.l2, 60e12 / 10000e9);
  EXPECT_DOUBLE_EQ(m.dram, 60e12 / 4000e9);
}

TEST(Roofline, DramBoundBelowTheRidge) {
  const Ceilings c = roofline_ceilings(h200());
  // 1e12 FLOPs over 1e11 DRAM bytes: 10 FLOP/byte * 4800 GB/s = 48 TFLOPS < 66.9.
  const Roofline r = evaluate_roofline(c, 1e12, 1e9, 1e11, 1e11);
  EXPECT_DOUBLE_EQ(r.dram.intensity, 10);
  EXPECT_DOUBLE_EQ(r.dram.bound_TFLOPS, 48);
  EXPECT_EQ(r.binding, RooflineLevel::kDram);
  EXPECT_DOUBLE_EQ(r.attainable_TFLOPS, 48);
  EXPECT_FALSE(r.l2.bounds());  // no L2 ceiling: never binds, however many bytes
}

TEST(Roofline, ComputeBoundAboveEveryRidge) {
  const Roofline r = evaluate_roofline(roofline_ceilings(h200()), 1e12, 1e9, 1e10, 1e10);
  EXPECT_EQ(r.binding, RooflineLevel::kCompute);
  EXPECT_DOUBLE_EQ(r.attainable_TFLOPS, 66.9);
  EXPECT_DOUBLE_EQ(r.dram.bound_TFLOPS, 480);
}

TEST(Roofline, SharedMemoryAndL2CanBind) {
  const Ceilings c = roofline_ceilings(h200_measured());
  // 1e12 FLOPs, 1e12 bytes through shared memory: 1 FLOP/byte * 30000 GB/s = 30 TFLOPS.
  Roofline r = evaluate_roofline(c, 1e12, 1e12, 1e9, 1e9);
  EXPECT_EQ(r.binding, RooflineLevel::kSharedMemory);
  EXPECT_DOUBLE_EQ(r.attainable_TFLOPS, 30);
  // 4e11 L2 bytes: 2.5 FLOP/byte * 10000 GB/s = 25 TFLOPS.
  r = evaluate_roofline(c, 1e12, 1e9, 4e11, 1e9);
  EXPECT_EQ(r.binding, RooflineLevel::kL2);
  EXPECT_DOUBLE_EQ(r.attainable_TFLOPS, 25);
}

TEST(Roofline, NoBytesNoBound) {
  const Roofline r = evaluate_roofline(roofline_ceilings(h200()), 2, 0, 0, 0);
  EXPECT_EQ(r.binding, RooflineLevel::kCompute);
  EXPECT_DOUBLE_EQ(r.dram.intensity, 0);
  EXPECT_FALSE(r.dram.bounds());
}

}  // namespace
}  // namespace roofcast
