// Occupancy model: hand-computed cases at and just past every limit's boundary for each
// architecture, headroom against brute force, sweeps and staircases.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "roofcast/occupancy.hpp"
#include "roofcast/spec.hpp"

namespace roofcast {
namespace {

KernelLaunch launch_of(int threads, int registers, int static_bytes = 0, int dynamic_bytes = 0) {
  KernelLaunch launch;
  launch.threads_per_block = threads;
  launch.registers_per_thread = registers;
  launch.static_shared_memory_bytes = static_bytes;
  launch.dynamic_shared_memory_bytes = dynamic_bytes;
  return launch;
}

OccupancyResult occupancy_on(const std::string& gpu, const KernelLaunch& launch) {
  return compute_occupancy(embedded_spec(gpu).sm, launch);
}

/// One hand-computed case: the expected blocks, limiters and failure.
struct Case {
  std::string gpu;
  std::string what;
  KernelLaunch launch;
  int blocks;
  unsigned limiters;
  LaunchFailure failure = LaunchFailure::kNone;
};

KernelLaunch with_carveout(KernelLaunch launch, int percent) {
  launch.carveout_percent = percent;
  return launch;
}

KernelLaunch with_max_dynamic(KernelLaunch launch, int bytes) {
  launch.max_dynamic_shared_memory_bytes = bytes;
  return launch;
}

// Expected values worked by hand from the formulas in occupancy.hpp; the comment on each
// states the arithmetic. Registers: A = roundup(32 r, 256); 16384 registers per sub-partition.
const std::vector<Case>& hand_cases() {
  static const std::vector<Case> cases = {
      // --- cc 9.0 (H100 SXM5): 64 warps, 32 blocks, 228 KiB, 1 KiB reserved, 128 B granules.
      {"h100-sxm5", "regs 128: A=4096, 4 warps/sub-partition, 16 warps = 2 blocks of 8",
       launch_of(256, 128), 2, kLimitRegisters},
      {"h100-sxm5", "regs 64: A=2048, 8 warps/sub-partition = 4 blocks of 8", launch_of(256, 64), 4,
       kLimitRegisters},
      {"h100-sxm5", "regs 65: A=2304, floor(16384/2304)=7, 28 warps = 3 blocks", launch_of(256, 65),
       3, kLimitRegisters},
      {"h100-sxm5", "regs 32 with 1024 threads: warps and registers both allow 2",
       launch_of(1024, 32), 2, kLimitWarps | kLimitRegisters},
      {"h100-sxm5", "1024 threads is the per-block maximum", launch_of(1024, 16), 2, kLimitWarps},
      {"h100-sxm5", "1025 threads cannot launch", launch_of(1025, 16), 0, kLimitWarps,
       LaunchFailure::kThreadsExceedBlockLimit},
      {"h100-sxm5", "one-warp blocks hit the 32-block limit", launch_of(32, 16), 32, kLimitBlocks},
      {"h100-sxm5", "255 registers is the per-thread maximum: A=8192, 2 warps/sub-partition",
       launch_of(32, 255), 8, kLimitRegisters},
      {"h100-sxm5", "256 registers per thread cannot launch", launch_of(32, 256), 0,
       kLimitRegisters, LaunchFailure::kRegistersExceedThreadLimit},
      {"h100-sxm5", "1024 threads x 64 regs = 65536, exactly the per-block register file",
       launch_of(1024, 64), 1, kLimitRegisters},
      {"h100-sxm5", "1024 threads x 65 regs: 32 warps x 2304 > 65536", launch_of(1024, 65), 0,
       kLimitRegisters, LaunchFailure::kRegistersExceedBlockLimit},
      {"h100-sxm5",
       "800 threads x 80 regs: 25 warps x 2560 = 64000 fits, but the hardware check rounds to "
       "28 warps: 71680 > 65536",
       launch_of(800, 80), 0, kLimitRegisters, LaunchFailure::kRegistersExceedBlockLimit},
      {"h100-sxm5", "48 KiB dynamic: (49152+1024)=50176 B, floor(233472/50176)=4",
       launch_of(256, 32, 0, 49152), 4, kLimitSharedMemory},
      {"h100-sxm5", "opt-in maximum 232448 B + 1024 reserved = 233472: one block",
       launch_of(256, 32, 0, 232448), 1, kLimitSharedMemory},
      {"h100-sxm5", "one byte past the opt-in maximum cannot launch", launch_of(256, 32, 0, 232449),
       0, kLimitSharedMemory, LaunchFailure::kSharedMemoryExceedsBlockLimit},
      {"h100-sxm5", "static + dynamic count together: 116736 B allocated, 2 blocks",
       launch_of(128, 32, 100000, 15712), 2, kLimitSharedMemory},
      {"h100-sxm5", "one byte more rounds up to 116864 B: 1 block",
       launch_of(128, 32, 100000, 15713), 1, kLimitSharedMemory},
      {"h100-sxm5", "carveout 25%: 58368 B rounds up to 64 KiB; 65536/17408 = 3",
       with_carveout(launch_of(256, 32, 0, 16384), 25), 3, kLimitSharedMemory},
      {"h100-sxm5", "carveout 0% is raised to 32 KiB to fit one 17408 B block",
       with_carveout(launch_of(256, 32, 0, 16384), 0), 1, kLimitSharedMemory},
      {"h100-sxm5", "carveout 100% is the maximum: 13 blocks of 17408 B, 8 by warps and regs",
       with_carveout(launch_of(256, 32, 0, 16384), 100), 8, kLimitWarps | kLimitRegisters},
      {"h100-sxm5", "dynamic above the kernel's maximum dynamic size cannot launch",
       with_max_dynamic(launch_of(256, 32, 0, 16384), 8192), 0, kLimitSharedMemory,
       LaunchFailure::kDynamicSharedMemoryExceedsKernelMax},
      {"h100-sxm5", "dynamic exactly at the kernel's maximum launches",
       with_max_dynamic(launch_of(256, 32, 0, 8192), 8192), 8, kLimitWarps | kLimitRegisters},
      {"h100-sxm5",
       "48 KiB static, max dynamic 0: static + reserved exceed the default 48 KiB, so the opt-in "
       "per-block limit applies (as in cuda_occupancy.h); 233472 / 50176 = 4",
       with_max_dynamic(launch_of(256, 32, 49152, 0), 0), 4, kLimitSharedMemory},
      // --- cc 9.0 (H200): same SM as H100.
      {"h200-sxm", "regs 96: A=3072, 5 warps/sub-partition = 20 warps = 2 blocks of 8",
       launch_of(256, 96), 2, kLimitRegisters},
      // --- cc 8.0 (A100): 164 KiB, 163 KiB opt-in.
      {"a100-sxm4-40gb", "opt-in maximum 166912 B + 1024 = 167936 B: one block",
       launch_of(128, 32, 0, 166912), 1, kLimitSharedMemory},
      {"a100-sxm4-40gb", "one byte past the A100 opt-in maximum cannot launch",
       launch_of(128, 32, 0, 166913), 0, kLimitSharedMemory,
       LaunchFailure::kSharedMemoryExceedsBlockLimit},
      {"a100-sxm4-80gb", "80 KiB + 1 KiB reserved: floor(167936 / 82944) = 2",
       launch_of(128, 32, 0, 81920), 2, kLimitSharedMemory},
      {"a100-sxm4-80gb", "81 KiB + 1 KiB reserved = 82 KiB: 2 blocks exactly",
       launch_of(128, 32, 0, 82944), 2, kLimitSharedMemory},
      {"a100-sxm4-80gb", "one byte more: 1 block", launch_of(128, 32, 0, 82945), 1,
       kLimitSharedMemory},
      // --- cc 8.9 (L40S, L4): 48 warps, 24 blocks, 100 KiB.
      {"l40s", "1024 threads use 32 of 48 warps: 1 block", launch_of(1024, 16), 1, kLimitWarps},
      {"l40s", "512 threads: 3 blocks by warps", launch_of(512, 16), 3, kLimitWarps},
      {"l40s", "one-warp blocks hit the 24-block limit", launch_of(32, 16), 24, kLimitBlocks},
      {"l4", "opt-in maximum 101376 B + 1024 = 100 KiB: one block", launch_of(64, 32, 0, 101376), 1,
       kLimitSharedMemory},
      {"l4", "one byte past the L4 opt-in maximum cannot launch", launch_of(64, 32, 0, 101377), 0,
       kLimitSharedMemory, LaunchFailure::kSharedMemoryExceedsBlockLimit},
      // --- cc 7.0 (V100): no reserved bytes, 256 B granules, 96 KiB.
      {"v100-sxm2-32gb", "no shared memory: the shared-memory limit does not apply",
       launch_of(256, 32), 8, kLimitWarps | kLimitRegisters},
      {"v100-sxm2-32gb", "one byte allocates 256 B; 8 warps bind", launch_of(256, 32, 0, 1), 8,
       kLimitWarps | kLimitRegisters},
      {"v100-sxm2-32gb", "48 KiB: 98304/49152 = 2 blocks", launch_of(256, 32, 0, 49152), 2,
       kLimitSharedMemory},
      {"v100-sxm2-32gb", "96 KiB is the V100 opt-in maximum", launch_of(256, 32, 0, 98304), 1,
       kLimitSharedMemory},
      {"v100-sxm2-32gb", "one byte past 96 KiB cannot launch", launch_of(256, 32, 0, 98305), 0,
       kLimitSharedMemory, LaunchFailure::kSharedMemoryExceedsBlockLimit},
      {"v100-sxm2-32gb", "carveout 50%: 48 KiB rounds up to 64 KiB: 2 blocks of 24 KiB + 1 B",
       with_carveout(launch_of(64, 32, 0, 24577), 50), 2, kLimitSharedMemory},
  };
  return cases;
}

TEST(Occupancy, HandComputedBoundaryCases) {
  for (const Case& c : hand_cases()) {
    SCOPED_TRACE(c.gpu + ": " + c.what);
    const OccupancyResult result = occupancy_on(c.gpu, c.launch);
    EXPECT_EQ(result.blocks_per_sm, c.blocks);
    EXPECT_EQ(limiter_names(result.limiters), limiter_names(c.limiters));
    EXPECT_EQ(to_string(result.failure), to_string(c.failure));
    EXPECT_EQ(result.active_warps, c.blocks * ((c.launch.threads_per_block + 31) / 32));
  }
}

TEST(Occupancy, ResultCarriesEachLimitAndTheAllocation) {
  const OccupancyResult r = occupancy_on("h100-sxm5", launch_of(256, 128, 16384));
  EXPECT_EQ(r.limit.warps, 8);
  EXPECT_EQ(r.limit.registers, 2);
  EXPECT_EQ(r.limit.shared_memory, 13);  // 233472 / (16384 + 1024)
  EXPECT_EQ(r.limit.blocks, 32);
  EXPECT_EQ(r.allocation.warps, 8);
  EXPECT_EQ(r.allocation.registers_per_warp, 4096);
  EXPECT_EQ(r.allocation.registers_per_block, 32768);
  EXPECT_EQ(r.allocation.shared_memory_bytes, 17408);
  EXPECT_EQ(r.max_warps, 64);
  EXPECT_DOUBLE_EQ(r.occupancy, 0.25);
  EXPECT_EQ(r.carveout_bytes, 228 * 1024);
}

TEST(Occupancy, UnusedResourcesAreUnlimited) {
  const OccupancyResult r = occupancy_on("v100-sxm2-32gb", launch_of(64, 0));
  EXPECT_EQ(r.limit.registers, LimitBlocks::kUnlimited);
  EXPECT_EQ(r.limit.shared_memory, LimitBlocks::kUnlimited);
  EXPECT_EQ(r.blocks_per_sm, 32);
}

TEST(Occupancy, CarveoutRaisedToTheSmallestThatHoldsOneBlock) {
  // 40 KiB + 1 KiB reserved does not fit the 32 KiB asked for (10% of 228 KiB = 22.8 KiB,
  // rounded up to 32 KiB); the next legal carveout is 64 KiB.
  const OccupancyResult r =
      occupancy_on("h100-sxm5", with_carveout(launch_of(128, 32, 0, 40960), 10));
  EXPECT_EQ(r.carveout_requested_bytes, 32 * 1024);
  EXPECT_EQ(r.carveout_bytes, 64 * 1024);
  EXPECT_EQ(r.blocks_per_sm, 1);
}

TEST(Occupancy, InvalidArgumentsThrowWithTheirName) {
  const SmLimits& sm = embedded_spec("h100-sxm5").sm;
  auto expect_throw = [&](const KernelLaunch& launch, const std::string& name) {
    try {
      compute_occupancy(sm, launch);
      ADD_FAILURE() << "expected std::invalid_argument naming " << name;
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
    }
  };
  expect_throw(launch_of(0, 32), "threads_per_block");
  expect_throw(launch_of(-5, 32), "threads_per_block");
  expect_throw(launch_of(32, -1), "registers_per_thread");
  expect_throw(launch_of(32, 8, -1), "static_shared_memory_bytes");
  expect_throw(launch_of(32, 8, 0, -1), "dynamic_shared_memory_bytes");
  expect_throw(with_carveout(launch_of(32, 8), 101), "carveout_percent");
  expect_throw(with_carveout(launch_of(32, 8), -1), "carveout_percent");
  expect_throw(with_max_dynamic(launch_of(32, 8, 1024), 232448), "max_dynamic_shared_memory_bytes");
  // Values past any GPU's limits are refused before int arithmetic could overflow.
  expect_throw(launch_of(1 << 30, 32), "threads_per_block must be within 1..16777216");
  expect_throw(launch_of(32, 1 << 20), "registers_per_thread must be within 0..65536");
  expect_throw(launch_of(32, 8, 0, 2000000000), "dynamic_shared_memory_bytes must be within");
  expect_throw(launch_of(32, 8, 2000000000, 0), "static_shared_memory_bytes must be within");
}

// --- Headroom against brute force -------------------------------------------------------

int blocks_at(const SmLimits& sm, KernelLaunch launch) {
  return compute_occupancy_limits(sm, launch).blocks_per_sm;
}

/// Registers that can be added keeping the blocks: scan upwards one register at a time.
int brute_registers_addable(const SmLimits& sm, const KernelLaunch& launch, int blocks) {
  KernelLaunch probe = launch;
  int added = 0;
  while (probe.registers_per_thread < sm.max_registers_per_thread) {
    ++probe.registers_per_thread;
    if (blocks_at(sm, probe) < blocks) break;
    ++added;
  }
  return added;
}

std::optional<int> brute_registers_to_gain(const SmLimits& sm, const KernelLaunch& launch,
                                           int blocks) {
  KernelLaunch probe = launch;
  for (int registers = launch.registers_per_thread - 1; registers >= 1; --registers) {
    probe.registers_per_thread = registers;
    if (blocks_at(sm, probe) > blocks) return launch.registers_per_thread - registers;
  }
  return std::nullopt;
}

/// Dynamic bytes that can be added keeping the blocks: the answer is constant between
/// allocation-granularity steps, so test the last byte count of each step.
int brute_shared_memory_addable(const SmLimits& sm, const KernelLaunch& launch, int blocks,
                                int max_dynamic) {
  const int granularity = sm.shared_memory_allocation_granularity_bytes;
  const int reserved = sm.reserved_shared_memory_per_block_bytes;
  KernelLaunch probe = launch;
  int best = launch.dynamic_shared_memory_bytes;
  for (int bytes = launch.dynamic_shared_memory_bytes + 1; bytes <= max_dynamic;) {
    probe.dynamic_shared_memory_bytes = bytes;
    if (blocks_at(sm, probe) < blocks) break;
    best = bytes;
    const int total = launch.static_shared_memory_bytes + bytes;
    const int step_end = (total + reserved + granularity - 1) / granularity * granularity;
    const int last_in_step =
        std::min(max_dynamic, step_end - reserved - launch.static_shared_memory_bytes);
    probe.dynamic_shared_memory_bytes = last_in_step;
    if (blocks_at(sm, probe) < blocks) break;
    best = last_in_step;
    bytes = last_in_step + 1;
  }
  return best - launch.dynamic_shared_memory_bytes;
}

std::optional<int> brute_shared_memory_to_gain(const SmLimits& sm, const KernelLaunch& launch,
                                               int blocks) {
  KernelLaunch probe = launch;
  const int granularity = sm.shared_memory_allocation_granularity_bytes;
  // Largest totals first: the last byte count of each lower allocation step, then zero.
  const int reserved = sm.reserved_shared_memory_per_block_bytes;
  const int current_step =
      (launch.dynamic_shared_memory_bytes + reserved + granularity - 1) / granularity * granularity;
  for (int step = current_step - granularity; step >= 0; step -= granularity) {
    const int bytes = std::max(0, step - reserved);
    probe.dynamic_shared_memory_bytes = bytes;
    if (blocks_at(sm, probe) > blocks) return launch.dynamic_shared_memory_bytes - bytes;
    if (step - reserved <= 0) break;
  }
  return std::nullopt;
}

TEST(Headroom, MatchesBruteForceOnRandomLaunchesForEveryGpu) {
  for (const GpuSpec& gpu : embedded_specs()) {
    const SmLimits& sm = gpu.sm;
    std::mt19937 random(1234);
    auto uniform = [&](int low, int high) {
      return std::uniform_int_distribution<int>(low, high)(random);
    };
    int checked = 0;
    for (int i = 0; i < 200; ++i) {
      KernelLaunch launch = launch_of(uniform(1, 32) * 32, uniform(1, 255), 0,
                                      uniform(0, 2) == 0 ? 0 : uniform(0, 100000));
      if (uniform(0, 2) == 0) launch.carveout_percent = uniform(0, 100);
      const OccupancyResult r = compute_occupancy(sm, launch);
      if (!r.launchable()) continue;
      ++checked;
      SCOPED_TRACE(gpu.id + " threads " + std::to_string(launch.threads_per_block) + " regs " +
                   std::to_string(launch.registers_per_thread) + " dynamic " +
                   std::to_string(launch.dynamic_shared_memory_bytes) + " carveout " +
                   std::to_string(launch.carveout_percent.value_or(-1)));
      EXPECT_EQ(r.headroom.registers_addable, brute_registers_addable(sm, launch, r.blocks_per_sm));
      EXPECT_EQ(r.headroom.registers_to_gain_block,
                brute_registers_to_gain(sm, launch, r.blocks_per_sm));
      EXPECT_EQ(r.headroom.shared_memory_addable_bytes,
                brute_shared_memory_addable(sm, launch, r.blocks_per_sm,
                                            r.allocation.max_dynamic_shared_memory_bytes));
      EXPECT_EQ(r.headroom.shared_memory_to_gain_block_bytes,
                brute_shared_memory_to_gain(sm, launch, r.blocks_per_sm));
    }
    EXPECT_GT(checked, 60) << gpu.id;
  }
}

TEST(Headroom, HandComputedH100) {
  // 256 threads, 128 regs, 16 KiB static: 2 blocks by registers. 80 registers give 3 blocks
  // (A=2560: 6 warps per sub-partition, 24 warps), so 48 must go; no register can be added.
  // Two blocks of shared memory fit up to 233472 / 2 = 116736 B allocated: 116736 - 1024 -
  // 16384 = 99328 B more.
  const OccupancyResult r = occupancy_on("h100-sxm5", launch_of(256, 128, 16384));
  EXPECT_EQ(r.headroom.registers_addable, 0);
  EXPECT_EQ(r.headroom.registers_to_gain_block, 48);
  EXPECT_EQ(r.headroom.shared_memory_addable_bytes, 99328);
  EXPECT_EQ(r.headroom.shared_memory_to_gain_block_bytes, std::nullopt);
}

TEST(Headroom, EmptyWhenTheKernelCannotLaunch) {
  const OccupancyResult r = occupancy_on("h100-sxm5", launch_of(2048, 32));
  EXPECT_FALSE(r.launchable());
  EXPECT_EQ(r.headroom.registers_addable, 0);
  EXPECT_EQ(r.headroom.registers_to_gain_block, std::nullopt);
  EXPECT_EQ(r.headroom.shared_memory_to_gain_block_bytes, std::nullopt);
}

// --- Sweeps and staircases ---------------------------------------------------------------

TEST(Sweep, RegistersCoverOneTo255AndNeverGainBlocks) {
  const SmLimits& sm = embedded_spec("h100-sxm5").sm;
  const auto points = sweep_occupancy(sm, launch_of(256, 1), SweepAxis::kRegisters);
  ASSERT_EQ(points.size(), 255u);
  EXPECT_EQ(points.front().value, 1);
  EXPECT_EQ(points.back().value, 255);
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_LE(points[i].blocks_per_sm, points[i - 1].blocks_per_sm) << points[i].value;
  }
  // The staircase of 256-thread blocks on cc 9.0: 8 blocks up to 32 regs, then 6, 5, 4, 3, 2,
  // 1 (A = 2048 * 8 / blocks rounded down to the allocation unit).
  const auto steps = staircase(points);
  std::vector<int> blocks;
  for (const SweepStep& step : steps) blocks.push_back(step.point.blocks_per_sm);
  EXPECT_EQ(blocks, (std::vector<int>{8, 8, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(steps[1].first_value, 25);  // from 25 regs registers bind together with warps
  EXPECT_EQ(steps[1].last_value, 32);
  EXPECT_EQ(steps.back().first_value, 129);
  EXPECT_EQ(steps.back().last_value, 255);
}

TEST(Sweep, SharedMemoryRunsFromZeroToTheOptInMaximum) {
  const SmLimits& sm = embedded_spec("a100-sxm4-40gb").sm;
  const auto points = sweep_occupancy(sm, launch_of(128, 32, 1024), SweepAxis::kSharedMemory);
  EXPECT_EQ(points.front().value, 0);
  EXPECT_EQ(points.back().value, (166912 - 1024) / 128 * 128);
  EXPECT_EQ(points.back().blocks_per_sm, 1);
  EXPECT_TRUE(points.back().failure == LaunchFailure::kNone);
  for (std::size_t i = 1; i < points.size(); ++i) {
    EXPECT_EQ(points[i].value - points[i - 1].value, 128);
  }
}

TEST(Sweep, ThreadsRunInWarpSteps) {
  const SmLimits& sm = embedded_spec("l40s").sm;
  const auto points = sweep_occupancy(sm, launch_of(32, 32), SweepAxis::kThreads);
  ASSERT_EQ(points.size(), 32u);
  EXPECT_EQ(points.front().value, 32);
  EXPECT_EQ(points.front().blocks_per_sm, 24);  // block limit of cc 8.9
  EXPECT_EQ(points.back().value, 1024);
  EXPECT_EQ(points.back().blocks_per_sm, 1);  // 32 of 48 warps
}

TEST(Staircase, MergesEqualNeighboursOnly) {
  std::vector<SweepPoint> points = {{1, 4, 0.5, kLimitWarps, LaunchFailure::kNone},
                                    {2, 4, 0.5, kLimitWarps, LaunchFailure::kNone},
                                    {3, 4, 0.5, kLimitRegisters, LaunchFailure::kNone},
                                    {4, 2, 0.25, kLimitRegisters, LaunchFailure::kNone},
                                    {5, 4, 0.5, kLimitWarps, LaunchFailure::kNone}};
  const auto steps = staircase(points);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].first_value, 1);
  EXPECT_EQ(steps[0].last_value, 2);
  EXPECT_EQ(steps[1].first_value, 3);
  EXPECT_EQ(steps[3].first_value, 5);
  EXPECT_TRUE(staircase({}).empty());
}

TEST(Staircase, ThreadStepsKeepEachBlockSizesOccupancy) {
  // 64 registers on the H200: 1 block of 1024 threads holds 32 warps of 64 (50%); 544..640
  // threads also give 1 block per SM but 17..20 warps. The staircase merged them all into one
  // step and reported the first one's 26.6% at 1024 threads.
  const SmLimits& sm = embedded_spec("h200-sxm").sm;
  const auto steps = staircase(sweep_occupancy(sm, launch_of(256, 64), SweepAxis::kThreads));
  for (const SweepStep& step : steps) {
    for (int threads = step.first_value; threads <= step.last_value; threads += 32) {
      KernelLaunch launch = launch_of(threads, 64);
      EXPECT_DOUBLE_EQ(step.point.occupancy, compute_occupancy(sm, launch).occupancy)
          << threads << " threads in the step " << step.first_value << ".." << step.last_value;
    }
  }
  const SweepStep& last = steps.back();
  EXPECT_EQ(last.last_value, 1024);
  EXPECT_DOUBLE_EQ(last.point.occupancy, 0.5);
}

TEST(Limiters, NamesJoinInAFixedOrder) {
  EXPECT_EQ(limiter_names(0), "none");
  EXPECT_EQ(limiter_names(kLimitSharedMemory | kLimitWarps), "warps+shared_memory");
  EXPECT_EQ(limiter_names(kLimitWarps | kLimitRegisters | kLimitSharedMemory | kLimitBlocks),
            "warps+registers+shared_memory+blocks");
}

// --- Every limit at and just past its boundary, for every GPU in the database ------------
// The boundaries come from the spec's limits; the expectations are structural (launches at the
// limit succeed, one past fails with the named reason, the named limiter binds).

class EveryGpuBoundaries : public ::testing::TestWithParam<std::string> {
 protected:
  const GpuSpec& gpu() const { return embedded_spec(GetParam()); }
  const SmLimits& sm() const { return gpu().sm; }
};

TEST_P(EveryGpuBoundaries, ThreadsPerBlock) {
  const OccupancyResult at = compute_occupancy(sm(), launch_of(sm().max_threads_per_block, 16));
  EXPECT_TRUE(at.launchable());
  EXPECT_EQ(at.limit.warps, sm().max_warps_per_sm() / (sm().max_threads_per_block / 32));
  const OccupancyResult past =
      compute_occupancy(sm(), launch_of(sm().max_threads_per_block + 1, 16));
  EXPECT_EQ(past.failure, LaunchFailure::kThreadsExceedBlockLimit);
  EXPECT_EQ(past.blocks_per_sm, 0);
  EXPECT_EQ(past.limiters, unsigned{kLimitWarps});
}

TEST_P(EveryGpuBoundaries, WarpsBindForFullSizedBlocks) {
  // One more thread than a whole number of warps costs a whole warp slot.
  const int warps = sm().max_warps_per_sm() / 2;  // two blocks fill the SM's warp slots
  const int threads = std::min(warps * 32, sm().max_threads_per_block);
  const OccupancyResult exact = compute_occupancy(sm(), launch_of(threads, 16));
  EXPECT_EQ(exact.limit.warps, sm().max_warps_per_sm() / (threads / 32));
  const OccupancyResult one_more = compute_occupancy(sm(), launch_of(threads - 31, 16));
  EXPECT_EQ(one_more.allocation.warps, threads / 32) << "a partial warp takes a whole slot";
}

TEST_P(EveryGpuBoundaries, BlocksPerSm) {
  const OccupancyResult tiny = compute_occupancy(sm(), launch_of(32, 16));
  EXPECT_EQ(tiny.blocks_per_sm, sm().max_blocks_per_sm);
  EXPECT_TRUE(tiny.limiters & kLimitBlocks);
}

TEST_P(EveryGpuBoundaries, RegistersPerThread) {
  const OccupancyResult at = compute_occupancy(sm(), launch_of(32, sm().max_registers_per_thread));
  EXPECT_TRUE(at.launchable());
  const OccupancyResult past =
      compute_occupancy(sm(), launch_of(32, sm().max_registers_per_thread + 1));
  EXPECT_EQ(past.failure, LaunchFailure::kRegistersExceedThreadLimit);
  EXPECT_EQ(past.limiters, unsigned{kLimitRegisters});
}

TEST_P(EveryGpuBoundaries, RegistersPerBlock) {
  // The largest block at 64 registers fills the per-block register file exactly.
  const int threads = sm().max_registers_per_block / 64;
  ASSERT_LE(threads, sm().max_threads_per_block);
  const OccupancyResult at = compute_occupancy(sm(), launch_of(threads, 64));
  EXPECT_TRUE(at.launchable());
  EXPECT_EQ(at.allocation.registers_per_block, sm().max_registers_per_block);
  const OccupancyResult past = compute_occupancy(sm(), launch_of(threads, 65));
  EXPECT_EQ(past.failure, LaunchFailure::kRegistersExceedBlockLimit);
}

TEST_P(EveryGpuBoundaries, RegistersHalveBlocksWhenTheyDouble) {
  // 128 threads: 32 registers give 16 warps per sub-partition (4 blocks each of 4 warps per
  // sub-partition), 64 give half of that, 128 half again; warps cap the first.
  const int at32 = compute_occupancy(sm(), launch_of(128, 32)).limit.registers;
  const int at64 = compute_occupancy(sm(), launch_of(128, 64)).limit.registers;
  const int at128 = compute_occupancy(sm(), launch_of(128, 128)).limit.registers;
  EXPECT_EQ(at32, 2 * at64);
  EXPECT_EQ(at64, 2 * at128);
}

TEST_P(EveryGpuBoundaries, SharedMemoryPerBlock) {
  const int optin = sm().shared_memory_per_block_optin_bytes;
  const OccupancyResult at = compute_occupancy(sm(), launch_of(128, 32, 0, optin));
  EXPECT_TRUE(at.launchable());
  EXPECT_EQ(at.blocks_per_sm, 1);
  EXPECT_EQ(at.allocation.shared_memory_bytes, optin + sm().reserved_shared_memory_per_block_bytes);
  const OccupancyResult past = compute_occupancy(sm(), launch_of(128, 32, 0, optin + 1));
  EXPECT_EQ(past.failure, LaunchFailure::kSharedMemoryExceedsBlockLimit);
  EXPECT_EQ(past.limiters, unsigned{kLimitSharedMemory});
}

TEST_P(EveryGpuBoundaries, SharedMemoryGranularity) {
  // Bytes are allocated in granules: the last byte of a granule costs nothing more, the next
  // byte costs a whole granule.
  const int granule = sm().shared_memory_allocation_granularity_bytes;
  const int reserved = sm().reserved_shared_memory_per_block_bytes;
  const int bytes = 10 * granule - reserved;
  EXPECT_EQ(compute_occupancy(sm(), launch_of(64, 32, 0, bytes)).allocation.shared_memory_bytes,
            10 * granule);
  EXPECT_EQ(compute_occupancy(sm(), launch_of(64, 32, 0, bytes + 1)).allocation.shared_memory_bytes,
            11 * granule);
}

TEST_P(EveryGpuBoundaries, SharedMemoryFillsTheSmExactly) {
  // k blocks of exactly capacity/k bytes fit; one granule more drops to k - 1.
  const int capacity = sm().shared_memory_per_sm_bytes;
  const int granule = sm().shared_memory_allocation_granularity_bytes;
  const int reserved = sm().reserved_shared_memory_per_block_bytes;
  for (int k : {2, 3, 4}) {
    const int allocation = capacity / k / granule * granule;
    const OccupancyResult fits =
        compute_occupancy(sm(), launch_of(32, 16, 0, allocation - reserved));
    EXPECT_EQ(fits.limit.shared_memory, capacity / allocation) << k;
    const OccupancyResult over =
        compute_occupancy(sm(), launch_of(32, 16, 0, allocation - reserved + 1));
    EXPECT_LT(over.limit.shared_memory, fits.limit.shared_memory) << k;
  }
}

TEST_P(EveryGpuBoundaries, CarveoutsAreLegalAndRaisedWhenTooSmall) {
  for (int percent = 0; percent <= 100; ++percent) {
    KernelLaunch launch = launch_of(64, 32, 0, 8192);
    launch.carveout_percent = percent;
    const OccupancyResult r = compute_occupancy(sm(), launch);
    const auto& legal = sm().shared_memory_carveouts_KiB;
    EXPECT_NE(std::find(legal.begin(), legal.end(), r.carveout_bytes / 1024), legal.end());
    EXPECT_EQ(r.carveout_bytes % 1024, 0);
    EXPECT_GE(r.carveout_requested_bytes,
              static_cast<long long>(percent) * sm().shared_memory_per_sm_bytes / 100);
    EXPECT_GE(r.carveout_bytes, r.allocation.shared_memory_bytes) << "holds one block";
  }
}

INSTANTIATE_TEST_SUITE_P(EveryGpu, EveryGpuBoundaries, ::testing::ValuesIn([] {
                           std::vector<std::string> ids;
                           for (const GpuSpec& gpu : embedded_specs()) ids.push_back(gpu.id);
                           return ids;
                         }()),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace roofcast
