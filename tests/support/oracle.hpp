// Test oracles written straight from SPEC §2, §3 and §6: one sequential pass over a window's
// segments and the metrics of that pass. Deliberately independent of Summary/combine/finalize
// (STYLE habit 2), so a bug shared with the engine cannot make a test pass.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "wfod/bar.hpp"
#include "wfod/grid.hpp"
#include "wfod/metrics.hpp"
#include "wfod/summary.hpp"

namespace wfod::test {

// Everything §6 needs, from one pass in time order.
struct OnePass {
  int64_t n = 0;
  double sum = 0, sum_sq = 0, down_sq = 0;
  double growth = 1, peak = 1, trough = 1, drawdown = 0;
  bool nonpositive = false;  // some 1 + s_t <= 0
  int64_t long_bars = 0, short_bars = 0, changes = 0;
  std::vector<double> returns;        // s_t, in order
  std::vector<double> trade_returns;  // one per trade, in order of their first segment
  std::vector<double> trade_abs;      // Σ|v| of each trade's segments (SPEC v1.2 §6's band)

  int64_t trades() const { return static_cast<int64_t>(trade_returns.size()); }
  // v1.2 §6: a win is r > 1e-12 Σ|v|, a loss r < -1e-12 Σ|v|, else the trade is flat.
  bool won(size_t i) const { return trade_returns[i] > 1e-12 * trade_abs[i]; }
  bool lost(size_t i) const { return trade_returns[i] < -1e-12 * trade_abs[i]; }
  int64_t wins() const {
    int64_t w = 0;
    for (size_t i = 0; i < trade_returns.size(); ++i) w += won(i) ? 1 : 0;
    return w;
  }
  double win_sum() const {
    double w = 0;
    for (size_t i = 0; i < trade_returns.size(); ++i) w += won(i) ? trade_returns[i] : 0;
    return w;
  }
  double loss_sum() const {  // <= 0
    double l = 0;
    for (size_t i = 0; i < trade_returns.size(); ++i) l += lost(i) ? trade_returns[i] : 0;
    return l;
  }
  bool any_loss() const {
    for (size_t i = 0; i < trade_returns.size(); ++i)
      if (lost(i)) return true;
    return false;
  }
  // Σ|s_t|: the scale against which rounding differences of Σs are judged.
  double abs_sum() const {
    double a = 0;
    for (double s : returns) a += std::fabs(s);
    return a;
  }
};

// §6 by the letter: segments in time order (each bar's exit, then body); a trade is a maximal
// run of consecutive segments with the same non-zero held position; its return is the sum of
// its segments; an open trade at the end counts.
inline OnePass one_pass(std::span<const BarSegments> bars) {
  OnePass r;
  bool in_trade = false;
  int8_t trade_pos = 0;
  double trade_ret = 0, trade_abs = 0;
  auto segment = [&](int8_t pos, double value) {
    if (in_trade && pos == trade_pos) {
      trade_ret += value;
      trade_abs += std::fabs(value);
      return;
    }
    if (in_trade) {
      r.trade_returns.push_back(trade_ret);
      r.trade_abs.push_back(trade_abs);
    }
    in_trade = pos != 0;
    trade_pos = pos;
    trade_ret = value;
    trade_abs = std::fabs(value);
  };
  double equity = 1;
  for (const BarSegments& b : bars) {
    segment(b.exit_pos, b.exit_value);
    segment(b.body_pos, b.body_value);
    const double s = b.exit_value + b.body_value;
    r.returns.push_back(s);
    ++r.n;
    r.sum += s;
    r.sum_sq += s * s;
    r.down_sq += s < 0 ? s * s : 0;
    if (1 + s <= 0) r.nonpositive = true;
    equity *= 1 + s;
    r.peak = std::max(r.peak, equity);
    r.trough = std::min(r.trough, equity);
    r.drawdown = std::max(r.drawdown, 1 - equity / r.peak);
    if (b.body_pos > 0) ++r.long_bars;
    if (b.body_pos < 0) ++r.short_bars;
    if (b.body_pos != b.exit_pos) ++r.changes;
  }
  r.growth = equity;
  if (in_trade) {
    r.trade_returns.push_back(trade_ret);
    r.trade_abs.push_back(trade_abs);
  }
  return r;
}

// §6 formulas applied to a one-pass record (σ by two passes over the returns).
inline Metrics oracle_metrics(const OnePass& p, double bars_per_year) {
  Metrics m;
  m.bars = p.n;
  if (p.n == 0) return m;
  const double n = static_cast<double>(p.n);
  double sum = 0;
  for (double s : p.returns) sum += s;
  const double mu = sum / n;
  double var = 0, down = 0;
  for (double s : p.returns) {
    var += (s - mu) * (s - mu);
    down += s < 0 ? s * s : 0;
  }
  const double sigma = std::sqrt(var / n), sigma_d = std::sqrt(down / n);
  const double root_a = std::sqrt(bars_per_year);
  m.total_return = p.growth - 1;
  m.cagr = p.growth <= 0 ? -1.0 : std::pow(p.growth, bars_per_year / n) - 1;
  m.sharpe = sigma == 0 ? 0.0 : mu / sigma * root_a;
  m.sortino = sigma_d == 0 ? 0.0 : mu / sigma_d * root_a;
  m.max_drawdown = p.drawdown;
  m.calmar = p.drawdown == 0 ? 0.0 : m.cagr / p.drawdown;
  m.trades = p.trades();
  m.wins = p.wins();
  m.win_rate = m.trades == 0 ? 0.0 : static_cast<double>(m.wins) / static_cast<double>(m.trades);
  // v1.2 §6: 0 when no trade wins, 1e9 when some win and none loses, else capped at 1e9.
  if (m.wins == 0) {
    m.profit_factor = 0;
  } else if (!p.any_loss()) {
    m.profit_factor = 1e9;
  } else {
    m.profit_factor = std::min(p.win_sum() / std::fabs(p.loss_sum()), 1e9);
  }
  m.long_bars = p.long_bars;
  m.short_bars = p.short_bars;
  m.flat_bars = p.n - p.long_bars - p.short_bars;
  m.exposure = static_cast<double>(p.long_bars + p.short_bars) / n;
  m.changes = p.changes;
  return m;
}

// §2 segments of bar t written out independently of segments.hpp (that header is under test
// too): exit held at p2 = p_{t-2}, body at p1 = p_{t-1}.
inline BarSegments spec_segments(const HistoryView& h, Fill fill, double cost, size_t t, int p2,
                                 int p1) {
  const double c0 = h.close[t - 1];
  const double x = fill == Fill::close ? c0 : h.open[t];
  const double e = p1 != p2 ? std::abs(p2) : 0;
  const double nn = p1 != p2 ? std::abs(p1) : 0;
  BarSegments b;
  b.exit_pos = static_cast<int8_t>(p2);
  b.body_pos = static_cast<int8_t>(p1);
  b.exit_value = p2 * (x - c0) / c0 - cost * e;
  b.body_value = p1 * (h.close[t] - x) / c0 - cost * nn;
  return b;
}

// Segments of the window of §3: bars t in [end - bars, end - 1] with the positions p (p_t for
// every bar from the anchor; missing positions t < 0 are 0).
inline std::vector<BarSegments> window_segments(const HistoryView& h, Fill fill, double cost,
                                                std::span<const int8_t> p, size_t end,
                                                size_t bars) {
  auto pos = [&](size_t t, int back) -> int {
    return t < static_cast<size_t>(back) ? 0 : p[t - back];
  };
  std::vector<BarSegments> out;
  out.reserve(bars);
  for (size_t t = end - bars; t < end; ++t)
    out.push_back(spec_segments(h, fill, cost, t, pos(t, 2), pos(t, 1)));
  return out;
}

}  // namespace wfod::test
