// PositionTracker (incremental positions for the daemon's live_oos) equals
// Backend::positions over the same bars, for every kind of combo, extended in random batches;
// with stops (SPEC §5b), cpu_ref's positions, through forks too.
#include "wfod/position_tracker.hpp"

#include <gtest/gtest.h>

#include <random>

#include "support/series.hpp"

namespace wfod {
namespace {

Grid every_kind_grid(Family family) {
  Grid g;
  g.family = family;
  if (family == Family::ma_cross) {
    g.fast = {3, 7};
    g.slow = {12, 30};
    g.ma = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
    g.entry = {Entry::state, Entry::cross};
  } else {
    g.n = {5, 20};
    g.source = {Source::close, Source::high_low};
  }
  g.side = {Side::long_short, Side::long_only};
  g.vol_short = {5};
  g.vol_long = {5, 25};  // 5/5 is invalid: skipped below
  g.vol_threshold = {0.9};
  return g;
}

TEST(PositionTracker, EqualsBackendPositionsForEveryKindAsBarsArrive) {
  const Series s = test::random_walk(900, 31);
  const HistoryView h = HistoryView::of(s);
  auto cpu = make_backend("cpu");
  std::mt19937_64 rng(5);
  for (Family family : {Family::ma_cross, Family::channel_breakout}) {
    StrategySpec spec;
    spec.grid = every_kind_grid(family);
    for (uint64_t id = 0; id < spec.grid.size(); ++id) {
      const Combo c = spec.grid.decode(id);
      if (!c.valid()) continue;
      PositionTracker tracker(spec, c);
      size_t end = std::uniform_int_distribution<size_t>(0, 60)(rng);
      while (end < s.size()) {
        const auto& got = tracker.extend(h.prefix(end));
        ASSERT_EQ(got, cpu->positions(h.prefix(end), spec, c)) << "combo " << id << " end " << end;
        end += std::uniform_int_distribution<size_t>(1, 120)(rng);
      }
      ASSERT_EQ(tracker.extend(h), cpu->positions(h, spec, c)) << "combo " << id;
    }
  }
}

// A fork (what the daemon's worker hands the loop for signals) goes on exactly as the
// tracker it came from would: forked at random bars, both extended by the same random
// batches, every position equals Backend::positions over the whole history.
TEST(PositionTracker, AForkContinuesExactlyAsTheOriginal) {
  const Series s = test::random_walk(700, 77);
  const HistoryView h = HistoryView::of(s);
  auto cpu = make_backend("cpu");
  std::mt19937_64 rng(11);
  auto bars = [&](size_t first, size_t end) {
    std::vector<Bar> out;
    for (size_t t = first; t < end; ++t)
      out.push_back(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t], 0, 0});
    return out;
  };
  for (Family family : {Family::ma_cross, Family::channel_breakout}) {
    StrategySpec spec;
    spec.grid = every_kind_grid(family);
    spec.fill = family == Family::ma_cross ? Fill::close : Fill::next_open;
    for (uint64_t id = 0; id < spec.grid.size(); ++id) {
      const Combo c = spec.grid.decode(id);
      if (!c.valid()) continue;
      SCOPED_TRACE("combo " + std::to_string(id));
      const std::vector<int8_t> want = cpu->positions(h, spec, c);
      PositionTracker original(spec, c);
      const size_t at = std::uniform_int_distribution<size_t>(0, 400)(rng);
      original.append(bars(0, at));
      const size_t keep = std::uniform_int_distribution<size_t>(1, 50)(rng);
      PositionTracker fork = original.fork(keep);
      ASSERT_EQ(fork.bars(), at);
      ASSERT_EQ(fork.last(), original.last());
      ASSERT_EQ(fork.first_kept(), at > keep ? at - keep : 0);
      for (size_t end = at; end < s.size();) {
        const size_t next =
            std::min(s.size(), end + std::uniform_int_distribution<size_t>(1, 90)(rng));
        const std::vector<Bar> batch = bars(end, next);
        original.append(batch);
        fork.append(batch);
        const std::vector<int8_t> got = fork.positions(end, next);
        ASSERT_EQ(got, std::vector<int8_t>(want.begin() + static_cast<ptrdiff_t>(end),
                                           want.begin() + static_cast<ptrdiff_t>(next)))
            << "forked at " << at << ", bars [" << end << ", " << next << ")";
        ASSERT_EQ(original.positions(end, next), got);
        end = next;
      }
    }
  }
}

// SPEC §5b: a tracker carries each combo's stop state (the family's own target, the stopped
// side, the trade's entry and extreme) from bar to bar and into its forks: every family, both
// fills, every stop kind, against the oracle's positions.
TEST(PositionTracker, StopsRideAlongAsBarsArriveAndThroughForks) {
  const Series s = test::random_walk(900, 19);
  const HistoryView h = HistoryView::of(s);
  auto ref = make_backend("cpu_ref");
  std::mt19937_64 rng(23);
  auto bars = [&](size_t first, size_t end) {
    std::vector<Bar> out;
    for (size_t t = first; t < end; ++t)
      out.push_back(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t], 0, 0});
    return out;
  };
  for (Family family :
       {Family::ma_cross, Family::channel_breakout, Family::bollinger, Family::rsi_reversion}) {
    StrategySpec spec;
    spec.grid.family = family;
    spec.grid.fast = {3};
    spec.grid.slow = {20};
    spec.grid.n = {14};
    spec.grid.k = {1.5};
    spec.grid.lo = {35};
    spec.grid.hi = {65};
    spec.grid.side = {Side::long_short, Side::long_only};
    spec.grid.stop_loss = {0, 0.02};
    spec.grid.take_profit = {0, 0.03};
    spec.grid.trailing_stop = {0, 0.015};
    spec.fill =
        family == Family::ma_cross || family == Family::bollinger ? Fill::next_open : Fill::close;
    size_t changed = 0;
    for (uint64_t id = 0; id < spec.grid.size(); ++id) {
      const Combo c = spec.grid.decode(id);
      SCOPED_TRACE(std::string(to_string(family)) + " combo " + std::to_string(id));
      const std::vector<int8_t> want = ref->positions(h, spec, c);
      Combo plain = c;
      plain.stop_loss = plain.take_profit = plain.trailing_stop = 0;
      changed += ref->positions(h, spec, plain) != want;
      PositionTracker tracker(spec, c);
      const size_t at = std::uniform_int_distribution<size_t>(50, 500)(rng);
      ASSERT_EQ(tracker.extend(h.prefix(at)),
                std::vector<int8_t>(want.begin(), want.begin() + static_cast<ptrdiff_t>(at)));
      PositionTracker fork = tracker.fork(8);
      for (size_t end = at; end < s.size();) {
        const size_t next =
            std::min(s.size(), end + std::uniform_int_distribution<size_t>(1, 40)(rng));
        const std::vector<Bar> batch = bars(end, next);
        tracker.append(batch);
        fork.append(batch);
        const std::vector<int8_t> slice(want.begin() + static_cast<ptrdiff_t>(end),
                                        want.begin() + static_cast<ptrdiff_t>(next));
        ASSERT_EQ(fork.positions(end, next), slice) << "bars [" << end << ", " << next << ")";
        ASSERT_EQ(tracker.positions(end, next), slice);
        end = next;
      }
    }
    EXPECT_GT(changed, 0u) << "no stop changed a position: the case tests nothing";
  }
}

}  // namespace
}  // namespace wfod
