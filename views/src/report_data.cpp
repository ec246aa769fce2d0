// Loaders of the report's hand-maintained inputs: published ladders (data/reference/*.json)
// and per-GPU rung notes (data/notes/<gpu>.json). Strict: a missing or mistyped field, an
// unknown key or a wrong schema version is a ReportDataError naming the file and the field.
#include <set>

#include <nlohmann/json.hpp>

#include "roofcast/gemm.hpp"
#include "roofcast/json_input.hpp"
#include "roofcast/views/report_data.hpp"

namespace roofcast::views {

namespace {

using nlohmann::json;

constexpr int kReportDataSchemaVersion = 1;

[[noreturn]] void fail(const std::string& origin, const std::string& field,
                       const std::string& expectation) {
  throw ReportDataError(origin + ": field '" + field + "': expected " + expectation);
}

json parse_json(const std::string& text, const std::string& origin) {
  try {
    return json_input::parse_strict(text);
  } catch (const json_input::StrictJsonError& error) {
    throw ReportDataError(origin + ": not valid JSON (" + error.what() + ")");
  }
}

void check_keys(const json& object, const std::string& origin, const std::string& where,
                const std::set<std::string>& allowed) {
  if (!object.is_object()) fail(origin, where, "an object");
  for (const auto& [key, value] : object.items()) {
    if (!allowed.count(key))
      fail(origin, where + key, "no such key (known: see the file's schema)");
  }
}

const json& member(const json& object, const std::string& key, const std::string& origin,
                   const std::string& where) {
  if (!object.contains(key)) fail(origin, where + key, "a value (it is missing)");
  return object.at(key);
}

std::string text_of(const json& object, const std::string& key, const std::string& origin,
                    const std::string& where) {
  const json& value = member(object, key, origin, where);
  if (!value.is_string() || value.get<std::string>().empty()) {
    fail(origin, where + key, "a non-empty string");
  }
  if (const auto problem = json_input::text_problem(value.get_ref<const std::string&>())) {
    fail(origin, where + key, "printable text, got " + *problem);
  }
  return value.get<std::string>();
}

/// A number, null (empty), or absent when `optional_key`.
std::optional<double> number_or_null(const json& object, const std::string& key,
                                     const std::string& origin, const std::string& where,
                                     bool optional_key) {
  if (!object.contains(key)) {
    if (optional_key) return std::nullopt;
    fail(origin, where + key, "a number or null (it is missing)");
  }
  const json& value = object.at(key);
  if (value.is_null()) return std::nullopt;
  if (!value.is_number()) fail(origin, where + key, "a number or null");
  const double number = value.get<double>();
  if (!(number >= 0 && number <= 1e9)) fail(origin, where + key, "a number in 0..1e9");
  return number;
}

void check_schema(const json& doc, const std::string& origin) {
  const json& version = member(doc, "schema_version", origin, "");
  if (!version.is_number_integer() || version.get<int>() != kReportDataSchemaVersion) {
    fail(origin, "schema_version", std::to_string(kReportDataSchemaVersion));
  }
}

}  // namespace

std::vector<PublishedLadder> parse_published_ladders(const std::string& json_text,
                                                     const std::string& origin) {
  const json doc = parse_json(json_text, origin);
  check_keys(doc, origin, "", {"schema_version", "about", "ladders"});
  check_schema(doc, origin);
  text_of(doc, "about", origin, "");
  const json& ladders = member(doc, "ladders", origin, "");
  if (!ladders.is_array() || ladders.empty()) fail(origin, "ladders", "a non-empty array");
  std::vector<PublishedLadder> out;
  for (std::size_t i = 0; i < ladders.size(); ++i) {
    const std::string where = "ladders[" + std::to_string(i) + "].";
    const json& l = ladders[i];
    check_keys(l, origin, where,
               {"id", "title", "author", "url", "gpu", "problem", "baseline", "baseline_gflops",
                "fp32_peak_TFLOPS", "fp32_peak_source", "steps", "note"});
    PublishedLadder ladder;
    ladder.file = origin;
    ladder.id = text_of(l, "id", origin, where);
    ladder.title = text_of(l, "title", origin, where);
    ladder.author = text_of(l, "author", origin, where);
    ladder.url = text_of(l, "url", origin, where);
    ladder.gpu = text_of(l, "gpu", origin, where);
    ladder.problem = text_of(l, "problem", origin, where);
    ladder.baseline = text_of(l, "baseline", origin, where);
    ladder.note = text_of(l, "note", origin, where);
    ladder.baseline_gflops = number_or_null(l, "baseline_gflops", origin, where, false);
    ladder.fp32_peak_TFLOPS = number_or_null(l, "fp32_peak_TFLOPS", origin, where, false);
    if (ladder.fp32_peak_TFLOPS) {
      if (*ladder.fp32_peak_TFLOPS <= 0) fail(origin, where + "fp32_peak_TFLOPS", "a number > 0");
      ladder.fp32_peak_source = text_of(l, "fp32_peak_source", origin, where);
    }
    const json& steps = member(l, "steps", origin, where);
    if (!steps.is_array() || steps.empty()) fail(origin, where + "steps", "a non-empty array");
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const std::string at = where + "steps[" + std::to_string(s) + "].";
      const json& st = steps[s];
      check_keys(st, origin, at,
                 {"step", "maps_to_rung", "gflops", "pct_of_cublas", "pct_of_cublas_min",
                  "pct_of_cublas_max"});
      PublishedStep step;
      step.step = text_of(st, "step", origin, at);
      const json& rung = member(st, "maps_to_rung", origin, at);
      if (!rung.is_null()) {
        if (!rung.is_number_integer() || rung.get<int>() < 1 ||
            rung.get<int>() > gemm::kRungCount) {
          fail(origin, at + "maps_to_rung",
               "null or a rung number 1.." + std::to_string(gemm::kRungCount));
        }
        step.maps_to_rung = rung.get<int>();
      }
      step.gflops = number_or_null(st, "gflops", origin, at, false);
      step.pct_of_cublas = number_or_null(st, "pct_of_cublas", origin, at, false);
      step.pct_of_cublas_min = number_or_null(st, "pct_of_cublas_min", origin, at, true);
      step.pct_of_cublas_max = number_or_null(st, "pct_of_cublas_max", origin, at, true);
      if (step.pct_of_cublas_min.has_value() != step.pct_of_cublas_max.has_value() ||
          (step.pct_of_cublas_min && *step.pct_of_cublas_min > *step.pct_of_cublas_max)) {
        fail(origin, at + "pct_of_cublas_min", "both range ends, min <= max");
      }
      if (!step.gflops && !step.pct_of_cublas && !step.pct_of_cublas_min) {
        fail(origin, at + "gflops", "a figure: gflops, pct_of_cublas or a pct range");
      }
      ladder.steps.push_back(step);
    }
    for (const PublishedLadder& earlier : out) {
      if (earlier.id == ladder.id)
        fail(origin, where + "id", "a unique id, '" + ladder.id + "' repeats");
    }
    out.push_back(std::move(ladder));
  }
  return out;
}

RungNotes parse_rung_notes(const std::string& json_text, const std::string& origin,
                           const std::string& gpu_id) {
  const json doc = parse_json(json_text, origin);
  check_keys(doc, origin, "",
             {"schema_version", "gpu", "measurement_revision", "about", "general", "rungs"});
  check_schema(doc, origin);
  if (text_of(doc, "gpu", origin, "") != gpu_id) fail(origin, "gpu", "'" + gpu_id + "'");
  text_of(doc, "about", origin, "");
  RungNotes notes;
  notes.file = origin;
  notes.measurement_revision = text_of(doc, "measurement_revision", origin, "");
  if (doc.contains("general")) notes.general = text_of(doc, "general", origin, "");
  const json& rungs = member(doc, "rungs", origin, "");
  if (!rungs.is_array()) fail(origin, "rungs", "an array");
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    const std::string where = "rungs[" + std::to_string(i) + "].";
    check_keys(rungs[i], origin, where, {"rung", "note"});
    const json& rung = member(rungs[i], "rung", origin, where);
    if (!rung.is_number_integer() || rung.get<int>() < 1 || rung.get<int>() > gemm::kRungCount) {
      fail(origin, where + "rung", "a rung number 1.." + std::to_string(gemm::kRungCount));
    }
    if (notes.rungs.count(rung.get<int>())) fail(origin, where + "rung", "one note per rung");
    notes.rungs[rung.get<int>()] = text_of(rungs[i], "note", origin, where);
  }
  return notes;
}

}  // namespace roofcast::views
