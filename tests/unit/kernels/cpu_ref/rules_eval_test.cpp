// cpu_ref's evaluation of SPEC §5a rules on small hand-made series: the transitions, the dead
// band carried through arithmetic, exact price comparisons, crosses, undefined indicators,
// non-finite operands and the volume field.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cpu_ref/ref_rules.hpp"
#include "support/series.hpp"
#include "wfod/bar.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod {
namespace {

using rules::RulesText;

using test::bars;

std::vector<int8_t> run(const RulesText& text, const Series& s, std::vector<double> values = {},
                        std::span<const double> volume = {}) {
  ref::IndicatorCache cache(HistoryView::of(s));
  const rules::Program program = rules::compile(text);
  return ref::rules_positions(cache, program, values, nullptr, volume);
}

using P = std::vector<int8_t>;

TEST(RulesEval, TransitionsFromFlatLongAndShort) {
  RulesText r;
  r.long_entry = "close > 100";
  r.long_exit = "close < 100";
  EXPECT_EQ(run(r, bars({99, 101, 100, 99, 102})), (P{0, 1, 1, 0, 1}));
  // From long, a short entry wins over the long exit; from short, a long entry over the exit.
  RulesText both;
  both.long_entry = "close > 10";
  both.long_exit = "close < 8";
  both.short_entry = "close < 5";
  both.short_exit = "close > 6";
  EXPECT_EQ(run(both, bars({11, 4})), (P{1, -1}));
  EXPECT_EQ(run(both, bars({11, 7})), (P{1, 0}));
  EXPECT_EQ(run(both, bars({4, 11})), (P{-1, 1}));
  EXPECT_EQ(run(both, bars({4, 7})), (P{-1, 0}));
  EXPECT_EQ(run(both, bars({4, 5.5})), (P{-1, -1}));
  // From flat, long_entry is read before short_entry.
  RulesText greedy;
  greedy.long_entry = "close > 1";
  greedy.short_entry = "close > 2";
  EXPECT_EQ(run(greedy, bars({3})), (P{1}));
  // No condition at all: always flat.
  EXPECT_EQ(run(RulesText{}, bars({1, 2, 3})), (P{0, 0, 0}));
}

TEST(RulesEval, DeadBandOfSingleValues) {
  RulesText r;
  r.long_entry = "close > 100";  // a literal: dead band δ·max(|c|, 100)
  EXPECT_EQ(run(r, bars({100, 100 * (1 + 5e-11), 100 * (1 + 2e-10)})), (P{0, 0, 1}));
  // Lone prices compare exactly; any arithmetic brings the dead band back.
  const Series s = bars({100 * (1 + 1e-12)}, {100});
  r.long_entry = "close > open";
  EXPECT_EQ(run(r, s), (P{1}));
  r.long_entry = "close > open + 0";
  EXPECT_EQ(run(r, s), (P{0}));
}

TEST(RulesEval, MagnitudesCarryThroughArithmetic) {
  RulesText r;
  // close - open is ~1e-9 but its magnitude is ~200: 1e-9 is inside δ·200 = 2e-8.
  r.long_entry = "close - open > 0";
  EXPECT_EQ(run(r, bars({100 + 1e-9}, {100})), (P{0}));
  EXPECT_EQ(run(r, bars({100 + 1e-7}, {100})), (P{1}));
  // close / open ~ 1 + e with magnitude (100 + q·100) / 100 ~ 2: the band is 2e-10.
  r.long_entry = "close / open > 1";
  EXPECT_EQ(run(r, bars({100 * (1 + 1.5e-10)}, {100})), (P{0}));
  EXPECT_EQ(run(r, bars({100 * (1 + 3e-10)}, {100})), (P{1}));
  // M(a·b) = M(a)·M(b): 2·close against 200 has the band δ·200.
  r.long_entry = "2 * close > 200";
  EXPECT_EQ(run(r, bars({100 * (1 + 5e-11)})), (P{0}));
  EXPECT_EQ(run(r, bars({100 * (1 + 2e-10)})), (P{1}));
  // Each operation rounds once, left to right: (0.1 + 0.2) - 0.3 is 5.55e-17, not 0, and
  // its magnitude 0.6 keeps it inside the band.
  r.long_entry = "0.1 + 0.2 - 0.3 > 0";
  EXPECT_EQ(run(r, bars({1})), (P{0}));
}

TEST(RulesEval, NonFiniteOperandsCompareFalse) {
  RulesText r;
  r.long_entry = "close / (close - close) > 1";
  EXPECT_EQ(run(r, bars({5})), (P{0}));
  r.long_entry = "close / (close - close) < 1";
  EXPECT_EQ(run(r, bars({5})), (P{0}));
  r.long_entry = "not (close / 0 > 1)";
  EXPECT_EQ(run(r, bars({5})), (P{1}));
}

TEST(RulesEval, UndefinedUsedIndicatorsMakeTheTargetZero) {
  RulesText r;
  r.indicators = {{"m", "sma(3)"}, {"unused", "sma(50)"}};
  r.long_entry = "close > 0 or m > 1000";
  // m is undefined on bars 0 and 1: flat there, whatever the condition says; `unused` is
  // declared only and does not count.
  EXPECT_EQ(run(r, bars({1, 2, 3, 4})), (P{0, 0, 1, 1}));
  // hma(1) is undefined everywhere (SPEC §4): such a rule never leaves flat.
  r.indicators = {{"h", "hma(1)"}};
  r.long_entry = "close > 0 or h > 0";
  EXPECT_EQ(run(r, bars({1, 2, 3})), (P{0, 0, 0}));
}

TEST(RulesEval, CrossesNeedBothBars) {
  RulesText r;
  r.long_entry = "crosses_above(close, 10)";
  r.short_entry = "crosses_below(close, 10)";
  // False at the anchor; up at 1; hold at 2; down at 3; up at 4.
  EXPECT_EQ(run(r, bars({9, 11, 12, 9, 11})), (P{0, 1, 1, -1, 1}));
  // Touching the level (within the band) is not a cross: 9 -> 10 -> 11 crosses nowhere.
  EXPECT_EQ(run(r, bars({9, 10, 11})), (P{0, 0, 0}));
  // Undefined at t-1: no cross. m = sma(2) exists from bar 1; bar 1's cross reads bar 0.
  RulesText m;
  m.indicators = {{"m", "sma(2)"}};
  m.long_entry = "crosses_above(close, m)";
  EXPECT_EQ(run(m, bars({5, 1, 3})), (P{0, 0, 1}));
  EXPECT_EQ(run(m, bars({1, 5, 3})), (P{0, 0, 0}));
  // Operands with arithmetic are re-evaluated at t-1 too.
  m.long_entry = "crosses_above(close * 2, m + 1)";
  EXPECT_EQ(run(m, bars({5, 1, 3})), (P{0, 0, 1}));
}

TEST(RulesEval, ParametersAndPeriods) {
  RulesText r;
  r.params = {"n", "lvl"};
  r.indicators = {{"m", "sma($n)"}};
  r.long_entry = "m > $lvl";
  EXPECT_EQ(run(r, bars({1, 3, 5}), {2, 2.5}), (P{0, 0, 1}));
  EXPECT_EQ(run(r, bars({1, 3, 5}), {1, 2.5}), (P{0, 1, 1}));
  EXPECT_THROW(run(r, bars({1, 3, 5}), {1.5, 2.5}), rules::RuleError);
  EXPECT_THROW(run(r, bars({1, 3, 5}), {2}), std::invalid_argument);
}

TEST(RulesEval, VolumeIsABarField) {
  RulesText r;
  r.long_entry = "volume > 10";
  r.long_exit = "volume < 1";
  const std::vector<double> volume{5, 20, 3, 0};
  EXPECT_EQ(run(r, bars({1, 1, 1, 1}), {}, volume), (P{0, 1, 1, 0}));
  // A program that reads volume needs the column (none given here).
  EXPECT_THROW(run(r, bars({1, 1, 1, 1})), std::invalid_argument);
}

TEST(RulesEval, ExactChannelComparisons) {
  RulesText r;
  r.indicators = {{"hi", "hh(2)"}, {"lo", "ll(2, high_low)"}};
  r.long_entry = "close > hi";
  r.short_entry = "close < lo";
  // hh(2) is the max close of the two bars before: defined from bar 2.
  const Series s = bars({10, 11, 11 * (1 + 1e-13), 9});
  // Bar 2: 11(1 + 1e-13) > 11 exactly (no band) -> long; bar 3: 9 < min(low) -> short.
  EXPECT_EQ(run(r, s), (P{0, 0, 1, -1}));
}

}  // namespace
}  // namespace wfod
