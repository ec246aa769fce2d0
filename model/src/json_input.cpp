#include "roofcast/json_input.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <vector>

namespace roofcast::json_input {
namespace {

/// Where the parser is: one frame per open object or array.
struct Frame {
  bool is_object = false;
  std::string key;        // objects: the key whose value is being read
  std::size_t index = 0;  // arrays: the element being read
  std::set<std::string> keys;
};

std::string path_of(const std::vector<Frame>& frames) {
  std::string path;
  for (const Frame& frame : frames) {
    if (frame.is_object) {
      if (frame.key.empty() && &frame == &frames.back()) break;
      if (!path.empty()) path += '.';
      path += frame.key;
    } else {
      path += "[" + std::to_string(frame.index) + "]";
    }
  }
  return path.empty() ? "<document>" : path;
}

/// A library message (which may quote input) made printable and bounded.
std::string bounded_message(std::string_view what) {
  constexpr std::size_t kMaxMessage = 200;
  std::string out = quote_for_message(what.substr(0, kMaxMessage));
  out = out.substr(1, out.size() - 2);  // without quote_for_message's quotes
  if (what.size() > kMaxMessage) out += "...";
  return out;
}

template <class Json>
Json parse_with_rules(std::string_view text) {
  std::vector<Frame> frames;
  const auto advance = [&frames] {
    if (!frames.empty() && !frames.back().is_object) ++frames.back().index;
  };
  using Event = typename Json::parse_event_t;
  const typename Json::parser_callback_t check = [&](int, Event event, Json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        if (static_cast<int>(frames.size()) >= kMaxJsonDepth) {
          throw StrictJsonError(path_of(frames), "at most " + std::to_string(kMaxJsonDepth) +
                                                     " levels of nested objects and arrays");
        }
        frames.push_back(Frame{event == Event::object_start, {}, 0, {}});
        break;
      case Event::key: {
        const auto& key = parsed.template get_ref<const std::string&>();
        Frame& object = frames.back();
        object.key = key;
        if (!object.keys.insert(key).second) {
          throw StrictJsonError(path_of(frames), "each key once per object (this key repeats)");
        }
        break;
      }
      case Event::object_end:
      case Event::array_end:
        frames.pop_back();
        advance();
        break;
      case Event::value:
        advance();
        break;
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), check);
  } catch (const typename Json::out_of_range& error) {
    // 406: a number whose magnitude a double cannot hold.
    throw StrictJsonError(path_of(frames),
                          "a finite number (" + bounded_message(error.what()) + ")");
  } catch (const typename Json::parse_error& error) {
    // The message gives the line and column; the last key read need not be where it broke.
    throw StrictJsonError("<document>", "valid JSON (" + bounded_message(error.what()) + ")");
  }
}

template <class Json>
std::string describe_value(const Json& value) {
  if (value.is_object()) return "an object of " + std::to_string(value.size()) + " fields";
  if (value.is_array()) return "an array of " + std::to_string(value.size()) + " values";
  if (value.is_string()) return quote_for_message(value.template get_ref<const std::string&>());
  return value.dump();  // a number, a boolean or null: short
}

}  // namespace

StrictJsonError::StrictJsonError(std::string field, std::string expectation)
    : std::runtime_error("field '" + field + "': expected " + expectation),
      field_(std::move(field)),
      expectation_(std::move(expectation)) {}

nlohmann::json parse_strict(std::string_view text) {
  return parse_with_rules<nlohmann::json>(text);
}

std::string describe(const nlohmann::json& value) { return describe_value(value); }

std::optional<std::string> text_problem(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const bool c1 = byte == 0xC2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (byte < 0x20 || byte == 0x7F || c1) {
      char code[8];
      std::snprintf(code, sizeof code, "%02X", c1 ? static_cast<unsigned char>(text[i + 1]) : byte);
      return "a control character (U+00" + std::string(code) + ") at byte " + std::to_string(i);
    }
  }
  return std::nullopt;
}

std::string quote_for_message(std::string_view text) {
  std::string out = "\"";
  std::size_t shown = 0;
  for (char ch : text) {
    if (shown == kMaxQuotedChars) {
      out += "...";
      break;
    }
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7F || ch == '"' || ch == '\\') {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    } else {
      out += ch;
    }
    ++shown;
  }
  return out + "\"";
}

// ---- ObjectReader ---------------------------------------------------------------------------

using nlohmann::json;

ObjectReader::ObjectReader(const json& object, std::string path, const ReaderOptions& options)
    : object_(object), path_(std::move(path)), options_(options) {
  if (!object_.is_object()) fail(path_.empty() ? "<document>" : path_, "a JSON object", object_);
}

void ObjectReader::fail(const std::string& field, const std::string& expectation) const {
  throw StrictJsonError(field, expectation);
}

void ObjectReader::fail(const std::string& field, const std::string& expectation,
                        const json& got) const {
  throw StrictJsonError(field, expectation + ", got " + describe(got));
}

std::string ObjectReader::where(std::string_view key) const {
  const std::string name =
      text_problem(key) || key.size() > kMaxQuotedChars ? quote_for_message(key) : std::string(key);
  return path_.empty() ? name : path_ + "." + name;
}

bool ObjectReader::has(std::string_view key) const {
  const auto it = object_.find(std::string(key));
  return it != object_.end() && !(options_.null_is_absent && it->is_null());
}

const json& ObjectReader::raw(std::string_view key) {
  const std::string name(key);
  consumed_.insert(name);
  const auto it = object_.find(name);
  if (it == object_.end()) fail(where(key), "a value (the field is missing)");
  return *it;
}

std::string ObjectReader::printable(std::string_view key, const json& value) const {
  const std::string& text = value.get_ref<const std::string&>();
  if (const auto problem = text_problem(text)) fail(where(key), "printable text, got " + *problem);
  return text;
}

std::string ObjectReader::string(std::string_view key) {
  const json& value = raw(key);
  if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
    fail(where(key), "a non-empty string", value);
  }
  return printable(key, value);
}

std::string ObjectReader::any_string(std::string_view key) {
  const json& value = raw(key);
  if (!value.is_string()) fail(where(key), "a string", value);
  return printable(key, value);
}

std::optional<std::string> ObjectReader::optional_string(std::string_view key) {
  consume(key);
  if (!has(key)) return std::nullopt;
  return string(key);
}

std::string ObjectReader::name(std::string_view key) const {
  if (const auto problem = text_problem(key)) {
    fail(where(key), "a printable name (" + *problem + ")");
  }
  return std::string(key);
}

void ObjectReader::note_number(std::string_view key) const {
  if (options_.number_paths != nullptr) options_.number_paths->push_back(where(key));
}

std::int64_t ObjectReader::integer_in(std::string_view key, std::int64_t minimum,
                                      std::int64_t maximum, const std::string& expectation) {
  const json& value = raw(key);
  const std::string bound = expectation.empty() ? "an integer in " + std::to_string(minimum) +
                                                      ".." + std::to_string(maximum)
                                                : expectation;
  // Beyond int64 (an unsigned 2^63 and up) is beyond every maximum.
  if (!value.is_number_integer() ||
      (value.is_number_unsigned() &&
       value.get<std::uint64_t>() > static_cast<std::uint64_t>(maximum))) {
    fail(where(key), bound, value);
  }
  const std::int64_t number = value.get<std::int64_t>();
  if (number < minimum || number > maximum) fail(where(key), bound, value);
  note_number(key);
  return number;
}

int ObjectReader::int32_in(std::string_view key, int minimum, int maximum) {
  return static_cast<int>(integer_in(key, minimum, maximum));
}

std::optional<int> ObjectReader::optional_int32_in(std::string_view key, int minimum, int maximum) {
  consume(key);
  if (!has(key)) return std::nullopt;
  return int32_in(key, minimum, maximum);
}

std::int64_t ObjectReader::integer(std::string_view key, std::int64_t minimum) {
  return integer_in(key, minimum, std::numeric_limits<std::int64_t>::max(),
                    "an integer >= " + std::to_string(minimum));
}

std::optional<std::int64_t> ObjectReader::optional_integer(std::string_view key,
                                                           std::int64_t minimum) {
  consume(key);
  if (!has(key)) return std::nullopt;
  return integer(key, minimum);
}

int ObjectReader::int32(std::string_view key, int minimum) {
  return static_cast<int>(
      integer_in(key, minimum, std::numeric_limits<int>::max(),
                 "an integer >= " + std::to_string(minimum) + " and below 2^31"));
}

std::optional<int> ObjectReader::optional_int32(std::string_view key, int minimum) {
  consume(key);
  if (!has(key)) return std::nullopt;
  return int32(key, minimum);
}

std::uint64_t ObjectReader::unsigned64(std::string_view key) {
  const json& value = raw(key);
  if (!value.is_number_unsigned() &&
      !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
    fail(where(key), "a non-negative integer", value);
  }
  note_number(key);
  return value.get<std::uint64_t>();
}

std::vector<int> ObjectReader::integer_array(std::string_view key, int minimum, int maximum) {
  const json& value = raw(key);
  const std::string at = where(key);
  constexpr std::size_t kMaxItems = 64;
  if (!value.is_array() || value.empty() || value.size() > kMaxItems) {
    fail(at, "an array of 1.." + std::to_string(kMaxItems) + " integers", value);
  }
  const std::string bound =
      "an integer in " + std::to_string(minimum) + ".." + std::to_string(maximum);
  std::vector<int> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const json& item = value[i];
    const std::string item_at = at + "[" + std::to_string(i) + "]";
    if (!item.is_number_integer() ||
        (item.is_number_unsigned() &&
         item.get<std::uint64_t>() > static_cast<std::uint64_t>(maximum))) {
      fail(item_at, bound, item);
    }
    const std::int64_t number = item.get<std::int64_t>();
    if (number < minimum || number > maximum) fail(item_at, bound, item);
    out.push_back(static_cast<int>(number));
  }
  note_number(key);
  return out;
}

std::string ObjectReader::format(double bound) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", bound);
  return text;
}

double ObjectReader::number(std::string_view key, double minimum) {
  const json& value = raw(key);
  const double x = value.is_number() ? value.get<double>() : 0.0;
  if (!value.is_number() || !(x >= minimum)) {
    fail(where(key), "a number >= " + format(minimum), value);
  }
  note_number(key);
  return x;
}

std::optional<double> ObjectReader::optional_number(std::string_view key, double minimum) {
  consume(key);
  if (!has(key)) return std::nullopt;
  return number(key, minimum);
}

double ObjectReader::number_in(std::string_view key, double minimum, double maximum,
                               std::string_view unit, std::string_view what) {
  const json& value = raw(key);
  const double x = value.is_number() ? value.get<double>() : 0.0;
  if (!value.is_number() || !(x >= minimum && x <= maximum)) {
    std::string expectation = std::string(what) + " in " + format(minimum) + ".." + format(maximum);
    if (!unit.empty()) expectation.append(" ").append(unit);
    fail(where(key), expectation, value);
  }
  note_number(key);
  return x;
}

std::optional<double> ObjectReader::optional_number_in(std::string_view key, double minimum,
                                                       double maximum, std::string_view unit) {
  consume(key);
  if (!has(key)) return std::nullopt;
  return number_in(key, minimum, maximum, unit);
}

std::optional<double> ObjectReader::number_in_or_null(std::string_view key, double minimum,
                                                      double maximum, std::string_view unit) {
  if (raw(key).is_null()) {
    note_number(key);
    return std::nullopt;
  }
  return number_in(key, minimum, maximum, unit, "null or a number");
}

ObjectReader ObjectReader::object(std::string_view key) {
  return ObjectReader(raw(key), where(key), options_);
}

std::optional<ObjectReader> ObjectReader::optional_object(std::string_view key) {
  consume(key);
  if (!has(key)) return std::nullopt;
  return object(key);
}

const json& ObjectReader::array(std::string_view key) {
  const json& value = raw(key);
  if (!value.is_array()) fail(where(key), "an array", value);
  return value;
}

const json& ObjectReader::non_empty_array(std::string_view key) {
  const json& value = raw(key);
  if (!value.is_array() || value.empty()) fail(where(key), "a non-empty array", value);
  return value;
}

void ObjectReader::reject_unknown_keys(const std::string& expectation) const {
  for (const auto& item : object_.items()) {
    if (consumed_.count(item.key()) == 0) {
      fail(where(item.key()), expectation.empty() ? options_.unknown_field : expectation);
    }
  }
}

}  // namespace roofcast::json_input
