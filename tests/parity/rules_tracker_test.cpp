// The incremental rules tracker (PositionTracker for a SPEC §5a combo, src/rules_tracker.hpp)
// against cpu_ref's Backend::positions over the whole history, on the shared real data: the
// pullback example file, crosses, arithmetic, bands, channels, volume, `valid`, undefined
// stretches, the vol filter, every stop kind (§5b), long and short, fill close and next_open.
// Per combo the tracker is fed bar by bar and in random-sized batches, forks are taken midway
// and continued on their own batches, and every position of every bar is compared bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/config/config.hpp"
#include "wfod/position_tracker.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod {
namespace {

struct TrackerCase {
  std::string name;
  std::string file;  // a stem of the shared data folder
  StrategySpec spec;
  size_t combos = 10;  // valid combos followed, spread over the grid
};

void PrintTo(const TrackerCase& c, std::ostream* os) { *os << c.name; }

Grid rules_grid_of(const rules::RulesText& text, std::vector<std::vector<double>> axes,
                   std::vector<double> sl = {0}, std::vector<double> tp = {0},
                   std::vector<double> ts = {0}) {
  Grid g;
  g.family = Family::rules;
  g.program = std::make_shared<const rules::Program>(rules::compile(text));
  g.rule_axes = std::move(axes);
  g.stop_loss = std::move(sl);
  g.take_profit = std::move(tp);
  g.trailing_stop = std::move(ts);
  g.validate();
  return g;
}

// Crosses of computed values and of raw levels (exact), high/low and close channels, volume.
rules::RulesText crosses_rules() {
  rules::RulesText t;
  t.params = {"fast", "slow", "n", "busy"};
  t.indicators = {{"f", "ema($fast)"},       {"s", "sma($slow)"}, {"h", "hh($n, high_low)"},
                  {"l", "ll($n, high_low)"}, {"c", "hh(20)"},     {"w", "wma(5)"}};
  t.long_entry = "crosses_above(close, h) or crosses_above(f, s) and volume > $busy";
  t.long_exit = "crosses_below(close, l) or crosses_below(w, s * 0.999)";
  t.short_entry = "crosses_below(close, l) and volume * close > 0 or crosses_below(f, s)";
  t.short_exit = "close > c or crosses_above(f + 0, s)";
  t.valid = "$fast < $slow";
  return t;
}

// Bands, a division with its magnitude, STD, RSI, HMA, parameters in the arithmetic, `valid`.
rules::RulesText bands_rules() {
  rules::RulesText t;
  t.params = {"n", "k", "lvl"};
  t.indicators = {{"u", "bb_upper($n, $k)"}, {"lo", "bb_lower($n, $k)"},
                  {"m", "bb_mid($n)"},       {"sd", "std($n)"},
                  {"r", "rsi(7)"},           {"hm", "hma(9)"}};
  t.long_entry = "(close - lo) / (u - lo) < 0.1 and r < $lvl";
  t.long_exit = "not (close < m)";
  t.short_entry = "(close - lo) / (u - lo) > 0.9 and hm - m > sd * 0.5 or r > 100 - $lvl / 2";
  t.short_exit = "not (close > m) and not (r > 50)";
  t.valid = "$n * $k > 20";
  return t;
}

// Indicators undefined everywhere (HMA(1)) or long (a long SMA), with the vol filter; an
// exact cross of the close under its own channel (ll on close).
rules::RulesText undefined_rules_of_tracker() {
  rules::RulesText t;
  t.params = {"h", "long"};
  t.indicators = {
      {"a", "hma($h)"}, {"b", "sma($long)"}, {"c", "ema(5)"}, {"x", "rsi(3)"}, {"d", "ll(15)"}};
  t.long_entry = "c > a and close > b";
  t.short_entry = "c < a and close < b";
  t.long_exit = "c < a or crosses_below(close, d)";
  t.short_exit = "c > a";
  return t;
}

std::vector<TrackerCase> tracker_cases() {
  std::vector<TrackerCase> cs;
  using test::spec_of;
  {
    config::StrategyConfig pullback = config::load_rules_file(
        std::string(WFOD_SOURCE_DIR) + "/config/examples/pullback.rules.toml");
    cs.push_back({"pullback_example_close", "goog_d1_2004-2013", pullback.spec, 8});
    // On minute bars with stops sized for minutes (the file's are for days), and a trailing
    // stop, with fill next_open.
    StrategySpec next = pullback.spec;
    next.fill = Fill::next_open;
    next.grid.stop_loss = {0, 0.002};
    next.grid.take_profit = {0, 0.003};
    next.grid.trailing_stop = {0, 0.0015};
    next.grid.validate();
    cs.push_back({"pullback_example_minutes_every_stop_next_open", "btcperp_ftx_m1_2022-01", next});
  }
  const std::vector<std::vector<double>> cross_axes = {{5, 12}, {20, 50}, {10, 30}, {0, 50}};
  {
    Grid g = rules_grid_of(crosses_rules(), cross_axes);
    g.vol_short = {10};
    g.vol_long = {60};
    g.vol_threshold = {0.9};
    g.validate();
    cs.push_back({"crosses_channels_volume_vol_filter", "btcperp_ftx_m1_2022-01",
                  spec_of(g, Fill::close, 0.5)});
  }
  cs.push_back(
      {"crosses_every_stop_next_open", "eurusd_h1_2017-2018",
       spec_of(rules_grid_of(crosses_rules(), cross_axes, {0, 0.004}, {0, 0.01}, {0, 0.003}),
               Fill::next_open, 1)});
  const std::vector<std::vector<double>> band_axes = {{10, 20, 40}, {1.5, 2.5}, {30, 40}};
  cs.push_back({"bands_arithmetic_valid", "orcl_d1_1995-2014",
                spec_of(rules_grid_of(bands_rules(), band_axes), Fill::close, 2)});
  cs.push_back({"bands_every_stop_close", "nvda_d1_1999-2014",
                spec_of(rules_grid_of(bands_rules(), band_axes, {0, 0.05}, {0, 0.12}, {0, 0.08}),
                        Fill::close, 2)});
  {
    Grid g = rules_grid_of(undefined_rules_of_tracker(), {{1, 9, 16}, {50, 400}}, {0, 0.05}, {0},
                           {0, 0.1});
    g.vol_short = {10};
    g.vol_long = {40};
    g.vol_threshold = {0.8, 1.1};
    g.validate();
    cs.push_back(
        {"undefined_vol_filter_stops", "yhoo_d1_1996-2015", spec_of(g, Fill::next_open, 2), 8});
  }
  return cs;
}

std::vector<Bar> tracker_bars(const Series& s, size_t from, size_t to) {
  std::vector<Bar> out;
  out.reserve(to - from);
  for (size_t i = from; i < to; ++i)
    out.push_back(Bar{s.ts_ns[i], s.open[i], s.high[i], s.low[i], s.close[i], s.volume[i], 0});
  return out;
}

// A batch size: mostly single bars and short runs, sometimes a long one.
size_t batch_of(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return 1;
    case 1:
      return 1 + rng() % 8;
    case 2:
      return 1 + rng() % 300;
    default:
      return 1 + rng() % 1000;
  }
}

// Feeds `t` bars [t.bars(), to) of `s` in random batches, checking each batch's positions
// (keep must cover the longest batch, 1,000 bars) and the newest one against `want`.
void feed_and_check(PositionTracker& t, const Series& s, size_t to, const std::vector<int8_t>& want,
                    std::mt19937_64& rng, const std::string& who) {
  while (t.bars() < to) {
    const size_t at = t.bars(), n = std::min(batch_of(rng), to - at);
    t.append(tracker_bars(s, at, at + n));
    ASSERT_EQ(t.bars(), at + n) << who;
    ASSERT_EQ(t.last(), want[at + n - 1]) << who << ": bar " << at + n - 1;
    const std::vector<int8_t> got = t.positions(at, at + n);
    const auto diff = std::mismatch(got.begin(), got.end(), want.begin() + at);
    ASSERT_TRUE(diff.first == got.end())
        << who << ": first difference at bar " << at + (diff.first - got.begin());
  }
}

class RulesTrackerParity : public ::testing::TestWithParam<TrackerCase> {};

TEST_P(RulesTrackerParity, EqualsCpuRefPositionsBarForBar) {
  const TrackerCase& c = GetParam();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: real-data rules tracker parity NOT run";
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const Grid& grid = c.spec.grid;
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);
  ASSERT_FALSE(ids.empty());
  // Spread the followed combos over the grid (first, last and evenly between).
  std::vector<uint64_t> chosen;
  const size_t k = std::min(c.combos, ids.size());
  for (size_t i = 0; i < k; ++i) chosen.push_back(ids[k == 1 ? 0 : i * (ids.size() - 1) / (k - 1)]);
  SCOPED_TRACE(c.name + ": " + std::to_string(h.size()) + " bars, " + std::to_string(k) + " of " +
               std::to_string(ids.size()) + " valid combos");

  size_t changes = 0, with_stops = 0, stopped = 0;
  for (uint64_t id : chosen) {
    const Combo combo = grid.decode(id);
    const std::vector<int8_t> want = ref->positions(h, c.spec, combo);
    const std::string who = "combo " + std::to_string(id);
    std::mt19937_64 rng(1000 + id);
    for (size_t t = 1; t < want.size(); ++t) changes += want[t] != want[t - 1];
    if (combo.stops_on()) {
      ++with_stops;
      Combo plain = combo;
      plain.stop_loss = plain.take_profit = plain.trailing_stop = 0;
      stopped += ref->positions(h, c.spec, plain) != want;
    }

    // From the anchor through extend(), every position kept.
    {
      PositionTracker t = PositionTracker::make(*ref, c.spec, combo);
      ASSERT_EQ(t.extend(h.prefix(h.size() / 3)),
                ref->positions(h.prefix(h.size() / 3), c.spec, combo))
          << who;
      ASSERT_EQ(t.extend(h), want) << who;
    }
    // Bar by bar and in random batches, bounded keep; a fork taken a third of the way and
    // another two thirds of the way, each continued on its own batches.
    PositionTracker t = PositionTracker::make(*ref, c.spec, combo);
    t.set_keep(1024);  // at least the longest batch: every batch's positions are read back
    const size_t third = h.size() / 3;
    ASSERT_NO_FATAL_FAILURE(feed_and_check(t, s, third, want, rng, who));
    PositionTracker early = t.fork(1 + rng() % 5000);
    early.set_keep(1024);
    ASSERT_NO_FATAL_FAILURE(feed_and_check(t, s, 2 * third, want, rng, who));
    PositionTracker late = t.fork(1024);
    ASSERT_NO_FATAL_FAILURE(feed_and_check(t, s, h.size(), want, rng, who));
    ASSERT_NO_FATAL_FAILURE(feed_and_check(early, s, h.size(), want, rng, who + " (early fork)"));
    ASSERT_NO_FATAL_FAILURE(feed_and_check(late, s, h.size(), want, rng, who + " (late fork)"));
    EXPECT_GT(t.first_kept(), 0u) << who << ": keep bounded nothing";
    // One bar at a time over the last stretch, as the daemon's loop feeds it.
    PositionTracker single = late.fork(64);
    EXPECT_EQ(
        single.positions(single.first_kept(), single.bars()),
        std::vector<int8_t>(want.begin() + static_cast<ptrdiff_t>(single.first_kept()), want.end()))
        << who;
  }
  EXPECT_GT(changes, 0u) << "no followed combo changes position: the case tests nothing";
  if (with_stops > 0) {
    EXPECT_GT(stopped, 0u) << "no stop changed any followed combo's positions";
  }
  std::printf(
      "[ tracker  ] %s: %zu bars, %zu combos (%zu with stops), %zu position changes, %zu changed "
      "by stops\n",
      c.name.c_str(), h.size(), k, with_stops, changes, stopped);
}

INSTANTIATE_TEST_SUITE_P(Cases, RulesTrackerParity, ::testing::ValuesIn(tracker_cases()),
                         [](const ::testing::TestParamInfo<TrackerCase>& tp) {
                           return tp.param.name;
                         });

// Bar by bar from the anchor (every append one bar), the daemon's loop's way, on minute bars.
TEST(RulesTrackerParity, OneBarAtATimeEqualsCpuRef) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "usdjpy_fxcm_bid_m1_2013-02.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const StrategySpec spec =
      test::spec_of(rules_grid_of(bands_rules(), {{20}, {2.5}, {35}}, {0.002}, {0.004}, {0.003}),
                    Fill::next_open, 0.5);
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  const Combo combo = spec.grid.decode(0);
  ASSERT_TRUE(combo.valid());
  const std::vector<int8_t> want = ref->positions(h, spec, combo);
  PositionTracker t = PositionTracker::make(*ref, spec, combo);
  t.set_keep(1);
  size_t nonzero = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    t.append(tracker_bars(s, i, i + 1));
    ASSERT_EQ(t.last(), want[i]) << "bar " << i;
    nonzero += want[i] != 0;
  }
  EXPECT_GT(nonzero, 0u);
}

}  // namespace
}  // namespace wfod
