// Holes in a file's timestamps (issue 42 §3): every gap over kGapMedianMultiple x the
// median bar interval is listed (report inputs, --json "gaps"); those also longer than
// kHoleMinNs (4 days: longer than any weekend or session break) are warned about, since
// the engine treats the bars either side of one as consecutive.

#include <algorithm>
#include <cstdio>

#include "data_facts.hpp"
#include "history.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

void find_gaps(const Series& series, DataFacts& out) {
  if (!out.median_interval_ns) out.median_interval_ns = median_bar_interval_ns(series);
  out.gaps.clear();
  if (!out.median_interval_ns || *out.median_interval_ns <= 0) return;
  const int64_t listed_above = kGapMedianMultiple * *out.median_interval_ns;
  for (size_t i = 1; i < series.size(); ++i) {
    const int64_t gap = series.ts_ns[i] - series.ts_ns[i - 1];
    if (gap <= listed_above) continue;
    out.gaps.push_back({i - 1, series.ts_ns[i - 1], series.ts_ns[i], gap > kHoleMinNs});
  }
}

std::optional<std::string> holes_warning(const std::string& path, const DataFacts& f) {
  const size_t holes = f.holes();
  if (holes == 0) return std::nullopt;
  const DataGap* largest = nullptr;
  for (const DataGap& g : f.gaps) {
    if (g.hole && (!largest || g.length_ns() > largest->length_ns())) largest = &g;
  }
  std::string s = path + ": " + std::to_string(holes) + (holes == 1 ? " hole" : " holes") +
                  " in the data (gaps over " + std::to_string(kGapMedianMultiple) +
                  "x the median interval of " + duration_words(*f.median_interval_ns) +
                  " and over 4 days); the largest, " + duration_words(largest->length_ns()) +
                  ", from " + feeds::format_timestamp(largest->from_ns) + " (bar " +
                  std::to_string(largest->before) + ") to " +
                  feeds::format_timestamp(largest->to_ns) +
                  "; the bars either side of a hole count as consecutive (one return spans "
                  "it)";
  if (holes > 1) {
    s += "; all:";
    size_t shown = 0;
    for (const DataGap& g : f.gaps) {
      if (!g.hole) continue;
      if (++shown > 10) {
        // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on " (" + s.
        s.append(" ... (").append(std::to_string(holes - 10));
        s.append(" more; --json and --report list them)");
        break;
      }
      s.append(" ").append(feeds::format_timestamp(g.from_ns));
      s.append(" -> ").append(feeds::format_timestamp(g.to_ns));
      s.append(" (").append(duration_words(g.length_ns())).append(")");
      if (shown < holes) s += ",";
    }
  }
  return s;
}

}  // namespace wfod::cli
