// The one object reader behind every loader (json_input::ObjectReader): typed fields with bounds,
// unknown keys, null handling, printable text and the paths that errors name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "roofcast/json_input.hpp"

namespace {

using roofcast::json_input::ObjectReader;
using roofcast::json_input::parse_strict;
using roofcast::json_input::ReaderOptions;
using roofcast::json_input::StrictJsonError;

/// The StrictJsonError `read` throws, as "field: expectation"; "" when it throws none.
template <class Read>
std::string failure_of(Read read) {
  try {
    read();
  } catch (const StrictJsonError& error) {
    return error.field() + ": " + error.expectation();
  }
  return "";
}

TEST(ObjectReader, ReadsTypedFieldsWithinBounds) {
  const auto document = parse_strict(
      R"({"n": 132, "x": 1.5, "s": "h200", "e": "", "a": [1, 2], "o": {"k": 7}, "z": null})");
  const ReaderOptions options;
  ObjectReader reader(document, "", options);
  EXPECT_EQ(reader.int32_in("n", 1, 4096), 132);
  EXPECT_DOUBLE_EQ(reader.number_in("x", 0, 2, "GB/s"), 1.5);
  EXPECT_EQ(reader.string("s"), "h200");
  EXPECT_EQ(reader.any_string("e"), "");
  EXPECT_EQ(reader.integer_array("a", 0, 4), (std::vector<int>{1, 2}));
  EXPECT_EQ(reader.object("o").int32_in("k", 0, 9), 7);
  EXPECT_FALSE(reader.number_in_or_null("z", 0, 1).has_value());
  EXPECT_NO_THROW(reader.reject_unknown_keys());
}

TEST(ObjectReader, EveryErrorNamesThePathAndTheBound) {
  const auto document = parse_strict(
      R"({"n": 0, "big": 18446744073709551615, "x": -3, "t": "132", "o": {"k": "a\nb"},
          "a": [1, 9], "l": [], "typo": 1})");
  const ReaderOptions options;
  ObjectReader reader(document, "", options);
  EXPECT_EQ(failure_of([&] { reader.int32_in("n", 1, 4096); }), "n: an integer in 1..4096, got 0");
  EXPECT_EQ(failure_of([&] { reader.integer_in("big", 1, 10); }),
            "big: an integer in 1..10, got 18446744073709551615");
  EXPECT_EQ(failure_of([&] { reader.number_in("x", 0.001, 1e7, "GB/s"); }),
            "x: a number in 0.001..1e+07 GB/s, got -3");
  EXPECT_EQ(failure_of([&] { reader.int32_in("t", 1, 4096); }),
            "t: an integer in 1..4096, got \"132\"");
  EXPECT_EQ(failure_of([&] { reader.object("o").string("k"); }),
            "o.k: printable text, got a control character (U+000A) at byte 1");
  EXPECT_EQ(failure_of([&] { reader.integer_array("a", 0, 4); }),
            "a[1]: an integer in 0..4, got 9");
  EXPECT_EQ(failure_of([&] { reader.non_empty_array("l"); }),
            "l: a non-empty array, got an array of 0 values");
  EXPECT_EQ(failure_of([&] { reader.string("missing"); }),
            "missing: a value (the field is missing)");
  EXPECT_EQ(failure_of([&] { reader.reject_unknown_keys(); }),
            "typo: no such field (unknown field; check its spelling)");
  EXPECT_EQ(failure_of([&] { reader.reject_unknown_keys("no such field here"); }),
            "typo: no such field here");
}

TEST(ObjectReader, NullIsAbsentOnlyWhenTheOptionsSaySo) {
  const auto document = parse_strict(R"({"v": null})");
  ReaderOptions strict;
  ObjectReader plain(document, "", strict);
  EXPECT_EQ(failure_of([&] { plain.optional_number("v", 0); }), "v: a number >= 0, got null");
  ReaderOptions lenient;
  lenient.null_is_absent = true;
  ObjectReader nullable(document, "", lenient);
  EXPECT_FALSE(nullable.optional_number("v", 0).has_value());
  EXPECT_NO_THROW(nullable.reject_unknown_keys());
}

TEST(ObjectReader, AnUnprintableKeyIsQuotedInThePath) {
  const auto document = parse_strict(R"({"o": {"a\u001bb": 1}})");
  const ReaderOptions options;
  ObjectReader reader(document, "", options);
  ObjectReader inner = reader.object("o");
  EXPECT_EQ(failure_of([&] { inner.reject_unknown_keys(); }),
            "o.\"a\\x1Bb\": no such field (unknown field; check its spelling)");
}

TEST(ObjectReader, NumberPathsListEveryValueRead) {
  const auto document = parse_strict(R"({"chip": {"sm_count": 132, "name": "x", "bw": 4.8}})");
  std::vector<std::string> paths;
  ReaderOptions options;
  options.number_paths = &paths;
  ObjectReader reader(document, "", options);
  ObjectReader chip = reader.object("chip");
  chip.int32_in("sm_count", 1, 4096);
  chip.string("name");
  chip.number_in("bw", 0, 10);
  EXPECT_EQ(paths, (std::vector<std::string>{"chip.sm_count", "chip.bw"}));
}

TEST(ObjectReader, ANonObjectIsRefused) {
  const auto document = parse_strict("[1, 2]");
  const ReaderOptions options;
  EXPECT_EQ(failure_of([&] { ObjectReader reader(document, "", options); }),
            "<document>: a JSON object, got an array of 2 values");
}

}  // namespace
