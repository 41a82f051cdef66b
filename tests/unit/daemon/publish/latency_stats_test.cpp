// LatencyStats (daemon health `latency_ms`): stage split of known timestamps, nearest-rank
// percentiles, and the ring keeping only the latest samples.
#include "wfod/daemon/publish/latency_stats.hpp"

#include <gtest/gtest.h>

namespace wfod::daemon {
namespace {

using std::chrono::microseconds;

LatencyStats::Marks marks(int ingest_us, int handoff_us, int job_us, int result_us,
                          int publish_us) {
  LatencyStats::Marks m;
  m.received = LatencyStats::Clock::time_point{} + std::chrono::seconds(100);
  m.queued = m.received + microseconds(ingest_us);
  m.started = m.queued + microseconds(handoff_us);
  m.finished = m.started + microseconds(job_us);
  m.taken = m.finished + microseconds(result_us);
  m.sent = m.taken + microseconds(publish_us);
  return m;
}

TEST(LatencyStats, SplitsOnePublicationIntoStages) {
  LatencyStats s(8);
  s.record(marks(10, 20, 900, 30, 40));
  EXPECT_EQ(s.samples(), 1u);
  EXPECT_NEAR(s.percentile_ms(LatencyStage::ingest, 0.5), 0.010, 1e-12);
  EXPECT_NEAR(s.percentile_ms(LatencyStage::handoff, 0.5), 0.020, 1e-12);
  EXPECT_NEAR(s.percentile_ms(LatencyStage::job, 0.5), 0.900, 1e-12);
  EXPECT_NEAR(s.percentile_ms(LatencyStage::result, 0.5), 0.030, 1e-12);
  EXPECT_NEAR(s.percentile_ms(LatencyStage::publish, 0.5), 0.040, 1e-12);
  EXPECT_NEAR(s.percentile_ms(LatencyStage::bar_to_send, 0.99), 1.000, 1e-12);
}

TEST(LatencyStats, NearestRankPercentilesAndMax) {
  LatencyStats s(1000);
  for (int i = 1; i <= 100; ++i) s.record(marks(0, 0, i * 1000, 0, 0));  // job = i ms
  EXPECT_DOUBLE_EQ(s.percentile_ms(LatencyStage::job, 0.5), 50.0);
  EXPECT_DOUBLE_EQ(s.percentile_ms(LatencyStage::job, 0.99), 99.0);
  EXPECT_DOUBLE_EQ(s.max_ms(LatencyStage::job), 100.0);
  const auto j = s.json();
  EXPECT_EQ(j["samples"], 100);
  EXPECT_DOUBLE_EQ(j["job"]["p99"].get<double>(), 99.0);
  EXPECT_DOUBLE_EQ(j["bar_to_send"]["max"].get<double>(), 100.0);
}

TEST(LatencyStats, KeepsOnlyTheLatestWindow) {
  LatencyStats s(4);
  for (int i = 0; i < 10; ++i) s.record(marks(0, 0, 100000, 0, 0));  // 100 ms, old
  for (int i = 0; i < 4; ++i) s.record(marks(0, 0, 1000, 0, 0));     // 1 ms, latest
  EXPECT_EQ(s.samples(), 4u);
  EXPECT_DOUBLE_EQ(s.max_ms(LatencyStage::job), 1.0);
}

TEST(LatencyStats, EmptyReportsZero) {
  const LatencyStats s;
  EXPECT_EQ(s.samples(), 0u);
  EXPECT_EQ(s.percentile_ms(LatencyStage::bar_to_send, 0.99), 0.0);
  EXPECT_EQ(s.json()["bar_to_send"]["max"], 0.0);
}

}  // namespace
}  // namespace wfod::daemon
