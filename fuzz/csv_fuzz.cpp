// Fuzzes the CSV history reader (parse_csv, the in-memory entry point read_csv uses) in
// both modes, strict and skip_bad_rows. Beyond "no crash, no leak, no UB" it asserts:
// - only CsvError escapes, and its message starts with the source name (file:line);
// - a CSV that parses yields >= 1 bar, each passing SPEC §1 (finite prices > 0,
//   low <= min(open, close), high >= max(open, close), finite volume >= 0, checked here
//   straight from the SPEC and by the feed validator's check_values), ts strictly rising;
// - skip mode accounts for every row: rows_read == bars + sum(skipped_by_reason); where
//   strict mode succeeds, skip mode returns the same bars and skips nothing;
// - written back as CSV (format_timestamp, shortest round-trip decimals) the bars parse to
//   the same series, bit for bit.
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bar_equal.hpp"
#include "fuzz_check.hpp"
#include "wfod/feeds/bar_validator.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace {

using namespace wfod::feeds;

constexpr std::string_view kSource = "fuzz.csv";

wfod::Bar bar_at(const wfod::Series& s, size_t i) {
  return {s.ts_ns[i], s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i], 0};
}

bool same_series(const wfod::Series& a, const wfod::Series& b) {
  if (a.size() != b.size() || a.ts_ns.size() != b.ts_ns.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!wfod::fuzz::bit_equal(bar_at(a, i), bar_at(b, i))) return false;
  }
  return true;
}

// SPEC §1, written straight.
void check_spec_bars(const wfod::Series& s) {
  WFOD_FUZZ_CHECK(s.size() > 0, "a CSV that parses has at least one bar");
  for (size_t i = 0; i < s.size(); ++i) {
    const wfod::Bar b = bar_at(s, i);
    for (const double p : {b.open, b.high, b.low, b.close}) {
      WFOD_FUZZ_CHECK(std::isfinite(p) && p > 0, "prices are finite and > 0");
    }
    WFOD_FUZZ_CHECK(std::isfinite(b.volume) && b.volume >= 0, "volume is finite and >= 0");
    WFOD_FUZZ_CHECK(b.low <= std::min(b.open, b.close), "low <= min(open, close)");
    WFOD_FUZZ_CHECK(b.high >= std::max(b.open, b.close), "high >= max(open, close)");
    WFOD_FUZZ_CHECK(!check_values(b), "the feed validator accepts every CSV bar");
    WFOD_FUZZ_CHECK(i == 0 || s.ts_ns[i] > s.ts_ns[i - 1], "ts strictly increases");
  }
}

void append_number(std::string& out, double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

std::string to_csv(const wfod::Series& s) {
  std::string out = "timestamp,open,high,low,close,volume\n";
  for (size_t i = 0; i < s.size(); ++i) {
    out += format_timestamp(s.ts_ns[i]);
    for (const double v : {s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i]}) {
      out += ',';
      append_number(out, v);
    }
    out += '\n';
  }
  return out;
}

// The parse result, or nullopt for a CsvError (any other exception escapes: a crash).
std::optional<CsvReadResult> try_parse(std::string_view text, bool skip_bad_rows) {
  try {
    return parse_csv(text, kSource, CsvReadOptions{skip_bad_rows});
  } catch (const CsvError& e) {
    WFOD_FUZZ_CHECK(std::string_view(e.what()).starts_with(kSource),
                    "a CSV error names its source");
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::optional<CsvReadResult> strict = try_parse(text, false);
  const std::optional<CsvReadResult> skipping = try_parse(text, true);

  if (strict) {
    check_spec_bars(strict->series);
    WFOD_FUZZ_CHECK(strict->rows_read == strict->series.size(), "strict mode keeps every row");
    WFOD_FUZZ_CHECK(skipping.has_value(), "what strict mode reads, skip mode reads");
    WFOD_FUZZ_CHECK(skipping->skipped_by_reason.empty(), "skip mode skips nothing then");
    WFOD_FUZZ_CHECK(same_series(strict->series, skipping->series), "both modes agree");
  }
  if (skipping) {
    check_spec_bars(skipping->series);
    size_t skipped = 0;
    for (const auto& [reason, n] : skipping->skipped_by_reason) skipped += n;
    WFOD_FUZZ_CHECK(skipping->rows_read == skipping->series.size() + skipped,
                    "every data row is either a bar or counted as skipped");

    const std::string written = to_csv(skipping->series);
    const std::optional<CsvReadResult> again = try_parse(written, false);
    WFOD_FUZZ_CHECK(again.has_value(), "the bars, written back as CSV, parse");
    WFOD_FUZZ_CHECK(same_series(again->series, skipping->series), "CSV write -> read is exact");
  }
  return 0;
}
