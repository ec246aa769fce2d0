// Oracle: roofcast's occupancy against the CUDA toolkit's own calculator, cuda_occupancy.h,
// on large random sweeps for every GPU in the database.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "roofcast/occupancy.hpp"
#include "roofcast/spec.hpp"

#if __has_include(<cuda_occupancy.h>)
#include "support/cuda_occupancy_adapter.hpp"
#define ROOFCAST_HAVE_OCCUPANCY_HEADER 1
#endif

namespace roofcast {
namespace {

#ifdef ROOFCAST_HAVE_OCCUPANCY_HEADER

constexpr int kCasesPerGpu = 250000;

using testing::device_properties;
using testing::device_state;
using testing::function_attributes;

/// Shared-memory sizes drawn near the places where the answer changes: multiples of the
/// granularity, legal carveouts and their fractions, plus uniform values.
class LaunchGenerator {
 public:
  LaunchGenerator(const SmLimits& sm, std::uint64_t seed) : sm_(sm), random_(seed) {}

  KernelLaunch next() {
    KernelLaunch launch;
    launch.threads_per_block = pick(4) == 0 ? uniform(1, sm_.max_threads_per_block + 64)
                                            : uniform(1, 32) * sm_.warp_size - uniform(0, 1);
    launch.threads_per_block = std::max(1, launch.threads_per_block);
    launch.registers_per_thread = uniform(0, sm_.max_registers_per_thread);
    const int optin = sm_.shared_memory_per_block_optin_bytes;
    launch.static_shared_memory_bytes =
        pick(3) == 0 ? 0 : shared_bytes(pick(8) == 0 ? optin + 4096 : 48 * 1024);
    launch.dynamic_shared_memory_bytes = pick(4) == 0 ? 0 : shared_bytes(optin + 2048);
    const int max_dynamic = std::max(0, optin - launch.static_shared_memory_bytes);
    if (pick(3) == 0) launch.max_dynamic_shared_memory_bytes = uniform(0, max_dynamic);
    if (pick(2) == 0) launch.carveout_percent = uniform(0, 100);
    return launch;
  }

 private:
  int uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }
  int pick(int choices) { return uniform(0, choices - 1); }

  int shared_bytes(int high) {
    const int granularity = sm_.shared_memory_allocation_granularity_bytes;
    switch (pick(3)) {
      case 0:
        return uniform(0, high);
      case 1:  // near a granularity boundary, minus the reserved bytes
        return std::max(0, uniform(0, high / granularity) * granularity -
                               sm_.reserved_shared_memory_per_block_bytes + uniform(-2, 2));
      default: {  // near a fraction of a legal carveout
        const auto& carveouts = sm_.shared_memory_carveouts_KiB;
        const int carveout = carveouts[uniform(0, static_cast<int>(carveouts.size()) - 1)] * 1024;
        return std::max(0, carveout / uniform(1, 8) - sm_.reserved_shared_memory_per_block_bytes +
                               uniform(-130, 130));
      }
    }
  }

  const SmLimits& sm_;
  std::mt19937_64 random_;
};

class OracleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleTest, MatchesCudaOccupancyHeaderOnRandomLaunches) {
  const GpuSpec& gpu = embedded_spec(GetParam());
  const cudaOccDeviceProp properties = device_properties(gpu);
  LaunchGenerator generator(gpu.sm, std::hash<std::string>{}(gpu.id));
  int compared = 0;
  int mismatches = 0;
  int launchable = 0;
  for (int i = 0; i < kCasesPerGpu; ++i) {
    const KernelLaunch launch = generator.next();
    const OccupancyResult ours = compute_occupancy_limits(gpu.sm, launch);

    const cudaOccFuncAttributes attributes =
        function_attributes(launch, ours.allocation.max_dynamic_shared_memory_bytes);
    const cudaOccDeviceState state = device_state(launch);
    cudaOccResult theirs;
    const cudaOccError status = cudaOccMaxActiveBlocksPerMultiprocessor(
        &theirs, &properties, &attributes, &state, launch.threads_per_block,
        static_cast<size_t>(launch.dynamic_shared_memory_bytes));
    ASSERT_EQ(status, CUDA_OCC_SUCCESS) << "header refused case " << i;
    ++compared;
    if (ours.blocks_per_sm > 0) ++launchable;

    const bool same = ours.blocks_per_sm == theirs.activeBlocksPerMultiprocessor &&
                      ours.limiters == (theirs.limitingFactors & 0x0f) &&
                      ours.limit.warps == theirs.blockLimitWarps &&
                      ours.limit.registers == theirs.blockLimitRegs &&
                      ours.limit.shared_memory == theirs.blockLimitSharedMem &&
                      ours.limit.blocks == theirs.blockLimitBlocks;
    if (!same && ++mismatches <= 10) {
      ADD_FAILURE() << gpu.id << " case " << i << ": threads " << launch.threads_per_block
                    << " regs " << launch.registers_per_thread << " static "
                    << launch.static_shared_memory_bytes << " dynamic "
                    << launch.dynamic_shared_memory_bytes << " max dynamic "
                    << ours.allocation.max_dynamic_shared_memory_bytes << " carveout "
                    << launch.carveout_percent.value_or(-1) << ": ours " << ours.blocks_per_sm
                    << " blocks (" << limiter_names(ours.limiters) << "; w" << ours.limit.warps
                    << " r" << ours.limit.registers << " s" << ours.limit.shared_memory
                    << "), header " << theirs.activeBlocksPerMultiprocessor << " ("
                    << limiter_names(theirs.limitingFactors & 0x0f) << "; w"
                    << theirs.blockLimitWarps << " r" << theirs.blockLimitRegs << " s"
                    << theirs.blockLimitSharedMem << ")";
    }
  }
  std::printf(
      "[ oracle   ] %s (cc %d.%d): compared %d cases with cuda_occupancy.h "
      "(%d launchable), %d mismatches\n",
      gpu.id.c_str(), gpu.compute_capability.major, gpu.compute_capability.minor, compared,
      launchable, mismatches);
  EXPECT_EQ(mismatches, 0);
  EXPECT_GE(compared, 200000);
  EXPECT_GT(launchable, compared / 4) << "the generator should mostly produce launchable kernels";
}

std::vector<std::string> all_gpu_ids() {
  std::vector<std::string> ids;
  for (const GpuSpec& gpu : embedded_specs()) ids.push_back(gpu.id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(EveryGpu, OracleTest, ::testing::ValuesIn(all_gpu_ids()),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

// The one documented disagreement: the header allows 256 registers per thread for cc >= 7,
// a count ptxas never allocates; roofcast uses the programming guide's 255.
TEST(OracleDecision, RegistersPerThreadLimitIs255NotTheHeaders256) {
  const GpuSpec& gpu = embedded_spec("h100-sxm5");
  KernelLaunch launch;
  launch.threads_per_block = 32;
  launch.registers_per_thread = 256;
  const OccupancyResult ours = compute_occupancy_limits(gpu.sm, launch);
  EXPECT_EQ(ours.failure, LaunchFailure::kRegistersExceedThreadLimit);
  const cudaOccDeviceProp properties = device_properties(gpu);
  const cudaOccFuncAttributes attributes = function_attributes(launch, 0);
  cudaOccDeviceState state;
  cudaOccResult theirs;
  ASSERT_EQ(
      cudaOccMaxActiveBlocksPerMultiprocessor(&theirs, &properties, &attributes, &state, 32, 0),
      CUDA_OCC_SUCCESS);
  EXPECT_GT(theirs.activeBlocksPerMultiprocessor, 0);
  launch.registers_per_thread = 255;
  EXPECT_EQ(compute_occupancy_limits(gpu.sm, launch).blocks_per_sm, 8);
}

#else

// The test's name carries the reason so that ctest's summary shows it too.
TEST(OracleTest, SkippedBecauseCudaOccupancyHeaderIsAbsent) {
  GTEST_SKIP() << "cuda_occupancy.h not found (install the CUDA toolkit at /usr/local/cuda or "
                  "set CUDA_PATH): the oracle comparison did not run";
}

#endif

}  // namespace
}  // namespace roofcast
