// SGEMM ladder measurements (CPU, runs in CI): every committed data/measurements/*/
// sgemm-ladder*.json loads and records, for every kernel, the runtime occupancy the model
// predicts from the recorded registers and shared memory; the loader's errors name the file and
// the field; the writer's output loads back unchanged; the harness's case plan and its parsing
// of Nsight Compute's CSV.
#include <gtest/gtest.h>

#include "roofcast/tune/sample.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "roofcast/gemm_json.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/kernels/sample.hpp"
#include "roofcast/occupancy.hpp"
#include "roofcast/validation/ladder_measurements.hpp"
#include "roofcast/validation/ncu_pass.hpp"
#include "roofcast/validation/validate_plan.hpp"

namespace roofcast::validation {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<fs::path> committed_files() {
  std::vector<fs::path> files;
  for (const auto& gpu_dir : fs::directory_iterator(ROOFCAST_MEASUREMENTS_DIR)) {
    if (!gpu_dir.is_directory()) continue;
    for (const auto& file : fs::directory_iterator(gpu_dir.path())) {
      const std::string name = file.path().filename().string();
      if (name.rfind("sgemm-ladder", 0) == 0 && file.path().extension() == ".json") {
        files.push_back(file.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(CommittedLadderMeasurements, RuntimeOccupancyOfEveryKernelEqualsTheModel) {
  const std::vector<fs::path> files = committed_files();
  if (files.empty()) {
    GTEST_SKIP() << "no data/measurements/*/sgemm-ladder*.json committed yet (roofcast-validate "
                    "writes them on a GPU)";
  }
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const LadderMeasurement m = load_ladder_measurement(file);
    const GpuSpec& spec = embedded_spec(m.context.spec_id);
    EXPECT_EQ(file.parent_path().filename().string(), spec.id);
    EXPECT_FALSE(m.kernels.empty());
    EXPECT_FALSE(m.cases.empty());
    int compared = 0;
    for (const MeasuredKernel& kernel : m.kernels) {
      SCOPED_TRACE(kernel.id);
      const OccupancyResult model = compute_occupancy(spec.sm, kernel_launch(kernel));
      EXPECT_EQ(model.blocks_per_sm, kernel.runtime_blocks_per_sm)
          << kernel.threads_per_block << " threads, " << kernel.registers_per_thread
          << " registers, " << kernel.static_shared_bytes << " static + "
          << kernel.dynamic_shared_bytes << " dynamic shared bytes; model limits: warps "
          << model.limit.warps << ", registers " << model.limit.registers << ", shared memory "
          << model.limit.shared_memory << ", blocks " << model.limit.blocks;
      ++compared;
      // A kernel still in the registry must be the same config it was measured as.
      const std::size_t index = kernels::find_kernel(kernel.id);
      if (index != kernels::kRegistrySize) {
        EXPECT_TRUE(kernels::kRegistry[index].config == kernel.config);
      }
    }
    std::printf("[ measured ] %s: %d kernels' runtime occupancy compared, %zu cases\n",
                file.filename().string().c_str(), compared, m.cases.size());
  }
}

// ---- the writer and the loader --------------------------------------------------------------

/// The registry index of rung `rung`'s (first) headline config.
std::size_t headline_index(int rung) {
  for (std::size_t i = 0; i < kernels::kRegistrySize; ++i) {
    const kernels::RegistryEntry& e = kernels::kRegistry[i];
    if (e.config.rung == rung && e.role == kernels::Role::kLadder) return i;
  }
  ADD_FAILURE() << "no headline config of rung " << rung;
  return 0;
}

/// The sample's kernel: rung 7's headline, which takes the grouped raster order of its cases.
const std::size_t kSampleIndex = headline_index(7);

/// A MeasuredKernel for registry entry `index` with made-up (plausible) resources.
MeasuredKernel measured_kernel_of(std::size_t index) {
  MeasuredKernel k;
  k.config = kernels::kRegistry[index].config;
  k.id = kernels::kernel_id(k.config);
  k.registry_index = static_cast<int>(index);
  k.role = kernels::kRegistry[index].role;
  k.threads_per_block = 256;
  k.registers_per_thread = 64;
  k.static_shared_bytes = 0;
  k.dynamic_shared_bytes = 8192;
  k.max_dynamic_shared_bytes = 232448;
  k.local_bytes = 0;
  k.binary_version = 90;
  k.runtime_blocks_per_sm = 4;
  return k;
}

LadderMeasurement sample() {
  LadderMeasurement m;
  LadderContext& c = m.context;
  c.tool = "roofcast-validate";
  c.mode = "full";
  c.command_line = "roofcast-validate --out x.json";
  c.gpu_name = "NVIDIA H200";
  c.spec_id = "h200-sxm";
  c.compute_capability = "9.0";
  c.sm_count = 132;
  c.sm_clock_max_MHz = 1980;
  c.memory_clock_MHz = 3201;
  c.l2_bytes = 62914560;
  c.dram_bytes = 150109880320LL;
  c.driver_version = "580.159.04";
  c.cuda_runtime_version = "13.0";
  c.cublas_version = "13.1.0";
  c.git_revision = "abc1234";
  c.date_utc = "2026-11-29T15:00:00Z";
  c.host = "gpu-host";
  c.clock_source = "nvml";
  c.seed = 18446744073709551615ULL;  // the largest seed survives the round trip
  c.repeats = 20;
  c.warmups = 3;
  c.rotation_min_bytes = 2 * c.l2_bytes;
  c.ncu_version = "Version 2025.3.1.0";
  c.ncu_status = "1 case(s) profiled";

  Microbenchmarks micro;
  micro.measured.measurement_run = "roofcast-validate abc1234";
  micro.measured.ffma_TFLOPS = 61.25;
  micro.measured.dram_bw_GBps = 4012.5;
  micro.measured.l2_latency_cycles = 261.5;
  micro.raw["ffma"] = RawMicrobenchmark{"FFMA chains", {{"TFLOPS", 61.25}, {"runs", 7}}};
  m.microbenchmarks = micro;

  const MeasuredKernel k = measured_kernel_of(kSampleIndex);
  m.kernels.push_back(k);

  MeasuredCase timed;
  timed.kernel = k.id;
  timed.set = CaseSet::kLadder;
  timed.problem = {4096, 4096, 4096};
  timed.raster = gemm::RasterOrder{gemm::RasterKind::kGrouped, 8};
  timed.outcome = Outcome::kPassed;
  timed.relative_error = 1.25e-7;
  timed.error_bound = 6.5e-4;
  timed.time_ms = TimeSummaryMs{3.5, 3.25, 4.0};
  timed.repeats = 20;
  timed.input_sets = 1;
  timed.tflops = tflops_of(timed.problem, 3.5);
  timed.grid_blocks = 1024;
  timed.waves = 1024.0 / (4 * 132);
  timed.sm_clock_MHz_before = 1980;
  timed.sm_clock_MHz_after = 1965;
  NcuMetrics ncu;
  ncu.l2_hit_rate_pct = 81.5;
  ncu.dram_bytes_read = 402653184;
  ncu.achieved_occupancy_pct = 24.75;
  ncu.stalls = {{"long_scoreboard", 2.5}, {"barrier", 0.75}};
  ncu.local_load_instructions = 123456789012.0;  // twelve digits survive the rounding
  ncu.shared_wavefronts = 7.0;
  ncu.kernels = 1;
  timed.ncu = ncu;
  m.cases.push_back(timed);

  MeasuredCase wrong = timed;
  wrong.problem = {17, 17, 17};
  wrong.outcome = Outcome::kIncorrect;
  wrong.detail = "relative Frobenius error above the bound";
  wrong.relative_error = 0.5;
  wrong.time_ms.reset();
  wrong.tflops.reset();
  wrong.repeats = 0;
  wrong.input_sets = 0;
  wrong.ncu.reset();
  m.cases.push_back(wrong);

  MeasuredCase cublas;
  cublas.kernel = "cublas";
  cublas.set = CaseSet::kLadder;
  cublas.problem = {300, 4096, 4096};
  cublas.outcome = Outcome::kPassed;
  cublas.time_ms = TimeSummaryMs{1.0, 0.75, 1.5};
  cublas.repeats = 20;
  cublas.input_sets = 2;
  m.cases.push_back(cublas);
  return m;
}

TEST(LadderMeasurementFormat, WrittenTextLoadsBackUnchanged) {
  const LadderMeasurement original = sample();
  const std::string text = to_json_text(original);
  const LadderMeasurement loaded = parse_ladder_measurement(text, "sample.json");
  EXPECT_EQ(to_json_text(loaded), text);
  EXPECT_EQ(loaded.context.seed, original.context.seed);
  EXPECT_EQ(loaded.context.gpu_name, "NVIDIA H200");
  ASSERT_TRUE(loaded.microbenchmarks);
  EXPECT_EQ(loaded.microbenchmarks->measured.ffma_TFLOPS, 61.25);
  EXPECT_FALSE(loaded.microbenchmarks->measured.l2_bw_GBps);
  EXPECT_EQ(loaded.microbenchmarks->raw.at("ffma").values.at("runs"), 7);
  ASSERT_EQ(loaded.kernels.size(), 1u);
  EXPECT_TRUE(loaded.kernels[0].config == kernels::kRegistry[kSampleIndex].config);
  EXPECT_FALSE(loaded.kernels[0].preferred_carveout_percent);
  ASSERT_EQ(loaded.cases.size(), 3u);
  EXPECT_EQ(gemm::to_string(*loaded.cases[0].raster), "grouped:8");
  EXPECT_EQ(loaded.cases[0].time_ms->median, 3.5);
  EXPECT_EQ(loaded.cases[0].ncu->stalls.at("long_scoreboard"), 2.5);
  EXPECT_EQ(*loaded.cases[0].ncu->local_load_instructions, 123456789012.0);
  EXPECT_EQ(*loaded.cases[0].ncu->shared_wavefronts, 7.0);
  EXPECT_FALSE(loaded.cases[0].ncu->local_store_sectors);
  EXPECT_EQ(loaded.cases[1].outcome, Outcome::kIncorrect);
  EXPECT_FALSE(loaded.cases[1].time_ms);
  EXPECT_EQ(loaded.cases[2].kernel, "cublas");
  EXPECT_FALSE(loaded.cases[2].raster);
  EXPECT_FALSE(loaded.cases[2].grid_blocks);
}

TEST(LadderMeasurementFormat, EachKernelAndCaseIsOneLine) {
  const std::string text = to_json_text(sample());
  std::size_t case_lines = 0, kernel_lines = 0, lines = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line); ++lines) {
    if (line.find("\"kernel\":") != std::string::npos) ++case_lines;
    if (line.find("\"registry_index\":") != std::string::npos) ++kernel_lines;
  }
  EXPECT_EQ(case_lines, 3u);
  EXPECT_EQ(kernel_lines, 1u);
  EXPECT_LT(lines, 20u);
}

TEST(LadderMeasurementFormat, NumbersAreRoundedForReading) {
  LadderMeasurement m = sample();
  m.cases[0].tflops = 39.26786452345;
  const std::string text = to_json_text(m);
  EXPECT_NE(text.find("\"tflops\":39.268"), std::string::npos) << text;
}

/// The loader's error for `document` (or an empty string when it loads).
std::string load_error(const json& document) {
  try {
    parse_ladder_measurement(document.dump(), "bad.json");
  } catch (const LadderMeasurementError& error) {
    EXPECT_EQ(error.file(), "bad.json");
    return error.what();
  }
  return "";
}

json sample_json() { return json::parse(to_json_text(sample())); }

void expect_error(const std::function<void(json&)>& edit, const std::string& field,
                  const std::string& expectation) {
  json document = sample_json();
  edit(document);
  const std::string error = load_error(document);
  EXPECT_NE(error.find("bad.json: field '" + field + "'"), std::string::npos) << error;
  EXPECT_NE(error.find(expectation), std::string::npos) << error;
}

TEST(LadderMeasurementLoader, RejectsMalformedJson) {
  try {
    parse_ladder_measurement("{\"schema_version\": 1,", "broken.json");
    FAIL() << "expected an error";
  } catch (const LadderMeasurementError& error) {
    // The strict parser names where it stopped (here after "schema_version"), not <document>.
    EXPECT_FALSE(error.field().empty());
    EXPECT_NE(std::string(error.what()).find("broken.json"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("valid JSON"), std::string::npos);
  }
}

TEST(LadderMeasurementLoader, NamesTheFieldOfEachError) {
  expect_error([](json& d) { d["schema_version"] = 2; }, "schema_version", "1, got 2");
  expect_error([](json& d) { d["kind"] = "runtime_occupancy"; }, "kind", "sgemm-ladder");
  expect_error([](json& d) { d["context"].erase("gpu_name"); }, "context.gpu_name",
               "the field is missing");
  expect_error([](json& d) { d["context"]["sm_count"] = "132"; }, "context.sm_count",
               "an integer in 1..4096, got \"132\"");
  expect_error([](json& d) { d["context"]["l2_bytes"] = 0; }, "context.l2_bytes",
               "an integer in 1..1099511627776");
  expect_error([](json& d) { d["kernels"][0]["typo"] = 1; }, "kernels[0].typo", "unknown field");
  expect_error([](json& d) { d["kernels"][0]["id"] = "r01-other"; }, "kernels[0].id",
               "the id of its config");
  expect_error([](json& d) { d["kernels"][0]["rung"] = 9; }, "kernels[0].rung",
               "the rung of config");
  expect_error([](json& d) { d["kernels"][0]["role"] = "headline"; }, "kernels[0].role",
               "ladder, sweep or sample");
  expect_error([](json& d) { d["kernels"][0]["config"]["layout"] = "diagonal"; },
               "kernels[0].config.layout", "plain, padded, swizzled");
  expect_error([](json& d) { d["kernels"].push_back(d["kernels"][0]); }, "kernels[1].id",
               "an id listed once (kernels[0] has it)");
  expect_error([](json& d) { d["cases"][0]["outcome"] = "ok"; }, "cases[0].outcome",
               "passed, incorrect, not_supported, failed");
  expect_error([](json& d) { d["cases"][0]["set"] = "extra"; }, "cases[0].set",
               "ladder, sweep, check");
  expect_error([](json& d) { d["cases"][0]["kernel"] = "r99-none"; }, "cases[0].kernel",
               "the id of a kernel in 'kernels'");
  expect_error([](json& d) { d["cases"][0].erase("raster"); }, "cases[0].raster", "a raster order");
  expect_error([](json& d) { d["cases"][0]["raster"] = "diagonal"; }, "cases[0].raster",
               "grouped:G");
  expect_error([](json& d) { d["cases"][2]["raster"] = "row_major"; }, "cases[2].raster",
               "null or absent for cuBLAS");
  expect_error([](json& d) { d["cases"][0]["m"] = 0; }, "cases[0].m", "1..2147483647");
  expect_error([](json& d) { d["cases"][0]["time_ms"]["min"] = 5.0; }, "cases[0].time_ms",
               "min <= median <= max");
  expect_error([](json& d) { d["cases"][1]["time_ms"] = d["cases"][0]["time_ms"]; },
               "cases[1].time_ms", "only passed cases are timed");
  expect_error([](json& d) { d["cases"][0]["ncu"]["stalls"]["wait"] = "high"; },
               "cases[0].ncu.stalls.wait", "a number");
  expect_error([](json& d) { d["microbenchmarks"]["measured"]["ffma_TFLOPS"] = -1; },
               "microbenchmarks.measured.ffma_TFLOPS", "0.001..1e+06 TFLOPS");
  expect_error([](json& d) { d["microbenchmarks"]["raw"]["ffma"].erase("method"); },
               "microbenchmarks.raw.ffma.method", "the field is missing");
  expect_error([](json& d) { d["cases"] = json::object(); }, "cases", "an array");
}

/// `document` loads (the test fails with the loader's error otherwise).
void expect_loads(const json& document) { EXPECT_EQ(load_error(document), ""); }

/// The sample with a rung-1 kernel (registry entry 0) and a passed, timed, row-major case of it
/// appended as cases[3].
json sample_with_rung1_case() {
  LadderMeasurement m = sample();
  MeasuredKernel k = measured_kernel_of(0);
  k.threads_per_block = k.config.threads;
  m.kernels.push_back(k);
  MeasuredCase c = m.cases[0];
  c.kernel = k.id;
  c.raster = gemm::RasterOrder{};
  c.ncu.reset();
  m.cases.push_back(c);
  return json::parse(to_json_text(m));
}

TEST(LadderMeasurementBounds, TimesAreWhatAKernelLaunchCanTake) {
  const std::string bound = "a time in 1e-06..1e+07 ms";
  expect_error([](json& d) { d["cases"][0]["time_ms"]["median"] = 1e-300; },
               "cases[0].time_ms.median", bound);
  expect_error([](json& d) { d["cases"][0]["time_ms"]["max"] = 1e300; }, "cases[0].time_ms.max",
               bound);
  expect_error([](json& d) { d["cases"][0]["time_ms"]["min"] = 1e-300; }, "cases[0].time_ms.min",
               bound);
  expect_error([](json& d) { d["cases"][0]["time_ms"]["min"] = 0; }, "cases[0].time_ms.min", bound);
  expect_error([](json& d) { d["cases"][0]["time_ms"]["max"] = 3.0; }, "cases[0].time_ms",
               "min <= median <= max");
  // The exact bounds load (no tflops: 4096^3 in 1 ns is no rate, but each time is one).
  json edge = sample_json();
  edge["cases"][0].erase("tflops");
  edge["cases"][0]["time_ms"] = {{"median", 1e-6}, {"min", 1e-6}, {"max", 1e7}};
  expect_loads(edge);
}

TEST(LadderMeasurementBounds, RegistryIndexNamesTheKernelsRegistryEntry) {
  const std::string last = std::to_string(kernels::kRegistrySize - 1);
  expect_error([](json& d) { d["kernels"][0]["registry_index"] = 9999; },
               "kernels[0].registry_index",
               "an index into this build's kernel registry, 0.." + last);
  expect_error([](json& d) { d["kernels"][0]["registry_index"] = -1; }, "kernels[0].registry_index",
               "0.." + last);
  expect_error(
      [](json& d) { d["kernels"][0]["registry_index"] = static_cast<int>(kernels::kRegistrySize); },
      "kernels[0].registry_index", "0.." + last);
  // Another entry's index: the file's id and config are not that entry.
  expect_error([](json& d) { d["kernels"][0]["registry_index"] = 0; }, "kernels[0].registry_index",
               "the index of its config in this build's kernel registry (" +
                   std::to_string(kSampleIndex) + "), got 0");
  // A config with a consistent id that the registry does not have.
  expect_error(
      [](json& d) {
        gemm::TileConfig c = kernels::kRegistry[kSampleIndex].config;
        c.bk = 64;
        d["kernels"][0]["config"]["bk"] = 64;
        d["kernels"][0]["id"] = kernels::kernel_id(c);
        d["cases"][0]["kernel"] = kernels::kernel_id(c);
        d["cases"][1]["kernel"] = kernels::kernel_id(c);
      },
      "kernels[0].registry_index", "its config is not in this build's kernel registry");
  // The role is the registry entry's.
  expect_error([](json& d) { d["kernels"][0]["role"] = "sweep"; }, "kernels[0].role",
               "the role of registry entry " + std::to_string(kSampleIndex) + ", \"ladder\"");
}

TEST(LadderMeasurementBounds, TimedRunsHaveRepeats) {
  expect_error([](json& d) { d["context"]["repeats"] = 0; }, "context.repeats",
               "at least 1 when a case is timed (cases[0] is)");
  expect_error([](json& d) { d["cases"][0]["repeats"] = 0; }, "cases[0].repeats",
               "an integer in 1..");
  expect_error([](json& d) { d["context"]["warmups"] = -1; }, "context.warmups",
               "an integer in 0..");
  // A check-only run times nothing: 0 repeats and 0 warm-ups.
  json check_only = sample_json();
  check_only["context"]["repeats"] = 0;
  check_only["context"]["warmups"] = 0;
  json untimed = json::array();
  for (const json& c : check_only["cases"]) {
    if (!c.contains("time_ms")) untimed.push_back(c);
  }
  check_only["cases"] = untimed;
  expect_loads(check_only);
}

TEST(LadderMeasurementBounds, CeilingsAreWithinTheSpecLoadersBounds) {
  const auto ceiling = [](const char* key, double value) {
    return [key, value](json& d) { d["microbenchmarks"]["measured"][key] = value; };
  };
  const std::string m = "microbenchmarks.measured.";
  expect_error(ceiling("ffma_TFLOPS", 0), m + "ffma_TFLOPS", "a number in 0.001..1e+06 TFLOPS");
  expect_error(ceiling("ffma_TFLOPS", 1e300), m + "ffma_TFLOPS", "0.001..1e+06 TFLOPS");
  expect_error(ceiling("dram_bw_GBps", 0), m + "dram_bw_GBps", "a number in 0.001..1e+07 GB/s");
  expect_error(ceiling("l2_bw_GBps", 2e7), m + "l2_bw_GBps", "0.001..1e+07 GB/s");
  expect_error(ceiling("shared_memory_bw_GBps", 1e-300), m + "shared_memory_bw_GBps",
               "0.001..1e+07 GB/s");
  expect_error(ceiling("dram_latency_cycles", 0), m + "dram_latency_cycles",
               "a number in 1..1e+06 cycles");
  expect_error(ceiling("l2_latency_cycles", 0.5), m + "l2_latency_cycles", "1..1e+06 cycles");
  expect_error(ceiling("shared_memory_latency_cycles", 1e300), m + "shared_memory_latency_cycles",
               "1..1e+06 cycles");
  json edge = sample_json();
  json& measured = edge["microbenchmarks"]["measured"];
  measured["ffma_TFLOPS"] = 1e-3;
  measured["dram_bw_GBps"] = 1e7;
  measured["l2_bw_GBps"] = 1e-3;
  measured["dram_latency_cycles"] = 1;
  measured["l2_latency_cycles"] = 1e6;
  expect_loads(edge);
}

/// The loader's error for the document that `edit` makes of `base` must name `field` and say
/// `expectation`.
void expect_error_in(json base, const std::function<void(json&)>& edit, const std::string& field,
                     const std::string& expectation) {
  edit(base);
  const std::string error = load_error(base);
  EXPECT_NE(error.find("bad.json: field '" + field + "'"), std::string::npos) << error;
  EXPECT_NE(error.find(expectation), std::string::npos) << error;
}

TEST(LadderMeasurementBounds, RasterIsOneTheKernelLaunches) {
  const json base = sample_with_rung1_case();
  expect_loads(base);
  for (const char* raster : {"z_order", "column_major", "grouped:8"}) {
    SCOPED_TRACE(raster);
    expect_error_in(
        base, [raster](json& d) { d["cases"][3]["raster"] = raster; }, "cases[3].raster",
        "row_major: rung 1 launches row-major only");
  }
  // Rungs 7-10 take every order but Z-order, which is never launched.
  expect_error([](json& d) { d["cases"][0]["raster"] = "z_order"; }, "cases[0].raster",
               "z_order is never launched");
  for (const char* raster : {"row_major", "column_major", "grouped:1", "grouped:16"}) {
    json ok = sample_json();
    ok["cases"][0]["raster"] = raster;
    expect_loads(ok);
  }
  // A case the harness refused to launch records the order it was asked for.
  json refused = base;
  json& c = refused["cases"][3];
  c["raster"] = "z_order";
  c["outcome"] = "not_supported";
  c["detail"] = "raster order z_order is not taken by rung 1";
  for (const char* key : {"time_ms", "repeats", "input_sets", "tflops", "relative_error"}) {
    c.erase(key);
  }
  expect_loads(refused);
  // cuBLAS cases record no raster (null or absent), as before.
  json cublas = sample_json();
  cublas["cases"][2]["raster"] = nullptr;
  expect_loads(cublas);
}

TEST(LadderMeasurementBounds, ExtentsAreWithinMaxExtent) {
  const std::string bound = "an integer in 1.." + std::to_string(gemm::kMaxExtent);
  const std::int64_t huge = std::int64_t{1} << 62;
  expect_error(
      [huge](json& d) {
        for (const char* key : {"m", "n", "k"}) d["cases"][0][key] = huge;
      },
      "cases[0].m", bound);
  expect_error([](json& d) { d["cases"][2]["n"] = gemm::kMaxExtent + 1; }, "cases[2].n", bound);
  expect_error([](json& d) { d["cases"][1]["k"] = 0; }, "cases[1].k", bound);
  expect_error([](json& d) { d["cases"][1]["k"] = std::uint64_t{1} << 63; }, "cases[1].k", bound);
  json edge = sample_json();
  edge["cases"][1]["m"] = gemm::kMaxExtent;  // not timed: no rate to check
  edge["cases"][1]["n"] = 1;
  edge["cases"][1]["k"] = gemm::kMaxExtent;
  expect_loads(edge);
}

/// The sample with every registry kernel listed and `cases` timed cases cycling over them.
LadderMeasurement many_cases(std::size_t cases) {
  LadderMeasurement m = sample();
  m.kernels.clear();
  for (std::size_t i = 0; i < kernels::kRegistrySize; ++i)
    m.kernels.push_back(measured_kernel_of(i));
  const MeasuredCase timed = m.cases[0];
  m.cases.clear();
  for (std::size_t i = 0; i < cases; ++i) {
    const MeasuredKernel& k = m.kernels[i % m.kernels.size()];
    MeasuredCase c = timed;
    c.kernel = k.id;
    c.problem = {static_cast<std::int64_t>(64 + i), 4096, 4096};
    c.raster = kernels::takes_raster_order(k.config) ? *timed.raster : gemm::RasterOrder{};
    c.tflops = tflops_of(c.problem, c.time_ms->median);
    c.ncu.reset();
    m.cases.push_back(c);
  }
  return m;
}

TEST(LadderMeasurementScale, TwentyThousandCasesOverEveryRegistryKernelLoad) {
  // The loader indexes the listed kernels once and looks each case up there; this runs that path
  // at scale (no timing: a unit test cannot time reliably).
  const LadderMeasurement original = many_cases(20000);
  const LadderMeasurement loaded = parse_ladder_measurement(to_json_text(original), "many.json");
  ASSERT_EQ(loaded.kernels.size(), kernels::kRegistrySize);
  ASSERT_EQ(loaded.cases.size(), 20000u);
  EXPECT_EQ(loaded.cases[19999].kernel, original.cases[19999].kernel);
  EXPECT_EQ(loaded.cases[19999].problem.m, 64 + 19999);
}

TEST(LadderMeasurementScale, RepeatedKernelIdIsReportedWithItsFirstListing) {
  // 20,000 kernel entries cycling over the registry (only kRegistrySize ids can be valid): the
  // first repeat is kernels[kRegistrySize], of kernels[0]'s id.
  const json registry_kernels = json::parse(to_json_text(many_cases(0)))["kernels"];
  json document = sample_json();
  json listed = json::array();
  for (std::size_t i = 0; i < 20000; ++i) {
    listed.push_back(registry_kernels[i % kernels::kRegistrySize]);
  }
  document["kernels"] = listed;
  const std::string field = "kernels[" + std::to_string(kernels::kRegistrySize) + "].id";
  const std::string error = load_error(document);
  EXPECT_NE(error.find("field '" + field + "'"), std::string::npos) << error;
  EXPECT_NE(error.find("an id listed once (kernels[0] has it)"), std::string::npos) << error;
  // A repeat far from the first listing names it too.
  json two = sample_json();
  two["kernels"] = registry_kernels;
  two["kernels"].push_back(two["kernels"][5]);
  expect_error_in(
      two, [](json&) {}, "kernels[" + std::to_string(kernels::kRegistrySize) + "].id",
      "an id listed once (kernels[5] has it)");
}

TEST(LadderMeasurementText, KeptStringsArePrintable) {
  expect_error([](json& d) { d["context"]["gpu_name"] = "NVIDIA\nH200"; }, "context.gpu_name",
               "printable text, got a control character (U+000A) at byte 6");
  expect_error([](json& d) { d["context"]["gpu_name"] = "\x1b[31mNVIDIA H200"; },
               "context.gpu_name", "printable text, got a control character (U+001B) at byte 0");
  expect_error([](json& d) { d["context"]["host"] = "gpu\thost"; }, "context.host",
               "printable text");
  expect_error([](json& d) { d["context"]["command_line"] = "roofcast-validate\r"; },
               "context.command_line", "printable text");
  expect_error([](json& d) { d["context"]["ncu_status"] = "ok\x7f"; }, "context.ncu_status",
               "printable text");
  expect_error([](json& d) { d["microbenchmarks"]["measured"]["measurement_run"] = "run\n1"; },
               "microbenchmarks.measured.measurement_run", "printable text");
  expect_error([](json& d) { d["microbenchmarks"]["raw"]["ffma"]["method"] = "a\nb"; },
               "microbenchmarks.raw.ffma.method", "printable text");
  expect_error([](json& d) { d["cases"][1]["detail"] = "bad\x1b[2J"; }, "cases[1].detail",
               "printable text");
  expect_error([](json& d) { d["cases"][0]["ncu"]["error"] = "\x01"; }, "cases[0].ncu.error",
               "printable text");
  // Keys the loader keeps (benchmark names, value names, stall reasons) too; the message
  // shows them escaped, so no error prints a control character.
  json bad_key = sample_json();
  bad_key["cases"][0]["ncu"]["stalls"]["\x1b[2Jwait"] = 1.0;
  const std::string error = load_error(bad_key);
  EXPECT_NE(error.find("cases[0].ncu.stalls.\"\\x1B[2Jwait\""), std::string::npos) << error;
  EXPECT_NE(error.find("a printable name"), std::string::npos) << error;
  EXPECT_EQ(error.find('\x1b'), std::string::npos) << error;
  json bad_raw = sample_json();
  bad_raw["microbenchmarks"]["raw"]["ffma"]["TFLOPS\n"] = 1.0;
  EXPECT_NE(load_error(bad_raw).find("a printable name"), std::string::npos);
  json unknown = sample_json();
  unknown["context"]["\x1b[31mtypo"] = 1;
  const std::string unknown_error = load_error(unknown);
  EXPECT_NE(unknown_error.find("unknown field"), std::string::npos) << unknown_error;
  EXPECT_EQ(unknown_error.find('\x1b'), std::string::npos) << unknown_error;
  // The spec id names a data/gpus file and folders: a GPU id.
  for (const char* id : {"../h200-sxm", "H200", "h200/sxm"}) {
    SCOPED_TRACE(id);
    expect_error([id](json& d) { d["context"]["spec_id"] = id; }, "context.spec_id", "an id ");
  }
  // Non-ASCII printable text is kept.
  json utf8 = sample_json();
  utf8["context"]["host"] = "h\xc3\xb6st";
  expect_loads(utf8);
}

TEST(LadderMeasurementBounds, HardwareFiguresAreWhatAGpuCanHave) {
  const auto context = [](const char* key, json value) {
    return [key, value](json& d) { d["context"][key] = value; };
  };
  expect_error(context("sm_count", 0), "context.sm_count", "an integer in 1..4096");
  expect_error(context("sm_count", -132), "context.sm_count", "an integer in 1..4096");
  expect_error(context("sm_count", 100000), "context.sm_count", "an integer in 1..4096");
  expect_error(context("sm_clock_max_MHz", 0), "context.sm_clock_max_MHz",
               "a number in 1..100000 MHz");
  expect_error(context("sm_clock_max_MHz", 1e300), "context.sm_clock_max_MHz", "1..100000 MHz");
  expect_error(context("memory_clock_MHz", 0), "context.memory_clock_MHz",
               "a number in 1..1e+06 MHz");
  expect_error(context("l2_bytes", std::int64_t{1} << 41), "context.l2_bytes",
               "an integer in 1..1099511627776");
  expect_error(context("dram_bytes", 0), "context.dram_bytes", "an integer in 1..1125899906842624");
  expect_error(context("compute_capability", "nine"), "context.compute_capability", "MAJOR.MINOR");
  expect_error(context("compute_capability", "9.10"), "context.compute_capability", "MAJOR.MINOR");
  const auto kernel = [](const char* key, json value) {
    return [key, value](json& d) { d["kernels"][0][key] = value; };
  };
  expect_error(kernel("registers_per_thread", 256), "kernels[0].registers_per_thread",
               "an integer in 0..255");
  expect_error(kernel("registers_per_thread", -1), "kernels[0].registers_per_thread",
               "an integer in 0..255");
  expect_error(kernel("static_shared_bytes", -4), "kernels[0].static_shared_bytes",
               "an integer in 0..16777216");
  expect_error(kernel("dynamic_shared_bytes", 1 << 30), "kernels[0].dynamic_shared_bytes",
               "an integer in 0..16777216");
  expect_error(kernel("max_dynamic_shared_bytes", -1), "kernels[0].max_dynamic_shared_bytes",
               "an integer in 0..16777216");
  expect_error(kernel("threads_per_block", 2048), "kernels[0].threads_per_block",
               "an integer in 1..1024");
  expect_error(kernel("preferred_carveout_percent", 101), "kernels[0].preferred_carveout_percent",
               "an integer in 0..100");
  expect_error(kernel("local_bytes", 1 << 20), "kernels[0].local_bytes", "an integer in 0..524288");
  expect_error(kernel("binary_version", 0), "kernels[0].binary_version", "an integer in 10..999");
  expect_error(kernel("runtime_blocks_per_sm", 5000), "kernels[0].runtime_blocks_per_sm",
               "an integer in 0..1024");
  const auto case0 = [](const char* key, json value) {
    return [key, value](json& d) { d["cases"][0][key] = value; };
  };
  expect_error(case0("sm_clock_MHz_before", 0), "cases[0].sm_clock_MHz_before",
               "a number in 1..100000 MHz");
  expect_error(case0("sm_clock_MHz_after", 1e300), "cases[0].sm_clock_MHz_after", "1..100000 MHz");
  // A rate: above 0 (a timed 1x1x1 case may be far below any ceiling), at most the spec's
  // largest TFLOPS.
  expect_error(case0("tflops", 0), "cases[0].tflops", "a rate above 0 and at most 1e+06 TFLOPS");
  expect_error(case0("tflops", 1e300), "cases[0].tflops", "at most 1e+06 TFLOPS");
  // The rate is the case's own: 2 M N K over its median time.
  expect_error(case0("tflops", 10.0), "cases[0].tflops", "2 M N K / median time (39.268 TFLOPS)");
  expect_error([](json& d) { d["cases"][1]["tflops"] = 10.0; }, "cases[1].tflops",
               "absent: only timed cases have a rate");
}

TEST(LadderMeasurementLoader, OptionalPartsMayBeAbsentOrNull) {
  json document = sample_json();
  document.erase("microbenchmarks");
  document["context"].erase("ncu_version");
  document["cases"][2]["raster"] = nullptr;
  document["cases"][0].erase("ncu");
  const LadderMeasurement m = parse_ladder_measurement(document.dump(), "ok.json");
  EXPECT_FALSE(m.microbenchmarks);
  EXPECT_FALSE(m.context.ncu_version);
  EXPECT_FALSE(m.cases[2].raster);
  EXPECT_FALSE(m.cases[0].ncu);
}

TEST(LadderMeasurementLoader, FileErrorsNameTheFile) {
  const fs::path missing = fs::temp_directory_path() / "roofcast-no-such-ladder.json";
  try {
    load_ladder_measurement(missing);
    FAIL() << "expected an error";
  } catch (const LadderMeasurementError& error) {
    EXPECT_EQ(error.file(), missing.string());
    EXPECT_NE(std::string(error.what()).find("a readable file"), std::string::npos);
  }
  EXPECT_THROW(load_ladder_measurement(fs::temp_directory_path()), LadderMeasurementError);
  const fs::path good = fs::temp_directory_path() / "roofcast-ladder-sample.json";
  std::ofstream(good) << to_json_text(sample());
  EXPECT_EQ(load_ladder_measurement(good).cases.size(), 3u);
  fs::remove(good);
}

TEST(LadderMeasurementVocabulary, OutcomesAndSetsRoundTrip) {
  for (Outcome o : kAllOutcomes) EXPECT_EQ(parse_outcome(to_string(o)), o);
  EXPECT_EQ(to_string(Outcome::kNotSupported), "not_supported");
  EXPECT_FALSE(parse_outcome("Passed"));
  for (CaseSet s : {CaseSet::kLadder, CaseSet::kSweep, CaseSet::kCheck}) {
    EXPECT_EQ(parse_case_set(to_string(s)), s);
  }
  EXPECT_FALSE(parse_case_set(""));
}

TEST(LadderMeasurementStatistics, MedianMinMaxAndTflops) {
  EXPECT_THROW(summarize_times({}), std::invalid_argument);
  const TimeSummaryMs one = summarize_times({2.0});
  EXPECT_EQ(one.median, 2.0);
  EXPECT_EQ(one.min, 2.0);
  EXPECT_EQ(one.max, 2.0);
  const TimeSummaryMs even = summarize_times({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(even.median, 2.5);
  EXPECT_EQ(even.min, 1.0);
  EXPECT_EQ(even.max, 4.0);
  EXPECT_EQ(summarize_times({5.0, 1.0, 3.0}).median, 3.0);
  // 2 * 4096^3 FLOPs in 1 ms = 137.438953472 TFLOPS.
  EXPECT_NEAR(tflops_of({4096, 4096, 4096}, 1.0), 137.438953472, 1e-9);
}

TEST(LadderMeasurementOccupancy, KernelLaunchCarriesWhatTheRuntimeWasAsked) {
  MeasuredKernel k = sample().kernels[0];
  // H200: 64 registers x 256 threads -> 4 blocks by registers; 8 KiB + 1 KiB reserved is far
  // from the shared-memory limit.
  EXPECT_EQ(compute_occupancy(embedded_spec("h200-sxm").sm, kernel_launch(k)).blocks_per_sm, 4);
  k.dynamic_shared_bytes = 100 * 1024;  // (100 + 1) KiB per block: 2 blocks in 228 KiB
  EXPECT_EQ(compute_occupancy(embedded_spec("h200-sxm").sm, kernel_launch(k)).blocks_per_sm, 2);
  k.preferred_carveout_percent = 50;  // 114 KiB requested -> 132 KiB carveout: 1 block
  EXPECT_EQ(compute_occupancy(embedded_spec("h200-sxm").sm, kernel_launch(k)).blocks_per_sm, 1);
}

// ---- the case plan ----------------------------------------------------------------------------

std::size_t count_if(const std::vector<PlannedCase>& plan,
                     const std::function<bool(const PlannedCase&)>& predicate) {
  return static_cast<std::size_t>(std::count_if(plan.begin(), plan.end(), predicate));
}

TEST(ValidatePlan, LadderSetCoversEveryRungSizeAndRasterOrder) {
  const std::vector<PlannedCase> plan = build_plan(PlanOptions{});
  const std::vector<gemm::Problem> problems = ladder_problems(false);
  ASSERT_EQ(problems.size(), 11u);
  EXPECT_EQ(count_if(plan, [](const PlannedCase& c) { return c.set == CaseSet::kCheck; }), 0u);
  for (const gemm::Problem& p : problems) {
    EXPECT_EQ(count_if(plan,
                       [&](const PlannedCase& c) {
                         return c.set == CaseSet::kLadder && !c.spec.registry_index &&
                                c.spec.problem == p;
                       }),
              1u)
        << "cuBLAS at " << problem_text(p);
  }
  std::size_t expected = problems.size();  // cuBLAS
  for (std::size_t i = 0; i < kernels::kRegistrySize; ++i) {
    const kernels::RegistryEntry& e = kernels::kRegistry[i];
    if (e.role != kernels::Role::kLadder) continue;
    const std::size_t rasters = e.config.rung >= 7 ? 4 : 1;
    expected += rasters * problems.size();
    EXPECT_EQ(count_if(plan,
                       [&](const PlannedCase& c) {
                         return c.set == CaseSet::kLadder && c.spec.registry_index == i;
                       }),
              rasters * problems.size())
        << kernels::kernel_id(e.config);
  }
  EXPECT_EQ(count_if(plan, [](const PlannedCase& c) { return c.set == CaseSet::kLadder; }),
            expected);
  EXPECT_TRUE(
      std::is_sorted(plan.begin(), plan.end(), [](const PlannedCase& a, const PlannedCase& b) {
        return a.spec.problem.flops() < b.spec.problem.flops();
      }));
  EXPECT_EQ(count_if(plan, [](const PlannedCase& c) { return c.profile; }), 0u);
}

TEST(ValidatePlan, SweepSetHasEveryConfigOfRungsFourToTen) {
  const std::vector<PlannedCase> plan = build_plan(PlanOptions{});
  std::size_t configs = 0;
  for (std::size_t i = 0; i < kernels::kRegistrySize; ++i) {
    if (kernels::kRegistry[i].config.rung < 4) continue;
    ++configs;
    for (const gemm::Problem& p : sweep_problems(false)) {
      EXPECT_EQ(count_if(plan,
                         [&](const PlannedCase& c) {
                           return c.set == CaseSet::kSweep && c.spec.registry_index == i &&
                                  c.spec.problem == p &&
                                  c.spec.raster == sweep_raster(kernels::kRegistry[i].config);
                         }),
                1u);
    }
  }
  EXPECT_EQ(count_if(plan, [](const PlannedCase& c) { return c.set == CaseSet::kSweep; }),
            2 * configs);
  // The training sweep: the same configs at other shapes, none of them a held-out sweep shape.
  for (const gemm::Problem& p : training_sweep_problems(false)) {
    const std::vector<gemm::Problem> held_out = sweep_problems(false);
    EXPECT_EQ(std::find(held_out.begin(), held_out.end(), p), held_out.end());
    EXPECT_EQ(count_if(plan,
                       [&](const PlannedCase& c) {
                         return c.set == CaseSet::kTrainingSweep && c.spec.problem == p;
                       }),
              configs);
  }
  EXPECT_EQ(count_if(plan, [](const PlannedCase& c) { return c.set == CaseSet::kTrainingSweep; }),
            training_sweep_problems(false).size() * configs);
}

TEST(ValidatePlan, SelectionIsCublasAndEveryRegisteredConfigAtEachShapeAlone) {
  PlanOptions options;
  options.selection = true;
  const std::vector<PlannedCase> plan = build_plan(options);
  const std::vector<gemm::Problem> shapes = selection_problems(false);
  ASSERT_GE(shapes.size(), 10u);
  EXPECT_EQ(plan.size(), shapes.size() * (kernels::kRegistrySize + 1));
  for (const gemm::Problem& p : shapes) {
    EXPECT_EQ(count_if(plan,
                       [&](const PlannedCase& c) {
                         return c.spec.problem == p && !c.spec.registry_index;
                       }),
              1u);
    for (std::size_t i = 0; i < kernels::kRegistrySize; ++i) {
      EXPECT_EQ(count_if(plan,
                         [&](const PlannedCase& c) {
                           return c.spec.registry_index == i && c.spec.problem == p &&
                                  c.spec.raster == sweep_raster(kernels::kRegistry[i].config);
                         }),
                1u);
    }
  }
  EXPECT_EQ(count_if(plan, [](const PlannedCase& c) { return c.set != CaseSet::kSelection; }), 0u);
}

TEST(ValidatePlan, QuickCheckOnlyChecksEveryRegisteredConfigAtSmallSizes) {
  PlanOptions options;
  options.quick = true;
  options.check_only = true;
  const std::vector<PlannedCase> plan = build_plan(options);
  std::size_t expected = 0;
  for (std::size_t i = 0; i < kernels::kRegistrySize; ++i) {
    expected += ladder_rasters(kernels::kRegistry[i].config).size() * check_problems().size();
  }
  EXPECT_EQ(plan.size(), expected);
  EXPECT_EQ(count_if(plan,
                     [](const PlannedCase& c) {
                       return c.set != CaseSet::kCheck || !c.spec.registry_index;
                     }),
            0u);
}

TEST(ValidatePlan, KernelsRegexFilters) {
  PlanOptions options;
  options.kernels_regex = "^cublas$";
  const std::vector<PlannedCase> only_cublas = build_plan(options);
  EXPECT_EQ(only_cublas.size(), ladder_problems(false).size());
  options.kernels_regex = "^r01-";
  const std::vector<PlannedCase> naive = build_plan(options);
  EXPECT_FALSE(naive.empty());
  for (const PlannedCase& c : naive) EXPECT_EQ(kernel_name(c.spec).rfind("r01-", 0), 0u);
  options.kernels_regex = "(";
  EXPECT_THROW(build_plan(options), std::regex_error);
}

TEST(ValidatePlan, NcuSubsetDefaultsToTrainingCasesRungsSevenToTenAndRungEightsSkinnySweep) {
  PlanOptions options;
  options.ncu = true;
  const std::vector<PlannedCase> plan = build_plan(options);
  const std::vector<gemm::Problem> ncu_sizes = ncu_problems(false);
  const auto square_pow2 = [](const gemm::Problem& p) {
    return p.m == p.n && p.n == p.k && (p.m & (p.m - 1)) == 0;
  };
  for (const PlannedCase& c : plan) {
    const bool training_ladder = c.set == CaseSet::kLadder && square_pow2(c.spec.problem);
    // Every training case is profiled: the model's mechanisms come from their stalls.
    if (c.set == CaseSet::kTrainingSweep || training_ladder) {
      EXPECT_TRUE(c.profile) << kernel_name(c.spec) << " " << problem_text(c.spec.problem);
    }
    if (!c.profile) continue;
    if (c.set == CaseSet::kSweep) {  // rung 8's sweep at the skinny shape
      EXPECT_TRUE(c.spec.problem == (gemm::Problem{256, 4096, 4096}));
      ASSERT_TRUE(c.spec.registry_index.has_value());
      EXPECT_EQ(kernels::kRegistry[*c.spec.registry_index].config.rung, 8);
      continue;
    }
    if (c.set == CaseSet::kTrainingSweep || training_ladder) continue;
    EXPECT_EQ(c.set, CaseSet::kLadder);
    EXPECT_NE(std::find(ncu_sizes.begin(), ncu_sizes.end(), c.spec.problem), ncu_sizes.end());
    ASSERT_TRUE(c.spec.registry_index.has_value());
    EXPECT_GE(kernels::kRegistry[*c.spec.registry_index].config.rung, 7);
  }
  EXPECT_EQ(
      count_if(plan, [](const PlannedCase& c) { return c.profile && !c.spec.registry_index; }),
      5u);  // cuBLAS at 512 ... 8192^3
  EXPECT_EQ(count_if(plan,
                     [](const PlannedCase& c) {
                       return c.set == CaseSet::kSweep && c.profile &&
                              c.spec.problem == (gemm::Problem{4096, 4096, 4096});
                     }),
            0u);  // the held-out square sweep is timed only
  options.ncu_kernels_regex = "^r01-";
  for (const PlannedCase& c : build_plan(options)) {
    if (!c.profile) continue;
    EXPECT_EQ(kernel_name(c.spec).rfind("r01-", 0), 0u);
    EXPECT_EQ(c.set, CaseSet::kLadder);
  }
}

TEST(ValidatePlan, ProfileCasesRoundTripAndMalformedOnesAreRefused) {
  CaseSpec spec{std::size_t{0}, {300, 4096, 17}, gemm::RasterOrder{}};
  std::string error;
  const auto decoded = decode_profile_case(encode_profile_case(spec), &error);
  ASSERT_TRUE(decoded) << error;
  EXPECT_EQ(decoded->registry_index, spec.registry_index);
  EXPECT_TRUE(decoded->problem == spec.problem);
  const auto cublas = decode_profile_case("cublas,4096,4096,4096,row_major", &error);
  ASSERT_TRUE(cublas) << error;
  EXPECT_FALSE(cublas->registry_index);
  EXPECT_FALSE(decode_profile_case("r99-none,1,1,1,row_major", &error));
  EXPECT_NE(error.find("no registry or sample kernel"), std::string::npos);
  EXPECT_FALSE(decode_profile_case("cublas,0,1,1,row_major", &error));
  EXPECT_FALSE(decode_profile_case("cublas,1,1,1,sideways", &error));
  EXPECT_FALSE(decode_profile_case("cublas,1,1,1", &error));
}

TEST(ValidatePlan, GridBlocksAreTilesRoundedToWholeClusters) {
  gemm::TileConfig config;
  config.bm = 128;
  config.bn = 64;
  // 300 x 4096: 3 tile rows x 64 tile columns.
  EXPECT_EQ(grid_blocks_of({300, 4096, 7}, config), 3 * 64);
  config.cluster = 2;  // 3 tile rows -> 2 clusters of 2 rows
  EXPECT_EQ(grid_blocks_of({300, 4096, 7}, config), 4 * 64);
  config.cluster = 4;
  EXPECT_EQ(grid_blocks_of({512, 64, 7}, config), 4);
  EXPECT_EQ(grid_blocks_of({1, 1, 1}, config), 4);
}

TEST(ValidatePlan, ProblemsAndInputSets) {
  EXPECT_TRUE(*parse_problem("17") == (gemm::Problem{17, 17, 17}));
  EXPECT_TRUE(*parse_problem("300x4096x128") == (gemm::Problem{300, 4096, 128}));
  EXPECT_FALSE(parse_problem("0"));
  EXPECT_FALSE(parse_problem("3x4"));
  EXPECT_FALSE(parse_problem("1x2x3x4"));
  EXPECT_FALSE(parse_problem("2097152"));
  // 512^3: A, B, C of 1 MiB each; > 2 x 60 MiB needs 41 sets. 8192^3 (768 MiB) needs one.
  const std::int64_t l2 = 62914560;
  EXPECT_EQ(input_sets_for(3 << 20, 2 * l2), 41);
  EXPECT_GT(41LL * (3 << 20), 2 * l2);
  EXPECT_EQ(input_sets_for(std::int64_t{3} * 256 << 20, 2 * l2), 1);
  EXPECT_EQ(input_sets_for(40 << 20, 2 * l2), 4);  // 3 x 40 MiB = 2 x 60 MiB exactly: one more
  EXPECT_EQ(input_sets_for(0, 2 * l2), 1);
}

// ---- Nsight Compute's CSV ---------------------------------------------------------------------

constexpr const char* kNcuCsv =
    "==PROF== Connected to process 123 (/x/roofcast-validate)\n"
    "==PROF== Profiling \"sgemm\": 0%....50%....100% - 9 passes\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\","
    "\"Metric Unit\",\"Metric Value\"\n"
    "\"0\",\"123\",\"roofcast-validate\",\"h\",\"void sgemm<0, 32, 32>(Args)\",\"1\",\"7\","
    "\"(1024, 1, 1)\",\"(16, 16, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"dram__bytes_read.sum\",\"byte\",\"12,582,912\"\n"
    "\"0\",\"123\",\"roofcast-validate\",\"h\",\"void sgemm<0, 32, 32>(Args)\",\"1\",\"7\","
    "\"(1024, 1, 1)\",\"(16, 16, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"lts__t_sector_hit_rate.pct\",\"%\",\"87.25\"\n"
    "\"0\",\"123\",\"roofcast-validate\",\"h\",\"void sgemm<0, 32, 32>(Args)\",\"1\",\"7\","
    "\"(1024, 1, 1)\",\"(16, 16, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\",\"\","
    "\"3.5\"\n"
    "\"0\",\"123\",\"roofcast-validate\",\"h\",\"void sgemm<0, 32, 32>(Args)\",\"1\",\"7\","
    "\"(1024, 1, 1)\",\"(16, 16, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"gpu__time_duration.sum\",\"usecond\",\"1.5\"\n"
    "\"0\",\"123\",\"roofcast-validate\",\"h\",\"void sgemm<0, 32, 32>(Args)\",\"1\",\"7\","
    "\"(1024, 1, 1)\",\"(16, 16, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"smsp__inst_executed_op_local_ld.sum\",\"inst\",\"4,096\"\n"
    "\"1\",\"123\",\"roofcast-validate\",\"h\",\"gemm_kernel, \"\"quoted\"\"\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"dram__bytes_read.sum\",\"byte\",\"1,000\"\n"
    "\"1\",\"123\",\"roofcast-validate\",\"h\",\"gemm_kernel, \"\"quoted\"\"\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"lts__t_sector_hit_rate.pct\",\"%\",\"n/a\"\n"
    "\"1\",\"123\",\"roofcast-validate\",\"h\",\"gemm_kernel, \"\"quoted\"\"\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"gpu__time_duration.sum\",\"nsecond\",\"200\"\n"
    "\"1\",\"123\",\"roofcast-validate\",\"h\",\"gemm_kernel, \"\"quoted\"\"\",\"1\",\"7\","
    "\"(256, 1, 1)\",\"(8, 8, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\","
    "\"smsp__inst_executed_op_local_ld.sum\",\"inst\",\"100\"\n"
    "==PROF== Disconnected from process 123\n";

TEST(NcuCsv, ParsesKernelsMetricsUnitsAndSeparators) {
  const std::vector<NcuKernelRecord> kernels = parse_ncu_csv(kNcuCsv);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].id, "0");
  EXPECT_EQ(kernels[0].name, "void sgemm<0, 32, 32>(Args)");
  EXPECT_EQ(kernels[1].name, "gemm_kernel, \"quoted\"");
  EXPECT_EQ(kernels[0].metrics.at("dram__bytes_read.sum").second, 12582912.0);
  EXPECT_EQ(kernels[1].metrics.count("lts__t_sector_hit_rate.pct"), 0u);  // n/a left out
  const NcuMetrics one = summarize_ncu({kernels[0]});
  EXPECT_EQ(one.kernels, 1);
  EXPECT_EQ(*one.dram_bytes_read, 12582912.0);
  EXPECT_EQ(*one.l2_hit_rate_pct, 87.25);
  EXPECT_EQ(*one.duration_ns, 1500.0);
  EXPECT_EQ(one.stalls.at("long_scoreboard"), 3.5);
  EXPECT_FALSE(one.achieved_occupancy_pct);
  EXPECT_EQ(*one.local_load_instructions, 4096.0);
  EXPECT_FALSE(one.local_store_instructions);
  EXPECT_FALSE(one.error);
  // Two kernels for one case: bytes and time summed, rates from the longer one (kernel 0).
  const NcuMetrics both = summarize_ncu(kernels);
  EXPECT_EQ(both.kernels, 2);
  EXPECT_EQ(*both.dram_bytes_read, 12583912.0);
  EXPECT_EQ(*both.duration_ns, 1700.0);
  EXPECT_EQ(*both.l2_hit_rate_pct, 87.25);
  EXPECT_EQ(*both.local_load_instructions, 4196.0);  // counts are summed
  // A count in a unit without a scale is left out and named; the other numbers stay.
  NcuKernelRecord odd = kernels[0];
  odd.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"] = {"furlong", 3};
  const NcuMetrics with_odd_unit = summarize_ncu({odd});
  EXPECT_FALSE(with_odd_unit.shared_wavefronts);
  EXPECT_EQ(*with_odd_unit.local_load_instructions, 4096.0);
  ASSERT_TRUE(with_odd_unit.error);
  EXPECT_NE(with_odd_unit.error->find("furlong"), std::string::npos);
}

TEST(NcuCsv, ErrorsAndUnits) {
  EXPECT_THROW(parse_ncu_csv("==PROF== nothing profiled\n"), std::runtime_error);
  // A header and no rows: no kernels (the batch then reports 0 kernels for its cases).
  const std::string csv(kNcuCsv);
  const std::size_t header_start = csv.find("\"ID\"");
  const std::string header_only = csv.substr(0, csv.find('\n', header_start) + 1);
  EXPECT_TRUE(parse_ncu_csv(header_only).empty());
  EXPECT_EQ(base_value("x", "Mbyte", 2.5), 2.5e6);
  EXPECT_EQ(base_value("x", "msecond", 2), 2e6);
  EXPECT_EQ(base_value("x", "Ksector", 3), 3e3);
  EXPECT_THROW(base_value("dram__bytes_read.sum", "furlong", 1), std::runtime_error);
  EXPECT_TRUE(summarize_ncu({}).error);
  // Every requested metric name is unique, and each stall reason appears once.
  const std::vector<std::string> names = ncu_metric_names();
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(names.size(), 6 + ncu_counts().size() + ncu_stall_reasons().size());
  for (const NcuCount& count : ncu_counts()) {
    EXPECT_NE(std::find(names.begin(), names.end(), count.metric), names.end()) << count.metric;
  }
}

}  // namespace
}  // namespace roofcast::validation

namespace roofcast::validation {
namespace {

/// The measurement of sample() with its kernel turned into the sample's first config.
json with_sample_kernel() {
  json d = sample_json();
  const gemm::TileConfig& c = kernels::kSampleConfigs[0];
  d["kernels"][0]["role"] = "sample";
  d["kernels"][0].erase("registry_index");
  d["kernels"][0]["config"] = gemm::config_json(c);
  d["kernels"][0]["rung"] = c.rung;
  d["kernels"][0]["id"] = kernels::kernel_id(c);
  d["cases"][0]["kernel"] = kernels::kernel_id(c);
  d["cases"][1]["kernel"] = kernels::kernel_id(c);
  if (!kernels::takes_raster_order(c)) d["cases"][0]["raster"] = "row_major";
  if (!kernels::takes_raster_order(c)) d["cases"][1]["raster"] = "row_major";
  return d;
}

TEST(LadderMeasurementSample, ASampleKernelIsNamedByItsIdAndRoundTrips) {
  const LadderMeasurement m = parse_ladder_measurement(with_sample_kernel().dump(), "s.json");
  ASSERT_FALSE(m.kernels.empty());
  EXPECT_EQ(m.kernels[0].role, kernels::Role::kSample);
  EXPECT_EQ(m.kernels[0].registry_index, -1);
  EXPECT_EQ(m.kernels[0].config, kernels::kSampleConfigs[0]);
  const std::string text = to_json_text(m);
  EXPECT_EQ(text.find("registry_index\": -1"), std::string::npos) << "no index for a sample kernel";
  EXPECT_EQ(to_json_text(parse_ladder_measurement(text, "s.json")), text);
}

TEST(LadderMeasurementSample, ASampleKernelHasNoRegistryIndexAndIsNotARegistryConfig) {
  json indexed = with_sample_kernel();
  indexed["kernels"][0]["registry_index"] = 3;
  EXPECT_NE(load_error(indexed).find("absent for a sample kernel"), std::string::npos)
      << load_error(indexed);
  json registered = sample_json();
  registered["kernels"][0]["role"] = "sample";
  registered["kernels"][0].erase("registry_index");
  EXPECT_NE(load_error(registered).find("the registry has this config"), std::string::npos)
      << load_error(registered);
  json unknown = sample_json();
  unknown["kernels"][0]["role"] = "probe";
  EXPECT_NE(load_error(unknown).find("ladder, sweep or sample"), std::string::npos);
}

TEST(ValidatePlan, SampleIsCublasTheRegistrysRungsFourToTenAndTheSampleAtEachShapeAlone) {
  PlanOptions options;
  options.sample = true;
  const std::vector<PlannedCase> plan = build_plan(options);
  const std::vector<gemm::Problem> shapes = sample_problems(false);
  ASSERT_GE(shapes.size(), 16u + 5u);  // the sample's shapes and the sweep shapes
  std::size_t registry_4_to_10 = 0;
  for (const kernels::RegistryEntry& e : kernels::kRegistry) registry_4_to_10 += e.config.rung >= 4;
  EXPECT_EQ(plan.size(), shapes.size() * (1 + registry_4_to_10 + kernels::kSampleSize));
  EXPECT_EQ(count_if(plan, [](const PlannedCase& c) { return c.set != CaseSet::kSample; }), 0u);
  const std::size_t first_sample = kernels::kRegistrySize;
  EXPECT_EQ(count_if(plan,
                     [&](const PlannedCase& c) {
                       return c.spec.registry_index == first_sample &&
                              c.spec.raster == sweep_raster(kernels::kSampleConfigs[0]);
                     }),
            shapes.size());
  EXPECT_EQ(kernel_name(CaseSpec{first_sample, {1, 1, 1}, {}}),
            kernels::kernel_id(kernels::kSampleConfigs[0]));
  const auto decoded = decode_profile_case(
      kernels::kernel_id(kernels::kSampleConfigs[1]) + ",64,64,64,row_major", nullptr);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->registry_index, first_sample + 1);
}

// The sample's stated Nsight Compute subset: every tenth sample config at three training shapes,
// each case timed and profiled, nothing else.
TEST(ValidatePlan, SampleNcuSubsetIsEveryTenthSampleConfigAtThreeTrainingShapes) {
  PlanOptions options;
  options.sample = true;
  options.sample_ncu = true;
  const std::vector<PlannedCase> plan = build_plan(options);
  const std::size_t configs = (kernels::kSampleSize + 9) / 10;
  ASSERT_EQ(sample_ncu_problems().size(), 3u);
  EXPECT_EQ(plan.size(), 3 * configs);
  for (const PlannedCase& c : plan) {
    ASSERT_TRUE(c.spec.registry_index.has_value());
    EXPECT_TRUE(sample_ncu_config(*c.spec.registry_index));
    EXPECT_EQ((*c.spec.registry_index - kernels::kRegistrySize) % 10, 0u);
    EXPECT_TRUE(c.profile);
    EXPECT_EQ(c.set, CaseSet::kSample);
    EXPECT_FALSE(tune::shape_held_out(c.spec.problem)) << "profiled shapes are training shapes";
  }
  EXPECT_FALSE(sample_ncu_config(kernels::kRegistrySize + 1));
  EXPECT_FALSE(sample_ncu_config(0));
}

// The local-memory subset: the configs of the sample and of rungs 4-10 the predicate (the
// device's localSizeBytes > 0) names, at the same three shapes; rungs 1-3 never.
TEST(ValidatePlan, SampleNcuLocalSubsetIsEveryConfigThatUsesLocalMemory) {
  PlanOptions options;
  options.sample = true;
  options.sample_ncu = true;
  options.sample_ncu_subset = SampleNcuSubset::kLocalMemory;
  EXPECT_THROW(build_plan(options), std::invalid_argument);  // no predicate: refused
  std::set<std::size_t> asked;
  options.uses_local_memory = [&](std::size_t i) {
    asked.insert(i);
    return i % 7 == 3;  // a stand-in for the runtime's answer
  };
  const std::vector<PlannedCase> plan = build_plan(options);
  std::set<std::size_t> expected;
  for (std::size_t i = 0; i < kernels::kCompiledSize; ++i) {
    if (kernels::compiled_config(i).rung >= 4 && i % 7 == 3) expected.insert(i);
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(plan.size(), 3 * expected.size());
  std::set<std::size_t> planned;
  for (const PlannedCase& c : plan) {
    ASSERT_TRUE(c.spec.registry_index.has_value());
    planned.insert(*c.spec.registry_index);
    EXPECT_TRUE(c.profile);
    EXPECT_EQ(c.set, CaseSet::kSample);
  }
  EXPECT_EQ(planned, expected);
  for (const std::size_t i : asked) EXPECT_GE(kernels::compiled_config(i).rung, 4);
}

// The every-config subset: the sample and rungs 4-10 at 2048^3 alone; the names parse.
TEST(ValidatePlan, SampleNcuEveryConfigSubsetIsTheWholeSpaceAtOneShape) {
  PlanOptions options;
  options.sample = true;
  options.sample_ncu = true;
  options.sample_ncu_subset = SampleNcuSubset::kEveryConfig;
  const std::vector<PlannedCase> plan = build_plan(options);
  std::size_t configs = 0;
  for (std::size_t i = 0; i < kernels::kCompiledSize; ++i) {
    configs += kernels::compiled_config(i).rung >= 4 ? 1 : 0;
  }
  EXPECT_EQ(plan.size(), configs);
  EXPECT_GT(configs, kernels::kSampleSize);
  for (const PlannedCase& c : plan) {
    EXPECT_EQ(c.spec.problem, (gemm::Problem{2048, 2048, 2048}));
    EXPECT_TRUE(c.profile);
  }
  EXPECT_EQ(parse_sample_ncu_subset("local"), SampleNcuSubset::kLocalMemory);
  EXPECT_EQ(parse_sample_ncu_subset("all"), SampleNcuSubset::kEveryConfig);
  EXPECT_EQ(parse_sample_ncu_subset("tenth"), SampleNcuSubset::kEveryTenth);
  EXPECT_FALSE(parse_sample_ncu_subset("most"));
}

// The every-config subset at another shape (--sample-ncu-problem); the other subsets keep their
// shapes and refuse one.
TEST(ValidatePlan, SampleNcuEveryConfigSubsetTakesItsShape) {
  PlanOptions options;
  options.sample = true;
  options.sample_ncu = true;
  options.sample_ncu_subset = SampleNcuSubset::kEveryConfig;
  const std::size_t at_2048 = build_plan(options).size();
  options.sample_ncu_problem = gemm::Problem{1459, 2313, 162};
  const std::vector<PlannedCase> plan = build_plan(options);
  EXPECT_EQ(plan.size(), at_2048);
  for (const PlannedCase& c : plan) {
    EXPECT_EQ(c.spec.problem, (gemm::Problem{1459, 2313, 162}));
    EXPECT_TRUE(c.profile);
  }
  options.sample_ncu_subset = SampleNcuSubset::kEveryTenth;
  EXPECT_THROW(build_plan(options), std::invalid_argument);
}

}  // namespace
}  // namespace roofcast::validation

namespace roofcast::validation {
namespace {

// The committed sample run (data/measurements/h200-sxm/sample/, docs/sample.md): both parts load
// with the strict reader, every case passed its check and was timed, and every sample config
// was measured at every sample shape.
TEST(CommittedSample, EveryConfigOfTheSampleWasMeasuredAtEveryShape) {
  std::set<std::string> kernels;
  std::set<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>> cases;
  for (const char* part : {"a", "b"}) {
    const LadderMeasurement m =
        load_ladder_measurement(fs::path(ROOFCAST_MEASUREMENTS_DIR) / "h200-sxm/sample" /
                                (std::string("sgemm-sample-") + part + ".json"));
    EXPECT_EQ(m.context.mode, "sample");
    EXPECT_EQ(m.context.repeats, 20);
    for (const MeasuredKernel& k : m.kernels) kernels.insert(k.id);
    for (const MeasuredCase& c : m.cases) {
      EXPECT_EQ(c.set, CaseSet::kSample);
      EXPECT_EQ(c.outcome, Outcome::kPassed) << c.kernel;
      EXPECT_TRUE(c.time_ms.has_value()) << c.kernel;
      cases.insert({c.kernel, c.problem.m, c.problem.n, c.problem.k});
    }
  }
  for (const gemm::TileConfig& config : kernels::kSampleConfigs) {
    const std::string id = kernels::kernel_id(config);
    EXPECT_EQ(kernels.count(id), 1u) << id;
    for (const gemm::Problem& p : sample_problems(false)) {
      EXPECT_EQ(cases.count({id, p.m, p.n, p.k}), 1u) << id << " at " << problem_text(p);
    }
  }
}

}  // namespace
}  // namespace roofcast::validation
