// Walk-forward analysis (SPEC §8): rolling or anchored in-sample windows, each fold's
// winner traded out of sample, switches paying their cost, metrics of the stitched series.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "wfod/backend.hpp"

namespace wfod {

enum class WalkMode { rolling, anchored };
std::string_view to_string(WalkMode);
WalkMode parse_walk_mode(std::string_view);

struct WalkSpec {
  size_t is_bars = 0;   // W
  size_t oos_bars = 0;  // k
  WalkMode mode = WalkMode::rolling;
  size_t warmup = 0;
  size_t memory_budget = 0;  // each fold's SweepRequest::memory_budget
  // The FoldSelector scores every combo of each fold's window right after its sweep (robust
  // selection without PBO): the walk's preparation keeps each fold's scores for it
  // (PrepareSpec::keep_scores). Changes no result.
  bool scores_follow = false;
  // The FoldSelector runs robust selection with PBO over this many CSCV blocks on each fold's
  // window right after its sweep (0: not on every fold): the walk's preparation asks for them
  // (PrepareSpec::pbo_blocks), so the cpu backend computes them in each sweep's own pass.
  // Changes no result.
  size_t pbo_blocks = 0;
};

struct Fold {
  size_t index = 0;
  size_t is_first = 0, is_last = 0;    // bar indices, inclusive
  size_t oos_first = 0, oos_last = 0;  // bar indices, inclusive
  std::optional<Ranked> winner;        // empty: no ranked combo, flat out of sample
  Metrics is;                          // the winner's in-sample metrics (zeros if none)
  Metrics oos;                         // over the fold's k out-of-sample bars
  uint64_t evaluated = 0, skipped = 0;
};

struct WalkResult {
  std::vector<Fold> folds;
  Metrics oos;                      // the whole concatenated out-of-sample series
  double wfe = 0;                   // mean of OOS cagr / IS cagr over folds with IS cagr > 0
  std::vector<double> oos_returns;  // s_t of the stitched series, one per OOS bar
  double seconds = 0;
};

// Number of whole folds that fit the history; 0 if none.
size_t count_folds(size_t history_bars, const WalkSpec&);

// Chooses a fold's winner from its in-sample sweep; `previous` is the winner the last fold
// traded (none for the first fold, or after a flat one). Robust selection's hysteresis
// (docs/spec-10-selection.md) plugs in here; without one the winner is the arg-max (SPEC §8).
using FoldSelector = std::function<std::optional<Ranked>(const SweepRequest&, const SweepResult&,
                                                         const std::optional<Ranked>& previous)>;

// Prepares the history once through the last fold's in-sample end (Backend::prepare) and
// hands that preparation to every fold's sweep and, in the request, to `select`.
WalkResult walk_forward(Backend&, const HistoryView&, const StrategySpec&, const RankSpec&,
                        const WalkSpec&, Precision, int threads,
                        const std::function<void(double)>& progress = {},
                        const FoldSelector& select = {});

}  // namespace wfod
