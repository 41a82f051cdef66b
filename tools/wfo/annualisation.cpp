// SPEC §6's A (bars per year) for an offline run: the flag's or config's value, 252 for
// daily bars, else the rate observed in the file (issue 42 §3), so intraday, weekly or
// monthly bars are not annualised as if daily; and the words that say which it was.

#include <cmath>
#include <cstdio>

#include "data_facts.hpp"
#include "history.hpp"

namespace wfod::cli {

namespace {

// Daily bars stamped at local midnight drift by an hour across DST changes; 2 hours of
// slack keeps them daily while 12-hour or 2-day bars are not.
constexpr int64_t kDailySlackNs = int64_t{2} * 3'600 * 1'000'000'000;

std::string grouped_int(double v) {
  char buf[32];
  if (v != std::round(v) || v >= 1e15) {  // a flag's fractional A is shown as given
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.0f", v);
  std::string digits(buf), out;
  const size_t lead = digits.size() % 3 == 0 ? 3 : digits.size() % 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (i - lead) % 3 == 0 && i >= lead) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string duration_words(int64_t ns) {
  const double s = static_cast<double>(ns) / 1e9;
  char buf[48];
  if (s < 120)
    std::snprintf(buf, sizeof buf, "%.6g s", s);
  else if (s < 2 * 3600)
    std::snprintf(buf, sizeof buf, "%.3g min", s / 60);
  else if (s < 2 * 86'400)
    std::snprintf(buf, sizeof buf, "%.3g hours", s / 3600);
  else if (s < 2 * 365.25 * 86'400)
    std::snprintf(buf, sizeof buf, "%.3g days", s / 86'400);
  else
    std::snprintf(buf, sizeof buf, "%.3g years", s / (365.25 * 86'400));
  return buf;
}

void resolve_bars_per_year(const Series& series, std::optional<double> given,
                           const std::string& given_source, DataFacts& out) {
  if (!out.median_interval_ns) out.median_interval_ns = median_bar_interval_ns(series);
  if (given) {
    out.bars_per_year = *given;
    out.bars_per_year_source = given_source;
    return;
  }
  out.bars_per_year = kDailyBarsPerYear;
  out.bars_per_year_source = "daily_default";
  const std::optional<int64_t> median = out.median_interval_ns;
  const size_t n = series.size();
  if (!median || std::llabs(*median - kDayNs) <= kDailySlackNs) return;
  const int64_t span = series.ts_ns[n - 1] - series.ts_ns[0];
  if (span <= 0) return;
  const double observed = std::round(static_cast<double>(n - 1) * 365.25 *
                                     static_cast<double>(kDayNs) / static_cast<double>(span));
  if (!(observed >= 1)) return;  // under one bar a year: no rate to speak of
  out.bars_per_year = observed;
  out.bars_per_year_source = "observed";
}

std::string bars_per_year_text(const DataFacts& f) {
  std::string s = grouped_int(f.bars_per_year) + " bars per year (" + f.bars_per_year_source;
  if (f.bars_per_year_source == "observed" && f.median_interval_ns)
    s += " in the file: median interval " + duration_words(*f.median_interval_ns) +
         "; --bars-per-year overrides";
  if (f.bars_per_year_source == "daily_default") s += ": daily bars";
  return s + ")";
}

}  // namespace wfod::cli
