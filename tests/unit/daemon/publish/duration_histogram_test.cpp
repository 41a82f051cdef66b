// DurationHistogram: le buckets inclusive and cumulative, +Inf through count, sum.

#include "wfod/daemon/publish/duration_histogram.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace wfod::daemon {
namespace {

TEST(DurationHistogram, BucketsAreCumulativeAndInclusive) {
  DurationHistogram h;
  for (size_t i = 0; i < DurationHistogram::kBounds.size(); ++i) EXPECT_EQ(h.cumulative(i), 0u);
  h.observe(0.001);                                     // exactly the first bound: in it (le)
  h.observe(0.0011);                                    // just above: the second
  h.observe(3);                                         // 5 s bucket
  h.observe(1000);                                      // above every bound: only +Inf (count)
  h.observe(-1);                                        // clock step: counted as 0
  h.observe(std::numeric_limits<double>::quiet_NaN());  // ignored
  EXPECT_EQ(h.count(), 5u);
  EXPECT_DOUBLE_EQ(h.sum(), 0.001 + 0.0011 + 3 + 1000);
  EXPECT_EQ(h.cumulative(0), 2u);  // 0.001 and the clamped -1
  EXPECT_EQ(h.cumulative(1), 3u);
  size_t five = 0;
  while (DurationHistogram::kBounds[five] != 5) ++five;
  EXPECT_EQ(h.cumulative(five - 1), 3u);
  EXPECT_EQ(h.cumulative(five), 4u);
  EXPECT_EQ(h.cumulative(DurationHistogram::kBounds.size() - 1), 4u);
  uint64_t previous = 0;
  for (size_t i = 0; i < DurationHistogram::kBounds.size(); ++i) {
    EXPECT_GE(h.cumulative(i), previous);
    previous = h.cumulative(i);
    if (i > 0) {
      EXPECT_LT(DurationHistogram::kBounds[i - 1], DurationHistogram::kBounds[i]);
    }
  }
}

}  // namespace
}  // namespace wfod::daemon
