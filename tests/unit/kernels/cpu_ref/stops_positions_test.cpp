// cpu_ref's stops (SPEC §5b, kernels/cpu_ref/ref_stops.cpp) on hand-made series: the bar each
// stop fires on, long and short, fill close and next_open; no re-entry while r_t stays on the
// stopped side; a reversal taken at once; the trailing extreme; a short's take_profit >= 1;
// stops under a closed vol filter; and the backend's positions and sweeps with stop axes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu_ref/ref_indicators.hpp"
#include "cpu_ref/ref_rules.hpp"
#include "cpu_ref/ref_stops.hpp"
#include "cpu_ref/ref_strategy.hpp"
#include "cpu_ref/ref_vol_filter.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod {
namespace {

using P = std::vector<int8_t>;

using test::bars;

P stops(const P& r, const Series& s, ref::Stops st, Fill fill = Fill::close) {
  return ref::apply_stops(r, HistoryView::of(s), fill, st);
}

ref::Stops sl(double v) { return {v, 0, 0}; }
ref::Stops tp(double v) { return {0, v, 0}; }
ref::Stops ts(double v) { return {0, 0, v}; }

TEST(StopsPositions, NoStopOnIsTheFamilysTarget) {
  const Series s = bars({100, 50, 200, 10, 100});
  const P r{1, 1, -1, -1, 0};
  EXPECT_EQ(stops(r, s, {}), r);
}

TEST(StopsPositions, LongStopLossFiresAtTheLevelAndWaitsForTheTargetToChange) {
  // e = c_1 = 100, SL = 100·(1 - 0.03) = 97: 97.5 holds, 97 is not above the level (equal
  // within the dead band) and fires at bar 3; flat while r_t = +1, r_t = 0 at bar 6, then a
  // new trade at bar 7 (new entry 96: its level 93.12, which 93 breaks at bar 9).
  const Series s = bars({100, 100, 97.5, 97, 90, 99, 99, 96, 95, 93, 100});
  const P r{0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1};
  EXPECT_EQ(stops(r, s, sl(0.03)), (P{0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0}));
  // A close a hair above the level (outside the dead band) holds.
  const Series above = bars({100, 100, 97.0001, 50});
  EXPECT_EQ(stops({0, 1, 1, 1}, above, sl(0.03)), (P{0, 1, 1, 0}));
}

TEST(StopsPositions, TheEntryBarIsNeverChecked) {
  // A trade begun at t0 is first checked at t0 + 1: with fill close e = c_{t0}; the close
  // of t0 itself cannot fire its own stop even far below the previous bar.
  const Series s = bars({100, 50, 49.5, 48.4});
  EXPECT_EQ(stops({0, 1, 1, 1}, s, sl(0.02)), (P{0, 1, 1, 0}));  // SL = 50·0.98 = 49
}

TEST(StopsPositions, NextOpenEntersAtTheNextOpen) {
  // The trade begins at bar 1 (close 100); with next_open it is entered at o_2 = 90, so SL
  // = 90·0.95 = 85.5 and the close of 94 (which fill close's 95 would stop) holds; 85.5 fires.
  const Series s = bars({100, 100, 94, 86, 85.5}, {100, 100, 90, 94, 86});
  const P r{0, 1, 1, 1, 1};
  EXPECT_EQ(stops(r, s, sl(0.05), Fill::next_open), (P{0, 1, 1, 1, 0}));
  EXPECT_EQ(stops(r, s, sl(0.05), Fill::close), (P{0, 1, 0, 0, 0}));
}

TEST(StopsPositions, LongTakeProfit) {
  // e = 100, TP = 110: 109.99 holds, 110 (not below the level) fires.
  const Series s = bars({100, 100, 109.99, 110, 120});
  EXPECT_EQ(stops({0, 1, 1, 1, 1}, s, tp(0.1)), (P{0, 1, 1, 0, 0}));
  // A long's take_profit may exceed 1: 1.5 is TP = 250.
  const Series big = bars({100, 100, 249, 250});
  EXPECT_EQ(stops({0, 1, 1, 1}, big, tp(1.5)), (P{0, 1, 1, 0}));
}

TEST(StopsPositions, LongTrailingStopFollowsThePeak) {
  // Peak 110 at bar 3, TS = 104.5: 105 holds, 104.5 fires at bar 5.
  const Series s = bars({100, 100, 108, 110, 105, 104.5, 130});
  EXPECT_EQ(stops({0, 1, 1, 1, 1, 1, 1}, s, ts(0.05)), (P{0, 1, 1, 1, 1, 0, 0}));
}

TEST(StopsPositions, TheTrailingPeakStartsAtTheEntryPrice) {
  // next_open: e = o_2 = 120 is the peak before any close: TS = 114 fires at the close of
  // 114 (bar 3). With fill close e = 100, peak max(100, 115) = 115, TS = 109.25: it holds.
  const Series s = bars({100, 100, 115, 114, 114}, {100, 100, 120, 115, 114});
  const P r{0, 1, 1, 1, 1};
  EXPECT_EQ(stops(r, s, ts(0.05), Fill::next_open), (P{0, 1, 1, 0, 0}));
  EXPECT_EQ(stops(r, s, ts(0.05), Fill::close), r);
}

TEST(StopsPositions, ShortStops) {
  const P r{0, -1, -1, -1, -1};
  // stop_loss: e = 100, SL = 105: 104.9 holds, 105 fires.
  EXPECT_EQ(stops(r, bars({100, 100, 104.9, 105, 90}), sl(0.05)), (P{0, -1, -1, 0, 0}));
  // take_profit: TP = 90: 90.1 holds, 90 fires.
  EXPECT_EQ(stops(r, bars({100, 100, 90.1, 90, 120}), tp(0.1)), (P{0, -1, -1, 0, 0}));
  // trailing: trough 90 at bar 2, TS = 94.5: 94 holds, 94.5 fires.
  EXPECT_EQ(stops(r, bars({100, 100, 90, 94, 94.5}), ts(0.05)), (P{0, -1, -1, -1, 0}));
  // next_open: e = o_2 = 110, SL = 115.5: the close of 112 holds (fill close would stop it).
  const Series gap = bars({100, 100, 112, 115.5, 90}, {100, 100, 110, 112, 115});
  EXPECT_EQ(stops(r, gap, sl(0.05), Fill::next_open), (P{0, -1, -1, 0, 0}));
  EXPECT_EQ(stops(r, gap, sl(0.05), Fill::close), (P{0, -1, 0, 0, 0}));
}

TEST(StopsPositions, AShortsTakeProfitOfOneOrMoreNeverFires) {
  const Series s = bars({100, 100, 10, 1, 0.01, 1e-9});
  const P r{0, -1, -1, -1, -1, -1};
  EXPECT_EQ(stops(r, s, tp(1.0)), r);
  EXPECT_EQ(stops(r, s, tp(2.5)), r);
  EXPECT_EQ(stops(r, s, tp(0.999)), (P{0, -1, -1, -1, 0, 0}));  // TP = 0.1: 0.01 fires
}

TEST(StopsPositions, AReversalIsTakenAtOnce) {
  // A long stopped at bar 2; r_t goes short at bar 4: p follows at once (a new trade, e = 80,
  // SL = 84), which stops at bar 6 and waits for r_t to leave -1 (bar 8: back long).
  const Series s = bars({100, 100, 90, 85, 80, 83, 84, 70, 71, 72});
  const P r{0, 1, 1, 1, -1, -1, -1, -1, 1, 1};
  EXPECT_EQ(stops(r, s, sl(0.05)), (P{0, 1, 0, 0, -1, -1, 0, 0, 1, 1}));
  // A change of r_t is followed even where the held trade's stop would fire at that close:
  // step 2 comes before step 3 (no stop fires, no stopped-out state); the short's own stop
  // (e = 50, SL = 52.5) then fires at 53.
  const Series t = bars({100, 100, 50, 40, 53});
  EXPECT_EQ(stops({0, 1, -1, -1, -1}, t, sl(0.05)), (P{0, 1, -1, -1, 0}));
}

TEST(StopsPositions, StopsAreCheckedInSpecOrderAndAnyFires) {
  // All three on; the trailing stop fires first here (peak 120, TS 108 > SL 95).
  const Series s = bars({100, 100, 120, 107, 130});
  EXPECT_EQ(stops({0, 1, 1, 1, 1}, s, {0.05, 0.5, 0.1}), (P{0, 1, 1, 0, 0}));
}

TEST(StopsPositions, BadInputIsRefused) {
  const Series s = bars({100, 100});
  EXPECT_THROW(stops({0}, s, sl(0.1)), std::invalid_argument);
  EXPECT_THROW(stops({0, 1}, s, sl(1.0)), std::invalid_argument);
  EXPECT_THROW(stops({0, 1}, s, tp(-0.1)), std::invalid_argument);
  EXPECT_THROW(stops({0, 1}, s, ts(-0.1)), std::invalid_argument);
}

// channel_breakout n = 2 with a vol filter STD(2)/STD(4) > 1: the jump to 110 opens it and
// goes long; the filter is closed from the next bar (a slow drift), so r_t holds +1 through
// a close of 105 below LL(2) = 109 (a short signal the closed filter ignores). The stop
// still fires there (SPEC §5b: whether the filter is open or closed), and p stays flat while
// the held r_t stays +1.
TEST(StopsPositions, StopsActUnderAClosedVolFilter) {
  const Series s = bars({100, 100, 100, 100, 100, 100, 110, 109, 105, 104});
  Grid g;
  g.family = Family::channel_breakout;
  g.n = {2};
  g.stop_loss = {0.04};
  g.vol_short = {2};
  g.vol_long = {4};
  g.vol_threshold = {1.0};
  const Combo combo = g.decode(0);
  ASSERT_TRUE(combo.valid());
  ref::IndicatorCache cache(HistoryView::of(s));
  const ref::VolFilter filter(cache, combo);
  EXPECT_EQ(filter.at(6), ref::FilterState::open);
  EXPECT_EQ(filter.at(8), ref::FilterState::closed);
  EXPECT_EQ(filter.at(9), ref::FilterState::closed);
  const P r = ref::strategy_positions(cache, combo);
  EXPECT_EQ(r, (P{0, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
  // e = 110, SL = 105.6: 105 fires at bar 8.
  EXPECT_EQ(ref::combo_positions(cache, combo, Fill::close), (P{0, 0, 0, 0, 0, 0, 1, 1, 0, 0}));
}

// The stops act on any r_t, a rules strategy's as a family's (SPEC §5b: "every family
// (built-in or rules)"): apply_stops over ref::rules_positions.
TEST(StopsPositions, StopsOnARulesStrategysTarget) {
  rules::RulesText text;
  text.long_entry = "close > 100";
  text.long_exit = "close < 80";
  const Series s = bars({99, 101, 102, 96, 95, 101, 79, 101});
  ref::IndicatorCache cache(HistoryView::of(s));
  const P r = ref::rules_positions(cache, rules::compile(text), {});
  ASSERT_EQ(r, (P{0, 1, 1, 1, 1, 1, 0, 1}));
  // e = 101, SL = 95.95: 96 holds, 95 fires; r stays long through 101, exits at 79.
  EXPECT_EQ(ref::apply_stops(r, HistoryView::of(s), Fill::close, sl(0.05)),
            (P{0, 1, 1, 1, 0, 0, 0, 1}));
}

// Through the backend: cpu_ref's positions read the spec's fill, and a sweep's stop axes
// all at 0 give the grid without stops, id for id and metric for metric.
TEST(StopsPositions, CpuRefBackendRunsStops) {
  const Series series = test::random_walk(800, 3);
  const HistoryView h = HistoryView::of(series);
  auto backend = make_backend("cpu_ref");
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {5, 10};
  g.slow = {20, 40};
  g.stop_loss = {0, 0.01, 0.03};
  g.trailing_stop = {0, 0.02};
  StrategySpec spec;
  spec.grid = g;
  ASSERT_TRUE(backend->supports(Work::sweep, spec).ok());
  for (Fill fill : {Fill::close, Fill::next_open}) {
    spec.fill = fill;
    for (uint64_t id = 0; id < g.size(); ++id) {
      const Combo c = g.decode(id);
      ref::IndicatorCache cache(h);
      const P r = ref::strategy_positions(cache, c);
      const P want = ref::apply_stops(r, h, fill, ref::Stops::of(c));
      EXPECT_EQ(backend->positions(h, spec, c), want) << id;
      if (!c.stops_on()) {
        EXPECT_EQ(want, r);
      }
    }
  }
  // Some stop changes something on this walk (the test is not vacuous).
  spec.fill = Fill::close;
  const Combo stopped = g.decode(2 * 2 * 2);  // fast 5, slow 20, stop_loss 0.03
  ASSERT_EQ(stopped.stop_loss, 0.03);
  ref::IndicatorCache cache(h);
  EXPECT_NE(backend->positions(h, spec, stopped), ref::strategy_positions(cache, stopped));

  SweepRequest with, without;
  with.history = without.history = h;
  Grid zero = g;
  zero.stop_loss = {0};
  zero.trailing_stop.clear();
  Grid plain = g;
  plain.stop_loss.clear();
  plain.trailing_stop.clear();
  with.strategy.grid = zero;
  without.strategy.grid = plain;
  with.window = without.window = WindowSpec{h.size(), 300, default_warmup(plain)};
  with.rank.top = without.rank.top = 10;
  const SweepResult a = backend->sweep(with), b = backend->sweep(without);
  ASSERT_EQ(a.top.size(), b.top.size());
  EXPECT_EQ(a.evaluated, b.evaluated);
  for (size_t i = 0; i < a.top.size(); ++i) {
    EXPECT_EQ(a.top[i].combo.id, b.top[i].combo.id);
    EXPECT_EQ(a.top[i].metrics.sharpe, b.top[i].metrics.sharpe);
    EXPECT_EQ(a.top[i].metrics.trades, b.top[i].metrics.trades);
  }
}

}  // namespace
}  // namespace wfod
