// One symbol's sweep (one window, SPEC §6-§7, with robust selection) exactly as `wfo sweep
// --csv` runs it: the CSV loaded and checked, the window, the plan line, the sweep and its
// selection. `wfo sweep --csv` and each symbol of `wfo sweep --universe` both run it, so a
// universe's symbol gets the single-symbol sweep's result bit for bit (issue 47 item 1).
#pragma once

#include <memory>
#include <optional>

#include "json_output.hpp"
#include "memory_limits.hpp"
#include "report.hpp"
#include "run_timing.hpp"
#include "strategy_from_flags.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/selection/selection.hpp"

namespace wfod::cli {

// A symbol's bars, loaded and checked, and the sweep's request on them (no backend yet).
struct LoadedSweep {
  // Behind a pointer: the request's history views its series, which must not move.
  std::unique_ptr<feeds::CsvReadResult> csv;
  SweepRequest request;
  double load_seconds = 0;
};

// Loads setup.csv_path (A from the whole file, --start/--end, the gaps) and settles the
// window (--window, else every bar after the warm-up). Every error a data file can cause is
// thrown here (feeds::CsvError, InputError), so a caller may tell a bad file from a failed
// run.
LoadedSweep load_sweep(StrategySetup& setup);

struct SweepRunOptions {
  bool selection = true;  // false: --no-selection
  bool report = false;    // a --report follows (the plan prices it)
  MemoryBudget budget;
};

// A finished sweep: the report the printers take, the request it ran (a --report evaluates
// it again), the selection, the run's times (total left to the caller).
struct SweepRun {
  std::unique_ptr<feeds::CsvReadResult> csv;  // owns the request's and report's bars
  SweepRequest request;
  SweepReport report;
  std::optional<selection::SelectionReport> selection;
  RunTiming timing;
};

// The plan (its line on stderr, its memory check), the sweep and its selection on `backend`.
SweepRun run_loaded_sweep(StrategySetup& setup, LoadedSweep loaded, Backend& backend,
                          const SweepRunOptions&);

// `wfo sweep --json`'s document without "timing": sweep_json plus the selection.
Json sweep_run_json(const SweepRun&, const StrategySetup&);

}  // namespace wfod::cli
