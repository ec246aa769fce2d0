// Committed calibration files: parse, write, round trip, and errors that name the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "roofcast/calibration.hpp"
#include "roofcast/spec.hpp"

namespace roofcast {
namespace {

StoredCalibration sample() {
  StoredCalibration c;
  c.gpu_id = "h200-sxm";
  c.measurement = "data/measurements/h200-sxm/sgemm-ladder.json";
  c.measurement_revision = "abc1234";
  c.training_split = "square-pow2";
  c.training_cases = 115;
  c.held_out_cases = 288;
  c.training_mape_percent = 9.5;
  c.held_out_mape_percent = 12.25;
  c.parameters.issue_scale = 1.2801661052235023;
  c.parameters.shared_memory_scale = 0.1 + 0.2;  // not exactly representable in decimal
  c.parameters.latency_scale = 1.25;
  c.parameters.launch_overhead_s = 1.0891751330530622e-05;
  return c;
}

/// Whether parsing `doc` as "bad.json" throws a SpecError naming that file and `field`.
bool rejected(const nlohmann::json& doc, const std::string& field) {
  try {
    parse_calibration(doc.dump(), "bad.json");
  } catch (const SpecError& error) {
    return error.file() == "bad.json" && error.field() == field;
  }
  return false;
}

TEST(Calibration, RoundTripsExactly) {
  const StoredCalibration c = sample();
  const StoredCalibration back = parse_calibration(calibration_json(c), "x.json");
  EXPECT_EQ(back.gpu_id, c.gpu_id);
  EXPECT_EQ(back.measurement_revision, c.measurement_revision);
  EXPECT_EQ(back.training_cases, 115);
  EXPECT_EQ(back.parameters, c.parameters);  // bit-exact doubles
}

TEST(Calibration, ErrorsNameTheFileAndField) {
  nlohmann::json j = nlohmann::json::parse(calibration_json(sample()));
  nlohmann::json d = j;
  d["schema_version"] = 2;
  EXPECT_TRUE(rejected(d, "schema_version"));
  d = j;
  d.erase("gpu_id");
  EXPECT_TRUE(rejected(d, "gpu_id"));
  d = j;
  d["parameters"]["issue_scale"] = -1;
  EXPECT_TRUE(rejected(d, "parameters.issue_scale"));
  d = j;
  d["parameters"]["latency_scale"] = 0;
  EXPECT_TRUE(rejected(d, "parameters.latency_scale"));
  d = j;
  d["parameters"]["issue_scale_typo"] = 1;
  EXPECT_TRUE(rejected(d, "parameters.issue_scale_typo"));
  d = j;
  d["training_split"] = 3;
  EXPECT_TRUE(rejected(d, "training_split"));
  EXPECT_THROW(parse_calibration("{", "bad.json"), SpecError);
}

// The optional register model: written only when fitted, read back bit-exact; absent, the
// calibration's registers are the unfitted count; its fields are checked like the rest.
TEST(Calibration, RegisterModelRoundTripsAndIsOptional) {
  StoredCalibration c = sample();
  EXPECT_EQ(calibration_json(c).find("register_model"), std::string::npos);
  EXPECT_FALSE(parse_calibration(calibration_json(c), "x.json").parameters.registers.fitted);
  c.parameters.registers.fitted = true;
  c.parameters.registers.intercept = 37.3 + 1e-13;
  for (std::size_t i = 0; i < c.parameters.registers.coefficients.size(); ++i) {
    c.parameters.registers.coefficients[i] = 0.1 * static_cast<double>(i) - 0.35;
  }
  c.parameters.registers.spill_margin = 19;
  const StoredCalibration back = parse_calibration(calibration_json(c), "x.json");
  EXPECT_EQ(back.parameters.registers, c.parameters.registers);
  nlohmann::json j = nlohmann::json::parse(calibration_json(c));
  nlohmann::json d = j;
  d["register_model"]["coefficients"].erase("accumulators");
  EXPECT_TRUE(rejected(d, "register_model.coefficients.accumulators"));
  d = j;
  d["register_model"]["spill_margin"] = -1;
  EXPECT_TRUE(rejected(d, "register_model.spill_margin"));
  d = j;
  d["register_model"]["slope"] = 1;
  EXPECT_TRUE(rejected(d, "register_model.slope"));
  EXPECT_EQ(j["register_model"].count("spill_words"), 0U);  // unfitted law: not written

  c.parameters.registers.spill_words_scale = 2.17;
  c.parameters.registers.spill_words_accumulator_exponent = 0.578 + 1e-14;
  c.parameters.registers.spill_words_k_tile_exponent = 0.593;
  EXPECT_EQ(parse_calibration(calibration_json(c), "x.json").parameters.registers,
            c.parameters.registers);
  j = nlohmann::json::parse(calibration_json(c));
  d = j;
  d["register_model"]["spill_words"]["scale"] = 0;
  EXPECT_TRUE(rejected(d, "register_model.spill_words.scale"));
  d = j;
  d["register_model"]["spill_words"].erase("k_tile_exponent");
  EXPECT_TRUE(rejected(d, "register_model.spill_words.k_tile_exponent"));
  d = j;
  d["register_model"]["spill_words"]["offset"] = 1;
  EXPECT_TRUE(rejected(d, "register_model.spill_words.offset"));
}

TEST(Calibration, EmbeddedOnlyForMeasuredGpus) {
  EXPECT_NE(embedded_calibration("h200-sxm"), nullptr);
  EXPECT_EQ(embedded_calibration("v100-sxm2-32gb"), nullptr);
  EXPECT_EQ(embedded_calibration("no-such-gpu"), nullptr);
}

TEST(Calibration, AnUnmeasuredGpuTakesTheNearestMeasuredOne) {
  const StoredCalibration* own = calibration_for_gpu(embedded_spec("h200-sxm"));
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own, embedded_calibration("h200-sxm"));
  // sm_80 and a spec file of a GPU no one measured (its id is not in the database): the nearest
  // measured GPU in compute capability, the only calibrated one today.
  EXPECT_EQ(calibration_for_gpu(embedded_spec("a100-sxm4-80gb")), own);
  GpuSpec custom = embedded_spec("rtx-a6000");
  custom.id = "someones-own-gpu";
  EXPECT_EQ(calibration_for_gpu(custom), own);
  EXPECT_EQ(calibration_for_gpu(custom)->gpu_id, "h200-sxm");
}

}  // namespace
}  // namespace roofcast
