// Walk-forward analysis (SPEC §8): per fold, optimise in sample, trade the winner out of
// sample, pay the switch at the fold boundary, and report the stitched series.
#include "wfod/walk_forward.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "wfod/segments.hpp"
#include "wfod/summary.hpp"
#include "wfod/worker_threads.hpp"

namespace wfod {

std::string_view to_string(WalkMode m) { return m == WalkMode::rolling ? "rolling" : "anchored"; }

WalkMode parse_walk_mode(std::string_view s) {
  if (s == "rolling") return WalkMode::rolling;
  if (s == "anchored") return WalkMode::anchored;
  throw std::invalid_argument("unknown walk mode '" + std::string(s) +
                              "' (expected rolling|anchored)");
}

size_t count_folds(size_t history_bars, const WalkSpec& spec) {
  if (spec.is_bars == 0 || spec.oos_bars == 0 || history_bars == 0) return 0;
  // Fold f's IS window ends at bar warmup + W + f*k and its OOS bars follow it; the last
  // OOS bar, warmup + W + (f+1)*k, must exist.
  const size_t first_end = spec.warmup + spec.is_bars;
  if (first_end + spec.oos_bars > history_bars - 1) return 0;
  return (history_bars - 1 - first_end) / spec.oos_bars;
}

WalkResult walk_forward(Backend& backend, const HistoryView& h, const StrategySpec& strategy,
                        const RankSpec& rank, const WalkSpec& spec, Precision precision,
                        int threads, const std::function<void(double)>& progress,
                        const FoldSelector& select) {
  const auto start = std::chrono::steady_clock::now();
  if (spec.is_bars == 0) throw std::invalid_argument("in-sample length must be >= 1 bar");
  if (spec.oos_bars == 0) throw std::invalid_argument("out-of-sample length must be >= 1 bar");
  const size_t folds = count_folds(h.size(), spec);
  if (folds == 0)
    throw std::invalid_argument("no whole fold fits: warmup " + std::to_string(spec.warmup) +
                                " + IS " + std::to_string(spec.is_bars) + " + OOS " +
                                std::to_string(spec.oos_bars) + " needs " +
                                std::to_string(spec.warmup + spec.is_bars + spec.oos_bars + 1) +
                                " bars, the history has " + std::to_string(h.size()));

  // One preparation through the last fold's in-sample end, shared by every fold's sweep and
  // selection: a backend that prepares per history (cuda) builds it with the first fold's
  // sweep and then only moves the window over it. It keeps each fold's scores for its
  // selection where the selector scores the whole grid (WalkSpec::scores_follow), or its
  // block Summaries where the selector runs PBO (WalkSpec::pbo_blocks).
  const size_t last_end = spec.warmup + spec.is_bars + (folds - 1) * spec.oos_bars + 1;
  PrepareSpec preparing;
  preparing.bars = last_end;
  preparing.keep_scores = spec.scores_follow && static_cast<bool>(select);
  preparing.pbo_blocks = select ? spec.pbo_blocks : 0;
  const std::shared_ptr<PreparedHistory> prepared = backend.prepare(h, strategy, preparing);

  WalkResult result;
  const double cost = strategy.costs.per_unit();
  const double annual = strategy.bars_per_year;
  SequentialMetrics whole;
  std::vector<int8_t> prev_positions;  // empty = flat (no previous winner)
  std::optional<Ranked> previous;      // the last fold's winner, for `select`
  double wfe_sum = 0;
  size_t wfe_count = 0;

  // A fold's tail: its winner's positions and its out-of-sample bars. Tails run in fold order
  // (each needs the last one's positions) and only they touch the stitched series; none runs
  // while `select` does (which may ask for positions too).
  auto finish_fold = [&](Fold fold) {
    std::vector<int8_t> positions;
    if (fold.winner)
      positions = backend.positions(h.prefix(fold.oos_last + 1), strategy, fold.winner->combo);
    SequentialMetrics oos;
    // At the fold's first bar the exit segment is still the previous winner's position.
    for_each_segment(h, strategy.fill, cost, positions, fold.oos_first, fold.oos_last + 1,
                     position_or_flat(prev_positions, fold.oos_first - 2),
                     [&](size_t, const BarSegments& seg) {
                       oos.add(seg);
                       whole.add(seg);
                       result.oos_returns.push_back(seg.exit_value + seg.body_value);
                     });
    fold.oos = oos.finish(annual);
    if (fold.winner && fold.is.cagr > 0) {
      wfe_sum += fold.oos.cagr / fold.is.cagr;
      ++wfe_count;
    }
    prev_positions = std::move(positions);
    result.folds.push_back(std::move(fold));
  };
  // Where the backend allows it, fold f's tail runs on a parked worker thread (run_workers)
  // while fold f + 1 sweeps on this one (on cuda the sweep's thread mostly waits for the
  // device). Not with `threads == 1`: the caller asked for one thread.
  const bool overlap = threads != 1 && folds > 1 && backend.positions_overlap_sweep();
  std::optional<Fold> pending;  // the last fold, whose tail runs beside the next sweep

  for (size_t f = 0; f < folds; ++f) {
    Fold fold;
    fold.index = f;
    fold.is_last = spec.warmup + spec.is_bars + f * spec.oos_bars;
    const size_t end = fold.is_last + 1;  // T
    const size_t bars =
        spec.mode == WalkMode::rolling ? spec.is_bars : spec.is_bars + f * spec.oos_bars;
    fold.is_first = end - bars;
    fold.oos_first = end;
    fold.oos_last = end + spec.oos_bars - 1;

    SweepRequest req;
    req.history = h;
    req.strategy = strategy;
    req.window = {end, bars, spec.warmup};
    req.rank = rank;
    // A fold reads only the sweep's best combo (and selection its raw arg-max): a top-K of one
    // gives the same winner and spares the backends the other K - 1 (the cpu backend carries
    // each reported combo's total return again, src/growth_refine.hpp).
    req.rank.top = 1;
    req.precision = precision;
    req.threads = threads;
    req.memory_budget = spec.memory_budget;
    req.prepared = prepared;
    if (progress)
      req.progress = [&progress, f, folds](double x) {
        progress((static_cast<double>(f) + x) / static_cast<double>(folds));
      };
    SweepResult sweep;
    if (pending) {
      // Both finish before `select` runs (it may ask for positions too); the first exception
      // either throws is rethrown here once both are done.
      run_workers(2, [&](int worker) {
        if (worker == 0)
          sweep = backend.sweep(req);
        else
          finish_fold(std::move(*pending));
      });
      pending.reset();
    } else {
      sweep = backend.sweep(req);
    }
    fold.evaluated = sweep.evaluated;
    fold.skipped = sweep.skipped;

    if (select) {
      fold.winner = select(req, sweep, previous);
    } else if (!sweep.top.empty()) {
      fold.winner = sweep.top.front();
    }
    if (fold.winner) fold.is = fold.winner->metrics;
    previous = fold.winner;
    if (overlap && f + 1 < folds)
      pending = std::move(fold);
    else
      finish_fold(std::move(fold));
  }
  result.oos = whole.finish(annual);
  result.wfe = wfe_count ? wfe_sum / static_cast<double>(wfe_count) : 0.0;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace wfod
