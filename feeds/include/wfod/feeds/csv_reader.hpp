// CSV history files (SPEC §1 validation): a header naming timestamp, open, high, low,
// close, volume (any case and order, with the aliases of common exports: Date, Datetime,
// time, close_time, open_time; Date and Time as two columns; MetaTrader's <ANGLE> names;
// Adj Close noted and not used), or column names given for a headerless file; ',' ';' or
// tab delimited, ISO-8601, dotted (2024.01.02), date or epoch (s, ms, us, ns) timestamps. Bad rows
// are errors naming file, line and field, or, when asked, skipped and counted by reason. Never a
// silent guess.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "wfod/bar.hpp"

namespace wfod::feeds {

class CsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CsvReadOptions {
  bool skip_bad_rows = false;  // count bad rows by reason instead of failing
  // A file without a header line (exchange klines): the name of each column in order,
  // as a header would name it ("ts", "open", ...; "_" for a column not used). Empty: the
  // file's first line is its header.
  std::vector<std::string> columns = {};  // "= {}": designated initializers may omit it
};

struct CsvReadResult {
  Series series;
  size_t rows_read = 0;                             // data rows seen (header excluded)
  std::map<std::string, size_t> skipped_by_reason;  // only with skip_bad_rows
  // Once-per-file remarks for the user, e.g. "column 'Adj Close' is not used: ...": wfo
  // prints them on stderr, the daemon's backfill logs them.
  std::vector<std::string> notes;
};

// Reads a whole file. Throws CsvError ("FILE:LINE: field 'close': ...") on the first bad
// row (or a bad header / empty file even with skip_bad_rows).
CsvReadResult read_csv(const std::string& path, const CsvReadOptions& = {});
// Same, from text already in memory; `source_name` is used in messages.
CsvReadResult parse_csv(std::string_view text, std::string_view source_name,
                        const CsvReadOptions& = {});

// Timestamp text -> ns since the Unix epoch, UTC. Accepts "YYYY-MM-DD" (00:00:00 UTC),
// "YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]" (a space may replace the T; no zone =
// UTC). Returns false on anything else.
bool parse_timestamp(std::string_view text, int64_t& ts_ns);
// A whole epoch number -> ns since the Unix epoch, its unit told by its magnitude, so
// every accepted number has one reading: [1e8, 1e11) seconds, [1e11, 1e14) milliseconds,
// [1e14, 1e17) microseconds, [1e17, 2^63) nanoseconds. Each range starts at
// 1973-03-03T09:46:40Z; all end at 2262-04-11 (the int64 ns limit). Smaller numbers (and
// YYYYMMDD dates, which are below 1e8) are refused, as are signs, fractions and values
// beyond the int64 ns range. Returns false on anything else.
bool parse_epoch_timestamp(std::string_view text, int64_t& ts_ns);
// ns -> "YYYY-MM-DDTHH:MM:SS[.fffffffff]Z" (fraction only when non-zero).
std::string format_timestamp(int64_t ts_ns);

}  // namespace wfod::feeds
