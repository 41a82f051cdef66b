// A replaying PositionTracker (src/position_replay.hpp), built on a backend's positions source
// (the baseline the incremental rules tracker is measured against): bar by bar and through
// forks it equals the backend's positions of the combo over the same bars, stops and volumes
// included. make() no longer builds it: every family, rules (SPEC §5a) included, has an
// incremental tracker, whatever the backend offers.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "support/series.hpp"
#include "wfod/config/config.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod {
namespace {

StrategySpec rules_spec() {
  const config::Config c = config::parse_config(
      "[[strategy]]\nname = \"r\"\nsymbols = [\"X\"]\nfamily = \"rules\"\nwindow = 100\n"
      "fill = \"next_open\"\n"
      "[strategy.rules]\nparams = [\"fast\", \"slow\", \"busy\"]\n"
      "indicators = { f = \"ema($fast)\", s = \"sma($slow)\" }\n"
      "long_entry = \"f > s and volume > $busy\"\nlong_exit = \"crosses_below(f, s)\"\n"
      "short_entry = \"crosses_below(f, s)\"\nshort_exit = \"f > s\"\n"
      "[strategy.grid]\nfast = [3, 6]\nslow = [12, 25]\nbusy = [0, 1000]\n"
      "stop_loss = [0, 0.01]\ntake_profit = [0, 0.02]\ntrailing_stop = [0, 0.015]\n",
      "t.toml");
  return c.strategies.at(0).spec;
}

std::vector<Bar> bars_of(const Series& s, size_t from, size_t to) {
  std::vector<Bar> out;
  for (size_t i = from; i < to; ++i)
    out.push_back(Bar{s.ts_ns[i], s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i], 0});
  return out;
}

TEST(ReplayTracker, EqualsBackendPositionsBarByBarAndThroughForks) {
  Series s = test::random_walk(400, 17);
  std::mt19937_64 rng(3);
  for (double& v : s.volume) v = static_cast<double>(rng() % 2000);  // `busy` bites
  const HistoryView h = HistoryView::of(s);
  const StrategySpec spec = rules_spec();
  auto ref = make_backend("cpu_ref");
  for (uint64_t id = 0; id < spec.grid.size(); id += 7) {
    const Combo c = spec.grid.decode(id);
    if (!c.valid()) continue;
    const std::vector<int8_t> want = ref->positions(h, spec, c);
    PositionTracker t(spec, c, ref->positions_source());
    size_t at = 0;
    while (at < s.size()) {
      const size_t n = std::min<size_t>(1 + rng() % 40, s.size() - at);
      t.append(bars_of(s, at, at + n));
      at += n;
      ASSERT_EQ(t.bars(), at);
      EXPECT_EQ(t.last(), want[at - 1]) << "combo " << id << " bar " << at - 1;
      if (at > 50) {
        const std::vector<int8_t> tail = t.positions(at - 50, at);
        EXPECT_TRUE(std::equal(tail.begin(), tail.end(), want.begin() + (at - 50)));
      }
    }
    // A fork goes on alike, whatever it keeps.
    PositionTracker f = t.fork(3);
    EXPECT_EQ(f.bars(), t.bars());
    EXPECT_EQ(f.positions(0, f.bars()), want);
  }
}

TEST(ReplayTracker, ExtendEqualsBackendPositions) {
  const Series s = test::random_walk(300, 5);
  const StrategySpec spec = rules_spec();
  auto ref = make_backend("cpu_ref");
  const Combo c = spec.grid.decode(1);
  PositionTracker t(spec, c, ref->positions_source());
  EXPECT_EQ(t.first_kept(), 0u);
  EXPECT_EQ(t.extend(HistoryView::of(s).prefix(120)),
            ref->positions(HistoryView::of(s).prefix(120), spec, c));
  EXPECT_EQ(t.extend(HistoryView::of(s)), ref->positions(HistoryView::of(s), spec, c));
}

// Runs everything but offers no positions_source (the Backend default).
class NoPositionsSource final : public Backend {
 public:
  std::string_view name() const override { return "no-source"; }
  SweepResult sweep(const SweepRequest&) override { return {}; }
  std::vector<Metrics> evaluate(const SweepRequest&, std::span<const uint64_t>) override {
    return {};
  }
  std::vector<Summary> block_summaries(const SweepRequest&, std::span<const size_t>) override {
    return {};
  }
  std::vector<int8_t> positions(const HistoryView&, const StrategySpec&, const Combo&) override {
    return {};
  }
};

TEST(ReplayTracker, MakeFollowsRulesIncrementallyOnEveryBackend) {
  const StrategySpec spec = rules_spec();
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  NoPositionsSource none;
  const Series bars = test::random_walk(300, 5);
  const Combo c = spec.grid.decode(1);
  // A backend without a positions source follows a rules combo too: the tracker is the
  // host's own (src/rules_tracker.hpp), its positions cpu_ref's.
  for (const Backend* b :
       {static_cast<const Backend*>(cpu.get()), static_cast<const Backend*>(ref.get()),
        static_cast<const Backend*>(&none)}) {
    EXPECT_TRUE(PositionTracker::follows(*b, spec).ok()) << b->name();
    PositionTracker follower = PositionTracker::make(*b, spec, c);
    EXPECT_EQ(follower.extend(HistoryView::of(bars)),
              ref->positions(HistoryView::of(bars), spec, c))
        << b->name();
  }
  // A built-in family: the incremental tracker on any backend.
  StrategySpec ma;
  ma.grid.fast = {3};
  ma.grid.slow = {9};
  EXPECT_TRUE(PositionTracker::follows(*cpu, ma).ok());
  EXPECT_EQ(PositionTracker::make(*cpu, ma, ma.grid.decode(0)).first_kept(), 0u);
  // A replaying tracker needs a source; out-of-order bars are refused, nothing appended.
  EXPECT_THROW(PositionTracker(spec, c, PositionsOf{}), std::invalid_argument);
  PositionTracker t(spec, spec.grid.decode(0), ref->positions_source());
  const Series s = test::random_walk(10, 1);
  t.append(bars_of(s, 0, 5));
  EXPECT_THROW(t.append(bars_of(s, 2, 4)), std::invalid_argument);
  EXPECT_EQ(t.bars(), 5u);
}

}  // namespace
}  // namespace wfod
