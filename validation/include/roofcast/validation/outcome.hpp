// The outcome of one validation case, as CUTLASS's profiler names them. C++17 and free of CUDA:
// the CUDA checker (sgemm_check) and the host-only measurement loader share this one enum.
#pragma once

#include <optional>
#include <string_view>

namespace roofcast::validation {

enum class Outcome {
  kPassed,        // checked against cuBLAS and within the error bound (then timed)
  kIncorrect,     // ran, but the result is outside the bound or has NaN: never timed
  kNotSupported,  // this GPU or raster order cannot run the config: never launched
  kFailed,        // a launch or CUDA error
};

inline constexpr Outcome kAllOutcomes[] = {Outcome::kPassed, Outcome::kIncorrect,
                                           Outcome::kNotSupported, Outcome::kFailed};

/// "passed", "incorrect", "not_supported", "failed".
constexpr std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPassed:
      return "passed";
    case Outcome::kIncorrect:
      return "incorrect";
    case Outcome::kNotSupported:
      return "not_supported";
    case Outcome::kFailed:
      return "failed";
  }
  return "failed";
}

/// The inverse of to_string; empty for any other text.
constexpr std::optional<Outcome> parse_outcome(std::string_view text) {
  for (Outcome outcome : kAllOutcomes) {
    if (text == to_string(outcome)) return outcome;
  }
  return std::nullopt;
}

}  // namespace roofcast::validation
