// Stream scheduling: the first run once the history is long enough, then every k bars; runs
// due while one is in flight are coalesced into one follow-up and counted.

#include "wfod/daemon/core/run_scheduler.hpp"

#include <gtest/gtest.h>

namespace wfod::daemon {
namespace {

TEST(Scheduler, WaitsForEnoughHistoryThenRunsAtOnce) {
  RunScheduler s(5, 10);
  EXPECT_FALSE(s.on_bars(0, 0));
  EXPECT_FALSE(s.on_bars(9, 9));
  EXPECT_TRUE(s.on_bars(10, 1));  // first run as soon as min_bars exist
  EXPECT_TRUE(s.running());
  EXPECT_FALSE(s.on_job_done());
  EXPECT_FALSE(s.running());
}

TEST(Scheduler, StartUpRunWhenPersistedHistorySuffices) {
  RunScheduler s(250, 100);
  EXPECT_TRUE(s.on_bars(2000, 0));
  EXPECT_EQ(s.started(), 1u);
}

// After a restart the next run is where an uninterrupted daemon's would be; what the start-up
// log says about it ("next run after N more bars") comes from these counts.
TEST(Scheduler, ResumeCountsFromTheLastPublication) {
  RunScheduler s(50, 421);
  s.resume(12);  // 12 bars since the last publication, 1000 in the history
  EXPECT_FALSE(s.on_bars(1000, 0));
  EXPECT_EQ(s.bars_since_run(), 12u);
  EXPECT_EQ(s.bars_until_due(), 38u);
  EXPECT_FALSE(s.on_bars(1037, 37));
  EXPECT_EQ(s.bars_until_due(), 1u);
  EXPECT_TRUE(s.on_bars(1038, 1));
  EXPECT_EQ(s.bars_until_due(), 50u);
}

TEST(Scheduler, EveryKBars) {
  RunScheduler s(3, 1);
  EXPECT_TRUE(s.on_bars(1, 1));
  EXPECT_FALSE(s.on_job_done());
  EXPECT_FALSE(s.on_bars(2, 1));
  EXPECT_FALSE(s.on_bars(3, 1));
  EXPECT_TRUE(s.on_bars(4, 1));
  EXPECT_FALSE(s.on_job_done());
  EXPECT_TRUE(s.on_bars(7, 3));  // a batch of 3 at once
  EXPECT_FALSE(s.on_job_done());
  EXPECT_EQ(s.started(), 3u);
  EXPECT_EQ(s.coalesced(), 0u);
}

TEST(Scheduler, CoalescesWhileRunning) {
  RunScheduler s(1, 1);
  EXPECT_TRUE(s.on_bars(1, 1));
  EXPECT_FALSE(s.on_bars(2, 1));  // due, in flight: coalesced
  EXPECT_FALSE(s.on_bars(3, 1));  // again: still one follow-up
  EXPECT_FALSE(s.on_bars(4, 1));
  EXPECT_EQ(s.coalesced(), 3u);
  EXPECT_TRUE(s.pending());
  EXPECT_TRUE(s.on_job_done());  // the one follow-up, on the latest data
  EXPECT_TRUE(s.running());
  EXPECT_FALSE(s.pending());
  EXPECT_FALSE(s.on_job_done());  // nothing more was due
  EXPECT_EQ(s.started(), 2u);
}

TEST(Scheduler, NotDueWhileRunningIsNotCoalesced) {
  RunScheduler s(10, 1);
  EXPECT_TRUE(s.on_bars(1, 1));
  EXPECT_FALSE(s.on_bars(5, 4));
  EXPECT_EQ(s.coalesced(), 0u);
  EXPECT_FALSE(s.on_job_done());
  EXPECT_TRUE(s.on_bars(11, 6));  // 10 bars since the last due run
}

TEST(Scheduler, ZeroEveryMeansEveryBar) {
  RunScheduler s(0, 1);
  EXPECT_TRUE(s.on_bars(1, 1));
  EXPECT_FALSE(s.on_job_done());
  EXPECT_TRUE(s.on_bars(2, 1));
}

}  // namespace
}  // namespace wfod::daemon
