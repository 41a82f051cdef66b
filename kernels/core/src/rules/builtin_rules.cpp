// The built-in families of SPEC §5 as SPEC §5a rule text, in one place. Where SPEC §5a gives
// the text (ma_cross state long_short, bollinger reversion long_short, rsi_reversion's long
// exit) it is used verbatim; the rest follows from the same transitions (docs/spec-notes.md).
#include "wfod/rules/builtin_rules.hpp"

#include <stdexcept>
#include <string>

namespace wfod::rules {
namespace {

// long_only families: what the family's short signal would do to a long (go to 0) becomes
// part of the long exit, since from flat a long_only family's short signal is a no-op.
RulesText ma_cross_rules(const Combo& c) {
  RulesText r;
  r.params = {"fast", "slow"};
  r.valid = "$fast < $slow";
  const std::string ma(to_string(c.ma));
  r.indicators = {{"fast", ma + "($fast)"}, {"slow", ma + "($slow)"}};
  const bool cross = c.entry == Entry::cross;
  const std::string up = cross ? "crosses_above(fast, slow)" : "fast > slow";
  const std::string down = cross ? "crosses_below(fast, slow)" : "fast < slow";
  r.long_entry = up;
  if (c.side == Side::long_short) {
    r.short_entry = down;
  } else {
    r.long_exit = down;
  }
  return r;
}

RulesText channel_rules(const Combo& c) {
  RulesText r;
  r.params = {"n"};
  const std::string args = c.source == Source::high_low ? "($n, high_low)" : "($n)";
  r.indicators = {{"upper", "hh" + args}, {"lower", "ll" + args}};
  // Prices against the channel: compared exactly (SPEC §4, §5a).
  r.long_entry = "close > upper";
  if (c.side == Side::long_short) {
    r.short_entry = "close < lower";
  } else {
    r.long_exit = "close < lower";
  }
  return r;
}

RulesText bollinger_rules(const Combo& c) {
  RulesText r;
  r.params = {"n", "k"};
  r.valid = "$n > 1 and $k > 0";
  r.indicators = {
      {"upper", "bb_upper($n, $k)"}, {"lower", "bb_lower($n, $k)"}, {"mid", "bb_mid($n)"}};
  const bool fade = c.style == Style::reversion;
  // reversion: enter against a band, hold while on the band's side of the middle;
  // breakout: enter with a band, likewise.
  const std::string long_in = fade ? "close < lower" : "close > upper";
  const std::string short_in = fade ? "close > upper" : "close < lower";
  const std::string long_hold = fade ? "not (close < mid)" : "not (close > mid)";
  const std::string short_hold = fade ? "not (close > mid)" : "not (close < mid)";
  r.long_entry = long_in;
  if (c.side == Side::long_short) {
    r.short_entry = short_in;
    r.long_exit = long_hold;
    r.short_exit = short_hold;
  } else {
    r.long_exit = short_in + " or " + long_hold;
  }
  return r;
}

RulesText rsi_rules(const Combo& c) {
  RulesText r;
  r.params = {"n", "lo", "hi"};
  r.valid = "$n > 1 and $lo < $hi";
  r.indicators = {{"r", "rsi($n)"}};
  r.long_entry = "r < $lo";
  // The levels repeat in the exits (SPEC §5a): a long is kept below lo even where lo > 50.
  const std::string long_exit = "not (r < 50) and not (r < $lo)";
  if (c.side == Side::long_short) {
    r.short_entry = "r > $hi";
    r.long_exit = long_exit;
    r.short_exit = "not (r > 50) and not (r > $hi)";
  } else {
    r.long_exit = "r > $hi or (" + long_exit + ")";
  }
  return r;
}

}  // namespace

RulesText builtin_rules(const Combo& combo) {
  switch (combo.family) {
    case Family::ma_cross:
      return ma_cross_rules(combo);
    case Family::channel_breakout:
      return channel_rules(combo);
    case Family::bollinger:
      return bollinger_rules(combo);
    case Family::rsi_reversion:
      return rsi_rules(combo);
    case Family::rules:
      break;
  }
  throw std::invalid_argument("builtin_rules: a rules combo is not a built-in family");
}

std::vector<double> builtin_values(const Combo& c) {
  switch (c.family) {
    case Family::ma_cross:
      return {static_cast<double>(c.fast), static_cast<double>(c.slow)};
    case Family::channel_breakout:
      return {static_cast<double>(c.n)};
    case Family::bollinger:
      return {static_cast<double>(c.n), c.k};
    case Family::rsi_reversion:
      return {static_cast<double>(c.n), c.lo, c.hi};
    case Family::rules:
      return c.rule_values;
  }
  return {};
}

}  // namespace wfod::rules
