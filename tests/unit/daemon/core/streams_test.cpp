// Tests of the streams' records (daemon/core/streams.cpp): the fingerprint a reload compares
// (what changes the computation changes it, the name does not), a new stream's schedule and
// first signalled bar, a run's sweep request, and the history needs of one symbol's streams.
#include "wfod/daemon/core/streams.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wfod/config/config.hpp"

namespace wfod::daemon {
namespace {

config::StrategyConfig strategy(std::string name) {
  config::StrategyConfig s;
  s.name = std::move(name);
  s.symbols = {"S0"};
  s.spec.grid.fast = {3, 5};
  s.spec.grid.slow = {20};
  s.window = 50;
  s.warmup = 7;
  s.every = 10;
  return s;
}

TEST(Streams, TheFingerprintChangesWithWhatAStreamComputesOnly) {
  const config::StrategyConfig a = strategy("trend");
  EXPECT_EQ(fingerprint(a), fingerprint(strategy("renamed")));
  std::vector<config::StrategyConfig> changed(6, a);
  changed[0].window = 51;
  changed[1].every = 11;
  changed[2].warmup.reset();
  changed[3].spec.grid.slow = {20, 40};
  changed[4].spec.costs.commission_bps = 1;
  changed[5].rank.min_trades = 3;
  for (const config::StrategyConfig& c : changed) EXPECT_NE(fingerprint(c), fingerprint(a));
}

// A rules strategy (SPEC §5a) with a stop axis, its long_entry written as given.
config::StrategyConfig rules_strategy(const std::string& long_entry,
                                      const std::string& stop_loss = "[0, 0.02]") {
  const config::Config c = config::parse_config(
      "[[strategy]]\nname = \"r\"\nsymbols = [\"X\"]\nfamily = \"rules\"\nwindow = 100\n"
      "[strategy.rules]\nparams = [\"fast\", \"slow\"]\n"
      "indicators = { f = \"ema($fast)\", s = \"sma($slow)\" }\n"
      "long_entry = " +
          long_entry +
          "\n"
          "[strategy.grid]\nfast = [5, 10]\nslow = [20, 40]\nstop_loss = " +
          stop_loss + "\n",
      "wfod.toml");
  return c.strategies.at(0);
}

TEST(Streams, TheFingerprintHoldsTheRulesMeaningAndTheStops) {
  const std::string a = fingerprint(rules_strategy("\"f > s\""));
  // Laid out otherwise, the same program: the same stream.
  EXPECT_EQ(a, fingerprint(rules_strategy("'f  >   s'")));
  EXPECT_EQ(a, fingerprint(rules_strategy("\"(f > s)\"")));
  // Another meaning, another stop axis: another stream (its saved state no longer matches).
  EXPECT_NE(a, fingerprint(rules_strategy("\"f < s\"")));
  EXPECT_NE(a, fingerprint(rules_strategy("\"f > s and close > 1\"")));
  EXPECT_NE(a, fingerprint(rules_strategy("\"f > s\"", "[0, 0.03]")));
  // A built-in family's stops are in it too.
  config::StrategyConfig with_stops = strategy("trend");
  with_stops.spec.grid.trailing_stop = {0.01};
  EXPECT_NE(fingerprint(with_stops), fingerprint(strategy("trend")));
}

TEST(Streams, ANewStreamRunsOnceItsWindowFillsAndSignalsOnlyNewBars) {
  SymbolState sym;
  sym.cfg.name = "S0";
  sym.cfg.bars_per_year = 365;
  for (int64_t t = 1; t <= 40; ++t) sym.history.push_back(Bar{t, 1, 1, 1, 1, 1, 0});
  const SymbolStrategy s = new_stream(strategy("trend"), sym, 9);
  EXPECT_EQ(s.generation, 9u);
  EXPECT_EQ(s.warmup, 7u);
  EXPECT_EQ(s.sched.min_bars(), 50u + 7 + 1);
  EXPECT_EQ(s.spec.bars_per_year, 365);
  EXPECT_EQ(s.signals.next(), 40u);
  EXPECT_EQ(s.fingerprint_crc, new_stream(strategy("other"), sym, 1).fingerprint_crc);

  config::DaemonConfig d;
  d.threads = 3;
  const SweepRequest r = request_for(s, 120, d);
  EXPECT_EQ(r.window.end, 120u);
  EXPECT_EQ(r.window.bars, 50u);
  EXPECT_EQ(r.window.warmup, 7u);
  EXPECT_EQ(r.threads, 3);
}

TEST(Streams, HistoryNeedsAreThoseOfTheSymbolsStreams) {
  SymbolState sym;
  sym.cfg.name = "S0";
  StreamMap streams;
  SymbolStrategy& a = streams[{"S0", "a"}] = new_stream(strategy("a"), sym, 1);
  a.taken = 100;
  a.last_end = 90;
  a.bounded = true;
  streams[{"S1", "a"}] = new_stream(strategy("a"), sym, 2);
  const std::vector<HistoryNeed> needs = history_needs(streams, "S0");
  ASSERT_EQ(needs.size(), 1u);
  EXPECT_TRUE(needs[0].bounded);
  EXPECT_EQ(needs[0].keep, 50u + 7 + 2);
  EXPECT_EQ(needs[0].every, 10u);
  EXPECT_EQ(needs[0].taken, 100u);
  EXPECT_EQ(needs[0].last_end, 90u);
  EXPECT_FALSE(needs[0].signals_from.has_value());  // not following
}

TEST(Streams, AReloadKeepsUnchangedStreamsRestartsChangedOnesAndWaitsForNewSymbols) {
  SymbolState sym;
  sym.cfg.name = "S0";
  StreamMap running;
  running[{"S0", "keep"}] = new_stream(strategy("keep"), sym, 1);
  running[{"S0", "change"}] = new_stream(strategy("change"), sym, 2);
  running[{"S0", "drop"}] = new_stream(strategy("drop"), sym, 3);
  std::vector<config::StrategyConfig> next{strategy("keep"), strategy("change"), strategy("add")};
  next[1].window = 60;
  next[2].symbols = {"S0", "S9"};  // S9 is not a symbol of the running daemon
  const StreamChanges c =
      stream_changes(running, next, [](std::string_view s) { return s == "S0"; });
  EXPECT_EQ(c.removed, (std::vector<PublicationKey>{{"S0", "drop"}}));
  ASSERT_EQ(c.started.size(), 2u);  // "keep" is left alone
  EXPECT_EQ(c.started[0].key, (PublicationKey{"S0", "add"}));
  EXPECT_FALSE(c.started[0].changed);
  EXPECT_EQ(c.started[0].strategy, &next[2]);
  EXPECT_EQ(c.started[1].key, (PublicationKey{"S0", "change"}));
  EXPECT_TRUE(c.started[1].changed);
  EXPECT_EQ(c.started[1].strategy->window, 60u);
  EXPECT_EQ(c.new_symbols, (std::vector<std::pair<std::string, std::string>>{{"add", "S9"}}));
}

}  // namespace
}  // namespace wfod::daemon
