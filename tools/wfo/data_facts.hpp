// What a loaded CSV says about itself that the run must use or report: the bars per year
// that annualise it (and where that number came from) and the holes in its timestamps.
// Computed once after loading (annualisation.cpp, data_gaps.cpp); carried in StrategySetup
// so the JSON, the plan line and the --report inputs all say the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wfod/bar.hpp"

namespace wfod::cli {

// One gap between consecutive bars longer than kGapMedianMultiple x the median interval.
struct DataGap {
  size_t before = 0;    // index of the bar before the gap (the next bar is before + 1)
  int64_t from_ns = 0;  // that bar's timestamp
  int64_t to_ns = 0;    // the next bar's timestamp
  bool hole = false;    // also longer than kHoleMinNs: warned about (not a weekend or break)
  int64_t length_ns() const { return to_ns - from_ns; }
};

inline constexpr int64_t kDayNs = int64_t{86'400} * 1'000'000'000;
// A gap is listed above this multiple of the median interval ...
inline constexpr int64_t kGapMedianMultiple = 5;
// ... and warned about as a hole only when it is also longer than this (weekends, holidays
// and session breaks are not holes).
inline constexpr int64_t kHoleMinNs = 4 * kDayNs;

struct DataFacts {
  double bars_per_year = 252;
  // flag | config | universe | daily_default | observed (issue 42 §3; docs/spec-notes.md 37)
  std::string bars_per_year_source = "daily_default";
  std::optional<int64_t> median_interval_ns;
  std::vector<DataGap> gaps;  // every gap over kGapMedianMultiple x the median, in order
  size_t holes() const {
    size_t n = 0;
    for (const DataGap& g : gaps) n += g.hole ? 1 : 0;
    return n;
  }
};

// SPEC §6's A for this file: the flag's or the config's value when given; else 252 for
// daily bars (median interval within 2 hours of a day: DST-shifted midnights stay daily);
// else the bars per year observed in the file, round((N-1) x 365.25 days / (ts_last -
// ts_first)). `given` is the flag's or config's value, `given_source` "flag" or "config".
void resolve_bars_per_year(const Series&, std::optional<double> given,
                           const std::string& given_source, DataFacts& out);

// "525,960 bars per year (observed: median interval 60 s)": the plan line's words.
std::string bars_per_year_text(const DataFacts&);

// Fills out.gaps (and out.median_interval_ns when unset).
void find_gaps(const Series&, DataFacts& out);

// The warning for holes (count, largest, dates); none when there is none.
std::optional<std::string> holes_warning(const std::string& path, const DataFacts&);

// "3.2 days", "2.1 years", "45 min": a duration for messages.
std::string duration_words(int64_t ns);

}  // namespace wfod::cli
