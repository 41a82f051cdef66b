// Tests of the signals' gate (daemon/core/signal_gate.cpp, PROTOCOL §2a): no signal before its
// bar is durable (after the sync pass under fsync = batch, after the disk takes it when it
// was full); each bar once and in order; a run in flight holds its window's last bar, whose
// signal then follows the combo of that run's publication; bars memory dropped are read
// from the bar log, and a log that cannot be read stops the signals until the next
// publication; a refused send is counted and the rest still go; signals off sends nothing;
// a stream resumed at start follows its winner from the newest bar. Over a BarKeeper on real
// logs (tests/support/keeper_rig.hpp), the real Publisher on a recording socket, and
// positions checked against the cpu backend's.
#include "wfod/daemon/core/signal_gate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/keeper_rig.hpp"
#include "support/parts_fakes.hpp"
#include "support/publisher_fakes.hpp"
#include "support/series.hpp"

namespace wfod::daemon {
namespace {

using test::Journal;
using test::SignalRecorder;

// A signal as it went out.
struct Sent {
  int64_t ts = 0;
  int position = 0;
  uint64_t id = 0, params_seq = 0;
};

// One stream (S0.trend) over a keeper whose commits and sync passes call the gate as the
// daemon does: ready() per stream of a committed symbol, ready_all() after each sync pass.
class GateRig {
 public:
  explicit GateRig(config::FsyncPolicy fsync, bool enabled = true)
      : rig(1, fsync), gate(enabled, rig.keeper, publisher, events) {
    cfg.name = "trend";
    cfg.symbols = {"S0"};
    Grid& g = cfg.spec.grid;
    g.family = Family::ma_cross;
    g.fast = {3, 5};
    g.slow = {20};
    g.ma = {MaType::ema};
    g.entry = {Entry::cross};
    g.side = {Side::long_short};
    cfg.window = 50;
    cfg.every = 10;
    rig.recorder.on_committed = [this](SymbolState& sym, size_t) {
      for_each_stream_of(streams, sym.cfg.name,
                         [this](const PublicationKey& k, SymbolStrategy& s) { gate.ready(k, s); });
    };
    rig.recorder.on_synced = [this] { gate.ready_all(streams); };
  }

  // The stream, made now: its signals start at the next bar accepted.
  SymbolStrategy& add_stream() {
    return streams.insert_or_assign(key, new_stream(cfg, rig.sym("S0"), 1)).first->second;
  }
  // The worker's fork: `combo`'s tracker over bars [0, end) of the series.
  PositionTracker tracker(uint64_t combo, size_t end) const {
    PositionTracker t(stream().spec, stream().spec.grid.decode(combo));
    std::vector<Bar> bars;
    for (size_t i = 0; i < end; ++i)
      bars.push_back(Bar{series.ts_ns[i], series.open[i], series.high[i], series.low[i],
                         series.close[i], 0, 0});
    if (end == 0) return t;
    t.append(bars);
    return t.fork(kSignalTrackerKeep);
  }
  // Combo 0 of publication 1 from the first bar on (as a publication before the history
  // began would leave it).
  void follow_from_start() { stream().signals.adopt(tracker(0, 0), 1, 0); }
  // Publication `seq` of `combo` over bars [0, end), as the daemon follows it.
  void publish(uint64_t combo, size_t end, uint64_t seq) {
    std::optional<PositionTracker> t = tracker(combo, end);
    gate.follow_published(key, stream(), t, "", end, seq);
  }
  std::vector<Sent> sent() const {
    std::vector<Sent> out;
    for (const auto& [topic, payload] : sink.sent) {
      EXPECT_EQ(topic, "signal.S0.trend");
      const auto j = nlohmann::json::parse(payload);
      out.push_back({j["ts"].get<int64_t>(), j["position"].get<int>(), j["id"].get<uint64_t>(),
                     j["params_seq"].get<uint64_t>()});
    }
    return out;
  }
  // Every signal of bars [first, end) is there, in order, with `combo`'s positions.
  void expect_signals(const std::vector<Sent>& got, size_t from_index, size_t first, size_t end,
                      uint64_t combo, uint64_t seq) const {
    auto cpu = make_backend("cpu");
    const std::vector<int8_t> p = cpu->positions(HistoryView::of(series).prefix(end), stream().spec,
                                                 stream().spec.grid.decode(combo));
    ASSERT_GE(got.size(), from_index + (end - first));
    for (size_t t = first; t < end; ++t) {
      const Sent& s = got[from_index + (t - first)];
      ASSERT_EQ(s.ts, series.ts_ns[t]) << "bar " << t;
      EXPECT_EQ(s.position, p[t]) << "bar " << t;
      EXPECT_EQ(s.id, combo);
      EXPECT_EQ(s.params_seq, seq);
    }
  }
  SymbolStrategy& stream() { return streams.at(key); }
  const SymbolStrategy& stream() const { return streams.at(key); }

  const Series series = test::random_walk(6000, 7);
  const PublicationKey key{"S0", "trend"};
  config::StrategyConfig cfg;
  test::KeeperRig rig;
  test::FakeNumbers numbers{rig.journal};
  test::RecordingSink sink{rig.journal};
  test::RecordingEvents publisher_events;
  StorageAlarms alarms{20, std::chrono::seconds(10)};
  Publisher publisher{numbers, sink, alarms, publisher_events};
  SignalRecorder events;
  SignalGate gate;
  StreamMap streams;
};

size_t first_send(const Journal& j) {
  const auto it = std::find(j.begin(), j.end(), "send signal.S0.trend");
  return static_cast<size_t>(it - j.begin());
}

TEST(SignalGate, NoSignalBeforeItsBarIsSynced) {
  GateRig g(config::FsyncPolicy::batch);
  g.add_stream();
  g.follow_from_start();
  g.rig.feed("S0", g.series, 0, 30);
  EXPECT_TRUE(g.sink.sent.empty());  // written, not synced
  ASSERT_TRUE(g.rig.sync_timer.fire());
  const std::vector<Sent> got = g.sent();
  ASSERT_EQ(got.size(), 30u);
  g.expect_signals(got, 0, 0, 30, 0, 1);
  const Journal& j = g.rig.journal;
  EXPECT_LT(std::find(j.begin(), j.end(), "fdatasync") - j.begin(),
            static_cast<std::ptrdiff_t>(first_send(j)));
}

TEST(SignalGate, EachBarOnceAndInOrderAcrossBatches) {
  GateRig g(config::FsyncPolicy::none);
  g.add_stream();
  g.follow_from_start();
  g.rig.feed("S0", g.series, 0, 10);
  g.rig.feed("S0", g.series, 10, 25);
  g.gate.ready_all(g.streams);  // nothing new: nothing sent twice
  g.rig.feed("S0", g.series, 25, 40);
  const std::vector<Sent> got = g.sent();
  ASSERT_EQ(got.size(), 40u);
  g.expect_signals(got, 0, 0, 40, 0, 1);
}

TEST(SignalGate, ARunHoldsItsLastBarWhoseSignalFollowsItsPublication) {
  GateRig g(config::FsyncPolicy::none);
  g.add_stream();
  g.follow_from_start();
  g.stream().signals.hold(20);  // a run over bars [0, 20) publishes at bar 19
  g.rig.feed("S0", g.series, 0, 30);
  ASSERT_EQ(g.sent().size(), 19u);  // bars 0..18, with combo 0
  // Its publication chose combo 1: bar 19 on follows it.
  g.publish(1, 20, 2);
  g.stream().signals.release(20);
  g.gate.ready(g.key, g.stream());
  const std::vector<Sent> got = g.sent();
  ASSERT_EQ(got.size(), 30u);
  g.expect_signals(got, 0, 0, 19, 0, 1);
  g.expect_signals(got, 19, 19, 30, 1, 2);
}

TEST(SignalGate, BarsTheDiskRefusesWaitUntilTheyAreWritten) {
  GateRig g(config::FsyncPolicy::every);
  g.add_stream();
  g.follow_from_start();
  g.rig.feed("S0", g.series, 0, 10);
  ASSERT_EQ(g.sent().size(), 10u);
  g.rig.disk.full = true;
  g.rig.feed("S0", g.series, 10, 15);
  EXPECT_EQ(g.sent().size(), 10u);
  ASSERT_TRUE(g.rig.sync_timer.fire());  // still full: retried, nothing more
  EXPECT_EQ(g.sent().size(), 10u);
  g.rig.disk.full = false;
  ASSERT_TRUE(g.rig.sync_timer.fire());
  const std::vector<Sent> got = g.sent();
  ASSERT_EQ(got.size(), 15u);
  g.expect_signals(got, 0, 0, 15, 0, 1);
}

// A follower held by a long run while 5,000 bars came: memory keeps at most its limit, the
// rest is read back from the bar log.
class SignalGateFlood : public ::testing::Test {
 protected:
  void SetUp() override {
    SymbolStrategy& s = g.add_stream();
    g.follow_from_start();
    s.signals.hold(1);  // holds every bar
    g.rig.feed("S0", g.series, 0, 5000);
    ASSERT_TRUE(g.sent().empty());
    s.bounded = true;
    s.taken = 5000;
    SymbolState& sym = g.rig.sym("S0");
    g.rig.keeper.set_needs(sym, history_needs(g.streams, "S0"));
    sym.history.compact();
    ASSERT_GT(sym.history.base(), 0u);
    s.signals.release(1);
  }
  GateRig g{config::FsyncPolicy::none};
};

TEST_F(SignalGateFlood, BarsMemoryDroppedAreReadFromTheLog) {
  g.gate.ready(g.key, g.stream());
  const std::vector<Sent> got = g.sent();
  ASSERT_EQ(got.size(), 5000u);
  g.expect_signals(got, 0, 0, 5000, 0, 1);
}

TEST_F(SignalGateFlood, AnUnreadableLogStopsTheSignalsUntilTheNextPublication) {
  std::filesystem::remove(g.rig.sym("S0").store->path());
  g.gate.ready(g.key, g.stream());
  EXPECT_TRUE(g.sink.sent.empty());
  EXPECT_EQ(g.events.lines, (std::vector<std::string>{"stopped 0"}));
  EXPECT_FALSE(g.stream().signals.following());
  g.publish(1, 5000, 2);  // the next publication: signals from its last bar on
  g.gate.ready(g.key, g.stream());
  const std::vector<Sent> got = g.sent();
  ASSERT_EQ(got.size(), 1u);
  g.expect_signals(got, 0, 4999, 5000, 1, 2);
}

TEST(SignalGate, ARefusedSignalIsCountedAndTheRestStillGo) {
  GateRig g(config::FsyncPolicy::none);
  g.add_stream();
  g.follow_from_start();
  int n = 0;
  g.sink.on_send = [&](std::string_view, std::string_view) { g.sink.refuse = ++n == 3; };
  g.rig.feed("S0", g.series, 0, 5);
  EXPECT_EQ(g.sink.sent.size(), 4u);
  EXPECT_EQ(g.publisher.dropped(), 1u);
  EXPECT_TRUE(g.events.lines.empty());  // a refusal is counted, not logged
  g.sink.on_send = nullptr;
  g.sink.error = "Operation cannot be accomplished in current state";
  g.rig.feed("S0", g.series, 5, 6);
  EXPECT_EQ(
      g.events.lines,
      (std::vector<std::string>{"send_failed Operation cannot be accomplished in current state"}));
}

TEST(SignalGate, APublicationWithoutItsPositionsStopsTheSignalsAndSaysWhy) {
  GateRig g(config::FsyncPolicy::none);
  g.add_stream();
  g.follow_from_start();
  g.rig.feed("S0", g.series, 0, 30);
  std::optional<PositionTracker> none;
  g.gate.follow_published(g.key, g.stream(), none, "the stream is not open", 30, 2);
  EXPECT_FALSE(g.stream().signals.following());
  std::optional<PositionTracker> early = g.tracker(1, 25);  // not at the window's end
  g.gate.follow_published(g.key, g.stream(), early, "", 30, 3);
  EXPECT_EQ(g.events.lines,
            (std::vector<std::string>{"unknown 2 the stream is not open",
                                      "unknown 3 its tracker is not at the window's end"}));
  g.rig.feed("S0", g.series, 30, 40);
  EXPECT_EQ(g.sent().size(), 30u);  // nothing after the stop
}

TEST(SignalGate, SignalsOffSendNothing) {
  GateRig g(config::FsyncPolicy::none, /*enabled=*/false);
  g.add_stream();
  g.publish(0, 30, 1);  // the gate does not follow publications
  EXPECT_FALSE(g.stream().signals.following());
  g.follow_from_start();  // even a follower set by hand
  g.rig.feed("S0", g.series, 0, 10);
  g.gate.send(g.key, g.stream(), 10);
  EXPECT_TRUE(g.sink.sent.empty());
}

TEST(SignalGate, AStreamResumedAtStartFollowsItsWinnerFromTheNewestBar) {
  GateRig g(config::FsyncPolicy::none);
  g.rig.feed("S0", g.series, 0, 300);
  SymbolStrategy& s = g.add_stream();  // as a start makes it: after the log's bars
  s.winner = s.spec.grid.decode(1);
  s.last_seq = 7;
  auto cpu = make_backend("cpu");
  const SymbolState& sym = g.rig.sym("S0");
  const HistorySnapshot snap = sym.history.snapshot();
  s.slot->open_from(*cpu, stream_spec_of(request_for(s, snap.end, config::DaemonConfig{})), snap,
                    sym.store->path());
  g.gate.follow_at_start(g.streams);
  EXPECT_EQ(g.events.lines, (std::vector<std::string>{"following 1 7 300"}));
  g.rig.feed("S0", g.series, 300, 320);
  const std::vector<Sent> got = g.sent();
  ASSERT_EQ(got.size(), 20u);  // none of the bars from before the start
  g.expect_signals(got, 0, 300, 320, 1, 7);
}

}  // namespace
}  // namespace wfod::daemon
