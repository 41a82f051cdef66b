// Where a `wfo sweep` / `wfo walk` run spent its wall time, printed under the results and as
// the "timing" JSON object: the whole run and its parts (CSV load, the plan, sweeps with every
// tile of a tiled sweep, robust selection and selection's own parts), so a default that costs
// more than the sweep shows what it costs.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "json_output.hpp"
#include "wfod/selection/selection.hpp"

namespace wfod::cli {

// Seconds since construction (steady clock).
class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Robust selection's time summed over its calls (a sweep: one; a walk: one per fold).
struct SelectionTimes {
  size_t calls = 0;
  double total = 0, robust = 0;
  // The parts, when every call's backend measured them (else none).
  std::optional<selection::RobustTiming> parts;
  void add(const selection::SelectionTiming&);
};

struct RunTiming {
  double total = 0;  // the command, from its start to its output (a --report is written after)
  double load = 0;   // reading the CSV
  double plan = 0;   // the window, the backend and the plan (counting the grid's combos and
                     // series, the memory budget check) up to the sweep's start
  double sweep = 0;  // sweep: the backend's sweep; walk: walk_forward (every fold's sweep, its
                     // selection and its out-of-sample replay)
  bool walk = false;
  std::optional<SelectionTimes> selection;  // none with --no-selection
  // The plan's time model (run_plan.hpp) for this run, to hold against `total`.
  double estimate = -1;  // < 0: none made
  double estimate_selection = 0;
  std::string selection_path;  // to_string(SelectionPath)
};

// A warning for stderr before robust selection runs PBO on the plain CSCV walk for a large
// grid (objectives without screens: cagr, calmar, profit_factor), empty otherwise: that walk
// costs C(S, S/2) x valid combos exact joins, ~100x a sweep at 20,000 combos.
std::string plain_cscv_note(const selection::SelectionSpec&, Objective, uint64_t valid_combos,
                            size_t window_bars);

// One line: "time: 8.321 s total = load 0.004 + plan 0.000 + sweep 0.012 + selection 8.305
// (blocks 0.020, scores 0.001, CSCV 8.270, plateau 0.000, other 0.014)"; a walk: "... + walk
// 12.296 (of which selection 11.800 over 8 folds: blocks ...)"; with --no-selection
// "(no selection)".
std::string timing_text(const RunTiming&);
// {"total_seconds", "load_seconds", "plan_seconds", "sweep_seconds" | "walk_seconds",
//  "selection_seconds", "estimate": {"seconds", "selection_seconds", "selection_path"} (the
//  plan's model; absent when none was made),
//  "selection": {"calls", "robust_seconds", "blocks_seconds", "scores_seconds",
//  "cscv_seconds", "plateau_seconds", "other_seconds"} | null}; parts the backend did not
// measure are null.
Json timing_json(const RunTiming&);

}  // namespace wfod::cli
