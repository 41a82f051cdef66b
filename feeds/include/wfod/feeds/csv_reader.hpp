// CSV history files (SPEC §1 validation): header timestamp,open,high,low,close,volume,
// ISO-8601 or date timestamps. Bad rows are errors naming file, line and field, or, when
// asked, skipped and counted by reason. Never a silent guess.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "wfod/bar.hpp"

namespace wfod::feeds {

class CsvError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CsvReadOptions {
  bool skip_bad_rows = false;  // count bad rows by reason instead of failing
};

struct CsvReadResult {
  Series series;
  size_t rows_read = 0;                             // data rows seen (header excluded)
  std::map<std::string, size_t> skipped_by_reason;  // only with skip_bad_rows
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
// ns -> "YYYY-MM-DDTHH:MM:SS[.fffffffff]Z" (fraction only when non-zero).
std::string format_timestamp(int64_t ts_ns);

}  // namespace wfod::feeds
