// Per-thread accumulators of one (combo, range) evaluation that the device evaluators share:
// return moments, trade bookkeeping at position changes, bar counts, and the Summary they
// make (SPEC §6) in Tally; RangeWalk adds the bar's returns and equity and drawdown tracking
// for the evaluators that walk every bar (the sweep's range, the stream's range, the block
// Summaries); the sweep's run-length evaluator tracks equity its own way.
#pragma once

#include <math.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "wfod/summary.hpp"

namespace wfod::cuda {

// A range's bar, trade and change counts are 32-bit: fewer registers for the sweep's kernels,
// which are bound by how many threads fit (bench/results/h200-2026-12-04-s22f: A 3.55-3.69 ->
// 3.25-3.26 ms, C 46 -> 44.5, D 6.40 -> 6.18). So a device range holds at most kMaxTallyBars
// bars: the cuda backend and stream refuse a longer window (check_tally_window).
inline constexpr long long kMaxTallyBars = std::numeric_limits<int>::max();  // Tally's counts

inline void check_tally_window(size_t bars) {
  if (bars > static_cast<size_t>(kMaxTallyBars))
    throw std::invalid_argument(
        "window of " + std::to_string(bars) + " bars: the cuda backend evaluates at most " +
        std::to_string(kMaxTallyBars) + " bars per window (use --backend cpu)");
}

struct Tally {
  double sum = 0, sum_sq = 0, down_sq = 0;
  double run = 0, head_ret = 0, win_sum = 0, loss_sum = 0;
  // Σ|segment value| of the open run and of the head run: each closing run's dead band
  // (SPEC v1.2 §6).
  double run_abs = 0, head_abs = 0;
  int closed = 0, wins = 0, longs = 0, shorts = 0, changes = 0;
  bool head_closed = false;

  __device__ void add_return(double s) {
    sum += s;
    sum_sq += s * s;
    down_sq += s < 0 ? s * s : 0.0;
  }
  // The held position changes from a to b at this bar: the run held through the exit
  // segment closes (the first close is the range's head run, kept open for combine()).
  __device__ void change(double a, double exit_value, double body_value) {
    const double closing = run + exit_value;
    const double closing_abs = run_abs + fabs(exit_value);
    if (!head_closed) {
      head_ret = closing;
      head_abs = closing_abs;
      head_closed = true;
    } else if (a != 0.0) {
      ++closed;
      const double band = kTradeBand * closing_abs;
      if (closing > band) {
        ++wins;
        win_sum += closing;
      } else if (closing < -band) {
        loss_sum += closing;
      }
    }
    run = body_value;
    run_abs = fabs(body_value);
    ++changes;
  }
  // A hold bar (no change) of the run: its return s and the sum of its segments' absolute
  // values.
  __device__ __forceinline__ void hold(double s, double abs_sum) {
    run += s;
    run_abs += abs_sum;
  }
  // change() or the hold path's run += s, as `changed` says, with the same operations selected
  // instead of branched to (win_sum and loss_sum never hold -0, so adding 0.0 keeps them).
  __device__ __forceinline__ void change_or_hold(bool changed, double a, double exit_value,
                                                 double body_value, double s) {
    const double closing = run + exit_value;
    const double closing_abs = run_abs + fabs(exit_value);
    const double band = kTradeBand * closing_abs;
    const bool first_close = changed && !head_closed;
    const bool counted = changed && head_closed && a != 0.0;
    const bool won = counted && closing > band, lost = counted && closing < -band;
    head_ret = first_close ? closing : head_ret;
    head_abs = first_close ? closing_abs : head_abs;
    closed += counted ? 1 : 0;
    wins += won ? 1 : 0;
    win_sum += won ? closing : 0.0;
    loss_sum += lost ? closing : 0.0;
    head_closed = changed ? true : head_closed;
    run = changed ? body_value : run + s;
    run_abs = changed ? fabs(body_value) : run_abs + fabs(exit_value) + fabs(body_value);
    changes += changed ? 1 : 0;
  }
  // change() with its cases selected: for a caller already inside a branch its lanes take at
  // different bars, where nested branches would split the warp again.
  __device__ __forceinline__ void change_selected(double a, double exit_value, double body_value) {
    change_or_hold(true, a, exit_value, body_value, 0.0);
  }
  // One bar whose held position goes from a to b (changed: a != b), its exit and body values
  // and return s: add_return, then change() or the hold path, then count_held(b, 1), with the
  // same operations in the same order but predicated instead of branched (for kernels whose
  // lanes change position at different bars: no divergence; the block Summaries use it).
  __device__ void bar_predicated(double a, double b, bool changed, double exit_value,
                                 double body_value, double s) {
    add_return(s);
    change_or_hold(changed, a, exit_value, body_value, s);
    longs += b > 0.0 ? 1 : 0;
    shorts += b < 0.0 ? 1 : 0;
  }
  __device__ void count_held(double b, long long bars) {
    if (b > 0) longs += static_cast<int>(bars);
    if (b < 0) shorts += static_cast<int>(bars);
  }

  // The Summary of bars [first, last); equity figures are relative to the range start.
  __device__ Summary summary(long long first, long long last, double head_pos, double tail_pos,
                             double growth, double peak, double trough, double drawdown,
                             bool nonpositive) const {
    Summary r;
    r.bars = last - first;
    if (r.bars <= 0) return Summary{};
    r.sum = sum;
    r.sum_sq = sum_sq;
    r.down_sq = down_sq;
    r.growth = growth;
    r.peak = peak;
    r.trough = trough;
    r.drawdown = drawdown;
    r.nonpositive = nonpositive;
    r.head_pos = static_cast<int8_t>(head_pos);
    r.tail_pos = static_cast<int8_t>(tail_pos);
    r.single_run = !head_closed;
    r.head_ret = head_closed ? head_ret : run;
    r.tail_ret = run;
    r.head_abs = head_closed ? head_abs : run_abs;
    r.tail_abs = run_abs;
    r.closed_trades = closed;
    r.closed_wins = wins;
    r.closed_win_sum = win_sum;
    r.closed_loss_sum = loss_sum;
    r.long_bars = longs;
    r.short_bars = shorts;
    r.changes = changes;
    return r;
  }
};

// The strategy return s_t of one bar whose held position goes from a (the exit segment's) to
// b (the body's), with its gap and body returns and the cost rate (SPEC §5): what
// RangeWalk::bar adds up, and what combo_returns lists.
__device__ __forceinline__ double bar_return(double a, double b, double gap, double body,
                                             double cost) {
  const bool changed = a != b;
  const double exit_value = a * gap - (changed ? cost * fabs(a) : 0.0);
  const double body_value = b * body - (changed ? cost * fabs(b) : 0.0);
  return exit_value + body_value;
}

// One bar-by-bar walk over a (combo, bar range): bar() takes the position held through the
// bar's exit segment (a, decided two closes back) and body (b), the bar's gap and body
// returns and the cost rate (SPEC §5); summary() is the range's Summary. Predicated: the same
// operations without branches (for kernels whose lanes change position at different bars).
template <bool Predicated>
struct RangeWalk {
  Tally tally;
  double equity = 1, peak = 1, trough = 1, best_peak = 1, best_trough = 1;
  bool nonpositive = false;

  // CountHeld false: the bar is left out of the long/short bar counts (the caller counts them,
  // e.g. a tile's at once: Tally::count_held).
  template <bool CountHeld = true>
  __device__ __forceinline__ void bar(double a, double b, double gap, double body, double cost) {
    const bool changed = a != b;
    const double exit_value = a * gap - (changed ? cost * fabs(a) : 0.0);
    const double body_value = b * body - (changed ? cost * fabs(b) : 0.0);
    const double s = exit_value + body_value;
    if constexpr (Predicated) {
      grow_selected(s);
      tally.bar_predicated(a, b, changed, exit_value, body_value, s);
    } else {
      const double g = 1.0 + s;
      nonpositive = nonpositive || g <= 0.0;
      equity *= g;
      peak = fmax(peak, equity);
      trough = fmin(trough, equity);
      if (equity * best_peak < best_trough * peak) {
        best_peak = peak;
        best_trough = equity;
      }
      tally.add_return(s);
      if (changed) {
        tally.change(a, exit_value, body_value);
      } else {
        tally.hold(s, fabs(exit_value) + fabs(body_value));
      }
      if constexpr (CountHeld) tally.count_held(b, 1);
    }
  }
  // One bar of the per-bar evaluator in fewer instructions than bar<false>(a, b, ...), with
  // the values it makes wherever they reach a metric: b (held_b(), the position held in the
  // bar's body) is decoded and the costs are charged only at a change bar (changed: a != b); a
  // hold bar earns a * gap + a * body (and its run adds |a * gap| + |a * body|) (a in {-1, 0, 1}:
  // both products exact, so it rounds once, as bar()'s exit + body does: x - 0.0 is x); the running
  // peak and trough are compare-selects, equal to fmax/fmin for every positive equity, and a bar
  // with 1 + s <= 0 marks the Summary nonpositive, which every caller replays on the host. Leaves
  // the held counts to the caller (as bar<false>). a becomes b.
  template <typename HeldB>
  __device__ __forceinline__ void step(bool changed, double& a, HeldB held_b, double gap,
                                       double body, double cost) {
    static_assert(!Predicated, "step() branches at change bars");
    double s;
    if (changed) {
      const double b = held_b();
      const double exit_value = a * gap - cost * fabs(a);
      const double body_value = b * body - cost * fabs(b);
      s = exit_value + body_value;
      tally.change_selected(a, exit_value, body_value);
      a = b;
    } else {
      const double exit_value = a * gap, body_value = a * body;
      s = exit_value + body_value;
      tally.hold(s, fabs(exit_value) + fabs(body_value));
    }
    grow_selected(s);
    tally.add_return(s);
  }
  // Equity grown by a bar's return s, the peak, trough and deepest drawdown by compare-selects.
  __device__ __forceinline__ void grow_selected(double s) {
    const double g = 1.0 + s;
    nonpositive = nonpositive || g <= 0.0;
    equity *= g;
    peak = peak < equity ? equity : peak;
    trough = equity < trough ? equity : trough;
    // Deepest drawdown so far is best_trough / best_peak, compared without a division.
    const bool deeper = equity * best_peak < best_trough * peak;
    best_peak = deeper ? peak : best_peak;
    best_trough = deeper ? equity : best_trough;
  }
  // tail_pos: the position held in the last bar's body.
  __device__ Summary summary(long long first, long long last, double head_pos,
                             double tail_pos) const {
    return tally.summary(first, last, head_pos, tail_pos, equity, peak, trough,
                         1.0 - best_trough / best_peak, nonpositive);
  }
};

}  // namespace wfod::cuda
