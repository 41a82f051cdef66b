// CSV history reader (SPEC §1): a header naming timestamp, open, high, low, close, volume
// in any order (csv_header.cpp: names, aliases, delimiter), one bar per line, every row
// validated. The file is read whole and parsed in place with
// string_views, so a 45k-row minute file takes milliseconds.
#include "wfod/feeds/csv_reader.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "csv_header.hpp"
#include "csv_timestamp.hpp"

namespace wfod::feeds {
namespace {

using csv::Column;
using csv::kClose;
using csv::kColumnCount;
using csv::kColumnNames;
using csv::kHigh;
using csv::kLow;
using csv::kOpen;
using csv::kTimestamp;
using csv::kVolume;
using csv::split_fields;
using csv::trim;

// Walks the text line by line, counting physical lines; strips the '\r' of CRLF endings.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : text_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const size_t nl = text_.find('\n', pos_);
    const size_t end = nl == std::string_view::npos ? text_.size() : nl;
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    ++line_number_;
    return true;
  }
  size_t line_number() const { return line_number_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_number_ = 0;
};

// Why a row was rejected: a stable key for skipped_by_reason and the message after
// "FILE:LINE: ".
struct BadRow {
  std::string_view reason;
  std::string message;
};

std::string quoted(std::string_view text) { return "(\"" + std::string(text) + "\")"; }

// "field 'low': low above min(open, close) ("1.5"): open 1, close 1" -- what is wrong, the
// field's text, and, when it helps, a note.
BadRow field_error(std::string_view reason, Column col, std::string_view what,
                   std::string_view text, std::string_view note = {}) {
  std::string message =
      "field '" + std::string(kColumnNames[col]) + "': " + std::string(what) + " " + quoted(text);
  if (!note.empty()) message += ": " + std::string(note);
  return {reason, std::move(message)};
}

// Strict: the whole field must be a finite decimal number.
std::optional<BadRow> parse_number(std::string_view text, Column col, double& value) {
  if (text.empty()) return field_error("number", col, "empty", text);
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    return field_error("number", col, "number out of range", text);
  }
  if (ec != std::errc() || ptr != end) {
    // A ';'-separated export from a locale that writes 1,5 for 1.5.
    return field_error("number", col, "not a number", text,
                       text.find(',') != std::string_view::npos
                           ? "decimal commas are not supported: write 1.5, not 1,5"
                           : "");
  }
  if (!std::isfinite(value)) return field_error("number", col, "not a finite number", text);
  return std::nullopt;
}

class CsvParser {
 public:
  CsvParser(std::string_view source, const CsvReadOptions& options)
      : source_(source), options_(options) {}

  CsvReadResult parse(std::string_view text) {
    // A UTF-8 byte order mark is an encoding artefact, not part of the first column name.
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    LineCursor lines(text);
    std::string_view line;
    bool have_header = false;
    if (!options_.columns.empty()) {
      // No header line: the first line of data tells the delimiter, the names are given.
      LineCursor peek(text);
      while (!have_header && peek.next(line)) {
        if (trim(line).empty()) continue;
        reject_quotes(line, peek.line_number());
        const char delimiter = csv::detect_delimiter(line, location(peek.line_number()));
        header_ = csv::header_from_names(options_.columns, delimiter,
                                         std::string(source_) + ": the column names given: ");
        have_header = true;
      }
      if (!have_header) throw CsvError(std::string(source_) + ": empty file");
    }
    while (!have_header && lines.next(line)) {
      if (trim(line).empty()) continue;
      read_header(line, lines.line_number());
      have_header = true;
    }
    if (!have_header) throw CsvError(std::string(source_) + ": empty file (no header)");

    CsvReadResult result;
    result.notes = header_.notes;
    // One bar per remaining line, at most; reserving avoids regrowing six columns.
    result.series.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    Bar bar;
    while (lines.next(line)) {
      if (trim(line).empty()) continue;
      ++result.rows_read;
      std::optional<BadRow> bad = parse_row(line, lines.line_number(), bar);
      if (!bad) bad = check_order(bar);
      if (!bad) {
        result.series.push_back(bar);
        last_ts_ns_ = bar.ts_ns;
        continue;
      }
      if (!options_.skip_bad_rows) throw CsvError(location(lines.line_number()) + bad->message);
      ++result.skipped_by_reason[std::string(bad->reason)];
    }
    if (result.series.size() == 0) {
      std::string message = std::string(source_) + ": no bars";
      if (result.rows_read > 0) {
        message += " (all " + std::to_string(result.rows_read) + " data rows were bad)";
      }
      throw CsvError(message);
    }
    return result;
  }

 private:
  std::string location(size_t line_number) const {
    return std::string(source_) + ":" + std::to_string(line_number) + ": ";
  }

  // A quoted field could hide a comma or a newline; we do not guess at CSV dialects.
  void reject_quotes(std::string_view line, size_t line_number) const {
    if (line.find('"') != std::string_view::npos) {
      throw CsvError(location(line_number) +
                     "quoted fields are not supported (a field contains '\"')");
    }
  }

  void read_header(std::string_view line, size_t line_number) {
    reject_quotes(line, line_number);
    header_ = csv::read_header(line, location(line_number));
  }

  std::optional<BadRow> parse_row(std::string_view line, size_t line_number, Bar& bar) {
    reject_quotes(line, line_number);
    split_fields(line, header_.delimiter, fields_);
    if (fields_.size() != header_.field_count) {
      return BadRow{"field_count",
                    "wrong number of fields: expected " + std::to_string(header_.field_count) +
                        ", got " + std::to_string(fields_.size()) + " (" +
                        csv::delimiter_name(header_.delimiter) + "-separated, " +
                        (options_.columns.empty()
                             ? std::string("as the header)")
                             : "as the " + std::to_string(header_.field_count) +
                                   " column names given: name every column, '_' for one not "
                                   "used)")};
    }
    const std::string_view ts_text = fields_[header_.columns[kTimestamp]];
    const std::string_view time_text =
        header_.time_column == csv::kNoColumn ? std::string_view{} : fields_[header_.time_column];
    if (!csv::parse_row_time(ts_text, time_text, scratch_, bar.ts_ns)) {
      if (!time_text.empty()) {
        return field_error("timestamp", kTimestamp, "not a date and time of day",
                           std::string(ts_text) + "\", \"" + std::string(time_text),
                           "expected a date (YYYY-MM-DD or YYYY.MM.DD) and a time of day "
                           "(HH:MM, HH:MM:SS[.fraction]) in the date and time columns");
      }
      return field_error("timestamp", kTimestamp, "not a timestamp", ts_text,
                         "expected YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM] "
                         "(or YYYY.MM.DD dates) or whole epoch seconds, milliseconds, "
                         "microseconds or nanoseconds (from 1973-03-03, 100000000 s)");
    }
    double* const values[] = {nullptr, &bar.open, &bar.high, &bar.low, &bar.close, &bar.volume};
    for (size_t c = kOpen; c < kColumnCount; ++c) {
      if (auto bad = parse_number(fields_[header_.columns[c]], Column(c), *values[c])) return bad;
    }
    for (size_t c = kOpen; c <= kClose; ++c) {
      if (!(*values[c] > 0)) {
        return field_error("price_not_positive", Column(c), "price must be > 0",
                           fields_[header_.columns[c]]);
      }
    }
    // Built only for a bad row: the good-row path allocates nothing.
    const auto open_close = [&] {
      return "open " + std::string(fields_[header_.columns[kOpen]]) + ", close " +
             std::string(fields_[header_.columns[kClose]]);
    };
    if (bar.low > std::min(bar.open, bar.close)) {
      return field_error("ohlc_inconsistent", kLow, "low above min(open, close)",
                         fields_[header_.columns[kLow]], open_close());
    }
    if (bar.high < std::max(bar.open, bar.close)) {
      return field_error("ohlc_inconsistent", kHigh, "high below max(open, close)",
                         fields_[header_.columns[kHigh]], open_close());
    }
    if (bar.volume < 0) {
      return field_error("volume", kVolume, "volume must be >= 0",
                         fields_[header_.columns[kVolume]]);
    }
    return std::nullopt;
  }

  // SPEC §1: time strictly increases, compared with the last accepted bar.
  std::optional<BadRow> check_order(const Bar& bar) const {
    if (!last_ts_ns_ || bar.ts_ns > *last_ts_ns_) return std::nullopt;
    const std::string_view ts_text = fields_[header_.columns[kTimestamp]];
    const std::string previous = "the previous bar is at " + format_timestamp(*last_ts_ns_);
    if (bar.ts_ns == *last_ts_ns_) {
      return field_error("duplicate", kTimestamp, "duplicate timestamp", ts_text, previous);
    }
    return field_error("out_of_order", kTimestamp, "out of order timestamp", ts_text, previous);
  }

  std::string_view source_;
  CsvReadOptions options_;
  csv::Header header_;
  std::vector<std::string_view> fields_;
  std::string scratch_;  // a row's time rewritten or joined (csv_timestamp.hpp)
  std::optional<int64_t> last_ts_ns_;
};

}  // namespace

CsvReadResult parse_csv(std::string_view text, std::string_view source_name,
                        const CsvReadOptions& options) {
  return CsvParser(source_name, options).parse(text);
}

CsvReadResult read_csv(const std::string& path, const CsvReadOptions& options) {
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw CsvError(path + ": cannot read: " + std::strerror(errno));
  // No line of a bar CSV comes near this; a longer one is binary data or an endless device
  // (--csv /dev/zero), which would otherwise be read into memory until the machine ran out.
  constexpr size_t kMaxLineBytes = size_t{1} << 20;
  std::string text;
  char buf[1 << 16];
  size_t n = 0, line = 1, line_start = 0;
  const auto too_long = [&] {
    return CsvError(path + ":" + std::to_string(line) +
                    ": a line longer than 1 MiB: not a CSV of bars (binary data, or a device "
                    "that never ends a line?)");
  };
  while ((n = std::fread(buf, 1, sizeof buf, file.get())) > 0) {
    text.append(buf, n);
    const char* const end = text.data() + text.size();
    for (const char* p = end - n; (p = static_cast<const char*>(std::memchr(p, '\n', end - p)));
         ++p) {
      const size_t next = static_cast<size_t>(p - text.data()) + 1;
      if (next - line_start > kMaxLineBytes) throw too_long();
      ++line;
      line_start = next;
    }
    if (text.size() - line_start > kMaxLineBytes) throw too_long();
  }
  if (std::ferror(file.get())) throw CsvError(path + ": cannot read: " + std::strerror(errno));
  return parse_csv(text, path, options);
}

}  // namespace wfod::feeds
