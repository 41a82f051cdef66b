// The daemon's whole-configuration checks (daemon/core/config_checks.cpp), over
// parsed configs: what is refused (errors at file:line:col and key) and what is
// only warned about.
#include "wfod/daemon/core/config_checks.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wfod::daemon {
namespace {

constexpr const char *kSource = "wfod.toml";

// A config that runs: one symbol, one small strategy on it.
std::string
runnable(const std::string &strategy_keys = "window = 200\nevery = 50\n",
         const std::string &grid = "fast = \"5:20:5\"\nslow = \"30:60:10\"\n") {
  return "[[symbol]]\nname = \"GOOG\"\n\n[[strategy]]\nname = \"s\"\nsymbols = "
         "[\"GOOG\"]\n"
         "family = \"ma_cross\"\n" +
         strategy_keys + "\n[strategy.grid]\n" + grid;
}

std::vector<ConfigFinding> check(const std::string &text,
                                 const CheckEnvironment &env = {}) {
  return check_daemon_config(config::parse_config(text, kSource), env);
}

std::vector<std::string> texts(const std::vector<ConfigFinding> &findings,
                               bool errors) {
  std::vector<std::string> out;
  for (const ConfigFinding &f : findings) {
    if (f.error == errors)
      out.push_back(f.text);
  }
  return out;
}

TEST(ConfigChecks, ARunnableConfigHasNoFinding) {
  EXPECT_TRUE(check(runnable()).empty());
}

TEST(ConfigChecks, AnEmptyFileIsRefusedNamingBothTables) {
  for (const std::string text :
       {"", "# only a comment\n", "[daemon]\nlog_level = \"info\"\n"}) {
    const auto errors = texts(check(text), true);
    ASSERT_EQ(errors.size(), 2u) << text;
    EXPECT_EQ(
        errors[0].rfind("wfod.toml:1:1: key 'symbol': no [[symbol]] table", 0),
        0u)
        << errors[0];
    EXPECT_NE(errors[0].find("at least one [[symbol]] and one [[strategy]]"),
              std::string::npos);
    EXPECT_EQ(errors[1].rfind(
                  "wfod.toml:1:1: key 'strategy': no [[strategy]] table", 0),
              0u)
        << errors[1];
  }
}

TEST(ConfigChecks, SymbolsWithoutAStrategyAreRefused) {
  const auto errors = texts(check("[[symbol]]\nname = \"GOOG\"\n"), true);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind(
                "wfod.toml:1:1: key 'strategy': no [[strategy]] table", 0),
            0u)
      << errors[0];
}

TEST(ConfigChecks, EnforceThrowsEveryErrorOnePerLine) {
  const config::Config c = config::parse_config("", kSource);
  try {
    (void)enforce_daemon_config(c, {});
    ADD_FAILURE() << "an empty config was accepted";
  } catch (const config::ConfigError &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("key 'symbol'"), std::string::npos) << m;
    EXPECT_NE(m.find("\nwfod.toml:1:1: key 'strategy'"), std::string::npos)
        << m;
  }
  EXPECT_TRUE(
      enforce_daemon_config(config::parse_config(runnable(), kSource), {})
          .empty());
}

TEST(ConfigChecks, LocatedNamesTheKeyOrItsTable) {
  const config::Config c = config::parse_config(runnable(), kSource);
  EXPECT_EQ(c.located("strategy[0].window", "x"),
            "wfod.toml:8:1: key 'strategy[0].window': x");
  // An absent key: its table's line.
  EXPECT_EQ(c.located("strategy[0].warmup", "x"),
            "wfod.toml:4:1: key 'strategy[0].warmup': x");
  EXPECT_EQ(c.located("daemon.min_ts", "x"),
            "wfod.toml:1:1: key 'daemon.min_ts': x");
}

} // namespace
} // namespace wfod::daemon
