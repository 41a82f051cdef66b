// Tests of a run's publication step (daemon/core/publication_step.cpp, PROTOCOL §2): the
// payload's window, changed, live_oos (only after a publication of the stream), position
// (only from a tracker at the window's end), backend and config_version; the stream's new
// state, its signals' combo and its saved live state only once the publication went out;
// nothing at all when the Publisher withholds it. Over the BarKeeper rig, the real
// Publisher and SignalGate on a recording socket, a recording live-state sink.
#include "wfod/daemon/core/publication_step.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/keeper_rig.hpp"
#include "support/parts_fakes.hpp"
#include "support/publisher_fakes.hpp"

namespace wfod::daemon {
namespace {

using test::SignalRecorder;

class LiveStates final : public LiveStateSink {
 public:
  void save(const PublicationKey&, LiveState state) override { saved.push_back(std::move(state)); }
  std::vector<LiveState> saved;
};

class PublishedLines final : public PublicationStepEvents {
 public:
  void published(const PublicationKey&, const Published& p) override {
    lines.push_back(std::string(p.topic) + " seq=" + std::to_string(p.seq) + " combo=" +
                    std::to_string(p.best.combo.id) + " changed=" + (p.changed ? "true" : "false"));
  }
  std::vector<std::string> lines;
};

class PublicationStepTest : public ::testing::Test {
 protected:
  PublicationStepTest() {
    cfg.sha256 = "c0ffee";
    strategy.name = "trend";
    strategy.symbols = {"S0"};
    strategy.spec.grid.fast = {2, 3};
    strategy.spec.grid.slow = {4};
    strategy.window = 5;
    strategy.warmup = 2;
    rig.batch("S0", 1, 30);
    streams.emplace(key, new_stream(strategy, rig.sym("S0"), 1));
  }
  SymbolStrategy& stream() { return streams.at(key); }
  // The worker's tracker of `combo` over bars [0, end).
  PositionTracker tracker(uint64_t combo, size_t end) {
    PositionTracker t(stream().spec, stream().spec.grid.decode(combo));
    t.append(rig.keeper.bars_between(rig.sym("S0"), 0, end));
    return t;
  }
  // A run over bars [0, end) whose winner is `combo`, its tracker at the window's end.
  JobResult run(uint64_t combo, size_t end) {
    JobResult r;
    r.end = end;
    r.sweep.top.push_back(Ranked{stream().spec.grid.decode(combo), {}, 1.25});
    r.sweep.evaluated = 2;
    r.live = Metrics{};
    r.follow = tracker(combo, end);
    return r;
  }
  // Publishes `r` and returns the payload sent (null when nothing was).
  nlohmann::json publish(JobResult r) {
    const size_t before = sink.sent.size();
    step.publish(key, stream(), rig.sym("S0").history.snapshot(), r);
    if (sink.sent.size() == before) return nullptr;
    return nlohmann::json::parse(sink.sent.back().second);
  }

  const PublicationKey key{"S0", "trend"};
  config::Config cfg;
  config::StrategyConfig strategy;
  test::KeeperRig rig{1, config::FsyncPolicy::none};
  test::FakeNumbers numbers{rig.journal};
  test::RecordingSink sink{rig.journal};
  test::RecordingEvents publisher_events;
  StorageAlarms alarms{20, std::chrono::seconds(10)};
  Publisher publisher{numbers, sink, alarms, publisher_events};
  SignalRecorder signal_events;
  SignalGate gate{true, rig.keeper, publisher, signal_events};
  LiveStates live;
  PublishedLines events;
  StreamMap streams;
  std::string backend = "cpu";
  PublicationStep step{publisher,
                       gate,
                       rig.keeper,
                       live,
                       events,
                       cfg,
                       [this] { return backend; },
                       [] { return int64_t{123}; }};
};

TEST_F(PublicationStepTest, TheFirstPublicationCarriesItsWindowAndNoLiveOos) {
  const nlohmann::json p = publish(run(0, 20));
  ASSERT_FALSE(p.is_null());
  EXPECT_EQ(p["seq"], 1);
  EXPECT_EQ(p["published_ns"], 123);
  EXPECT_EQ(p["window"]["bars"], 5);
  EXPECT_EQ(p["window"]["first_ts"], 16);  // bars 15..19 have ts 16..20
  EXPECT_EQ(p["window"]["last_ts"], 20);
  EXPECT_EQ(p["id"], 0);
  EXPECT_EQ(p["changed"], true);
  EXPECT_TRUE(p["live_oos"].is_null());  // a live result, but no publication before it
  EXPECT_EQ(p["backend"], "cpu");        // the backend in use: the result names none
  EXPECT_EQ(p["config_version"], "c0ffee");
  EXPECT_EQ(p["position"]["value"], tracker(0, 20).last());
  EXPECT_EQ(p["position"]["ts"], 20);
  EXPECT_EQ(events.lines, (std::vector<std::string>{"params.S0.trend seq=1 combo=0 changed=true"}));
  EXPECT_EQ(step.latency().samples(), 1u);
}

TEST_F(PublicationStepTest, TheStreamMovesOnAndItsLiveStateIsSavedAfterTheSend) {
  ASSERT_FALSE(publish(run(0, 20)).is_null());
  EXPECT_EQ(stream().winner->id, 0u);
  EXPECT_FALSE(stream().before.has_value());
  EXPECT_EQ(stream().last_seq, 1u);
  EXPECT_EQ(stream().last_end, 20u);
  EXPECT_EQ(stream().publications, 1u);
  EXPECT_TRUE(stream().signals.following());  // with this publication's combo
  EXPECT_EQ(stream().signals.params_seq(), 1u);
  EXPECT_EQ(stream().signals.combo_id(), 0u);
  // From bar 19 on, but no bar before the stream started (30) is signalled.
  EXPECT_EQ(stream().signals.next(), 30u);
  ASSERT_EQ(live.saved.size(), 1u);
  EXPECT_EQ(live.saved[0].seq, 1u);
  EXPECT_EQ(live.saved[0].end, 20u);
  EXPECT_EQ(live.saved[0].winner, 0u);
  EXPECT_FALSE(live.saved[0].before.has_value());
  EXPECT_EQ(live.saved[0].fingerprint, stream().fingerprint_crc);
  EXPECT_EQ(live.saved[0].payload, sink.sent.back().second);  // the bytes sent

  // The next one: another combo, live_oos over the bars since, the previous winner saved.
  const nlohmann::json second = publish(run(1, 25));
  EXPECT_EQ(second["changed"], true);
  ASSERT_TRUE(second["live_oos"].is_object());
  EXPECT_EQ(second["live_oos"]["seq"], 1);
  EXPECT_EQ(second["live_oos"]["bars"], 5);
  EXPECT_EQ(stream().before->id, 0u);
  EXPECT_EQ(live.saved.back().before, std::optional<uint64_t>(0));
  // The same combo again: unchanged.
  EXPECT_EQ(publish(run(1, 28))["changed"], false);
}

TEST_F(PublicationStepTest, AWithheldPublicationChangesNothing) {
  numbers.fail_next = true;  // no sequence number to be had
  EXPECT_TRUE(publish(run(0, 20)).is_null());
  JobResult withheld = run(0, 20);
  withheld.selection.emplace();
  withheld.selection->reason = "no_robust_combo";
  numbers.fail_next = false;
  EXPECT_TRUE(publish(std::move(withheld)).is_null());
  EXPECT_FALSE(stream().winner.has_value());
  EXPECT_EQ(stream().last_seq, 0u);
  EXPECT_EQ(stream().publications, 0u);
  EXPECT_FALSE(stream().signals.following());
  EXPECT_TRUE(live.saved.empty());
  EXPECT_TRUE(events.lines.empty());
  EXPECT_EQ(step.latency().samples(), 0u);
}

TEST_F(PublicationStepTest, AResultNamingItsBackendKeepsItAndNoTrackerMeansNoPosition) {
  JobResult r = run(0, 20);
  r.sweep.backend = "cuda";
  r.follow = tracker(0, 19);  // not at the window's end
  const nlohmann::json p = publish(std::move(r));
  EXPECT_EQ(p["backend"], "cuda");
  EXPECT_TRUE(p["position"].is_null());
  EXPECT_FALSE(stream().signals.following());  // no positions known: no signals
  EXPECT_EQ(signal_events.lines,
            (std::vector<std::string>{"unknown 1 its tracker is not at the window's end"}));
}

}  // namespace
}  // namespace wfod::daemon
