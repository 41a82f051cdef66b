// Summary: the associative per-chunk record behind every metric (SPEC §6).
// A window cut into chunks at any points, each summarised and joined left to right with
// combine(), yields exactly the trades, wins, bar counts and drawdown of one pass.
#pragma once

#include <cstdint>

#include "wfod/detail/exact_growth.hpp"
#include "wfod/metrics.hpp"

namespace wfod {

// One bar of a strategy's return stream: the exit segment then the body segment (SPEC §2).
struct BarSegments {
  int8_t exit_pos;  // p_{t-2}
  int8_t body_pos;  // p_{t-1}, the held position of the bar
  double exit_value;
  double body_value;
};

struct Summary {
  int64_t bars = 0;  // strategy returns in the chunk; 0 = the identity
  // Return moments: sum, sum of squares, downside sum of squares.
  double sum = 0, sum_sq = 0, down_sq = 0;
  // Equity relative to the chunk's start (1): product, max and min of the prefix products
  // (both include the start), and the largest drawdown inside the chunk.
  double growth = 1, peak = 1, trough = 1, drawdown = 0;
  // Set when some 1 + s_t <= 0: equity can change sign, and the drawdown combine
  // (which assumes positive equity) no longer holds. Callers then evaluate sequentially.
  bool nonpositive = false;
  // Trades. head: the run holding the chunk's first segment; tail: the run holding its last.
  // single_run: head and tail are the same run (no position change inside the chunk).
  // *_ret: the run's in-chunk return (sum of its segment values); *_abs: the sum of their
  // absolute values, which sets the run's dead band when it closes (SPEC v1.2 §6).
  int8_t head_pos = 0, tail_pos = 0;
  bool single_run = true;
  double head_ret = 0, tail_ret = 0;
  double head_abs = 0, tail_abs = 0;
  // Runs closed strictly inside the chunk (neither head nor tail), with non-zero position:
  // their count, the winners among them and the sums of the winning and losing returns
  // (a flat trade, within its dead band of 0, adds to neither sum).
  int64_t closed_trades = 0, closed_wins = 0;
  double closed_win_sum = 0, closed_loss_sum = 0;
  // Bar counts by held position, and position changes.
  int64_t long_bars = 0, short_bars = 0, changes = 0;
};

// Summary of one bar. Pure function of the bar's segments.
Summary summarize_bar(const BarSegments&);
// Associative join of two adjacent chunks, left then right. identity: Summary{}.
Summary combine(const Summary& left, const Summary& right);
// Metrics of a whole window from its summary. Requires !s.nonpositive.
Metrics finalize(const Summary& s, double bars_per_year);

// Accumulates bars one at a time: the fold of combine(summarize_bar(b)) left to right.
// For sequential users (walk-forward stitching, tests); hot loops keep their own state.
class SummaryBuilder {
 public:
  void add(const BarSegments& b) { s_ = combine(s_, summarize_bar(b)); }
  const Summary& summary() const { return s_; }

 private:
  Summary s_;
};

// Metrics of a window fed bar by bar, valid for any equity path: the drawdown is tracked
// literally (SPEC §6) so it stays exact when equity reaches zero or below, where the
// Summary drawdown combine does not apply; the total return (and so cagr and calmar) in
// double-double (src/growth_refine.hpp says why). Used for fallbacks, walk-forward
// stitching and the daemon's live out-of-sample metrics.
class SequentialMetrics {
 public:
  void add(const BarSegments& b);
  Metrics finish(double bars_per_year) const;

 private:
  SummaryBuilder builder_;
  double equity_ = 1, peak_ = 1, drawdown_ = 0;
  detail::ExactGrowth growth_;
};

}  // namespace wfod
