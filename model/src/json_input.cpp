#include "roofcast/json_input.hpp"

#include <cmath>
#include <cstdio>
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
nlohmann::ordered_json parse_strict_ordered(std::string_view text) {
  return parse_with_rules<nlohmann::ordered_json>(text);
}

std::string describe(const nlohmann::json& value) { return describe_value(value); }
std::string describe(const nlohmann::ordered_json& value) { return describe_value(value); }

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

}  // namespace roofcast::json_input
