// One symbol's walk-forward run (SPEC §8) exactly as `wfo walk --csv` does it: the CSV loaded
// and checked, the plan line, the folds with their robust selection, and what the printers
// need. `wfo walk --csv` and each symbol of `wfo walk --universe` both run it, so a
// universe's symbol gets the single-symbol walk's result bit for bit (issue 47 item 1).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "args.hpp"
#include "json_output.hpp"
#include "memory_limits.hpp"
#include "report.hpp"
#include "run_timing.hpp"
#include "strategy_from_flags.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/selection/selection.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cli {

// --is, --oos and --mode (or the config's window and every), the warm-up from the setup.
// Throws UsageError.
WalkSpec walk_spec_from_flags(const ParsedArgs&, const StrategySetup&);

// Robust selection per fold, on its in-sample window, as wfo walk runs it: the previous
// fold's published winner is "current"; each fold's report goes to `on_report` when given.
FoldSelector fold_selector(Backend& backend, const selection::SelectionSpec& spec,
                           std::function<void(selection::SelectionReport&&)> on_report = {});

// A symbol's bars, loaded and checked, before any backend work.
struct LoadedWalk {
  // Behind a pointer: `history` views its series, which must not move.
  std::unique_ptr<feeds::CsvReadResult> csv;
  HistoryView history;
  WalkSpec walk;  // with the warm-up settled
  double load_seconds = 0;
};

// Loads setup.csv_path (A from the whole file, --start/--end, the gaps) and checks that a
// whole fold fits. Every error a data file can cause is thrown here (feeds::CsvError,
// InputError), so a caller may tell a bad file from a failed run.
LoadedWalk load_walk(StrategySetup& setup, const WalkSpec&);

struct WalkRunOptions {
  bool selection = true;  // false: --no-selection
  bool report = false;    // a --report follows (the plan prices it)
  MemoryBudget budget;
};

// A finished walk: the report the printers take, each fold's selection, the run's times.
struct WalkRun {
  std::unique_ptr<feeds::CsvReadResult> csv;  // owns report.history's bars
  WalkReport report;
  std::vector<selection::SelectionReport> fold_selection;
  RunTiming timing;  // total left to the caller
};

// The plan (its line on stderr, its memory check) and the walk on `backend`.
WalkRun run_loaded_walk(StrategySetup& setup, LoadedWalk loaded, Backend& backend,
                        const WalkRunOptions&);

// `wfo walk --json`'s document without "timing": walk_json plus each fold's selection.
Json walk_run_json(const WalkRun&, const StrategySetup&);

}  // namespace wfod::cli
