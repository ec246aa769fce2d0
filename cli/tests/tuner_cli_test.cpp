// `roofcast rank` (batch ranking for tuners) and `roofcast selection` (the selection
// experiment's report, regenerated from the committed measurement and compared with the
// committed reports/h200-sxm/selection.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using roofcast::test::CliRun;
using roofcast::test::expect_error;
using roofcast::test::read_file;
using roofcast::test::run_cli;

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::ofstream(path) << text;
  return path;
}

const char* const kProblems = R"({"schema_version": 1, "problems": [
  {"name": "square", "m": 4096, "n": 4096, "k": 4096},
  {"name": "skinny", "m": 256, "n": 4096, "k": 4096}]})";

TEST(RankCli, JsonListsTheTopConfigsPerProblemFastestFirst) {
  const fs::path problems = write_temp("problems.json", kProblems);
  const CliRun run = run_cli("rank --gpu h200-sxm --problems '" + problems.string() +
                             "' --top 4 --rungs 8,9 --rasters grouped:8 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_EQ(j.at("kind"), "ranking");
  EXPECT_EQ(j.at("gpu").at("id"), "h200-sxm");
  EXPECT_TRUE(j.at("calibrated").get<bool>());
  ASSERT_EQ(j.at("problems").size(), 2u);
  for (const auto& p : j.at("problems")) {
    const auto& ranked = p.at("ranked");
    ASSERT_EQ(ranked.size(), 4u);
    double previous = 0;
    for (const auto& r : ranked) {
      const int rung = r.at("config").at("rung");
      EXPECT_TRUE(rung == 8 || rung == 9);
      EXPECT_EQ(r.at("raster"), "grouped:8");
      EXPECT_GE(r.at("time_s").get<double>(), previous);
      previous = r.at("time_s");
      EXPECT_GT(r.at("explanation").at("blocks_per_sm").get<int>(), 0);
      EXPECT_FALSE(r.at("explanation").at("binding_term").get<std::string>().empty());
    }
    EXPECT_GT(p.at("candidates").get<int>(), 100);
  }
  EXPECT_EQ(j.at("problems")[1].at("name"), "skinny");
  fs::remove(problems);
}

TEST(RankCli, RegistrySpaceAndPruningFlags) {
  const fs::path problems = write_temp("problems2.json", kProblems);
  const CliRun run = run_cli("rank --gpu h200-sxm --problems '" + problems.string() +
                             "' --space registry --min-blocks 2 --drop-spilling --top 0 --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json j = nlohmann::json::parse(run.out);
  for (const auto& p : j.at("problems")) {
    EXPECT_GT(p.at("pruned_candidates").at("few_blocks").get<int>(), 0);
    EXPECT_EQ(p.at("ranked").size(), p.at("kept").get<std::size_t>());
    for (const auto& r : p.at("ranked")) {
      EXPECT_GE(r.at("explanation").at("blocks_per_sm").get<int>(), 2);
    }
  }
  const CliRun text = run_cli("rank --gpu h200-sxm --problems '" + problems.string() + "' --top 3");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("square (4096x4096x4096)"), std::string::npos) << text.out;
  fs::remove(problems);
}

TEST(RankCli, BadInputNamesTheProblem) {
  const fs::path problems = write_temp("problems3.json", kProblems);
  const std::string p = " --problems '" + problems.string() + "'";
  expect_error("rank --gpu h200-sxm", 2, "--problems");
  expect_error("rank --gpu h200-sxm" + p + " --rungs 4,x", 2, "'x' is not a rung");
  expect_error("rank --gpu h200-sxm" + p + " --rungs 11", 2, "'11' is not a rung");
  expect_error("rank --gpu h200-sxm" + p + " --rasters z_order", 2, "not a launch order");
  expect_error("rank --gpu h200-sxm" + p + " --space all", 2, "--space");
  expect_error("rank --gpu h200-sxm" + p + " --min-occupancy 2", 2, "--min-occupancy");
  expect_error("rank --gpu h200-sxm" + p + " --top -1", 2, "--top");
  const fs::path bad = write_temp(
      "bad_problems.json", R"({"schema_version": 1, "problems": [{"m": 0, "n": 1, "k": 1}]})");
  expect_error("rank --gpu h200-sxm --problems '" + bad.string() + "'", 1, "problems[0].m");
  expect_error("rank --gpu h200-sxm --problems /nonexistent.json", 1, "/nonexistent.json");
  fs::remove(problems);
  fs::remove(bad);
}

TEST(SelectionCli, CommittedReportIsRegeneratedExactly) {
  // Run from the repository root: the report names its inputs by repository path.
  const fs::path root = fs::path(ROOFCAST_DATA_DIR).parent_path();
  const fs::path out =
      fs::temp_directory_path() / ("roofcast_selection_" + std::to_string(::getpid()));
  const fs::path previous = fs::current_path();
  fs::current_path(root);
  const CliRun run = run_cli("selection --gpu h200-sxm --report '" + out.string() + "'");
  fs::current_path(previous);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string regenerated = read_file(out / "selection.md");
  const std::string committed = read_file(root / "reports/h200-sxm/selection.md");
  EXPECT_EQ(regenerated, committed)
      << "reports/h200-sxm/selection.md is stale: run `build/cli/roofcast selection --gpu "
         "h200-sxm --report reports/h200-sxm` from the repository root";
  EXPECT_TRUE(fs::file_size(out / "selection-top1.svg") > 0);
  EXPECT_TRUE(fs::file_size(out / "selection-predicted-vs-measured.svg") > 0);
  fs::remove_all(out);
}

TEST(SelectionCli, RoofcastBeatsEveryBaselineOnTheCommittedRun) {
  // Regression guard on the committed H200 selection run: roofcast's worst and mean top-1 and
  // its mean Spearman stay above each baseline's.
  const fs::path root = fs::path(ROOFCAST_DATA_DIR).parent_path();
  const fs::path previous = fs::current_path();
  fs::current_path(root);
  const CliRun run = run_cli("selection --gpu h200-sxm --json");
  fs::current_path(previous);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json summary =
      nlohmann::json::parse(run.out).at("estimated_registers").at("summary");
  const auto& ours = summary.at("roofcast");
  for (const char* baseline : {"highest_occupancy", "largest_tile", "triton_formula"}) {
    const auto& theirs = summary.at(baseline);
    EXPECT_GT(ours.at("mean_top1_of_best").get<double>(),
              theirs.at("mean_top1_of_best").get<double>())
        << baseline;
    EXPECT_GT(ours.at("mean_spearman").get<double>(), theirs.at("mean_spearman").get<double>())
        << baseline;
  }
  // Level reached: 89.8% (4096x4096x256). It was at least 97% before the instruction-cache fact
  // (docs/model.md#instruction-fetch), chosen on the sample's training cases (training MAPE
  // 17.4% -> 16.5%); this run is not a training set and did not decide it. 87.9% (8192x1024x1024)
  // since the L2 read share of small grids (docs/model.md#convoys), chosen the same way.
  EXPECT_GE(ours.at("min_best_of_top5_of_best").get<double>(), 0.875);
}

TEST(SelectionCli, MissingMeasurementIsAnError) {
  expect_error("selection --gpu h200-sxm --measurements /nonexistent/sel.json", 1,
               "/nonexistent/sel.json");
}

}  // namespace

namespace {

// A degenerate selection run (no shape with a timed registry case) printed inf and -nan tables
// with exit status 0; it is an error now.
TEST(SelectionCli, ADegenerateRunIsAnErrorNotATableOfInfinities) {
  namespace fs = std::filesystem;
  const fs::path data = fs::path(ROOFCAST_DATA_DIR) / "measurements" / "h200-sxm";
  nlohmann::json document = nlohmann::json::parse(read_file(data / "sgemm-selection.json"));
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& c : document["cases"]) {
    if (c["kernel"] == "cublas") kept.push_back(c);
  }
  document["cases"] = kept;
  const fs::path file =
      fs::temp_directory_path() / ("roofcast_degenerate_" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << document.dump();
  const CliRun run = run_cli("selection --gpu h200-sxm --measurements '" + file.string() +
                             "' --training '" + (data / "sgemm-ladder.json").string() + "'");
  fs::remove(file);
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.err.find("no shape with a timed registry case"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("inf"), std::string::npos) << run.out;
}

}  // namespace

namespace {

using roofcast::test::run_cli_args;

// rank --m --n --k: one problem without a file, named as a file names an unnamed problem.
TEST(RankCli, OneProblemFromFlagsIsTheFilesUnnamedProblem) {
  const fs::path file =
      write_temp("one_problem.json",
                 R"({"schema_version": 1, "problems": [{"m": 300, "n": 4096, "k": 1024}]})");
  const std::string common = "rank --gpu h200-sxm --rungs 7,9 --top 5 --json";
  const CliRun from_file = run_cli(common + " --problems '" + file.string() + "'");
  const CliRun from_flags = run_cli(common + " --m 300 --n 4096 --k 1024");
  fs::remove(file);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  ASSERT_EQ(from_flags.exit_code, 0) << from_flags.err;
  EXPECT_EQ(from_flags.out, from_file.out);
  EXPECT_EQ(nlohmann::json::parse(from_flags.out)["problems"][0]["name"], "300x4096x1024");
  const CliRun text = run_cli("rank --gpu h200-sxm --rungs 7 --top 2 --m 300 --n 4096 --k 1024");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("h200-sxm  300x4096x1024: "), std::string::npos) << text.out;
  const fs::path problems = write_temp("problems4.json", kProblems);
  expect_error("rank --gpu h200-sxm --m 1 --n 1 --k 1 --problems '" + problems.string() + "'", 2,
               "give --problems FILE or --m, --n, --k (one problem), not both");
  fs::remove(problems);
  expect_error("rank --gpu h200-sxm --m 64 --n 64", 2, "missing required flag --k");
  expect_error("rank --gpu h200-sxm --m 0 --n 64 --k 64", 2, "--m must be within 1..2147483647");
  expect_error("rank --gpu h200-sxm", 2,
               "missing required flag --problems FILE (or --m M --n N --k K)");
}

// Ties: rung 9's tiles with 2, 3 and 4 stages share one predicted time at 4096^3 where the
// stages change neither occupancy nor the latency chain; the ranking marks the tie and lists the
// fewest resources (2 stages, the least shared memory) first.
TEST(RankCli, TiesAreMarkedAndGoToFewerResources) {
  const std::string rank = "rank --gpu h200-sxm --m 4096 --n 4096 --k 4096 --rungs 9 --top 6";
  const CliRun run = run_cli(rank + " --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json ranked = nlohmann::json::parse(run.out)["problems"][0]["ranked"];
  ASSERT_EQ(ranked.size(), 6u);
  EXPECT_FALSE(ranked[0]["tied_with_previous"].get<bool>());
  int ties = 0;
  for (std::size_t i = 1; i < ranked.size(); ++i) {
    const auto& before = ranked[i - 1];
    const auto& x = ranked[i];
    const bool tied = x["time_s"] == before["time_s"];
    EXPECT_EQ(x["tied_with_previous"].get<bool>(), tied) << x["kernel_id"];
    if (!tied) continue;
    ++ties;
    const auto key = [](const nlohmann::json& r) {
      return std::make_tuple(r["explanation"]["shared_memory_bytes"].get<int>(),
                             r["config"]["threads"].get<int>(), r["config"]["stages"].get<int>(),
                             r["kernel_id"].get<std::string>());
    };
    EXPECT_LT(key(before), key(x)) << before["kernel_id"] << " before " << x["kernel_id"];
  }
  EXPECT_GE(ties, 2);
  EXPECT_EQ(ranked[0]["config"]["stages"], 2);
  EXPECT_EQ(ranked[1]["config"]["stages"], 3);
  EXPECT_TRUE(ranked[1]["tied_with_previous"].get<bool>());
  const CliRun text = run_cli(rank);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\n   1  r09-"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\n   2= r09-"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("= tied with the row above"), std::string::npos) << text.out;
}

// Every id rank prints is taken back by predict --kernel with its raster, and predicts the time
// rank gave it: rank's output round-trips.
TEST(RankCli, RankedIdsRoundTripThroughPredict) {
  for (const char* shape :
       {"--m 4096 --n 4096 --k 4096", "--m 256 --n 4096 --k 4096", "--m 1999 --n 3001 --k 1537"}) {
    const CliRun run = run_cli(std::string("rank --gpu h200-sxm --space enumerated --top 4 ") +
                               "--all-rasters --json " + shape);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const nlohmann::json problem = nlohmann::json::parse(run.out)["problems"][0];
    for (const auto& r : problem["ranked"]) {
      const std::string id = r["kernel_id"];
      const CliRun predicted =
          run_cli_args({"predict", "--gpu", "h200-sxm", "--m",
                        std::to_string(problem["problem"]["m"].get<long long>()), "--n",
                        std::to_string(problem["problem"]["n"].get<long long>()), "--k",
                        std::to_string(problem["problem"]["k"].get<long long>()), "--kernel", id,
                        "--raster", r["raster"].get<std::string>(), "--json"});
      ASSERT_EQ(predicted.exit_code, 0) << id << ": " << predicted.err;
      const nlohmann::json p = nlohmann::json::parse(predicted.out);
      EXPECT_EQ(p["kernel"]["id"], id);
      EXPECT_DOUBLE_EQ(p["time_s"].get<double>(), r["time_s"].get<double>()) << id;
    }
  }
}

// rank --csv: a header, one row per ranked config of every problem, names quoted as RFC 4180.
TEST(RankCli, CsvHasOneRowPerRankedConfig) {
  const fs::path problems = write_temp(
      "csv_problems.json",
      R"({"schema_version": 1, "problems": [{"name": "a, \"quoted\" name", "m": 512, "n": 512,)"
      R"( "k": 512}, {"m": 64, "n": 4096, "k": 4096}]})");
  const CliRun run = run_cli("rank --gpu h200-sxm --top 3 --rungs 8,9 --csv --problems '" +
                             problems.string() + "'");
  fs::remove(problems);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> lines;
  std::istringstream in(run.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u + 2 * 3);
  EXPECT_EQ(
      lines[0].rfind("problem,m,n,k,rank,tied_with_previous,kernel_id,raster,tflops,time_s,", 0),
      0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind("\"a, \"\"quoted\"\" name\",512,512,512,1,false,r0", 0), 0u) << lines[1];
  EXPECT_EQ(lines[4].rfind("64x4096x4096,64,4096,4096,1,false,r0", 0), 0u) << lines[4];
  expect_error("rank --gpu h200-sxm --m 64 --n 64 --k 64 --csv --json", 2,
               "give --json or --csv, not both");
}

}  // namespace

TEST(SampleCli, CommittedIncludeIsTheGeneratorsOutput) {
  const fs::path root = fs::path(ROOFCAST_DATA_DIR).parent_path();
  const fs::path out =
      fs::temp_directory_path() / ("roofcast_sample_" + std::to_string(::getpid()) + ".inc");
  const CliRun run = run_cli("sample --write-include '" + out.string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(read_file(out), read_file(root / "kernels/include/roofcast/kernels/sample_configs.inc"))
      << "kernels/include/roofcast/kernels/sample_configs.inc is stale: run `build/cli/roofcast "
         "sample "
         "--write-include kernels/include/roofcast/kernels/sample_configs.inc --force`";
  fs::remove(out);
}

TEST(SampleCli, JsonListsEveryConfigAndShapeWithTheSplit) {
  const CliRun run = run_cli("sample --json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc.at("kind"), "sample");
  EXPECT_EQ(doc.at("schema_version"), 1);
  EXPECT_GE(doc.at("configs").size(), 400u);
  EXPECT_GE(doc.at("shapes").size(), 16u);
  int held_configs = 0;
  for (const auto& c : doc.at("configs")) {
    held_configs += c.at("held_out").get<bool>();
    EXPECT_EQ(c.at("config").at("rung"),
              std::stoi(c.at("kernel_id").get<std::string>().substr(1, 2)));
  }
  EXPECT_GT(held_configs, 0);
  expect_error("sample --gpu no-such-gpu", 2, "no-such-gpu");
}
