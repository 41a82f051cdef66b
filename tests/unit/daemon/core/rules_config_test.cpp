// `family = "rules"` in a config (PROTOCOL §4, SPEC §5a): [strategy.rules] read and compiled,
// [strategy.grid] axes named by its params; each error located: a compile error at the line
// and column of the rule text it is about (rules_config.hpp's mapping), the others at their
// key; and the daemon asking its backend whether it runs a rules strategy.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "wfod/config/config.hpp"
#include "wfod/daemon/core/backend_fit.hpp"
#include "wfod/daemon/core/config_checks.hpp"
#include "wfod/grid.hpp"

namespace wfod::config {
namespace {

// Lines 1-16 of a valid strategy; the tests below swap one line at a time.
std::vector<std::string> pullback_lines() {
  return {
      "[[strategy]]",                                                              // 1
      "name = \"pullback\"",                                                       // 2
      "symbols = [\"X\"]",                                                         // 3
      "family = \"rules\"",                                                        // 4
      "window = 100",                                                              // 5
      "[strategy.rules]",                                                          // 6
      "params = [\"fast\", \"slow\", \"lvl\"]",                                    // 7
      "valid = \"$fast < $slow\"",                                                 // 8
      "indicators = { f = \"ema($fast)\", s = \"sma($slow)\", r = \"rsi(14)\" }",  // 9
      "long_entry = \"f > s and r < $lvl\"",                                       // 10
      "long_exit = \"crosses_below(f, s)\"",                                       // 11
      "[strategy.grid]",                                                           // 12
      "fast = \"5:20:5\"",                                                         // 13
      "slow = [20, 40]",                                                           // 14
      "lvl = 30",                                                                  // 15
      "stop_loss = [0, 0.02]",                                                     // 16
  };
}

std::string text_of(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The file with line `n` (1-based) replaced by `line` ("" removes nothing: an empty line).
std::string with_line(size_t n, const std::string& line) {
  std::vector<std::string> lines = pullback_lines();
  lines.at(n - 1) = line;
  return text_of(lines);
}

std::string rules_error_of(const std::string& text) {
  try {
    (void)parse_config(text, "wfod.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RulesConfig, ParsesTheProtocolExample) {
  const Config c = parse_config(text_of(pullback_lines()), "wfod.toml");
  ASSERT_EQ(c.strategies.size(), 1u);
  const Grid& g = c.strategies[0].spec.grid;
  EXPECT_EQ(g.family, Family::rules);
  ASSERT_TRUE(g.program);
  EXPECT_EQ(g.program->params, (std::vector<std::string>{"fast", "slow", "lvl"}));
  ASSERT_EQ(g.program->indicators.size(), 3u);
  EXPECT_EQ(g.program->indicators[0].name, "f");  // in the order written, not by name
  EXPECT_EQ(g.program->indicators[2].name, "r");
  EXPECT_EQ(g.rule_axes, (std::vector<std::vector<double>>{{5, 10, 15, 20}, {20, 40}, {30}}));
  EXPECT_EQ(g.stop_loss, (std::vector<double>{0, 0.02}));
  EXPECT_EQ(g.size(), 16u);
  EXPECT_EQ(count_combos(g).valid, 2u * (3 + 4));  // fast < slow: (5..15, 20), (5..20, 40)
  // A [strategy.rules.indicators] table reads as the inline one; a rule without params or
  // `valid` is a grid of the stops and filter alone.
  std::vector<std::string> lines = pullback_lines();
  lines[8] = "[strategy.rules.indicators]\nf = \"ema($fast)\"\ns = \"sma($slow)\"\nr = \"rsi(14)\"";
  std::swap(lines[8], lines[10]);  // the conditions stay under [strategy.rules]
  std::swap(lines[8], lines[9]);
  EXPECT_EQ(
      parse_config(text_of(lines), "wfod.toml").strategies[0].spec.grid.program->indicators[1].name,
      "s");
  const Config fixed = parse_config(
      "[[strategy]]\nname = \"f\"\nsymbols = [\"X\"]\nfamily = \"rules\"\nwindow = 10\n"
      "[strategy.rules]\nparams = []\nindicators = { m = \"sma(50)\" }\n"
      "long_entry = \"close > m\"\n[strategy.grid]\ntrailing_stop = [0.05, 0.1]\n",
      "wfod.toml");
  EXPECT_EQ(fixed.strategies[0].spec.grid.size(), 2u);
}

// RuleError columns placed in the file: the opening quote's column + the rule's column where
// the string is one line without escapes; else the value's start.
TEST(RulesConfig, RuleErrorsAtTheirColumnInTheFile) {
  // Column 20 is just past "f > s and (r < $lvl" (19 bytes): the closing quote, 14 + 20.
  EXPECT_EQ(rules_error_of(with_line(10, "long_entry = \"f > s and (r < $lvl\"")),
            "wfod.toml:10:34: strategy \"pullback\": rules.long_entry:20: expected ')' after "
            "'$lvl'");
  // A literal string: 's' is byte 17 of the text, the quote at column 13.
  EXPECT_EQ(rules_error_of(with_line(11, "long_exit = 'crosses_below(f s)'")),
            "wfod.toml:11:30: strategy \"pullback\": rules.long_exit:17: expected ',' after 'f'");
  EXPECT_EQ(rules_error_of(with_line(8, "valid = \"$fast < $nope\"")),
            "wfod.toml:8:18: strategy \"pullback\": rules.valid:9: unknown parameter '$nope'");
  // Inside an inline table: the value's quote is at column 38.
  EXPECT_EQ(rules_error_of(with_line(
                9, "indicators = { f = \"ema($fast)\", s = \"smaa($slow)\", r = \"rsi(14)\" }")),
            "wfod.toml:9:39: strategy \"pullback\": rules.indicators.s:1: expected an indicator "
            "KIND (sma, ema, wma, hma, std, rsi, hh, ll, bb_upper, bb_lower, bb_mid), found "
            "'smaa'");
  // An escape, a multi-line string: the value's start (the rule's column still exact).
  EXPECT_EQ(rules_error_of(with_line(10, "long_entry = \"f > s\\tand (r < $lvl\"")),
            "wfod.toml:10:14: strategy \"pullback\": rules.long_entry:20: expected ')' after "
            "'$lvl'");
  EXPECT_EQ(rules_error_of(with_line(10, "long_entry = \"\"\"f > s and\n  (r < $lvl\"\"\"")),
            "wfod.toml:10:14: strategy \"pullback\": rules.long_entry:22: expected ')' after "
            "'$lvl'");
}

TEST(RulesConfig, ParamsAndIndicatorsErrors) {
  EXPECT_EQ(rules_error_of(with_line(7, "params = [\"fast\", \"stop_loss\", \"lvl\"]")),
            "wfod.toml:7:19: strategy \"pullback\": rules.params[1]: 'stop_loss' is an axis of "
            "every family (SPEC §5b, §5), not a parameter name");
  EXPECT_EQ(rules_error_of(with_line(7, "params = [\"fast\", \"slow\", \"fast\"]")),
            "wfod.toml:7:27: strategy \"pullback\": rules.params[2]: parameter 'fast' is listed "
            "twice");
  EXPECT_EQ(rules_error_of(with_line(7, "params = \"fast\"")),
            "wfod.toml:7:10: key 'strategy[0].rules.params': expected an array of names, got "
            "string");
  EXPECT_EQ(rules_error_of(with_line(7, "params = [\"fast\", 2]")),
            "wfod.toml:7:19: key 'strategy[0].rules.params[1]': expected a name, got integer");
  EXPECT_EQ(
      rules_error_of(with_line(9, "indicators = { f = \"ema($fast)\", s = 5, r = \"rsi(14)\" }")),
      "wfod.toml:9:38: key 'strategy[0].rules.indicators.s': expected a string like "
      "\"ema($fast)\", got integer");
  // The first indicator written is the first reported (TOML++ would iterate a before z).
  EXPECT_EQ(rules_error_of(with_line(9, "indicators = { z = \"bogus(1)\", a = \"nope(2)\" }")),
            "wfod.toml:9:21: strategy \"pullback\": rules.indicators.z:1: expected an indicator "
            "KIND (sma, ema, wma, hma, std, rsi, hh, ll, bb_upper, bb_lower, bb_mid), found "
            "'bogus'");
  EXPECT_EQ(rules_error_of(with_line(9, "indicators = { f = \"ema($fast)\", close = \"sma(2)\" }")),
            "wfod.toml:9:34: strategy \"pullback\": rules.indicators: 'close' is a bar field, not "
            "a name");
  EXPECT_EQ(rules_error_of(with_line(11, "long_exitt = \"close > f\"")),
            "wfod.toml:11:1: key 'strategy[0].rules.long_exitt': unknown key (allowed here: params "
            "valid indicators long_entry long_exit short_entry short_exit)");
  EXPECT_EQ(rules_error_of(with_line(7, "")),
            "wfod.toml:6:1: key 'strategy[0].rules.params': required key is missing");
}

TEST(RulesConfig, GridAxesAreTheParams) {
  EXPECT_EQ(rules_error_of(with_line(16, "foo = 3")),
            "wfod.toml:16:1: key 'strategy[0].grid.foo': not in rules.params (fast, slow, lvl): a "
            "rules grid takes one axis per param, the stops and the vol filter");
  EXPECT_EQ(rules_error_of(with_line(16, "side = \"long_only\"")),
            "wfod.toml:16:1: key 'strategy[0].grid.side': not in rules.params (fast, slow, lvl): a "
            "rules grid takes one axis per param, the stops and the vol filter ('side' is a "
            "parameter of the built-in families)");
  EXPECT_EQ(rules_error_of(with_line(15, "")),
            "wfod.toml:12:1: key 'strategy[0].grid.lvl': rules.params lists 'lvl' but the grid "
            "gives it no axis (a number, a list or \"start:stop:step\")");
  EXPECT_EQ(rules_error_of(with_line(13, "fast = [0, 5]")),
            "wfod.toml:13:8: key 'strategy[0].grid.fast': rules.indicators.f:5: a period must be "
            "an integer >= 1, but $fast is 0 (SPEC §5a: every value of an axis must be a period "
            "or width its indicators can take)");
  EXPECT_EQ(rules_error_of(with_line(15, "lvl = [\"a\"]")),
            "wfod.toml:15:8: key 'strategy[0].grid.lvl[0]': expected a number, got string");
  EXPECT_EQ(rules_error_of(with_line(15, "lvl = [30, 30]")),
            "wfod.toml:15:7: key 'strategy[0].grid.lvl': lists 30 more than once (a repeated "
            "value would be evaluated twice and count twice among the DSR's trials; list each "
            "value once)");
  // Decimal-exact ranges, like k's.
  EXPECT_EQ(parse_config(with_line(15, "lvl = \"0.1:0.3:0.1\""), "wfod.toml")
                .strategies[0]
                .spec.grid.rule_axes[2],
            (std::vector<double>{0.1, 0.2, 0.3}));
}

TEST(RulesConfig, FamilyAndTableGoTogether) {
  std::vector<std::string> lines = pullback_lines();
  lines[3] = "family = \"ma_cross\"";
  EXPECT_EQ(rules_error_of(text_of(lines)),
            "wfod.toml:6:1: key 'strategy[0].rules': [strategy.rules] is the text of a family = "
            "\"rules\" strategy; this one's family is ma_cross");
  lines = pullback_lines();
  lines.erase(lines.begin() + 5, lines.begin() + 11);  // [strategy.rules] and its keys
  EXPECT_EQ(rules_error_of(text_of(lines)),
            "wfod.toml:1:1: key 'strategy[0].rules': family = \"rules\" needs a [strategy.rules] "
            "table: its params, indicators and conditions (SPEC §5a)");
}

// config/examples/rules.toml: the two strategies the docs run (wfo_rules_test.sh runs them).
TEST(RulesConfig, TheExampleFileParses) {
  const Config c = load_config(std::string(WFOD_SOURCE_DIR) + "/config/examples/rules.toml");
  ASSERT_EQ(c.strategies.size(), 2u);
  EXPECT_EQ(c.strategies[0].name, "pullback");
  EXPECT_EQ(c.strategies[0].spec.grid.size(), 4u * 3 * 3 * 3);
  EXPECT_EQ(c.strategies[1].name, "rsi_dip");
  EXPECT_TRUE(c.strategies[1].spec.grid.program->uses_volume);
}

// No daemon backend runs rules: check-config refuses the strategy at its family key, saying
// where it runs.
// The daemon asks its backend (daemon/core/backend_fit.hpp), never its name: cpu_ref runs a
// rules strategy's streams (re-sweeps, a replaying tracker), cpu refuses it in its own words
// at the strategy's family key (spec-notes item 85).
std::vector<std::string> daemon_errors(const std::string& backend) {
  const Config c = parse_config("[daemon]\nbackend = \"" + backend +
                                    "\"\n[[symbol]]\nname = \"X\"\n\n" + text_of(pullback_lines()),
                                "wfod.toml");
  daemon::CheckEnvironment env;
  env.backend_refusal = daemon::lazy_stream_refusal(backend);
  std::vector<std::string> errors;
  for (const daemon::ConfigFinding& f : daemon::check_daemon_config(c, env))
    if (f.error) errors.push_back(f.text);
  return errors;
}

TEST(RulesConfig, TheDaemonRunsARulesStrategyOnABackendWhoseStreamsRunIt) {
  EXPECT_TRUE(daemon_errors("cpu_ref").empty());
  EXPECT_TRUE(daemon_errors("cpu").empty());  // cpu's rules positions follow the winner
}

TEST(RulesConfig, TheDaemonRefusesARulesStrategyWhereItsBackendDoesNot) {
  // The refusal is the backend's own (cuda's; a machine without a GPU cannot make one, so a
  // stand-in refusal here): at the family key, with the daemon's framing.
  const Config c = parse_config(
      "[daemon]\nbackend = \"cuda\"\n[[symbol]]\nname = \"X\"\n\n" + text_of(pullback_lines()),
      "wfod.toml");
  daemon::CheckEnvironment env;
  env.backend_refusal = [](const StrategySpec& spec, bool) -> std::string {
    return spec.grid.family == Family::rules ? "the cuda backend does not run rules strategies"
                                             : "";
  };
  std::vector<std::string> errors;
  for (const daemon::ConfigFinding& f : daemon::check_daemon_config(c, env))
    if (f.error) errors.push_back(f.text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0],
            "wfod.toml:9:10: key 'strategy[0].family': strategy \"pullback\": [daemon] backend = "
            "\"cuda\" cannot run its streams: the cuda backend does not run rules strategies (set "
            "[daemon] backend to one that runs it)");
}

}  // namespace
}  // namespace wfod::config
