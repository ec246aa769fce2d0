// The one strict JSON reader of every input document (spec, calibration, problems, measurement,
// report data): duplicate keys, nesting deeper than kMaxJsonDepth, numbers that overflow a
// double and control characters in text are errors that name the field, and no error message
// echoes an unbounded value. Each loader wraps StrictJsonError into its own error type with the
// file's name.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace roofcast::json_input {

/// Objects and arrays nested deeper than this are refused (the committed documents use 6).
inline constexpr int kMaxJsonDepth = 64;
/// Characters of a value an error message quotes at most.
inline constexpr std::size_t kMaxQuotedChars = 80;

/// A document that is not strict JSON. field(): the dotted path ("sm.warp_size",
/// "cases[3].time_ms"), "<document>" when the failure is not inside a field.
class StrictJsonError : public std::runtime_error {
 public:
  StrictJsonError(std::string field, std::string expectation);
  const std::string& field() const { return field_; }
  const std::string& expectation() const { return expectation_; }

 private:
  std::string field_;
  std::string expectation_;
};

/// Parses `text` as one JSON document: RFC 8259 plus these rules, each a StrictJsonError:
/// no key twice in one object, at most kMaxJsonDepth levels of objects and arrays, every number
/// finite as a double (1e400 is refused, not read as infinity).
nlohmann::json parse_strict(std::string_view text);
nlohmann::ordered_json parse_strict_ordered(std::string_view text);

/// A bounded, ASCII-only description of a value for error messages: numbers, booleans and null
/// as JSON, strings quoted and cut at kMaxQuotedChars, "an object of N fields", "an array of N
/// values".
std::string describe(const nlohmann::json& value);
std::string describe(const nlohmann::ordered_json& value);

/// Text fit to print, to put in a file name or a figure: why it is not, or empty when it is.
/// Refused: control characters (U+0000-U+001F, U+007F-U+009F: newlines, NUL, ANSI escapes).
std::optional<std::string> text_problem(std::string_view text);

/// `text` quoted for an error message: control characters as \xNN, cut at kMaxQuotedChars.
std::string quote_for_message(std::string_view text);

}  // namespace roofcast::json_input
