// A bounded stream's positions without the anchor: Stream::positions and returns over any
// range from its horizon on, and trackers seeded from it, equal Backend::positions over the
// whole history (and the returns SPEC §2 makes of them), bit for bit, for every kind of combo.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/position_tracker.hpp"
#include "wfod/segments.hpp"

namespace wfod {
namespace {

struct Case {
  const char* name;
  StreamSpec spec;
  Series series;
};

// Small windows and chunks: ranges start anywhere relative to the ring's chunks.
std::vector<Case> cases() {
  return {
      {"ma_all_kinds", test::bounded_spec(test::small_ma_grid(), 150, Fill::next_open, 3, 16),
       test::spike_series(6000, 21, {2500, 4100}, 2.6)},
      {"channel", test::bounded_spec(test::small_channel_grid(), 200, Fill::close, 1, 32),
       test::random_walk(6000, 22)},
      {"bollinger", test::bounded_spec(test::small_bollinger_grid(), 170, Fill::next_open, 2, 16),
       test::random_walk(6000, 23)},
      {"rsi", test::bounded_spec(test::small_rsi_grid(), 190, Fill::close, 1, 32),
       test::spike_series(6000, 24, {3100}, 2.6)}};
}

std::vector<double> returns_of(const HistoryView& h, const StrategySpec& s,
                               const std::vector<int8_t>& p, size_t first, size_t end) {
  std::vector<double> out;
  for (size_t t = first; t < end; ++t) {
    const BarSegments b =
        bar_segments(h, s.fill, s.costs.per_unit(), t, t >= 2 ? p[t - 2] : 0, p[t - 1]);
    out.push_back(b.exit_value + b.body_value);
  }
  return out;
}

TEST(StreamPositions, EqualBackendPositionsFromTheHorizonOn) {
  auto cpu = make_backend("cpu");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Grid& grid = c.spec.strategy.grid;
    auto stream = cpu->open_stream(c.spec, HistoryView::of(c.series).prefix(100));
    std::mt19937_64 rng(3);
    size_t end = 100, checked = 0;
    while (end < c.series.size()) {
      const size_t k = std::min<size_t>(std::uniform_int_distribution<size_t>(1, 90)(rng),
                                        c.series.size() - end);
      try {
        stream->advance(test::bars_of(c.series, end, end + k));
      } catch (const std::invalid_argument&) {  // shorter than warmup + W + 1: bars kept
      }
      end += k;
      if (checked > 0 && rng() % 6 != 0) continue;
      ++checked;
      const HistoryView h = HistoryView::of(c.series).prefix(end);
      const size_t horizon = stream->horizon();
      SCOPED_TRACE("end=" + std::to_string(end) + " horizon=" + std::to_string(horizon));
      for (uint64_t id = 0; id < grid.size(); ++id) {
        const Combo combo = grid.decode(id);
        if (!combo.valid()) continue;
        const std::vector<int8_t> want = cpu->positions(h, c.spec.strategy, combo);
        const size_t first =
            std::uniform_int_distribution<size_t>(horizon, horizon + (end - horizon) / 2)(rng);
        ASSERT_EQ(stream->positions(combo, horizon, end),
                  std::vector<int8_t>(want.begin() + static_cast<ptrdiff_t>(horizon), want.end()))
            << "combo " << id;
        ASSERT_EQ(stream->positions(combo, first, end),
                  std::vector<int8_t>(want.begin() + static_cast<ptrdiff_t>(first), want.end()))
            << "combo " << id << " first " << first;
        const size_t r0 = std::max<size_t>(first, 1);
        ASSERT_EQ(stream->returns(combo, r0, end), returns_of(h, c.spec.strategy, want, r0, end))
            << "combo " << id;
      }
    }
    EXPECT_GT(checked, 10u);
    EXPECT_GT(stream->horizon(), 0u);
  }
}

// Seeded at a stream's newest bar, a tracker continues bar by bar with bounded memory and
// still knows the positions of the bars just before it was seeded.
TEST(StreamPositions, TrackersSeededFromAStreamContinueExactly) {
  auto cpu = make_backend("cpu");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Grid& grid = c.spec.strategy.grid;
    const HistoryView all = HistoryView::of(c.series);
    const size_t seed_at = 3000;
    auto stream = cpu->open_stream(c.spec, all.prefix(seed_at));
    for (uint64_t id = 0; id < grid.size(); ++id) {
      const Combo combo = grid.decode(id);
      if (!combo.valid()) continue;
      SCOPED_TRACE("combo " + std::to_string(id));
      const std::vector<int8_t> want = cpu->positions(all, c.spec.strategy, combo);
      const size_t keep = 40;
      PositionTracker tracker = stream->tracker(combo, keep);
      ASSERT_EQ(tracker.bars(), seed_at);
      ASSERT_EQ(tracker.first_kept(), seed_at - keep);
      ASSERT_EQ(tracker.positions(seed_at - keep, seed_at),
                std::vector<int8_t>(want.begin() + seed_at - keep, want.begin() + seed_at));
      std::mt19937_64 rng(id);
      size_t end = seed_at;
      while (end < all.size()) {
        const size_t k =
            std::min<size_t>(std::uniform_int_distribution<size_t>(1, 7)(rng), all.size() - end);
        tracker.append(test::bars_of(c.series, end, end + k));
        end += k;
        ASSERT_EQ(tracker.last(), want[end - 1]) << "end " << end;
        ASSERT_LE(tracker.first_kept(), end - std::min(keep, end));
        const size_t from = end - keep;
        ASSERT_EQ(tracker.positions(from, end),
                  std::vector<int8_t>(want.begin() + static_cast<ptrdiff_t>(from),
                                      want.begin() + static_cast<ptrdiff_t>(end)));
      }
      EXPECT_GT(tracker.first_kept(), seed_at) << "old positions are dropped";
      // keep = 0 still keeps the newest position, which the next decision starts from.
      PositionTracker least = stream->tracker(combo, 0);
      least.append(test::bars_of(c.series, seed_at, seed_at + 50));
      EXPECT_EQ(least.last(), want[seed_at + 49]);
      EXPECT_EQ(least.positions(seed_at + 49, seed_at + 50),
                std::vector<int8_t>{want[seed_at + 49]});
      EXPECT_THROW(tracker.positions(seed_at - keep, end), std::out_of_range);
      EXPECT_THROW(tracker.extend(all), std::logic_error);
    }
  }
}

TEST(StreamPositions, RefusesWhatItCannotAnswer) {
  auto cpu = make_backend("cpu");
  const Case c = cases()[0];
  const Grid& grid = c.spec.strategy.grid;
  auto stream = cpu->open_stream(c.spec, HistoryView::of(c.series));
  const size_t end = c.series.size(), h = stream->horizon();
  Combo ok = grid.decode(0);
  ASSERT_TRUE(ok.valid());
  EXPECT_THROW(stream->positions(ok, h - 1, end), std::invalid_argument);  // before the horizon
  EXPECT_THROW(stream->positions(ok, h, end + 1), std::invalid_argument);  // past the newest
  EXPECT_THROW(stream->positions(ok, h + 5, h + 4), std::invalid_argument);
  EXPECT_TRUE(stream->positions(ok, end, end).empty());
  Combo outside = ok;
  outside.id = grid.size();
  EXPECT_THROW(stream->positions(outside, h, end), std::invalid_argument);
  Combo other = ok;
  other.fast += 1;  // id 0 with parameters of no grid point
  EXPECT_THROW(stream->positions(other, h, end), std::invalid_argument);
  EXPECT_THROW(stream->tracker(other, 10), std::invalid_argument);
  // fast >= slow: combo 1 (fast 20, slow 13) is invalid (SPEC §5)
  Grid mixed = grid;
  mixed.fast = {3, 20};
  mixed.slow = {13};
  StreamSpec mixed_spec = c.spec;
  mixed_spec.strategy.grid = mixed;
  auto mixed_stream = cpu->open_stream(mixed_spec, HistoryView::of(c.series));
  ASSERT_FALSE(mixed.decode(1).valid());
  EXPECT_THROW(mixed_stream->returns(mixed.decode(1), end - 10, end), std::invalid_argument);
  EXPECT_NO_THROW(mixed_stream->returns(mixed.decode(0), end - 10, end));

  // Streams without their own state say so, for the caller to use the history instead.
  auto ref = make_backend("cpu_ref")->open_stream(c.spec, HistoryView::of(c.series));
  try {
    ref->positions(ok, 0, end);
    ADD_FAILURE() << "the re-sweeping stream answered positions()";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not supported by this stream"), std::string::npos);
  }
  EXPECT_THROW(ref->returns(ok, 1, end), std::invalid_argument);
  EXPECT_THROW(ref->tracker(ok, 10), std::invalid_argument);
}

// A tracker from the anchor keeps every position while extend() is used (it returns them
// all), and only keep() of them once told so.
TEST(StreamPositions, AnchoredTrackerKeepsABoundedTailWhenAsked) {
  auto cpu = make_backend("cpu");
  const Case c = cases()[1];
  const HistoryView all = HistoryView::of(c.series);
  const Combo combo = c.spec.strategy.grid.decode(3);
  ASSERT_TRUE(combo.valid());
  const std::vector<int8_t> want = cpu->positions(all, c.spec.strategy, combo);
  PositionTracker tracker(c.spec.strategy, combo);
  ASSERT_EQ(tracker.extend(all.prefix(2000)),
            std::vector<int8_t>(want.begin(), want.begin() + 2000));
  tracker.set_keep(100);
  for (size_t t = 2000; t < all.size(); ++t) tracker.append(test::bars_of(c.series, t, t + 1));
  EXPECT_EQ(tracker.positions(all.size() - 100, all.size()),
            std::vector<int8_t>(want.end() - 100, want.end()));
  EXPECT_GT(tracker.first_kept(), 2000u);
  const std::vector<Bar> stale = test::bars_of(c.series, 10, 11);
  EXPECT_THROW(tracker.append(stale), std::invalid_argument);
  EXPECT_EQ(tracker.bars(), all.size());
}

}  // namespace
}  // namespace wfod
