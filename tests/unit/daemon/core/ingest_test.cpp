// Tests of the daemon's batched feed path (daemon/core/ingest.cpp), the reload table
// (reload_plan.cpp), sequence-number reservation and the live state file: what a loop
// batch writes, counts and syncs; future bars; the shutdown's bounded retry of a failing
// disk (stop_flush, with a fake clock); which keys a SIGHUP applies; gaps never repeats.
#include "wfod/daemon/core/ingest.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"
#include "wfod/daemon/core/reload_plan.hpp"
#include "wfod/daemon/store/live_state.hpp"
#include "wfod/daemon/store/sequence_store.hpp"

namespace wfod::daemon {
namespace {

Bar bar(int64_t ts, uint64_t seq = 0) { return Bar{ts, 10, 11, 9, 10.5, 100, seq}; }

struct Fixture {
  explicit Fixture(size_t n, config::FsyncPolicy fsync, FileOps* ops = nullptr)
      : dir("wfod_ingest") {
    BarStoreOptions o;
    o.fsync = fsync;
    o.ops = ops;
    std::vector<IngestTarget> targets;
    series.resize(n);
    for (size_t i = 0; i < n; ++i) {
      std::string name = "S";  // not "S" + ...: GCC 12 -Wrestrict false positive
      name += std::to_string(i);
      names.push_back(name);
      auto opened = BarStore::open(dir.path(), names.back(), o);
      EXPECT_TRUE(opened.ok());
      stores.push_back(std::make_unique<BarStore>(std::move(opened.value().store)));
      targets.push_back({names.back(), stores.back().get(), &series[i]});
    }
    ingest = std::make_unique<Ingest>(std::move(targets), fsync);
  }
  IngestOutcome send(const std::string& symbol, const Bar& b) {
    topic = feeds::encode_topic(symbol);
    payload = feeds::encode_binary(b);
    const std::array<std::string_view, 2> frames = {topic, payload};
    return ingest->on_message(frames, feeds::PayloadFormat::binary);
  }
  test::TempDir dir;
  std::vector<std::string> names;
  std::vector<std::unique_ptr<BarStore>> stores;
  std::vector<SymbolHistory> series;
  std::unique_ptr<Ingest> ingest;
  std::string topic, payload;
};

TEST(Ingest, BatchIsStagedThenWrittenOncePerLog) {
  Fixture f(3, config::FsyncPolicy::none);
  for (int64_t t = 1; t <= 10; ++t) {
    ASSERT_TRUE(f.send("S0", bar(t)).accepted());
    ASSERT_TRUE(f.send("S2", bar(t)).accepted());
  }
  // Staged, not written: the caller must commit before anything can observe them.
  EXPECT_EQ(f.stores[0]->records(), 0u);
  const IngestCommit c = f.ingest->commit();
  ASSERT_EQ(c.touched.size(), 2u);
  EXPECT_EQ(c.touched[0].index, 0u);
  EXPECT_EQ(c.touched[0].bars, 10u);
  EXPECT_EQ(c.touched[1].index, 2u);
  EXPECT_EQ(f.stores[0]->records(), 10u);
  EXPECT_EQ(f.stores[2]->records(), 10u);
  EXPECT_EQ(f.stores[1]->records(), 0u);
  EXPECT_EQ(f.series[0].size(), 10u);
  EXPECT_TRUE(c.failed.empty());
  EXPECT_TRUE(f.ingest->commit().touched.empty());  // nothing new
}

TEST(Ingest, RejectsAreCountedAndNotStaged) {
  Fixture f(1, config::FsyncPolicy::none);
  ASSERT_TRUE(f.send("S0", bar(5, 1)).accepted());
  EXPECT_EQ(f.send("S0", bar(5, 2)).reject->reason, feeds::RejectReason::duplicate);
  EXPECT_EQ(f.send("S0", bar(4, 3)).reject->reason, feeds::RejectReason::out_of_order);
  EXPECT_EQ(f.send("XX", bar(6)).reject->reason, feeds::RejectReason::unknown_symbol);
  const IngestOutcome gap = f.send("S0", bar(7, 9));
  ASSERT_TRUE(gap.accepted());
  ASSERT_TRUE(gap.gap.has_value());
  EXPECT_EQ(gap.gap->missing, 7u);
  const std::array<std::string_view, 1> one = {"bars.S0"};
  EXPECT_EQ(f.ingest->on_message(one, feeds::PayloadFormat::binary).reject->reason,
            feeds::RejectReason::frames);
  (void)f.ingest->commit();
  EXPECT_EQ(f.series[0].size(), 2u);
  EXPECT_EQ(f.stores[0]->records(), 2u);
  const auto& st = f.ingest->validator().stats();
  EXPECT_EQ(st.rejected(feeds::RejectReason::duplicate), 1u);
  EXPECT_EQ(st.rejected(feeds::RejectReason::frames), 1u);
  EXPECT_EQ(st.gaps, 1u);
}

TEST(Ingest, EveryPolicySyncsEachCommitWithOneSyncfsForManyLogs) {
  Fixture f(8, config::FsyncPolicy::every);
  for (size_t s = 0; s < 8; ++s) ASSERT_TRUE(f.send(f.names[s], bar(1)).accepted());
  (void)f.ingest->commit();
  EXPECT_FALSE(f.ingest->has_unsynced());
  EXPECT_EQ(f.ingest->syncfs_calls(), 1u);
  EXPECT_EQ(f.stores[0]->stats().fdatasyncs, 0u);
}

TEST(Ingest, BatchPolicyLeavesYoungRecordsForTheSyncPass) {
  Fixture f(1, config::FsyncPolicy::batch);
  ASSERT_TRUE(f.send("S0", bar(1)).accepted());
  (void)f.ingest->commit();
  EXPECT_TRUE(f.ingest->has_unsynced());  // younger than 50 ms: the timer's pass syncs it
  ASSERT_TRUE(f.ingest->sync_all().ok());
  EXPECT_FALSE(f.ingest->has_unsynced());
  EXPECT_EQ(f.stores[0]->stats().fdatasyncs, 1u);
}

TEST(Ingest, FutureBarIsRejectedAndLaterBarsAreNotOutOfOrder) {
  Fixture f(1, config::FsyncPolicy::none);
  constexpr int64_t kNow = 1'790'000'000'000'000'000;
  f.ingest->validator().set_max_future(std::chrono::seconds(300), [] { return kNow; });
  ASSERT_TRUE(f.send("S0", bar(kNow - 2)).accepted());
  const IngestOutcome far = f.send("S0", bar(9'000'000'000'000'000'000));
  ASSERT_TRUE(far.reject.has_value());
  EXPECT_EQ(far.reject->reason, feeds::RejectReason::future);
  EXPECT_EQ(far.symbol, "S0");
  ASSERT_TRUE(f.send("S0", bar(kNow - 1)).accepted());
  ASSERT_TRUE(f.send("S0", bar(kNow)).accepted());
  (void)f.ingest->commit();
  EXPECT_EQ(f.stores[0]->records(), 3u);  // the future bar never reached the log
  EXPECT_EQ(f.stores[0]->last_ts(), kNow);
  EXPECT_EQ(f.series[0].size(), 3u);
}

// Real files, syncs skipped (counted); writes fail with ENOSPC while `full`, fdatasync with
// EIO while `sync_fails`: a disk that fills, or fails, and may come back.
class FlakyDisk : public PosixFileOps {
 public:
  bool full = false;
  bool sync_fails = false;
  uint64_t writes = 0;

  ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) override {
    ++writes;
    if (full) return fail(ENOSPC);
    return PosixFileOps::pwrite(fd, data, size, offset);
  }
  int fdatasync(int) override { return sync_fails ? fail(EIO) : 0; }
  int fsync(int) override { return 0; }

 private:
  static int fail(int err) {
    errno = err;
    return -1;
  }
};

// stop_flush's time: a fake clock that only moves when slept on; `on_sleep` runs after each
// sleep with the number of sleeps so far (a test repairs its disk there).
struct FakeTime {
  std::chrono::steady_clock::time_point t{};
  int sleeps = 0;
  std::function<void(int)> on_sleep;
  StopClock clock() {
    return {[this] { return t; },
            [this](std::chrono::steady_clock::duration d) {
              t += d;
              ++sleeps;
              if (on_sleep) on_sleep(sleeps);
            }};
  }
};

// Fills S0's log with 5 written bars, then 10 more the full disk refuses (pending).
void fill_then_fail(Fixture& f, FlakyDisk& disk) {
  for (int64_t t = 1; t <= 5; ++t) ASSERT_TRUE(f.send("S0", bar(t)).accepted());
  ASSERT_TRUE(f.send("S1", bar(1)).accepted());
  ASSERT_TRUE(f.ingest->commit().failed.empty());
  disk.full = true;
  for (int64_t t = 6; t <= 15; ++t) ASSERT_TRUE(f.send("S0", bar(t)).accepted());
  ASSERT_EQ(f.ingest->commit().failed.size(), 1u);
  ASSERT_EQ(f.stores[0]->pending(), 10u);
}

TEST(IngestStopFlush, RetriesUntilTheDiskTakesEveryBar) {
  FlakyDisk disk;
  Fixture f(2, config::FsyncPolicy::every, &disk);
  fill_then_fail(f, disk);
  FakeTime time;
  time.on_sleep = [&disk](int n) {
    if (n == 3) disk.full = false;  // space returns after the third retry interval
  };
  const StopFlush r =
      f.ingest->stop_flush(std::chrono::seconds(5), std::chrono::milliseconds(200), time.clock());
  EXPECT_TRUE(r.lost.empty());
  EXPECT_EQ(r.lost_bars(), 0u);
  EXPECT_EQ(r.attempts, 4u);
  EXPECT_EQ(time.sleeps, 3);
  EXPECT_TRUE(f.stores[0]->healthy());
  EXPECT_EQ(f.stores[0]->records(), 15u);
  EXPECT_FALSE(f.ingest->has_unsynced());  // written and synced
  EXPECT_EQ(std::filesystem::file_size(f.stores[0]->path()), 32u + 15 * 64);
}

TEST(IngestStopFlush, GivesUpAfterItsBudgetAndNamesWhatIsLeft) {
  FlakyDisk disk;
  Fixture f(2, config::FsyncPolicy::batch, &disk);
  fill_then_fail(f, disk);
  FakeTime time;
  const uint64_t writes_before = disk.writes;
  const StopFlush r =
      f.ingest->stop_flush(std::chrono::seconds(1), std::chrono::milliseconds(200), time.clock());
  // Passes at 0, 200, ... 1000 ms: six, then it stops, exactly at the budget.
  EXPECT_EQ(r.attempts, 6u);
  EXPECT_EQ(time.t.time_since_epoch(), std::chrono::seconds(1));
  EXPECT_EQ(disk.writes - writes_before, 6u);  // one write per pass for the failing log
  ASSERT_EQ(r.lost.size(), 1u);
  EXPECT_EQ(r.lost[0].first, 0u);
  EXPECT_EQ(r.lost[0].second, 10u);
  EXPECT_EQ(r.lost_bars(), 10u);
  EXPECT_EQ(f.stores[0]->pending(), 10u);  // still queued, not dropped by stop_flush
  EXPECT_EQ(f.stores[0]->records(), 5u);
  EXPECT_TRUE(f.stores[1]->healthy());
}

TEST(IngestStopFlush, NoBudgetMeansOnePass) {
  FlakyDisk disk;
  Fixture f(2, config::FsyncPolicy::none, &disk);
  fill_then_fail(f, disk);
  FakeTime time;
  const StopFlush r =
      f.ingest->stop_flush(std::chrono::seconds(0), std::chrono::milliseconds(200), time.clock());
  EXPECT_EQ(r.attempts, 1u);
  EXPECT_EQ(time.sleeps, 0);
  EXPECT_EQ(r.lost_bars(), 10u);
  // A healthy disk needs one pass, with or without budget.
  disk.full = false;
  const StopFlush ok =
      f.ingest->stop_flush(std::chrono::seconds(5), std::chrono::milliseconds(200), time.clock());
  EXPECT_EQ(ok.attempts, 1u);
  EXPECT_TRUE(ok.lost.empty());
  EXPECT_EQ(f.stores[0]->records(), 15u);
}

TEST(IngestStopFlush, StagedBarsAndAFailedSyncAreWrittenAgain) {
  FlakyDisk disk;
  Fixture f(1, config::FsyncPolicy::every, &disk);
  // Staged, never committed (SIGTERM in the middle of a batch), and the sync fails once.
  for (int64_t t = 1; t <= 7; ++t) ASSERT_TRUE(f.send("S0", bar(t)).accepted());
  disk.sync_fails = true;
  FakeTime time;
  time.on_sleep = [&disk](int) { disk.sync_fails = false; };
  const StopFlush r =
      f.ingest->stop_flush(std::chrono::seconds(5), std::chrono::milliseconds(200), time.clock());
  EXPECT_TRUE(r.lost.empty());
  EXPECT_EQ(r.attempts, 2u);
  EXPECT_EQ(f.stores[0]->records(), 7u);
  EXPECT_FALSE(f.ingest->has_unsynced());
  EXPECT_EQ(std::filesystem::file_size(f.stores[0]->path()), 32u + 7 * 64);
}

TEST(SequenceReserve, CrashSkipsTheReservedBlockCloseSkipsNothing) {
  test::TempDir dir("wfod_seq_reserve");
  SequenceStoreOptions o;
  o.reserve = 4;
  {
    auto s = SequenceStore::open(dir.path(), o);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s.value().reserve_all({{"A", "x"}}).ok());
    EXPECT_EQ(s.value().next("A", "x").value(), 1u);
    EXPECT_EQ(s.value().next("A", "x").value(), 2u);
    // No close(): a crash. The file holds the reservation, 4.
  }
  {
    auto s = SequenceStore::open(dir.path(), o);
    EXPECT_EQ(s.value().next("A", "x").value(), 5u);  // a gap, never a repeat
    ASSERT_TRUE(s.value().close().ok());
  }
  auto s = SequenceStore::open(dir.path(), o);
  EXPECT_EQ(s.value().next("A", "x").value(), 6u);  // a clean stop skips nothing
}

TEST(LiveState, RoundTripsAndRefusesACorruptFile) {
  test::TempDir dir("wfod_live_state");
  auto store = LiveStateStore::open(dir.path(), config::FsyncPolicy::batch);
  ASSERT_TRUE(store.ok());
  EXPECT_FALSE(store.value().load("BTC/USD", "trend").value().has_value());
  LiveState st{0xdeadbeef, 42, 1000, 7, 3, R"({"schema":1})"};
  ASSERT_TRUE(store.value().save("BTC/USD", "trend", st).ok());
  auto back = store.value().load("BTC/USD", "trend");
  ASSERT_TRUE(back.ok() && back.value().has_value());
  EXPECT_EQ(back.value()->fingerprint, 0xdeadbeefu);
  EXPECT_EQ(back.value()->seq, 42u);
  EXPECT_EQ(back.value()->end, 1000u);
  EXPECT_EQ(back.value()->winner, 7u);
  EXPECT_EQ(back.value()->before, std::optional<uint64_t>(3));
  EXPECT_EQ(back.value()->payload, st.payload);
  // One flipped byte: the CRC catches it, and the error names the file.
  const std::string path = store.value().path("BTC/USD", "trend");
  {
    std::FILE* file = std::fopen(path.c_str(), "r+b");
    ASSERT_NE(file, nullptr);
    std::fseek(file, 20, SEEK_SET);
    std::fputc('9', file);
    std::fclose(file);
  }
  auto bad = store.value().load("BTC/USD", "trend");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(path), std::string::npos);
}

TEST(ReloadPlan, NamesLiveAndRestartKeys) {
  config::Config a;
  config::FeedConfig feed;
  feed.endpoint = "tcp://x:1";
  a.feeds.push_back(feed);
  config::SymbolConfig btc;
  btc.name = "BTC";
  a.symbols.push_back(btc);
  config::Config b = a;
  EXPECT_TRUE(plan_reload(a, b).live.empty());
  EXPECT_TRUE(plan_reload(a, b).restart.empty());
  b.daemon.log_level = "debug";
  b.daemon.max_future_s = 0;
  b.daemon.stop_retry_s = 20;
  b.publish.http = "";
  b.publish.sndhwm = 5;
  b.feeds[0].rcvhwm = 7;
  config::SymbolConfig eth;
  eth.name = "ETH";
  b.symbols.push_back(eth);
  const ReloadPlan p = plan_reload(a, b);
  EXPECT_EQ(join_keys(p.live),
            "daemon.log_level, daemon.max_future_s, daemon.stop_retry_s, publish.http");
  EXPECT_EQ(join_keys(p.restart), "publish.sndhwm, feed[0].rcvhwm, symbol[ETH] (added)");
}

}  // namespace
}  // namespace wfod::daemon
