// The one CSV writer of the views (`--csv` of gpus, table, occupancy --sweep, ladder, rank): a
// header row, then one row per item. Fields are quoted as RFC 4180 says: unquoted unless they
// hold a comma, a double quote, CR or LF, then in double quotes with each double quote doubled.
// Rows end with LF. Numbers are written exactly: integers in decimal, doubles as the shortest
// text that reads back to the same double (std::to_chars), so a CSV carries what the JSON does.
// Header-only so that both view libraries (roofcast::views, roofcast_cli) use it.
#pragma once

#include <charconv>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace roofcast::views::csv {

/// One field, quoted only when RFC 4180 requires it.
inline std::string field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

/// A double as the shortest decimal text that reads back to the same value ("0.25", "1e-06").
inline std::string number(double value) {
  char text[64];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  if (error != std::errc()) throw std::logic_error("csv: cannot format a double");
  return std::string(text, end);
}

inline std::string number(std::int64_t value) { return std::to_string(value); }
inline std::string number(int value) { return std::to_string(value); }
inline std::string number(std::size_t value) { return std::to_string(value); }
inline std::string boolean(bool value) { return value ? "true" : "false"; }

/// A table: the header, then rows of exactly as many cells (each cell is raw text; the
/// writer quotes it).
class Table {
 public:
  explicit Table(std::vector<std::string> header) : columns_(header.size()) {
    add(header);
    header_size_ = text_.size();
  }

  void add(const std::vector<std::string>& cells) {
    if (cells.size() != columns_) {
      throw std::logic_error("csv: a row of " + std::to_string(cells.size()) + " cells in a " +
                             std::to_string(columns_) + "-column table");
    }
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) text_ += ',';
      text_ += field(cells[i]);
    }
    text_ += '\n';
  }

  const std::string& str() const { return text_; }
  /// The rows without the header (to stream a table in parts under one header).
  std::string rows() const { return text_.substr(header_size_); }

 private:
  std::size_t columns_;
  std::size_t header_size_ = 0;
  std::string text_;
};

}  // namespace roofcast::views::csv
