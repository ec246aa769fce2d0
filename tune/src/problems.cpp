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
using json_input::ObjectReader;

std::vector<NamedProblem> read_problems(const nlohmann::json& document) {
  json_input::ReaderOptions options;
  options.unknown_field = "no such field in schema_version " +
                          std::to_string(kProblemsSchemaVersion) +
                          " (unknown field; known: schema_version, problems)";
  ObjectReader root(document, "", options);
  root.integer_in("schema_version", kProblemsSchemaVersion, kProblemsSchemaVersion,
                  "the integer " + std::to_string(kProblemsSchemaVersion));
  const nlohmann::json& list = root.non_empty_array("problems");
  root.reject_unknown_keys();
  std::vector<NamedProblem> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader entry(list[i], "problems[" + std::to_string(i) + "]", options);
    NamedProblem p;
    p.problem = {entry.integer_in("m", 1, kMaxExtent), entry.integer_in("n", 1, kMaxExtent),
                 entry.integer_in("k", 1, kMaxExtent)};
    if (const auto name = entry.optional_string("name")) {
      p.name = *name;
    } else {
      p.name = std::to_string(p.problem.m) + "x" + std::to_string(p.problem.n) + "x" +
               std::to_string(p.problem.k);
    }
    entry.reject_unknown_keys("no such field (unknown field; known: name, m, n, k)");
    if (!names.insert(p.name).second) {
      entry.fail(entry.where("name"),
                 "a name not used before (" + json_input::quote_for_message(p.name) + " repeats)");
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<NamedProblem> parse_problems(std::string_view json_text, std::string_view origin) {
  try {
    return read_problems(json_input::parse_strict(json_text));
  } catch (const json_input::StrictJsonError& error) {
    throw SpecError(std::string(origin), error.field(), error.expectation());
  }
}

std::vector<NamedProblem> load_problems(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw SpecError(path.string(), "<document>", "a readable problems file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_problems(text.str(), path.string());
}

}  // namespace roofcast::tune
