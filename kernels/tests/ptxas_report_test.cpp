// ptxas's build-time resource report: the parser, and the compiled ladder itself (every
// registry entry compiled for each architecture; headline configs never spill).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/ptxas_report.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::kernels {
namespace {

using roofcast::GpuSpec;
using roofcast::PredictInput;
using roofcast::Prediction;

constexpr const char* kSample =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function "
    "'_ZN8roofcast7kernels6ladder11sgemm_naiveILm1ELi8ELi32EEEvNS0_9SgemmArgsE' for 'sm_90'\n"
    "ptxas info    : Function properties for "
    "_ZN8roofcast7kernels6ladder11sgemm_naiveILm1ELi8ELi32EEEvNS0_9SgemmArgsE\n"
    "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 0 barriers\n"
    "ptxas info    : Compiling entry function '_Z11other_kerneli' for 'sm_90'\n"
    "ptxas info    : Used 8 registers, used 0 barriers\n";

TEST(PtxasReport, ParsesLadderKernelsAndSkipsOthers) {
  const std::vector<PtxasKernelUsage> usage = parse_ptxas_report(kSample);
  ASSERT_EQ(usage.size(), 1U);
  EXPECT_EQ(usage[0].registry_index, 1U);
  EXPECT_EQ(usage[0].sm, 90);
  EXPECT_EQ(usage[0].registers, 40);
  EXPECT_EQ(usage[0].stack_frame_bytes, 16);
  EXPECT_EQ(usage[0].spill_store_bytes, 8);
  EXPECT_EQ(usage[0].spill_load_bytes, 4);
}

TEST(PtxasReport, LadderKernelWithoutRegisterLineIsAnError) {
  const std::string truncated =
      "ptxas info    : Compiling entry function "
      "'_ZN8roofcast7kernels6ladder11sgemm_naiveILm3ELi8ELi32EEEvNS0_9SgemmArgsE' for 'sm_80'\n";
  EXPECT_THROW(parse_ptxas_report(truncated), std::runtime_error);
}

// The committed ptxas report of the sample build (data/measurements/h200-sxm/sample/): every
// sample kernel compiled once for sm_90, with its registers, stack and spills.
TEST(SamplePtxasReport, CoversEverySampleKernelOnceForSm90) {
  const std::string path = std::string(ROOFCAST_DATA_DIR) + "/measurements/h200-sxm/sample/" +
                           "ptxas-resource-usage.txt";
  std::ifstream file(path);
  ASSERT_TRUE(file) << "cannot read " << path;
  std::stringstream text;
  text << file.rdbuf();
  std::map<std::size_t, int> seen;
  for (const PtxasKernelUsage& k : parse_ptxas_report(text.str())) {
    ASSERT_LT(k.registry_index, kCompiledSize) << k.mangled_name;
    if (k.registry_index < kRegistrySize || k.sm != 90) continue;
    ++seen[k.registry_index];
    EXPECT_GT(k.registers, 0);
    EXPECT_LE(k.registers, 255);
  }
  EXPECT_EQ(seen.size(), kSampleSize);
  for (const auto& [index, count] : seen) EXPECT_EQ(count, 1) << kernel_id(compiled_config(index));
}

#ifdef ROOFCAST_PTXAS_REPORT
std::vector<PtxasKernelUsage> build_report() {
  std::ifstream file(ROOFCAST_PTXAS_REPORT);
  if (!file) throw std::runtime_error(std::string("cannot read ") + ROOFCAST_PTXAS_REPORT);
  std::stringstream text;
  text << file.rdbuf();
  return parse_ptxas_report(text.str());
}

TEST(CompiledLadder, EveryEntryCompiledForSm90AndSm80) {
  std::map<std::pair<std::size_t, int>, int> seen;
  for (const PtxasKernelUsage& k : build_report()) {
    ASSERT_LT(k.registry_index, kCompiledSize) << k.mangled_name;
    ++seen[{k.registry_index, k.sm}];
  }
  for (std::size_t i = 0; i < kRegistrySize; ++i) {
    EXPECT_EQ((seen[{i, 90}]), 1) << kernel_id(kRegistry[i].config) << " sm_90";
    if (minimum_compute_capability(kRegistry[i].config) <= 80) {
      EXPECT_EQ((seen[{i, 80}]), 1) << kernel_id(kRegistry[i].config) << " sm_80";
    }
  }
}

TEST(CompiledLadder, HeadlineConfigsDoNotSpill) {
  for (const PtxasKernelUsage& k : build_report()) {
    if (k.registry_index >= kRegistrySize) continue;  // a sample kernel (sample build)
    if (kRegistry[k.registry_index].role != Role::kLadder) continue;
    EXPECT_EQ(k.spill_store_bytes + k.spill_load_bytes, 0)
        << kernel_id(kRegistry[k.registry_index].config) << " sm_" << k.sm;
    EXPECT_LE(k.registers, 255);
  }
}
#endif

#ifdef ROOFCAST_PTXAS_REPORT
// Issue 4: the model's register estimate for a config that was never compiled, against ptxas's
// count (sm_90) for every registered config; the printed table shows each, the error is stated
// in README.md. Bounds guard against regression: mean |error| <= 20%, and the resident blocks
// per SM on the H200 computed from the estimate equal those from ptxas's count for >= 80% of the
// configs (the estimate matters through occupancy).
TEST(RegisterEstimate, AgainstPtxasForEveryRegisteredConfig) {
  const GpuSpec h200 = embedded_spec("h200-sxm");
  double sum_abs_percent = 0;
  int configs = 0, same_occupancy = 0;
  for (const PtxasKernelUsage& k : build_report()) {
    if (k.sm != 90 || k.registry_index >= kRegistrySize) continue;
    const TileConfig& c = kRegistry[k.registry_index].config;
    PredictInput in;
    in.problem = {4096, 4096, 4096};
    in.config = c;
    in.shared_memory_bytes = shared_memory_bytes(c);
    in.min_blocks_per_sm = launch_bounds_min_blocks(c);
    const Prediction estimated = kernels::predict(h200, in);
    in.registers_per_thread = k.registers;
    in.spill_bytes_per_thread = k.spill_store_bytes;
    const Prediction compiled = kernels::predict(h200, in);
    const int estimate = estimated.register_estimate.total;
    const double percent = 100.0 * (estimate - k.registers) / k.registers;
    sum_abs_percent += std::fabs(percent);
    ++configs;
    same_occupancy += estimated.occupancy.blocks_per_sm == compiled.occupancy.blocks_per_sm;
    std::printf("  %-62s ptxas %3d  estimate %3d (%+6.1f%%)  blocks/SM %d vs %d\n",
                kernel_id(c).c_str(), k.registers, estimate, percent,
                estimated.occupancy.blocks_per_sm, compiled.occupancy.blocks_per_sm);
  }
  ASSERT_GT(configs, 0);
  const double mean_abs_percent = sum_abs_percent / configs;
  std::printf(
      "register estimate vs ptxas (sm_90): %d configs, mean |error| %.1f%%, same "
      "blocks/SM for %d (%.0f%%)\n",
      configs, mean_abs_percent, same_occupancy, 100.0 * same_occupancy / configs);
  EXPECT_LE(mean_abs_percent, 20.0);
  EXPECT_GE(same_occupancy, 0.8 * configs);
}
#endif

}  // namespace
}  // namespace roofcast::kernels
