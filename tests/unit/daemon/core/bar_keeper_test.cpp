// Tests of history and durability (daemon/core/bar_keeper.cpp): a batch's bars are written,
// and synced per the fsync policy, before the streams hear of them; under fsync = batch they
// count as durable only after the sync pass, which the timer runs within 50 ms; a full disk
// keeps accepted bars in memory and in order, reports the outage once, retries every second
// and withholds nothing it cannot; a full queue refuses the bar outright; a failed sync
// leaves the bars undurable and the publication that waited on it withheld; results awaiting
// a sync share one group commit and run in order after it; the stop's losses; the history's
// memory bound. Real bar logs in a temporary directory over a disk that fails on demand,
// fake loop timers fired by hand, and one journal of the disk's calls and the keeper's events.
#include "wfod/daemon/core/bar_keeper.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "support/keeper_rig.hpp"
#include "support/publisher_fakes.hpp"

namespace wfod::daemon {
namespace {

using std::chrono::milliseconds;
using test::Journal;
using test::KeeperRig;

// Position of the first `entry` in the journal (npos when absent).
size_t first_of(const Journal& j, const std::string& entry) {
  const auto it = std::find(j.begin(), j.end(), entry);
  return it == j.end() ? std::string::npos : static_cast<size_t>(it - j.begin());
}
size_t count_of(const Journal& j, const std::string& entry) {
  return static_cast<size_t>(std::count(j.begin(), j.end(), entry));
}

TEST(BarKeeper, EveryPolicyWritesAndSyncsABatchBeforeTheStreamsHearOfIt) {
  KeeperRig rig(2, config::FsyncPolicy::every);
  for (int64_t t = 1; t <= 3; ++t) ASSERT_TRUE(rig.send("S0", KeeperRig::bar(t)).accepted());
  ASSERT_TRUE(rig.send("S1", KeeperRig::bar(1)).accepted());
  // Staged only: nothing is on disk, and nobody was told.
  EXPECT_TRUE(rig.journal.empty());
  EXPECT_EQ(rig.sym("S0").history.size(), 3u);
  rig.keeper.commit();
  // One write per touched log, one sync per log, then the streams: their bars durable.
  EXPECT_EQ(rig.journal, (Journal{"write", "write", "fdatasync", "fdatasync",
                                  "committed S0 3 durable=3", "committed S1 1 durable=1"}));
  EXPECT_EQ(rig.sym("S0").accepted_bars, 3u);
  EXPECT_FALSE(rig.sync_timer.pending());  // nothing left to sync
}

TEST(BarKeeper, BatchPolicyCountsBarsDurableOnlyAfterTheSyncPassWithin50Ms) {
  KeeperRig rig(1, config::FsyncPolicy::batch);
  rig.batch("S0", 1, 2);
  // Written, not synced: the streams may run over them (a publication waits for the sync),
  // but no signal may go: nothing is durable yet.
  EXPECT_EQ(rig.journal, (Journal{"write", "committed S0 2 durable=0"}));
  ASSERT_EQ(rig.sync_timer.starts, (std::vector<milliseconds>{milliseconds(50)}));
  rig.batch("S0", 3, 3);  // a pending timer is not started again
  EXPECT_EQ(rig.sync_timer.starts.size(), 1u);
  rig.journal.clear();
  ASSERT_TRUE(rig.sync_timer.fire());
  EXPECT_EQ(rig.journal, (Journal{"fdatasync", "synced"}));
  EXPECT_EQ(rig.keeper.durable_bars(rig.sym("S0")), 3u);
  EXPECT_FALSE(rig.sync_timer.pending());
}

TEST(BarKeeper, NonePolicyNeverSyncsAndCountsWrittenBarsDurable) {
  KeeperRig rig(1, config::FsyncPolicy::none);
  rig.batch("S0", 1, 2);
  EXPECT_EQ(rig.journal, (Journal{"write", "committed S0 2 durable=2"}));
  EXPECT_TRUE(rig.sync_timer.starts.empty());
}

TEST(BarKeeper, AFullDiskKeepsAcceptedBarsInOrderReportsOnceAndRetriesEverySecond) {
  KeeperRig rig(1, config::FsyncPolicy::every);
  rig.batch("S0", 1, 2);
  rig.disk.full = true;
  rig.journal.clear();
  rig.batch("S0", 3, 5);
  // Accepted: in the history (runs see them), not on disk, so not durable, and the outage is
  // reported before the streams hear of the bars.
  EXPECT_EQ(rig.journal, (Journal{"write refused", "failing S0", "committed S0 3 durable=2"}));
  EXPECT_EQ(rig.sym("S0").history.size(), 5u);
  EXPECT_EQ(rig.sym("S0").store->pending(), 3u);
  EXPECT_FALSE(rig.sym("S0").store->healthy());
  ASSERT_EQ(rig.sync_timer.starts, (std::vector<milliseconds>{milliseconds(1000)}));

  HealthInput h;
  rig.keeper.fill_health(h, 0);
  EXPECT_TRUE(h.degraded);
  EXPECT_FALSE(h.storage.ok);
  EXPECT_EQ(h.storage.pending_bars, 3u);
  EXPECT_EQ(h.storage.error.rfind("S0: ", 0), 0u) << h.storage.error;

  rig.batch("S0", 6, 6);  // still failing: not reported again
  EXPECT_EQ(count_of(rig.journal, "failing S0"), 1u);
  rig.journal.clear();
  ASSERT_TRUE(rig.sync_timer.fire());  // the retry: still full
  EXPECT_EQ(rig.journal.front(), "write refused");
  EXPECT_EQ(count_of(rig.journal, "failing S0"), 0u);
  ASSERT_TRUE(rig.sync_timer.pending());  // and again in a second
  EXPECT_EQ(rig.sync_timer.starts.back(), milliseconds(1000));

  rig.disk.full = false;
  rig.journal.clear();
  ASSERT_TRUE(rig.sync_timer.fire());
  EXPECT_EQ(rig.journal, (Journal{"write", "fdatasync", "recovered S0", "synced"}));
  EXPECT_EQ(rig.keeper.durable_bars(rig.sym("S0")), 6u);
  EXPECT_TRUE(rig.sym("S0").store->healthy());
  // The backlog went out in order: the log reads back as the feed sent it.
  const std::vector<Bar> bars = rig.keeper.bars_between(rig.sym("S0"), 0, 6);
  for (int64_t t = 1; t <= 6; ++t) EXPECT_EQ(bars[static_cast<size_t>(t - 1)].ts_ns, t);
  EXPECT_FALSE(rig.sync_timer.pending());
}

TEST(BarKeeper, ABarTheFullQueueRefusesNeverReachesTheHistory) {
  KeeperRig rig(1, config::FsyncPolicy::every, /*max_pending=*/2);
  rig.disk.full = true;
  EXPECT_TRUE(rig.send("S0", KeeperRig::bar(1)).accepted());
  rig.keeper.commit();  // the first write fails: the bar is pending
  EXPECT_TRUE(rig.send("S0", KeeperRig::bar(2)).accepted());
  const IngestOutcome third = rig.send("S0", KeeperRig::bar(3));
  ASSERT_TRUE(third.refused.has_value());
  EXPECT_FALSE(third.accepted());
  EXPECT_EQ(rig.sym("S0").history.size(), 2u);
  rig.keeper.commit();
  EXPECT_EQ(rig.sym("S0").accepted_bars, 2u);
  EXPECT_EQ(rig.sym("S0").store->stats().refused, 1u);
}

// The publication that waited for a sync goes through the real Publisher: a failed sync
// leaves the bars undurable, so it is withheld, never sent.
TEST(BarKeeper, AFailedSyncLeavesTheBarsUndurableAndThePublicationWithheld) {
  KeeperRig rig(1, config::FsyncPolicy::batch);
  rig.batch("S0", 1, 4);
  Journal pub;
  test::FakeNumbers numbers(pub);
  test::RecordingSink sink(pub);
  test::RecordingEvents events;
  StorageAlarms alarms(20, std::chrono::seconds(10));
  Publisher publisher(numbers, sink, alarms, events);
  std::optional<Publisher::Sent> sent;
  rig.disk.sync_fails = true;
  rig.keeper.after_next_sync([&] {
    rig.journal.push_back("publish");
    BarStorePublishView store(*rig.sym("S0").store);
    sent = publisher.publish(
        PublicationKey{"S0", "trend"}, Publisher::Run{std::nullopt, 4}, store,
        [](uint64_t seq) {
          return Publisher::Payload{std::to_string(seq), 1};
        },
        [] {});
  });
  rig.journal.clear();
  ASSERT_TRUE(rig.group_timer.fire());
  EXPECT_LT(first_of(rig.journal, "fdatasync failed"), first_of(rig.journal, "sync failed"));
  EXPECT_LT(first_of(rig.journal, "sync failed"), first_of(rig.journal, "publish"));
  EXPECT_EQ(rig.journal.back(), "synced");
  EXPECT_FALSE(sent.has_value());
  EXPECT_TRUE(sink.sent.empty());
  EXPECT_EQ(events.lines.size(), 1u);
  EXPECT_EQ(events.lines.front().rfind("not_persisted", 0), 0u);
  EXPECT_EQ(rig.keeper.durable_bars(rig.sym("S0")), 0u);
  EXPECT_FALSE(rig.sym("S0").store->healthy());  // the unsynced bars are queued again
  // The next batch writes them again (a commit rewrites a store's whole queue) and the sync
  // timer's pass makes them durable. Until then nothing retries them: Ingest counts a log as
  // failing only when a commit finds it so (as the daemon did before this part).
  rig.disk.sync_fails = false;
  rig.batch("S0", 5, 5);
  EXPECT_EQ(rig.keeper.durable_bars(rig.sym("S0")), 0u);
  ASSERT_TRUE(rig.sync_timer.fire());
  EXPECT_EQ(rig.keeper.durable_bars(rig.sym("S0")), 5u);
  EXPECT_TRUE(rig.sym("S0").store->healthy());
}

TEST(BarKeeper, ResultsAwaitingASyncShareOneGroupCommitAndRunInOrderAfterIt) {
  KeeperRig rig(1, config::FsyncPolicy::batch);
  rig.batch("S0", 1, 2);
  rig.keeper.after_next_sync([&] { rig.journal.push_back("A"); });
  rig.keeper.after_next_sync([&] { rig.journal.push_back("B"); });
  EXPECT_EQ(rig.group_timer.starts, (std::vector<milliseconds>{milliseconds(20)}));
  rig.journal.clear();
  ASSERT_TRUE(rig.group_timer.fire());
  EXPECT_EQ(rig.journal, (Journal{"fdatasync", "A", "B", "synced"}));
  // Run once: the next sync pass (the batch timer's) has nothing left to release.
  rig.journal.clear();
  ASSERT_TRUE(rig.sync_timer.fire());
  EXPECT_EQ(rig.journal, (Journal{"synced"}));
  rig.keeper.after_next_sync([&] { rig.journal.push_back("C"); });
  EXPECT_EQ(rig.group_timer.starts.size(), 2u);  // a new group
}

TEST(BarKeeper, NoTimerStartsOnceStoppedAndAPendingOneDoesNothing) {
  KeeperRig rig(1, config::FsyncPolicy::batch);
  rig.batch("S0", 1, 1);
  ASSERT_TRUE(rig.sync_timer.pending());
  rig.keeper.stop();
  rig.journal.clear();
  ASSERT_TRUE(rig.sync_timer.fire());  // an expiry already on its way
  EXPECT_TRUE(rig.journal.empty());
  rig.batch("S0", 2, 2);
  EXPECT_EQ(rig.sync_timer.starts.size(), 1u);
}

TEST(BarKeeper, ALogDeletedWhileOpenIsReportedOnceAndItsBarsAreLossesAtTheStop) {
  KeeperRig rig(2, config::FsyncPolicy::every);
  rig.batch("S0", 1, 3);
  rig.batch("S1", 1, 1);
  std::filesystem::remove(rig.sym("S0").store->path());
  rig.journal.clear();
  rig.keeper.check_files();
  rig.keeper.check_files();
  EXPECT_EQ(rig.journal, (Journal{"lost S0"}));
  const StopFlush flushed = rig.keeper.flush_at_stop(milliseconds(0), milliseconds(200));
  const StopLosses losses = rig.keeper.losses_at_stop(flushed);
  ASSERT_EQ(losses.unreachable.size(), 1u);
  EXPECT_EQ(losses.unreachable[0].first->cfg.name, "S0");
  EXPECT_EQ(losses.unreachable[0].second, 3u);
  EXPECT_TRUE(losses.unwritten.empty());
  EXPECT_TRUE(losses.any());
}

TEST(BarKeeper, BarsTheDiskStillRefusesWhenTheStopsBudgetEndsAreLosses) {
  KeeperRig rig(1, config::FsyncPolicy::every);
  rig.batch("S0", 1, 2);
  rig.disk.full = true;
  rig.batch("S0", 3, 5);
  EXPECT_EQ(rig.keeper.unwritten(), 3u);
  std::chrono::steady_clock::time_point now{};
  const StopClock clock{[&] { return now; },
                        [&](std::chrono::steady_clock::duration d) { now += d; }};
  StopFlush flushed = rig.keeper.flush_at_stop(std::chrono::seconds(1), milliseconds(200), clock);
  StopLosses losses = rig.keeper.losses_at_stop(flushed);
  ASSERT_EQ(losses.unwritten.size(), 1u);
  EXPECT_EQ(losses.unwritten[0].second, 3u);
  EXPECT_TRUE(losses.unreachable.empty());
  // A disk that takes them within the budget: nothing lost.
  rig.disk.full = false;
  flushed = rig.keeper.flush_at_stop(std::chrono::seconds(1), milliseconds(200), clock);
  losses = rig.keeper.losses_at_stop(flushed);
  EXPECT_FALSE(losses.any());
  EXPECT_EQ(rig.keeper.unwritten(), 0u);
}

// 5,000 bars through the feed path, then the readers' needs: what compact() keeps.
class KeeperNeeds : public ::testing::Test {
 protected:
  void SetUp() override { rig.batch("S0", 1, 5000); }
  size_t base_after(std::vector<HistoryNeed> needs) {
    SymbolState& s = rig.sym("S0");
    rig.keeper.set_needs(s, needs);
    s.history.compact();
    return s.history.base();
  }
  static HistoryNeed bounded(size_t taken) {
    HistoryNeed n;
    n.bounded = true;
    n.keep = 10;
    n.every = 1;
    n.taken = taken;
    return n;
  }
  KeeperRig rig{1, config::FsyncPolicy::none};
};

TEST_F(KeeperNeeds, BoundedReadersKeepTheirWindowAndOlderBarsComeFromTheLog) {
  EXPECT_EQ(base_after({bounded(5000)}), 4990u);
  // What memory dropped is read from the bar log, bar for bar.
  const std::vector<Bar> old = rig.keeper.bars_between(rig.sym("S0"), 0, 4995);
  ASSERT_EQ(old.size(), 4995u);
  for (size_t t = 0; t < old.size(); ++t) ASSERT_EQ(old[t].ts_ns, static_cast<int64_t>(t + 1));
  EXPECT_EQ(rig.keeper.bar_ts(rig.sym("S0"), 0), 1);
  EXPECT_EQ(rig.keeper.bar_ts(rig.sym("S0"), 4999), 5000);
  EXPECT_EQ(rig.keeper.bar_ts(rig.sym("S0"), 5000), std::nullopt);
}

TEST_F(KeeperNeeds, ALaggingReaderIsKeptOnlyWithinTheLimit) {
  // taken 0: it would need every bar; the limit (keep + 2 * every + 4096) caps it.
  EXPECT_EQ(base_after({bounded(0)}), 5000u - (10 + 2 + kHistoryMargin));
}

TEST_F(KeeperNeeds, SignalsAndLiveOosKeepTheBarsTheyRead) {
  HistoryNeed n = bounded(5000);
  n.last_end = 4800;  // live_oos reads from the bar before the last publication's end
  EXPECT_EQ(base_after({n}), 4799u);
  n.last_end = 0;
  n.signals_from = 4900;
  EXPECT_EQ(base_after({n}), 4900u);
}

TEST_F(KeeperNeeds, AnUnboundedReaderKeepsEverything) {
  HistoryNeed unbounded = bounded(5000);
  unbounded.bounded = false;
  EXPECT_EQ(base_after({bounded(5000), unbounded}), 0u);
}

TEST(BarKeeper, BarsNotInTheLogAreKeptWhateverTheNeeds) {
  KeeperRig rig(1, config::FsyncPolicy::every);
  rig.batch("S0", 1, 4990);
  rig.disk.full = true;
  rig.batch("S0", 4991, 5000);  // pending: only in memory
  HistoryNeed n;
  n.bounded = true;
  n.keep = 5;
  n.taken = 5000;
  rig.keeper.set_needs(rig.sym("S0"), std::vector<HistoryNeed>{n});
  rig.sym("S0").history.compact();
  EXPECT_EQ(rig.sym("S0").history.base(), 4990u);
}

TEST(BarKeeper, AStartLoadsWhatBoundedStreamsNeedAndEverythingOtherwise) {
  config::StrategyConfig a;
  a.symbols = {"S0", "S1"};
  a.window = 100;
  a.warmup = 10;
  a.every = 5;
  config::StrategyConfig b = a;
  b.symbols = {"S0"};
  b.window = 300;
  b.every = 1;
  const std::vector<config::StrategyConfig> strategies{a, b};
  EXPECT_EQ(BarKeeper::bars_to_load(strategies, "S0", true), 312u + 2 * 5 + kHistoryMargin);
  EXPECT_EQ(BarKeeper::bars_to_load(strategies, "S1", true), 112u + 2 * 5 + kHistoryMargin);
  EXPECT_EQ(BarKeeper::bars_to_load(strategies, "S2", true), 0u);  // no stream: all
  EXPECT_EQ(BarKeeper::bars_to_load(strategies, "S0", false), 0u);
  // Robust selection needs no more: a bounded stream answers it from its own window.
  std::vector<config::StrategyConfig> selecting{a, b};
  selecting[1].has_selection = true;
  EXPECT_EQ(BarKeeper::bars_to_load(selecting, "S0", true), 312u + 2 * 5 + kHistoryMargin);
}

}  // namespace
}  // namespace wfod::daemon
