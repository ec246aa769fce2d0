// The roofcast CLI: golden text and JSON outputs, and clear errors with non-zero exits.
// Regenerate the golden files after an intended change with ROOFCAST_UPDATE_GOLDEN=1.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
       {"schema_version", "kind", "gpu", "kernel", "blocks_per_sm", "occupancy", "limiters",
        "limits_blocks_per_sm", "allocation_per_block", "carveout_bytes", "headroom"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["blocks_per_sm"], 2);  // A = 6400: 2 warps per sub-partition, 8 warps, 4 each
  EXPECT_EQ(j["limiters"], nlohmann::json::array({"registers"}));
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
  EXPECT_NE(drawing.find("2/SM"), std::string::npos);  // the 81-128 register step's label
  EXPECT_NE(drawing.find("limited by registers"), std::string::npos);  // its colour in the key
  EXPECT_NE(drawing.find("<title>NVIDIA H200 SXM 141GB: occupancy staircase over registers per "
                         "thread</title>"),
            std::string::npos);
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
  const nlohmann::json gpus = nlohmann::json::parse(listed.out)["gpus"];
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
      const int cc = spec.compute_capability.number();
      EXPECT_EQ(row["supported"].get<bool>(), rung == 10  ? cc >= 90
                                              : rung == 9 ? cc >= 80
                                                          : true)
          << spec.id << " rung " << rung;
      if (!row["supported"].get<bool>() || !row["launchable"].get<bool>()) continue;
      // Never above the FFMA ceiling in effect.
      EXPECT_LE(row["tflops"].get<double>(), peak * 1.0000001)
          << spec.id << " " << row["kernel_id"];
      EXPECT_GT(row["tflops"].get<double>(), 0) << spec.id << " " << row["kernel_id"];
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

namespace roofcast {
namespace {

/// The rows of a CSV text (no field of these outputs spans lines), each split into its fields
/// as RFC 4180 reads them.
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char ch = line[i];
      if (quoted && ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = !quoted;
      } else if (ch == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += ch;
      }
    }
    rows.push_back(fields);
  }
  return rows;
}

/// Every row has the header's number of fields; returns the rows after the header.
std::vector<std::vector<std::string>> csv_body(const std::string& text,
                                               const std::vector<std::string>& header_starts) {
  const auto rows = csv_rows(text);
  EXPECT_FALSE(rows.empty());
  if (rows.empty()) return {};
  for (std::size_t i = 0; i < header_starts.size(); ++i) {
    EXPECT_EQ(rows[0].at(i), header_starts[i]) << text;
  }
  for (const auto& row : rows) EXPECT_EQ(row.size(), rows[0].size()) << text;
  return {rows.begin() + 1, rows.end()};
}

// occupancy --kernel ID: the ladder kernel's threads, shared memory and estimated registers,
// the same as the ladder's for every headline id the ladder prints.
TEST(CliKernel, OccupancyOfEveryLadderIdIsTheLaddersOwn) {
  const CliRun ladder = run_cli("ladder --gpu h200-sxm --json");
  ASSERT_EQ(ladder.exit_code, 0) << ladder.err;
  const nlohmann::json rows = nlohmann::json::parse(ladder.out)["gpus"][0]["ladder"];
  ASSERT_EQ(rows.size(), 11u);
  for (const nlohmann::json& row : rows) {
    const std::string id = row["kernel_id"];
    const CliRun run = run_cli("occupancy --gpu h200-sxm --kernel " + id + " --json");
    ASSERT_EQ(run.exit_code, 0) << id << ": " << run.err;
    const nlohmann::json j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["kernel"]["id"], id);
    EXPECT_EQ(j["kernel"]["registers_estimated"], true);
    EXPECT_EQ(j["kernel"]["registers_per_thread"], row["registers_per_thread"]) << id;
    EXPECT_EQ(j["blocks_per_sm"], row["blocks_per_sm"]) << id;
    EXPECT_EQ(j["kernel"]["static_shared_memory_bytes"], 0);
  }
}

TEST(CliGolden, OccupancyOfAKernelById) {
  expect_golden(
      "occupancy --gpu h200-sxm --kernel r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded",
      "occupancy_h200_kernel_rung9.txt");
  expect_golden("occupancy --gpu l40s --threads 256 --regs 48 --smem 8192 --sweep threads --csv",
                "occupancy_l40s_sweep_threads.csv");
}

TEST(CliKernel, RegistersGivenAndMistakes) {
  const std::string id = "r08-dbuf-256x128x8-w64x64-t16x8-256t-s2-v4-padded";
  const CliRun run = run_cli("occupancy --gpu h200-sxm --kernel " + id + " --regs 128 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["kernel"]["registers_per_thread"], 128);
  EXPECT_EQ(j["kernel"]["registers_estimated"], false);
  EXPECT_EQ(j["kernel"]["threads_per_block"], 256);
  EXPECT_EQ(j["blocks_per_sm"], 2);
  for (const char* flag : {"--threads 256", "--smem 0", "--dynamic-smem 1024"}) {
    expect_error(
        "occupancy --gpu h200-sxm --kernel " + id + " " + flag, 2,
        "give --kernel ID or --" + std::string(flag + 2, std::strchr(flag, ' ')) + ", not both");
  }
  expect_error("occupancy --gpu h200-sxm --kernel r08-dbuf-256x128x8", 2,
               "--kernel \"r08-dbuf-256x128x8\": missing the thread tile");
  expect_error(
      "occupancy --gpu h200-sxm --kernel r08-dbuf-256x128x8-w64x64-t16x8-128t-s2-v4-padded", 2,
      "breaks a tile rule of rung 8");
  expect_error("occupancy --gpu h200-sxm --regs 32", 2,
               "missing required flag --threads (or --kernel ID)");
  // A kernel the GPU cannot run says so.
  const CliRun cluster = run_cli(
      "occupancy --gpu a100-sxm4-80gb --kernel r10-cluster-128x256x16-w64x64-t8x16-256t-"
      "s4-v4-padded-c2");
  ASSERT_EQ(cluster.exit_code, 0) << cluster.err;
  EXPECT_NE(cluster.out.find("does not run on a100-sxm4-80gb"), std::string::npos) << cluster.out;
}

// --calibration-of: the H100's committed run predicted with the H200's calibration, nothing
// fitted on the H100; the mistakes are named.
TEST(CliAccuracy, CalibrationOfAnotherGpu) {
  const std::string root =
      " --root '" + std::filesystem::path(ROOFCAST_DATA_DIR).parent_path().string() + "'";
  const CliRun run = run_cli("accuracy --gpu h100-sxm5 --calibration-of h200-sxm --json" + root);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["calibration_from"], "h200-sxm");
  EXPECT_EQ(j["calibration"]["issue_scale"]["fitted"], false);
  const CliRun h200 = run_cli("accuracy --gpu h200-sxm --json" + root);
  ASSERT_EQ(h200.exit_code, 0) << h200.err;
  const nlohmann::json own = nlohmann::json::parse(h200.out);
  EXPECT_TRUE(own["calibration_from"].is_null());
  // The transferred parameters are the H200's own fit.
  EXPECT_EQ(j["calibration"]["issue_scale"]["value"], own["calibration"]["issue_scale"]["value"]);
  EXPECT_GT(j["all"]["cases"].get<int>(), 600);
  expect_error("accuracy --gpu h100-sxm5 --calibration-of v100-sxm2-32gb" + root, 2,
               "--calibration-of 'v100-sxm2-32gb': no committed calibration");
  expect_error("accuracy --gpu h200-sxm --calibration-of h200-sxm" + root, 2,
               "is the GPU measured");
  expect_error(
      "accuracy --gpu h100-sxm5 --calibration-of h200-sxm --write-calibration /tmp/x.json" + root,
      2, "nothing is fitted to write");
  // The selection experiment the same way: without the option the H100 has no calibration.
  const CliRun selection =
      run_cli("selection --gpu h100-sxm5 --calibration-of h200-sxm --json" + root);
  ASSERT_EQ(selection.exit_code, 0) << selection.err;
  EXPECT_EQ(nlohmann::json::parse(selection.out)["estimated_registers"]["shapes"].size(), 11U);
  expect_error("selection --gpu h100-sxm5" + root, 1, "no committed calibration for h100-sxm5");
  expect_error("selection --gpu h100-sxm5 --calibration-of l4" + root, 2,
               "--calibration-of 'l4': no committed calibration");
}

// --csv: a header row, one row per item, the fields quoted only when they must be.
TEST(CliCsv, GpusTableSweepAndLadder) {
  const CliRun gpus = run_cli("gpus --csv");
  ASSERT_EQ(gpus.exit_code, 0) << gpus.err;
  const auto gpu_rows = csv_body(gpus.out, {"id", "name", "compute_capability"});
  ASSERT_EQ(gpu_rows.size(), embedded_specs().size());
  EXPECT_EQ(gpu_rows[0][0], embedded_specs()[0].id);

  const CliRun table = run_cli("table --csv");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto table_rows = csv_body(table.out, {"gpu_id", "kernel", "threads_per_block"});
  EXPECT_EQ(table_rows.size(), embedded_specs().size() * 5);
  EXPECT_NE(table.out.find("\"naive, 32x32 threads\""), std::string::npos)
      << "a name with a comma is quoted";
  EXPECT_EQ(table_rows[0][1], "naive, 32x32 threads");

  const std::string sweep = "occupancy --gpu v100-sxm2-32gb --threads 128 --regs 40 --sweep regs";
  const CliRun csv = run_cli(sweep + " --csv");
  const CliRun json = run_cli(sweep + " --json");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto steps = nlohmann::json::parse(json.out)["sweep"]["steps"];
  const auto step_rows =
      csv_body(csv.out, {"first_registers_per_thread", "last_registers_per_thread", "blocks_per_sm",
                         "occupancy_percent", "limiters"});
  ASSERT_EQ(step_rows.size(), steps.size());
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(step_rows[i][0], std::to_string(steps[i]["first"].get<int>()));
    EXPECT_EQ(step_rows[i][2], std::to_string(steps[i]["blocks_per_sm"].get<int>()));
    EXPECT_DOUBLE_EQ(std::stod(step_rows[i][3]), 100 * steps[i]["occupancy"].get<double>());
  }

  const CliRun ladder = run_cli("ladder --csv");
  ASSERT_EQ(ladder.exit_code, 0) << ladder.err;
  const auto ladder_rows = csv_body(ladder.out, {"gpu_id", "calibrated", "rung", "kernel_id"});
  EXPECT_EQ(ladder_rows.size(), embedded_specs().size() * 11);
  const CliRun ladder_json = run_cli("ladder --json");
  const nlohmann::json first = nlohmann::json::parse(ladder_json.out)["gpus"][0]["ladder"][0];
  EXPECT_EQ(ladder_rows[0][3], first["kernel_id"]);
  EXPECT_EQ(std::stod(ladder_rows[0][14]), first["time_s"].get<double>())
      << "time_s is written exactly";

  expect_error("gpus --csv --json", 2, "give --json or --csv, not both");
  expect_error("occupancy --gpu h200-sxm --threads 128 --regs 32 --csv", 2,
               "--csv prints the staircase: it needs --sweep");
}

}  // namespace
}  // namespace roofcast

namespace {

/// Every key of a document and its sub-objects, as "parent.key" paths.
void collect_keys(const nlohmann::json& j, const std::string& path, std::vector<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      out.push_back(path + key);
      collect_keys(value, path + key + ".", out);
    }
  } else if (j.is_array()) {
    for (const auto& value : j) collect_keys(value, path, out);
  }
}

}  // namespace

// docs/schema.md: every top-level document carries schema_version and its kind, and a quantity
// has one name: limiters is always a list, no key spells a unit in capitals or names an L2 hit
// rate without saying which one.
TEST(CliJson, EveryDocumentCarriesSchemaVersionAndKind) {
  const std::vector<std::pair<std::string, std::string>> commands = {
      {"gpus --json", "gpus"},
      {"table --json", "occupancy_table"},
      {"occupancy --gpu h200-sxm --threads 256 --regs 64 --sweep threads --json", "occupancy"},
      {"roofline --gpu h200-sxm --json", "roofline"},
      {"predict --gpu h200-sxm --m 4096 --n 4096 --k 4096 --kernel "
       "r09-async-256x128x16-w64x64-t16x8-256t-s3-v4-padded --json",
       "prediction"},
      {"rank --gpu h200-sxm --m 1024 --n 1024 --k 1024 --top 3 --json", "ranking"},
      {"ladder --gpu a100-sxm4-80gb --json", "ladder_table"},
      {"accuracy --gpu h200-sxm --root '" +
           std::filesystem::path(ROOFCAST_DATA_DIR).parent_path().string() + "' --json",
       "accuracy"},
      {"report --gpu v100-sxm2-32gb --root '" +
           std::filesystem::path(ROOFCAST_DATA_DIR).parent_path().string() + "' --json",
       "report"}};
  for (const auto& [command, kind] : commands) {
    const CliRun run = run_cli(command);
    ASSERT_EQ(run.exit_code, 0) << command << ": " << run.err;
    const nlohmann::json j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j.at("schema_version"), 1) << command;
    EXPECT_EQ(j.at("kind"), kind) << command;
    std::vector<std::string> keys;
    collect_keys(j, "", keys);
    for (const std::string& path : keys) {
      const std::string key = path.substr(path.rfind('.') + 1);
      for (const char* old : {"TFLOPS", "GBps", "MHz", "limited_by", "predicted_TFLOPS"}) {
        EXPECT_EQ(key.find(old), std::string::npos) << command << ": " << path;
      }
      EXPECT_NE(key, "l2_hit_rate") << command << ": " << path;
      EXPECT_NE(key, "limiter") << command << ": " << path;
    }
  }
}
