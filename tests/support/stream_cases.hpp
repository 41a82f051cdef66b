// Shared by the stream tests: small grids of every indicator kind, a stream spec around them,
// bars cut from a series, and the comparison of a stream's result with a fresh sweep's
// (top-K ids in order and integer metrics identical, floats within SPEC §9's 1e-9; see
// expect_same_result).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "wfod/backend.hpp"

namespace wfod::test {

// ma_cross: SMA, EMA, WMA and HMA, state and cross entries, both sides, the vol filter.
inline Grid small_ma_grid() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {3, 8};
  g.slow = {13, 30};
  g.ma = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
  g.entry = {Entry::state, Entry::cross};
  g.side = {Side::long_short, Side::long_only};
  g.vol_short = {5};
  g.vol_long = {20};
  g.vol_threshold = {0.9, 1.1};
  return g;
}

// channel_breakout: both sources, both sides, with and without an open vol filter.
inline Grid small_channel_grid() {
  Grid g;
  g.family = Family::channel_breakout;
  g.n = {5, 20, 55};
  g.source = {Source::close, Source::high_low};
  g.side = {Side::long_short, Side::long_only};
  g.vol_short = {5};
  g.vol_long = {30};
  g.vol_threshold = {0.0, 1.0};
  return g;
}

// bollinger: both styles, both sides, the filter (SMA(n) and STD(n) rows shared with it).
inline Grid small_bollinger_grid() {
  Grid g;
  g.family = Family::bollinger;
  g.n = {5, 20};
  g.k = {1.0, 2.0};
  g.style = {Style::reversion, Style::breakout};
  g.side = {Side::long_short, Side::long_only};
  g.vol_short = {5};
  g.vol_long = {20};
  g.vol_threshold = {0.0, 1.0};
  return g;
}

// rsi_reversion: RSI rows (a recursion carried across advances), both sides, invalid
// lo >= hi combos.
inline Grid small_rsi_grid() {
  Grid g;
  g.family = Family::rsi_reversion;
  g.n = {2, 14, 30};
  g.lo = {30, 40};
  g.hi = {35, 70};
  g.side = {Side::long_short, Side::long_only};
  return g;
}

inline StreamSpec bounded_spec(const Grid& grid, size_t window, Fill fill, double cost_bps = 2,
                               size_t chunk = 0) {
  StreamSpec spec;
  spec.strategy.grid = grid;
  spec.strategy.fill = fill;
  spec.strategy.costs.commission_bps = cost_bps;
  spec.window = window;
  spec.warmup = default_warmup(grid);
  spec.rank.top = 10;
  spec.chunk = chunk;
  return spec;
}

// The window ending at `end` of a small ma_cross grid (SMA and EMA, fast x slow), W = 150,
// the grid's default warm-up, top 5: the request the EngineSlot tests run.
inline SweepRequest engine_slot_request(const Series& s, size_t end) {
  SweepRequest r;
  r.history = HistoryView::of(s).prefix(end);
  Grid& g = r.strategy.grid;
  g.fast = {2, 4, 8};
  g.slow = {10, 20, 40};
  g.ma = {MaType::sma, MaType::ema};
  r.window = {end, 150, default_warmup(g)};
  r.rank.top = 5;
  return r;
}

inline Bar bar_at(const Series& s, size_t t) {
  return Bar{s.ts_ns[t], s.open[t], s.high[t], s.low[t], s.close[t], s.volume[t], 0};
}

inline std::vector<Bar> bars_of(const Series& s, size_t from, size_t to) {
  std::vector<Bar> out;
  out.reserve(to - from);
  for (size_t t = from; t < to; ++t) out.push_back(bar_at(s, t));
  return out;
}

// Top-K equality, in order: every backend breaks exact ties by the lower id (SPEC §7), the
// cuda sweep included since it settles its top-K in one canonical summation order
// (docs/spec-notes.md item 13). On a mismatch, the first differing rank with both objectives
// to 17 digits says whether a tie was broken the wrong way.
inline void expect_same_result(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(got.top.size(), want.top.size());
  const auto got_ids = ids_of(got.top), want_ids = ids_of(want.top);
  if (got_ids != want_ids) {
    size_t r = 0;
    while (got_ids[r] == want_ids[r]) ++r;
    char buf[256];
    std::snprintf(buf, sizeof buf, "rank %zu: got id %llu objective %.17g, want id %llu %.17g", r,
                  static_cast<unsigned long long>(got_ids[r]), got.top[r].objective,
                  static_cast<unsigned long long>(want_ids[r]), want.top[r].objective);
    ASSERT_EQ(got_ids, want_ids) << "top-K ids (in order) differ first at " << buf;
  }
  for (size_t i = 0; i < want.top.size(); ++i) {
    const Ranked& g = got.top[i];
    SCOPED_TRACE("id=" + std::to_string(want_ids[i]));
    EXPECT_TRUE(metrics_near(g.metrics, want.top[i].metrics));
    EXPECT_TRUE(near("objective", g.objective, want.top[i].objective, 1e-9, 1e-12));
  }
}

}  // namespace wfod::test
