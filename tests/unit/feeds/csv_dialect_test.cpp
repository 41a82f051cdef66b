// Tests of the CSV dialects common exports write (feeds/src/csv_header.cpp and the epoch
// timestamps of timestamp.cpp): a Yahoo-style daily export, an exchange-style ';' file of
// epoch milliseconds, a tab file of epoch seconds, each written by the test and read back
// to the same bars as the canonical file; and the header errors, which list the columns
// found and the names accepted.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::feeds {
namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

// Three daily bars, 2024-01-02..04 (closes at 00:00 UTC, as date-only rows are read).
constexpr std::string_view kCanonical =
    "timestamp,open,high,low,close,volume\n"
    "2024-01-02,10,11,9,10.5,100\n"
    "2024-01-03,10.5,12,10,11.25,200\n"
    "2024-01-04,11.25,11.5,10.75,11,0\n";
constexpr int64_t kJan2 = 1'704'153'600;  // 2024-01-02T00:00:00Z in seconds

std::string dialect_error_of(std::string_view text) {
  try {
    parse_csv(text, "bad.csv");
  } catch (const CsvError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no CsvError for:\n" << text;
  return "";
}

void expect_same_bars(const Series& a, const Series& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a.ts_ns[i], b.ts_ns[i]);
    EXPECT_EQ(a.open[i], b.open[i]);
    EXPECT_EQ(a.high[i], b.high[i]);
    EXPECT_EQ(a.low[i], b.low[i]);
    EXPECT_EQ(a.close[i], b.close[i]);
    EXPECT_EQ(a.volume[i], b.volume[i]);
  }
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Written to a file and read with read_csv, as a user's export would be.
CsvReadResult read_written(const std::string& text, const std::string& name) {
  test::TempDir dir("csv_dialect");
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return read_csv(path);
}

TEST(CsvDialect, YahooExportReadsAsTheCanonicalFileAndNotesAdjClose) {
  // Yahoo Finance's download: Date first, Adj Close before Volume.
  const std::string yahoo =
      "Date,Open,High,Low,Close,Adj Close,Volume\n"
      "2024-01-02,10,11,9,10.5,10.1,100\n"
      "2024-01-03,10.5,12,10,11.25,10.9,200\n"
      "2024-01-04,11.25,11.5,10.75,11,10.6,0\n";
  const CsvReadResult r = read_written(yahoo, "GOOG.csv");
  expect_same_bars(r.series, parse_csv(kCanonical, "c.csv").series);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "column 'Adj Close' is not used")) << r.notes[0];
  EXPECT_TRUE(parse_csv(kCanonical, "c.csv").notes.empty());
}

TEST(CsvDialect, ExchangeSemicolonEpochMilliseconds) {
  // Binance-klines-like: epoch ms close times, ';' separated, extra columns.
  std::string text = "open_time;open;high;low;close;volume;close_time;number_of_trades\n";
  const int64_t day_ms = 86'400'000;
  const char* prices[] = {"10;11;9;10.5;100", "10.5;12;10;11.25;200", "11.25;11.5;10.75;11;0"};
  for (int i = 0; i < 3; ++i) {
    const int64_t close_ms = (kJan2 * 1000) + i * day_ms;
    text += std::to_string(close_ms - day_ms) + ";" + prices[i] + ";" + std::to_string(close_ms) +
            ";42\n";
  }
  const CsvReadResult r = read_written(text, "BTCUSDT-1d.csv");
  // close_time is the bar's timestamp (SPEC §1 stamps a bar at its close); no note.
  expect_same_bars(r.series, parse_csv(kCanonical, "c.csv").series);
  EXPECT_TRUE(r.notes.empty());
}

TEST(CsvDialect, OpenTimeAloneIsUsedAndSaidSo) {
  const CsvReadResult r = parse_csv(
      "open_time;open;high;low;close;volume\n"
      "1704153600000;10;11;9;10.5;100\n"
      "1704153660000;10.5;12;10;11.25;200\n",
      "m.csv");
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.series.ts_ns[0], kJan2 * kSecondNs);
  EXPECT_EQ(r.series.ts_ns[1] - r.series.ts_ns[0], 60 * kSecondNs);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_TRUE(contains(r.notes[0], "'open_time' is each bar's open time")) << r.notes[0];
}

TEST(CsvDialect, TabEpochSecondsAnyCase) {
  std::string text = "TIME\tOpen\tHIGH\tlow\tClose\tVolume\n";
  const char* prices[] = {"10\t11\t9\t10.5\t100", "10.5\t12\t10\t11.25\t200",
                          "11.25\t11.5\t10.75\t11\t0"};
  for (int i = 0; i < 3; ++i) {
    text += std::to_string(kJan2 + i * 86'400) + "\t" + prices[i] + "\n";
  }
  const CsvReadResult r = read_written(text, "tab.tsv");
  expect_same_bars(r.series, parse_csv(kCanonical, "c.csv").series);
}

TEST(CsvDialect, HeaderAliases) {
  for (const char* ts_name :
       {"timestamp", "Date", "Datetime", "time", "Close Time", "close_time", "DATE_TIME"}) {
    SCOPED_TRACE(ts_name);
    const CsvReadResult r = parse_csv(
        std::string(ts_name) + ",Open,High,Low,Close,Volume\n2024-01-02,1,1,1,1,1\n", "a.csv");
    EXPECT_EQ(r.series.ts_ns[0], kJan2 * kSecondNs);
  }
}

TEST(CsvDialect, EpochUnitsByMagnitude) {
  const auto epoch = [](std::string_view text) {
    int64_t v = 0;
    EXPECT_TRUE(parse_epoch_timestamp(text, v)) << text;
    return v;
  };
  // The same instant in each unit.
  EXPECT_EQ(epoch("1704153600"), kJan2 * kSecondNs);
  EXPECT_EQ(epoch("1704153600000"), kJan2 * kSecondNs);
  EXPECT_EQ(epoch("1704153600000000"), kJan2 * kSecondNs);
  EXPECT_EQ(epoch("1704153600000000000"), kJan2 * kSecondNs);
  // Each range's edges: 1e8 of each unit is 1973-03-03T09:46:40Z.
  constexpr int64_t k1973 = 100'000'000 * kSecondNs;
  EXPECT_EQ(epoch("100000000"), k1973);
  EXPECT_EQ(epoch("100000000000"), k1973);
  EXPECT_EQ(epoch("100000000000000"), k1973);
  EXPECT_EQ(epoch("100000000000000000"), k1973);
  EXPECT_EQ(epoch("9223372036854"), 9'223'372'036'854 * 1'000'000);  // ms, 2262-04-11
  EXPECT_EQ(epoch("9223372036"), 9'223'372'036 * kSecondNs);         // s, 2262-04-11
  EXPECT_EQ(epoch("9223372036854775807"), INT64_MAX);                // ns
  EXPECT_EQ(epoch("0001704153600"), kJan2 * kSecondNs);  // the magnitude counts, not the digits
}

TEST(CsvDialect, EpochNumbersRefused) {
  for (const char* text : {"", "0", "99999999", "20240102", "-1704153600", "+1704153600",
                           "1704153600.5", "1.7e9", "1704153600 ", "9223372037", "99999999999",
                           "9223372036854776", "9223372036854775808", "12345678901234567890"}) {
    int64_t v = 0;
    EXPECT_FALSE(parse_epoch_timestamp(text, v)) << '"' << text << '"';
  }
}

// ---------------------------------------------------------------------------------------
// Issue 42 §3: the exports people have, each in its exact shape.

// MetaTrader 5: tab separated, <ANGLE> names, <DATE> and <TIME>, dotted dates, <TICKVOL>,
// <VOL> (the volume) and <SPREAD>.
TEST(CsvDialect, MetaTrader5Export) {
  const CsvReadResult r = parse_csv(
      "<DATE>\t<TIME>\t<OPEN>\t<HIGH>\t<LOW>\t<CLOSE>\t<TICKVOL>\t<VOL>\t<SPREAD>\n"
      "2024.01.02\t00:00:00\t10\t11\t9\t10.5\t37\t100\t12\n"
      "2024.01.03\t00:00:00\t10.5\t12\t10\t11.25\t41\t200\t12\n"
      "2024.01.04\t00:00:00\t11.25\t11.5\t10.75\t11\t8\t0\t13\n",
      "mt5.csv");
  expect_same_bars(r.series, parse_csv(kCanonical, "canonical.csv").series);
}

// Stooq intraday: Date and Time columns; a time without seconds is the minute's start.
TEST(CsvDialect, DateAndTimeColumnsJoin) {
  const CsvReadResult r = parse_csv(
      "Date,Time,Open,High,Low,Close,Volume\n"
      "2024-01-02,09:30:00,10,11,9,10.5,100\n"
      "2024-01-02,09:31,10.5,12,10,11.25,200\n",
      "stooq.csv");
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.series.ts_ns[0], (kJan2 + 9 * 3600 + 30 * 60) * kSecondNs);
  EXPECT_EQ(r.series.ts_ns[1], (kJan2 + 9 * 3600 + 31 * 60) * kSecondNs);
  // A date column alone is still the timestamp, a dotted one too.
  EXPECT_EQ(
      parse_csv("date,open,high,low,close,volume\n2024.01.02,1,1,1,1,0\n", "d.csv").series.ts_ns[0],
      kJan2 * kSecondNs);
}

// Exchange klines without a header: the columns named by the caller (wfo's --columns).
TEST(CsvDialect, HeaderlessKlinesWithGivenColumns) {
  CsvReadOptions o;
  o.columns = {"_", "open", "high", "low", "close", "volume", "close_time", "_", "_"};
  const std::string klines =
      "1704067200000,10,11,9,10.5,100,1704153600000,0,7\n"
      "1704153600000,10.5,12,10,11.25,200,1704240000000,0,7\n"
      "1704240000000,11.25,11.5,10.75,11,0,1704326400000,0,7\n";
  expect_same_bars(parse_csv(klines, "k.csv", o).series,
                   parse_csv(kCanonical, "canonical.csv").series);
  o.columns = {"ts", "open", "high", "low", "close", "volume"};
  std::string m;
  try {
    parse_csv(klines, "k.csv", o);
  } catch (const CsvError& e) {
    m = e.what();
  }
  EXPECT_EQ(m.rfind("k.csv:1: wrong number of fields: expected 6, got 9", 0), 0u) << m;
}

// Header errors: what was found, what is accepted, file and line.

TEST(CsvDialectErrors, MissingColumnsListWhatWasFoundAndWhatIsAccepted) {
  const std::string m = dialect_error_of("Date;Price;Open;High;Low;Vol.;Change %\n");
  EXPECT_EQ(m.rfind("bad.csv:1: missing columns 'close', 'volume' (found 7 ';'-separated: "
                    "'Date', 'Price', 'Open', 'High', 'Low', 'Vol.', 'Change %'; accepted, ",
                    0),
            0u)
      << m;
  EXPECT_TRUE(contains(m,
                       "timestamp (or date, datetime, time, close_time, open_time, ts; or "
                       "date and time in two columns), open, high, low, close, volume (or "
                       "vol)"))
      << m;
  EXPECT_TRUE(contains(m, "delimiter ',', ';' or tab")) << m;
  // A volume column is required: every bar has one (a volume-less export is refused, not
  // given an invented 0).
  EXPECT_TRUE(contains(dialect_error_of("Date,Open,High,Low,Close\n2024-01-02,1,1,1,1\n"),
                       "missing column 'volume' (found 5 ','-separated"));
}

TEST(CsvDialectErrors, HeaderlessFileIsNamedSo) {
  const std::string m =
      dialect_error_of("1704153600000;10;11;9;10.5;100\n1704153660000;10;11;9;10;1\n");
  EXPECT_EQ(m.rfind("bad.csv:1: the first line is data, not a header (its first field "
                    "'1704153600000' is a time)",
                    0),
            0u)
      << m;
}

TEST(CsvDialectErrors, ATimestampBesideADateColumnIsAmbiguous) {
  // Date and Time together are one time (CsvDialect.DateAndTimeColumnsJoin); a timestamp
  // column beside either is a guess, refused.
  const std::string m = dialect_error_of("Timestamp,Date,Open,High,Low,Close,Volume\n");
  EXPECT_EQ(m.rfind("bad.csv:1: duplicate column 'timestamp': 'Timestamp', 'Date' all name it", 0),
            0u)
      << m;
  EXPECT_TRUE(contains(m, "a date and a time of day may be two columns")) << m;
}

TEST(CsvDialectErrors, MixedDelimitersInTheHeaderAreRefused) {
  const std::string m = dialect_error_of("timestamp,open;high,low;close\tvolume\n");
  EXPECT_EQ(m.rfind("bad.csv:1: the header holds 2 ',' and as many ';'", 0), 0u) << m;
}

TEST(CsvDialectErrors, RowsMustUseTheHeadersDelimiter) {
  const std::string m =
      dialect_error_of("timestamp;open;high;low;close;volume\n2024-01-02,1,1,1,1,1\n");
  EXPECT_EQ(m,
            "bad.csv:2: wrong number of fields: expected 6, got 1 (';'-separated, as the "
            "header)");
}

TEST(CsvDialectErrors, DecimalCommasAreNamed) {
  const std::string m =
      dialect_error_of("timestamp;open;high;low;close;volume\n2024-01-02;1,5;2;1;1,5;1\n");
  EXPECT_EQ(m,
            "bad.csv:2: field 'open': not a number (\"1,5\"): decimal commas are not "
            "supported: write 1.5, not 1,5");
}

TEST(CsvDialectErrors, BadEpochRowSaysWhatIsAccepted) {
  const std::string m = dialect_error_of("time,open,high,low,close,volume\n20240102,1,1,1,1,1\n");
  EXPECT_TRUE(contains(m, "bad.csv:2: field 'timestamp': not a timestamp (\"20240102\")")) << m;
  EXPECT_TRUE(contains(m, "whole epoch seconds, milliseconds, microseconds or nanoseconds")) << m;
}

}  // namespace
}  // namespace wfod::feeds
