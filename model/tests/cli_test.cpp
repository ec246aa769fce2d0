// The roofcast CLI: golden text and JSON outputs, and clear errors with non-zero exits.
// Regenerate the golden files after an intended change with ROOFCAST_UPDATE_GOLDEN=1.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "roofcast/spec.hpp"
#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

using roofcast::test::CliRun;
using roofcast::test::expect_error;
using roofcast::test::expect_golden;
using roofcast::test::read_file;
using roofcast::test::run_cli;

TEST(CliGolden, OccupancyText) {
  expect_golden("occupancy --gpu h100-sxm5 --threads 256 --regs 128 --smem 16384",
                "occupancy_h100_256x128.txt");
}

TEST(CliGolden, OccupancyJson) {
  expect_golden("occupancy --gpu h100-sxm5 --threads 256 --regs 128 --smem 16384 --json",
                "occupancy_h100_256x128.json");
}

TEST(CliGolden, OccupancyCarveoutAndSharedMemorySweep) {
  expect_golden(
      "occupancy --gpu h200-sxm --threads 256 --regs 64 --dynamic-smem 49152 --carveout 50 "
      "--sweep smem",
      "occupancy_h200_carveout_sweep_smem.txt");
}

TEST(CliGolden, OccupancyRegisterSweepJson) {
  expect_golden("occupancy --gpu v100-sxm2-32gb --threads 128 --regs 40 --sweep regs --json",
                "occupancy_v100_sweep_regs.json");
}

TEST(CliGolden, OccupancyThreadSweep) {
  expect_golden("occupancy --gpu l40s --threads 256 --regs 48 --smem 8192 --sweep threads",
                "occupancy_l40s_sweep_threads.txt");
}

TEST(CliGolden, CannotLaunchSaysWhy) {
  expect_golden("occupancy --gpu a100-sxm4-40gb --threads 128 --regs 32 --dynamic-smem 200000",
                "occupancy_a100_cannot_launch.txt");
  expect_golden(
      "occupancy --gpu h100-sxm5 --threads 128 --regs 32 --dynamic-smem 65536 "
      "--max-dynamic-smem 49152 --json",
      "occupancy_h100_kernel_max_dynamic.json");
}

TEST(CliGolden, GpusAndTable) {
  expect_golden("gpus", "gpus.txt");
  expect_golden("gpus --json", "gpus.json");
  expect_golden("table", "table.txt");
}

TEST(CliJson, OccupancyJsonIsValidAndCarriesEveryPart) {
  const CliRun run = run_cli("occupancy --gpu h200-sxm --threads 128 --regs 200 --json");
  ASSERT_EQ(run.exit_code, 0);
  const nlohmann::json j = nlohmann::json::parse(run.out);
  for (const char* key :
       {"gpu", "kernel", "blocks_per_sm", "occupancy", "limited_by", "limits_blocks_per_sm",
        "allocation_per_block", "carveout_bytes", "headroom"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["blocks_per_sm"], 2);  // A = 6400: 2 warps per sub-partition, 8 warps, 4 each
  EXPECT_EQ(j["limited_by"], nlohmann::json::array({"registers"}));
}

TEST(CliErrors, UsageAndUnknownCommands) {
  expect_error("", 2, "usage: roofcast");
  expect_error("frobnicate", 2, "unknown command 'frobnicate'");
}

TEST(CliErrors, UnknownGpuListsTheKnownOnes) {
  expect_error("occupancy --gpu h300 --threads 128 --regs 32", 2, "unknown GPU 'h300'");
  expect_error("occupancy --gpu h300 --threads 128 --regs 32", 2,
               "a100-sxm4-40gb, a100-sxm4-80gb, h100-pcie, h100-sxm5, h200-sxm");
}

TEST(CliErrors, MissingOrBadFlags) {
  expect_error("occupancy --gpu h100-sxm5 --regs 32", 2, "missing required flag --threads");
  expect_error("occupancy --threads 128 --regs 32", 2,
               "missing required flag --gpu (or --spec FILE)");
  expect_error("occupancy --gpu h100-sxm5 --threads abc --regs 32", 2, "threads");
  expect_error("occupancy --gpu h100-sxm5 --threads 0 --regs 32", 2,
               "--threads must be within 1..");
  expect_error("occupancy --gpu h100-sxm5 --threads 128 --regs -3", 2, "--regs must be within 0..");
  expect_error("occupancy --gpu h100-sxm5 --threads 128 --regs 32 --carveout 150", 2,
               "--carveout must be within 0..100, got 150");
  expect_error("occupancy --gpu h100-sxm5 --threads 128 --regs 32 --sweep bytes", 2,
               "--sweep must be one of regs, smem, threads; got 'bytes'");
  expect_error("occupancy --gpu h100-sxm5 --threads 128 --regs 32 --bogus 1", 2, "bogus");
  expect_error("occupancy --gpu h100-sxm5 --threads 128 --regs 32 --max-dynamic-smem 300000", 2,
               "--max-dynamic-smem must be within 0..232448");
}

TEST(CliErrors, BadSpecFileNamesFileAndField) {
  const fs::path path = fs::temp_directory_path() / "roofcast_cli_bad_spec.json";
  std::ofstream(path) << R"({"schema_version": 7})";
  expect_error("occupancy --gpu '" + path.string() + "' --threads 128 --regs 32", 1,
               path.string() + ": field 'schema_version': expected schema_version 1");
  expect_error("occupancy --gpu /nonexistent/gpu.json --threads 128 --regs 32", 1,
               "/nonexistent/gpu.json: field '<document>': expected a readable file");
  fs::remove(path);
}

TEST(CliSvg, SweepIsDrawnWithGnuplot) {
  const fs::path svg =
      fs::temp_directory_path() / ("roofcast_cli_" + std::to_string(getpid()) + ".svg");
  const CliRun run = run_cli(
      "occupancy --gpu h200-sxm --threads 256 --regs 128 --smem 16384 --sweep regs --svg '" +
      svg.string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string drawing = read_file(svg);
  EXPECT_NE(drawing.find("<svg"), std::string::npos);
  EXPECT_NE(drawing.find("occupancy staircase over registers per thread"), std::string::npos);
  EXPECT_NE(drawing.find("2/SM, registers"), std::string::npos);  // the 81-128 register step
  EXPECT_NE(drawing.find("this kernel"), std::string::npos);
  fs::remove(svg);
  expect_error("occupancy --gpu h200-sxm --threads 256 --regs 128 --svg x.svg", 2,
               "--svg needs --sweep");
  expect_error(
      "occupancy --gpu h200-sxm --threads 256 --regs 128 --sweep regs --svg "
      "/nonexistent/dir/x.svg",
      1, "cannot write the figure file /nonexistent/dir/x.svg");
}

TEST(CliSpecFile, OccupancyAcceptsAUserSpecFile) {
  const fs::path path = fs::temp_directory_path() / "roofcast_cli_user_spec.json";
  std::ifstream in(std::string(ROOFCAST_DATA_DIR) + "/gpus/h100-sxm5.json");
  nlohmann::json spec = nlohmann::json::parse(in);
  spec["id"] = "my-h100";
  spec["sm"]["max_blocks_per_sm"] = 16;  // a made-up GPU: the answer must follow the file
  std::ofstream(path) << spec.dump(2);
  const CliRun run =
      run_cli("occupancy --spec '" + path.string() + "' --threads 32 --regs 16 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["gpu"]["id"], "my-h100");
  EXPECT_EQ(j["blocks_per_sm"], 16);
  const CliRun listed = run_cli("gpus --json --spec '" + path.string() + "'");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const nlohmann::json gpus = nlohmann::json::parse(listed.out);
  ASSERT_EQ(gpus.size(), roofcast::embedded_specs().size() + 1);  // the database and the file
  EXPECT_EQ(gpus.back()["id"], "my-h100");
  EXPECT_EQ(gpus.back()["origin"], path.string());
  expect_error("occupancy --spec '" + path.string() + "' --gpu h100-sxm5 --threads 32 --regs 16", 2,
               "give --gpu or --spec, not both");
  fs::remove(path);
}

TEST(CliHelp, EachCommandHasHelp) {
  for (const char* command : {"gpus", "occupancy", "table"}) {
    const CliRun run = run_cli(std::string(command) + " --help");
    EXPECT_EQ(run.exit_code, 0) << command;
    EXPECT_NE(run.out.find("roofcast " + std::string(command)), std::string::npos) << run.out;
  }
}

}  // namespace

namespace roofcast {
namespace {

// The main job: every rung's headline config on every GPU of the database.
TEST(CliLadder, EveryGpuEveryHeadlineConfig) {
  const CliRun run = run_cli("ladder --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  ASSERT_EQ(j["gpus"].size(), embedded_specs().size());
  for (const nlohmann::json& gpu : j["gpus"]) {
    const GpuSpec spec = embedded_spec(gpu["id"].get<std::string>());
    const double peak = spec.measured && spec.measured->ffma_TFLOPS ? *spec.measured->ffma_TFLOPS
                                                                    : spec.peak_TFLOPS.fp32;
    std::set<int> rungs;
    for (const nlohmann::json& row : gpu["ladder"]) {
      const int rung = row["rung"].get<int>();
      rungs.insert(rung);
      const int cc = spec.compute_capability.major * 10 + spec.compute_capability.minor;
      EXPECT_EQ(row["supported"].get<bool>(), rung == 10  ? cc >= 90
                                              : rung == 9 ? cc >= 80
                                                          : true)
          << spec.id << " rung " << rung;
      if (!row["supported"].get<bool>() || !row["launchable"].get<bool>()) continue;
      // Never above the FFMA ceiling in effect.
      EXPECT_LE(row["tflops"].get<double>(), peak * 1.0000001) << spec.id << " " << row["kernel"];
      EXPECT_GT(row["tflops"].get<double>(), 0) << spec.id << " " << row["kernel"];
    }
    EXPECT_EQ(rungs.size(), 10U) << spec.id;
  }
}

TEST(CliLadder, OneGpuAndErrors) {
  const CliRun run = run_cli("ladder --gpu h200-sxm --m 300 --n 4096 --k 4096");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("M=300 N=4096 K=4096"), std::string::npos);
  EXPECT_NE(run.out.find("r10-cluster"), std::string::npos);
  EXPECT_EQ(run.out.find("needs a newer GPU"), std::string::npos);
  expect_error("ladder --m 0", 2, "--m must be within 1..");
  expect_error("ladder --gpu no-such-gpu", 2, "no-such-gpu");
}

}  // namespace
}  // namespace roofcast
