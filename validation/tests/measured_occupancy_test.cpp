// The committed runtime-occupancy measurements against the model (CPU, runs in CI): every
// runtime answer and every hardware residency count must equal the model's blocks per SM,
// and the device properties read off the card must equal the spec file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "roofcast/validation/runtime_occupancy.hpp"

namespace roofcast::validation {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<fs::path> measurement_files() {
  std::vector<fs::path> files;
  for (const auto& gpu_dir : fs::directory_iterator(ROOFCAST_MEASUREMENTS_DIR)) {
    const fs::path file = gpu_dir.path() / "occupancy-runtime.json";
    if (fs::exists(file)) files.push_back(file);
  }
  return files;
}

json load(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

TEST(MeasuredOccupancy, EveryCommittedRuntimeAnswerEqualsTheModel) {
  const auto files = measurement_files();
  ASSERT_FALSE(files.empty()) << "no data/measurements/*/occupancy-runtime.json";
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const json measurement = load(file);
    const json& context = measurement.at("context");
    for (const char* key : {"gpu", "git_revision", "date_utc", "cuda_driver_version",
                            "cuda_runtime_version", "sm_clock_max_MHz", "spec_id"}) {
      EXPECT_TRUE(context.contains(key)) << "context lacks " << key;
    }
    const GpuSpec& spec = embedded_spec(context.at("spec_id").get<std::string>());
    EXPECT_EQ(fs::path(file).parent_path().filename().string(), spec.id);
    const RuntimeOccupancyComparison comparison = compare_runtime_occupancy(measurement, spec);
    std::printf("[ measured ] %s: %d runtime answers, %d hardware residency runs compared\n",
                spec.id.c_str(), comparison.queries, comparison.residency_runs);
    EXPECT_GE(comparison.queries, 10000);
    EXPECT_GE(comparison.residency_runs, 50);
    EXPECT_EQ(comparison.query_mismatches, 0);
    EXPECT_EQ(comparison.residency_mismatches, 0);
    for (const std::string& line : comparison.first_mismatches) ADD_FAILURE() << line;
    for (const std::string& line : comparison.spec_disagreements) ADD_FAILURE() << line;
  }
}

json small_measurement() {
  // One 128-thread, 32-register kernel with no static shared memory on the H200.
  return {{"schema_version", 1},
          {"kernels",
           {{{"name", "k"}, {"registers_per_thread", 32}, {"static_shared_memory_bytes", 0}}}},
          {"queries",
           {{"rows", {{0, 128, 0, 232448, -1, 16, ""}, {0, 128, 49152, 232448, 50, 2, ""}}}}},
          {"residency", json::array()},
          {"device_properties",
           {{"sm_count", 132},
            {"max_threads_per_sm", 2048},
            {"max_threads_per_block", 1024},
            {"max_blocks_per_sm", 32},
            {"registers_per_sm", 65536},
            {"registers_per_block", 65536},
            {"warp_size", 32},
            {"shared_memory_per_sm_bytes", 233472},
            {"shared_memory_per_block_bytes", 49152},
            {"shared_memory_per_block_optin_bytes", 232448},
            {"reserved_shared_memory_per_block_bytes", 1024},
            {"l2_bytes", 62914560},
            {"memory_bus_width_bits", 6016},
            {"dram_bytes", 150109880320LL},
            {"sm_clock_max_MHz", 1980.0},
            {"memory_clock_MHz", 3201.0}}}};
}

TEST(MeasuredOccupancy, ComparisonAgreesOnCorrectAnswers) {
  // 50% of 228 KiB = 114 KiB -> 132 KiB carveout; 132 KiB / (48 + 1) KiB = 2 blocks.
  const auto comparison = compare_runtime_occupancy(small_measurement(), embedded_spec("h200-sxm"));
  EXPECT_EQ(comparison.queries, 2);
  EXPECT_EQ(comparison.query_mismatches, 0);
  EXPECT_TRUE(comparison.spec_disagreements.empty());
}

TEST(MeasuredOccupancy, ComparisonCatchesAWrongAnswerAndAWrongSpec) {
  json measurement = small_measurement();
  measurement["queries"]["rows"][1][5] = 3;
  measurement["device_properties"]["l2_bytes"] = 52428800;
  const auto comparison = compare_runtime_occupancy(measurement, embedded_spec("h200-sxm"));
  EXPECT_EQ(comparison.query_mismatches, 1);
  ASSERT_EQ(comparison.first_mismatches.size(), 1u);
  EXPECT_NE(comparison.first_mismatches[0].find("runtime 3"), std::string::npos);
  ASSERT_EQ(comparison.spec_disagreements.size(), 1u);
  EXPECT_NE(comparison.spec_disagreements[0].find("chip.l2_bytes"), std::string::npos);
}

TEST(MeasuredOccupancy, MalformedMeasurementNamesTheField) {
  json measurement = small_measurement();
  measurement.erase("residency");
  try {
    compare_runtime_occupancy(measurement, embedded_spec("h200-sxm"));
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("residency"), std::string::npos) << error.what();
  }
}

TEST(MatchSpec, PicksByComputeCapabilitySmsAndMemory) {
  EXPECT_EQ(match_spec(9, 0, 132, 150109880320LL, "NVIDIA H200").id, "h200-sxm");
  EXPECT_EQ(match_spec(9, 0, 132, 85520809984LL, "NVIDIA H100 80GB HBM3").id, "h100-sxm5");
  EXPECT_EQ(match_spec(8, 0, 108, 42505273344LL, "NVIDIA A100-SXM4-40GB").id, "a100-sxm4-40gb");
  EXPECT_THROW(match_spec(10, 0, 148, 0, "NVIDIA B200"), UnknownGpuError);
}

}  // namespace
}  // namespace roofcast::validation
