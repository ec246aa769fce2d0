#include "roofcast/calibration.hpp"

#include <vector>

#include <nlohmann/json.hpp>

#include "roofcast/json_input.hpp"

#include "embedded_files.hpp"
#include "roofcast/spec.hpp"

namespace roofcast {
namespace {

using nlohmann::ordered_json;

const ordered_json& field(const ordered_json& object, const std::string& name,
                          const std::string& origin, const std::string& path) {
  const auto found = object.find(name);
  if (found == object.end()) throw SpecError(origin, path + name, "a value (it is missing)");
  return *found;
}

std::string text_field(const ordered_json& object, const std::string& name,
                       const std::string& origin, const std::string& path = "") {
  const ordered_json& value = field(object, name, origin, path);
  if (!value.is_string())
    throw SpecError(origin, path + name, "a string, got " + json_input::describe(value));
  return value.get<std::string>();
}

double number_field(const ordered_json& object, const std::string& name, const std::string& origin,
                    const std::string& path, bool allow_zero) {
  const ordered_json& value = field(object, name, origin, path);
  if (!value.is_number())
    throw SpecError(origin, path + name, "a number, got " + json_input::describe(value));
  const double number = value.get<double>();
  if (number < 0 || (!allow_zero && number == 0)) {
    throw SpecError(origin, path + name,
                    std::string(allow_zero ? "a number >= 0" : "a positive number") + ", got " +
                        json_input::describe(value));
  }
  return number;
}

template <class Names>
void reject_unknown(const ordered_json& object, const Names& known, const std::string& origin,
                    const std::string& path) {
  for (const auto& [key, value] : object.items()) {
    bool found = false;
    for (const auto& name : known) found = found || key == name;
    if (!found) throw SpecError(origin, path + key, "no such field (unknown field)");
  }
}

}  // namespace

StoredCalibration parse_calibration(std::string_view json_text, std::string_view origin_view) {
  const std::string origin(origin_view);
  ordered_json document;
  try {
    document = json_input::parse_strict_ordered(json_text);
  } catch (const json_input::StrictJsonError& error) {
    throw SpecError(origin, error.field(), error.expectation());
  }
  if (!document.is_object()) throw SpecError(origin, "<document>", "a JSON object");
  const ordered_json& version = field(document, "schema_version", origin, "");
  if (!version.is_number_integer() || version.get<int>() != kCalibrationSchemaVersion) {
    throw SpecError(origin, "schema_version",
                    "schema_version " + std::to_string(kCalibrationSchemaVersion) + ", got " +
                        json_input::describe(version));
  }
  reject_unknown(document,
                 std::initializer_list<const char*>{
                     "schema_version", "gpu_id", "measurement", "measurement_revision",
                     "training_split", "training_cases", "held_out_cases", "training_mape_percent",
                     "held_out_mape_percent", "parameters"},
                 origin, "");
  StoredCalibration c;
  c.gpu_id = text_field(document, "gpu_id", origin);
  c.measurement = text_field(document, "measurement", origin);
  c.measurement_revision = text_field(document, "measurement_revision", origin);
  c.training_split = text_field(document, "training_split", origin);
  c.training_cases = static_cast<int>(number_field(document, "training_cases", origin, "", false));
  c.held_out_cases = static_cast<int>(number_field(document, "held_out_cases", origin, "", true));
  c.training_mape_percent = number_field(document, "training_mape_percent", origin, "", true);
  c.held_out_mape_percent = number_field(document, "held_out_mape_percent", origin, "", true);
  const ordered_json& p = field(document, "parameters", origin, "");
  if (!p.is_object()) throw SpecError(origin, "parameters", "an object");
  const std::string at = "parameters.";
  std::array<std::string_view, kCalibrationParameters.size()> names;
  for (std::size_t i = 0; i < names.size(); ++i) names[i] = kCalibrationParameters[i].name;
  reject_unknown(p, names, origin, at);
  for (const CalibrationParameter& parameter : kCalibrationParameters) {
    c.parameters.*parameter.field =
        number_field(p, std::string(parameter.name), origin, at, parameter.zero_allowed);
  }
  return c;
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
  return j.dump(2) + "\n";
}

std::optional<StoredCalibration> embedded_calibration(std::string_view gpu_id) {
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
    if (c.gpu_id == gpu_id) return c;
  }
  return std::nullopt;
}

}  // namespace roofcast
