// One symbol's walk-forward run, shared by `wfo walk --csv` and `wfo walk --universe`
// (walk_run.hpp): loading and checking the CSV, the plan, the folds and their selection.

#include "walk_run.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "bar_range.hpp"
#include "history.hpp"
#include "plan_step.hpp"
#include "progress_bar.hpp"
#include "run_plan.hpp"
#include "selection_output.hpp"

namespace wfod::cli {

FoldSelector fold_selector(Backend& backend, const selection::SelectionSpec& spec,
                           std::function<void(selection::SelectionReport&&)> on_report) {
  return [&backend, spec, on_report = std::move(on_report)](
             const SweepRequest& req, const SweepResult& sweep,
             const std::optional<Ranked>& previous) -> std::optional<Ranked> {
    SweepRequest quiet = req;
    quiet.progress = nullptr;
    std::optional<uint64_t> current;
    if (previous) current = previous->combo.id;
    selection::SelectionReport report = selection::select(backend, quiet, sweep, current, spec);
    std::optional<Ranked> published = report.published;
    if (on_report) on_report(std::move(report));
    return published;
  };
}

WalkSpec walk_spec_from_flags(const ParsedArgs& parsed, const StrategySetup& setup) {
  WalkSpec walk;
  if (auto v = parsed.count("is", 1)) {
    walk.is_bars = *v;
  } else if (setup.window) {
    walk.is_bars = *setup.window;
  } else {
    throw UsageError("--is W is required (in-sample bars per fold)");
  }
  if (auto v = parsed.count("oos", 1)) {
    walk.oos_bars = *v;
  } else if (setup.every) {
    walk.oos_bars = *setup.every;
  } else {
    throw UsageError("--oos K is required (out-of-sample bars per fold)");
  }
  if (auto mode = parsed.text("mode")) {
    try {
      walk.mode = parse_walk_mode(*mode);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--mode: ") + e.what());
    }
  }
  walk.warmup = setup.warmup.value_or(default_warmup(setup.spec.grid));
  return walk;
}

LoadedWalk load_walk(StrategySetup& setup, const WalkSpec& walk) {
  LoadedWalk out;
  out.walk = walk;
  Stopwatch load_time;
  out.csv = load_setup_bars(setup);
  out.load_seconds = load_time.seconds();
  out.history = HistoryView::of(out.csv->series);
  if (count_folds(out.history.size(), walk) == 0) {
    const size_t needed = walk.warmup + 1 + walk.is_bars + walk.oos_bars;
    throw InputError(setup.csv_path + " has " + std::to_string(out.history.size()) +
                     " bars: no whole fold fits; one fold needs warmup " +
                     std::to_string(walk.warmup) + " + 1 + IS " + std::to_string(walk.is_bars) +
                     " + OOS " + std::to_string(walk.oos_bars) + " = " + std::to_string(needed) +
                     " bars");
  }
  return out;
}

WalkRun run_loaded_walk(StrategySetup& setup, LoadedWalk loaded, Backend& backend,
                        const WalkRunOptions& options) {
  WalkRun run;
  run.csv = std::move(loaded.csv);
  RunTiming& timing = run.timing;
  timing.walk = true;
  timing.load = loaded.load_seconds;
  Stopwatch plan_time;
  const HistoryView history = loaded.history;
  WalkSpec walk = loaded.walk;
  const size_t folds = count_folds(history.size(), walk);
  PlanInputs plan_in;
  plan_in.history_bars = history.size();
  // Anchored folds grow by K bars each: their mean in-sample length.
  plan_in.window_bars = walk.mode == WalkMode::anchored
                            ? walk.is_bars + (folds - 1) * walk.oos_bars / 2
                            : walk.is_bars;
  plan_in.windows = folds;
  plan_in.warmup_bars = walk.warmup;
  plan_in.selection = options.selection;
  plan_in.report = options.report;
  plan_in.budget = options.budget;
  const RunPlan plan = plan_checked_run(plan_in, setup, backend, history, timing);
  walk.memory_budget = plan.chunk_budget;
  // Selection without PBO on every fold (so on the longest window) scores each fold's whole
  // grid: the folds' sweeps may share that pass.
  walk.scores_follow = plan_in.selection &&
                       !selection::pbo_applies(setup.selection, plan.combos.valid,
                                               walk.mode == WalkMode::rolling
                                                   ? walk.is_bars
                                                   : walk.is_bars + (folds - 1) * walk.oos_bars);
  // PBO on every fold (it applies on the shortest window, then on every longer one: the
  // valid combos are the same): the folds' sweeps may compute the block Summaries.
  if (plan_in.selection && selection::pbo_applies(setup.selection, plan.combos.valid, walk.is_bars))
    walk.pbo_blocks = setup.selection.pbo_blocks;
  if (plan_in.selection)
    std::fputs(
        plain_cscv_note(setup.selection, setup.rank.objective, plan.combos.valid, walk.is_bars)
            .c_str(),
        stderr);
  timing.plan = plan_time.seconds();

  ProgressBar progress("walk");
  // Robust selection per fold, on its IS window: the previous fold's winner is "current".
  std::vector<selection::SelectionReport>& fold_selection = run.fold_selection;
  FoldSelector select;
  if (options.selection) {
    timing.selection.emplace();
    select = fold_selector(backend, setup.selection, [&](selection::SelectionReport&& report) {
      timing.selection->add(report.timing);
      fold_selection.push_back(std::move(report));
    });
  }
  WalkResult result = walk_forward(backend, history, setup.spec, setup.rank, walk, setup.precision,
                                   setup.threads, progress.callback(), select);
  timing.sweep = result.seconds;  // walk_forward's own clock: the same number as "seconds"
  progress.finish();

  run.report = WalkReport{
      setup.csv_path,    setup.strategy_name,        history, setup.spec, setup.rank, walk,
      std::move(result), std::string(backend.name())};
  run.report.data = &setup.data;
  return run;
}

Json walk_run_json(const WalkRun& run, const StrategySetup& setup) {
  Json j = walk_json(run.report);
  for (size_t f = 0; f < run.fold_selection.size() && f < j["folds"].size(); ++f) {
    j["folds"][f]["selection"] =
        selection_json(run.fold_selection[f], setup.selection, setup.rank.objective);
  }
  return j;
}

}  // namespace wfod::cli
