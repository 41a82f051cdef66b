// The observed bar interval: the median gap of the newest bars, robust to weekends and
// missed bars, from a bounded SymbolHistory.

#include "wfod/daemon/publish/bar_interval.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace wfod::daemon {
namespace {

constexpr int64_t kMinute = 60'000'000'000;
constexpr int64_t kDay = 1440 * kMinute;

TEST(BarInterval, MedianOfGaps) {
  EXPECT_FALSE(median_interval_s(std::vector<int64_t>{}));
  EXPECT_FALSE(median_interval_s(std::vector<int64_t>{5}));
  EXPECT_DOUBLE_EQ(*median_interval_s(std::vector<int64_t>{0, kMinute}), 60.0);
  // Daily bars over two weeks with their weekends: the interval is still a day.
  std::vector<int64_t> days;
  for (int64_t d = 0; d < 14; ++d) {
    if (d % 7 < 5) days.push_back(d * kDay);
  }
  EXPECT_DOUBLE_EQ(*median_interval_s(days), 86400.0);
  // Even count: the lower middle gap, one that occurred.
  EXPECT_DOUBLE_EQ(*median_interval_s(std::vector<int64_t>{0, 10'000'000'000, 40'000'000'000}),
                   10.0);
}

TEST(BarInterval, NewestBarsOfAHistory) {
  SymbolHistory h;
  EXPECT_FALSE(recent_bar_interval_s(h));
  // 200 hourly bars, then 100 minute bars: the newest 65 bars are minute bars.
  int64_t ts = 0;
  for (int i = 0; i < 200; ++i) h.push_back(Bar{ts += 60 * kMinute, 1, 1, 1, 1, 0, 0});
  EXPECT_DOUBLE_EQ(*recent_bar_interval_s(h), 3600.0);
  for (int i = 0; i < 100; ++i) h.push_back(Bar{ts += kMinute, 1, 1, 1, 1, 0, 0});
  EXPECT_DOUBLE_EQ(*recent_bar_interval_s(h), 60.0);
  // Bounded memory: the history keeps few bars; the interval reads only what is there.
  h.set_keep(3);
  h.set_needed_from(h.size());
  h.compact();
  ASSERT_GT(h.base(), 0u);
  EXPECT_DOUBLE_EQ(*recent_bar_interval_s(h), 60.0);
}

}  // namespace
}  // namespace wfod::daemon
