// --start / --end: parsing a DATE or INDEX, and cutting the loaded series to the bars they
// name (bar_range.hpp says what each means).

#include "bar_range.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "args.hpp"
#include "data_facts.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

namespace {

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The first bar index the flag admits (start) or one past the last (end).
size_t bound_of(const Series& s, const std::string& flag, const std::string& text, bool is_end) {
  const size_t n = s.size();
  if (all_digits(text)) {
    const auto index = static_cast<size_t>(parse_integer(text, flag, 0));
    if (index >= n) {
      throw InputError("--" + flag + " " + text + ": the file has " + std::to_string(n) +
                       " bars (indices 0 .. " + std::to_string(n - 1) + ")");
    }
    return is_end ? index + 1 : index;
  }
  int64_t ts = 0;
  if (!feeds::parse_timestamp(text, ts)) {
    throw UsageError("--" + flag + ": expected a date (YYYY-MM-DD), a timestamp " +
                     "(YYYY-MM-DDTHH:MM:SS[Z]) or a bar index, got '" + text + "'");
  }
  // A date alone: --end runs to the day's last nanosecond, --start from its first.
  if (is_end && text.size() == 10) ts += kDayNs - 1;
  const auto it = is_end ? std::upper_bound(s.ts_ns.begin(), s.ts_ns.end(), ts)
                         : std::lower_bound(s.ts_ns.begin(), s.ts_ns.end(), ts);
  return static_cast<size_t>(it - s.ts_ns.begin());
}

template <typename T>
void keep(std::vector<T>& v, size_t first, size_t end) {
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(end), v.end());
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(first));
}

}  // namespace

void cut_to_range(Series& s, BarRange& range, const std::string& path) {
  const size_t n = s.size();
  range.cut = range.start || range.end;
  size_t first = 0, end = n;
  if (range.start) first = bound_of(s, "start", *range.start, false);
  if (range.end) end = bound_of(s, "end", *range.end, true);
  if (first >= end) {
    const std::string span =
        feeds::format_timestamp(s.ts_ns.front()) + " .. " + feeds::format_timestamp(s.ts_ns.back());
    throw InputError(path + ": no bar is left between --start " + range.start.value_or("(first)") +
                     " and --end " + range.end.value_or("(last)") + " (the file's " +
                     std::to_string(n) + " bars span " + span + ")");
  }
  range.first = first;
  range.last = end - 1;
  if (!range.cut) return;
  keep(s.ts_ns, first, end);
  keep(s.open, first, end);
  keep(s.high, first, end);
  keep(s.low, first, end);
  keep(s.close, first, end);
  keep(s.volume, first, end);
}

const char* const kBarRangeHelp =
    R"(Bars used (DATE: YYYY-MM-DD or a timestamp; INDEX: a bar of the file, from 0):
  --start DATE|INDEX the first bar used; it is SPEC §2's anchor: the strategy starts
                     there, so EMA and RSI seeds (and every position) move with it, and
                     bar numbers in the output count from it
  --end DATE|INDEX   the last bar used, inclusive (a date: up to the day's last
                     nanosecond): what the run would have said on that day

)";

}  // namespace wfod::cli
