// The SPEC §5a rule language's compiler: what it accepts (and the program it builds), what it
// refuses with which message and column, the limits on untrusted text, and `valid`.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wfod/rules/rules.hpp"

namespace wfod::rules {
namespace {

// PROTOCOL §4's example strategy, plus a Donchian level for exact comparisons.
RulesText example() {
  RulesText r;
  r.params = {"fast", "slow", "lvl"};
  r.indicators = {{"f", "ema($fast)"}, {"s", "sma($slow)"}, {"r", "rsi(14)"}, {"c", "hh(20)"}};
  r.valid = "$fast < $slow";
  r.long_entry = "f > s and r < $lvl";
  r.long_exit = "crosses_below(f, s)";
  return r;
}

// what() of compiling `r`, or "ok".
std::string outcome(const RulesText& r) {
  try {
    (void)compile(r);
    return "ok";
  } catch (const RuleError& e) {
    return e.what();
  }
}

std::string entry_error(const std::string& text) {
  RulesText r = example();
  r.long_entry = text;
  return outcome(r);
}

std::string valid_error(const std::string& text) {
  RulesText r = example();
  r.valid = text;
  return outcome(r);
}

std::string indicator_error(const std::string& text) {
  RulesText r = example();
  r.indicators.emplace_back("g", text);
  return outcome(r);
}

// "i7": built by appending (GCC 12 -O3 warns, -Wrestrict, on "i" + std::to_string(i)).
std::string numbered(char prefix, int i) {
  std::string s(1, prefix);
  s += std::to_string(i);
  return s;
}

std::vector<Op> ops(const Condition& c) {
  std::vector<Op> out;
  for (const Node& n : c.nodes) out.push_back(n.op);
  return out;
}

TEST(RulesParser, CompilesTheProtocolExample) {
  const Program p = compile(example());
  ASSERT_EQ(p.params.size(), 3u);
  ASSERT_EQ(p.indicators.size(), 4u);
  EXPECT_EQ(p.indicators[0].kind, Kind::ema);
  EXPECT_TRUE(p.indicators[0].period.is_param);
  EXPECT_EQ(p.indicators[0].period.param, 0u);
  EXPECT_EQ(p.indicators[2].period.value, 14.0);
  // Used = named by one of the four conditions; c is declared only.
  EXPECT_TRUE(p.indicators[0].used && p.indicators[1].used && p.indicators[2].used);
  EXPECT_FALSE(p.indicators[3].used);
  // Postorder: operands before their operator.
  EXPECT_EQ(ops(p.condition(Slot::long_entry)),
            (std::vector<Op>{Op::indicator, Op::indicator, Op::greater, Op::indicator, Op::param,
                             Op::less, Op::both}));
  const auto& cross = p.condition(Slot::long_exit).nodes;
  ASSERT_EQ(cross.size(), 3u);
  EXPECT_EQ(cross[2].op, Op::crosses_below);
  EXPECT_EQ(cross[2].lhs_begin, 0u);
  EXPECT_EQ(cross[2].rhs_begin, 1u);
  EXPECT_FALSE(p.condition(Slot::short_entry).present());
  EXPECT_TRUE(p.valid.present());
  EXPECT_FALSE(p.uses_volume);
}

TEST(RulesParser, PrecedenceAndAssociativity) {
  RulesText r = example();
  // not > and > or; arithmetic left to right, * / before + -.
  r.long_entry = "not f > 1 or f > 2 and f > 3";
  r.short_entry = "f - s - 1 * 2 / r > 0";
  const Program p = compile(r);
  EXPECT_EQ(ops(p.condition(Slot::long_entry)),
            (std::vector<Op>{Op::indicator, Op::number, Op::greater, Op::negate, Op::indicator,
                             Op::number, Op::greater, Op::indicator, Op::number, Op::greater,
                             Op::both, Op::either}));
  EXPECT_EQ(ops(p.condition(Slot::short_entry)),
            (std::vector<Op>{Op::indicator, Op::indicator, Op::sub, Op::number, Op::number, Op::mul,
                             Op::indicator, Op::div, Op::sub, Op::number, Op::greater}));
}

TEST(RulesParser, ParenthesesGroupConditionsAndNumbers) {
  for (const char* text : {"(f > s)", "((f > s))", "(f + 1) > s", "(f > s) and (r < 30)",
                           "not (f > s or r < 30)", "((f)) > ((s))", "crosses_above((f + 1), s)",
                           "f>s", "  f  >\ts\n", "1 > 0", "$lvl > 50.25", "007.50 < f"}) {
    EXPECT_EQ(entry_error(text), "ok") << text;
  }
}

TEST(RulesParser, ExactOnlyBetweenLonePricesAndChannels) {
  RulesText r = example();
  r.long_entry = "close > c";       // price vs hh: exact
  r.long_exit = "(close) > c";      // parentheses are not arithmetic
  r.short_entry = "close + 0 > c";  // arithmetic: dead band
  r.short_exit = "crosses_above(low, c) or volume > c or close > f or close > 1";
  const Program p = compile(r);
  EXPECT_TRUE(p.condition(Slot::long_entry).nodes.back().exact);
  EXPECT_TRUE(p.condition(Slot::long_exit).nodes.back().exact);
  EXPECT_FALSE(p.condition(Slot::short_entry).nodes.back().exact);
  std::vector<bool> exact;
  for (const Node& n : p.condition(Slot::short_exit).nodes) {
    if (n.op == Op::greater || n.op == Op::crosses_above) exact.push_back(n.exact);
  }
  EXPECT_EQ(exact, (std::vector<bool>{true, false, false, false}));
  EXPECT_TRUE(p.uses_volume);
}

TEST(RulesParser, ConditionErrorsNameKeyColumnAndWhatWasExpected) {
  const std::pair<const char*, const char*> cases[] = {
      {"f > s and (close > 1", "rules.long_entry:21: expected ')' after '1'"},
      {"(1 + close f > s", "rules.long_entry:12: expected ')' after 'close', found 'f'"},
      {"f >= s",
       "rules.long_entry:3: '>=' is not in the grammar: comparisons are '>' and '<' (write "
       "'not (a < b)')"},
      {"f <= s",
       "rules.long_entry:3: '<=' is not in the grammar: comparisons are '>' and '<' (write "
       "'not (a > b)')"},
      {"f == s", "rules.long_entry:3: '==' is not in the grammar: comparisons are '>' and '<'"},
      {"f != s", "rules.long_entry:3: '!=' is not in the grammar: comparisons are '>' and '<'"},
      {"f > -1", "rules.long_entry:5: unary minus is not in the grammar (write 0 - x)"},
      {"f > 1e3",
       "rules.long_entry:6: malformed number: a number is digits [. digits], without exponent "
       "or suffix"},
      {"f > 1.5.2",
       "rules.long_entry:8: malformed number: a number is digits [. digits], without exponent "
       "or suffix"},
      {"f > .5", "rules.long_entry:5: a number starts with a digit (write 0.5, not .5)"},
      {"f > 1.", "rules.long_entry:7: expected a digit after '.' in a number"},
      {"f > $", "rules.long_entry:6: expected a parameter name after '$'"},
      {"f < s < r",
       "rules.long_entry:7: one comparison per atom: join comparisons with 'and' (found '<' "
       "after 's')"},
      {"f", "rules.long_entry:2: expected '>' or '<' after 'f'"},
      {"f + s and r < 1", "rules.long_entry:7: expected '>' or '<' after 's', found 'and'"},
      {"not f", "rules.long_entry:6: expected '>' or '<' after 'f'"},
      {"g > 1", "rules.long_entry:1: unknown indicator 'g' (not declared in rules.indicators)"},
      {"$x > 1", "rules.long_entry:1: unknown parameter '$x'"},
      {"sma > 1",
       "rules.long_entry:1: 'sma' is an indicator KIND: declare it in rules.indicators (e.g. m "
       "= sma(20)) and use its name"},
      {"f > s and",
       "rules.long_entry:10: expected a number, a name, a $parameter or '(' after 'and', found "
       "end of text"},
      {"and > 1",
       "rules.long_entry:1: expected a number, a name, a $parameter or '(' after the start, "
       "found the keyword 'and'"},
      {"(f > s) + 1 > 2", "rules.long_entry:9: '+' needs a number on its left, not a condition"},
      {"1 * (f > s) > 2", "rules.long_entry:5: '*' needs a number on its right, not a condition"},
      {"crosses_above(f, s) > 1",
       "rules.long_entry:21: '>' needs a number on its left, not a condition"},
      {"crosses_above(f s)", "rules.long_entry:17: expected ',' after 'f'"},
      {"crosses_above f, s", "rules.long_entry:15: expected '(' after 'crosses_above'"},
      {"crosses_above(f, s", "rules.long_entry:19: expected ')' after 's'"},
      {"f > s extra",
       "rules.long_entry:7: unexpected 'extra' after 's' (conditions join with 'and' / 'or')"},
      {"", "rules.long_entry:1: expected a condition, found end of text"},
      {"   ", "rules.long_entry:4: expected a condition, found end of text"},
      {"f > s # c", "rules.long_entry:7: unexpected '#'"},
      {"close > \xC3\xA9", "rules.long_entry:9: unexpected byte 0xC3"},
      {"f > s\x01", "rules.long_entry:6: unexpected byte 0x01"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(entry_error(text), want) << text;
}

TEST(RulesParser, ErrorsNameTheirOwnKey) {
  RulesText r = example();
  r.short_exit = "r > ";
  EXPECT_EQ(outcome(r),
            "rules.short_exit:5: expected a number, a name, a $parameter or '(' after '>', found "
            "end of text");
  try {
    (void)compile(r);
  } catch (const RuleError& e) {
    EXPECT_EQ(e.key(), "rules.short_exit");
    EXPECT_EQ(e.column(), 5u);
    EXPECT_EQ(e.message(),
              "expected a number, a name, a $parameter or '(' after '>', found end "
              "of text");
  }
}

TEST(RulesParser, ValidTakesParametersAndNumbersOnly) {
  EXPECT_EQ(valid_error("$fast * 2 < $slow and not ($lvl > 90)"), "ok");
  EXPECT_EQ(valid_error("close > 1"),
            "rules.valid:1: 'close' cannot appear in valid: only $parameters and numbers");
  EXPECT_EQ(valid_error("f > 1"),
            "rules.valid:1: 'f' cannot appear in valid: only $parameters and numbers");
  EXPECT_EQ(valid_error("crosses_above($fast, $slow)"),
            "rules.valid:1: 'crosses_above' cannot appear in valid: only $parameters and numbers");
  EXPECT_EQ(valid_error("$fast"), "rules.valid:6: expected '>' or '<' after '$fast'");
}

TEST(RulesParser, IndicatorErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"sma", "rules.indicators.g:4: expected '(' after 'sma'"},
      {"foo(3)",
       "rules.indicators.g:1: expected an indicator KIND (sma, ema, wma, hma, std, rsi, hh, ll, "
       "bb_upper, bb_lower, bb_mid), found 'foo'"},
      {"sma(2.5)", "rules.indicators.g:5: a period must be an integer >= 1, found '2.5'"},
      {"sma(0)", "rules.indicators.g:5: a period must be an integer >= 1, found '0'"},
      {"sma(3000000000)",
       "rules.indicators.g:5: a period must be an integer >= 1, found '3000000000'"},
      {"bb_upper(20)", "rules.indicators.g:12: bb_upper takes a period and a width"},
      {"bb_lower(20, 0)", "rules.indicators.g:14: a band width must be > 0, found '0'"},
      {"sma(20, 3)", "rules.indicators.g:7: too many arguments: sma takes one period"},
      {"hh(20, 3)", "rules.indicators.g:8: hh takes one period and optionally high_low"},
      {"hh(20, high_low, 2)",
       "rules.indicators.g:16: too many arguments: hh takes a period and optionally high_low"},
      {"hh(high_low)",
       "rules.indicators.g:4: expected a number or a $parameter as argument, found 'high_low'"},
      {"sma(high_low)",
       "rules.indicators.g:5: expected a number or a $parameter as argument, found 'high_low'"},
      {"sma($nope)", "rules.indicators.g:5: unknown parameter '$nope'"},
      {"sma(20) x", "rules.indicators.g:9: unexpected 'x' after ')'"},
      {"sma(20", "rules.indicators.g:7: expected ',' or ')' after '20'"},
      {"sma()", "rules.indicators.g:5: expected a number or a $parameter as argument, found ')'"},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(indicator_error(text), want) << text;
  for (const char* text : {"bb_upper($slow, 2.5)", "bb_lower(20, $lvl)", "bb_mid($fast)",
                           "hh($fast, high_low)", "ll( 5 )", "std(1)", "wma(7)", "hma(9)"}) {
    EXPECT_EQ(indicator_error(text), "ok") << text;
  }
}

TEST(RulesParser, NamesMayNotBeKeywordsFieldsOrKinds) {
  auto with_param = [](const std::string& name) {
    RulesText r = example();
    r.params.push_back(name);
    return outcome(r);
  };
  EXPECT_EQ(with_param("close"), "rules.params:1: 'close' is a bar field, not a name");
  EXPECT_EQ(with_param("not"), "rules.params:1: 'not' is a keyword, not a name");
  EXPECT_EQ(with_param("bb_mid"), "rules.params:1: 'bb_mid' is an indicator KIND, not a name");
  EXPECT_EQ(with_param("fast"), "rules.params:1: parameter 'fast' is listed twice");
  EXPECT_EQ(with_param("1x"),
            "rules.params:1: '1x' is not a name: letters, digits and '_', not starting with a "
            "digit");
  EXPECT_EQ(with_param(""), "rules.params:1: a name cannot be empty");
  EXPECT_EQ(with_param("stop_loss"),
            "rules.params:1: 'stop_loss' is an axis of every family (SPEC §5b, §5), not a "
            "parameter name");
  auto with_indicator = [](const std::string& name) {
    RulesText r = example();
    r.indicators.emplace_back(name, "sma(3)");
    return outcome(r);
  };
  EXPECT_EQ(with_indicator("and"), "rules.indicators:1: 'and' is a keyword, not a name");
  EXPECT_EQ(with_indicator("high"), "rules.indicators:1: 'high' is a bar field, not a name");
  EXPECT_EQ(with_indicator("a b"),
            "rules.indicators:1: 'a b' is not a name: letters, digits and '_', not starting with "
            "a digit");
  EXPECT_EQ(with_indicator("f"), "rules.indicators.f:1: indicator 'f' is declared twice");
  // A parameter and an indicator may share a name ($fast and fast: SPEC §5a's own examples).
  EXPECT_EQ(with_indicator("fast"), "ok");
}

TEST(RulesParser, DepthLimit) {
  const std::string ok64 = std::string(64, '(') + "f > s" + std::string(64, ')');
  EXPECT_EQ(entry_error(ok64), "ok");
  const std::string deep = std::string(65, '(') + "f > s" + std::string(65, ')');
  EXPECT_EQ(entry_error(deep),
            "rules.long_entry:66: nested deeper than 64 (parentheses and 'not')");
  std::string nots;
  for (int i = 0; i < 64; ++i) nots += "not ";
  EXPECT_EQ(entry_error(nots + "f > s"), "ok");
  EXPECT_EQ(entry_error("not " + nots + "f > s"),
            "rules.long_entry:261: nested deeper than 64 (parentheses and 'not')");
}

TEST(RulesParser, NodeLimitCountsEveryCondition) {
  auto atoms = [](int n) {
    std::string s = "f>1";
    for (int i = 1; i < n; ++i) s += " or f>1";
    return s;
  };
  RulesText r = example();
  r.long_exit.reset();
  r.valid.reset();
  r.long_entry = atoms(1000);  // 1000 * 3 + 999 = 3999 nodes
  r.short_entry = atoms(24);   // 95 more: 4094
  EXPECT_EQ(outcome(r), "ok");
  // A 25th atom: the 4097th node is its '>', at column 7 * 24 + 2.
  r.short_entry = atoms(25);
  EXPECT_EQ(outcome(r),
            "rules.short_entry:170: the strategy's conditions need more than 4096 nodes");
}

TEST(RulesParser, TextAndCountLimits) {
  std::string text = "f > 1";
  text.resize(kMaxTextBytes, ' ');
  EXPECT_EQ(entry_error(text), "ok");
  text += " ";
  EXPECT_EQ(entry_error(text),
            "rules.long_entry:8193: text is 8193 bytes, more than the limit of 8192");
  EXPECT_EQ(indicator_error("sma(1)" + std::string(kMaxTextBytes, ' ')),
            "rules.indicators.g:8193: text is 8198 bytes, more than the limit of 8192");
  RulesText r = example();
  for (int i = 0; i < 61; ++i) r.indicators.emplace_back(numbered('i', i), "sma(2)");
  EXPECT_EQ(outcome(r), "rules.indicators:1: 65 indicators, more than the limit of 64");
  r = example();
  for (int i = 0; i < 62; ++i) r.params.push_back(numbered('p', i));
  EXPECT_EQ(outcome(r), "rules.params:1: 65 parameters, more than the limit of 64");
  r = example();
  r.params.push_back(std::string(65, 'x'));
  EXPECT_EQ(outcome(r), "rules.params:1: name 'xxxxxxxxxxxxxxxx'... is longer than 64 bytes");
}

TEST(RulesParser, NumbersAreTheNearestDouble) {
  RulesText r = example();
  r.long_entry =
      "f > 0.1 and f > 123456789012345678901234567890 and f > 0." + std::string(400, '0') + "1";
  const Program p = compile(r);
  const auto& n = p.condition(Slot::long_entry).nodes;
  EXPECT_EQ(n[1].value, 0.1);
  EXPECT_EQ(n[4].value, 123456789012345678901234567890.0);
  EXPECT_EQ(n[8].value, 0.0);
  EXPECT_EQ(entry_error("f > 1" + std::string(400, '0')),
            "rules.long_entry:5: number '1" + std::string(400, '0') + "' is too large");
}

TEST(RulesValid, ComparesExactlyWithArithmeticRoundedPerOperation) {
  RulesText r;
  r.params = {"a", "b"};
  r.long_entry = "close > 0";
  r.valid = "$a < $b";
  Program p = compile(r);
  EXPECT_TRUE(combo_valid(p, {4.9999999999, 5}));  // no dead band
  EXPECT_FALSE(combo_valid(p, {5, 5}));
  r.valid = "$a + $b > 0.3";  // 0.1 + 0.2 rounds to 0.30000000000000004
  p = compile(r);
  EXPECT_TRUE(combo_valid(p, {0.1, 0.2}));
  r.valid = "$a / 0 > 1";  // a non-finite operand: false, and so is its mirror
  p = compile(r);
  EXPECT_FALSE(combo_valid(p, {1, 0}));
  r.valid = "not ($a / 0 > 1) and not ($a / 0 < 1) or $b > 1";
  p = compile(r);
  EXPECT_TRUE(combo_valid(p, {1, 0}));
  r.valid.reset();
  EXPECT_TRUE(combo_valid(compile(r), {1, 0}));
}

TEST(RulesValid, ArgumentsMustBePeriodsAndWidthsForEveryCombo) {
  RulesText r;
  r.params = {"n", "k"};
  r.indicators = {{"u", "bb_upper($n, $k)"}, {"m", "sma($n)"}};
  r.long_entry = "close > m";
  const Program p = compile(r);
  EXPECT_NO_THROW(check_arguments(p, {20, 2}));
  auto error = [&](std::vector<double> v) {
    try {
      check_arguments(p, v);
      return std::string("ok");
    } catch (const RuleError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(error({2.5, 2}),
            "rules.indicators.u:10: a period must be an integer >= 1, but $n is 2.5");
  EXPECT_EQ(error({0, 2}), "rules.indicators.u:10: a period must be an integer >= 1, but $n is 0");
  EXPECT_EQ(error({20, 0}), "rules.indicators.u:14: a band width must be > 0, but $k is 0");
  // Unused indicators are checked too (u is declared, not used): the grid is an error.
  EXPECT_EQ(error({20, -1}), "rules.indicators.u:14: a band width must be > 0, but $k is -1");
}

}  // namespace
}  // namespace wfod::rules
