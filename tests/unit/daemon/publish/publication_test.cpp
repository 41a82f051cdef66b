// The PROTOCOL §2 payload (keys, names, null live_oos, non-finite -> null) and the SPEC §8
// live_oos rule on a hand-computed case.

#include "wfod/daemon/publish/publication.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace wfod::daemon {
namespace {

Grid small_grid() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {5, 10};
  g.slow = {20};
  return g;
}

SweepResult result_of(const Grid& g) {
  SweepResult r;
  Ranked a;
  a.combo = g.decode(1);
  a.metrics.sharpe = std::numeric_limits<double>::quiet_NaN();
  a.metrics.total_return = 0.25;
  a.metrics.trades = 3;
  Ranked b;
  b.combo = g.decode(0);
  b.metrics.profit_factor = std::numeric_limits<double>::infinity();
  r.top = {a, b};
  r.evaluated = 2;
  r.skipped = 0;
  r.backend = "cpu";
  return r;
}

PublicationInput input_of(const Grid& g, const SweepResult& r) {
  PublicationInput in;
  in.symbol = "BTCUSD";
  in.strategy = "trend";
  in.seq = 7;
  in.published_ns = 1700000000000000000;
  in.window_bars = 100;
  in.first_ts = 1;
  in.last_ts = 2;
  in.grid = &g;
  in.result = &r;
  in.changed = false;
  in.elapsed_ms = 3.5;
  in.backend = "cpu";
  in.config_version = "abc";
  return in;
}

TEST(Publication, KeysInProtocolOrderAndNullLiveOos) {
  const Grid g = small_grid();
  const SweepResult r = result_of(g);
  const Json j = publication_json(input_of(g, r));
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  const std::vector<std::string> expected = {
      "schema",  "symbol",         "strategy", "seq",     "published_ns", "window",  "params",
      "id",      "metrics",        "changed",  "top",     "evaluated",    "skipped", "elapsed_ms",
      "backend", "config_version", "live_oos", "position"};
  EXPECT_EQ(keys, expected);
  EXPECT_TRUE(j["position"].is_null());  // no positions given
  EXPECT_EQ(j["schema"], 1);
  EXPECT_EQ(j["seq"], 7);
  EXPECT_EQ(j["window"]["bars"], 100);
  EXPECT_EQ(j["window"]["first_ts"], 1);
  EXPECT_EQ(j["window"]["last_ts"], 2);
  EXPECT_EQ(j["id"], 1);
  EXPECT_EQ(j["params"]["fast"], 10);
  EXPECT_EQ(j["params"]["slow"], 20);
  EXPECT_EQ(j["params"]["ma"], "sma");
  EXPECT_EQ(j["params"]["side"], "long_short");
  EXPECT_EQ(j["params"]["entry"], "state");
  EXPECT_FALSE(j["params"].contains("vol_short"));
  EXPECT_EQ(j["changed"], false);
  EXPECT_TRUE(j["live_oos"].is_null());
  ASSERT_EQ(j["top"].size(), 2u);
  EXPECT_EQ(j["top"][1]["id"], 0);
  EXPECT_EQ(j["top"][1]["params"]["fast"], 5);
}

// What a restart reads back from a saved payload: the window's last bar.
TEST(Publication, WindowLastTsReadsBackFromThePayload) {
  const Grid g = small_grid();
  const SweepResult r = result_of(g);
  PublicationInput in = input_of(g, r);
  in.last_ts = 1'700'000'000'123'456'789;
  EXPECT_EQ(payload_window_last_ts(publication_json(in).dump()), in.last_ts);
  EXPECT_EQ(payload_window_last_ts(R"({"window":{"last_ts":-5}})"), -5);
  EXPECT_FALSE(payload_window_last_ts(""));
  EXPECT_FALSE(payload_window_last_ts("not json"));
  EXPECT_FALSE(payload_window_last_ts(R"({"window":{"last_ts":1.5}})"));
  EXPECT_FALSE(payload_window_last_ts(R"({"window":[1]})"));
  EXPECT_FALSE(payload_window_last_ts(R"([1,2])"));
}

TEST(Publication, EveryMetricByNameNonFiniteAsNull) {
  const Grid g = small_grid();
  const SweepResult r = result_of(g);
  const Json j = publication_json(input_of(g, r));
  for (std::string_view name : kMetricNames) {
    EXPECT_TRUE(j["metrics"].contains(std::string(name))) << name;
  }
  EXPECT_EQ(j["metrics"].size(), std::size(kMetricNames));
  EXPECT_TRUE(j["metrics"]["sharpe"].is_null());
  EXPECT_DOUBLE_EQ(j["metrics"]["total_return"].get<double>(), 0.25);
  EXPECT_TRUE(j["metrics"]["trades"].is_number_integer());
  EXPECT_EQ(j["metrics"]["trades"], 3);
  EXPECT_TRUE(j["top"][1]["metrics"]["profit_factor"].is_null());
  // The text must parse back: no NaN or Infinity tokens.
  Json parsed;
  EXPECT_NO_THROW(parsed = Json::parse(j.dump()));
  EXPECT_TRUE(parsed["metrics"]["sharpe"].is_null());
}

TEST(Publication, LiveOosAndVolParams) {
  Grid g = small_grid();
  g.vol_short = {5};
  g.vol_long = {30};
  g.vol_threshold = {0.8};
  const SweepResult r = result_of(g);
  PublicationInput in = input_of(g, r);
  Metrics m;
  m.bars = 4;
  in.live_oos = LiveOos{6, 4, m};
  const Json j = publication_json(in);
  EXPECT_EQ(j["params"]["vol_short"], 5);
  EXPECT_EQ(j["params"]["vol_long"], 30);
  EXPECT_DOUBLE_EQ(j["params"]["vol_threshold"].get<double>(), 0.8);
  EXPECT_EQ(j["live_oos"]["seq"], 6);
  EXPECT_EQ(j["live_oos"]["bars"], 4);
  EXPECT_EQ(j["live_oos"]["metrics"].size(), std::size(kMetricNames));
  EXPECT_TRUE(j["position"].is_null());
  in.position = -1;
  EXPECT_EQ(publication_json(in)["position"], Json({{"value", -1}, {"ts", in.last_ts}}));
}

// A rules strategy's params (PROTOCOL v1.2): by name in its params' order, then the stops;
// integral values as integers.
TEST(Publication, RulesParamsByName) {
  rules::RulesText text;
  text.params = {"fast", "slow", "lvl"};
  text.indicators = {{"f", "ema($fast)"}, {"s", "sma($slow)"}, {"r", "rsi(14)"}};
  text.long_entry = "f > s and r < $lvl";
  Grid g;
  g.family = Family::rules;
  g.program = std::make_shared<const rules::Program>(rules::compile(text));
  g.rule_axes = {{5, 10}, {20}, {30, 32.5}};
  g.stop_loss = {0.01};
  SweepResult r = result_of(g);
  r.top[0].combo = g.decode(3);  // fast 10, lvl 32.5
  const Json j = publication_json(input_of(g, r));
  EXPECT_EQ(j["params"].dump(),
            "{\"fast\":10,\"slow\":20,\"lvl\":32.5,\"stop_loss\":0.01,\"take_profit\":0.0,"
            "\"trailing_stop\":0.0}");
  EXPECT_EQ(j["id"], 3);
  EXPECT_EQ(j["top"][1]["params"]["lvl"], 30);
}

TEST(Publication, NoWinnerIsAnError) {
  const Grid g = small_grid();
  SweepResult r;
  EXPECT_THROW((void)publication_json(input_of(g, r)), std::invalid_argument);
}

// Closes 100, 110, 121, 110, 121; the winner is long throughout; live bars are 3 and 4.
struct LiveCase {
  Series s;
  LiveCase() {
    for (double c : {100.0, 110.0, 121.0, 110.0, 121.0}) {
      Bar b;
      b.ts_ns = static_cast<int64_t>(s.size()) + 1;
      b.open = b.high = b.low = b.close = c;
      s.push_back(b);
    }
  }
};

TEST(LiveOos, HandCaseFromFlat) {
  LiveCase c;
  const HistoryView h = HistoryView::of(c.s);
  const std::vector<int8_t> winner(5, 1);
  // No winner before: bar 3's exit segment is held flat, so entering costs 1 unit.
  const Metrics m = live_oos_metrics(h, Fill::close, 0.001, 252, winner, {}, 3, 5);
  EXPECT_EQ(m.bars, 2);
  EXPECT_EQ(m.long_bars, 2);
  EXPECT_EQ(m.changes, 1);
  const double expected = (1.0 + (110.0 - 121.0) / 121.0 - 0.001) * (1.0 + 11.0 / 110.0) - 1.0;
  EXPECT_NEAR(m.total_return, expected, 1e-12);
}

TEST(LiveOos, HandCaseSameSideAsBefore) {
  LiveCase c;
  const HistoryView h = HistoryView::of(c.s);
  const std::vector<int8_t> winner(5, 1);
  const std::vector<int8_t> before(5, 1);
  // The previous winner was long too: no switch, no cost; (10/11) * 1.1 - 1 = 0.
  const Metrics m = live_oos_metrics(h, Fill::close, 0.001, 252, winner, before, 3, 5);
  EXPECT_EQ(m.bars, 2);
  EXPECT_EQ(m.changes, 0);
  EXPECT_NEAR(m.total_return, 0.0, 1e-12);
}

TEST(LiveOos, BadRangeThrows) {
  LiveCase c;
  const HistoryView h = HistoryView::of(c.s);
  const std::vector<int8_t> winner(5, 1);
  EXPECT_THROW((void)live_oos_metrics(h, Fill::close, 0, 252, winner, {}, 0, 5),
               std::invalid_argument);
  EXPECT_THROW((void)live_oos_metrics(h, Fill::close, 0, 252, winner, {}, 3, 6),
               std::invalid_argument);
}

}  // namespace
}  // namespace wfod::daemon

namespace wfod::daemon {
namespace {

// The tail form (what a daemon that keeps no bars from the anchor computes) equals the
// anchored form on random series, positions and ranges, both fills.
TEST(LiveOos, TailFormEqualsAnchoredForm) {
  std::mt19937_64 rng(20261201);
  for (int round = 0; round < 300; ++round) {
    SCOPED_TRACE(round);
    const size_t n = 3 + rng() % 60;
    Series s;
    double price = 100;
    for (size_t t = 0; t < n; ++t) {
      const double open = price;
      price *= 1.0 + (static_cast<double>(rng() % 2001) - 1000.0) * 1e-5;
      s.push_back(Bar{static_cast<int64_t>(t + 1), open, std::max(open, price) + 0.1,
                      std::min(open, price) - 0.1, price, 1, 0});
    }
    const HistoryView h = HistoryView::of(s);
    std::vector<int8_t> winner(n), before(n);
    for (size_t t = 0; t < n; ++t) {
      winner[t] = static_cast<int8_t>(static_cast<int>(rng() % 3) - 1);
      before[t] = static_cast<int8_t>(static_cast<int>(rng() % 3) - 1);
    }
    const size_t first = 1 + rng() % (n - 1);
    const size_t end = first + rng() % (n - first + 1);
    const Fill fill = round % 2 ? Fill::close : Fill::next_open;
    const Metrics want = live_oos_metrics(h, fill, 0.0007, 252, winner, before, first, end);
    std::vector<int8_t> tail_pos;
    for (size_t t = first - 1; t + 1 <= end; ++t)  // p at bars first-2 .. end-2
      tail_pos.push_back(t >= 1 ? winner[t - 1] : 0);
    const int8_t before2 = first >= 2 ? before[first - 2] : 0;
    const HistoryView tail{
        h.ts_ns.subspan(first - 1, end - first + 1), h.open.subspan(first - 1, end - first + 1),
        h.high.subspan(first - 1, end - first + 1),  h.low.subspan(first - 1, end - first + 1),
        h.close.subspan(first - 1, end - first + 1), {}};
    const Metrics got = live_oos_metrics_tail(tail, fill, 0.0007, 252, tail_pos, before2);
    ASSERT_EQ(got.trades, want.trades);
    ASSERT_EQ(got.changes, want.changes);
    ASSERT_EQ(std::memcmp(&got, &want, sizeof(Metrics)), 0) << "first " << first << " end " << end;
  }
}

}  // namespace
}  // namespace wfod::daemon
