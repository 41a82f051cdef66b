// `wfo walk`: walk-forward analysis (SPEC §8) of one strategy grid over the CSV: per-fold
// winners, IS/OOS metrics, the stitched OOS series' metrics and WFE, as a table or JSON.

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
#include "run_plan.hpp"
#include "run_timing.hpp"
#include "selection_output.hpp"
#include "strategy_command.hpp"
#include "strategy_from_flags.hpp"
#include "table_output.hpp"
#include "walk_run.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kWalkUsage =
    R"(usage: wfo walk --csv FILE --family FAMILY AXIS FLAGS... --is W --oos K [options]
       wfo walk --config FILE [--strategy NAME] [overriding flags...]
       wfo walk --rules FILE --csv FILE [overriding flags...]
       wfo walk --universe FILE [--shard I/N --out PARTIAL.json] [--skip-bad-files] ...

Walk-forward analysis (SPEC §8): fold f optimises on its in-sample window and its winner
trades the next K bars out of sample; only whole folds run. The first IS window starts at
bar warmup + 1.

  --is W             in-sample window, in strategy returns (with --config: its window)
  --oos K            out-of-sample bars per fold (with --config: its every)
  --mode rolling|anchored   rolling slides the IS window by K, anchored grows it (rolling)
  --no-selection     fold winners are the raw arg-max (no hysteresis, plateau, DSR, PBO);
                     otherwise each fold publishes per the config's [strategy.selection],
                     the previous fold's winner being the current combo

universe (issue 47; docs/spec-notes.md 60):
  --universe FILE    walk every symbol of FILE, each on its own bars exactly as
                     `wfo walk --csv` walks it, on one backend, one symbol after another.
                     FILE: a CSV with the header symbol,path[,bars_per_year] (paths relative
                     to FILE; bars_per_year: that symbol's --bars-per-year; a symbol listed
                     twice is an error), or a folder of .csv files, or a quoted glob
                     ('data/*_d1_*.csv'), symbol = file stem, in name order. Prints a row per
                     symbol (OOS cagr, sharpe, max drawdown, trades, WFE, the last fold's PBO
                     and winner) and the equal-weight portfolio of the symbols' stitched OOS
                     returns beside equal-weight buy and hold, at --bars-per-year (else the
                     median of the symbols' bars per year). Not with --csv.
  --report DIR       the universe report: DIR/index.html (the symbols' table, sorted by a
                     click on a column; the portfolio's equity against buy and hold; OOS
                     sharpe and WFE across symbols; the last winners' parameters),
                     DIR/universe.json (its data) and DIR/NAME/ per symbol, the files that
                     `wfo walk --csv FILE --report DIR/NAME` writes (report.html, linked from
                     the table). NAME is the symbol made safe as a folder name (letters,
                     digits, - _ . kept, others _; "~2" on a clash). With --shard, the pages
                     go into the partial and `wfo merge --report DIR` writes them (give the
                     shards the same DIR)
  --skip-bad-files   a file that does not load, or has no room for one fold, is skipped and
                     listed (stderr, the table, "skipped" in JSON) instead of ending the run
  --shard I/N        walk only symbols k (0-based, universe order) with k mod N = I,
                     0 <= I < N (a Slurm array's index), and write them with --out
  --out PARTIAL.json the partial result (with --shard, nothing on stdout); wfo merge joins
                     the N partials into the one-host result

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

--universe --json prints {"universe": {"source", "symbols", "walked",
    "skipped": [{"symbol", "path", "error"}], "settings": {the flags that make the run}},
  "symbols": [{"symbol", "path", "summary": {"folds", "oos_bars", "oos_first_ts",
    "oos_last_ts", "bars_per_year", "oos_total_return", "oos_cagr", "oos_sharpe",
    "oos_max_drawdown", "oos_trades", "wfe", "wfe_aggregate", "pbo" (the last fold's),
    "last_winner": {"id", "params"} or null},
    "walk": {the symbol's wfo walk --json document less "seconds" and "timing"}}]
    (universe order),
  "portfolio": {"weighting", "symbols", "bars", "first_ts", "last_ts", "bars_per_year",
    "bars_per_year_source" (flag|median), "strategy": {"total_return", "cagr", "sharpe",
    "sortino", "max_drawdown", "calmar"}, "buy_and_hold": {the same}},
  "run_specific": ["run"] (the fields that differ between runs of the same inputs),
  "run": {"shards": [{"shard", "host", "started", "finished", "seconds", "wfo_version",
    "backend", "symbols": [{"symbol", "seconds", "timing"}]}], "merged" (wfo merge's)}}

example:
  wfo walk --csv orcl.csv --family channel_breakout --n 10:100:10 --side long_short,long_only \
           --is 1000 --oos 250 --mode rolling --cost-bps 2
)";

}  // namespace

int run_walk(Args args) {
  const Stopwatch run_time;
  std::optional<ParsedArgs> parsed_args =
      parse_strategy_command(args, kWalkUsage,
                             {{"is"},
                              {"oos"},
                              {"mode"},
                              {"window"},  // recognised only to say it does not apply
                              {"no-selection", false},
                              {"memory-budget"},
                              {"universe"},
                              {"shard"},
                              {"out"},
                              {"skip-bad-files", false}},
                             kJsonShape);
  if (!parsed_args) return 0;
  ParsedArgs& parsed = *parsed_args;
  if (parsed.has("window")) {
    throw UsageError("--window is not used by walk; --is gives the in-sample length");
  }
  if (parsed.has("universe")) return run_walk_universe(args, parsed);
  for (const char* flag : {"shard", "out", "skip-bad-files"}) {
    if (parsed.has(flag))
      throw UsageError("--" + std::string(flag) + " applies to --universe runs only");
  }
  StrategySetup setup = strategy_from_flags(parsed);
  const RunOpening opening = open_run(parsed, setup);
  const MemoryBudget& budget = opening.budget;
  const bool json = opening.json;
  const auto& report_dir = opening.report_dir;

  const WalkSpec walk = walk_spec_from_flags(parsed, setup);

  // The backend starts while the CSV parses; its errors still come after the CSV's, where
  // the choice is taken below.
  BackendStarter starting(setup.backend);
  LoadedWalk loaded;
  starting.run_beside([&] { loaded = load_walk(setup, walk); });

  auto backend = starting.take();
  WalkRunOptions options;
  options.selection = !parsed.has("no-selection");
  options.report = report_dir.has_value();
  options.budget = budget;
  WalkRun run = run_loaded_walk(setup, std::move(loaded), *backend, options);
  RunTiming& timing = run.timing;
  timing.total = run_time.seconds();
  const WalkReport& report = run.report;
  const auto& fold_selection = run.fold_selection;

  if (json) {
    Json j = walk_run_json(run, setup);
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
      sel_json.push_back(selection_json(fs, setup.selection, setup.rank.objective));
    const std::string path = write_walk_report(
        *report_dir, *backend, report, make_run_inputs("walk", args, setup, *report_dir),
        setup.precision, setup.threads, fold_selection.empty() ? nullptr : &sel_json);
    std::fprintf(stderr, "report: %s\n", path.c_str());
  }
  return 0;
}

}  // namespace wfod::cli
