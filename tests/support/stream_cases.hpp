// Shared by the stream tests: small grids of every indicator kind, a stream spec around them,
// bars cut from a series, and the comparison of a stream's result with a fresh sweep's
// (top-K ids and integer metrics identical, floats within SPEC §9's 1e-9, exact ties
// allowed to order by id either way; see expect_same_result).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
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

inline Bar bar_at(const Series& s, size_t t) {
  return Bar{s.ts_ns[t], s.open[t], s.high[t], s.low[t], s.close[t], s.volume[t], 0};
}

inline std::vector<Bar> bars_of(const Series& s, size_t from, size_t to) {
  std::vector<Bar> out;
  out.reserve(to - from);
  for (size_t t = from; t < to; ++t) out.push_back(bar_at(s, t));
  return out;
}

inline bool tied(double a, double b) { return close_enough(a, b, 1e-12, 0.0); }

// Top-K equality, with one allowance made visible: combos whose objectives tie in exact
// arithmetic (e.g. identical returns cut into trades differently) are ordered by id only if
// both sides computed bit-equal objectives. A stream joins its sums in another order than a
// one-pass sweep, so a tie can come out as a 1-ulp difference there. Such groups are
// compared as sets and reported on stdout; any other difference fails.
inline void expect_same_result(const SweepResult& got, const SweepResult& want) {
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(got.top.size(), want.top.size());
  const auto got_ids = ids_of(got.top), want_ids = ids_of(want.top);
  if (got_ids != want_ids) {
    for (size_t i = 0; i < want.top.size();) {
      size_t j = i + 1;  // [i, j): a group of tied objectives in `want`
      while (j < want.top.size() && tied(want.top[j].objective, want.top[i].objective)) ++j;
      std::vector<uint64_t> a(got_ids.begin() + i, got_ids.begin() + j),
          b(want_ids.begin() + i, want_ids.begin() + j);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      const bool last_group = j == want.top.size();  // may continue past K: ids can differ
      for (size_t r = i; r < j; ++r)
        EXPECT_TRUE(tied(got.top[r].objective, want.top[i].objective)) << "rank " << r;
      if (!last_group) {
        ASSERT_EQ(a, b) << "top-K ids differ outside a tie (ranks " << i << ".." << j - 1 << ")";
      }
      if (j - i > 1 && a != b)
        std::printf("[ TIE      ] ranks %zu..%zu tie at objective %.17g: ids differ past K\n", i,
                    j - 1, want.top[i].objective);
      else if (j - i > 1 &&
               !std::equal(got_ids.begin() + i, got_ids.begin() + j, want_ids.begin() + i))
        std::printf("[ TIE      ] ranks %zu..%zu tie at objective %.17g: order differs by ulps\n",
                    i, j - 1, want.top[i].objective);
      i = j;
    }
  }
  for (size_t i = 0; i < want.top.size(); ++i) {
    const auto at = std::find(got_ids.begin(), got_ids.end(), want_ids[i]);
    if (at == got_ids.end()) continue;  // a tie at the K boundary (checked above)
    const Ranked& g = got.top[static_cast<size_t>(at - got_ids.begin())];
    SCOPED_TRACE("id=" + std::to_string(want_ids[i]));
    EXPECT_TRUE(metrics_near(g.metrics, want.top[i].metrics));
    EXPECT_TRUE(near("objective", g.objective, want.top[i].objective, 1e-9, 1e-12));
  }
}

}  // namespace wfod::test
