// `wfo sweep`: one window (ending at the CSV's last bar) optimised over a whole grid,
// printed as the top-K table or one JSON document.

#include <cerrno>
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "history.hpp"
#include "json_output.hpp"
#include "load_estimate.hpp"
#include "memory_limits.hpp"
#include "output.hpp"
#include "plan_step.hpp"
#include "progress_bar.hpp"
#include "report.hpp"
#include "report_writer.hpp"
#include "run_plan.hpp"
#include "run_timing.hpp"
#include "selection_output.hpp"
#include "strategy_command.hpp"
#include "strategy_from_flags.hpp"
#include "table_output.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kUsage =
    R"(usage: wfo sweep --csv FILE --family FAMILY AXIS FLAGS... [options]
       wfo sweep --config FILE [--strategy NAME] [overriding flags...]
       wfo sweep --rules FILE --csv FILE [overriding flags...]

Evaluates every combo of the grid over one window that ends at the last bar of the CSV
(or at --end) and prints the best --top combos (SPEC §6 metrics, SPEC §7 ranking).

  --window W         strategy returns in the window (with --config: its window; else all
                     bars after the warm-up, W = bars - 1 - warmup)
  --no-selection     skip robust selection (plateau, DSR, PBO: one more pass over the grid,
                     which on cuda without PBO shares the sweep's; settings from the
                     config's [strategy.selection])

)";

constexpr const char* kJsonShape = R"(
--json prints {"evaluated", "skipped", "ranked",
  "unranked_by": {"min_trades", "max_drawdown", "min_exposure"} (valid combos failing each
    SPEC §7 constraint; one failing several counts under each; backends cpu and cpu_ref),
  "seconds" (the sweep alone), "backend",
  "window": {"bars", "first_ts", "last_ts", "first", "last"},
  "top": [{"id", "params": {...}, "metrics": {every SPEC §6 metric}}],
  "selection": {"objective", "raw", "plateau", "winner", "current", "published", "changed",
    "reason", "hysteresis", "dsr": {"dsr", "expected_max_sharpe", "sharpe", "trials",
    "sharpe_var", "bars", "skew", "kurt", "min_dsr", "passes"}, "pbo": {"pbo", "blocks",
    "block_bars", "remainder_bars", "splits", "splits_with_winner", "combos",
    "excluded_nonpositive", "logit": {quantiles}, "histogram", "degradation", "prob_oos_loss"}}
  (robust selection, docs/spec-10-selection.md; absent with --no-selection),
  "timing": {"total_seconds", "load_seconds", "plan_seconds", "sweep_seconds",
    "selection_seconds", "estimate": {"seconds", "selection_seconds", "selection_path"}
    (the plan line's time model and the selection path it priced: none, scores pass, PBO,
    screened CSCV walk or PBO, plain CSCV walk),
    "selection": {"calls", "robust_seconds", "blocks_seconds", "scores_seconds",
    "cscv_seconds", "plateau_seconds", "other_seconds"}}
  (wall time of the whole run and its parts; selection null with --no-selection)}

example:
  wfo sweep --csv goog.csv --family ma_cross --fast 5:50:1 --slow 20:200:5 --ma sma,ema \
            --cost-bps 1 --top 10
)";

}  // namespace

int run_sweep(Args args) {
  const Stopwatch run_time;
  std::optional<ParsedArgs> parsed_args = parse_strategy_command(
      args, kUsage, {{"window"}, {"no-selection", false}, {"memory-budget"}}, kJsonShape);
  if (!parsed_args) return 0;
  ParsedArgs& parsed = *parsed_args;
  StrategySetup setup = strategy_from_flags(parsed);
  const RunOpening opening = open_run(parsed, setup);
  const MemoryBudget& budget = opening.budget;
  const bool json = opening.json;
  const auto& report_dir = opening.report_dir;

  // The backend starts while the CSV parses; its errors still come after the CSV's, where
  // the choice is taken below.
  BackendStarter starting(setup.backend);
  Stopwatch load_time;
  feeds::CsvReadResult csv;
  starting.run_beside([&] {
    csv = load_history(setup.csv_path, setup.skip_bad_rows, setup.columns);
    settle_data_facts(setup, csv.series);  // A from the whole file (spec-notes 37)
    cut_to_range(csv.series, setup.range, setup.csv_path);
    note_gaps(setup, csv.series);
  });
  RunTiming timing;
  timing.load = load_time.seconds();
  Stopwatch plan_time;
  const HistoryView history = HistoryView::of(csv.series);
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

  SweepRequest request;
  request.history = history;
  request.strategy = setup.spec;
  request.window = WindowSpec{n, window, warmup};
  request.rank = setup.rank;
  request.precision = setup.precision;
  request.threads = setup.threads;
  check_window(request);

  auto backend = starting.take();
  PlanInputs plan_in;
  plan_in.history_bars = n;
  plan_in.window_bars = window;
  plan_in.warmup_bars = warmup;
  plan_in.selection = !parsed.has("no-selection");
  plan_in.report = report_dir.has_value();
  plan_in.budget = budget;
  const RunPlan plan = plan_checked_run(plan_in, setup, *backend, history, timing);
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
  request.prepared = backend->prepare(history, setup.spec, preparing);
  if (plan_in.selection)
    std::fputs(
        plain_cscv_note(setup.selection, setup.rank.objective, plan.combos.valid, window).c_str(),
        stderr);
  timing.plan = plan_time.seconds();

  ProgressBar progress("sweep");
  request.progress = progress.callback();
  Stopwatch sweep_time;
  SweepResult result = backend->sweep(request);
  timing.sweep = sweep_time.seconds();
  progress.finish();
  // Robust selection of this window; a one-off sweep has no current combo.
  std::optional<selection::SelectionReport> sel;
  if (!parsed.has("no-selection")) {
    request.progress = nullptr;
    sel = selection::select(*backend, request, result, std::nullopt, setup.selection);
    timing.selection.emplace().add(sel->timing);
  }
  timing.total = run_time.seconds();

  SweepReport report{setup.csv_path, setup.strategy_name, history,           setup.spec,
                     setup.rank,     request.window,      std::move(result), setup.precision};
  report.data = &setup.data;
  if (json) {
    Json j = sweep_json(report);
    if (sel) j["selection"] = selection_json(*sel, setup.selection, setup.rank.objective);
    j["timing"] = timing_json(timing);
    print(j.dump(2) + "\n");
  } else {
    print(sweep_table(report));
    if (sel) print(selection_text(*sel, setup.selection, setup.spec.grid));
    print(timing_text(timing));
  }
  if (report_dir) {
    if (std::fflush(stdout) != 0) throw WriteError("standard output", errno);
    Json sel_json;
    if (sel) sel_json = selection_json(*sel, setup.selection, setup.rank.objective);
    const std::string path = write_sweep_report(*report_dir, *backend, report, request,
                                                make_run_inputs("sweep", args, setup, *report_dir),
                                                sel ? &sel_json : nullptr);
    std::fprintf(stderr, "report: %s\n", path.c_str());
  }
  return 0;
}

}  // namespace wfod::cli
