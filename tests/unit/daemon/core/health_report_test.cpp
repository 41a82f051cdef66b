// Tests of the daemon's health as its parts know it (daemon/core/health_report.cpp): healthy
// until a bar log fails or a storage alarm is raised; which storage error is shown (a bar
// log's own, else the state directory's, else the first alarm); per stream the schedule, the
// newest publication's time (one restored from before a restart too) and the bars since its
// window; the backend and the runs' counts from the RunDispatcher. Over the BarKeeper rig
// and the parts' fakes (tests/support).
#include "wfod/daemon/core/health_report.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support/keeper_rig.hpp"
#include "support/parts_fakes.hpp"
#include "support/publisher_fakes.hpp"

namespace wfod::daemon {
namespace {

class NoRunEvents final : public RunEvents {
 public:
  void started(const PublicationKey&, size_t, size_t) override {}
  void coalesced(const PublicationKey&, uint64_t) override {}
  void dropped(const PublicationKey&) override {}
  void live_missing(const PublicationKey&, std::string_view) override {}
  void stream_opened(const PublicationKey&, const JobResult&) override {}
  void fell_back(std::string_view, std::string_view, std::string_view) override {}
  void fallback_failed(std::string_view, std::string_view) override {}
  void failed(const PublicationKey&, std::string_view) override {}
  void empty(const PublicationKey&, size_t, uint64_t, double) override {}
  void waiting_for_bars(const PublicationKey&, const SymbolStrategy&, size_t) override {}
  void next_run_after(const PublicationKey&, const SymbolStrategy&) override {}
};

class NoPublication final : public RunPublication {
 public:
  void publish(const PublicationKey&, SymbolStrategy&, const HistorySnapshot&,
               JobResult&) override {}
};

class HealthReportTest : public ::testing::Test {
 protected:
  HealthReportTest() {
    config::StrategyConfig s;
    s.name = "trend";
    s.symbols = {"S0"};
    s.spec.grid.fast = {2, 3};
    s.spec.grid.slow = {4};
    s.window = 5;
    s.warmup = 2;
    s.every = 4;
    streams.emplace(key, new_stream(s, rig.sym("S0"), 1));
    dispatcher.set_backend(std::make_unique<test::FakeBackend>("gpu", true));
  }
  HealthInput report() {
    return health_report({rig.keeper, streams, dispatcher, publisher, latency, alarms, "auto"},
                         12.5, 0);
  }
  SymbolStrategy& stream() { return streams.at(key); }

  const PublicationKey key{"S0", "trend"};
  test::KeeperRig rig{1, config::FsyncPolicy::every};
  test::FakeNumbers numbers{rig.journal};
  test::RecordingSink sink{rig.journal};
  test::RecordingEvents publisher_events;
  StorageAlarms alarms{20, std::chrono::seconds(10)};
  Publisher publisher{numbers, sink, alarms, publisher_events};
  test::SignalRecorder signal_events;
  StreamMap streams;
  SignalGate gate{true, rig.keeper, publisher, signal_events};
  test::Tickets hand_off{rig.journal};
  NoPublication publication;
  NoRunEvents run_events;
  config::DaemonConfig daemon;
  RunDispatcher dispatcher{
      streams,     rig.keeper, gate,
      publication, hand_off,   run_events,
      daemon,      alarms,     [] {
                             return std::make_unique<test::FakeBackend>("cpu", false); }};
  LatencyStats latency;
};

TEST_F(HealthReportTest, AHealthyDaemonAndItsStreamBeforeAnyPublication) {
  rig.batch("S0", 1, 10);
  const HealthInput h = report();
  EXPECT_FALSE(h.degraded);
  EXPECT_TRUE(h.storage.ok);
  EXPECT_EQ(h.backend, "gpu");
  EXPECT_EQ(h.requested_backend, "auto");
  EXPECT_EQ(h.uptime_s, 12.5);
  EXPECT_EQ(h.symbols.at("S0").accepted_bars, 10u);
  const StreamHealth& s = h.streams.at(key);
  EXPECT_EQ(s.every_bars, 4u);
  EXPECT_EQ(s.publications, 0u);
  EXPECT_FALSE(s.last_published_ns.has_value());
  EXPECT_FALSE(s.bars_since_publication.has_value());
}

TEST_F(HealthReportTest, AStorageAlarmDegradesAndTheStateDirectorysComesFirst) {
  rig.batch("S0", 1, 3);
  (void)alarms.raise("publications.seq", "write publications.seq.tmp: No space left on device");
  HealthInput h = report();
  EXPECT_TRUE(h.degraded);
  EXPECT_FALSE(h.storage.ok);
  EXPECT_EQ(h.storage.error, "write publications.seq.tmp: No space left on device");
  (void)alarms.raise("state_dir", "state_dir /tmp/x was removed");
  EXPECT_EQ(report().storage.error, "state_dir /tmp/x was removed");
  // A bar log's own error says more about the bars: it is the one shown.
  rig.disk.full = true;
  rig.batch("S0", 4, 4);
  h = report();
  EXPECT_EQ(h.storage.error.rfind("S0: ", 0), 0u) << h.storage.error;
  EXPECT_EQ(h.storage.pending_bars, 1u);
  (void)alarms.clear("state_dir");
  (void)alarms.clear("publications.seq");
  rig.disk.full = false;
  ASSERT_TRUE(rig.sync_timer.fire());  // the retry writes it
  h = report();
  EXPECT_FALSE(h.degraded);
  EXPECT_TRUE(h.storage.ok);
}

TEST_F(HealthReportTest, AStreamsNewestPublicationAndTheBarsSinceItsWindow) {
  rig.batch("S0", 1, 20);
  publisher.restore(key, LastPublication{3, "{}", 777}, 15);  // from before a restart
  stream().last_seq = 3;
  stream().last_end = 15;
  stream().publications = 0;  // none since this start
  HealthInput h = report();
  EXPECT_EQ(h.streams.at(key).last_published_ns, 777);
  EXPECT_EQ(h.streams.at(key).bars_since_publication, 5u);
  stream().last_end = 25;  // a saved state past the bars held (a quarantined log)
  EXPECT_FALSE(report().streams.at(key).bars_since_publication.has_value());
}

TEST_F(HealthReportTest, TheBackendAfterAFallbackAndTheRunsCounts) {
  rig.batch("S0", 1, 8);  // not due: no dispatcher hook in this rig
  dispatcher.start(key);
  ASSERT_EQ(hand_off.queue.size(), 1u);
  JobTicket t = std::move(hand_off.queue.front());
  hand_off.queue.pop_front();
  JobResult failed;
  failed.end = 8;
  failed.error = "cudaErrorLaunchFailure";
  failed.backend_failed = true;
  dispatcher.on_result(t.key, t.generation, t.input.snap, std::move(failed));
  ASSERT_EQ(hand_off.queue.size(), 1u);  // the same run on the cpu
  t = std::move(hand_off.queue.front());
  JobResult ok;
  ok.end = 8;
  ok.elapsed_ms = 250;
  dispatcher.on_result(t.key, t.generation, t.input.snap, std::move(ok));
  const HealthInput h = report();
  EXPECT_EQ(h.backend, "cpu");
  EXPECT_EQ(h.backend_fallbacks, 1u);
  EXPECT_EQ(h.backend_error, "cudaErrorLaunchFailure");
  ASSERT_EQ(h.optimisation_durations.count("trend"), 1u);
  EXPECT_EQ(h.optimisation_durations.at("trend").count(), 1u);
}

}  // namespace
}  // namespace wfod::daemon
