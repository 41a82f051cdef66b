// The rules cases (SPEC §5a, with §5b's stops) the cuda backend is held to against cpu_ref on
// the shared real data: the four built-in families written as rules (builtin_rules.cpp, rsi's
// levels above and below 50), rules with arithmetic, crosses, bands, channels and volume,
// every stop kind on both sides, fill close and next_open, the vol filter, undefined stretches
// (HMA(1), a long SMA), arithmetic at the dead band's edge, invalid combos through `valid`.
// Used by the cuda backend's parity (cuda_rules_parity_test.cpp) and the host test of the
// evaluator a cuda thread runs (unit/kernels/core/rule_eval_test.cpp).
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "support/backend_parity.hpp"
#include "wfod/backend.hpp"
#include "wfod/rules/builtin_rules.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::test {

struct RulesCase {
  std::string name;
  std::string file;  // a stem of the shared data folder
  StrategySpec spec;
  size_t bars = 0;  // W; 0 = every bar after the warm-up
};

inline void PrintTo(const RulesCase& c, std::ostream* os) { *os << c.name; }

template <typename T>
std::vector<double> rules_case_doubles(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// A built-in family's grid (one value per categorical axis) as the rules grid of its text.
inline Grid builtin_as_rules(const Grid& family) {
  Grid r;
  r.family = Family::rules;
  r.program = std::make_shared<const rules::Program>(
      rules::compile(rules::builtin_rules(family.decode(0))));
  switch (family.family) {
    case Family::ma_cross:
      r.rule_axes = {rules_case_doubles(family.fast), rules_case_doubles(family.slow)};
      break;
    case Family::channel_breakout:
      r.rule_axes = {rules_case_doubles(family.n)};
      break;
    case Family::bollinger:
      r.rule_axes = {rules_case_doubles(family.n), family.k};
      break;
    case Family::rsi_reversion:
      r.rule_axes = {rules_case_doubles(family.n), family.lo, family.hi};
      break;
    case Family::rules:
      break;
  }
  r.stop_loss = family.stop_loss;
  r.take_profit = family.take_profit;
  r.trailing_stop = family.trailing_stop;
  r.vol_short = family.vol_short;
  r.vol_long = family.vol_long;
  r.vol_threshold = family.vol_threshold;
  r.validate();
  return r;
}

inline Grid rules_case_grid(const rules::RulesText& text, std::vector<std::vector<double>> axes) {
  Grid g;
  g.family = Family::rules;
  g.program = std::make_shared<const rules::Program>(rules::compile(text));
  g.rule_axes = std::move(axes);
  g.validate();
  return g;
}

inline Grid rules_case_stops(Grid g, std::vector<double> sl, std::vector<double> tp,
                             std::vector<double> ts) {
  g.stop_loss = std::move(sl);
  g.take_profit = std::move(tp);
  g.trailing_stop = std::move(ts);
  g.validate();
  return g;
}

// Arithmetic (each operation rounded once, magnitudes carried to the dead band), crosses of
// computed values, an exact cross of two raw levels, bands, a channel, volume, `valid`.
inline rules::RulesText rules_case_arithmetic() {
  rules::RulesText t;
  t.params = {"fast", "slow", "lvl"};
  t.indicators = {{"f", "ema($fast)"},        {"s", "sma($slow)"},        {"r", "rsi(14)"},
                  {"u", "bb_upper(20, 2.5)"}, {"l", "bb_lower(20, 2.5)"}, {"h", "hh(20, high_low)"},
                  {"lo", "ll(30)"},           {"w", "wma(10)"},           {"sd", "std(10)"}};
  t.long_entry = "crosses_above(f, s) or (close - l) / (u - l) < 0.15 and r < $lvl";
  t.long_exit = "crosses_below(f, s * 1.002) or not (close < h)";
  t.short_entry = "crosses_below(close, lo) or f - s > 2 * sd and r > 100 - $lvl";
  t.short_exit = "w + sd / 2 < s or volume * close < 0";
  t.valid = "$fast < $slow and $fast * 3 > $slow - 40";
  return t;
}

// An indicator undefined everywhere for some combos (HMA(1)) and one defined only late (a long
// SMA): those combos stay flat where SPEC §4 says.
inline rules::RulesText rules_case_undefined() {
  rules::RulesText t;
  t.params = {"h", "long"};
  t.indicators = {{"a", "hma($h)"}, {"b", "sma($long)"}, {"c", "ema(5)"}};
  t.long_entry = "c > a and close > b";
  t.short_entry = "c < a and close < b";
  t.long_exit = "c < a";
  t.short_exit = "c > a";
  return t;
}

// Comparisons whose two sides differ by about the dead band δ·M (SPEC §5a): SMA(1) is the close
// itself, so `m * (1 + eps)` against the close sits on the band's edge for eps near 1e-10, and
// which side a bar falls on depends on every rounding of the product and of its magnitude; a
// quotient's magnitude, a nested expression, and `not` over them.
inline rules::RulesText rules_case_dead_band() {
  rules::RulesText t;
  t.params = {"eps", "n"};
  t.indicators = {{"m", "sma($n)"}, {"e", "ema(3)"}};
  t.long_entry = "m * (1 + $eps) > close and not (e > m * (1 + 20 * $eps))";
  t.long_exit = "close / m < 1 - $eps or crosses_below(close * 2 / 2, m * (1 - $eps))";
  t.short_entry = "close - m > $eps * close or (close - open) / (high - low + 0.0001) * 2 < 0 - 1";
  t.short_exit = "crosses_above(m + m * $eps, close - close * $eps)";
  return t;
}

// rsi_reversion's levels on both sides of 50 (SPEC §5a's exits repeat the levels: a long kept
// below lo where lo > 50, a short above hi where hi < 50).
inline Grid rules_case_rsi_levels() {
  Grid g;
  g.family = Family::rsi_reversion;
  g.n = {1, 7, 14};
  g.lo = {25, 55, 75};
  g.hi = {45, 65, 80};
  return g;
}

inline std::vector<RulesCase> rules_cases() {
  std::vector<RulesCase> cs;
  {
    Grid g;
    g.fast = {5, 10, 30};
    g.slow = {20, 30, 60};
    g.ma = {MaType::ema};
    cs.push_back({"builtin_ma_cross_ema_state", "goog_d1_2004-2013",
                  spec_of(builtin_as_rules(g), Fill::close, 2)});
    g.ma = {MaType::hma};
    g.entry = {Entry::cross};
    g.side = {Side::long_only};
    g.stop_loss = {0, 0.03};
    g.trailing_stop = {0.05};
    cs.push_back({"builtin_ma_cross_hma_cross_long_only_stops", "nvda_d1_1999-2014",
                  spec_of(builtin_as_rules(g), Fill::next_open, 2)});
  }
  {
    Grid g;
    g.family = Family::channel_breakout;
    g.n = {10, 20, 55};
    g.source = {Source::high_low};
    g.vol_short = {5, 10};
    g.vol_long = {30};
    g.vol_threshold = {0.9, 1.1};
    cs.push_back({"builtin_channel_high_low_vol", "eurusd_h1_2017-2018",
                  spec_of(builtin_as_rules(g), Fill::next_open, 1)});
  }
  {
    Grid g;
    g.family = Family::bollinger;
    g.n = {1, 10, 20};
    g.k = {1.5, 2.5};
    cs.push_back({"builtin_bollinger_reversion", "orcl_d1_1995-2014",
                  spec_of(builtin_as_rules(g), Fill::close, 2)});
    g.style = {Style::breakout};
    g.side = {Side::long_only};
    g.take_profit = {0, 0.08};
    cs.push_back({"builtin_bollinger_breakout_long_only_tp", "yhoo_d1_1996-2015",
                  spec_of(builtin_as_rules(g), Fill::close, 2)});
  }
  {
    Grid g = rules_case_rsi_levels();
    cs.push_back({"builtin_rsi_levels_around_50", "goog_d1_2004-2013",
                  spec_of(builtin_as_rules(g), Fill::close, 2)});
    g.side = {Side::long_only};
    g.stop_loss = {0, 0.05};
    g.trailing_stop = {0, 0.08};
    cs.push_back({"builtin_rsi_long_only_levels_around_50_stops", "nvda_d1_1999-2014",
                  spec_of(builtin_as_rules(g), Fill::next_open, 2)});
  }
  const std::vector<std::vector<double>> arith_axes = {{5, 12, 20}, {20, 50}, {30, 40}};
  cs.push_back({"arithmetic_crosses_volume_valid", "btcperp_ftx_m1_2022-01",
                spec_of(rules_case_grid(rules_case_arithmetic(), arith_axes), Fill::close, 0.5),
                20000});
  cs.push_back({"arithmetic_every_stop_close", "goog_d1_2004-2013",
                spec_of(rules_case_stops(rules_case_grid(rules_case_arithmetic(), arith_axes),
                                         {0, 0.04}, {0, 0.1}, {0, 0.06}),
                        Fill::close, 2)});
  cs.push_back({"arithmetic_every_stop_next_open", "eurusd_h1_2017-2018",
                spec_of(rules_case_stops(rules_case_grid(rules_case_arithmetic(), arith_axes),
                                         {0, 0.004}, {0, 0.01}, {0, 0.003}),
                        Fill::next_open, 1)});
  {
    Grid g = rules_case_grid(rules_case_undefined(), {{1, 9, 16}, {50, 400}});
    g.vol_short = {10};
    g.vol_long = {40};
    g.vol_threshold = {0.8};
    cs.push_back({"undefined_stretches_vol_filter_stops", "orcl_d1_1995-2014",
                  spec_of(rules_case_stops(g, {0, 0.05}, {0}, {0, 0.1}), Fill::next_open, 2)});
  }
  {
    const std::vector<std::vector<double>> axes = {
        {0, 5e-11, 9.9e-11, 1e-10, 1.01e-10, 2e-10, 1e-9, 1e-4}, {1, 2, 5}};
    cs.push_back({"dead_band_arithmetic", "goog_d1_2004-2013",
                  spec_of(rules_case_grid(rules_case_dead_band(), axes), Fill::close, 2)});
    cs.push_back({"dead_band_arithmetic_stops_next_open", "yhoo_d1_1996-2015",
                  spec_of(rules_case_stops(rules_case_grid(rules_case_dead_band(), axes), {0, 0.03},
                                           {0, 0.05}, {0.04}),
                          Fill::next_open, 2)});
  }
  for (RulesCase& c : cs) c.spec.bars_per_year = 252;
  return cs;
}

// The request of a case: a window of `bars` ending at the file's last bar (else every bar
// after the warm-up), the top 20.
inline SweepRequest rules_case_request(const RulesCase& c, const HistoryView& h) {
  SweepRequest req;
  req.history = h;
  req.strategy = c.spec;
  const size_t warmup = default_warmup(c.spec.grid);
  req.window = {h.size(), c.bars ? c.bars : h.size() - 1 - warmup, warmup};
  req.rank.top = 20;
  return req;
}

}  // namespace wfod::test
