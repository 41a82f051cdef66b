// One combo's Summary of one bar range on the device, bar by bar, with the very operations
// and order of the cpu backend's lane kernel (kernels/cpu/lane_kernel_impl.hpp): so with the
// same positions every field, floats included, is bit-identical to cpu's block_summaries
// (the file that includes this is built with -fmad=false: no contraction). Decisions are the
// float64 rules of device_grid.cuh, or (Screened) the sweep's float32 screen with the float64
// fallback, which decides identically: exact either way, as SPEC §9 asks.
#pragma once

#include "cuda/device_grid.cuh"
#include "cuda/sweep_kernels.cuh"
#include "wfod/summary.hpp"

namespace wfod::cuda {

// The decision at the close of bar t (decide()'s answer). Screened: the float32 screen of
// the sweep's exact mode (decide_loaded with fast = false: the doubles are read only when the
// floats cannot settle a comparison, so the answer is decide()'s, SPEC §9); `cur` holds bar
// t's float inputs, `prev` bar t - 1's. Otherwise the float64 rules directly.
template <int Family, bool Cross, bool Vol, bool Screened>
__device__ __forceinline__ bool block_decide(const DeviceCombo& c, const BarData& bars,
                                             const BarInputs& cur, const BarInputs& prev,
                                             long long t, double* v) {
  if constexpr (Screened)
    return decide_loaded<Family, Cross, Vol>(c, cur, prev, bars.matrix, bars.rows, bars.close, t,
                                             false, v);
  else
    return decide<Family, Cross, Vol>(c, bars.matrix, bars.rows, bars.close, t, v);
}

template <int Family, bool Cross, bool Vol, bool Screened = false>
__device__ inline Summary block_range_summary(const DeviceCombo& c, const BarData& bars,
                                              long long first, long long last) {
  const double* m = bars.matrix;
  const int rows = bars.rows;
  // The state entering `first`, found by scanning back (positions are set-or-hold).
  double p2 = position_at<Family, Cross, Vol>(c, m, rows, bars.close, first - 2);
  double p1 = p2, v;
  if (decide<Family, Cross, Vol>(c, m, rows, bars.close, first - 1, &v)) p1 = v;
  // Float inputs of bar t (cur) and t - 1 (prev), loaded one bar ahead of their use so the
  // gather's latency overlaps the previous bar's arithmetic.
  BarInputs prev{}, cur{};
  if constexpr (Screened) {
    if (Cross && first >= 1) prev = load_inputs<Family, Vol>(c, bars.matrix32, rows, first - 1);
    if (first < last) cur = load_inputs<Family, Vol>(c, bars.matrix32, rows, first);
  }
  const double head_pos = p2, cost = bars.cost;
  double sum = 0, sum_sq = 0, down_sq = 0;
  double equity = 1, peak = 1, trough = 1, best_peak = 1, best_trough = 1;
  double run = 0, head_ret = 0, win_sum = 0, loss_sum = 0;
  long long closed = 0, wins = 0, longs = 0, shorts = 0, changes = 0;
  bool head_closed = false, nonpositive = false;
  for (long long t = first; t < last; ++t) {
    const double a = p2, b = p1;
    const bool changed = a != b;
    const double exit_value = a * bars.gap[t] - (changed ? cost * fabs(a) : 0.0);
    const double body_value = b * bars.body[t] - (changed ? cost * fabs(b) : 0.0);
    const double s = exit_value + body_value;
    sum += s;
    sum_sq += s * s;
    down_sq += s < 0.0 ? s * s : 0.0;
    const double g = 1.0 + s;
    nonpositive = g <= 0.0 ? true : nonpositive;
    equity = equity * g;
    peak = peak < equity ? equity : peak;
    trough = equity < trough ? equity : trough;
    // Deepest drawdown so far is best_trough / best_peak; replace when e / peak is lower.
    const bool deeper = equity * best_peak < best_trough * peak;
    best_peak = deeper ? peak : best_peak;
    best_trough = deeper ? equity : best_trough;
    // Trades: a change closes the run held through the exit segment.
    const double closing = run + exit_value;
    const bool first_close = changed && !head_closed;
    const bool counted = changed && head_closed && a != 0.0;
    head_ret = first_close ? closing : head_ret;
    closed += counted ? 1 : 0;
    wins += (counted && closing > 0.0) ? 1 : 0;
    win_sum += (counted && closing > 0.0) ? closing : 0.0;
    loss_sum += (counted && closing < 0.0) ? closing : 0.0;
    head_closed = changed ? true : head_closed;
    run = changed ? body_value : run + s;
    longs += b > 0.0 ? 1 : 0;
    shorts += b < 0.0 ? 1 : 0;
    changes += changed ? 1 : 0;
    p2 = b;
    BarInputs next{};
    if constexpr (Screened) {
      if (t + 1 < last) next = load_inputs<Family, Vol>(c, bars.matrix32, rows, t + 1);
    }
    p1 = block_decide<Family, Cross, Vol, Screened>(c, bars, cur, prev, t, &v) ? v : b;
    if constexpr (Screened) {
      prev = cur;
      cur = next;
    }
  }
  Summary r;
  r.bars = last - first;
  if (r.bars <= 0) return Summary{};
  r.sum = sum;
  r.sum_sq = sum_sq;
  r.down_sq = down_sq;
  r.growth = equity;
  r.peak = peak;
  r.trough = trough;
  r.drawdown = 1.0 - best_trough / best_peak;
  r.nonpositive = nonpositive;
  r.head_pos = static_cast<int8_t>(head_pos);
  r.tail_pos = static_cast<int8_t>(p2);  // p_{last-2}: held in the last bar's body
  r.single_run = !head_closed;
  r.head_ret = r.single_run ? run : head_ret;
  r.tail_ret = run;
  r.closed_trades = closed;
  r.closed_wins = wins;
  r.closed_win_sum = win_sum;
  r.closed_loss_sum = loss_sum;
  r.long_bars = longs;
  r.short_bars = shorts;
  r.changes = changes;
  return r;
}

}  // namespace wfod::cuda
