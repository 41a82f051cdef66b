// The Summary monoid's math (SPEC §6), written once for host and device: per-bar summary,
// the associative combine, and the metrics of a window. The trade bookkeeping keeps the run
// touching each chunk edge open, so runs that cross chunk boundaries are joined exactly.
#pragma once

#include <math.h>

#include "wfod/detail/hd.hpp"
#include "wfod/summary.hpp"

namespace wfod::detail {

// +1 win, -1 loss, 0 flat (SPEC v1.2 §6's dead band, kTradeBand): a trade worth 0 up to
// rounding counts the same in every implementation.
WFOD_HD inline int trade_outcome(double ret, double abs_sum) {
  const double band = kTradeBand * abs_sum;
  return ret > band ? 1 : ret < -band ? -1 : 0;
}

WFOD_HD inline void close_trade(Summary& s, double ret, double abs_sum) {
  ++s.closed_trades;
  const int outcome = trade_outcome(ret, abs_sum);
  if (outcome > 0) {
    ++s.closed_wins;
    s.closed_win_sum += ret;
  } else if (outcome < 0) {
    s.closed_loss_sum += ret;
  }
}

// profit_factor (SPEC v1.2 §6) from the sums of the winning and losing trades' returns
// (loss_sum <= 0): 0 when no trade wins, kProfitFactorNoLoss when some win and none loses,
// else their ratio capped at kProfitFactorNoLoss. A win has r > 0 and a loss r < 0, so the
// sums are non-zero exactly when such a trade exists.
WFOD_HD inline double profit_factor_of(double win_sum, double loss_sum) {
  if (!(win_sum > 0)) return 0.0;
  if (!(loss_sum < 0)) return kProfitFactorNoLoss;
  const double ratio = win_sum / -loss_sum;
  return ratio < kProfitFactorNoLoss ? ratio : kProfitFactorNoLoss;
}

WFOD_HD inline Summary summarize_bar_hd(const BarSegments& b) {
  Summary s;
  const double r = b.exit_value + b.body_value;
  s.bars = 1;
  s.sum = r;
  s.sum_sq = r * r;
  s.down_sq = r < 0 ? r * r : 0.0;
  s.growth = 1.0 + r;
  s.peak = hd_max(1.0, s.growth);
  s.trough = hd_min(1.0, s.growth);
  s.drawdown = s.growth < 1.0 ? 1.0 - s.growth : 0.0;
  s.nonpositive = s.growth <= 0.0;
  s.head_pos = b.exit_pos;
  s.tail_pos = b.body_pos;
  if (b.exit_pos == b.body_pos) {
    s.single_run = true;
    s.head_ret = s.tail_ret = b.exit_value + b.body_value;
    s.head_abs = s.tail_abs = fabs(b.exit_value) + fabs(b.body_value);
  } else {
    s.single_run = false;
    s.head_ret = b.exit_value;
    s.tail_ret = b.body_value;
    s.head_abs = fabs(b.exit_value);
    s.tail_abs = fabs(b.body_value);
    s.changes = 1;
  }
  s.long_bars = b.body_pos > 0;
  s.short_bars = b.body_pos < 0;
  return s;
}

WFOD_HD inline Summary combine_hd(const Summary& l, const Summary& r) {
  if (l.bars == 0) return r;
  if (r.bars == 0) return l;
  Summary s;
  s.bars = l.bars + r.bars;
  s.sum = l.sum + r.sum;
  s.sum_sq = l.sum_sq + r.sum_sq;
  s.down_sq = l.down_sq + r.down_sq;
  // Equity: r's prefix products scale by l's growth. With positive equity, the drawdown of
  // any point of r against a peak in l is 1 - l.growth * trough_r / l.peak at worst.
  s.growth = l.growth * r.growth;
  s.peak = hd_max(l.peak, l.growth * r.peak);
  s.trough = hd_min(l.trough, l.growth * r.trough);
  s.drawdown = hd_max(hd_max(l.drawdown, r.drawdown), 1.0 - l.growth * r.trough / l.peak);
  s.nonpositive = l.nonpositive || r.nonpositive;

  s.long_bars = l.long_bars + r.long_bars;
  s.short_bars = l.short_bars + r.short_bars;
  s.changes = l.changes + r.changes;
  s.closed_trades = l.closed_trades + r.closed_trades;
  s.closed_wins = l.closed_wins + r.closed_wins;
  s.closed_win_sum = l.closed_win_sum + r.closed_win_sum;
  s.closed_loss_sum = l.closed_loss_sum + r.closed_loss_sum;
  s.head_pos = l.head_pos;
  s.tail_pos = r.tail_pos;

  if (l.tail_pos == r.head_pos) {
    // The run at the join continues: one run made of l's tail and r's head.
    const double joined = l.tail_ret + r.head_ret;
    const double joined_abs = l.tail_abs + r.head_abs;
    s.single_run = l.single_run && r.single_run;
    s.head_ret = l.single_run ? joined : l.head_ret;
    s.tail_ret = r.single_run ? joined : r.tail_ret;
    s.head_abs = l.single_run ? joined_abs : l.head_abs;
    s.tail_abs = r.single_run ? joined_abs : r.tail_abs;
    if (!l.single_run && !r.single_run && l.tail_pos != 0) close_trade(s, joined, joined_abs);
  } else {
    // The held position changes at the join: l's tail and r's head are distinct runs, each
    // closed inside the result unless it is also the result's head or tail.
    s.single_run = false;
    s.head_ret = l.head_ret;
    s.tail_ret = r.tail_ret;
    s.head_abs = l.head_abs;
    s.tail_abs = r.tail_abs;
    if (!l.single_run && l.tail_pos != 0) close_trade(s, l.tail_ret, l.tail_abs);
    if (!r.single_run && r.head_pos != 0) close_trade(s, r.head_ret, r.head_abs);
  }
  return s;
}

// Metrics of a whole window from its summary. Requires !s.nonpositive for the drawdown.
WFOD_HD inline Metrics finalize_hd(const Summary& s, double bars_per_year) {
  Metrics m;
  m.bars = s.bars;
  if (s.bars == 0) return m;
  const double n = static_cast<double>(s.bars);

  // The head and tail runs are still open: each closes here (the window's first and last
  // trades), with the outcome close_trade() would give it.
  Summary all = s;
  const int8_t open_pos[2] = {s.head_pos, s.single_run ? int8_t{0} : s.tail_pos};
  const double open_ret[2] = {s.head_ret, s.tail_ret};
  const double open_abs[2] = {s.head_abs, s.tail_abs};
  for (int i = 0; i < 2; ++i)
    if (open_pos[i] != 0) close_trade(all, open_ret[i], open_abs[i]);
  m.trades = all.closed_trades;
  m.wins = all.closed_wins;
  m.win_rate = m.trades ? static_cast<double>(m.wins) / static_cast<double>(m.trades) : 0.0;
  m.profit_factor = profit_factor_of(all.closed_win_sum, all.closed_loss_sum);

  const double mean = s.sum / n;
  const double var = hd_max(0.0, s.sum_sq / n - mean * mean);
  const double sd = sqrt(var), down = sqrt(s.down_sq / n);
  const double annual = sqrt(bars_per_year);
  m.sharpe = sd > 0 ? mean / sd * annual : 0.0;
  m.sortino = down > 0 ? mean / down * annual : 0.0;

  m.total_return = s.growth - 1.0;
  const double base = 1.0 + m.total_return;
  m.cagr = base <= 0 ? -1.0 : pow(base, bars_per_year / n) - 1.0;
  m.max_drawdown = s.drawdown;
  m.calmar = m.max_drawdown != 0 ? m.cagr / m.max_drawdown : 0.0;

  m.long_bars = s.long_bars;
  m.short_bars = s.short_bars;
  m.flat_bars = s.bars - s.long_bars - s.short_bars;
  m.exposure = static_cast<double>(s.long_bars + s.short_bars) / n;
  m.changes = s.changes;
  return m;
}

}  // namespace wfod::detail
