// The daemon's whole-configuration checks (daemon/core/config_checks.cpp), over parsed
// configs: what is refused (errors at file:line:col and key) and what is only warned about.
#include "wfod/daemon/core/config_checks.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace wfod::daemon {
namespace {

constexpr const char* kSource = "wfod.toml";

// A config that runs: one symbol, one small strategy on it.
std::string runnable(const std::string& strategy_keys = "window = 200\nevery = 50\n",
                     const std::string& grid = "fast = \"5:20:5\"\nslow = \"30:60:10\"\n") {
  return "[[symbol]]\nname = \"GOOG\"\n\n[[strategy]]\nname = \"s\"\nsymbols = [\"GOOG\"]\n"
         "family = \"ma_cross\"\n" +
         strategy_keys + "\n[strategy.grid]\n" + grid;
}

std::vector<ConfigFinding> check(const std::string& text, const CheckEnvironment& env = {}) {
  return check_daemon_config(config::parse_config(text, kSource), env);
}

std::vector<std::string> texts(const std::vector<ConfigFinding>& findings, bool errors) {
  std::vector<std::string> out;
  for (const ConfigFinding& f : findings) {
    if (f.error == errors) out.push_back(f.text);
  }
  return out;
}

TEST(ConfigChecks, ARunnableConfigHasNoFinding) { EXPECT_TRUE(check(runnable()).empty()); }

TEST(ConfigChecks, AnEmptyFileIsRefusedNamingBothTables) {
  for (const std::string text : {"", "# only a comment\n", "[daemon]\nlog_level = \"info\"\n"}) {
    const auto errors = texts(check(text), true);
    ASSERT_EQ(errors.size(), 2u) << text;
    EXPECT_EQ(errors[0].rfind("wfod.toml:1:1: key 'symbol': no [[symbol]] table", 0), 0u)
        << errors[0];
    EXPECT_NE(errors[0].find("at least one [[symbol]] and one [[strategy]]"), std::string::npos);
    EXPECT_EQ(errors[1].rfind("wfod.toml:1:1: key 'strategy': no [[strategy]] table", 0), 0u)
        << errors[1];
  }
}

TEST(ConfigChecks, SymbolsWithoutAStrategyAreRefused) {
  const auto errors = texts(check("[[symbol]]\nname = \"GOOG\"\n"), true);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("wfod.toml:1:1: key 'strategy': no [[strategy]] table", 0), 0u)
      << errors[0];
}

TEST(ConfigChecks, EnforceThrowsEveryErrorOnePerLine) {
  const config::Config c = config::parse_config("", kSource);
  try {
    (void)enforce_daemon_config(c, {});
    ADD_FAILURE() << "an empty config was accepted";
  } catch (const config::ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("key 'symbol'"), std::string::npos) << m;
    EXPECT_NE(m.find("\nwfod.toml:1:1: key 'strategy'"), std::string::npos) << m;
  }
  EXPECT_TRUE(enforce_daemon_config(config::parse_config(runnable(), kSource), {}).empty());
}

TEST(ConfigChecks, LocatedNamesTheKeyOrItsTable) {
  const config::Config c = config::parse_config(runnable(), kSource);
  EXPECT_EQ(c.located("strategy[0].window", "x"), "wfod.toml:8:10: key 'strategy[0].window': x");
  // An absent key: its table's line.
  EXPECT_EQ(c.located("strategy[0].warmup", "x"), "wfod.toml:4:1: key 'strategy[0].warmup': x");
  EXPECT_EQ(c.located("daemon.min_ts", "x"), "wfod.toml:1:1: key 'daemon.min_ts': x");
}

// Issue 43 item 1: what check-config accepted and the daemon could not run.

TEST(ConfigChecks, AWindowThatCannotFitIsRefusedAtItsKey) {
  // 2e12 bars: std::bad_alloc at start, then a daemon that waited forever.
  auto errors = texts(check(runnable("window = 2000000000000\n")), true);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("wfod.toml:8:10: key 'strategy[0].window': window = 2000000000000 "
                            "bars is more than 4000000000",
                            0),
            0u)
      << errors[0];
  // Below the absolute cap, against the memory wfod may use.
  CheckEnvironment small;
  small.memory_bytes = uint64_t{1} << 30;  // 1 GiB: 22.4M bars of 48 bytes
  errors = texts(check(runnable("window = 100000000\n"), small), true);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("key 'strategy[0].window': window = 100000000 bars cannot fit: its "
                           "bars alone need 4.5 GiB (48 bytes a bar), and wfod may use 1.0 GiB"),
            std::string::npos)
      << errors[0];
  EXPECT_TRUE(check(runnable("window = 1000000\n"), small).empty());
}

TEST(ConfigChecks, WarningsForAOneBarWindowEveryAboveWindowAndAShortWarmup) {
  const auto found = check(runnable("window = 1\nevery = 5\nwarmup = 10\n"));
  EXPECT_TRUE(texts(found, true).empty());
  const auto warnings = texts(found, false);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0].rfind("wfod.toml:8:10: key 'strategy[0].window': window = 1: each run", 0),
            0u)
      << warnings[0];
  EXPECT_EQ(warnings[1].rfind("wfod.toml:9:9: key 'strategy[0].every': every = 5 > window = 1: 4 "
                              "bars between runs are in no run's window",
                              0),
            0u)
      << warnings[1];
  EXPECT_EQ(warnings[2].rfind("wfod.toml:10:10: key 'strategy[0].warmup': warmup = 10 is shorter "
                              "than the grid's longest period 60",
                              0),
            0u)
      << warnings[2];
  // A warm-up that covers the longest period, every <= window: nothing to say.
  EXPECT_TRUE(check(runnable("window = 100\nevery = 100\nwarmup = 60\n")).empty());
}

TEST(ConfigChecks, AGridWithoutAValidComboIsRefused) {
  const auto errors =
      texts(check(runnable("window = 200\n", "fast = \"50:60:10\"\nslow = \"10:40:10\"\n")), true);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("wfod.toml:10:1: key 'strategy[0].grid': no valid combo: of its 8 "
                            "combos 8 have fast >= slow (SPEC §5); the stream would run forever "
                            "and never publish",
                            0),
            0u)
      << errors[0];
}

// The runnable config with [publish] and [[feed]] tables in front (lines 1-10).
std::string with_endpoints(const std::string& publish, const std::vector<std::string>& feeds) {
  std::string text = "[publish]\n" + publish;
  for (const std::string& f : feeds) text += "[[feed]]\nendpoint = \"" + f + "\"\n";
  return text + runnable();
}

TEST(ConfigChecks, AnEndpointUsedTwiceIsRefusedAtTheSecond) {
  struct Case {
    std::string publish;
    std::vector<std::string> feeds;
    std::string key, detail;
  };
  const std::vector<Case> cases{
      {"endpoint = \"tcp://127.0.0.1:5560\"\nsnapshot = \"tcp://127.0.0.1:5560\"\n",
       {},
       "publish.snapshot",
       "is also publish.endpoint (\"tcp://127.0.0.1:5560\", wfod.toml:2): the daemon cannot bind "
       "one address twice"},
      {"endpoint = \"tcp://*:5560\"\nhttp = \"localhost:5560\"\n",
       {},
       "publish.http",
       "is also publish.endpoint"},
      {"endpoint = \"tcp://*:5570\"\n",
       {"tcp://localhost:5570"},
       "feed[0].endpoint",
       "a feed on this daemon's own publish.endpoint (it would subscribe to its own "
       "publications)"},
      {"snapshot = \"ipc:///tmp/wfod-snap\"\n",
       {"ipc:///tmp//wfod-snap"},
       "feed[0].endpoint",
       "a feed on this daemon's own publish.snapshot (not a bar feed)"},
      {"",
       {"tcp://10.0.0.5:6000", "tcp://10.0.0.5:6000"},
       "feed[1].endpoint",
       "the same feed twice"},
  };
  for (const Case& c : cases) {
    const auto errors = texts(check(with_endpoints(c.publish, c.feeds)), true);
    ASSERT_EQ(errors.size(), 1u) << c.key << ": " << (errors.empty() ? "none" : errors[0]);
    EXPECT_NE(errors[0].find("key '" + c.key + "': "), std::string::npos) << errors[0];
    EXPECT_NE(errors[0].find(c.detail), std::string::npos) << errors[0];
  }
  // Distinct ports, a remote feed on the publish port's number, ephemeral ports: fine.
  EXPECT_TRUE(check(with_endpoints("endpoint = \"tcp://*:5560\"\nsnapshot = \"tcp://*:*\"\n",
                                   {"tcp://10.0.0.5:5560", "tcp://10.0.0.6:5560"}))
                  .empty());
}

TEST(ConfigChecks, AnIpcPathWhoseFolderIsMissingIsRefused) {
  CheckEnvironment env;
  env.directory_exists = [](const std::string& dir) { return dir == "/run/wfod"; };
  const std::string ok = with_endpoints("endpoint = \"ipc:///run/wfod/pub\"\n", {});
  EXPECT_TRUE(check(ok, env).empty());
  const auto errors =
      texts(check(with_endpoints("endpoint = \"ipc:///run/wfdo/pub\"\n", {}), env), true);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("wfod.toml:2:12: key 'publish.endpoint': \"ipc:///run/wfdo/pub\": the "
                            "folder /run/wfdo does not exist",
                            0),
            0u)
      << errors[0];
  // A feed's folder may be its publisher's to create: a warning.
  const auto found = check(with_endpoints("", {"ipc:///run/pub/bars"}), env);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].error);
  EXPECT_NE(found[0].text.find("key 'feed[0].endpoint'"), std::string::npos) << found[0].text;
}

}  // namespace
}  // namespace wfod::daemon
