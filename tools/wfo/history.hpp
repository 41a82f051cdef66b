// Loading a CSV history for a command: read_csv, stderr notes (skipped rows, columns not
// used, holes in the data), the bars per year that annualise it, and the "no bars" check, so every
// command reports input problems the same way; and the backend started while the CSV parses.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "strategy_from_flags.hpp"
#include "wfod/backend.hpp"
#include "wfod/feeds/csv_reader.hpp"

namespace wfod::cli {

// Throws feeds::CsvError (file:line messages) or UsageError when the file holds no bars.
// `columns`: the names of a headerless file's columns (--columns), empty for a header line.
feeds::CsvReadResult load_history(const std::string& path, bool skip_bad_rows,
                                  const std::vector<std::string>& columns = {});

// The backend a command runs on, started beside the command's first piece of work: with cuda
// the driver and the device context (most of a short run's fixed time) start on a parked
// engine thread (wfod::run_workers) while this one parses the CSV; where no thread can
// start, one after the other on this thread. The choice's errors come at take(), after the
// work's own (a bad CSV is reported before a missing GPU).
class BackendStarter {
 public:
  explicit BackendStarter(std::string name) : name_(std::move(name)) {}
  // Runs work() here; the first call also starts the backend beside it. work's exception
  // propagates once both are done; the choice is kept either way.
  void run_beside(const std::function<void()>& work);
  // The backend (started now if no run_beside came first); what --backend auto|cuda found (the
  // GPU and the code that runs on it, or why not) said on stderr once.
  std::unique_ptr<Backend> take();

 private:
  std::string name_;
  bool started_ = false;
  BackendChoice choice_;
  std::exception_ptr error_;
};

// SPEC §6's default A, meant for daily bars.
inline constexpr double kDailyBarsPerYear = 252;

// The median gap between consecutive bars' timestamps; none below two bars.
std::optional<int64_t> median_bar_interval_ns(const Series& series);

// After loading: SPEC §6's A for the file (data_facts.hpp), set in setup.spec and
// setup.data with its source, and the file's gaps, with a warning on stderr for holes.
void settle_data_facts(StrategySetup& setup, const Series& series);
// The gaps of the bars a run uses (data_facts.hpp) into setup.data, with a warning on
// stderr for holes: count, largest, dates.
void note_gaps(StrategySetup& setup, const Series& series);

// The bars a single-symbol sweep or walk runs on: setup.csv_path loaded, its A settled from the
// whole file (spec-notes 37), cut to --start/--end, its gaps noted. Behind a pointer: the
// history views of its series must not move.
std::unique_ptr<feeds::CsvReadResult> load_setup_bars(StrategySetup& setup);

}  // namespace wfod::cli
