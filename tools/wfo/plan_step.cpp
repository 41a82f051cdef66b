// The plan step shared by `wfo sweep` and `wfo walk` (plan_step.hpp).

#include "plan_step.hpp"

#include <cstdio>
#include <string>

#include "data_facts.hpp"

namespace wfod::cli {

RunPlan plan_checked_run(PlanInputs& in, const StrategySetup& setup, const Backend& backend,
                         const HistoryView& history, RunTiming& timing) {
  in.grid = setup.spec.grid;
  in.selection_spec = setup.selection;
  in.objective = setup.rank.objective;
  in.backend = std::string(backend.name());
  in.threads = setup.threads > 0 ? setup.threads : hardware_threads();
  // The request the size query reads: its sizes only (no bar is read).
  SweepRequest shape;
  shape.history = history;
  shape.strategy = setup.spec;
  shape.window = WindowSpec{in.history_bars, in.window_bars, in.warmup_bars};
  shape.rank = setup.rank;
  shape.precision = setup.precision;
  shape.threads = in.threads;
  ask_backend(in, backend, shape);
  const RunPlan plan = plan_run(in);
  std::fprintf(stderr, "%s; %s\n", plan_text(plan, in).c_str(),
               bars_per_year_text(setup.data).c_str());
  check_plan(plan, in);
  timing.estimate = plan.seconds;
  timing.estimate_selection = plan.selection_seconds;
  timing.selection_path = std::string(to_string(plan.selection_path));
  return plan;
}

}  // namespace wfod::cli
