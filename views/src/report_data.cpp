// Loaders of the report's hand-maintained inputs: published ladders (data/reference/*.json)
// and per-GPU rung notes (data/notes/<gpu>.json). Strict: a missing or mistyped field, an
// unknown key or a wrong schema version is a ReportDataError naming the file and the field.
#include <optional>

#include <nlohmann/json.hpp>

#include "roofcast/gemm.hpp"
#include "roofcast/json_input.hpp"
#include "roofcast/kernels/registry.hpp"
#include "roofcast/spec.hpp"
#include "roofcast/views/report_data.hpp"

namespace roofcast::views {

namespace {

using nlohmann::json;

constexpr int kReportDataSchemaVersion = 1;

using json_input::ObjectReader;

json parse_json(const std::string& text, const std::string& origin) {
  try {
    return json_input::parse_strict(text);
  } catch (const json_input::StrictJsonError& error) {
    throw ReportDataError(origin + ": not valid JSON (" + error.what() + ")");
  }
}

/// The error of a strict-reader failure in `origin`: "FILE: field 'F': expected E".
ReportDataError report_error(const std::string& origin, const json_input::StrictJsonError& error) {
  return ReportDataError(origin + ": field '" + error.field() + "': expected " +
                         error.expectation());
}

json_input::ReaderOptions report_data_options() {
  json_input::ReaderOptions options;
  options.unknown_field = "no such field in schema_version " +
                          std::to_string(kReportDataSchemaVersion) +
                          " (unknown field; see the file's schema)";
  return options;
}

void read_schema_version(ObjectReader& doc) {
  doc.integer_in("schema_version", kReportDataSchemaVersion, kReportDataSchemaVersion,
                 std::to_string(kReportDataSchemaVersion));
}

/// A rung number 1..kRungCount, or null when `null_allowed`.
std::optional<int> rung_number(ObjectReader& object, std::string_view key, bool null_allowed) {
  if (null_allowed && object.raw(key).is_null()) return std::nullopt;
  return object.int32_in(key, 1, gemm::kRungCount);
}

std::vector<PublishedLadder> read_published_ladders(const json& document,
                                                    const std::string& origin) {
  const json_input::ReaderOptions options = report_data_options();
  ObjectReader doc(document, "", options);
  read_schema_version(doc);
  doc.string("about");
  const json& ladders = doc.non_empty_array("ladders");
  doc.reject_unknown_keys();
  std::vector<PublishedLadder> out;
  for (std::size_t i = 0; i < ladders.size(); ++i) {
    ObjectReader l(ladders[i], "ladders[" + std::to_string(i) + "]", options);
    PublishedLadder ladder;
    ladder.file = origin;
    ladder.id = l.string("id");
    ladder.title = l.string("title");
    ladder.author = l.string("author");
    ladder.url = l.string("url");
    ladder.gpu = l.string("gpu");
    ladder.gpu_spec = l.optional_string("gpu_spec");
    if (ladder.gpu_spec) {
      if (const auto problem = gpu_id_problem(*ladder.gpu_spec))
        l.fail(l.where("gpu_spec"), *problem);
    }
    ladder.problem = l.string("problem");
    if (l.has("shape")) {
      ObjectReader shape = l.object("shape");
      ladder.shape = gemm::Problem{shape.integer_in("m", 1, gemm::kMaxExtent),
                                   shape.integer_in("n", 1, gemm::kMaxExtent),
                                   shape.integer_in("k", 1, gemm::kMaxExtent)};
      shape.reject_unknown_keys();
    }
    if (ladder.gpu_spec.has_value() != ladder.shape.has_value()) {
      l.fail(l.where(ladder.gpu_spec ? "shape" : "gpu_spec"), "gpu_spec and shape together");
    }
    ladder.baseline = l.string("baseline");
    ladder.note = l.string("note");
    ladder.baseline_gflops = l.number_in_or_null("baseline_gflops", 0, 1e9);
    ladder.fp32_peak_TFLOPS = l.number_in_or_null("fp32_peak_TFLOPS", 1e-3, 1e9);
    if (ladder.fp32_peak_TFLOPS) ladder.fp32_peak_source = l.string("fp32_peak_source");
    const json& steps = l.non_empty_array("steps");
    l.reject_unknown_keys();
    for (std::size_t s = 0; s < steps.size(); ++s) {
      ObjectReader st(steps[s], l.where("steps") + "[" + std::to_string(s) + "]", options);
      PublishedStep step;
      step.step = st.string("step");
      step.maps_to_rung = rung_number(st, "maps_to_rung", true);
      if (const std::optional<std::string> id = st.optional_string("kernel")) {
        std::string problem;
        step.kernel = kernels::parse_kernel_id(*id, &problem);
        if (!step.kernel) {
          st.fail(st.where("kernel"), "a roofcast kernel id (" + problem + ")", st.raw("kernel"));
        }
        if (step.kernel->rung != step.maps_to_rung) {
          st.fail(st.where("kernel"), "a config of the step's maps_to_rung");
        }
        step.kernel_note = st.string("kernel_note");
      }
      step.gflops = st.number_in_or_null("gflops", 0, 1e9);
      step.pct_of_cublas = st.number_in_or_null("pct_of_cublas", 0, 1e9);
      // The range is optional: both ends or neither.
      st.consume("pct_of_cublas_min");
      st.consume("pct_of_cublas_max");
      if (st.has("pct_of_cublas_min")) {
        step.pct_of_cublas_min = st.number_in_or_null("pct_of_cublas_min", 0, 1e9);
      }
      if (st.has("pct_of_cublas_max")) {
        step.pct_of_cublas_max = st.number_in_or_null("pct_of_cublas_max", 0, 1e9);
      }
      st.reject_unknown_keys();
      if (step.pct_of_cublas_min.has_value() != step.pct_of_cublas_max.has_value() ||
          (step.pct_of_cublas_min && *step.pct_of_cublas_min > *step.pct_of_cublas_max)) {
        st.fail(st.where("pct_of_cublas_min"), "both range ends, min <= max");
      }
      if (!step.gflops && !step.pct_of_cublas && !step.pct_of_cublas_min) {
        st.fail(st.where("gflops"), "a figure: gflops, pct_of_cublas or a pct range");
      }
      ladder.steps.push_back(step);
    }
    for (const PublishedLadder& earlier : out) {
      if (earlier.id == ladder.id) {
        l.fail(l.where("id"),
               "a unique id, " + json_input::quote_for_message(ladder.id) + " repeats");
      }
    }
    out.push_back(std::move(ladder));
  }
  return out;
}

RungNotes read_rung_notes(const json& document, const std::string& origin,
                          const std::string& gpu_id) {
  const json_input::ReaderOptions options = report_data_options();
  ObjectReader doc(document, "", options);
  read_schema_version(doc);
  if (doc.string("gpu") != gpu_id) doc.fail("gpu", json_input::quote_for_message(gpu_id));
  doc.string("about");
  RungNotes notes;
  notes.file = origin;
  notes.measurement_revision = doc.string("measurement_revision");
  if (const auto general = doc.optional_string("general")) notes.general = *general;
  const json& rungs = doc.array("rungs");
  doc.reject_unknown_keys();
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    ObjectReader entry(rungs[i], "rungs[" + std::to_string(i) + "]", options);
    const int rung = *rung_number(entry, "rung", false);
    if (notes.rungs.count(rung)) entry.fail(entry.where("rung"), "one note per rung");
    notes.rungs[rung] = entry.string("note");
    entry.reject_unknown_keys();
  }
  return notes;
}

}  // namespace

std::vector<PublishedLadder> parse_published_ladders(const std::string& json_text,
                                                     const std::string& origin) {
  try {
    return read_published_ladders(parse_json(json_text, origin), origin);
  } catch (const json_input::StrictJsonError& error) {
    throw report_error(origin, error);
  }
}

RungNotes parse_rung_notes(const std::string& json_text, const std::string& origin,
                           const std::string& gpu_id) {
  try {
    return read_rung_notes(parse_json(json_text, origin), origin, gpu_id);
  } catch (const json_input::StrictJsonError& error) {
    throw report_error(origin, error);
  }
}

}  // namespace roofcast::views
