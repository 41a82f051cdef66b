// The stops parity cases (SPEC §5b) that every backend is held to against cpu_ref on the
// shared real data: every stop kind, both sides, both fills, the vol filter, each of the four
// families, long windows, take-profits around 1, and a synthetic spike that takes equity
// through zero. Used by the cpu backend's parity (stops_parity_test.cpp) and the cuda
// backend's (cuda_stops_parity_test.cpp).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod::test {

struct StopsCase {
  std::string name;
  std::string file;  // a stem of the shared data folder; empty: `synthetic`
  StrategySpec spec;
  size_t bars = 0;  // W; 0 = every bar after the warm-up
  size_t end = 0;   // T; 0 = the whole file
  int threads = 0;  // 0 = the machine's (4: time chunks for a grid of a few lane groups)
  bool chunked = false;
  std::function<Series()> synthetic = {};
  bool through_zero = false;  // some combo's equity reaches 0: the sequential fallback
};

inline void PrintTo(const StopsCase& c, std::ostream* os) { *os << c.name; }

inline Grid with_stops(Grid g, std::vector<double> sl, std::vector<double> tp,
                       std::vector<double> ts) {
  g.stop_loss = std::move(sl);
  g.take_profit = std::move(tp);
  g.trailing_stop = std::move(ts);
  return g;
}

inline const std::vector<Side> kBothSides = {Side::long_short, Side::long_only};

inline std::vector<StopsCase> stops_cases() {
  std::vector<StopsCase> cs;
  {  // Daily bars: every stop kind, both sides and entries, fill close, costs.
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {5, 10};
    g.slow = {20, 50};
    g.ma = {MaType::sma, MaType::ema};
    g.side = kBothSides;
    g.entry = {Entry::state, Entry::cross};
    cs.push_back({"ma_cross_every_stop_close", "goog_d1_2004-2013",
                  spec_of(with_stops(g, {0, 0.03}, {0, 0.1}, {0, 0.05}), Fill::close, 2)});
  }
  {  // Hourly bars, the vol filter, fill next_open (an entry at the next open, gaps).
    Grid g;
    g.family = Family::channel_breakout;
    g.n = {10, 30};
    g.source = {Source::close, Source::high_low};
    g.side = kBothSides;
    g.vol_short = {10};
    g.vol_long = {40};
    g.vol_threshold = {0.9};
    cs.push_back({"channel_vol_filter_next_open", "eurusd_h1_2017-2018",
                  spec_of(with_stops(g, {0, 0.004}, {0, 0.01}, {0.003}), Fill::next_open, 1)});
  }
  {  // The level families keep a position by its side of the middle: stops cut those holds.
    Grid g;
    g.family = Family::bollinger;
    g.n = {20};
    g.k = {1.5, 2.0};
    g.style = {Style::reversion, Style::breakout};
    g.side = kBothSides;
    cs.push_back({"bollinger_next_open", "nvda_d1_1999-2014",
                  spec_of(with_stops(g, {0.05}, {0, 0.2}, {0, 0.1}), Fill::next_open, 1)});
  }
  {  // Minute bars, a window at the end, the filter, fill close.
    Grid g;
    g.family = Family::rsi_reversion;
    g.n = {14};
    g.lo = {30};
    g.hi = {70};
    g.side = kBothSides;
    g.vol_short = {10};
    g.vol_long = {60};
    g.vol_threshold = {0.8};
    StopsCase c{"rsi_vol_filter_minutes", "usdjpy_fxcm_bid_m1_2013-02",
                spec_of(with_stops(g, {0, 0.001}, {0.002}, {0, 0.0005, 0.001}), Fill::close, 0.5)};
    c.bars = 5000;
    cs.push_back(c);
  }
  {  // One long window, few combos, 4 threads: time chunks, each finding its stop state by
     // scanning back to where none can be pending (long trends held for thousands of bars).
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {30};
    g.slow = {400};
    g.ma = {MaType::ema};
    g.side = kBothSides;
    g.entry = {Entry::state, Entry::cross};
    StopsCase c{"ma_cross_long_window_time_chunks", "btcperp_ftx_m1_2022-01",
                spec_of(with_stops(g, {0.01, 0.03}, {0}, {0, 0.02}), Fill::next_open, 1)};
    c.bars = 40000;
    c.threads = 4;
    c.chunked = true;
    cs.push_back(c);
  }
  {  // Monthly bitcoin: prices rise 100-fold, so a long's take-profit of 1.5 (a level of
     // 2.5 e) fires; a short's of 1 or more never does (SPEC §5b).
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {2, 3};
    g.slow = {6, 12};
    g.side = kBothSides;
    cs.push_back({"ma_cross_take_profit_above_one", "btcusd_mo1_2012-2024",
                  spec_of(with_stops(g, {0}, {0.5, 1.0, 1.5}, {0, 0.3}), Fill::close, 2)});
  }
  {  // A price that jumps 2.6-fold in a bar: a short loses more than 100% before any stop
     // can act on a close, so equity goes through zero and the cpu backend re-evaluates those
     // lanes sequentially (with their stops).
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {3, 8};
    g.slow = {20};
    g.ma = {MaType::ema};
    g.side = {Side::long_short};
    StopsCase c{"spike_equity_through_zero", "",
                spec_of(with_stops(g, {0, 0.05}, {0.5}, {0, 0.1}), Fill::next_open, 2)};
    c.bars = 1500;
    c.synthetic = [] { return test::spike_series(2500, 103, {1500, 2200}, 2.6); };
    c.through_zero = true;
    cs.push_back(c);
  }
  for (StopsCase& c : cs) c.spec.bars_per_year = 252;
  return cs;
}

inline SweepRequest request_of(const StopsCase& c, const HistoryView& h) {
  SweepRequest req;
  req.history = h;
  req.strategy = c.spec;
  const size_t end = c.end ? c.end : h.size();
  const size_t warmup = default_warmup(c.spec.grid);
  req.window = {end, c.bars ? c.bars : end - 1 - warmup, warmup};
  req.rank.top = 20;
  if (c.through_zero) req.rank.max_drawdown = 1e9;  // rank them too
  req.threads = c.threads;
  return req;
}

// The combo with the same family parameters and no stop acting: the family's r_t.
inline Combo without_stops(Combo c) {
  c.stop_loss = c.take_profit = c.trailing_stop = 0;
  return c;
}

}  // namespace wfod::test
