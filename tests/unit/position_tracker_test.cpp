// PositionTracker (incremental positions for the daemon's live_oos) equals
// Backend::positions over the same bars, for every kind of combo, extended in random batches.
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

}  // namespace
}  // namespace wfod
