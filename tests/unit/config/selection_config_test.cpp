// [strategy.selection] (docs/spec-10-selection.md): defaults, every key read, per-axis
// plateau radii checked against the grid, and errors located at file:line:col with the key.
#include <gtest/gtest.h>

#include <string>

#include "wfod/config/config.hpp"

namespace wfod::config {
namespace {

std::string strategy_with(std::string_view selection) {
  return "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"ma_cross\"\nwindow = 100\n"
         "[strategy.grid]\nfast = \"2:10:2\"\nslow = \"20:40:10\"\nma = \"sma,ema\"\n" +
         std::string(selection);
}

std::string selection_error_of(std::string_view text) {
  try {
    parse_config(text, "t.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError for:\n" << text;
  return "";
}

TEST(SelectionConfig, DefaultsWhenAbsent) {
  const Config c = parse_config(strategy_with(""), "t.toml");
  const auto& s = c.strategies.at(0).selection;
  EXPECT_EQ(s.hysteresis_abs, 0);
  EXPECT_EQ(s.hysteresis_rel, 0);
  EXPECT_FALSE(s.plateau);
  EXPECT_EQ(s.plateau_radius, 1);
  EXPECT_TRUE(s.plateau_stat.mean);
  EXPECT_FALSE(s.min_dsr);
  EXPECT_EQ(s.pbo_blocks, 16u);
  EXPECT_EQ(s.pbo_max_combos, 20000u);
}

TEST(SelectionConfig, ReadsEveryKey) {
  const Config c =
      parse_config(strategy_with("[strategy.selection]\n"
                                 "hysteresis_abs = 0.05\nhysteresis_rel = 0.1\n"
                                 "plateau = true\nplateau_radius = { fast = 2, ma = 1 }\n"
                                 "plateau_stat = \"q25\"\nmin_dsr = 0.9\n"
                                 "pbo_blocks = 10\npbo_max_combos = 500\n"),
                   "t.toml");
  const auto& s = c.strategies.at(0).selection;
  EXPECT_EQ(s.hysteresis_abs, 0.05);
  EXPECT_EQ(s.hysteresis_rel, 0.1);
  EXPECT_TRUE(s.plateau);
  ASSERT_EQ(s.plateau_radius_axes.size(), 2u);
  EXPECT_EQ(s.plateau_radius_axes[0], (std::pair<std::string, int>{"fast", 2}));
  EXPECT_FALSE(s.plateau_stat.mean);
  EXPECT_EQ(s.plateau_stat.q, 0.25);
  EXPECT_EQ(s.min_dsr, 0.9);
  EXPECT_EQ(s.pbo_blocks, 10u);
  EXPECT_EQ(s.pbo_max_combos, 500u);
  const Config d =
      parse_config(strategy_with("[strategy.selection]\nplateau_radius = 3\n"), "t.toml");
  EXPECT_EQ(d.strategies.at(0).selection.plateau_radius, 3);
}

TEST(SelectionConfig, ErrorsNameFileLineAndKey) {
  // The selection table starts on line 10 of strategy_with()'s text.
  std::string e = selection_error_of(strategy_with("[strategy.selection]\nbogus = 1\n"));
  EXPECT_NE(e.find("t.toml:11:"), std::string::npos) << e;
  EXPECT_NE(e.find("strategy[0].selection.bogus"), std::string::npos) << e;
  e = selection_error_of(strategy_with("[strategy.selection]\npbo_blocks = 7\n"));
  EXPECT_NE(e.find("pbo_blocks"), std::string::npos) << e;
  EXPECT_NE(e.find("even"), std::string::npos) << e;
  e = selection_error_of(strategy_with("[strategy.selection]\nplateau_radius = { n = 1 }\n"));
  EXPECT_NE(e.find("plateau_radius.n"), std::string::npos) << e;
  e = selection_error_of(strategy_with("[strategy.selection]\nplateau_stat = \"q5\"\n"));
  EXPECT_NE(e.find("plateau_stat"), std::string::npos) << e;
  e = selection_error_of(strategy_with("[strategy.selection]\nmin_dsr = 1.5\n"));
  EXPECT_NE(e.find("min_dsr"), std::string::npos) << e;
  e = selection_error_of(strategy_with("[strategy.selection]\nhysteresis_rel = -1\n"));
  EXPECT_NE(e.find("hysteresis_rel"), std::string::npos) << e;
}

}  // namespace
}  // namespace wfod::config
