// Tests of the publication rules (daemon/core/publisher.cpp, PROTOCOL §2 and §2a): what
// withholds a publication (selection, a window behind the last published one, bars not
// persisted, no sequence number), and the order of what goes out (sequence number on disk,
// then the signals, then the send, then the top-up and the last publication). Fakes: a
// store and sequence numbers that fail on demand, a sink that records, a settable clock;
// one test uses the real SequenceStore to see the number in publications.seq at the send.
#include "wfod/daemon/core/publisher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/publisher_fakes.hpp"
#include "support/temp_dir.hpp"
#include "wfod/daemon/store/sequence_store.hpp"

namespace wfod::daemon {
namespace {

using test::FakeNumbers;
using test::Journal;
using test::RecordingEvents;
using test::RecordingSink;

using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

const PublicationKey kKey{"BTCUSD", "trend"};

class FakeStore final : public PublishStore {
 public:
  explicit FakeStore(Journal& journal) : journal_(journal) {}
  bool healthy() const override { return healthy_; }
  Status flush() override {
    journal_.push_back("flush");
    ++flushes;
    if (flush_heals) healthy_ = true;
    if (flush_error) return IoError{5, *flush_error};
    return {};
  }
  bool has_unsynced() const override { return unsynced; }
  std::optional<IoError> last_error() const override {
    if (error) return IoError{28, *error};
    return std::nullopt;
  }

  bool healthy_ = true;
  bool flush_heals = false;
  bool unsynced = false;
  int flushes = 0;
  std::optional<std::string> flush_error;
  std::optional<std::string> error;

 private:
  Journal& journal_;
};

class PublisherTest : public ::testing::Test {
 protected:
  // `build` journals the call, so a test sees whether the payload was even made.
  std::optional<Publisher::Sent> publish(int64_t window_last_ts = 1000,
                                         std::optional<std::string> withheld = std::nullopt) {
    Publisher::Run run{std::move(withheld), window_last_ts};
    return publisher.publish(
        kKey, run, store,
        [&](uint64_t seq) {
          journal.push_back("build " + std::to_string(seq));
          return Publisher::Payload{"payload " + std::to_string(seq), 42 + int64_t(seq)};
        },
        [&] {
          journal.push_back("signals");
          if (send_signal) (void)publisher.send("signal.BTCUSD.trend", "signal");
        });
  }
  // The newest event ("" when none: a broken rule must fail the test, not crash it).
  std::string last_line() const { return events.lines.empty() ? "" : events.lines.back(); }
  size_t count(const std::string& entry) const {
    return static_cast<size_t>(std::count(journal.begin(), journal.end(), entry));
  }

  Journal journal;
  FakeStore store{journal};
  FakeNumbers numbers{journal};
  RecordingSink sink{journal};
  RecordingEvents events;
  Clock::time_point now = Clock::time_point{} + seconds(1000);
  StorageAlarms alarms{2, seconds(10)};
  Publisher publisher{numbers, sink, alarms, events, [this] { return now; }};
  bool send_signal = false;
};

TEST_F(PublisherTest, PublishesInOrderSeqThenSignalsThenSendThenTopUp) {
  const auto sent = publish();
  ASSERT_TRUE(sent.has_value());
  EXPECT_EQ(sent->seq, 1u);
  EXPECT_EQ(sent->topic, "params.BTCUSD.trend");
  EXPECT_EQ(sent->payload, "payload 1");
  EXPECT_EQ(sent->at, now);
  EXPECT_EQ(journal, (Journal{"next", "build 1", "signals", "send params.BTCUSD.trend", "top_up"}));
  ASSERT_EQ(sink.sent.size(), 1u);
  EXPECT_EQ(sink.sent[0],
            std::make_pair(std::string("params.BTCUSD.trend"), std::string("payload 1")));
  EXPECT_TRUE(events.lines.empty());
  EXPECT_EQ(publisher.dropped(), 0u);
}

TEST_F(PublisherTest, SelectionWithholdingSendsNothingAndTakesNoNumber) {
  EXPECT_FALSE(publish(1000, "no_robust_combo").has_value());
  EXPECT_TRUE(journal.empty());  // no flush, no number, no payload, no signals, no send
  EXPECT_EQ(events.lines, (std::vector<std::string>{"selection no_robust_combo"}));
  EXPECT_TRUE(publisher.last().empty());
}

TEST_F(PublisherTest, WithheldWhileTheWindowEndsBeforeTheLastPublishedOne) {
  ASSERT_TRUE(publish(1000));
  journal.clear();
  EXPECT_FALSE(publish(900));  // bars were lost: the history ends before the last window
  EXPECT_FALSE(publish(950));
  EXPECT_TRUE(journal.empty());  // no number taken, nothing sent
  // Reported once when it starts, not per run.
  EXPECT_EQ(events.lines, (std::vector<std::string>{"behind 900 < 1000"}));
  const auto sent = publish(1000);  // reaching the last published window's end is enough
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->seq, 2u);
  EXPECT_EQ(events.lines, (std::vector<std::string>{"behind 900 < 1000", "caught_up"}));
}

TEST_F(PublisherTest, TheFloorComesFromTheRestoredStateAndSurvivesForget) {
  publisher.restore(kKey, LastPublication{7, "saved", 5}, 2000);
  EXPECT_EQ(publisher.last().at(kKey).seq, 7u);
  publisher.restore(kKey, LastPublication{7, "saved", 5}, std::nullopt);  // ts unknown: kept
  EXPECT_FALSE(publish(1999));
  publisher.forget(kKey);  // a reload removed the stream: no snapshot, the floor stays
  EXPECT_TRUE(publisher.last().empty());
  EXPECT_FALSE(publish(1999));
  EXPECT_EQ(events.lines, (std::vector<std::string>{"behind 1999 < 2000"}));
  publisher.stream_started(kKey);  // the stream (re)started: the episode is reported afresh
  EXPECT_FALSE(publish(1999));
  EXPECT_EQ(events.lines, (std::vector<std::string>{"behind 1999 < 2000", "behind 1999 < 2000"}));
  EXPECT_TRUE(publish(2000));
}

TEST_F(PublisherTest, NothingSentWhileTheBarsCannotBePersisted) {
  store.healthy_ = false;  // accepted bars queued in memory: the disk refuses them
  store.error = "write bars/BTCUSD.wfb: No space left on device";
  EXPECT_FALSE(publish());
  EXPECT_EQ(journal, (Journal{"flush"}));  // tried once, then nothing: no number, no send
  EXPECT_TRUE(sink.sent.empty());
  EXPECT_EQ(
      events.lines,
      (std::vector<std::string>{"not_persisted write bars/BTCUSD.wfb: No space left on device 0"}));

  // The flush reports success but the store is still unhealthy (a lost file): withheld too.
  store.error.reset();
  EXPECT_FALSE(publish());
  EXPECT_EQ(last_line(), "not_persisted disk error 0");

  // The flush writes the backlog: published in the same call.
  store.flush_heals = true;
  journal.clear();
  const auto sent = publish();
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->seq, 1u);
  EXPECT_EQ(journal,
            (Journal{"flush", "next", "build 1", "signals", "send params.BTCUSD.trend", "top_up"}));
}

TEST_F(PublisherTest, AFlushErrorWithholdsEvenIfTheStoreLooksHealthyAfter) {
  store.healthy_ = false;
  store.flush_heals = true;
  store.flush_error = "fdatasync bars/BTCUSD.wfb: Input/output error";
  EXPECT_FALSE(publish());
  EXPECT_TRUE(sink.sent.empty());
  EXPECT_EQ(count("next"), 0u);
}

TEST_F(PublisherTest, NotPersistedLinesShareTheStorageRateLimit) {
  store.healthy_ = false;
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(publish());
  EXPECT_EQ(events.lines.size(), 2u);  // 2 per 10 s
  now += seconds(11);
  EXPECT_FALSE(publish());
  ASSERT_EQ(events.lines.size(), 3u);
  EXPECT_EQ(last_line(), "not_persisted disk error 3");  // the 3 left out
}

TEST_F(PublisherTest, NoSequenceNumberWithholdsRaisesTheAlarmAndReportsUnderTheLimit) {
  numbers.fail_next = true;
  for (int i = 0; i < 6; ++i) EXPECT_FALSE(publish());
  EXPECT_TRUE(sink.sent.empty());
  EXPECT_EQ(count("build 1"), 0u);
  EXPECT_EQ(count("signals"), 0u);  // the signals wait with the publication
  EXPECT_EQ(count("top_up"), 0u);
  ASSERT_TRUE(alarms.raised("publications.seq"));
  EXPECT_EQ(*alarms.message("publications.seq"),
            "no publication sequence number: write publications.seq.tmp: No space left on device");
  // The first is always said; the repeats under the shared limit (2 per 10 s).
  const std::string line = "no_seq write publications.seq.tmp: No space left on device ";
  EXPECT_EQ(events.lines, (std::vector<std::string>{line + "0", line + "0", line + "0"}));
  now += seconds(11);
  EXPECT_FALSE(publish());
  EXPECT_EQ(last_line(), line + "3");

  numbers.fail_next = false;
  const auto sent = publish();
  ASSERT_TRUE(sent);
  EXPECT_EQ(sent->seq, 1u);  // nothing was handed out while it failed
  EXPECT_FALSE(alarms.raised("publications.seq"));
  EXPECT_EQ(last_line(), "seq_back");
  EXPECT_TRUE(publish());
  EXPECT_EQ(last_line(), "seq_back");  // said once
}

TEST_F(PublisherTest, SignalsOfTheEarlierBarsGoBeforeThePublication) {
  send_signal = true;
  ASSERT_TRUE(publish());
  ASSERT_EQ(sink.sent.size(), 2u);
  EXPECT_EQ(sink.sent[0].first, "signal.BTCUSD.trend");
  EXPECT_EQ(sink.sent[1].first, "params.BTCUSD.trend");
}

TEST_F(PublisherTest, ARefusedSendIsCountedNeverWaitedForAndUsesItsNumber) {
  sink.refuse = true;  // the PUB at its high-water mark for every subscriber: EAGAIN
  send_signal = true;
  const auto sent = publish();
  ASSERT_TRUE(sent);  // the number is used: PROTOCOL §2 lets subscribers lose messages
  EXPECT_EQ(publisher.dropped(), 2u);  // the signal and the publication
  EXPECT_TRUE(events.lines.empty());   // a refusal is not an error
  EXPECT_EQ(publisher.last().at(kKey).seq, 1u);
  EXPECT_EQ(count("top_up"), 1u);

  sink.refuse = false;
  sink.error = "Operation not supported";
  send_signal = false;
  ASSERT_TRUE(publish());
  EXPECT_EQ(publisher.dropped(), 3u);
  EXPECT_EQ(events.lines, (std::vector<std::string>{"send_failed Operation not supported"}));
  EXPECT_EQ(publisher.send("signal.BTCUSD.trend", "x"), "Operation not supported");
  EXPECT_EQ(publisher.dropped(), 4u);
}

TEST_F(PublisherTest, TheLastPublicationChangesOnlyAfterTheSend) {
  publisher.restore(kKey, LastPublication{3, "older", 9}, 500);
  std::optional<uint64_t> seen_at_send;
  sink.on_send = [&](std::string_view, std::string_view) {
    seen_at_send = publisher.last().at(kKey).seq;
  };
  numbers.last = 3;
  ASSERT_TRUE(publish(1000));
  EXPECT_EQ(seen_at_send, 3u);  // a snapshot during the send still answers the older one
  const LastPublication& last = publisher.last().at(kKey);
  EXPECT_EQ(last.seq, 4u);
  EXPECT_EQ(last.payload, "payload 4");
  EXPECT_EQ(last.published_ns, 46);
}

TEST_F(PublisherTest, ATopUpFailureIsReportedUnderTheLimitAndThePublicationStands) {
  numbers.fail_top_up = true;
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(publish());
  EXPECT_EQ(sink.sent.size(), 4u);
  ASSERT_EQ(events.lines.size(), 2u);
  EXPECT_EQ(events.lines[0], "top_up_failed write publications.seq.tmp: No space left on device 0");
  EXPECT_FALSE(alarms.raised("publications.seq"));  // next() still had numbers
}

TEST(PublisherSyncGate, AResultWaitsForTheSyncPassOnlyWhenBarsAreUnsyncedAndSyncIsOn) {
  Journal journal;
  FakeStore store(journal);
  store.unsynced = true;
  EXPECT_TRUE(Publisher::awaits_sync(config::FsyncPolicy::batch, store));
  EXPECT_TRUE(Publisher::awaits_sync(config::FsyncPolicy::every, store));
  EXPECT_FALSE(Publisher::awaits_sync(config::FsyncPolicy::none, store));  // written = persisted
  store.unsynced = false;
  EXPECT_FALSE(Publisher::awaits_sync(config::FsyncPolicy::batch, store));
  EXPECT_FALSE(Publisher::awaits_sync(config::FsyncPolicy::every, store));
}

// The daemon's own SequenceStore behind the seam: the number a subscriber receives is already
// in publications.seq when the message is sent.
class StoreNumbers final : public PublicationNumbers {
 public:
  explicit StoreNumbers(SequenceStore& s) : s_(s) {}
  Result<uint64_t> next(std::string_view a, std::string_view b) override { return s_.next(a, b); }
  Status top_up(std::string_view a, std::string_view b) override { return s_.top_up(a, b); }

 private:
  SequenceStore& s_;
};

TEST(PublisherSequenceStore, TheNumberIsOnDiskBeforeTheSend) {
  test::TempDir dir("wfod_publisher");
  auto opened = SequenceStore::open(dir.path());
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  SequenceStore seqs = std::move(opened).value();
  StoreNumbers numbers(seqs);
  Journal journal;
  FakeStore store(journal);
  RecordingSink sink(journal);
  RecordingEvents events;
  StorageAlarms alarms(20, seconds(10));
  Publisher publisher(numbers, sink, alarms, events);
  std::vector<std::string> file_at_send;
  sink.on_send = [&](std::string_view, std::string_view) {
    std::ifstream in(seqs.path());
    file_at_send.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  auto build = [](uint64_t seq) { return Publisher::Payload{std::to_string(seq), 0}; };
  for (uint64_t want = 1; want <= 3; ++want) {
    const auto sent = publisher.publish(kKey, {std::nullopt, 1000}, store, build, {});
    ASSERT_TRUE(sent);
    EXPECT_EQ(sent->seq, want);
    EXPECT_NE(file_at_send.back().find("BTCUSD trend " + std::to_string(want) + "\n"),
              std::string::npos)
        << file_at_send.back();
  }
}

}  // namespace
}  // namespace wfod::daemon
