// A combo's returns over a range, written once (wfod/segments.hpp for_each_segment,
// wfod/combo_returns.hpp): the SPEC §2 segments of each bar from a position series, the exit
// segment of the first bar held by the previous holder at a switch (SPEC §8), flat outside
// the series; combo_returns against the same loop written out here.
#include "wfod/segments.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/combo_returns.hpp"

namespace wfod {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Seen {
  size_t t;
  BarSegments s;
};

std::vector<Seen> collect(const HistoryView& h, Fill fill, double cost,
                          const std::vector<int8_t>& p, size_t first, size_t end,
                          int8_t first_exit) {
  std::vector<Seen> out;
  for_each_segment(h, fill, cost, p, first, end, first_exit, [&](size_t t, const BarSegments& s) {
    out.push_back({t, s});
  });
  return out;
}

TEST(ForEachSegment, IsTheSpecLoopWithTheSwitchAtTheFirstBar) {
  const Series series = test::random_walk(40, 17, 50, 0.02, 0.01);
  const HistoryView h = HistoryView::of(series);
  const std::vector<int8_t> p = {0, 1, 1, -1, -1, 0, 1, 1,  1, -1, 0, 0, 1,  -1, -1,
                                 1, 1, 0, 0,  -1, 1, 1, -1, 0, 1,  1, 0, -1, -1, 1};
  for (const Fill fill : {Fill::close, Fill::next_open}) {
    for (const size_t first : {size_t{1}, size_t{2}, size_t{7}}) {
      for (const int8_t before : {int8_t{-1}, int8_t{0}, int8_t{1}}) {
        const size_t end = p.size();
        const auto seen = collect(h, fill, 0.001, p, first, end, before);
        ASSERT_EQ(seen.size(), end - first);
        for (size_t t = first; t < end; ++t) {
          const int8_t p2 = t == first ? before : p[t - 2];
          const BarSegments want = bar_segments(h, fill, 0.001, t, p2, p[t - 1]);
          const Seen& got = seen[t - first];
          EXPECT_EQ(got.t, t);
          EXPECT_EQ(got.s.exit_pos, want.exit_pos) << "bar " << t;
          EXPECT_EQ(got.s.body_pos, want.body_pos) << "bar " << t;
          EXPECT_TRUE(same_bits(got.s.exit_value, want.exit_value)) << "bar " << t;
          EXPECT_TRUE(same_bits(got.s.body_value, want.body_value)) << "bar " << t;
        }
      }
    }
  }
}

TEST(ForEachSegment, PositionsOutsideTheSeriesAreFlat) {
  const std::vector<int8_t> p = {1, -1};
  EXPECT_EQ(position_or_flat(p, 0), 1);
  EXPECT_EQ(position_or_flat(p, 1), -1);
  EXPECT_EQ(position_or_flat(p, 2), 0);
  EXPECT_EQ(position_or_flat(p, size_t{0} - 1), 0);  // t - 2 at bar 1
  EXPECT_EQ(position_or_flat({}, 0), 0);
  // An empty series (a fold without a winner) is flat on every bar.
  const Series series = test::random_walk(10, 3);
  const HistoryView h = HistoryView::of(series);
  for (const Seen& s : collect(h, Fill::close, 0.01, {}, 3, 10, 0)) {
    EXPECT_EQ(s.s.exit_pos, 0);
    EXPECT_EQ(s.s.body_pos, 0);
    EXPECT_EQ(s.s.exit_value, 0.0);
    EXPECT_EQ(s.s.body_value, 0.0);
  }
}

TEST(ComboReturns, AreTheSegmentsOfTheBackendsPositions) {
  const Series series = test::random_walk(300, 99, 40, 0.015, 0.004);
  const HistoryView h = HistoryView::of(series);
  StrategySpec spec;
  spec.grid.fast = {3};
  spec.grid.slow = {9};
  spec.fill = Fill::next_open;
  spec.costs.commission_bps = 3;
  const Combo c = spec.grid.decode(0);
  auto be = make_backend("cpu_ref");
  const std::vector<int8_t> p = be->positions(h, spec, c);
  for (const auto& [first, end] : {std::pair<size_t, size_t>{1, 300}, {120, 250}, {50, 50}}) {
    const std::vector<double> r = combo_returns(*be, h, spec, c, first, end);
    ASSERT_EQ(r.size(), end - first);
    for (size_t t = first; t < end; ++t) {
      const BarSegments s =
          bar_segments(h, spec.fill, spec.costs.per_unit(), t, t >= 2 ? p[t - 2] : 0, p[t - 1]);
      EXPECT_TRUE(same_bits(r[t - first], s.exit_value + s.body_value)) << "bar " << t;
    }
  }
  EXPECT_THROW(combo_returns(*be, h, spec, c, 0, 10), std::invalid_argument);
  EXPECT_THROW(combo_returns(*be, h, spec, c, 10, 301), std::invalid_argument);
  EXPECT_THROW(combo_returns(*be, h, spec, c, 10, 9), std::invalid_argument);
}

}  // namespace
}  // namespace wfod
