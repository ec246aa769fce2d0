// Tests of the GPU spec database (data/gpus/*.json) and its loader (model/src/spec.cpp):
// every file on disk loads and matches the embedded copy, each GPU's constants agree with
// each other and with published facts, and malformed documents are rejected with an error
// that names the file, the exact field and what was expected.
#include "roofcast/spec.hpp"
#include "roofcast/latency.hpp"
#include "roofcast/roofline.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace roofcast {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kGpuDir = fs::path(ROOFCAST_DATA_DIR) / "gpus";
constexpr const char* kBadOrigin = "bad.json";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Every *.json file in data/gpus, sorted, so that a new file is covered automatically.
std::vector<fs::path> SpecFilesOnDisk() {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(kGpuDir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json")
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Every spec file on disk, loaded with load_spec_file.
std::vector<GpuSpec> SpecsOnDisk() {
  std::vector<GpuSpec> specs;
  for (const fs::path& path : SpecFilesOnDisk()) specs.push_back(load_spec_file(path));
  return specs;
}

bool Contains(std::string_view text, std::string_view phrase) {
  return text.find(phrase) != std::string_view::npos;
}

/// The fields (dotted paths) that carry a value and so must each name a source.
const std::vector<std::string>& ValueFields() {
  static const std::vector<std::string> fields = {
      "compute_capability",
      "sm.warp_size",
      "sm.max_threads_per_sm",
      "sm.max_threads_per_block",
      "sm.max_blocks_per_sm",
      "sm.registers_per_sm",
      "sm.max_registers_per_block",
      "sm.max_registers_per_thread",
      "sm.register_allocation_unit",
      "sm.register_file_subpartitions",
      "sm.warp_allocation_granularity",
      "sm.shared_memory_per_sm_bytes",
      "sm.shared_memory_carveouts_KiB",
      "sm.shared_memory_per_block_default_bytes",
      "sm.shared_memory_per_block_optin_bytes",
      "sm.reserved_shared_memory_per_block_bytes",
      "sm.shared_memory_allocation_granularity_bytes",
      "sm.shared_memory_banks",
      "sm.shared_memory_bank_width_bytes",
      "sm.fp32_lanes_per_sm",
      "chip.sm_count",
      "chip.boost_clock_MHz",
      "chip.l2_bytes",
      "chip.dram_bytes",
      "chip.dram_bw_GBps",
      "chip.memory_bus_width_bits",
      "chip.memory_clock_MHz",
      "peak_TFLOPS.fp32",
      "peak_TFLOPS.fp64",
      "peak_TFLOPS.tf32_tensor_dense",
      "peak_TFLOPS.fp16_tensor_dense",
      "peak_TFLOPS.bf16_tensor_dense",
      "peak_TFLOPS.fp8_tensor_dense",
  };
  return fields;
}

/// Equality of two specs, origin excepted (each part compares every field).
void ExpectSameSpec(const GpuSpec& a, const GpuSpec& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.architecture, b.architecture);
  EXPECT_TRUE(a.compute_capability == b.compute_capability);
  EXPECT_TRUE(a.sm == b.sm);
  EXPECT_TRUE(a.chip == b.chip);
  EXPECT_TRUE(a.peak_TFLOPS == b.peak_TFLOPS);
  EXPECT_TRUE(a.measured == b.measured);
  EXPECT_EQ(a.sources, b.sources);
}

// ---------------------------------------------------------------------------------------
// 1. The database on disk and its embedded copy.

TEST(SpecDatabase, EveryFileOnDiskLoadsAndItsIdIsTheFileStem) {
  const std::vector<fs::path> files = SpecFilesOnDisk();
  ASSERT_FALSE(files.empty()) << "no spec files in " << kGpuDir;
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    GpuSpec spec;
    ASSERT_NO_THROW(spec = load_spec_file(path));
    EXPECT_EQ(spec.id, path.stem().string());
    EXPECT_EQ(spec.origin, path.string());
  }
}

TEST(SpecDatabase, EmbeddedIdsAreTheFilesOnDisk) {
  std::vector<std::string> disk_ids;
  for (const fs::path& path : SpecFilesOnDisk()) disk_ids.push_back(path.stem().string());
  std::vector<std::string> embedded_ids;
  for (const GpuSpec& spec : embedded_specs()) embedded_ids.push_back(spec.id);
  // Both lists are sorted (file names by path, embedded specs by id), so this compares sets
  // and, on a difference, shows which ids are stale or missing.
  EXPECT_EQ(embedded_ids, disk_ids);
}

TEST(SpecDatabase, EmbeddedSpecsAreSortedByIdAndUnique) {
  const std::vector<GpuSpec>& specs = embedded_specs();
  ASSERT_FALSE(specs.empty());
  for (std::size_t i = 1; i < specs.size(); ++i)
    EXPECT_LT(specs[i - 1].id, specs[i].id) << "at index " << i;
}

TEST(SpecDatabase, EmbeddedCopyIsNotStale) {
  for (const GpuSpec& disk : SpecsOnDisk()) {
    SCOPED_TRACE(disk.id);
    const GpuSpec* embedded = nullptr;
    ASSERT_NO_THROW(embedded = &embedded_spec(disk.id));
    EXPECT_EQ(embedded->origin, "embedded:" + disk.id + ".json");
    // The two headline values named in the issue, then everything else.
    EXPECT_EQ(embedded->sm.shared_memory_per_sm_bytes, disk.sm.shared_memory_per_sm_bytes);
    EXPECT_EQ(embedded->chip.sm_count, disk.chip.sm_count);
    ExpectSameSpec(*embedded, disk);
  }
}

TEST(SpecDatabase, RequiredProductsExist) {
  for (const char* id : {"v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5",
                         "h100-pcie", "h200-sxm"}) {
    SCOPED_TRACE(id);
    EXPECT_NO_THROW(embedded_spec(id));
    EXPECT_TRUE(fs::is_regular_file(kGpuDir / (std::string(id) + ".json")));
  }
}

// ---------------------------------------------------------------------------------------
// 2. Each GPU's constants agree with each other and with published facts.

TEST(SpecConstants, Fp32PeakMatchesLanesSmsAndClock) {
  for (const GpuSpec& spec : SpecsOnDisk()) {
    SCOPED_TRACE(spec.id);
    const double derived = 2.0 * spec.sm.fp32_lanes_per_sm * spec.chip.sm_count *
                           spec.chip.boost_clock_MHz * 1e6 / 1e12;
    EXPECT_NEAR(spec.peak_TFLOPS.fp32, derived, 0.02 * derived);
  }
}

TEST(SpecConstants, DramBandwidthMatchesBusWidthAndMemoryClock) {
  for (const GpuSpec& spec : SpecsOnDisk()) {
    SCOPED_TRACE(spec.id);
    const double derived =
        spec.chip.memory_bus_width_bits / 8.0 * spec.chip.memory_clock_MHz * 2.0 / 1000.0;
    EXPECT_NEAR(spec.chip.dram_bw_GBps, derived, 0.05 * derived);
  }
}

TEST(SpecConstants, SharedMemoryAddsUp) {
  for (const GpuSpec& spec : SpecsOnDisk()) {
    SCOPED_TRACE(spec.id);
    const SmLimits& sm = spec.sm;
    EXPECT_EQ(sm.shared_memory_per_block_optin_bytes + sm.reserved_shared_memory_per_block_bytes,
              sm.shared_memory_per_sm_bytes);
    ASSERT_FALSE(sm.shared_memory_carveouts_KiB.empty());
    const int largest = *std::max_element(sm.shared_memory_carveouts_KiB.begin(),
                                          sm.shared_memory_carveouts_KiB.end());
    EXPECT_EQ(largest * 1024, sm.shared_memory_per_sm_bytes);
    EXPECT_TRUE(std::is_sorted(sm.shared_memory_carveouts_KiB.begin(),
                               sm.shared_memory_carveouts_KiB.end()));
    EXPECT_LE(sm.shared_memory_per_block_default_bytes, sm.shared_memory_per_block_optin_bytes);
    EXPECT_EQ(sm.shared_memory_per_sm_bytes % sm.shared_memory_allocation_granularity_bytes, 0);
  }
}

TEST(SpecConstants, ThreadAndRegisterLimits) {
  for (const GpuSpec& spec : SpecsOnDisk()) {
    SCOPED_TRACE(spec.id);
    const SmLimits& sm = spec.sm;
    EXPECT_EQ(sm.warp_size, 32);
    EXPECT_EQ(sm.max_registers_per_thread, 255);
    EXPECT_EQ(sm.max_threads_per_sm % sm.warp_size, 0);
    EXPECT_LE(sm.max_threads_per_block, sm.max_threads_per_sm);
    EXPECT_LE(sm.max_registers_per_block, sm.registers_per_sm);
    EXPECT_EQ(sm.registers_per_sm % sm.register_file_subpartitions, 0);
    EXPECT_EQ(sm.max_warps_per_sm(), sm.max_threads_per_sm / 32);
  }
}

TEST(SpecConstants, EveryValueHasANonEmptySource) {
  for (const GpuSpec& spec : SpecsOnDisk()) {
    SCOPED_TRACE(spec.id);
    for (const char* field :
         {"sm.warp_size", "chip.l2_bytes", "peak_TFLOPS.fp32", "compute_capability"}) {
      SCOPED_TRACE(field);
      const auto source = spec.sources.find(field);
      ASSERT_NE(source, spec.sources.end());
      EXPECT_FALSE(source->second.empty());
    }
    for (const std::string& field : ValueFields()) {
      SCOPED_TRACE(field);
      const auto source = spec.sources.find(field);
      ASSERT_NE(source, spec.sources.end());
      EXPECT_FALSE(source->second.empty());
    }
    for (const auto& [field, text] : spec.sources) EXPECT_FALSE(text.empty()) << field;
  }
}

TEST(SpecConstants, TensorRatesAreOrderedSensibly) {
  for (const GpuSpec& spec : SpecsOnDisk()) {
    SCOPED_TRACE(spec.id);
    const PeakTflops& peak = spec.peak_TFLOPS;
    EXPECT_GT(peak.fp32, 0);
    if (peak.fp16_tensor_dense && peak.tf32_tensor_dense) {
      EXPECT_GE(*peak.fp16_tensor_dense, *peak.tf32_tensor_dense);
    }
    if (peak.fp8_tensor_dense && peak.fp16_tensor_dense) {
      EXPECT_GE(*peak.fp8_tensor_dense, *peak.fp16_tensor_dense);
    }
    if (peak.tf32_tensor_dense) {
      EXPECT_GE(*peak.tf32_tensor_dense, peak.fp32);
    }
    if (peak.fp16_tensor_dense) {
      EXPECT_GE(*peak.fp16_tensor_dense, peak.fp32);
    }
    // A GPU with FP8 tensor cores also has FP16 ones.
    if (peak.fp8_tensor_dense) {
      EXPECT_TRUE(peak.fp16_tensor_dense.has_value());
    }
  }
}

/// Published facts per product, checked field by field.
struct HardFacts {
  const char* id;
  int cc_major;
  int cc_minor;
  int sm_count;
  double boost_clock_MHz;
  int max_blocks_per_sm;
  int max_threads_per_sm;
  int shared_memory_per_sm_KiB;
  int reserved_shared_memory_per_block_bytes;
  int shared_memory_allocation_granularity_bytes;
  int fp32_lanes_per_sm;
  std::optional<std::int64_t> l2_bytes = std::nullopt;
  std::optional<double> dram_bw_GBps = std::nullopt;
};

const std::vector<HardFacts>& HardFactsTable() {
  static const std::vector<HardFacts> table = {
      {"v100-sxm2-32gb", 7, 0, 80, 1530, 32, 2048, 96, 0, 256, 64},
      {"a100-sxm4-40gb", 8, 0, 108, 1410, 32, 2048, 164, 1024, 128, 64},
      {"a100-sxm4-80gb", 8, 0, 108, 1410, 32, 2048, 164, 1024, 128, 64},
      {"h100-sxm5", 9, 0, 132, 1980, 32, 2048, 228, 1024, 128, 128},
      {"h100-pcie", 9, 0, 114, 1755, 32, 2048, 228, 1024, 128, 128},
      {"h200-sxm", 9, 0, 132, 1980, 32, 2048, 228, 1024, 128, 128, 62914560, 4800},
      {"l40s", 8, 9, 142, 2520, 24, 1536, 100, 1024, 128, 128},
      {"l4", 8, 9, 58, 2040, 24, 1536, 100, 1024, 128, 128},
  };
  return table;
}

TEST(SpecConstants, HardFactsPerGpu) {
  for (const HardFacts& facts : HardFactsTable()) {
    SCOPED_TRACE(facts.id);
    const GpuSpec* found = nullptr;
    ASSERT_NO_THROW(found = &embedded_spec(facts.id));
    const GpuSpec& spec = *found;
    EXPECT_EQ(spec.compute_capability.major, facts.cc_major);
    EXPECT_EQ(spec.compute_capability.minor, facts.cc_minor);
    EXPECT_EQ(spec.chip.sm_count, facts.sm_count);
    EXPECT_DOUBLE_EQ(spec.chip.boost_clock_MHz, facts.boost_clock_MHz);
    EXPECT_EQ(spec.sm.max_blocks_per_sm, facts.max_blocks_per_sm);
    EXPECT_EQ(spec.sm.max_threads_per_sm, facts.max_threads_per_sm);
    EXPECT_EQ(spec.sm.shared_memory_per_sm_bytes, facts.shared_memory_per_sm_KiB * 1024);
    EXPECT_EQ(spec.sm.reserved_shared_memory_per_block_bytes,
              facts.reserved_shared_memory_per_block_bytes);
    EXPECT_EQ(spec.sm.shared_memory_allocation_granularity_bytes,
              facts.shared_memory_allocation_granularity_bytes);
    EXPECT_EQ(spec.sm.fp32_lanes_per_sm, facts.fp32_lanes_per_sm);
    if (facts.l2_bytes) {
      EXPECT_EQ(spec.chip.l2_bytes, *facts.l2_bytes);
    }
    if (facts.dram_bw_GBps) {
      EXPECT_DOUBLE_EQ(spec.chip.dram_bw_GBps, *facts.dram_bw_GBps);
    }
  }
}

// ---------------------------------------------------------------------------------------
// 3. Malformed documents. Each starts from h200-sxm.json without its measured block (and the
// sources of that block) and breaks one thing.

json H200Document() {
  static const std::string text = ReadText(kGpuDir / "h200-sxm.json");
  json document = json::parse(text);
  document.erase("measured");
  for (auto it = document["sources"].begin(); it != document["sources"].end();) {
    it = it.key().rfind("measured.", 0) == 0 ? document["sources"].erase(it) : std::next(it);
  }
  return document;
}

/// Passes when parse_spec(text, "bad.json") throws a SpecError for exactly `field` whose
/// expectation contains `phrase`, and whose what() reads "bad.json: field 'F': expected E".
::testing::AssertionResult RejectedWith(const std::string& text, const std::string& field,
                                        const std::string& phrase) {
  try {
    parse_spec(text, kBadOrigin);
  } catch (const SpecError& error) {
    if (error.file() != kBadOrigin)
      return ::testing::AssertionFailure() << "file() is '" << error.file() << "'";
    if (error.field() != field) {
      return ::testing::AssertionFailure() << "field() is '" << error.field() << "', want '"
                                           << field << "' (" << error.what() << ")";
    }
    if (!Contains(error.expectation(), phrase)) {
      return ::testing::AssertionFailure()
             << "expectation() '" << error.expectation() << "' lacks '" << phrase << "'";
    }
    const std::string what =
        std::string(kBadOrigin) + ": field '" + field + "': expected " + error.expectation();
    if (error.what() != what) {
      return ::testing::AssertionFailure()
             << "what() is '" << error.what() << "', want '" << what << "'";
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& other) {
    return ::testing::AssertionFailure()
           << "threw something other than SpecError: " << other.what();
  }
  return ::testing::AssertionFailure() << "parse_spec accepted the document";
}

::testing::AssertionResult RejectedWith(const json& document, const std::string& field,
                                        const std::string& phrase) {
  return RejectedWith(document.dump(2), field, phrase);
}

TEST(SpecMalformed, BaselineDocumentParses) {
  GpuSpec spec;
  ASSERT_NO_THROW(spec = parse_spec(H200Document().dump(2), kBadOrigin));
  EXPECT_EQ(spec.id, "h200-sxm");
  EXPECT_EQ(spec.origin, kBadOrigin);
  EXPECT_FALSE(spec.measured.has_value());
}

TEST(SpecMalformed, InvalidJson) {
  const std::string text = H200Document().dump(2);
  EXPECT_TRUE(RejectedWith(text.substr(0, text.size() / 2), "<document>", "valid JSON"));
}

TEST(SpecMalformed, DocumentIsNotAnObject) {
  EXPECT_TRUE(RejectedWith(std::string("[1, 2, 3]"), "<document>", "a JSON object"));
}

TEST(SpecMalformed, MissingField) {
  json document = H200Document();
  document["sm"].erase("max_blocks_per_sm");
  EXPECT_TRUE(RejectedWith(document, "sm.max_blocks_per_sm", "missing"));
}

TEST(SpecMalformed, StringWhereIntegerExpected) {
  json document = H200Document();
  document["sm"]["warp_size"] = "32";
  EXPECT_TRUE(RejectedWith(document, "sm.warp_size", "an integer"));
}

TEST(SpecMalformed, FloatWhereIntegerExpected) {
  json document = H200Document();
  document["sm"]["max_blocks_per_sm"] = 1.5;
  EXPECT_TRUE(RejectedWith(document, "sm.max_blocks_per_sm", "an integer"));
}

TEST(SpecMalformed, ObjectWhereNumberExpected) {
  json document = H200Document();
  document["chip"]["dram_bw_GBps"] = json{{"value", 4800}};
  EXPECT_TRUE(RejectedWith(document, "chip.dram_bw_GBps", "a number"));
}

TEST(SpecMalformed, NegativeInteger) {
  json document = H200Document();
  document["sm"]["registers_per_sm"] = -1;
  EXPECT_TRUE(RejectedWith(document, "sm.registers_per_sm", "an integer in 1..1048576, got -1"));
}

TEST(SpecMalformed, ZeroWherePositiveIntegerRequired) {
  json document = H200Document();
  document["chip"]["sm_count"] = 0;
  EXPECT_TRUE(RejectedWith(document, "chip.sm_count", "an integer in 1..4096, got 0"));
}

TEST(SpecMalformed, ZeroWherePositiveNumberRequired) {
  json document = H200Document();
  document["chip"]["dram_bw_GBps"] = 0;
  EXPECT_TRUE(RejectedWith(document, "chip.dram_bw_GBps", "a number in 0.001..1e+07, got 0"));
}

TEST(SpecMalformed, NegativeNumber) {
  json document = H200Document();
  document["chip"]["boost_clock_MHz"] = -1980.5;
  EXPECT_TRUE(RejectedWith(document, "chip.boost_clock_MHz", "a number in 1..100000, got -1980.5"));
}

TEST(SpecMalformed, CarveoutsNotAscending) {
  json document = H200Document();
  document["sm"]["shared_memory_carveouts_KiB"] =
      json::array({0, 16, 8, 32, 64, 100, 132, 164, 196, 228});
  EXPECT_TRUE(RejectedWith(document, "sm.shared_memory_carveouts_KiB", "ascending"));
}

TEST(SpecMalformed, CarveoutsRepeatAValue) {
  json document = H200Document();
  document["sm"]["shared_memory_carveouts_KiB"] =
      json::array({0, 8, 8, 16, 32, 64, 100, 132, 164, 196, 228});
  EXPECT_TRUE(RejectedWith(document, "sm.shared_memory_carveouts_KiB", "ascending"));
}

TEST(SpecMalformed, CarveoutExceedsSmCapacity) {
  json document = H200Document();
  document["sm"]["shared_memory_carveouts_KiB"].push_back(256);
  EXPECT_TRUE(RejectedWith(document, "sm.shared_memory_carveouts_KiB", "within the SM"));
}

TEST(SpecMalformed, LargestCarveoutBelowSmCapacity) {
  json document = H200Document();
  json& carveouts = document["sm"]["shared_memory_carveouts_KiB"];
  ASSERT_EQ(carveouts.back(), 228);
  carveouts.erase(carveouts.size() - 1);
  EXPECT_TRUE(RejectedWith(document, "sm.shared_memory_carveouts_KiB", "largest carveout"));
}

TEST(SpecMalformed, EmptyCarveoutList) {
  json document = H200Document();
  document["sm"]["shared_memory_carveouts_KiB"] = json::array();
  EXPECT_TRUE(
      RejectedWith(document, "sm.shared_memory_carveouts_KiB", "an array of 1..64 integers"));
}

TEST(SpecMalformed, NegativeCarveoutElement) {
  json document = H200Document();
  document["sm"]["shared_memory_carveouts_KiB"][0] = -8;
  EXPECT_TRUE(
      RejectedWith(document, "sm.shared_memory_carveouts_KiB[0]", "an integer in 0..16384"));
}

TEST(SpecMalformed, UnknownSchemaVersion) {
  json document = H200Document();
  document["schema_version"] = 2;
  EXPECT_TRUE(RejectedWith(document, "schema_version", "1"));
  EXPECT_TRUE(RejectedWith(document, "schema_version", "schema_version 1"));
  EXPECT_TRUE(RejectedWith(document, "schema_version", "got 2"));
}

TEST(SpecMalformed, SchemaVersionAsString) {
  json document = H200Document();
  document["schema_version"] = "1";
  EXPECT_TRUE(RejectedWith(document, "schema_version", "an integer"));
}

TEST(SpecMalformed, MissingSchemaVersion) {
  json document = H200Document();
  document.erase("schema_version");
  EXPECT_TRUE(RejectedWith(document, "schema_version", "missing"));
}

TEST(SpecMalformed, UnknownFieldInSm) {
  json document = H200Document();
  document["sm"]["max_warps"] = 64;
  EXPECT_TRUE(RejectedWith(document, "sm.max_warps", "unknown field"));
}

TEST(SpecMalformed, UnknownTopLevelField) {
  json document = H200Document();
  document["vendor"] = "NVIDIA";
  EXPECT_TRUE(RejectedWith(document, "vendor", "unknown field"));
}

TEST(SpecMalformed, UnknownFieldInComputeCapability) {
  json document = H200Document();
  document["compute_capability"]["patch"] = 0;
  EXPECT_TRUE(RejectedWith(document, "compute_capability.patch", "unknown field"));
}

TEST(SpecMalformed, ValueWithoutSource) {
  json document = H200Document();
  ASSERT_EQ(document["sources"].erase("chip.l2_bytes"), 1u);
  EXPECT_TRUE(RejectedWith(document, "sources.chip.l2_bytes", "a source for every value"));
}

TEST(SpecMalformed, SourceNamesMissingReference) {
  json document = H200Document();
  document["sources"]["chip.l2_bytes"] = "no-such-reference";
  const std::string field = "sources.chip.l2_bytes";
  EXPECT_TRUE(RejectedWith(document, field, "no-such-reference"));
  // The error lists the references the file does have.
  for (const auto& reference : document["references"].items()) {
    SCOPED_TRACE(reference.key());
    EXPECT_TRUE(RejectedWith(document, field, reference.key()));
  }
}

TEST(SpecMalformed, SourceForNonExistentField) {
  json document = H200Document();
  document["sources"]["chip.l3_bytes"] = "card";
  EXPECT_TRUE(RejectedWith(document, "sources.chip.l3_bytes", "no field 'chip.l3_bytes'"));
}

TEST(SpecMalformed, EmptyReferenceText) {
  json document = H200Document();
  document["references"]["card"] = "";
  EXPECT_TRUE(RejectedWith(document, "references.card", "non-empty string"));
}

TEST(SpecMalformed, NullWhereOnlyNumbersAllowed) {
  json document = H200Document();
  document["peak_TFLOPS"]["fp32"] = nullptr;
  EXPECT_TRUE(RejectedWith(document, "peak_TFLOPS.fp32", "a number"));
}

TEST(SpecMalformed, NullAcceptedForTensorRate) {
  json document = H200Document();
  document["peak_TFLOPS"]["tf32_tensor_dense"] = nullptr;
  GpuSpec spec;
  ASSERT_NO_THROW(spec = parse_spec(document.dump(2), kBadOrigin));
  EXPECT_FALSE(spec.peak_TFLOPS.tf32_tensor_dense.has_value());
  ASSERT_TRUE(spec.peak_TFLOPS.fp16_tensor_dense.has_value());
  EXPECT_DOUBLE_EQ(*spec.peak_TFLOPS.fp16_tensor_dense, 989.4);
}

TEST(SpecMalformed, ZeroTensorRateIsNotNull) {
  json document = H200Document();
  document["peak_TFLOPS"]["fp8_tensor_dense"] = 0;
  EXPECT_TRUE(RejectedWith(document, "peak_TFLOPS.fp8_tensor_dense", "a number in 0.001..1e+06"));
}

TEST(SpecMalformed, ValidMeasuredBlockParses) {
  json document = H200Document();
  document["measured"] = {{"measurement_run", "h200-2025-01-01"}, {"ffma_TFLOPS", 60.25}};
  document["sources"]["measured.ffma_TFLOPS"] = "card";
  GpuSpec spec;
  ASSERT_NO_THROW(spec = parse_spec(document.dump(2), kBadOrigin));
  ASSERT_TRUE(spec.measured.has_value());
  EXPECT_EQ(spec.measured->measurement_run, "h200-2025-01-01");
  ASSERT_TRUE(spec.measured->ffma_TFLOPS.has_value());
  EXPECT_DOUBLE_EQ(*spec.measured->ffma_TFLOPS, 60.25);
  EXPECT_FALSE(spec.measured->dram_bw_GBps.has_value());
  EXPECT_FALSE(spec.measured->shared_memory_latency_cycles.has_value());
  ASSERT_EQ(spec.sources.count("measured.ffma_TFLOPS"), 1u);
  EXPECT_EQ(spec.sources.at("measured.ffma_TFLOPS"), document["references"]["card"]);
}

// The measured cluster residency: one source for the table, each pair once, and the waves of a
// cluster kernel without a runtime answer take it (predict_test).
TEST(SpecMeasured, ClusterResidencyTableParsesAndSetsTheWaves) {
  const GpuSpec& h200 = embedded_spec("h200-sxm");
  EXPECT_EQ(measured_max_active_clusters(h200, 4, 1), 30);
  EXPECT_EQ(measured_max_active_clusters(h200, 2, 3), 198);
  EXPECT_EQ(measured_max_active_clusters(h200, 4, 6), 0);  // not measured
  EXPECT_EQ(measured_max_active_clusters(embedded_spec("h100-sxm5"), 4, 1), 0);

  json document = H200Document();
  document["measured"] = {
      {"measurement_run", "run"},
      {"max_active_clusters", {{{"cluster", 4}, {"blocks_per_sm", 1}, {"clusters", 30}}}}};
  document["sources"]["measured.max_active_clusters"] = "card";
  ASSERT_NO_THROW(parse_spec(document.dump(2), kBadOrigin));
  json bad = document;
  bad["sources"].erase("measured.max_active_clusters");
  EXPECT_TRUE(RejectedWith(bad, "sources.measured.max_active_clusters", "a source"));
  bad = document;
  bad["measured"]["max_active_clusters"][0]["clusters"] = 34;  // 132 SMs / 4 = 33 at most
  EXPECT_TRUE(RejectedWith(bad, "measured.max_active_clusters[0].clusters", "1..33"));
  bad = document;
  bad["measured"]["max_active_clusters"].push_back(document["measured"]["max_active_clusters"][0]);
  EXPECT_TRUE(RejectedWith(bad, "measured.max_active_clusters[1].blocks_per_sm", "once"));
  bad = document;
  bad["measured"]["max_active_clusters"][0]["cluster"] = 1;
  EXPECT_TRUE(RejectedWith(bad, "measured.max_active_clusters[0].cluster", "2..16"));
}

// The microarchitecture block: per-architecture facts, each with a source; without a measured
// block its L2 bandwidth is the spec's L2 ceiling, and a spec without the block still predicts.
TEST(SpecMicroarchitecture, FactsParseWithTheirSourcesAndGiveTheL2Ceiling) {
  json document = H200Document();
  document["microarchitecture"] = {{"l2_bw_GBps", 5000}, {"l2_latency_cycles", 250}};
  for (auto it = document["sources"].begin(); it != document["sources"].end();) {
    it = it.key().rfind("microarchitecture.", 0) == 0 ? document["sources"].erase(it)
                                                      : std::next(it);
  }
  document["sources"]["microarchitecture.l2_bw_GBps"] = "card";
  document["sources"]["microarchitecture.l2_latency_cycles"] = "card";
  GpuSpec spec;
  ASSERT_NO_THROW(spec = parse_spec(document.dump(2), kBadOrigin));
  ASSERT_TRUE(spec.microarchitecture.l2_bw_GBps.has_value());
  EXPECT_DOUBLE_EQ(*spec.microarchitecture.l2_bw_GBps, 5000);
  EXPECT_FALSE(spec.microarchitecture.warp_own_stall_cycles.has_value());
  const Ceilings c = roofline_ceilings(spec);
  EXPECT_DOUBLE_EQ(c.l2_GBps.value(), 5000);
  EXPECT_EQ(c.l2_GBps.source(), CeilingSource::kSpec);
  const Latencies l = gpu_latencies(spec);
  EXPECT_DOUBLE_EQ(l.l2_cycles, 250);
  EXPECT_FALSE(l.l2_measured);
  EXPECT_FALSE(l.is_assumed(AssumedFact::kL2Latency));
  EXPECT_TRUE(l.is_assumed(AssumedFact::kDramLatency));
  EXPECT_TRUE(l.is_assumed(AssumedFact::kWarpOwnStall));
  EXPECT_DOUBLE_EQ(l.dram_cycles, kAssumedDramLatencyCycles);
}

TEST(SpecMicroarchitecture, BadFactsNameTheField) {
  json document = H200Document();
  document["microarchitecture"]["ffma_latency_cycles"] = 4;  // no source
  EXPECT_TRUE(RejectedWith(document, "sources.microarchitecture.ffma_latency_cycles", "a source"));
  document = H200Document();
  document["microarchitecture"]["warp_own_stall_cycles"] = -1;
  EXPECT_TRUE(
      RejectedWith(document, "microarchitecture.warp_own_stall_cycles", "a number in 0..64"));
  document = H200Document();
  document["microarchitecture"]["l2_bandwidth"] = 1;
  EXPECT_TRUE(RejectedWith(document, "microarchitecture.l2_bandwidth", "unknown field"));
  document = H200Document();
  document["microarchitecture"]["local_load_l1_miss_share"] = 1.5;  // a share: 0..1
  EXPECT_TRUE(
      RejectedWith(document, "microarchitecture.local_load_l1_miss_share", "a number in 0..1"));
}

// The L1 miss share of spill reloads: the H200's from Nsight Compute, read back; a spec without
// it takes the generic assumption, noted, and only for a kernel that spills.
TEST(SpecMicroarchitecture, LocalLoadMissShareOrItsAssumption) {
  const GpuSpec& h200 = embedded_spec("h200-sxm");
  ASSERT_TRUE(h200.microarchitecture.local_load_l1_miss_share.has_value());
  EXPECT_DOUBLE_EQ(*h200.microarchitecture.local_load_l1_miss_share, 0.111);
  const GpuSpec& v100 = embedded_spec("v100-sxm2-32gb");
  EXPECT_FALSE(v100.microarchitecture.local_load_l1_miss_share.has_value());
  EXPECT_GT(kAssumedLocalLoadL1MissShare, 0);
  EXPECT_LT(kAssumedLocalLoadL1MissShare, 1);
}

// microarchitecture.l2_read_share: the L2 read rate per SM against the SMs reading, ascending,
// one source for the table.
TEST(SpecMicroarchitecture, L2ReadShareTable) {
  json document = H200Document();
  document["microarchitecture"]["l2_read_share"] = {{{"sms", 1}, {"bytes_per_cycle_per_sm", 105}},
                                                    {{"sms", 8}, {"bytes_per_cycle_per_sm", 66.5}}};
  document["sources"]["microarchitecture.l2_read_share"] = "card";
  GpuSpec spec;
  ASSERT_NO_THROW(spec = parse_spec(document.dump(2), kBadOrigin));
  ASSERT_EQ(spec.microarchitecture.l2_read_share.size(), 2U);
  EXPECT_EQ(spec.microarchitecture.l2_read_share[1].sms, 8);
  EXPECT_DOUBLE_EQ(spec.microarchitecture.l2_read_share[1].bytes_per_cycle_per_sm, 66.5);
  json bad = document;
  bad["sources"].erase("microarchitecture.l2_read_share");
  EXPECT_TRUE(RejectedWith(bad, "sources.microarchitecture.l2_read_share", "a source"));
  bad = document;
  bad["microarchitecture"]["l2_read_share"][1]["sms"] = 1;  // not ascending
  EXPECT_TRUE(RejectedWith(bad, "microarchitecture.l2_read_share[1].sms", "2.."));
  bad = document;
  bad["microarchitecture"]["l2_read_share"][1]["sms"] = 500;  // more SMs than the GPU
  EXPECT_TRUE(RejectedWith(bad, "microarchitecture.l2_read_share[1].sms", "..132"));
  bad = document;
  bad["microarchitecture"]["l2_read_share"][0]["bytes_per_cycle_per_sm"] = 0;
  EXPECT_TRUE(RejectedWith(bad, "microarchitecture.l2_read_share[0].bytes_per_cycle_per_sm",
                           "bytes per cycle"));
  bad = document;
  bad["microarchitecture"]["l2_read_share"][0]["rate"] = 1;
  EXPECT_TRUE(RejectedWith(bad, "microarchitecture.l2_read_share[0].rate", "unknown field"));
  bad = document;
  bad["microarchitecture"]["l2_read_share"] = json::array();
  EXPECT_TRUE(RejectedWith(bad, "microarchitecture.l2_read_share", "non-empty"));
}

TEST(SpecMalformed, MeasuredValueWithoutSource) {
  json document = H200Document();
  document["measured"] = {{"measurement_run", "run"}, {"ffma_TFLOPS", 60.25}};
  EXPECT_TRUE(RejectedWith(document, "sources.measured.ffma_TFLOPS", "a source"));
}

TEST(SpecMalformed, MeasuredNegativeValue) {
  json document = H200Document();
  document["measured"] = {{"measurement_run", "run"}, {"ffma_TFLOPS", -3}};
  document["sources"]["measured.ffma_TFLOPS"] = "card";
  EXPECT_TRUE(RejectedWith(document, "measured.ffma_TFLOPS", "a number in 0.001..1e+06, got -3"));
}

TEST(SpecMalformed, MeasuredUnknownKey) {
  json document = H200Document();
  document["measured"] = {{"measurement_run", "run"}, {"ffma_GFLOPS", 60000}};
  EXPECT_TRUE(RejectedWith(document, "measured.ffma_GFLOPS", "unknown field"));
}

TEST(SpecMalformed, MeasuredWithoutRunName) {
  json document = H200Document();
  document["measured"] = {{"ffma_TFLOPS", 60.25}};
  document["sources"]["measured.ffma_TFLOPS"] = "card";
  EXPECT_TRUE(RejectedWith(document, "measured.measurement_run", "missing"));
}

TEST(SpecMalformed, OptinExceedsSharedMemoryPerSm) {
  json document = H200Document();
  document["sm"]["shared_memory_per_block_optin_bytes"] = 233472 + 1024;
  EXPECT_TRUE(RejectedWith(document, "sm.shared_memory_per_block_optin_bytes",
                           "at most shared_memory_per_sm_bytes"));
}

TEST(SpecMalformed, DefaultPerBlockExceedsOptin) {
  json document = H200Document();
  document["sm"]["shared_memory_per_block_default_bytes"] = 232448 + 1024;
  EXPECT_TRUE(RejectedWith(document, "sm.shared_memory_per_block_default_bytes",
                           "at most shared_memory_per_block_optin_bytes"));
}

TEST(SpecMalformed, MaxThreadsPerBlockExceedsMaxThreadsPerSm) {
  json document = H200Document();
  document["sm"]["max_threads_per_block"] = 4096;
  EXPECT_TRUE(RejectedWith(document, "sm.max_threads_per_block", "at most max_threads_per_sm"));
}

TEST(SpecMalformed, MaxThreadsPerSmNotAMultipleOfWarpSize) {
  json document = H200Document();
  document["sm"]["max_threads_per_sm"] = 2047;
  EXPECT_TRUE(RejectedWith(document, "sm.max_threads_per_sm", "a multiple of warp_size"));
}

TEST(SpecMalformed, EmptyId) {
  json document = H200Document();
  document["id"] = "";
  EXPECT_TRUE(RejectedWith(document, "id", "non-empty string"));
}

TEST(SpecMalformed, DirectoryIsNotASpecFile) {
  try {
    load_spec_file(kGpuDir);
    FAIL() << "expected SpecError";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.field(), "<document>");
    EXPECT_TRUE(Contains(error.expectation(), "it is a directory")) << error.what();
  }
}

TEST(SpecMalformed, UnreadableFile) {
  const fs::path path = kGpuDir / "this-file-does-not-exist.json";
  ASSERT_FALSE(fs::exists(path));
  try {
    load_spec_file(path);
    FAIL() << "load_spec_file accepted a missing file";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.file(), path.string());
    EXPECT_EQ(error.field(), "<document>");
    EXPECT_TRUE(Contains(error.expectation(), "readable")) << error.expectation();
    EXPECT_TRUE(Contains(error.what(), path.string())) << error.what();
  }
}

// ---------------------------------------------------------------------------------------
// 4. Looking GPUs up by id or path.

TEST(SpecLookup, UnknownIdListsEveryKnownId) {
  try {
    embedded_spec("nope");
    FAIL() << "embedded_spec accepted an unknown id";
  } catch (const UnknownGpuError& error) {
    const std::string message = error.what();
    EXPECT_TRUE(Contains(message, "nope")) << message;
    EXPECT_TRUE(Contains(message, "h200-sxm")) << message;
    EXPECT_TRUE(Contains(message, "v100-sxm2-32gb")) << message;
    for (const GpuSpec& spec : embedded_specs())
      EXPECT_TRUE(Contains(message, spec.id)) << spec.id << " missing from: " << message;
  }
  EXPECT_THROW(find_spec("nope"), UnknownGpuError);
}

TEST(SpecLookup, FindSpecById) {
  for (const GpuSpec& embedded : embedded_specs()) {
    SCOPED_TRACE(embedded.id);
    const GpuSpec found = find_spec(embedded.id);
    EXPECT_EQ(found.origin, embedded.origin);
    ExpectSameSpec(found, embedded);
  }
}

/// A file under the temp directory, removed when the test ends.
class TempSpecFile {
 public:
  TempSpecFile() {
    std::random_device random;
    path_ = fs::temp_directory_path() /
            ("roofcast-spec-test-" + std::to_string(random()) + "-my-gpu.json");
  }
  ~TempSpecFile() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  TempSpecFile(const TempSpecFile&) = delete;
  TempSpecFile& operator=(const TempSpecFile&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(SpecLookup, FindSpecLoadsAJsonPath) {
  json document = H200Document();
  document["id"] = "my-gpu";
  TempSpecFile file;
  {
    std::ofstream out(file.path(), std::ios::binary);
    ASSERT_TRUE(out);
    out << document.dump(2);
  }
  GpuSpec spec;
  ASSERT_NO_THROW(spec = find_spec(file.path().string()));
  EXPECT_EQ(spec.id, "my-gpu");
  EXPECT_EQ(spec.origin, file.path().string());
  EXPECT_EQ(spec.chip.sm_count, 132);
  EXPECT_THROW(embedded_spec("my-gpu"), UnknownGpuError);
}

TEST(SpecLookup, FindSpecWithMissingJsonPathThrowsSpecError) {
  TempSpecFile file;  // never written
  ASSERT_FALSE(fs::exists(file.path()));
  try {
    find_spec(file.path().string());
    FAIL() << "find_spec accepted a missing file";
  } catch (const SpecError& error) {
    EXPECT_EQ(error.file(), file.path().string());
    EXPECT_EQ(error.field(), "<document>");
  }
}

TEST(SpecDatabase, EveryEmbeddedFileIsNamedForItsId) {
  // embedded_spec(id) parses data/gpus/<id>.json alone: the name must say the id.
  for (const GpuSpec& spec : embedded_specs()) {
    EXPECT_EQ(spec.origin, "embedded:" + spec.id + ".json");
    EXPECT_EQ(&embedded_spec(spec.id), &embedded_spec(spec.id)) << "parsed once";
    EXPECT_EQ(embedded_spec(spec.id).sm, spec.sm);
  }
}

TEST(SpecMalformed, HugeIntegersAreNotTruncated) {
  json document = H200Document();
  document["compute_capability"]["major"] = 4294967296LL + 9;
  EXPECT_TRUE(RejectedWith(document, "compute_capability.major", "an integer in 1..99"));
  document = H200Document();
  document["sm"]["shared_memory_carveouts_KiB"] =
      json::array({0, 8, 16, 32, 64, 100, 132, 164, 196, 4294967296LL + 200, 228});
  EXPECT_TRUE(
      RejectedWith(document, "sm.shared_memory_carveouts_KiB[9]", "an integer in 0..16384"));
}

}  // namespace
}  // namespace roofcast
