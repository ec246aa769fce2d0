#include "roofcast/calibration.hpp"

#include <cstdlib>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofcast/json_input.hpp"
#include "roofcast/registers.hpp"

#include "embedded_files.hpp"
#include "roofcast/spec.hpp"

namespace roofcast {
namespace {

using json_input::ObjectReader;
using nlohmann::ordered_json;

StoredCalibration read_calibration(const nlohmann::json& document) {
  json_input::ReaderOptions options;
  options.unknown_field = "no such field in schema_version " +
                          std::to_string(kCalibrationSchemaVersion) + " (unknown field)";
  ObjectReader root(document, "", options);
  root.integer_in("schema_version", kCalibrationSchemaVersion, kCalibrationSchemaVersion,
                  "schema_version " + std::to_string(kCalibrationSchemaVersion));
  StoredCalibration c;
  c.gpu_id = root.string("gpu_id");
  c.measurement = root.string("measurement");
  c.measurement_revision = root.string("measurement_revision");
  c.training_split = root.string("training_split");
  c.training_cases = root.int32_in("training_cases", 1, 1 << 30);
  c.held_out_cases = root.int32_in("held_out_cases", 0, 1 << 30);
  c.training_mape_percent = root.number_in("training_mape_percent", 0, 1e6);
  c.held_out_mape_percent = root.number_in("held_out_mape_percent", 0, 1e6);
  ObjectReader parameters = root.object("parameters");
  for (const CalibrationParameter& parameter : kCalibrationParameters) {
    // Scales (dimensionless) and costs (seconds): positive, or zero where the parameter
    // allows an off term.
    c.parameters.*parameter.field =
        parameters.number_in(parameter.name, parameter.zero_allowed ? 0.0 : 1e-12, 1e6);
  }
  parameters.reject_unknown_keys();
  // Absent: the register estimate is the unfitted hand-written count (RegisterModel).
  if (std::optional<ObjectReader> registers = root.optional_object("register_model")) {
    RegisterModel& m = c.parameters.registers;
    m.fitted = true;
    m.intercept = registers->number_in("intercept", -1024, 1024);
    ObjectReader coefficients = registers->object("coefficients");
    for (int i = 0; i < kRegisterFeatureCount; ++i) {
      m.coefficients[static_cast<std::size_t>(i)] =
          coefficients.number_in(to_string(static_cast<RegisterFeature>(i)), -1024, 1024);
    }
    coefficients.reject_unknown_keys();
    m.spill_margin = registers->number_in("spill_margin", 0, 255, "registers");
    // Absent: no spill-words law (the overflow is the spill).
    if (std::optional<ObjectReader> words = registers->optional_object("spill_words")) {
      m.spill_words_scale = words->number_in("scale", 1e-6, 1e6);
      m.spill_words_accumulator_exponent = words->number_in("accumulator_exponent", -4, 4);
      m.spill_words_k_tile_exponent = words->number_in("k_tile_exponent", -4, 4);
      words->reject_unknown_keys();
    }
    registers->reject_unknown_keys();
  }
  root.reject_unknown_keys();
  return c;
}

}  // namespace

StoredCalibration parse_calibration(std::string_view json_text, std::string_view origin_view) {
  const std::string origin(origin_view);
  try {
    return read_calibration(json_input::parse_strict(json_text));
  } catch (const json_input::StrictJsonError& error) {
    throw SpecError(origin, error.field(), error.expectation());
  }
}

std::string calibration_json(const StoredCalibration& c) {
  ordered_json j;
  j["schema_version"] = kCalibrationSchemaVersion;
  j["gpu_id"] = c.gpu_id;
  j["measurement"] = c.measurement;
  j["measurement_revision"] = c.measurement_revision;
  j["training_split"] = c.training_split;
  j["training_cases"] = c.training_cases;
  j["held_out_cases"] = c.held_out_cases;
  j["training_mape_percent"] = c.training_mape_percent;
  j["held_out_mape_percent"] = c.held_out_mape_percent;
  ordered_json parameters = ordered_json::object();
  for (const CalibrationParameter& parameter : kCalibrationParameters) {
    parameters[std::string(parameter.name)] = c.parameters.*parameter.field;
  }
  j["parameters"] = parameters;
  if (c.parameters.registers.fitted) {
    const RegisterModel& m = c.parameters.registers;
    ordered_json coefficients = ordered_json::object();
    for (int i = 0; i < kRegisterFeatureCount; ++i) {
      coefficients[std::string(to_string(static_cast<RegisterFeature>(i)))] =
          m.coefficients[static_cast<std::size_t>(i)];
    }
    j["register_model"] = {{"intercept", m.intercept},
                           {"coefficients", coefficients},
                           {"spill_margin", m.spill_margin}};
    if (m.spill_words_scale > 0) {
      j["register_model"]["spill_words"] = {
          {"scale", m.spill_words_scale},
          {"accumulator_exponent", m.spill_words_accumulator_exponent},
          {"k_tile_exponent", m.spill_words_k_tile_exponent}};
    }
  }
  return j.dump(2) + "\n";
}

const StoredCalibration* embedded_calibration(std::string_view gpu_id) {
  // Parsed once (thread-safe static initialisation): a prediction asks on every call.
  static const std::vector<StoredCalibration> calibrations = [] {
    std::vector<StoredCalibration> out;
    for (std::size_t i = 0; i < detail::kEmbeddedCalibrationFileCount; ++i) {
      const detail::EmbeddedFile& file = detail::kEmbeddedCalibrationFiles[i];
      out.push_back(parse_calibration(std::string_view(file.bytes, file.size),
                                      std::string("data/calibration/") + file.name));
    }
    return out;
  }();
  for (const StoredCalibration& c : calibrations) {
    if (c.gpu_id == gpu_id) return &c;
  }
  return nullptr;
}

const StoredCalibration* calibration_for_gpu(const GpuSpec& gpu) {
  if (const StoredCalibration* own = embedded_calibration(gpu.id)) return own;
  const int cc = gpu.compute_capability.number();
  const StoredCalibration* nearest = nullptr;
  int nearest_distance = 0;
  for (const GpuSpec& other : embedded_specs()) {
    const StoredCalibration* stored = embedded_calibration(other.id);
    if (stored == nullptr) continue;
    const int distance = std::abs(other.compute_capability.number() - cc);
    if (nearest == nullptr || distance < nearest_distance) {
      nearest = stored;
      nearest_distance = distance;
    }
  }
  return nearest;
}

}  // namespace roofcast
