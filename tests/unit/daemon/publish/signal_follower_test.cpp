// SignalFollower (PROTOCOL §2a): which bars may be signalled while runs are in flight, the
// switch to a new combo exactly at its publication's last bar, positions equal to
// Backend::positions of the followed combo, and the payload's fields.
#include "wfod/daemon/publish/signal_follower.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "support/series.hpp"

namespace wfod::daemon {
namespace {

std::vector<Bar> bars_of(const HistoryView& h, size_t first, size_t end) {
  std::vector<Bar> out;
  for (size_t t = first; t < end; ++t)
    out.push_back(Bar{h.ts_ns[t], h.open[t], h.high[t], h.low[t], h.close[t], 0, 0});
  return out;
}

// The worker's fork: the combo's tracker after bars [0, end).
PositionTracker tracker_at(const StrategySpec& spec, const Combo& c, const HistoryView& h,
                           size_t end) {
  PositionTracker t(spec, c);
  t.append(bars_of(h, 0, end));
  return t.fork(8);
}

TEST(SignalFollower, AHeldRunHoldsItsLastBarAndLater) {
  SignalFollower f;
  EXPECT_EQ(f.ready_end(10), 10u);
  f.hold(8);  // a run over [0, 8) publishes at bar 7
  EXPECT_EQ(f.ready_end(10), 7u);
  EXPECT_EQ(f.ready_end(5), 5u);  // persistence bounds it too
  f.hold(12);
  EXPECT_EQ(f.ready_end(20), 7u);
  f.release(8);
  EXPECT_EQ(f.ready_end(20), 11u);
  f.release(99);  // not held: nothing
  EXPECT_EQ(f.ready_end(20), 11u);
  f.release(12);
  EXPECT_EQ(f.ready_end(20), 20u);
}

TEST(SignalFollower, FollowsEachCombosPositionsFromItsPublicationsLastBar) {
  const Series s = test::random_walk(700, 3);
  const HistoryView h = HistoryView::of(s);
  StrategySpec spec;
  spec.grid.family = Family::ma_cross;
  spec.grid.fast = {3, 5};
  spec.grid.slow = {20};
  spec.grid.ma = {MaType::ema};
  spec.grid.entry = {Entry::cross};
  spec.grid.side = {Side::long_short};
  const Combo a = spec.grid.decode(0), b = spec.grid.decode(1);
  auto cpu = make_backend("cpu");
  const std::vector<int8_t> pa = cpu->positions(h, spec, a), pb = cpu->positions(h, spec, b);
  ASSERT_NE(pa, pb);

  SignalFollower f;
  std::vector<Signal> got;
  auto take_to = [&](size_t end) {
    const std::vector<Bar> bars = bars_of(h, f.needs_from(), end);
    const std::vector<Signal> out = f.take(bars);
    got.insert(got.end(), out.begin(), out.end());
  };
  // Run 1 over [0, 300) publishes combo a (seq 1); bars up to 340 arrived meanwhile.
  f.hold(300);
  f.release(300);
  f.adopt(tracker_at(spec, a, h, 300), 1, 299);
  take_to(f.ready_end(340));
  // Run 2 over [0, 420) is in flight while bars reach 460: signals stop at bar 418.
  f.hold(420);
  take_to(f.ready_end(460));
  EXPECT_EQ(f.next(), 419u);
  // Its publication (combo b) at bar 419: bars before it already went with a.
  f.release(420);
  f.adopt(tracker_at(spec, b, h, 420), 2, 419);
  take_to(f.ready_end(460));
  take_to(f.ready_end(700));
  ASSERT_EQ(got.size(), 700u - 299u);
  for (const Signal& g : got) {
    const bool old = g.bar < 419;
    ASSERT_EQ(g.position, old ? pa[g.bar] : pb[g.bar]) << "bar " << g.bar;
    ASSERT_EQ(g.ts_ns, h.ts_ns[g.bar]);
  }
  EXPECT_EQ(got.front().bar, 299u);
  EXPECT_EQ(f.params_seq(), 2u);
  EXPECT_EQ(f.combo_id(), b.id);
}

TEST(SignalFollower, ATrackerBehindTheFirstSignalIsExtendedSilently) {
  // A restart: the stream's tracker is at its checkpoint (bar 200); bars up to 260 were
  // loaded from the log, and signals start with the first bar accepted after the start.
  const Series s = test::random_walk(400, 8);
  const HistoryView h = HistoryView::of(s);
  StrategySpec spec;
  spec.grid.family = Family::channel_breakout;
  spec.grid.n = {10};
  spec.grid.side = {Side::long_short};
  spec.grid.vol_short = {5};
  spec.grid.vol_long = {20};
  spec.grid.vol_threshold = {0.8};
  const Combo c = spec.grid.decode(0);
  const std::vector<int8_t> p = make_backend("cpu")->positions(h, spec, c);
  SignalFollower f;
  f.adopt(tracker_at(spec, c, h, 200), 7, 260);
  EXPECT_EQ(f.needs_from(), 200u);
  const std::vector<Signal> out = f.take(bars_of(h, 200, 300));
  ASSERT_EQ(out.size(), 40u);
  for (const Signal& g : out) ASSERT_EQ(g.position, p[g.bar]) << "bar " << g.bar;
  EXPECT_EQ(out.front().bar, 260u);
}

TEST(SignalFollower, ABurstLongerThanTheTrackerKeepsIsSignalledWhole) {
  // The follower's tracker keeps kSignalTrackerKeep positions; one take() may cover
  // thousands of bars: a burst fed faster than the signals go out, or the bars a long run
  // held back. Every one of them is signalled, exactly.
  const Series s = test::random_walk(16000, 11);
  const HistoryView h = HistoryView::of(s);
  StrategySpec spec;
  spec.grid.family = Family::ma_cross;
  spec.grid.fast = {5};
  spec.grid.slow = {30};
  spec.grid.ma = {MaType::sma};
  spec.grid.entry = {Entry::state};
  spec.grid.side = {Side::long_short};
  const Combo c = spec.grid.decode(0);
  const std::vector<int8_t> p = make_backend("cpu")->positions(h, spec, c);
  auto forked = [&](size_t end) {
    PositionTracker t(spec, c);
    t.append(bars_of(h, 0, end));
    return t.fork(kSignalTrackerKeep);
  };
  auto check = [&](const std::vector<Signal>& out, size_t from, size_t end) {
    ASSERT_EQ(out.size(), end - from);
    for (const Signal& g : out) {
      ASSERT_EQ(g.bar, from + static_cast<size_t>(&g - out.data()));
      ASSERT_EQ(g.position, p[g.bar]) << "bar " << g.bar;
      ASSERT_EQ(g.ts_ns, h.ts_ns[g.bar]);
    }
  };
  {
    // A restart: the tracker at the checkpoint (bar 1000), bars up to 1500 loaded, then a
    // 5,000-bar burst taken at once.
    SignalFollower f;
    f.start_at(1500);
    f.adopt(forked(1000), 4, 1500);
    check(f.take(bars_of(h, f.needs_from(), 6500)), 1500, 6500);
    EXPECT_EQ(f.next(), 6500u);
    // And on, in small batches and one more burst: the tracker trims itself again.
    check(f.take(bars_of(h, f.needs_from(), 6510)), 6500, 6510);
    check(f.take(bars_of(h, f.needs_from(), 16000)), 6510, 16000);
  }
  {
    // A publication at bar 1999 whose tracker is at the window's end (2000), then 7,000
    // bars that waited for it.
    SignalFollower f;
    f.adopt(forked(2000), 5, 1999);
    check(f.take(bars_of(h, f.needs_from(), 9000)), 1999, 9000);
  }
}

TEST(SignalFollower, NeverSignalsABarBeforeItsStart) {
  // A run at start-up publishes at bar 99, accepted before the start (bar 100 is the first
  // one since): that bar was signalled by the process before, if at all.
  const Series s = test::random_walk(150, 2);
  const HistoryView h = HistoryView::of(s);
  StrategySpec spec;
  spec.grid.family = Family::ma_cross;
  spec.grid.fast = {3};
  spec.grid.slow = {9};
  SignalFollower f;
  f.start_at(100);
  f.adopt(tracker_at(spec, spec.grid.decode(0), h, 100), 3, 99);
  EXPECT_EQ(f.next(), 100u);
  const std::vector<Signal> out = f.take(bars_of(h, f.needs_from(), 120));
  ASSERT_EQ(out.size(), 20u);
  EXPECT_EQ(out.front().bar, 100u);
}

TEST(SignalFollower, RefusesAStartBeforeWhatTheTrackerKeeps) {
  const Series s = test::random_walk(100, 1);
  const HistoryView h = HistoryView::of(s);
  StrategySpec spec;
  spec.grid.family = Family::ma_cross;
  spec.grid.fast = {3};
  spec.grid.slow = {9};
  SignalFollower f;
  EXPECT_THROW(f.adopt(tracker_at(spec, spec.grid.decode(0), h, 90), 1, 50), std::invalid_argument);
  EXPECT_FALSE(f.following());
  EXPECT_THROW(f.take({}), std::logic_error);
}

TEST(SignalPayload, HasTheProtocolFields) {
  const std::string text = signal_payload("BRK.B", "x", Signal{5, -17, -1}, 1234, 42);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"schema":1,"symbol":"BRK.B","strategy":"x","ts":-17,
                                        "position":-1,"id":1234,"params_seq":42})"));
  EXPECT_EQ(text.find(' '), std::string::npos);
}

}  // namespace
}  // namespace wfod::daemon
