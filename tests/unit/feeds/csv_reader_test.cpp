// Tests of the CSV history reader and timestamp codec (feeds/src): every real data file
// against the row counts its README lists, each class of bad row (message names file, line
// and field; skip_bad_rows counts it), and timestamp edge cases with a seeded round trip.
#include "wfod/feeds/csv_reader.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>

namespace wfod::feeds {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kSec = 1'000'000'000;
constexpr std::string_view kHeader = "timestamp,open,high,low,close,volume\n";

// The message of the CsvError that parsing `text` (named "bad.csv") throws.
std::string csv_error_of(std::string_view text, CsvReadOptions options = {}) {
  try {
    parse_csv(text, "bad.csv", options);
  } catch (const CsvError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no CsvError for:\n" << text;
  return "";
}

// Checks a message names the file and line (and, when given, the field), e.g.
// "bad.csv:3: field 'close': ...".
void expect_located(const std::string& message, int line, std::string_view field,
                    std::string_view detail) {
  EXPECT_EQ(message.rfind("bad.csv:" + std::to_string(line) + ": ", 0), 0u) << message;
  if (!field.empty()) {
    EXPECT_NE(message.find("field '" + std::string(field) + "'"), std::string::npos) << message;
  }
  EXPECT_NE(message.find(detail), std::string::npos) << message << "\n  lacks: " << detail;
}

int64_t ts(std::string_view text) {
  int64_t v = 0;
  EXPECT_TRUE(parse_timestamp(text, v)) << text;
  return v;
}

bool parses(std::string_view text) {
  int64_t v = 0;
  return parse_timestamp(text, v);
}

// ---------------------------------------------------------------------------------------
// Real data: /work/shared/data (README.md lists each file's rows).

std::map<std::string, size_t> readme_rows(const fs::path& readme) {
  std::ifstream in(readme);
  std::map<std::string, size_t> rows;
  const std::regex row(R"(^\| `([^`]+\.csv)` \| (\d+) \|)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, row)) rows[m[1]] = std::stoul(m[2]);
  }
  return rows;
}

TEST(CsvReaderRealData, EveryFileMatchesTheReadmeRowCount) {
  const fs::path dir = WFOD_SHARED_DATA_DIR;
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no shared data folder at " << dir;
  const std::map<std::string, size_t> expected = readme_rows(dir / "README.md");
  ASSERT_GE(expected.size(), 10u) << "README.md table not found or changed shape";

  size_t files = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".csv") continue;
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    ++files;
    const auto started = std::chrono::steady_clock::now();
    const CsvReadResult r = read_csv(entry.path().string());
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    const auto it = expected.find(name);
    ASSERT_NE(it, expected.end()) << "file not listed in README.md";
    EXPECT_EQ(r.rows_read, it->second);
    EXPECT_EQ(r.series.size(), it->second);
    EXPECT_TRUE(r.skipped_by_reason.empty());
    // Generous bound (sanitizer builds, a shared machine); typical is a few ms.
    EXPECT_LT(ms, 2000.0);
  }
  EXPECT_EQ(files, expected.size()) << "README.md lists files that are not in the folder";
}

TEST(CsvReaderRealData, FirstAndLastBars) {
  const fs::path dir = WFOD_SHARED_DATA_DIR;
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no shared data folder at " << dir;

  const CsvReadResult goog = read_csv((dir / "goog_d1_2004-2013.csv").string());
  ASSERT_EQ(goog.series.size(), 2148u);
  EXPECT_EQ(goog.series.ts_ns.front(), 1092873600 * kSec);  // 2004-08-19
  EXPECT_EQ(goog.series.ts_ns.back(), 1362096000 * kSec);   // 2013-03-01
  EXPECT_EQ(goog.series.open.front(), 100.0);
  EXPECT_EQ(goog.series.high.front(), 104.06);
  EXPECT_EQ(goog.series.low.front(), 95.96);
  EXPECT_EQ(goog.series.close.front(), 100.34);
  EXPECT_EQ(goog.series.volume.front(), 22351900.0);
  EXPECT_EQ(goog.series.close.back(), 806.19);

  // Minute bars with a Z.
  const CsvReadResult btc = read_csv((dir / "btcperp_ftx_m1_2022-01.csv").string());
  ASSERT_EQ(btc.series.size(), 45031u);
  EXPECT_EQ(btc.series.ts_ns.front(), 1640991660 * kSec);  // 2021-12-31T23:01:00Z
  EXPECT_EQ(btc.series.ts_ns.back(), 1643693460 * kSec);   // 2022-02-01T05:31:00Z
  EXPECT_EQ(btc.series.volume.back(), 685906.9735);
  // No gaps in this file: 45031 consecutive minutes.
  EXPECT_EQ(btc.series.ts_ns.back() - btc.series.ts_ns.front(), 45030 * 60 * kSec);

  // Naive local times are read as UTC (SPEC §1: no zone = UTC).
  const CsvReadResult fesx = read_csv((dir / "estx50fut_m1_2006-01-02.csv").string());
  EXPECT_EQ(fesx.series.ts_ns.front(), 1136192460 * kSec);  // 2006-01-02T09:01:00
  EXPECT_EQ(fesx.series.ts_ns.back(), 1141077600 * kSec);   // 2006-02-27T22:00:00
}

TEST(CsvReaderRealData, RepoCopyOfGoog) {
  const fs::path file = fs::path(WFOD_REPO_DATA_DIR) / "goog_d1_2004-2013.csv";
  if (!fs::exists(file)) GTEST_SKIP() << "no bundled data at " << file;
  EXPECT_EQ(read_csv(file.string()).series.size(), 2148u);
}

// ---------------------------------------------------------------------------------------
// Layout: header order and case, extra columns, CRLF, BOM, blank lines.

TEST(CsvReader, HeaderAnyOrderCaseSpacesAndExtraColumns) {
  const CsvReadResult r = parse_csv(
      " Close ,VOLUME,extra,timestamp,Low,high,Open\n"
      "10.5,100,x,2024-01-02,9,11,10\n"
      "11,0,y,2024-01-03T00:00:00Z,10,12,10.5\n",
      "t.csv");
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.rows_read, 2u);
  EXPECT_EQ(r.series.open[0], 10);
  EXPECT_EQ(r.series.high[0], 11);
  EXPECT_EQ(r.series.low[0], 9);
  EXPECT_EQ(r.series.close[0], 10.5);
  EXPECT_EQ(r.series.volume[0], 100);
  EXPECT_EQ(r.series.ts_ns[1] - r.series.ts_ns[0], 86400 * kSec);
}

TEST(CsvReader, CrlfBomAndBlankLines) {
  const std::string text =
      "\xEF\xBB\xBFtimestamp,open,high,low,close,volume\r\n"
      "2024-01-02,10,11,9,10.5,100\r\n"
      "\r\n"
      "2024-01-03,10.5,12,10,11,0\r\n"
      "\r\n\n  \n";
  const CsvReadResult r = parse_csv(text, "t.csv");
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.rows_read, 2u);
  EXPECT_EQ(r.series.close[1], 11);
  EXPECT_EQ(r.series.volume[1], 0);
}

TEST(CsvReader, NoTrailingNewline) {
  const CsvReadResult r = parse_csv(std::string(kHeader) + "2024-01-02,10,11,9,10.5,100", "t.csv");
  EXPECT_EQ(r.series.size(), 1u);
}

TEST(CsvReader, NumbersRoundTripExactly) {
  // Python repr(float) text, as the data files use, must give the same doubles.
  const CsvReadResult r = parse_csv(
      std::string(kHeader) + "2024-01-02,0.1,0.30000000000000004,1e-05,0.2,2.5e+20\n", "t.csv");
  EXPECT_EQ(r.series.open[0], 0.1);
  EXPECT_EQ(r.series.high[0], 0.30000000000000004);
  EXPECT_EQ(r.series.low[0], 1e-05);
  EXPECT_EQ(r.series.volume[0], 2.5e+20);
}

// ---------------------------------------------------------------------------------------
// Bad files and rows: each error names file, line and field.

TEST(CsvReaderErrors, MissingColumn) {
  const std::string m = csv_error_of("timestamp,open,high,low,volume\n2024-01-02,1,1,1,1\n");
  EXPECT_EQ(m.rfind("bad.csv:1: missing column 'close' (found 5 ','-separated: 'timestamp', "
                    "'open', 'high', 'low', 'volume'; accepted",
                    0),
            0u)
      << m;
}

TEST(CsvReaderErrors, DuplicateColumn) {
  expect_located(csv_error_of("timestamp,open,high,low,close,volume,Close\n"), 1, "",
                 "duplicate column 'close'");
}

TEST(CsvReaderErrors, EmptyFileAndHeaderOnly) {
  EXPECT_EQ(csv_error_of(""), "bad.csv: empty file (no header)");
  EXPECT_EQ(csv_error_of("\n\r\n  \n"), "bad.csv: empty file (no header)");
  EXPECT_EQ(csv_error_of(kHeader), "bad.csv: no bars");
  EXPECT_EQ(csv_error_of(std::string(kHeader) + "\n\n"), "bad.csv: no bars");
  // Even when skipping bad rows: header problems are never skipped.
  EXPECT_EQ(csv_error_of("", {.skip_bad_rows = true}), "bad.csv: empty file (no header)");
  EXPECT_NE(csv_error_of("time,open\n", {.skip_bad_rows = true}).find("missing column"),
            std::string::npos);
}

struct BadRowCase {
  std::string name;
  std::string row;     // the third line (line 2 is a good bar at 2024-01-02)
  std::string field;   // "" when the message names no field
  std::string detail;  // text the message must contain
  std::string reason;  // skipped_by_reason key
};

std::vector<BadRowCase> bad_row_cases() {
  return {
      {"nan", "2024-01-03,nan,11,9,10,1", "open", "not a finite number (\"nan\")", "number"},
      {"inf", "2024-01-03,10,11,9,inf,1", "close", "not a finite number (\"inf\")", "number"},
      {"infinity", "2024-01-03,10,11,9,10,-infinity", "volume", "not a finite number", "number"},
      {"garbage", "2024-01-03,10,11x,9,10,1", "high", "not a number (\"11x\")", "number"},
      {"empty_number", "2024-01-03,10,11,,10,1", "low", "empty", "number"},
      {"hex", "2024-01-03,0x10,11,9,10,1", "open", "not a number", "number"},
      {"out_of_range", "2024-01-03,10,1e999,9,10,1", "high", "out of range", "number"},
      {"negative_price", "2024-01-03,10,11,-9,10,1", "low", "price must be > 0 (\"-9\")",
       "price_not_positive"},
      {"zero_price", "2024-01-03,0,11,9,10,1", "open", "price must be > 0", "price_not_positive"},
      {"high_below_low", "2024-01-03,10,9,11,10,1", "low", "low above min(open, close)",
       "ohlc_inconsistent"},
      {"high_below_close", "2024-01-03,10,10.5,9,11,1", "high", "high below max(open, close)",
       "ohlc_inconsistent"},
      {"low_above_open", "2024-01-03,9,11,9.5,10,1", "low", "low above min(open, close)",
       "ohlc_inconsistent"},
      {"negative_volume", "2024-01-03,10,11,9,10,-1", "volume", "volume must be >= 0", "volume"},
      {"bad_date", "2024-02-30,10,11,9,10,1", "timestamp", "not a timestamp", "timestamp"},
      {"bad_time", "2024-01-03T25:00:00,10,11,9,10,1", "timestamp", "(\"2024-01-03T25:00:00\")",
       "timestamp"},
      {"duplicate", "2024-01-02,10,11,9,10,1", "timestamp", "duplicate timestamp", "duplicate"},
      {"out_of_order", "2024-01-01,10,11,9,10,1", "timestamp", "out of order timestamp",
       "out_of_order"},
      {"too_few_fields", "2024-01-03,10,11,9,10", "", "wrong number of fields: expected 6, got 5",
       "field_count"},
      {"too_many_fields", "2024-01-03,10,11,9,10,1,7", "", "wrong number of fields", "field_count"},
  };
}

TEST(CsvReaderErrors, EachBadRowNamesFileLineAndField) {
  for (const BadRowCase& c : bad_row_cases()) {
    SCOPED_TRACE(c.name);
    const std::string text = std::string(kHeader) + "2024-01-02,10,11,9,10,1\n" + c.row + "\n";
    expect_located(csv_error_of(text), 3, c.field, c.detail);
  }
}

TEST(CsvReaderErrors, LineNumbersArePhysicalLines) {
  // Blank lines count: the bad row is on line 5.
  const std::string text =
      std::string(kHeader) + "2024-01-02,10,11,9,10,1\r\n\r\n\n2024-01-03,10,11,9,nan,1\n";
  expect_located(csv_error_of(text), 5, "close", "nan");
}

TEST(CsvReaderErrors, QuotedFieldsAreRejected) {
  expect_located(csv_error_of(std::string(kHeader) + "\"2024-01-02\",10,11,9,10,1\n"), 2, "",
                 "quoted fields are not supported");
  expect_located(csv_error_of("\"timestamp\",open,high,low,close,volume\n"), 1, "",
                 "quoted fields are not supported");
  // Quotes are a dialect we do not read, not a bad row: an error even when skipping.
  expect_located(
      csv_error_of(std::string(kHeader) + "2024-01-02,\"10\",11,9,10,1\n", {.skip_bad_rows = true}),
      2, "", "quoted");
}

TEST(CsvReaderErrors, UnreadableFile) {
  try {
    read_csv("/nonexistent/wfod/none.csv");
    FAIL() << "no error";
  } catch (const CsvError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/wfod/none.csv: cannot read: ", 0), 0u)
        << e.what();
  }
}

// ---------------------------------------------------------------------------------------
// skip_bad_rows: counted by reason, reading continues.

TEST(CsvReaderSkip, EachBadRowIsCountedByReason) {
  std::string text = std::string(kHeader) + "2024-01-02,10,11,9,10,1\n";
  std::map<std::string, size_t> expected;
  for (const BadRowCase& c : bad_row_cases()) {
    text += c.row + "\n";
    ++expected[c.reason];
  }
  text += "2024-01-04,10,11,9,10,1\n";
  const CsvReadResult r = parse_csv(text, "t.csv", {.skip_bad_rows = true});
  EXPECT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.rows_read, bad_row_cases().size() + 2);
  EXPECT_EQ(r.skipped_by_reason, expected);
}

TEST(CsvReaderSkip, OrderIsCheckedAgainstTheLastAcceptedRow) {
  const std::string text = std::string(kHeader) +
                           "2024-01-02,10,11,9,10,1\n"
                           "2024-01-03,10,11,9,-10,1\n"  // skipped: bad price
                           "2024-01-03,10,11,9,10,1\n"   // accepted: the 01-03 row was not
                           "2024-01-05,10,11,9,10,1\n"
                           "2024-01-04,10,11,9,10,1\n"  // out of order vs 01-05
                           "2024-01-05,10,11,9,10,2\n"  // duplicate of 01-05
                           "2024-01-06,10,11,9,10,1\n";
  const CsvReadResult r = parse_csv(text, "t.csv", {.skip_bad_rows = true});
  ASSERT_EQ(r.series.size(), 4u);
  EXPECT_EQ(r.rows_read, 7u);
  EXPECT_EQ(r.skipped_by_reason,
            (std::map<std::string, size_t>{
                {"price_not_positive", 1}, {"out_of_order", 1}, {"duplicate", 1}}));
  EXPECT_EQ(r.series.volume[2], 1);  // the first 01-05 row was kept, not the duplicate
  EXPECT_EQ(format_timestamp(r.series.ts_ns[3]), "2024-01-06T00:00:00Z");
}

TEST(CsvReaderSkip, WithoutSkippingNothingIsCounted) {
  const CsvReadResult r = parse_csv(std::string(kHeader) + "2024-01-02,10,11,9,10,1\n", "t.csv");
  EXPECT_TRUE(r.skipped_by_reason.empty());
}

TEST(CsvReaderSkip, AllRowsBadIsStillAnError) {
  const std::string m =
      csv_error_of(std::string(kHeader) + "2024-01-02,nan,11,9,10,1\n", {.skip_bad_rows = true});
  EXPECT_EQ(m.rfind("bad.csv: no bars", 0), 0u) << m;
}

// ---------------------------------------------------------------------------------------
// Timestamps.

TEST(Timestamp, DatesAndTimes) {
  EXPECT_EQ(ts("1970-01-01"), 0);
  EXPECT_EQ(ts("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ts("2004-08-19"), 1092873600 * kSec);
  EXPECT_EQ(ts("2004-08-19T00:00:00"), 1092873600 * kSec);
  EXPECT_EQ(ts("2004-08-19 00:00:01"), 1092873601 * kSec);
  EXPECT_EQ(ts("2021-12-31T23:01:00Z"), 1640991660 * kSec);
  EXPECT_EQ(ts("1969-12-31T23:59:59Z"), -kSec);
  EXPECT_EQ(ts("1900-01-01"), -2208988800 * kSec);
}

TEST(Timestamp, LeapDays) {
  EXPECT_EQ(ts("2024-03-01") - ts("2024-02-29"), 86400 * kSec);
  EXPECT_EQ(ts("2000-03-01") - ts("2000-02-28"), 2 * 86400 * kSec);  // 2000 is a leap year
  EXPECT_TRUE(parses("2000-02-29"));
  EXPECT_FALSE(parses("2023-02-29"));
  EXPECT_FALSE(parses("1900-02-29"));  // divisible by 100, not 400
  EXPECT_FALSE(parses("2100-02-29"));
  EXPECT_FALSE(parses("2024-02-30"));
  EXPECT_FALSE(parses("2024-04-31"));
  EXPECT_TRUE(parses("2024-12-31"));
}

TEST(Timestamp, Offsets) {
  EXPECT_EQ(ts("2024-01-01T00:00:00+01:00"), ts("2023-12-31T23:00:00Z"));
  EXPECT_EQ(ts("2024-01-01T00:00:00-05:30"), ts("2024-01-01T05:30:00Z"));
  EXPECT_EQ(ts("2024-01-01T00:00:00+00:00"), ts("2024-01-01"));
  EXPECT_EQ(ts("2024-01-01T00:00:00-00:00"), ts("2024-01-01"));
  EXPECT_EQ(ts("2024-01-01 12:00:00.25+02:00"), ts("2024-01-01T10:00:00.25Z"));
  EXPECT_FALSE(parses("2024-01-01T00:00:00+0100"));
  EXPECT_FALSE(parses("2024-01-01T00:00:00+1"));
  EXPECT_FALSE(parses("2024-01-01T00:00:00+24:00"));
  EXPECT_FALSE(parses("2024-01-01T00:00:00+01:60"));
  EXPECT_FALSE(parses("2024-01-01T00:00:00ZZ"));
  EXPECT_FALSE(parses("2024-01-01T00:00:00z"));
}

TEST(Timestamp, Fractions) {
  EXPECT_EQ(ts("1970-01-01T00:00:00.5Z"), 500'000'000);
  EXPECT_EQ(ts("1970-01-01T00:00:00.000000001"), 1);
  EXPECT_EQ(ts("1970-01-01T00:00:00.123456789Z"), 123'456'789);
  EXPECT_EQ(ts("1970-01-01T00:00:01.000"), kSec);
  EXPECT_EQ(ts("1969-12-31T23:59:59.5Z"), -500'000'000);
  EXPECT_FALSE(parses("1970-01-01T00:00:00.1234567890"));  // 10 digits
  EXPECT_FALSE(parses("1970-01-01T00:00:00."));
  EXPECT_FALSE(parses("1970-01-01T00:00:00.Z"));
  EXPECT_FALSE(parses("1970-01-01T00:00:00,5"));
}

TEST(Timestamp, InvalidText) {
  for (const char* text : {"",
                           "2024",
                           "2024-01",
                           "2024-1-01",
                           "2024-01-1",
                           "24-01-01",
                           "2024/01/01",
                           "2024-00-10",
                           "2024-13-01",
                           "2024-01-00",
                           "2024-01-32",
                           "2024-01-01T",
                           "2024-01-01T12",
                           "2024-01-01T12:00",
                           "2024-01-01T24:00:00",
                           "2024-01-01T23:60:00",
                           "2024-01-01T23:59:60",
                           "2024-01-01t00:00:00",
                           "2024-01-01Z",
                           "2024-01-01x",
                           "2024-01-01T00:00:00 ",
                           " 2024-01-01",
                           "2024-01-01T0a:00:00",
                           "+2024-01-01",
                           "1700000000"}) {
    EXPECT_FALSE(parses(text)) << '"' << text << '"';
  }
}

TEST(Timestamp, Int64Range) {
  EXPECT_EQ(ts("2262-04-11T23:47:16.854775807Z"), INT64_MAX);
  EXPECT_EQ(ts("1677-09-21T00:12:43.145224192Z"), INT64_MIN);
  EXPECT_FALSE(parses("2262-04-11T23:47:16.854775808Z"));
  EXPECT_FALSE(parses("1677-09-21T00:12:43.145224191Z"));
  EXPECT_FALSE(parses("9999-12-31"));
  EXPECT_FALSE(parses("0001-01-01"));
}

TEST(Timestamp, Format) {
  EXPECT_EQ(format_timestamp(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(format_timestamp(1), "1970-01-01T00:00:00.000000001Z");
  EXPECT_EQ(format_timestamp(-1), "1969-12-31T23:59:59.999999999Z");
  EXPECT_EQ(format_timestamp(1092873600 * kSec), "2004-08-19T00:00:00Z");
  EXPECT_EQ(format_timestamp(ts("2024-02-29T13:14:15.5Z")), "2024-02-29T13:14:15.500000000Z");
  EXPECT_EQ(format_timestamp(INT64_MAX), "2262-04-11T23:47:16.854775807Z");
  EXPECT_EQ(format_timestamp(INT64_MIN), "1677-09-21T00:12:43.145224192Z");
}

TEST(Timestamp, RoundTripRandom) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 100'000; ++i) {
    // Whole seconds half the time (no fraction printed), any ns otherwise.
    int64_t v = static_cast<int64_t>(rng());
    if (i % 2 == 0) v = v / kSec * kSec;
    const std::string text = format_timestamp(v);
    int64_t back = 0;
    ASSERT_TRUE(parse_timestamp(text, back)) << text;
    ASSERT_EQ(back, v) << text;
  }
}

// Every day from 1800 to 2200 against a day counter: the calendar itself, not just inverses.
TEST(Timestamp, ConsecutiveDays) {
  int64_t expected = ts("1800-01-01");
  EXPECT_EQ(expected, -5364662400 * kSec);
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int y = 1800; y < 2200; ++y) {
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    for (int m = 1; m <= 12; ++m) {
      const int days = kDays[m - 1] + (m == 2 && leap ? 1 : 0);
      for (int d = 1; d <= days; ++d) {
        char text[48];
        std::snprintf(text, sizeof text, "%04d-%02d-%02d", y, m, d);
        int64_t v = 0;
        ASSERT_TRUE(parse_timestamp(text, v)) << text;
        ASSERT_EQ(v, expected) << text;
        expected += 86400 * kSec;
      }
      char past_end[48];
      std::snprintf(past_end, sizeof past_end, "%04d-%02d-%02d", y, m, days + 1);
      ASSERT_FALSE(parses(past_end)) << past_end;
    }
  }
}

// A line past 1 MiB ends the read with its line number: binary data or an endless device
// (/dev/zero) must not be read into memory until the machine runs out.
TEST(CsvReaderLimits, AnOverlongLineIsAnErrorNamingIt) {
  const fs::path path = fs::temp_directory_path() / "wfod_csv_reader_long_line.csv";
  {
    std::ofstream out(path);
    out << "timestamp,open,high,low,close,volume\n2020-01-01,1,1,1,1,1\n"
        << std::string((size_t{1} << 20) + 10, '9') << "\n";
  }
  try {
    read_csv(path.string());
    ADD_FAILURE() << "no error";
  } catch (const CsvError& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ":3: a line longer than 1 MiB"),
              std::string::npos)
        << e.what();
  }
  fs::remove(path);
  if (fs::exists("/dev/zero")) {
    EXPECT_THROW(read_csv("/dev/zero"), CsvError);
  }
}

}  // namespace
}  // namespace wfod::feeds
