// Loading a CSV history for a command: read_csv, stderr notes (skipped rows, columns not
// used, holes in the data), the bars per year that annualise it, and the "no bars" check, so every
// command reports input problems the same way; and the backend started while the CSV parses.

#include "history.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "args.hpp"
#include "bar_range.hpp"
#include "data_facts.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod::cli {

void BackendStarter::run_beside(const std::function<void()>& work) {
  if (started_) return work();
  started_ = true;
  run_workers(2, [&](int worker) {
    if (worker == 0) return work();
    try {
      choice_ = choose_backend(name_);
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

std::unique_ptr<Backend> BackendStarter::take() {
  if (!started_) run_beside([] {});
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  if (!choice_.detail.empty()) std::fprintf(stderr, "wfo: %s\n", choice_.detail.c_str());
  choice_.detail.clear();
  return std::move(choice_.backend);
}

feeds::CsvReadResult load_history(const std::string& path, bool skip_bad_rows,
                                  const std::vector<std::string>& columns) {
  feeds::CsvReadOptions options;
  options.skip_bad_rows = skip_bad_rows;
  options.columns = columns;
  feeds::CsvReadResult r;
  try {
    r = feeds::read_csv(path, options);
  } catch (const feeds::CsvError& e) {
    // feeds does not know wfo's flags: the way out of a headerless file is said here.
    const std::string what = e.what();
    if (columns.empty() && what.find("the first line is data, not a header") != std::string::npos)
      throw feeds::CsvError(what +
                            "; or name the columns of a headerless file with --columns "
                            "ts,open,high,low,close,volume ('_' for one not used)");
    throw;
  }
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

void settle_data_facts(StrategySetup& setup, const Series& series) {
  std::optional<double> given;
  std::string source;
  if (setup.bars_per_year_given) {
    given = setup.spec.bars_per_year;
    source = setup.bars_per_year_from_universe ? "universe" : "flag";
  } else if (setup.bars_per_year_from_config) {
    given = setup.spec.bars_per_year;
    source = "config";
  }
  resolve_bars_per_year(series, given, source, setup.data);
  setup.spec.bars_per_year = setup.data.bars_per_year;
}

void note_gaps(StrategySetup& setup, const Series& series) {
  find_gaps(series, setup.data);
  if (auto w = holes_warning(setup.csv_path, setup.data))
    std::fprintf(stderr, "wfo: warning: %s\n", w->c_str());
}

std::unique_ptr<feeds::CsvReadResult> load_setup_bars(StrategySetup& setup) {
  auto csv = std::make_unique<feeds::CsvReadResult>(
      load_history(setup.csv_path, setup.skip_bad_rows, setup.columns));
  settle_data_facts(setup, csv->series);  // A from the whole file (spec-notes 37)
  cut_to_range(csv->series, setup.range, setup.csv_path);
  note_gaps(setup, csv->series);
  return csv;
}

}  // namespace wfod::cli
