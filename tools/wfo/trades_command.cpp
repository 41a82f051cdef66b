// `wfo trades`: every trade (SPEC v1.2 §6) of the top combo of a sweep's window, or with
// --walk of a walk's stitched OOS series, as the CSV that --report writes as trades.csv:
// its rows are the metrics' `trades`, its wins their `wins`, its returns sum to Σ s.

#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "bar_range.hpp"
#include "commands.hpp"
#include "history.hpp"
#include "output.hpp"
#include "params.hpp"
#include "selection_output.hpp"
#include "strategy_command.hpp"
#include "strategy_from_flags.hpp"
#include "trade_list.hpp"
#include "walk_run.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kTradesUsage =
    R"(usage: wfo trades --csv FILE --family FAMILY AXIS FLAGS... [--window W | --id N] [options]
       wfo trades --walk --is W --oos K [--mode M] --csv FILE --family FAMILY AXIS FLAGS...

Prints every trade (SPEC v1.2 §6: a maximal run of segments with one non-zero held
position) as CSV: trade, side, entry_time, entry_bar, entry_price, exit_time, exit_bar,
exit_price, bars_held, return (the sum of its segments, costs included), cost, abs_sum
(Σ|v| of its segments), outcome (win if return > 1e-12 Σ|v|, loss if < -1e-12 Σ|v|, else
flat), open_at_start, open_at_end (held when the window opened or closed: entry or exit
price is then that bar's close). The rows are the `trades` of `wfo sweep --json`, the wins
its `wins`, and the returns sum to the window's Σ s. --report DIR writes the same file as
DIR/trades.csv.

  (default)          the top combo (SPEC §7 ranking, as wfo sweep's first row) over the
                     sweep's window (--window W; else all bars after the warm-up)
  --id N             that combo of the grid instead of the top one
  --walk             the stitched out-of-sample series of wfo walk with the same flags
                     (--is, --oos, --mode, --no-selection as there)

)";

std::string summary(const std::vector<Trade>& trades) {
  size_t wins = 0, losses = 0;
  double sum = 0, abs_sum = 0;
  for (const Trade& t : trades) {
    wins += t.outcome > 0 ? 1 : 0;
    losses += t.outcome < 0 ? 1 : 0;
    sum += t.ret;
    abs_sum += t.abs_sum;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "%zu trades: %zu wins, %zu losses, %zu flat; returns sum %.17g",
                trades.size(), wins, losses, trades.size() - wins - losses, sum);
  (void)abs_sum;
  return buf;
}

}  // namespace

int run_trades(Args args) {
  std::optional<ParsedArgs> parsed_args = parse_strategy_command(args, kTradesUsage,
                                                                 {{"window"},
                                                                  {"id"},
                                                                  {"is"},
                                                                  {"oos"},
                                                                  {"mode"},
                                                                  {"memory-budget"},
                                                                  {"walk", false},
                                                                  {"no-selection", false}});
  if (!parsed_args) return 0;
  ParsedArgs& parsed = *parsed_args;
  if (parsed.has("report"))
    throw UsageError("--report is wfo sweep's and walk's (they write trades.csv)");
  if (parsed.has("json")) throw UsageError("wfo trades prints CSV; --json is not one of its flags");
  const bool walk_mode = parsed.has("walk");
  for (const char* f : {"is", "oos", "mode"}) {
    if (!walk_mode && parsed.has(f)) throw UsageError(std::string("--") + f + " needs --walk");
  }
  if (walk_mode && (parsed.has("window") || parsed.has("id"))) {
    throw UsageError("--walk trades each fold's winner: --window and --id do not apply");
  }
  StrategySetup setup = strategy_from_flags(parsed);
  for (const auto& w : setup.warnings) std::fprintf(stderr, "wfo: warning: %s\n", w.c_str());
  feeds::CsvReadResult csv = load_history(setup.csv_path, setup.skip_bad_rows, setup.columns);
  settle_data_facts(setup, csv.series);
  cut_to_range(csv.series, setup.range, setup.csv_path);
  const HistoryView history = HistoryView::of(csv.series);
  auto backend = make_backend(setup.backend);
  const Grid& grid = setup.spec.grid;
  std::vector<Trade> trades;

  if (walk_mode) {
    const WalkSpec walk = walk_spec_from_flags(parsed, setup);
    if (count_folds(history.size(), walk) == 0)
      throw InputError(setup.csv_path + " has " + std::to_string(history.size()) +
                       " bars: no whole fold fits");
    FoldSelector select;
    // As wfo walk: each fold publishes per robust selection, the previous winner current.
    if (!parsed.has("no-selection")) select = fold_selector(*backend, setup.selection);
    const WalkResult r = walk_forward(*backend, history, setup.spec, setup.rank, walk,
                                      setup.precision, setup.threads, {}, select);
    trades = walk_trades(*backend, history, setup.spec, r);
    std::fprintf(stderr, "wfo: stitched OOS series of %zu folds, bars %zu .. %zu: %s\n",
                 r.folds.size(), r.folds.front().oos_first, r.folds.back().oos_last,
                 summary(trades).c_str());
  } else {
    const size_t n = history.size();
    const size_t warmup = setup.warmup.value_or(default_warmup(grid));
    if (n < warmup + 2)
      throw InputError(setup.csv_path + " has " + std::to_string(n) +
                       " bars: no room for a window after a warm-up of " + std::to_string(warmup));
    const size_t window = setup.window.value_or(n - 1 - warmup);
    if (window + warmup + 1 > n)
      throw InputError(setup.csv_path + " has " + std::to_string(n) + " bars; a window of " +
                       std::to_string(window) + " after a warm-up of " + std::to_string(warmup) +
                       " needs " + std::to_string(window + warmup + 1));
    const WindowSpec w{n, window, warmup};
    Combo combo;
    if (auto id = parsed.count("id")) {
      if (*id >= grid.size())
        throw UsageError("--id " + std::to_string(*id) + ": the grid has " +
                         std::to_string(grid.size()) + " combos");
      combo = grid.decode(*id);
      if (!combo.valid()) throw UsageError("--id " + std::to_string(*id) + " is not a valid combo");
    } else {
      SweepRequest request;
      request.history = history;
      request.strategy = setup.spec;
      request.window = w;
      request.rank = setup.rank;
      request.rank.top = 1;
      request.precision = setup.precision;
      request.threads = setup.threads;
      check_window(request);
      const SweepResult result = backend->sweep(request);
      if (result.top.empty()) throw InputError("no combo of the grid is ranked (SPEC §7)");
      combo = result.top.front().combo;
    }
    trades = window_trades(*backend, history, setup.spec, combo, w.first(), w.end - 1);
    std::fprintf(stderr, "wfo: combo %llu, window bars %zu .. %zu (%s .. %s): %s\n",
                 static_cast<unsigned long long>(combo.id), w.first(), w.end - 1,
                 feeds::format_timestamp(history.ts_ns[w.first()]).c_str(),
                 feeds::format_timestamp(history.ts_ns[w.end - 1]).c_str(),
                 summary(trades).c_str());
  }
  print(trades_csv(history, trades));
  return 0;
}

}  // namespace wfod::cli
