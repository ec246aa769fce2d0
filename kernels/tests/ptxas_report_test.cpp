// ptxas's build-time resource report: the parser, and the compiled ladder itself (every
// registry entry compiled for each architecture; headline configs never spill).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "roofcast/kernels/ptxas_report.hpp"
#include "roofcast/kernels/registry.hpp"

namespace roofcast::kernels {
namespace {

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
    ASSERT_LT(k.registry_index, kRegistrySize) << k.mangled_name;
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
    if (kRegistry[k.registry_index].role != Role::kLadder) continue;
    EXPECT_EQ(k.spill_store_bytes + k.spill_load_bytes, 0)
        << kernel_id(kRegistry[k.registry_index].config) << " sm_" << k.sm;
    EXPECT_LE(k.registers, 255);
  }
}
#endif

}  // namespace
}  // namespace roofcast::kernels
