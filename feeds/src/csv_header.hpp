// The header line of a CSV history file (internal to feeds): which delimiter the file uses
// and which column holds each bar field, from the names common exports use (Yahoo's
// Date/Adj Close, exchanges' open_time/close_time, any case), with an error that lists
// what was found and what is accepted.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace wfod::feeds::csv {

enum Column { kTimestamp, kOpen, kHigh, kLow, kClose, kVolume, kColumnCount };
// The canonical names, used in messages ("field 'close': ...").
inline constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "timestamp", "open", "high", "low", "close", "volume"};

inline constexpr size_t kNoColumn = static_cast<size_t>(-1);

struct Header {
  char delimiter = ',';
  size_t field_count = 0;                      // fields every row must have
  std::array<size_t, kColumnCount> columns{};  // the field index of each column
  // A separate time-of-day column (Stooq intraday's Date,Time; MT5's <DATE>,<TIME>): the
  // timestamp is columns[kTimestamp]'s date joined with this; kNoColumn when none.
  size_t time_column = kNoColumn;
  // Once-per-file remarks for the user (a column present and not used, bars stamped with
  // their open time); the caller prints or logs them.
  std::vector<std::string> notes;
};

// Parses the header line; `location` ("FILE:LINE: ") prefixes every CsvError it throws.
Header read_header(std::string_view line, const std::string& location);
// The header of a file without one, from the names the user gave (wfo's --columns:
// "ts,open,high,low,close,volume", '_' for a column not used), split on `delimiter`.
Header header_from_names(const std::vector<std::string>& names, char delimiter,
                         const std::string& location);
// The delimiter a line uses most (',', ';' or tab); refuses a tie.
char detect_delimiter(std::string_view line, const std::string& location);

// "','", "';'" or "tab", for messages.
std::string delimiter_name(char delimiter);

std::string_view trim(std::string_view s);
// Splits on `delimiter` into `out` (reused between lines to avoid allocating per row).
void split_fields(std::string_view line, char delimiter, std::vector<std::string_view>& out);

}  // namespace wfod::feeds::csv
