// cpu_ref window metrics (SPEC §6): moments, growth, drawdown, trades and exposure, each
// computed in its own plain pass over the window's segments, with compensated sums.
#include "ref_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "ref_numeric.hpp"

namespace wfod::ref {
namespace {

struct Moments {
  double mean = 0, stdev = 0, downside = 0;
};

Moments moments_of(std::span<const double> s) {
  const auto n = static_cast<double>(s.size());
  CompensatedSum total;
  for (double v : s) total.add(v);
  Moments m;
  m.mean = total.value() / n;
  // Two passes, as for STD: deviations from the mean already computed.
  CompensatedSum squares, downside_squares;
  for (double v : s) {
    squares.add_product(v - m.mean, v - m.mean);
    const double down = std::min(v, 0.0);
    downside_squares.add_product(down, down);
  }
  m.stdev = std::sqrt(squares.value() / n);
  m.downside = std::sqrt(downside_squares.value() / n);
  return m;
}

struct Growth {
  double total_return = 0, max_drawdown = 0;
};

Growth growth_of(std::span<const double> s) {
  CompensatedGrowth equity;  // E = 1 before the first return
  double peak = 1.0;         // the start counts as a peak
  double drawdown = 0.0;
  for (double v : s) {
    equity.times_one_plus(v);
    const double e = equity.value();
    peak = std::max(peak, e);
    // Literal even when E <= 0 (SPEC §6): the drawdown may then exceed 1.
    drawdown = std::max(drawdown, 1.0 - e / peak);
  }
  return {equity.value_minus_one(), drawdown};
}

struct TradeStats {
  int64_t trades = 0, wins = 0;
  double profit_factor = 0;
};

// A trade is a maximal run of consecutive segments (each bar's exit, then its body) with
// the same non-zero held position; its return is the sum of the run's segment values, and it
// wins, loses or is flat by SPEC v1.2 §6's dead band on the sum of their absolute values.
TradeStats trades_of(std::span<const BarSegments> bars) {
  struct Trade {
    double ret, abs_sum;
  };
  std::vector<Trade> trades;
  int8_t run_pos = 0;
  CompensatedSum run, run_abs;
  const auto visit = [&](int8_t pos, double value) {
    if (pos != run_pos) {
      if (run_pos != 0) trades.push_back({run.value(), run_abs.value()});
      run = CompensatedSum{};
      run_abs = CompensatedSum{};
      run_pos = pos;
    }
    if (pos != 0) {
      run.add(value);
      run_abs.add(std::abs(value));
    }
  };
  for (const BarSegments& b : bars) {
    visit(b.exit_pos, b.exit);
    visit(b.body_pos, b.body);
  }
  if (run_pos != 0) trades.push_back({run.value(), run_abs.value()});  // open at the window's end

  TradeStats st;
  st.trades = static_cast<int64_t>(trades.size());
  CompensatedSum won, lost;
  bool any_win = false, any_loss = false;
  for (const Trade& t : trades) {
    const double band = kTradeBand * t.abs_sum;
    if (t.ret > band) {
      ++st.wins;
      any_win = true;
      won.add(t.ret);
    } else if (t.ret < -band) {
      any_loss = true;
      lost.add(t.ret);
    }
  }
  // 0 when no trade wins; capped at 1e9, which is also the value when none loses.
  st.profit_factor = !any_win ? 0.0
                     : !any_loss
                         ? kProfitFactorNoLoss
                         : std::min(won.value() / std::abs(lost.value()), kProfitFactorNoLoss);
  return st;
}

}  // namespace

Metrics window_metrics(std::span<const BarSegments> bars, double bars_per_year) {
  if (bars.empty()) throw std::invalid_argument("cpu_ref: empty evaluation window");
  const auto n = static_cast<double>(bars.size());
  std::vector<double> s;
  s.reserve(bars.size());
  for (const BarSegments& b : bars) s.push_back(b.exit + b.body);

  Metrics m;
  m.bars = static_cast<int64_t>(bars.size());

  const Moments mo = moments_of(s);
  const double sqrt_a = std::sqrt(bars_per_year);
  // A zero denominator gives 0, not ±inf/NaN (SPEC §6 says so for sortino; a flat
  // strategy's sharpe is read the same way).
  m.sharpe = mo.stdev == 0 ? 0.0 : mo.mean / mo.stdev * sqrt_a;
  m.sortino = mo.downside == 0 ? 0.0 : mo.mean / mo.downside * sqrt_a;

  const Growth g = growth_of(s);
  m.total_return = g.total_return;
  m.max_drawdown = g.max_drawdown;
  // (1 + TR)^(A/n) - 1, evaluated as expm1((A/n)·log1p(TR)) to keep small rates' digits.
  m.cagr =
      g.total_return <= -1.0 ? -1.0 : std::expm1(bars_per_year / n * std::log1p(g.total_return));
  m.calmar = m.max_drawdown == 0 ? 0.0 : m.cagr / m.max_drawdown;

  const TradeStats ts = trades_of(bars);
  m.trades = ts.trades;
  m.wins = ts.wins;
  m.win_rate = ts.trades == 0 ? 0.0 : static_cast<double>(ts.wins) / static_cast<double>(ts.trades);
  m.profit_factor = ts.profit_factor;

  for (const BarSegments& b : bars) {
    if (b.body_pos > 0) ++m.long_bars;
    if (b.body_pos < 0) ++m.short_bars;
    if (b.body_pos == 0) ++m.flat_bars;
    if (b.body_pos != b.exit_pos) ++m.changes;
  }
  m.exposure = static_cast<double>(m.long_bars + m.short_bars) / n;
  return m;
}

}  // namespace wfod::ref
