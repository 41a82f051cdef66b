// --start and --end (issue 42 §3): the bars of the CSV a run uses, so a researcher can ask
// what the optimiser would have said on a given day. A DATE (YYYY-MM-DD, or a full
// timestamp) or an INDEX (a bar of the file, from 0). --end is inclusive: a date means to the
// last nanosecond of that day. --start moves SPEC §2's anchor (the strategy starts at that
// bar, so EMA and RSI seeds move with it); --end changes no position before it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "wfod/bar.hpp"

namespace wfod::cli {

struct BarRange {
  std::optional<std::string> start, end;  // as given
  size_t first = 0, last = 0;             // after cut_to_range: the file's bars kept
  bool cut = false;                       // either flag given
};

// Keeps the bars [start, end] of `series` (in place) and records them in `range`; throws
// UsageError for a malformed value and InputError (naming the file's range) when no bar is
// left or start is after end.
void cut_to_range(Series& series, BarRange& range, const std::string& path);

// The help text of the two flags.
extern const char* const kBarRangeHelp;

}  // namespace wfod::cli
