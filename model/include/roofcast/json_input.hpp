// The one strict JSON reader of every input document (spec, calibration, problems, measurement,
// report data): duplicate keys, nesting deeper than kMaxJsonDepth, numbers that overflow a
// double and control characters in text are errors that name the field, and no error message
// echoes an unbounded value. ObjectReader reads every loader's objects (typed fields, bounds,
// unknown keys); each loader wraps StrictJsonError into its own error type with the file's name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

/// A bounded, ASCII-only description of a value for error messages: numbers, booleans and null
/// as JSON, strings quoted and cut at kMaxQuotedChars, "an object of N fields", "an array of N
/// values".
std::string describe(const nlohmann::json& value);

/// Text fit to print, to put in a file name or a figure: why it is not, or empty when it is.
/// Refused: control characters (U+0000-U+001F, U+007F-U+009F: newlines, NUL, ANSI escapes).
std::optional<std::string> text_problem(std::string_view text);

/// `text` quoted for an error message: control characters as \xNN, cut at kMaxQuotedChars.
std::string quote_for_message(std::string_view text);

}  // namespace roofcast::json_input

namespace roofcast::json_input {

/// How an ObjectReader treats what a document's schema leaves open.
struct ReaderOptions {
  /// Whether a null value counts as an absent field for the optional_* readers.
  bool null_is_absent = false;
  /// The expectation an unknown key gets: "no such field in schema_version 1 (unknown field;
  /// see data/measurements/SCHEMA.md)".
  std::string unknown_field = "no such field (unknown field; check its spelling)";
  /// When set, the path of every number or integer array read is appended (a spec's sources rule:
  /// every value names a source).
  std::vector<std::string>* number_paths = nullptr;
};

/// Reads the fields of one JSON object of a strict document and remembers which keys it
/// consumed, so that unknown keys (typos, another schema version's fields) are errors, not
/// ignored. Every failure is a StrictJsonError(field path, expectation); each loader wraps it into
/// its own error type with the file's name. Bounds are inclusive; an expectation states them:
/// "an integer in 1..4096, got 0", "a number in 0.001..1e+07 GB/s, got -3".
class ObjectReader {
 public:
  /// `object` and `options` must outlive the reader and every reader made from it.
  ObjectReader(const nlohmann::json& object, std::string path, const ReaderOptions& options);

  [[noreturn]] void fail(const std::string& field, const std::string& expectation) const;
  /// Appends ", got <describe(got)>" to the expectation.
  [[noreturn]] void fail(const std::string& field, const std::string& expectation,
                         const nlohmann::json& got) const;

  /// The dotted path of `key`; a key that is not printable (or is long) appears quoted and
  /// escaped, so that no error message carries a control character.
  std::string where(std::string_view key) const;
  /// Whether `key` is present (and, with null_is_absent, not null).
  bool has(std::string_view key) const;
  /// Marks `key` as read without reading it (a field this version ignores).
  void consume(std::string_view key) { consumed_.insert(std::string(key)); }
  const nlohmann::json& raw(std::string_view key);

  /// A non-empty string of printable text.
  std::string string(std::string_view key);
  /// A string that may be empty (an unknown host, say), printable.
  std::string any_string(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  /// `key` itself, for objects whose keys a loader keeps (benchmark names): printable.
  std::string name(std::string_view key) const;

  /// An integer in minimum..maximum; `expectation` replaces "an integer in MIN..MAX".
  std::int64_t integer_in(std::string_view key, std::int64_t minimum, std::int64_t maximum,
                          const std::string& expectation = "");
  int int32_in(std::string_view key, int minimum, int maximum);
  std::optional<int> optional_int32_in(std::string_view key, int minimum, int maximum);
  /// An integer >= minimum (no upper bound but int64's).
  std::int64_t integer(std::string_view key, std::int64_t minimum);
  std::optional<std::int64_t> optional_integer(std::string_view key, std::int64_t minimum);
  /// An integer >= minimum and below 2^31.
  int int32(std::string_view key, int minimum);
  std::optional<int> optional_int32(std::string_view key, int minimum);
  std::uint64_t unsigned64(std::string_view key);
  /// 1..64 integers, each in minimum..maximum.
  std::vector<int> integer_array(std::string_view key, int minimum, int maximum);

  /// A number >= minimum.
  double number(std::string_view key, double minimum);
  std::optional<double> optional_number(std::string_view key, double minimum);
  /// A number in minimum..maximum `unit`: "a number in 1..100000 MHz"; `what` replaces
  /// "a number".
  double number_in(std::string_view key, double minimum, double maximum, std::string_view unit = "",
                   std::string_view what = "a number");
  std::optional<double> optional_number_in(std::string_view key, double minimum, double maximum,
                                           std::string_view unit = "");
  /// A number in minimum..maximum, or null for "none" (a field that must be present).
  std::optional<double> number_in_or_null(std::string_view key, double minimum, double maximum,
                                          std::string_view unit = "");

  ObjectReader object(std::string_view key);
  std::optional<ObjectReader> optional_object(std::string_view key);
  const nlohmann::json& array(std::string_view key);
  const nlohmann::json& non_empty_array(std::string_view key);

  const nlohmann::json& value() const { return object_; }
  const std::string& path() const { return path_; }
  const ReaderOptions& options() const { return options_; }

  /// A bound as expectations write it: 0.001, 100000, 1e+07 (six significant digits).
  static std::string format(double bound);

  /// Fails on the first key no reader asked for; `expectation` replaces the options' text.
  void reject_unknown_keys(const std::string& expectation = "") const;

 private:
  std::string printable(std::string_view key, const nlohmann::json& value) const;
  void note_number(std::string_view key) const;

  const nlohmann::json& object_;
  std::string path_;
  const ReaderOptions& options_;
  std::set<std::string> consumed_;
};

}  // namespace roofcast::json_input
