// The plan step that `wfo sweep` and `wfo walk` share: fill the plan's inputs from the
// strategy's setup, print the plan line, refuse a run that does not fit, and keep the
// estimates for --json's timing.
#pragma once

#include "run_plan.hpp"
#include "run_timing.hpp"
#include "strategy_from_flags.hpp"

namespace wfod::cli {

// `in` holds the run's shape (history, window, warm-up, windows, selection, report, budget);
// this sets the rest from `setup` and `backend`, whose size query (Backend::sweep_memory) of
// a sweep of the window ending at `history`'s last bar counts the engine's memory. Throws what
// check_plan throws.
RunPlan plan_checked_run(PlanInputs& in, const StrategySetup& setup, const Backend& backend,
                         const HistoryView& history, RunTiming& timing);

}  // namespace wfod::cli
