// The incremental rules tracker (src/rules_tracker.hpp) does per-bar work that does not grow
// with the history: its memory stays bounded by its look-back and keep() over 200,000 bars
// (where a replaying tracker's grows with every bar), and it never asks the backend for
// positions (no replay over the history). Plus its refusals: bars out of order, a rule that
// reads volume without volumes.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "support/series.hpp"
#include "wfod/config/config.hpp"
#include "wfod/position_tracker.hpp"

namespace wfod {
namespace {

StrategySpec rules_tracker_spec() {
  const config::Config c = config::parse_config(
      "[[strategy]]\nname = \"r\"\nsymbols = [\"X\"]\nfamily = \"rules\"\nwindow = 100\n"
      "fill = \"next_open\"\n"
      "[strategy.rules]\nparams = [\"fast\", \"slow\"]\n"
      "indicators = { f = \"ema($fast)\", s = \"sma($slow)\", h = \"hh(50, high_low)\", "
      "u = \"bb_upper($slow, 2)\", r = \"rsi(14)\", w = \"hma(30)\" }\n"
      "long_entry = \"crosses_above(f, s) and volume > 0 or close > h\"\n"
      "long_exit = \"crosses_below(f, s) or close > u\"\n"
      "short_entry = \"crosses_below(f, s) and r > 40 and w < s\"\nshort_exit = \"f > s\"\n"
      "[strategy.grid]\nfast = [5]\nslow = [40]\n"
      "stop_loss = [0.01]\ntake_profit = [0.02]\ntrailing_stop = [0.015]\n"
      "vol_short = [10]\nvol_long = [60]\nvol_threshold = [0.7]\n",
      "t.toml");
  return c.strategies.at(0).spec;
}

std::vector<Bar> rules_tracker_bars(const Series& s, size_t from, size_t to) {
  std::vector<Bar> out;
  for (size_t i = from; i < to; ++i)
    out.push_back(Bar{s.ts_ns[i], s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i], 0});
  return out;
}

// A backend that answers nothing: a tracker that asked it for positions would fail loudly.
class RulesTrackerSilentBackend final : public Backend {
 public:
  std::string_view name() const override { return "silent"; }
  SweepResult sweep(const SweepRequest&) override { return {}; }
  std::vector<Metrics> evaluate(const SweepRequest&, std::span<const uint64_t>) override {
    return {};
  }
  std::vector<Summary> block_summaries(const SweepRequest&, std::span<const size_t>) override {
    return {};
  }
  std::vector<int8_t> positions(const HistoryView&, const StrategySpec&, const Combo&) override {
    ++calls;
    throw std::logic_error("the tracker asked the backend for positions");
  }
  PositionsOf positions_source() const override {
    return [](const HistoryView&, const StrategySpec&, const Combo&) -> std::vector<int8_t> {
      throw std::logic_error("the tracker asked the backend's source for positions");
    };
  }
  int calls = 0;
};

TEST(RulesTracker, MemoryIsBoundedByKeepNotByTheHistory) {
  const Series s = test::random_walk(200000, 11);
  const StrategySpec spec = rules_tracker_spec();
  const Combo c = spec.grid.decode(0);
  auto ref = make_backend("cpu_ref");
  PositionTracker t = PositionTracker::make(*ref, spec, c);
  PositionTracker replay(spec, c, ref->positions_source());  // the old way, for contrast
  t.set_keep(500);
  std::mt19937_64 rng(4);
  size_t at = 0, early = 0, early_replay = 0;
  while (at < s.size()) {
    const size_t n = std::min<size_t>(1 + rng() % 700, s.size() - at);
    const std::vector<Bar> batch = rules_tracker_bars(s, at, at + n);
    t.append(batch);
    replay.append(batch);
    at += n;
    if (early == 0 && at >= 20000) {
      early = t.footprint_bytes();
      early_replay = replay.footprint_bytes();
    }
  }
  ASSERT_GT(early, 0u);
  // The look-back's input bars, the rows' states and at most ~2 keep() positions: the same
  // at 200,000 bars as at 20,000.
  EXPECT_LE(t.footprint_bytes(), early + early / 4);
  EXPECT_LT(t.footprint_bytes(), 64u * 1024);
  EXPECT_GE(t.first_kept(), s.size() - 2 * 1024);
  EXPECT_GT(replay.footprint_bytes(), 4 * early_replay);  // what the measure catches
}

TEST(RulesTracker, NeverAsksTheBackendForPositions) {
  const Series s = test::random_walk(6000, 21);
  const StrategySpec spec = rules_tracker_spec();
  RulesTrackerSilentBackend silent;
  EXPECT_TRUE(PositionTracker::follows(silent, spec).ok());
  auto ref = make_backend("cpu_ref");
  for (uint64_t id = 0; id < spec.grid.size(); ++id) {
    const Combo c = spec.grid.decode(id);
    PositionTracker t = PositionTracker::make(silent, spec, c);
    for (size_t i = 0; i < s.size(); i += 100) t.append(rules_tracker_bars(s, i, i + 100));
    PositionTracker f = t.fork(10);
    f.append(rules_tracker_bars(test::random_walk(6001, 21), 6000, 6001));
    EXPECT_EQ(t.positions(0, s.size()), ref->positions(HistoryView::of(s), spec, c));
  }
  EXPECT_EQ(silent.calls, 0);
}

TEST(RulesTracker, RefusesBarsOutOfOrderAndMissingVolumes) {
  const Series s = test::random_walk(300, 2);
  const StrategySpec spec = rules_tracker_spec();
  auto ref = make_backend("cpu_ref");
  PositionTracker t = PositionTracker::make(*ref, spec, spec.grid.decode(0));
  t.append(rules_tracker_bars(s, 0, 100));
  // All or nothing: a batch with one bar out of order appends none of its bars.
  std::vector<Bar> bad = rules_tracker_bars(s, 100, 110);
  bad[7].ts_ns = bad[3].ts_ns;
  EXPECT_THROW(t.append(bad), std::invalid_argument);
  EXPECT_EQ(t.bars(), 100u);
  EXPECT_THROW(t.append(rules_tracker_bars(s, 50, 60)), std::invalid_argument);
  t.append(rules_tracker_bars(s, 100, 300));
  EXPECT_EQ(t.positions(0, 300), ref->positions(HistoryView::of(s), spec, spec.grid.decode(0)));
  // The rule reads volume: a history without volumes is refused, as the backends refuse it.
  Series no_volume = s;
  no_volume.volume.clear();
  PositionTracker u = PositionTracker::make(*ref, spec, spec.grid.decode(0));
  EXPECT_THROW((void)u.extend(HistoryView::of(no_volume)), std::invalid_argument);
  // Read past what it keeps: out of range.
  t.set_keep(10);
  EXPECT_THROW((void)t.positions(t.bars() + 1, t.bars() + 1), std::out_of_range);
}

}  // namespace
}  // namespace wfod
