// A CSV row's time: one timestamp field, or a date and a time-of-day field joined, with
// MetaTrader's dotted dates and times without seconds rewritten to ISO-8601 for
// parse_timestamp (so every accepted text still has exactly one value).
#include "csv_timestamp.hpp"

#include "wfod/feeds/csv_reader.hpp"

namespace wfod::feeds::csv {
namespace {

// "2024.01.02..." -> "2024-01-02..." in scratch; false when the text is not dotted.
bool undot_date(std::string_view text, std::string& scratch) {
  if (text.size() < 10 || text[4] != '.' || text[7] != '.') return false;
  scratch.assign(text);
  scratch[4] = '-';
  scratch[7] = '-';
  return true;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool parse_row_time(std::string_view date, std::string_view time, std::string& scratch,
                    int64_t& ts_ns) {
  if (time.empty()) {
    if (parse_timestamp(date, ts_ns) || parse_epoch_timestamp(date, ts_ns)) return true;
    return undot_date(date, scratch) && parse_timestamp(scratch, ts_ns);
  }
  // The date part alone must be a date (no time of its own), then 'T' and the time.
  if (date.size() != 10) return false;
  if (!undot_date(date, scratch)) scratch.assign(date);
  scratch += 'T';
  scratch.append(time);
  // HH:MM: the minute's first second.
  if (time.size() == 5 && is_digit(time[0]) && is_digit(time[1]) && time[2] == ':' &&
      is_digit(time[3]) && is_digit(time[4])) {
    scratch += ":00";
  }
  return parse_timestamp(scratch, ts_ns);
}

}  // namespace wfod::feeds::csv
