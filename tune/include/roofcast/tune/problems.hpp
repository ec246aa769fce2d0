// A batch of GEMM problems for `roofcast rank --problems FILE`:
//   {"schema_version": 1,
//    "problems": [{"name": "square-4096", "m": 4096, "n": 4096, "k": 4096}, ...]}
// "name" is optional (then "MxNxK"); M, N, K are integers in 1..2^31; names are unique.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "roofcast/gemm.hpp"

namespace roofcast::tune {

inline constexpr int kProblemsSchemaVersion = 1;

struct NamedProblem {
  std::string name;
  gemm::Problem problem;
};

/// Parses a problems file's text; throws SpecError (file, field, expectation) on bad input.
std::vector<NamedProblem> parse_problems(std::string_view json_text, std::string_view origin);

/// Reads and parses a problems file; throws SpecError when it cannot be read.
std::vector<NamedProblem> load_problems(const std::filesystem::path& path);

}  // namespace roofcast::tune
