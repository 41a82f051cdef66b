// One symbol's sweep, shared by `wfo sweep --csv` and `wfo sweep --universe` (sweep_run.hpp).

#include "sweep_run.hpp"

#include <cstdio>
#include <string>

#include "bar_range.hpp"
#include "history.hpp"
#include "plan_step.hpp"
#include "progress_bar.hpp"
#include "run_plan.hpp"
#include "selection_output.hpp"

namespace wfod::cli {

LoadedSweep load_sweep(StrategySetup& setup) {
  LoadedSweep out;
  Stopwatch load_time;
  out.csv = load_setup_bars(setup);
  out.load_seconds = load_time.seconds();
  const HistoryView history = HistoryView::of(out.csv->series);
  const size_t n = history.size();
  const size_t warmup = setup.warmup.value_or(default_warmup(setup.spec.grid));
  size_t window = 0;
  if (setup.window) {
    window = *setup.window;
    if (window + warmup + 1 > n) {
      throw InputError(setup.csv_path + " has " + std::to_string(n) + " bars; a window of " +
                       std::to_string(window) + " bars after a warm-up of " +
                       std::to_string(warmup) + " needs " + std::to_string(window + warmup + 1));
    }
  } else {
    if (n < warmup + 2) {
      throw InputError(setup.csv_path + " has " + std::to_string(n) +
                       " bars: no room for a window after a warm-up of " + std::to_string(warmup) +
                       " (needs at least " + std::to_string(warmup + 2) + ")");
    }
    window = n - 1 - warmup;
  }
  SweepRequest& request = out.request;
  request.history = history;
  request.strategy = setup.spec;
  request.window = WindowSpec{n, window, warmup};
  request.rank = setup.rank;
  request.precision = setup.precision;
  request.threads = setup.threads;
  check_window(request);
  return out;
}

SweepRun run_loaded_sweep(StrategySetup& setup, LoadedSweep loaded, Backend& backend,
                          const SweepRunOptions& options) {
  SweepRun run;
  run.csv = std::move(loaded.csv);
  SweepRequest& request = run.request;
  request = std::move(loaded.request);
  RunTiming& timing = run.timing;
  timing.load = loaded.load_seconds;
  Stopwatch plan_time;
  const HistoryView history = request.history;
  const size_t n = history.size();
  const size_t window = request.window.bars;
  PlanInputs plan_in;
  plan_in.history_bars = n;
  plan_in.window_bars = window;
  plan_in.warmup_bars = request.window.warmup;
  plan_in.selection = options.selection;
  plan_in.report = options.report;
  plan_in.budget = options.budget;
  const RunPlan plan = plan_checked_run(plan_in, setup, backend, history, timing);
  request.memory_budget = plan.chunk_budget;
  // One preparation for the sweep and its selection. Selection without PBO scores every combo
  // of the window: the sweep may share that pass, its preparation keeping the scores. With
  // PBO, the sweep may compute the block Summaries in its own pass and keep them.
  PrepareSpec preparing;
  preparing.bars = n;
  const bool pbo =
      plan_in.selection && selection::pbo_applies(setup.selection, plan.combos.valid, window);
  preparing.keep_scores = plan_in.selection && !pbo;
  preparing.pbo_blocks = pbo ? setup.selection.pbo_blocks : 0;
  request.prepared = backend.prepare(history, setup.spec, preparing);
  if (plan_in.selection)
    std::fputs(
        plain_cscv_note(setup.selection, setup.rank.objective, plan.combos.valid, window).c_str(),
        stderr);
  timing.plan = plan_time.seconds();

  ProgressBar progress("sweep");
  request.progress = progress.callback();
  Stopwatch sweep_time;
  SweepResult result = backend.sweep(request);
  timing.sweep = sweep_time.seconds();
  progress.finish();
  // Robust selection of this window; a one-off sweep has no current combo.
  if (options.selection) {
    request.progress = nullptr;
    run.selection = selection::select(backend, request, result, std::nullopt, setup.selection);
    timing.selection.emplace().add(run.selection->timing);
  }
  run.report = SweepReport{setup.csv_path, setup.strategy_name, history,           setup.spec,
                           setup.rank,     request.window,      std::move(result), setup.precision};
  run.report.data = &setup.data;
  return run;
}

Json sweep_run_json(const SweepRun& run, const StrategySetup& setup) {
  Json j = sweep_json(run.report);
  if (run.selection)
    j["selection"] = selection_json(*run.selection, setup.selection, setup.rank.objective);
  return j;
}

}  // namespace wfod::cli
