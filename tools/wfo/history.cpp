// Loading a CSV history for a command: read_csv, stderr notes (skipped rows, columns not
// used, intraday bars annualised as daily), and the "no bars" check, so every command
// reports input problems the same way; and the backend started while the CSV parses.

#include "history.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <system_error>
#include <vector>

#include "args.hpp"

namespace wfod::cli {

std::future<BackendChoice> start_backend_choice(const std::string& name) {
  auto choose = [name] { return choose_backend(name); };
  try {
    return std::async(std::launch::async, choose);
  } catch (const std::system_error&) {
    // No thread to be had (tests/cli/wfo_resources_test.sh): the run goes on without one.
    return std::async(std::launch::deferred, choose);
  }
}

feeds::CsvReadResult load_history(const std::string& path, bool skip_bad_rows) {
  feeds::CsvReadOptions options;
  options.skip_bad_rows = skip_bad_rows;
  feeds::CsvReadResult r = feeds::read_csv(path, options);
  for (const std::string& note : r.notes) {
    std::fprintf(stderr, "wfo: %s: %s\n", path.c_str(), note.c_str());
  }
  if (!r.skipped_by_reason.empty()) {
    size_t total = 0;
    std::string reasons;
    for (const auto& [reason, n] : r.skipped_by_reason) {
      total += n;
      reasons += (reasons.empty() ? "" : ", ") + reason + ": " + std::to_string(n);
    }
    std::fprintf(stderr, "wfo: %s: skipped %zu of %zu rows (%s)\n", path.c_str(), total,
                 r.rows_read, reasons.c_str());
  }
  if (r.series.size() == 0) throw InputError(path + ": no bars");
  return r;
}

std::optional<int64_t> median_bar_interval_ns(const Series& series) {
  const size_t n = series.size();
  if (n < 2) return std::nullopt;
  std::vector<int64_t> gaps(n - 1);
  for (size_t i = 1; i < n; ++i) gaps[i - 1] = series.ts_ns[i] - series.ts_ns[i - 1];
  const auto mid = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), mid, gaps.end());
  return *mid;
}

std::optional<std::string> intraday_annualisation_warning(const std::string& path,
                                                          const Series& series,
                                                          double bars_per_year,
                                                          bool bars_per_year_given) {
  constexpr int64_t kDayNs = int64_t{86'400} * 1'000'000'000;
  if (bars_per_year_given || bars_per_year != kDailyBarsPerYear) return std::nullopt;
  const std::optional<int64_t> median = median_bar_interval_ns(series);
  if (!median || *median >= kDayNs) return std::nullopt;
  char interval[32];
  std::snprintf(interval, sizeof interval, "%.6g", static_cast<double>(*median) / 1e9);
  return path + ": bars are intraday (median interval " + interval +
         " s), but sharpe, sortino and cagr are annualised with --bars-per-year 252, as if "
         "they were daily bars; give --bars-per-year (e.g. 98280 for 1-minute bars of a "
         "6.5-hour session, 525600 for 1-minute bars around the clock)";
}

}  // namespace wfod::cli
