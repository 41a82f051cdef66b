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
#include "report.hpp"
#include "report_writer.hpp"
#include "run_timing.hpp"
#include "selection_output.hpp"
#include "strategy_command.hpp"
#include "strategy_from_flags.hpp"
#include "sweep_run.hpp"
#include "table_output.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kSweepUsage =
    R"(usage: wfo sweep --csv FILE --family FAMILY AXIS FLAGS... [options]
       wfo sweep --config FILE [--strategy NAME] [overriding flags...]
       wfo sweep --rules FILE --csv FILE [overriding flags...]
       wfo sweep --universe FILE [--skip-bad-files] [flags...]

Evaluates every combo of the grid over one window that ends at the last bar of the CSV
(or at --end) and prints the best --top combos (SPEC §6 metrics, SPEC §7 ranking).

  --window W         strategy returns in the window (with --config: its window; else all
                     bars after the warm-up, W = bars - 1 - warmup)
  --no-selection     skip robust selection (plateau, DSR, PBO: one more pass over the grid,
                     which on cuda without PBO shares the sweep's; settings from the
                     config's [strategy.selection])

universe (issue 47):
  --universe FILE    sweep every symbol of FILE, each on its own bars exactly as
                     `wfo sweep --csv` sweeps it (the window ends at each file's last bar),
                     on one backend, one symbol after another. FILE as for
                     `wfo walk --universe` (a CSV symbol,path[,bars_per_year], a folder of
                     .csv files or a quoted glob). Prints a row per symbol: its window, the
                     combo it would trade (robust selection's published combo, else the
                     best-ranked) with that combo's cagr, sharpe, max drawdown and trades,
                     and the PBO. One host only: not with --csv, --shard, --out or --report
                     (walk the universe for shards and the report).
  --skip-bad-files   a file that does not load, or has no room for the window, is skipped
                     and listed (stderr, the table, "skipped" in JSON)

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

--universe --json prints {"universe": {"source", "symbols", "swept",
    "skipped": [{"symbol", "path", "error"}], "settings": {the flags that make the run}},
  "symbols": [{"symbol", "path", "summary": {"window_bars", "first_ts", "last_ts",
    "evaluated", "ranked", "winner_source" (selection|top|none), "winner": {"id", "params",
    "metrics"} or null, "pbo"},
    "sweep": {the symbol's wfo sweep --json document less "seconds" and "timing"}}]
    (universe order),
  "run_specific": ["run"],
  "run": {"host", "started", "finished", "seconds", "wfo_version", "backend",
    "symbols": [{"symbol", "seconds", "timing"}]}}

example:
  wfo sweep --csv goog.csv --family ma_cross --fast 5:50:1 --slow 20:200:5 --ma sma,ema \
            --cost-bps 1 --top 10
)";

}  // namespace

int run_sweep(Args args) {
  const Stopwatch run_time;
  std::optional<ParsedArgs> parsed_args = parse_strategy_command(args, kSweepUsage,
                                                                 {{"window"},
                                                                  {"no-selection", false},
                                                                  {"memory-budget"},
                                                                  {"universe"},
                                                                  {"shard"},
                                                                  {"out"},
                                                                  {"skip-bad-files", false}},
                                                                 kJsonShape);
  if (!parsed_args) return 0;
  ParsedArgs& parsed = *parsed_args;
  if (parsed.has("universe")) return run_sweep_universe(args, parsed);
  for (const char* flag : {"shard", "out", "skip-bad-files"}) {
    if (parsed.has(flag))
      throw UsageError("--" + std::string(flag) + " applies to --universe runs only");
  }
  StrategySetup setup = strategy_from_flags(parsed);
  const RunOpening opening = open_run(parsed, setup);
  const bool json = opening.json;
  const auto& report_dir = opening.report_dir;

  // The backend starts while the CSV parses; its errors still come after the CSV's, where
  // the choice is taken below.
  BackendStarter starting(setup.backend);
  LoadedSweep loaded;
  starting.run_beside([&] { loaded = load_sweep(setup); });
  auto backend = starting.take();
  SweepRunOptions options;
  options.selection = !parsed.has("no-selection");
  options.report = report_dir.has_value();
  options.budget = opening.budget;
  SweepRun run = run_loaded_sweep(setup, std::move(loaded), *backend, options);
  RunTiming& timing = run.timing;
  timing.total = run_time.seconds();
  const SweepReport& report = run.report;
  const auto& sel = run.selection;

  if (json) {
    Json j = sweep_run_json(run, setup);
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
    const std::string path = write_sweep_report(*report_dir, *backend, report, run.request,
                                                make_run_inputs("sweep", args, setup, *report_dir),
                                                sel ? &sel_json : nullptr);
    std::fprintf(stderr, "report: %s\n", path.c_str());
  }
  return 0;
}

}  // namespace wfod::cli
