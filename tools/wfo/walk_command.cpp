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
#include "report.hpp"
#include "report_writer.hpp"
#include "run_plan.hpp"
#include "run_timing.hpp"
#include "selection_output.hpp"
#include "strategy_from_flags.hpp"
#include "table_output.hpp"
#include "walk_run.hpp"
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

  const WalkSpec walk = walk_spec_from_flags(parsed, setup);

  // The backend starts while the CSV parses; its errors still come after the CSV's, where
  // the choice is taken below.
  std::future<BackendChoice> starting = start_backend_choice(setup.backend);
  LoadedWalk loaded = load_walk(setup, walk);

  // What --backend auto|cuda found (the GPU and the code that runs on it, or why not).
  BackendChoice choice = starting.get();
  if (!choice.detail.empty()) std::fprintf(stderr, "wfo: %s\n", choice.detail.c_str());
  auto backend = std::move(choice.backend);
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
