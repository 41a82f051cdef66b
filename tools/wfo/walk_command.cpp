// `wfo walk`: walk-forward analysis (SPEC §8) of one strategy grid over the CSV: per-fold
// winners, IS/OOS metrics, the stitched OOS series' metrics and WFE, as a table or JSON.

#include <cerrno>
#include <cstdio>
#include <future>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "history.hpp"
#include "json_output.hpp"
#include "load_estimate.hpp"
#include "memory_limits.hpp"
#include "output.hpp"
#include "progress_bar.hpp"
#include "report.hpp"
#include "report_writer.hpp"
#include "run_plan.hpp"
#include "run_timing.hpp"
#include "selection_output.hpp"
#include "strategy_from_flags.hpp"
#include "table_output.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kUsage =
    R"(usage: wfo walk --csv FILE --family FAMILY AXIS FLAGS... --is W --oos K [options]
       wfo walk --config FILE [--strategy NAME] [overriding flags...]

Walk-forward analysis (SPEC §8): fold f optimises on its in-sample window and its winner
trades the next K bars out of sample; only whole folds run. The first IS window starts at
bar warmup + 1.

  --is W             in-sample window, in strategy returns (with --config: its window)
  --oos K            out-of-sample bars per fold (with --config: its every)
  --mode rolling|anchored   rolling slides the IS window by K, anchored grows it (rolling)
  --no-selection     fold winners are the raw arg-max (no hysteresis, plateau, DSR, PBO);
                     otherwise each fold publishes per the config's [strategy.selection],
                     the previous fold's winner being the current combo

)";

constexpr const char* kJsonShape = R"(
--json prints {"folds": [{"index",
    "is":  {"first", "last", "first_ts", "last_ts", "metrics": {...}},
    "oos": {"first", "last", "first_ts", "last_ts", "metrics": {...}},
    "id", "params" (null when no combo was ranked: flat out of sample),
    "evaluated", "skipped",
    "selection": {as wfo sweep's, on the fold's IS window; "current" is the previous
      fold's winner, so hysteresis acts between folds}}],
  "oos": {metrics of the concatenated OOS series},
  "wfe" (mean of the folds' OOS/IS CAGR ratios, over folds with IS CAGR > 0),
  "wfe_aggregate" (the OOS series' CAGR / the folds' pooled IS CAGR; null unless that is
    > 0),
  "seconds" (walk_seconds below: the folds' sweeps, selections and OOS replays), "backend",
  "timing": {"total_seconds", "load_seconds", "plan_seconds", "walk_seconds",
    "selection_seconds", "estimate": {"seconds", "selection_seconds", "selection_path"}
    (the plan line's time model and the selection path it priced: none, scores pass, PBO,
    screened CSCV walk or PBO, plain CSCV walk),
    "selection": {"calls" (folds), "robust_seconds", "blocks_seconds", "scores_seconds",
    "cscv_seconds", "plateau_seconds", "other_seconds"}}
  (wall time of the whole run and its parts; selection null with --no-selection)}

example:
  wfo walk --csv orcl.csv --family channel_breakout --n 10:100:10 --side long_short,long_only \
           --is 1000 --oos 250 --mode rolling --cost-bps 2
)";

std::vector<FlagSpec> walk_flags() {
  auto common = strategy_flags();
  std::vector<FlagSpec> flags(common.begin(), common.end());
  flags.push_back({"is"});
  flags.push_back({"oos"});
  flags.push_back({"mode"});
  flags.push_back({"window"});  // recognised only to say it does not apply
  flags.push_back({"no-selection", false});
  flags.push_back({"memory-budget"});
  return flags;
}

}  // namespace

int run_walk(Args args) {
  const Stopwatch run_time;
  if (wants_help(args)) {
    print(std::string(kUsage) + kBarRangeHelp + kStrategyFlagsHelp + kJsonShape);
    return 0;
  }
  const auto flags = walk_flags();
  ParsedArgs parsed = parse_args(args, flags);
  if (parsed.has("window")) {
    throw UsageError("--window is not used by walk; --is gives the in-sample length");
  }
  StrategySetup setup = strategy_from_flags(parsed);
  for (const auto& w : setup.warnings) std::fprintf(stderr, "wfo: warning: %s\n", w.c_str());
  // The budget that binds (--memory-budget, RLIMIT_AS, cgroup memory.max), and the CSV's
  // load against it from the file's size, before any work (load_estimate.hpp).
  const MemoryBudget budget = binding_budget(setup.memory_budget_mib << 20, read_process_limits());
  if (const auto load = estimate_csv_load(setup.csv_path))
    check_load(*load, budget, setup.csv_path);
  const bool json = parsed.has("json");
  const auto report_dir = parsed.text("report");
  if (report_dir) prepare_report_dir(*report_dir);

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

  // The backend starts while the CSV parses; its errors still come after the CSV's, where
  // the choice is taken below.
  std::future<BackendChoice> starting = start_backend_choice(setup.backend);
  Stopwatch load_time;
  feeds::CsvReadResult csv = load_history(setup.csv_path, setup.skip_bad_rows, setup.columns);
  settle_data_facts(setup, csv.series);  // A from the whole file (spec-notes 37)
  cut_to_range(csv.series, setup.range, setup.csv_path);
  note_gaps(setup, csv.series);
  RunTiming timing;
  timing.walk = true;
  timing.load = load_time.seconds();
  Stopwatch plan_time;
  const HistoryView history = HistoryView::of(csv.series);
  if (count_folds(history.size(), walk) == 0) {
    const size_t needed = walk.warmup + 1 + walk.is_bars + walk.oos_bars;
    throw InputError(setup.csv_path + " has " + std::to_string(history.size()) +
                     " bars: no whole fold fits; one fold needs warmup " +
                     std::to_string(walk.warmup) + " + 1 + IS " + std::to_string(walk.is_bars) +
                     " + OOS " + std::to_string(walk.oos_bars) + " = " + std::to_string(needed) +
                     " bars");
  }

  // What --backend auto|cuda found (the GPU and the code that runs on it, or why not).
  BackendChoice choice = starting.get();
  if (!choice.detail.empty()) std::fprintf(stderr, "wfo: %s\n", choice.detail.c_str());
  auto backend = std::move(choice.backend);
  const size_t folds = count_folds(history.size(), walk);
  PlanInputs plan_in;
  plan_in.grid = setup.spec.grid;
  plan_in.history_bars = history.size();
  // Anchored folds grow by K bars each: their mean in-sample length.
  plan_in.window_bars = walk.mode == WalkMode::anchored
                            ? walk.is_bars + (folds - 1) * walk.oos_bars / 2
                            : walk.is_bars;
  plan_in.windows = folds;
  plan_in.warmup_bars = walk.warmup;
  plan_in.selection = !parsed.has("no-selection");
  plan_in.selection_spec = setup.selection;
  plan_in.objective = setup.rank.objective;
  plan_in.report = report_dir.has_value();
  plan_in.backend = std::string(backend->name());
  plan_in.threads = setup.threads > 0 ? setup.threads : hardware_threads();
  plan_in.budget = budget;
  const RunPlan plan = plan_run(plan_in);
  std::fprintf(stderr, "%s; %s\n", plan_text(plan, plan_in).c_str(),
               bars_per_year_text(setup.data).c_str());
  check_plan(plan, plan_in);
  timing.estimate = plan.seconds;
  timing.estimate_selection = plan.selection_seconds;
  timing.selection_path = std::string(to_string(plan.selection_path));
  walk.memory_budget = plan.chunk_budget;
  // Selection without PBO on every fold (so on the longest window) scores each fold's whole
  // grid: the folds' sweeps may share that pass.
  walk.scores_follow = plan_in.selection &&
                       !selection::pbo_applies(setup.selection, plan.combos.valid,
                                               walk.mode == WalkMode::rolling
                                                   ? walk.is_bars
                                                   : walk.is_bars + (folds - 1) * walk.oos_bars);
  if (plan_in.selection)
    std::fputs(
        plain_cscv_note(setup.selection, setup.rank.objective, plan.combos.valid, walk.is_bars)
            .c_str(),
        stderr);
  timing.plan = plan_time.seconds();

  ProgressBar progress("walk");
  // Robust selection per fold, on its IS window: the previous fold's winner is "current".
  std::vector<selection::SelectionReport> fold_selection;
  FoldSelector select;
  if (!parsed.has("no-selection")) {
    timing.selection.emplace();
    select = [&](const SweepRequest& req, const SweepResult& sweep,
                 const std::optional<Ranked>& previous) -> std::optional<Ranked> {
      SweepRequest quiet = req;
      quiet.progress = nullptr;
      std::optional<uint64_t> current;
      if (previous) current = previous->combo.id;
      fold_selection.push_back(selection::select(*backend, quiet, sweep, current, setup.selection));
      timing.selection->add(fold_selection.back().timing);
      return fold_selection.back().published;
    };
  }
  WalkResult result = walk_forward(*backend, history, setup.spec, setup.rank, walk, setup.precision,
                                   setup.threads, progress.callback(), select);
  timing.sweep = result.seconds;  // walk_forward's own clock: the same number as "seconds"
  progress.finish();
  timing.total = run_time.seconds();

  WalkReport report{
      setup.csv_path,    setup.strategy_name,         history, setup.spec, setup.rank, walk,
      std::move(result), std::string(backend->name())};
  report.data = &setup.data;
  if (json) {
    Json j = walk_json(report);
    for (size_t f = 0; f < fold_selection.size() && f < j["folds"].size(); ++f) {
      j["folds"][f]["selection"] =
          selection_json(fold_selection[f], setup.selection, setup.spec.grid, setup.rank.objective);
    }
    j["timing"] = timing_json(timing);
    print(j.dump(2) + "\n");
  } else {
    print(walk_table(report));
    for (size_t f = 0; f < fold_selection.size(); ++f) {
      print("fold " + std::to_string(f) + " " +
            selection_text(fold_selection[f], setup.selection, setup.spec.grid));
    }
    print(timing_text(timing));
  }
  if (report_dir) {
    if (std::fflush(stdout) != 0) throw WriteError("standard output", errno);
    Json sel_json = Json::array();
    for (const auto& fs : fold_selection)
      sel_json.push_back(
          selection_json(fs, setup.selection, setup.spec.grid, setup.rank.objective));
    const std::string path = write_walk_report(
        *report_dir, *backend, report, make_run_inputs("walk", args, setup, *report_dir),
        setup.precision, setup.threads, fold_selection.empty() ? nullptr : &sel_json);
    std::fprintf(stderr, "report: %s\n", path.c_str());
  }
  return 0;
}

}  // namespace wfod::cli
