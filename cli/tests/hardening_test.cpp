// Bad input of every kind (issue 13): each test here failed before its fix. Injection into
// gnuplot scripts and file paths, crashes and hangs, integer overflow, unclear errors, silent
// defaults, and writers that overwrote files they did not write.
#include <gtest/gtest.h>

#include <unistd.h>

#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofcast/json_input.hpp"
#include "roofcast/kernels/anatomy.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/predict.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/views/views.hpp"
#include "support/cli_runner.hpp"

namespace roofcast {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::read_file;
using test::run_cli_args;

const fs::path kData = fs::path(ROOFCAST_DATA_DIR);
const fs::path kRoot = kData.parent_path();

json h200_document() { return json::parse(read_file(kData / "gpus" / "h200-sxm.json")); }

/// A scratch folder, removed at the end of the test.
struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string& name)
      : path(fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return path / name;
  }
};

/// A user's spec file: the H200's with `id` and `name` replaced.
fs::path user_spec(const ScratchDir& dir, const std::string& id, const std::string& name) {
  json document = h200_document();
  document["id"] = id;
  document["name"] = name;
  return dir.write("user-spec.json", document.dump(1));
}

std::string expect_spec_error(const std::string& text, const std::string& field,
                              const std::string& phrase) {
  try {
    parse_spec(text, "bad.json");
    ADD_FAILURE() << "accepted";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.field(), field) << error.what();
    EXPECT_NE(std::string(error.what()).find(phrase), std::string::npos) << error.what();
    EXPECT_LT(std::string(error.what()).size(), 600u) << "an error message stays bounded";
    return error.what();
  }
  return "";
}

// ---- the one strict JSON reader ---------------------------------------------------------------

TEST(StrictJson, RejectsDuplicateKeysWithTheirPath) {
  try {
    json_input::parse_strict(R"({"sm": {"warp_size": 32, "warp_size": 64}})");
    FAIL() << "accepted a duplicate key";
  } catch (const json_input::StrictJsonError& error) {
    EXPECT_EQ(error.field(), "sm.warp_size");
    EXPECT_NE(error.expectation().find("once"), std::string::npos);
  }
  EXPECT_THROW(json_input::parse_strict(R"([{"a": 1}, {"b": 1, "b": 2}])"),
               json_input::StrictJsonError);
  EXPECT_NO_THROW(json_input::parse_strict(R"([{"a": 1}, {"a": 2}])"));
}

TEST(StrictJson, DeepNestingIsAnErrorNotAStackOverflow) {
  const std::string deep = std::string(60000, '[') + std::string(60000, ']');
  try {
    json_input::parse_strict(deep);
    FAIL() << "accepted 60000 levels";
  } catch (const json_input::StrictJsonError& error) {
    EXPECT_NE(error.expectation().find("64 levels"), std::string::npos);
  }
  // The loaders that dumped the value into their message (recursively) now say the same.
  try {
    parse_spec("{\"id\": " + deep + "}", "deep.json");
    FAIL() << "the spec loader accepted 60000 levels";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.field().rfind("id[0][0]", 0), 0u) << error.field();
    EXPECT_NE(error.expectation().find("64 levels"), std::string::npos);
  }
  EXPECT_NO_THROW(json_input::parse_strict(std::string(63, '[') + std::string(63, ']')));
}

TEST(StrictJson, NumberOverflowNamesTheField) {
  try {
    json_input::parse_strict(R"({"chip": {"sm_count": 132, "boost_clock_MHz": 1e400}})");
    FAIL() << "accepted 1e400";
  } catch (const json_input::StrictJsonError& error) {
    EXPECT_EQ(error.field(), "chip.boost_clock_MHz");
    EXPECT_NE(error.expectation().find("finite"), std::string::npos);
  }
  json document = h200_document();
  std::string text = document.dump(1);
  text.replace(text.find("\"boost_clock_MHz\": 1980"), 23, "\"boost_clock_MHz\": 1e400");
  expect_spec_error(text, "chip.boost_clock_MHz", "finite");
}

TEST(StrictJson, DescriptionsAreBoundedAndPrintable) {
  const std::string long_text(100000, 'x');
  EXPECT_LE(json_input::describe(json(long_text)).size(), json_input::kMaxQuotedChars + 8);
  EXPECT_EQ(json_input::describe(json("a\nb\x1b")), "\"a\\x0Ab\\x1B\"");
  EXPECT_EQ(json_input::describe(json::array({1, 2, 3})), "an array of 3 values");
  EXPECT_EQ(json_input::describe(json{{"a", 1}}), "an object of 1 fields");
  EXPECT_EQ(json_input::describe(json(1.5)), "1.5");
}

TEST(StrictJson, ControlCharactersAreFound) {
  EXPECT_FALSE(json_input::text_problem("NVIDIA H200 141GB (×)").has_value());
  for (const std::string& bad :
       {std::string("a\nb"), std::string("a\0b", 3), std::string("\x1b[31m"),
        std::string("\xc2\x9b"
                    "31m"),
        std::string("tab\t")}) {
    EXPECT_TRUE(json_input::text_problem(bad).has_value()) << json_input::quote_for_message(bad);
  }
}

// ---- the spec loader --------------------------------------------------------------------------

TEST(SpecBounds, IdIsAFileNameComponent) {
  for (const std::string bad : {"../../x", "/etc", "a/b", "A100", ".hidden", "x y", "x\"y"}) {
    json document = h200_document();
    document["id"] = bad;
    expect_spec_error(document.dump(), "id", "an id");
  }
  json document = h200_document();
  document["id"] = std::string(65, 'a');
  expect_spec_error(document.dump(), "id", "1..64 characters");
  for (const std::string good : {"h200-sxm", "rtx-4090", "my_gpu.v2"}) {
    EXPECT_FALSE(gpu_id_problem(good).has_value()) << good;
  }
}

TEST(SpecBounds, NamesWithControlCharactersAreRefused) {
  for (const std::string& bad : {std::string("x\"\nsystem \"touch F\"\n#"),
                                 std::string("nul\0name", 8), std::string("\x1b[31mred")}) {
    json document = h200_document();
    document["name"] = bad;
    expect_spec_error(document.dump(), "name", "control character");
  }
}

TEST(SpecBounds, EveryFieldIsBoundedByWhatHardwareCanMean) {
  struct Case {
    const char* section;
    const char* field;
    json value;
    const char* phrase;
  };
  const Case cases[] = {
      {"sm", "shared_memory_banks", 2147483647, "an integer in 1..64"},
      {"sm", "register_allocation_unit", 2147483647, "an integer in 1..65536"},
      {"sm", "warp_allocation_granularity", 2147483647, "an integer in 1..64"},
      {"sm", "reserved_shared_memory_per_block_bytes", 2147483647, "an integer in 0..1048576"},
      {"sm", "register_file_subpartitions", 1 << 20, "an integer in 1..64"},
      {"chip", "boost_clock_MHz", 1e308, "a number in 1..100000"},
      {"chip", "dram_bw_GBps", 1e-300, "a number in 0.001..1e+07"},
      {"chip", "l2_bytes", std::int64_t{1} << 62, "an integer in 1..1099511627776"},
      {"compute_capability", "major", 2147483647, "an integer in 1..99"},
      {"peak_TFLOPS", "fp32", 1e300, "a number in 0.001..1e+06"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.section) + "." + c.field);
    json document = h200_document();
    document[c.section][c.field] = c.value;
    expect_spec_error(document.dump(), std::string(c.section) + "." + c.field, c.phrase);
  }
}

TEST(SpecBounds, DuplicateKeysAreRefused) {
  std::string text = h200_document().dump(1);
  text.replace(text.find("\"sm_count\": 132"), 15, "\"sm_count\": 132, \"sm_count\": 1");
  expect_spec_error(text, "chip.sm_count", "once");
}

TEST(SpecBounds, AUserFileMayNotTakeAnEmbeddedId) {
  ScratchDir dir("roofcast_embedded_id");
  json document = h200_document();
  document["chip"]["sm_count"] = 114;  // a different GPU under the H200's id
  // Its cluster residency table counts 132 SMs' clusters: it goes with the H200.
  document["measured"].erase("max_active_clusters");
  document["sources"].erase("measured.max_active_clusters");
  const fs::path changed = dir.write("h200-sxm.json", document.dump(2));
  try {
    load_spec_file(changed);
    FAIL() << "a changed file took the embedded id h200-sxm";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.field(), "id");
    EXPECT_NE(std::string(error.what()).find("an id of its own"), std::string::npos);
  }
  // The committed file itself loads (it is the embedded one), and so does a renamed copy.
  EXPECT_NO_THROW(load_spec_file(kData / "gpus" / "h200-sxm.json"));
  document["id"] = "my-h200";
  EXPECT_EQ(load_spec_file(dir.write("mine.json", document.dump(2))).id, "my-h200");
}

// ---- the model: no division by zero, no int overflow, finite or an error ---------------------

TEST(ModelHardening, NoBlockFitsIsAFailureWithoutHeadroomNotADivisionByZero) {
  SmLimits sm = embedded_spec("h200-sxm").sm;
  sm.register_file_subpartitions = 16;  // 4096 registers each: one 255-register warp needs 8192
  KernelLaunch launch;
  launch.threads_per_block = 32;
  launch.registers_per_thread = 255;
  OccupancyResult result = compute_occupancy(sm, launch);
  EXPECT_EQ(result.blocks_per_sm, 0);
  EXPECT_EQ(result.failure, LaunchFailure::kNoBlockFitsOnSm);
  EXPECT_FALSE(result.launchable());
  EXPECT_EQ(result.headroom.registers_addable, 0);

  sm = embedded_spec("h200-sxm").sm;
  sm.shared_memory_per_block_optin_bytes = sm.shared_memory_per_sm_bytes;  // + 1 KiB reserved
  launch = KernelLaunch{};
  launch.threads_per_block = 128;
  launch.registers_per_thread = 32;
  launch.dynamic_shared_memory_bytes = 233000;
  result = compute_occupancy(sm, launch);
  EXPECT_EQ(result.blocks_per_sm, 0);
  EXPECT_EQ(result.failure, LaunchFailure::kNoBlockFitsOnSm);
}

TEST(ModelHardening, SumsAndProductsOfLargeInputsDoNotWrap) {
  const SmLimits& sm = embedded_spec("h200-sxm").sm;
  KernelLaunch launch;
  launch.threads_per_block = 256;
  launch.registers_per_thread = 32;
  launch.static_shared_memory_bytes = 1 << 30;
  launch.dynamic_shared_memory_bytes = 1 << 30;
  launch.max_dynamic_shared_memory_bytes = 0;
  OccupancyResult result = compute_occupancy_limits(sm, launch);
  EXPECT_GT(result.allocation.shared_memory_bytes, 0) << "2^30 + 2^30 wrapped";
  EXPECT_FALSE(result.launchable());

  launch = KernelLaunch{};
  launch.threads_per_block = 1 << 20;
  launch.registers_per_thread = 1 << 16;
  result = compute_occupancy_limits(sm, launch);
  EXPECT_GT(result.allocation.registers_per_block, 0) << "2^20 threads x 2^16 registers wrapped";
  EXPECT_FALSE(result.launchable());
}

/// Rung 9's headline config (the registry's first rung-9 ladder entry).
gemm::TileConfig rung9_headline() {
  for (const kernels::RegistryEntry& entry : kernels::kRegistry) {
    if (entry.config.rung == 9 && entry.role == kernels::Role::kLadder) return entry.config;
  }
  ADD_FAILURE() << "no rung-9 headline";
  return {};
}

PredictInput registry_input(const gemm::Problem& problem) {
  PredictInput in;
  in.problem = problem;
  in.config = rung9_headline();
  in.shared_memory_bytes = kernels::shared_memory_bytes(in.config);
  return in;
}

TEST(ModelHardening, APredictionIsFiniteOrAnError) {
  GpuSpec gpu = embedded_spec("h200-sxm");
  gpu.chip.boost_clock_MHz = 1e308;  // past the loader's bound: only code can build this
  gpu.measured.reset();
  EXPECT_THROW(kernels::predict(gpu, registry_input({4096, 4096, 4096}), Calibration{}),
               std::domain_error);
  const Prediction fine = kernels::predict(embedded_spec("h200-sxm"),
                                           registry_input({4096, 4096, 4096}), Calibration{});
  EXPECT_TRUE(std::isfinite(fine.time_s) && fine.time_s > 0);
}

TEST(ModelHardening, PredictRefusesWhatNoKernelCanBe) {
  const GpuSpec& gpu = embedded_spec("h200-sxm");
  PredictInput in = registry_input({gemm::kMaxExtent + 1, 64, 64});
  EXPECT_THROW(kernels::predict(gpu, in, Calibration{}), std::invalid_argument);
  in = registry_input({4096, 4096, 4096});
  in.registers_per_thread = 128;
  in.spill_bytes_per_thread = -64;  // would make the prediction faster
  EXPECT_THROW(kernels::predict(gpu, in, Calibration{}), std::invalid_argument);
  in.registers_per_thread.reset();
  in.spill_bytes_per_thread = 64;  // spills without the registers they came with
  EXPECT_THROW(kernels::predict(gpu, in, Calibration{}), std::invalid_argument);
  in = registry_input({4096, 4096, 4096});
  in.config.bm = 1 << 30;
  EXPECT_THROW(kernels::predict(gpu, in, Calibration{}), std::invalid_argument);
  EXPECT_NE(kernels::violated_rule(in.config), nullptr);
}

// ---- gnuplot scripts and output paths ---------------------------------------------------------

TEST(GnuplotQuoting, NothingInsideCanEndTheString) {
  EXPECT_EQ(views::gnuplot_string("it's"), "'it''s'");
  EXPECT_EQ(views::gnuplot_string("a`b`\nc\"d"), "'a`b`?c\"d'");
  EXPECT_EQ(views::gnuplot_datum("x\"\nEOD"), "\"x'?EOD\"");
}

/// The names and paths of the issue, which ran `touch` through gnuplot before.
const std::string kBackquoteName = "x` touch ";
const std::string kQuoteName = "x\" . system(\"touch ";

TEST(GnuplotInjection, ASpecNameRunsNothingInTheStaircase) {
  ScratchDir dir("roofcast_inject_name");
  const fs::path marker = dir.path / "PWNED";
  for (const std::string& prefix : {kBackquoteName, kQuoteName}) {
    const std::string name = prefix + marker.string() + (prefix == kQuoteName ? "\") . \"" : "`");
    const fs::path spec = user_spec(dir, "user-gpu", name);
    const fs::path svg = dir.path / "staircase.svg";
    fs::remove(svg);
    const auto run = run_cli_args({"occupancy", "--spec", spec.string(), "--threads", "256",
                                   "--regs", "64", "--sweep", "regs", "--svg", svg.string()});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_TRUE(fs::exists(svg));
    EXPECT_FALSE(fs::exists(marker)) << "gnuplot ran a command from the spec's name";
  }
  // A name with a newline is refused by the loader before any script is written.
  const fs::path spec =
      user_spec(dir, "user-gpu", "x\"\nsystem \"touch " + marker.string() + "\"\n#");
  const auto run = run_cli_args({"occupancy", "--spec", spec.string(), "--threads", "256", "--regs",
                                 "64", "--sweep", "regs", "--svg", (dir.path / "n.svg").string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("field 'name'"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(marker));
}

TEST(GnuplotInjection, AQuoteInTheOutputPathIsJustACharacter) {
  ScratchDir dir("roofcast_inject_path");
  // A file name holds no '/': the command would create the marker in the working directory.
  const std::string marker_name = "PWNED_" + std::to_string(::getpid());
  const fs::path marker = fs::current_path() / marker_name;
  const fs::path svg = dir.path / ("a'; system 'touch " + marker_name + "'; '.svg");
  const auto run = run_cli_args({"occupancy", "--gpu", "h200-sxm", "--threads", "256", "--regs",
                                 "64", "--sweep", "threads", "--svg", svg.string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(svg)) << "the figure is written at exactly the path given";
  EXPECT_FALSE(fs::exists(marker));
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1u) << "nothing but the figure";
}

TEST(GnuplotInjection, TheReportOfAUserSpecRunsNothingAndStaysInItsFolder) {
  ScratchDir dir("roofcast_inject_report");
  const fs::path marker = dir.path / "PWNED";
  const fs::path spec = user_spec(dir, "user-gpu", kBackquoteName + marker.string() + "`");
  // --out with a quote in it: set output '...' ended there and ran the rest.
  const std::string marker_name = "PWNED_OUT_" + std::to_string(::getpid());
  const fs::path out = dir.path / ("report'; system 'touch " + marker_name + "'; '");
  const auto run = run_cli_args(
      {"report", "--spec", spec.string(), "--root", kRoot.string(), "--out", out.string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(fs::exists(out / "README.md"));
  EXPECT_TRUE(fs::exists(out / "ladder.svg"));
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(fs::current_path() / marker_name));
  // A spec id that is a path is refused before anything is written.
  json document = h200_document();
  document["id"] = "../../escaped";
  const fs::path bad = dir.write("bad-id.json", document.dump());
  const auto refused = run_cli_args({"report", "--spec", bad.string(), "--root", kRoot.string()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("field 'id'"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(kRoot / "reports" / ".." / ".." / "escaped"));
}

// ---- the command line -------------------------------------------------------------------------

TEST(CliHardening, PositionalArgumentsAndPrefixesAreRefusedAndHelpWins) {
  auto run = run_cli_args({"occupancy", "--gpu", "h200-sxm", "--threads", "256", "--regs", "32",
                           "--smem", "16", "384"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("positional"), std::string::npos) << run.err;
  run = run_cli_args({"occupancy", "--gpu", "h200-sxm", "--thr", "256", "--regs", "32"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--thr"), std::string::npos) << run.err;
  run = run_cli_args({"occupancy", "--threads", "abc", "--help"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("--threads"), std::string::npos);
}

TEST(CliHardening, AnOptionErrorNeverHangs) {
  // Found by cli_fuzzer (fuzz/findings/cli-program-options-value-placeholder-hang.bin): Boost's
  // error message replaced "%value%" with a value holding "%value%" forever.
  auto run = run_cli_args({"occupancy", "--threads", "x%value%y"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("invalid value for option \"--threads\""), std::string::npos) << run.err;
  run = run_cli_args({"occupancy", "--x%canonical_option%", "1"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unrecognised option"), std::string::npos) << run.err;
}

TEST(CliHardening, OneIdOneSpec) {
  auto run = run_cli_args({"gpus", "--spec", (kData / "gpus" / "l4.json").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("already in the list"), std::string::npos) << run.err;
  ScratchDir dir("roofcast_measured_elsewhere");
  const fs::path calibration = dir.path / "h100.json";
  run = run_cli_args({"accuracy", "--gpu", "h100-sxm5", "--measurements",
                      (kData / "measurements" / "h200-sxm" / "sgemm-ladder.json").string(),
                      "--write-calibration", calibration.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("measured on 'h200-sxm'"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(calibration));
}

TEST(CliHardening, LargeSharedMemoryPrintsNoNegativeSizes) {
  const auto run = run_cli_args({"occupancy", "--gpu", "h200-sxm", "--threads", "256", "--regs",
                                 "32", "--smem", "1073741824", "--dynamic-smem", "1073741824",
                                 "--max-dynamic-smem", "0", "--json"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find(": -"), std::string::npos) << run.out;
}

// ---- writers ----------------------------------------------------------------------------------

TEST(Writers, AReportNeverOverwritesAFileItDidNotWrite) {
  ScratchDir dir("roofcast_report_overwrite");
  const std::string mine = "# my project\n";
  dir.write("README.md", mine);
  auto run = run_cli_args(
      {"report", "--gpu", "v100-sxm2-32gb", "--root", kRoot.string(), "--out", dir.path.string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("not written by roofcast"), std::string::npos) << run.err;
  EXPECT_EQ(read_file(dir.path / "README.md"), mine);
  const auto entries = std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{});
  EXPECT_EQ(entries, 1) << "no figure, no staging folder left beside the README";
  run = run_cli_args({"report", "--gpu", "v100-sxm2-32gb", "--root", kRoot.string(), "--out",
                      dir.path.string(), "--force"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("overwriting"), std::string::npos) << "it says so";
  EXPECT_NE(read_file(dir.path / "README.md"), mine);
  // Its own report it overwrites without --force.
  run = run_cli_args(
      {"report", "--gpu", "v100-sxm2-32gb", "--root", kRoot.string(), "--out", dir.path.string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
}

TEST(Writers, AFailedReportLeavesTheFolderAsItWas) {
  ScratchDir dir("roofcast_report_failed");
  // A gnuplot that draws two figures and then fails: before, the first figures stayed beside
  // whatever README the folder had.
  const fs::path bin = dir.path / "bin";
  fs::create_directories(bin);
  const fs::path fake = bin / "gnuplot";
  std::ofstream(fake)
      << "#!/bin/sh\n"
         "if [ \"$1\" = --version ]; then echo 'gnuplot 5.4 patchlevel 4'; exit 0; fi\n"
         "count=$(cat '"
      << (dir.path / "count").string()
      << "' 2>/dev/null || echo 0)\n"
         "echo $((count + 1)) > '"
      << (dir.path / "count").string()
      << "'\n"
         "[ \"$count\" -ge 2 ] && exit 1\n"
         "exec /usr/bin/gnuplot \"$@\"\n";
  fs::permissions(fake, fs::perms::owner_all);
  const fs::path out = dir.path / "out";
  fs::create_directories(out);
  const auto run =
      run_cli_args({"report", "--gpu", "h200-sxm", "--root", kRoot.string(), "--out", out.string()},
                   "PATH=" + bin.string() + ":/usr/bin:/bin");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("gnuplot failed"), std::string::npos) << run.err;
  EXPECT_TRUE(fs::is_empty(out)) << "a failed run left files behind";
}

TEST(Writers, TheReportCountsEveryFigureItWrites) {
  ScratchDir dir("roofcast_report_count");
  const auto run = run_cli_args(
      {"report", "--gpu", "h200-sxm", "--root", kRoot.string(), "--out", dir.path.string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::size_t svgs = 0;
  for (const auto& entry : fs::directory_iterator(dir.path)) {
    svgs += entry.path().extension() == ".svg" ? 1 : 0;
  }
  EXPECT_NE(run.out.find("and " + std::to_string(svgs) + " figures"), std::string::npos)
      << run.out << " (" << svgs << " SVG files)";
}

TEST(Writers, AnSvgOrCalibrationPathOfSomeoneElsesFileIsRefused) {
  ScratchDir dir("roofcast_svg_overwrite");
  const fs::path notes = dir.write("notes.svg", "my drawing\n");
  auto run = run_cli_args({"occupancy", "--gpu", "h200-sxm", "--threads", "256", "--regs", "64",
                           "--sweep", "regs", "--svg", notes.string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(read_file(notes), "my drawing\n");
  run = run_cli_args({"occupancy", "--gpu", "h200-sxm", "--threads", "256", "--regs", "64",
                      "--sweep", "regs", "--svg", notes.string(), "--force"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const fs::path text = dir.write("calibration.json", "{\"mine\": true}\n");
  run = run_cli_args({"accuracy", "--gpu", "h200-sxm", "--measurements",
                      (kData / "measurements" / "h200-sxm" / "sgemm-ladder.json").string(),
                      "--write-calibration", text.string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(read_file(text), "{\"mine\": true}\n");
}

}  // namespace
}  // namespace roofcast
