#include "roofcast/tune/problems.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "roofcast/json_input.hpp"
#include "roofcast/spec.hpp"

namespace roofcast::tune {

namespace {

using gemm::kMaxExtent;

std::int64_t extent(const nlohmann::json& entry, const char* key, const std::string& field,
                    std::string_view origin) {
  const std::string path = field + "." + key;
  if (!entry.contains(key)) throw SpecError(std::string(origin), path, "an integer (missing)");
  const nlohmann::json& v = entry.at(key);
  const std::string bound = "an integer in 1.." + std::to_string(kMaxExtent);
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > kMaxExtent)) {
    throw SpecError(std::string(origin), path, bound + ", got " + json_input::describe(v));
  }
  const std::int64_t value = v.get<std::int64_t>();
  if (value < 1 || value > kMaxExtent) {
    throw SpecError(std::string(origin), path, bound + ", got " + std::to_string(value));
  }
  return value;
}

}  // namespace

std::vector<NamedProblem> parse_problems(std::string_view json_text, std::string_view origin) {
  const std::string file(origin);
  nlohmann::json doc;
  try {
    doc = json_input::parse_strict(json_text);
  } catch (const json_input::StrictJsonError& error) {
    throw SpecError(file, error.field(), error.expectation());
  }
  if (!doc.is_object()) throw SpecError(file, "<document>", "a JSON object");
  if (!doc.contains("schema_version") || !doc.at("schema_version").is_number_integer() ||
      doc.at("schema_version").get<int>() != kProblemsSchemaVersion) {
    throw SpecError(file, "schema_version",
                    "the integer " + std::to_string(kProblemsSchemaVersion));
  }
  if (!doc.contains("problems") || !doc.at("problems").is_array() || doc.at("problems").empty()) {
    throw SpecError(file, "problems", "a non-empty array of {name, m, n, k}");
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "schema_version" && key != "problems") {
      throw SpecError(file, key, "no such field (known: schema_version, problems)");
    }
  }
  std::vector<NamedProblem> out;
  std::set<std::string> names;
  const nlohmann::json& list = doc.at("problems");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = "problems[" + std::to_string(i) + "]";
    const nlohmann::json& entry = list[i];
    if (!entry.is_object()) throw SpecError(file, field, "an object {name, m, n, k}");
    for (const auto& [key, value] : entry.items()) {
      if (key != "name" && key != "m" && key != "n" && key != "k") {
        throw SpecError(file, field + "." + key, "no such field (known: name, m, n, k)");
      }
    }
    NamedProblem p;
    p.problem = {extent(entry, "m", field, origin), extent(entry, "n", field, origin),
                 extent(entry, "k", field, origin)};
    if (entry.contains("name")) {
      if (!entry.at("name").is_string() || entry.at("name").get<std::string>().empty()) {
        throw SpecError(file, field + ".name", "a non-empty string");
      }
      if (const auto problem = json_input::text_problem(entry.at("name").get<std::string>())) {
        throw SpecError(file, field + ".name", "printable text, got " + *problem);
      }
      p.name = entry.at("name").get<std::string>();
    } else {
      p.name = std::to_string(p.problem.m) + "x" + std::to_string(p.problem.n) + "x" +
               std::to_string(p.problem.k);
    }
    if (!names.insert(p.name).second) {
      throw SpecError(
          file, field + ".name",
          "a name not used before (" + json_input::quote_for_message(p.name) + " repeats)");
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<NamedProblem> load_problems(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw SpecError(path.string(), "<document>", "a readable problems file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_problems(text.str(), path.string());
}

}  // namespace roofcast::tune
