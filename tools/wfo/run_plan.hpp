// The plan of a `wfo sweep` or `wfo walk`, said on stderr before any work: the combos (valid
// of total, and why the others are invalid), the indicator series and how much of them is
// held at once, the memory of the run's largest phase against the budget that binds
// (--memory-budget, RLIMIT_AS or the cgroup's memory.max: memory_limits.hpp), and the time
// (a model per backend, family and selection path, calibrated by bench/plan_estimate_bench). A grid
// without a valid combo, or a plan over the budget, fails here (exit 2), not after minutes of work
// or an out-of-memory abort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "memory_limits.hpp"
#include "wfod/backend.hpp"
#include "wfod/ranking.hpp"
#include "wfod/selection/selection_spec.hpp"

namespace wfod::cli {

// The program itself in every memory plan and estimate: its code, libraries and stacks.
inline constexpr double kProcessBytes = 8 << 20;

struct PlanInputs {
  Grid grid;
  size_t history_bars = 0;
  size_t window_bars = 0;  // W of the sweep, or of each fold's in-sample window
  size_t warmup_bars = 0;  // bars before each window (indicator rows are built over both)
  size_t windows = 1;      // sweeps the run makes (a walk: its folds)
  bool selection = false;  // robust selection after each sweep
  selection::SelectionSpec selection_spec;
  Objective objective = Objective::sharpe;  // picks PBO's CSCV walk (screened or plain)
  bool report = false;                      // --report: the landscape of every combo's objective
  std::string backend;                      // as given (auto, cpu, cpu_ref, cuda)
  int threads = 1;                          // resolved (>= 1)
  MemoryBudget budget;  // the lowest of --memory-budget and the process's limits
  // The backend's size query of this run's sweep (Backend::sweep_memory), given the memory
  // budget the plan gives each sweep (RunPlan::chunk_budget): what the engine holds in the
  // sweep, selection and report phases beside the history. plan_step.cpp binds it to the
  // run's backend and request. Empty (the time model's tests, which have no backend): the
  // whole budget is counted.
  std::function<SweepMemory(size_t memory_budget)> sweep_memory;
  // Where the backend runs on a device (Backend::runs_on_device): the device memory free now
  // (Backend::device_memory_free), which the sweep's device side (SweepMemory::device_bytes)
  // must fit within kDeviceMemoryPlanShare (wfod/backend.hpp) of. 0: no device plan (a host
  // backend, the time model's tests).
  uint64_t device_free_bytes = 0;
};

// What robust selection runs after each sweep, which sets most of its time: nothing
// (--no-selection); a scores pass over the grid (PBO skipped: more valid combos than
// pbo_max_combos, pbo_blocks = 0 or a short window); block summaries and the screened CSCV
// walk (sharpe, sortino, total_return); block summaries and the plain CSCV walk (cagr, calmar,
// profit_factor: C(S, S/2) exact joins per combo, docs/spec-10-selection.md §10.6).
enum class SelectionPath { none, scores, screened_cscv, plain_cscv };
std::string_view to_string(SelectionPath);

// Bytes by phase (upper estimates) and the work, for the plan line and the budget check.
struct RunPlan {
  ComboCount combos;
  uint64_t series = 0;          // indicator series of the whole grid
  double all_series_bytes = 0;  // every series over the history at once
  size_t chunk_budget = 0;      // SweepRequest::memory_budget: rows and lanes at once
  double sweep_bytes = 0;       // one sweep: the history and what the backend holds for it
  double selection_bytes = 0;   // robust selection's per-combo arrays and its pass
  double report_bytes = 0;      // the report's landscape
  double peak_bytes = 0;        // the largest phase
  const char* peak_phase = "sweep";
  double combo_bars = 0;         // valid combos x window bars x passes over the grid
  double seconds = 0;            // the time model's whole run (run_plan.cpp estimate_time)
  double selection_seconds = 0;  // of which robust selection (its grid pass and CSCV)
  SelectionPath selection_path = SelectionPath::none;
  double min_bytes = 0;  // the history and one combo's rows: the least a run needs
  bool pbo = false;      // robust selection will run PBO (block summaries)
  // The device side (a backend that runs_on_device): what one sweep holds on the device
  // (SweepMemory::device_bytes) against kDeviceMemoryPlanShare of its free memory; 0 without one.
  double device_bytes = 0;
  double device_budget = 0;
};

// Binds the plan's size queries to `backend` (which must outlive `in`): in.sweep_memory asks
// its sweep_memory of `shape` at the budget the plan gives, and a backend that runs on a
// device gives in.device_free_bytes its free memory now.
void ask_backend(PlanInputs& in, const Backend& backend, const SweepRequest& shape);

// Throws InputError when no combo of the grid is valid, naming the rule every combo breaks.
RunPlan plan_run(const PlanInputs&);
// Throws InputError when the plan's largest phase exceeds the budget, naming the phase and
// what to change; or when the sweep's device memory exceeds the device's share, naming the
// grid and what fits.
void check_plan(const RunPlan&, const PlanInputs&);

// "wfo: plan: ..." (one line, no newline).
std::string plan_text(const RunPlan&, const PlanInputs&);

// Threads of "--threads 0": every hardware thread (at least 1).
int hardware_threads();

// "1.5 GiB", "312 MiB", "64 KiB".
std::string bytes_text(double bytes);
// "~40 s", "~3.2 h", "~12 days".
std::string duration_text(double seconds);

}  // namespace wfod::cli
