// Tests of the TOML configuration (config/src, PROTOCOL §4): both shipped example files
// parse to the documented values, defaults apply, grid axes in every spelling, and each class
// of error names file:line:col and the key. Also the SHA-256 behind config_version.
#include "wfod/config/config.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/src/sha256.hpp"

namespace wfod::config {
namespace {

namespace fs = std::filesystem;

const fs::path kConfigDir = fs::path(WFOD_SOURCE_DIR) / "config";
const fs::path kExamples = kConfigDir / "examples";

std::string read_config_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The message of the ConfigError that parsing `text` (named "t.toml") throws.
std::string config_error_of(std::string_view text) {
  try {
    parse_config(text, "t.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError for:\n" << text;
  return "";
}

// A valid file around one [strategy.grid] body, for axis tests.
Config with_grid(std::string_view family, std::string_view grid) {
  const std::string text = "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"" +
                           std::string(family) + "\"\nwindow = 10\n[strategy.grid]\n" +
                           std::string(grid) + "\n";
  return parse_config(text, "t.toml");
}

// ---------------------------------------------------------------------------------------
// Shipped files.

TEST(ConfigExamples, DemoParses) {
  const fs::path path = kExamples / "demo.toml";
  const Config c = load_config(path.string());
  EXPECT_EQ(c.source, path.string());
  EXPECT_EQ(c.sha256, sha256_hex(read_config_file(path)));

  ASSERT_EQ(c.symbols.size(), 1u);
  EXPECT_EQ(c.symbols[0].name, "GOOG");
  EXPECT_EQ(c.symbols[0].bars_per_year, 252);
  // Resolved against the file's folder: the bundled data/ copy.
  EXPECT_TRUE(fs::exists(c.symbols[0].backfill)) << c.symbols[0].backfill;
  EXPECT_EQ(fs::canonical(c.symbols[0].backfill),
            fs::canonical(fs::path(WFOD_SOURCE_DIR) / "data" / "goog_d1_2004-2013.csv"));

  // The demo runs a rules strategy with stops (SPEC §5a, §5b), on the backend that runs it.
  EXPECT_EQ(c.daemon.backend, "cpu");
  ASSERT_EQ(c.strategies.size(), 3u);
  const StrategyConfig* r = c.find_strategy("rulestop");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->spec.grid.family, Family::rules);
  EXPECT_EQ(r->spec.grid.size(), 16u);
  EXPECT_TRUE(r->spec.grid.has_stops());
  // "demo" stays the last [[strategy]]: tests append a [strategy.selection] to it.
  EXPECT_EQ(c.strategies.back().name, "demo");
  const StrategyConfig* m = c.find_strategy("meanrev");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->spec.grid.family, Family::bollinger);
  EXPECT_EQ(m->spec.grid.n.size(), 9u);
  EXPECT_EQ(m->spec.grid.k.size(), 7u);
  EXPECT_EQ(m->spec.grid.style, std::vector<Style>{Style::reversion});
  const StrategyConfig* s = c.find_strategy("demo");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->symbols, std::vector<std::string>{"GOOG"});
  EXPECT_EQ(s->spec.grid.family, Family::ma_cross);
  EXPECT_EQ(s->spec.grid.fast, (std::vector<int>{5, 10, 15, 20, 25, 30, 35, 40, 45, 50}));
  ASSERT_EQ(s->spec.grid.slow.size(), 19u);
  EXPECT_EQ(s->spec.grid.slow.front(), 20);
  EXPECT_EQ(s->spec.grid.slow.back(), 200);
  EXPECT_EQ(s->spec.grid.ma, (std::vector<MaType>{MaType::sma}));
  EXPECT_EQ(s->spec.grid.side, std::vector<Side>{Side::long_short});
  EXPECT_EQ(s->spec.grid.entry, std::vector<Entry>{Entry::state});
  EXPECT_FALSE(s->spec.grid.has_vol_filter());
  EXPECT_EQ(s->window, 1000u);
  EXPECT_EQ(s->every, 250u);
  EXPECT_FALSE(s->warmup.has_value());
  EXPECT_EQ(s->rank.objective, Objective::sharpe);
  EXPECT_EQ(s->rank.min_trades, 1);
  EXPECT_EQ(s->spec.costs.commission_bps, 1.0);
  EXPECT_EQ(s->spec.costs.slippage_bps, 0.0);
  EXPECT_EQ(s->spec.fill, Fill::close);
}

TEST(ConfigExamples, FullExampleParsesEveryKey) {
  const Config c = load_config((kConfigDir / "wfod.example.toml").string());
  EXPECT_EQ(c.daemon.state_dir, "/var/lib/wfod");
  EXPECT_EQ(c.daemon.backend, "auto");
  EXPECT_EQ(c.daemon.precision, Precision::exact);
  EXPECT_EQ(c.daemon.threads, 0);
  EXPECT_EQ(c.daemon.log_level, "info");
  EXPECT_EQ(c.daemon.fsync, FsyncPolicy::batch);
  EXPECT_EQ(c.daemon.busy_poll_us, 0);
  EXPECT_EQ(c.daemon.max_future_s, 300);
  EXPECT_EQ(c.daemon.stop_retry_s, 5);
  EXPECT_EQ(c.daemon.on_corrupt_log, CorruptLogPolicy::refuse);
  EXPECT_EQ(c.publish.endpoint, "tcp://127.0.0.1:5560");
  EXPECT_EQ(c.publish.snapshot, "tcp://127.0.0.1:5561");
  EXPECT_EQ(c.publish.http, "127.0.0.1:5562");
  EXPECT_TRUE(c.publish.signals);
  ASSERT_EQ(c.feeds.size(), 2u);
  EXPECT_EQ(c.feeds[0].endpoint, "tcp://127.0.0.1:5555");
  EXPECT_EQ(c.feeds[0].format, FeedFormat::json);
  EXPECT_EQ(c.feeds[1].format, FeedFormat::binary);

  ASSERT_EQ(c.symbols.size(), 2u);
  const SymbolConfig* btc = c.find_symbol("BTCUSD");
  ASSERT_NE(btc, nullptr);
  EXPECT_EQ(btc->bars_per_year, 525600);
  // Commented out in the shipped file: an installed example must not name a missing file.
  EXPECT_EQ(btc->backfill, "");
  EXPECT_EQ(btc->stale_after_s, 0);
  EXPECT_EQ(c.find_symbol("ETHUSD")->backfill, "");
  EXPECT_EQ(c.find_symbol("NOPE"), nullptr);

  ASSERT_EQ(c.strategies.size(), 4u);
  const StrategyConfig& trend = *c.find_strategy("trend");
  EXPECT_EQ(trend.symbols, (std::vector<std::string>{"BTCUSD", "ETHUSD"}));
  EXPECT_EQ(trend.window, 10000u);
  EXPECT_EQ(trend.warmup, std::optional<size_t>(3000));
  EXPECT_EQ(trend.every, 1u);
  EXPECT_EQ(trend.rank.objective, Objective::sharpe);
  EXPECT_EQ(trend.rank.min_trades, 5);
  EXPECT_EQ(trend.rank.max_drawdown, 1.0);
  EXPECT_EQ(trend.rank.min_exposure, std::optional<double>(0.0));
  EXPECT_EQ(trend.rank.top, 10u);
  EXPECT_EQ(trend.spec.costs.commission_bps, 1.0);
  EXPECT_EQ(trend.spec.fill, Fill::close);
  EXPECT_EQ(trend.spec.grid.fast.size(), 46u);
  EXPECT_EQ(trend.spec.grid.slow.size(), 37u);
  EXPECT_EQ(trend.spec.grid.entry, std::vector<Entry>{Entry::state});

  const StrategyConfig& breakout = *c.find_strategy("breakout");
  const Grid& g = breakout.spec.grid;
  EXPECT_EQ(g.family, Family::channel_breakout);
  EXPECT_EQ(g.n, (std::vector<int>{20, 55, 100}));
  EXPECT_EQ(g.source, (std::vector<Source>{Source::close, Source::high_low}));
  EXPECT_EQ(g.side, std::vector<Side>{Side::long_only});
  EXPECT_EQ(g.vol_short, (std::vector<int>{5, 10, 15}));
  EXPECT_EQ(g.vol_long, (std::vector<int>{30, 60}));
  EXPECT_EQ(g.vol_threshold, (std::vector<double>{0.8, 1.0, 1.2}));
  EXPECT_EQ(breakout.rank.objective, Objective::calmar);
  EXPECT_EQ(breakout.spec.fill, Fill::next_open);
  EXPECT_EQ(breakout.every, 60u);

  const Grid& bands = c.find_strategy("bands")->spec.grid;
  EXPECT_EQ(bands.family, Family::bollinger);
  EXPECT_EQ(bands.n.size(), 9u);
  EXPECT_EQ(bands.k, (std::vector<double>{1.5, 2.0, 2.5, 3.0}));
  EXPECT_EQ(bands.style, (std::vector<Style>{Style::reversion, Style::breakout}));
  const Grid& rsi = c.find_strategy("rsi")->spec.grid;
  EXPECT_EQ(rsi.family, Family::rsi_reversion);
  EXPECT_EQ(rsi.n, (std::vector<int>{7, 14, 21}));
  EXPECT_EQ(rsi.lo, (std::vector<double>{20, 25, 30}));
  EXPECT_EQ(rsi.hi, (std::vector<double>{70, 75, 80}));
}

TEST(ConfigExamples, UnreadableFile) {
  try {
    load_config("/nonexistent/wfod.toml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/wfod.toml: cannot read: ", 0), 0u)
        << e.what();
  }
}

// A path to a device that never ends (or any file past 16 MiB) is refused, not read until the
// memory runs out.
TEST(ConfigExamples, EndlessFileIsRefused) {
  if (!std::filesystem::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  try {
    load_config("/dev/zero");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "/dev/zero: larger than 16 MiB: not a configuration file");
  }
}

// ---------------------------------------------------------------------------------------
// Defaults and values.

TEST(Config, EmptyFileIsAllDefaults) {
  const Config c = parse_config("", "empty.toml");
  EXPECT_EQ(c.source, "empty.toml");
  EXPECT_EQ(c.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(c.daemon.state_dir, "/var/lib/wfod");
  EXPECT_EQ(c.daemon.backend, "auto");
  EXPECT_EQ(c.daemon.fsync, FsyncPolicy::batch);
  EXPECT_EQ(c.daemon.busy_poll_us, 0);
  EXPECT_EQ(c.daemon.max_future_s, 300);
  EXPECT_EQ(c.daemon.stop_retry_s, 5);
  EXPECT_EQ(c.publish.endpoint, "tcp://127.0.0.1:5560");
  EXPECT_EQ(c.publish.http, "127.0.0.1:5562");  // PROTOCOL v1.1
  EXPECT_TRUE(c.publish.signals);               // PROTOCOL v1.1 §2a: on unless turned off
  EXPECT_TRUE(c.feeds.empty());
  EXPECT_TRUE(c.symbols.empty());
  EXPECT_TRUE(c.strategies.empty());
}

TEST(Config, StrategyDefaults) {
  const Config c = with_grid("ma_cross", "fast = 5\nslow = 20");
  const StrategyConfig& s = c.strategies.at(0);
  EXPECT_EQ(s.every, 1u);
  EXPECT_FALSE(s.warmup.has_value());
  EXPECT_EQ(s.rank.objective, Objective::sharpe);
  EXPECT_EQ(s.rank.min_trades, 1);
  EXPECT_EQ(s.rank.max_drawdown, 1.0);
  EXPECT_FALSE(s.rank.min_exposure.has_value());
  EXPECT_EQ(s.rank.top, 10u);
  EXPECT_EQ(s.spec.fill, Fill::close);
  EXPECT_EQ(s.spec.costs.commission_bps, 0.0);
  EXPECT_EQ(s.spec.costs.slippage_bps, 0.0);
  EXPECT_EQ(s.spec.grid.ma, std::vector<MaType>{MaType::sma});
  EXPECT_EQ(s.spec.grid.side, std::vector<Side>{Side::long_short});
  EXPECT_EQ(s.spec.grid.entry, std::vector<Entry>{Entry::state});
  // No [[symbol]] tables: strategy.symbols is taken as is (wfo's strategy-only files).
  EXPECT_EQ(s.symbols, std::vector<std::string>{"X"});
}

TEST(Config, OtherDaemonValues) {
  const Config c = parse_config(
      "[daemon]\nbackend = \"cpu_ref\"\nprecision = \"fast\"\nthreads = 3\n"
      "log_level = \"debug\"\nfsync = \"every\"\nbusy_poll_us = 500\nmax_future_s = 0\n"
      "stop_retry_s = 0\n[publish]\nhttp = \"\"\nsignals = false\n",
      "t.toml");
  EXPECT_FALSE(c.publish.signals);
  EXPECT_EQ(c.daemon.busy_poll_us, 500);
  EXPECT_EQ(c.daemon.max_future_s, 0);
  EXPECT_EQ(c.daemon.stop_retry_s, 0);
  EXPECT_EQ(c.daemon.backend, "cpu_ref");
  EXPECT_EQ(c.daemon.precision, Precision::fast);
  EXPECT_EQ(c.daemon.threads, 3);
  EXPECT_EQ(c.daemon.log_level, "debug");
  EXPECT_EQ(c.daemon.fsync, FsyncPolicy::every);
  EXPECT_EQ(c.publish.http, "");
  EXPECT_EQ(parse_config("[daemon]\nfsync = \"none\"", "t.toml").daemon.fsync, FsyncPolicy::none);
}

// Issue 43 item 9: [daemon] min_ts as a TOML date, date-time, ISO string or integer ns.
TEST(Config, MinTsForms) {
  constexpr int64_t kDay = int64_t{86'400} * 1'000'000'000;
  EXPECT_EQ(parse_config("", "t.toml").daemon.min_ts_ns, 365 * kDay);  // 1971-01-01
  auto min_ts = [](const std::string& value) {
    return parse_config("[daemon]\nmin_ts = " + value + "\n", "t.toml").daemon.min_ts_ns;
  };
  EXPECT_EQ(min_ts("2000-01-01"), 10'957 * kDay);
  EXPECT_EQ(min_ts("\"2000-01-01\""), 10'957 * kDay);
  EXPECT_EQ(min_ts("2000-01-01T01:00:00+01:00"), 10'957 * kDay);
  EXPECT_EQ(min_ts("2000-01-01T00:00:00.5Z"), 10'957 * kDay + 500'000'000);
  EXPECT_EQ(min_ts("2000-01-01T00:00:00"), 10'957 * kDay);  // local date-time: UTC
  EXPECT_EQ(min_ts("946684800000000000"), 10'957 * kDay);
  EXPECT_EQ(min_ts("0"), 0);
  auto error = [](const std::string& value) {
    try {
      (void)parse_config("[daemon]\nmin_ts = " + value + "\n", "t.toml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error("\"yesterday\""),
            "t.toml:2:10: key 'daemon.min_ts': \"yesterday\" is not a date or time: expected "
            "YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS[.f][Z|+HH:MM] or integer nanoseconds since the epoch");
  EXPECT_EQ(error("-1"),
            "t.toml:2:10: key 'daemon.min_ts': must not be before 1970-01-01 (got -1 ns)");
  EXPECT_NE(error("1969-12-31").find("must not be before 1970-01-01"), std::string::npos);
  EXPECT_NE(error("12:00:00").find("a time of day without a date"), std::string::npos);
  EXPECT_NE(error("1.5").find("got float"), std::string::npos);
}

// Every endpoint form ZeroMQ accepts for the socket's use stays accepted.
TEST(Config, EndpointFormsZeroMqAccepts) {
  const Config c = parse_config(
      "[publish]\nendpoint = \"tcp://*:*\"\nsnapshot = \"ipc:///run/wfod/snapshot\"\n"
      "http = \"[::1]:5562\"\n"
      "[[feed]]\nendpoint = \"tcp://[::1]:65535\"\n[[feed]]\nendpoint = \"tcp://eth0;10.0.0.2:1\"\n"
      "[[feed]]\nendpoint = \"inproc://bars\"\n[[feed]]\nendpoint = \"tcp://feed.example:5555\"\n",
      "t.toml");
  EXPECT_EQ(c.publish.endpoint, "tcp://*:*");
  EXPECT_EQ(c.publish.snapshot, "ipc:///run/wfod/snapshot");
  EXPECT_EQ(c.publish.http, "[::1]:5562");
  ASSERT_EQ(c.feeds.size(), 4u);
  EXPECT_EQ(c.feeds[1].endpoint, "tcp://eth0;10.0.0.2:1");
  EXPECT_EQ(
      parse_config("[publish]\nsnapshot = \"tcp://127.0.0.1:65535\"\n", "t.toml").publish.snapshot,
      "tcp://127.0.0.1:65535");
}

TEST(Config, CorruptLogPolicyAndStaleness) {
  EXPECT_EQ(parse_config("", "t.toml").daemon.on_corrupt_log, CorruptLogPolicy::refuse);
  const Config c = parse_config(
      "[daemon]\non_corrupt_log = \"quarantine\"\n"
      "[[symbol]]\nname = \"A\"\nstale_after_s = 90\n[[symbol]]\nname = \"B\"\n",
      "t.toml");
  EXPECT_EQ(c.daemon.on_corrupt_log, CorruptLogPolicy::quarantine);
  EXPECT_EQ(c.symbols[0].stale_after_s, 90);
  EXPECT_EQ(c.symbols[1].stale_after_s, 0);  // off by default
}

TEST(Config, IntegersAcceptedWhereNumbersAre) {
  const Config c = parse_config(
      "[[symbol]]\nname = \"A\"\nbars_per_year = 365\n"
      "[[strategy]]\nname = \"s\"\nsymbols = [\"A\"]\nfamily = \"ma_cross\"\nwindow = 10\n"
      "cost_bps = 2\nslippage_bps = 1\nmax_drawdown = 1\n"
      "grid = { fast = 5, slow = 20 }\n",
      "t.toml");
  EXPECT_EQ(c.symbols[0].bars_per_year, 365.0);
  EXPECT_EQ(c.strategies[0].spec.costs.commission_bps, 2.0);
  EXPECT_EQ(c.strategies[0].spec.costs.slippage_bps, 1.0);
  EXPECT_EQ(c.strategies[0].rank.max_drawdown, 1.0);
}

// A temporary folder with files in it, removed at the end of the test.
struct TempFolder {
  fs::path dir = fs::temp_directory_path() / ("wfod_config_test_" + std::to_string(::getpid()));
  TempFolder() { fs::create_directories(dir); }
  ~TempFolder() { fs::remove_all(dir); }
  fs::path write(const std::string& name, std::string_view text) const {
    const fs::path p = dir / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
};

// The message of the ConfigError that loading `path` throws.
std::string load_error(const fs::path& path, const FileChecks& checks = {}) {
  try {
    load_config(path.string(), checks);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError for " << path;
  return "";
}

TEST(Config, BackfillPathsResolveAgainstTheConfigFolder) {
  TempFolder t;
  const fs::path abs = t.write("elsewhere/b.csv", "x");
  t.write("h/a.csv", "x");
  const fs::path file = t.write("sub/c.toml",
                                "[[symbol]]\nname = \"A\"\nbackfill = \"../h/a.csv\"\n"
                                "[[symbol]]\nname = \"B\"\nbackfill = \"" +
                                    abs.string() +
                                    "\"\n"
                                    "[[symbol]]\nname = \"C\"\n");
  const Config c = load_config(file.string());
  EXPECT_EQ(fs::path(c.symbols[0].backfill), (t.dir / "h" / "a.csv").lexically_normal());
  EXPECT_EQ(c.symbols[1].backfill, abs.string());
  EXPECT_EQ(c.symbols[2].backfill, "");
}

// A backfill file that is not there is a config error at its key when the daemon asks
// (check-config and start-up: it would otherwise fail at start, or run without the history).
TEST(Config, MissingBackfillIsAnErrorAtItsKey) {
  TempFolder t;
  const fs::path file = t.write("c.toml",
                                "[[symbol]]\nname = \"A\"\n\n[[symbol]]\nname = \"B\"\n"
                                "backfill = \"history/b.csv\"\n");
  FileChecks exists;
  exists.backfill_exists = true;
  const std::string m = load_error(file, exists);
  EXPECT_EQ(
      m.rfind(file.string() + ":6:12: key 'symbol[1].backfill': \"history/b.csv\" (resolved as " +
                  (t.dir / "history/b.csv").string() + "): No such file or directory",
              0),
      0u)
      << m;
  t.write("history/b.csv", "");
  fs::create_directories(t.dir / "dir.csv");
  t.write("d.toml", "[[symbol]]\nname = \"A\"\nbackfill = \"dir.csv\"\n");
  EXPECT_NE(load_error(t.dir / "d.toml", exists).find("not a regular file"), std::string::npos);
  // Not asked (wfo, which may read --csv instead; a reload): resolved, not checked.
  EXPECT_EQ(load_config((t.dir / "d.toml").string()).symbols[0].backfill,
            (t.dir / "dir.csv").string());
  fs::remove(t.dir / "history/b.csv");
  EXPECT_EQ(load_config(file.string()).symbols[1].backfill, (t.dir / "history/b.csv").string());
  // parse_config names no files: nothing to resolve, nothing checked.
  EXPECT_EQ(parse_config("[[symbol]]\nname = \"A\"\nbackfill = \"nope.csv\"\n", "t.toml")
                .symbols[0]
                .backfill,
            "nope.csv");
}

// FileChecks hooks run on the resolved values; what they throw is reported at the key.
TEST(Config, FileCheckHooksReportAtTheKey) {
  TempFolder t;
  t.write("a.csv", "x");
  const fs::path file =
      t.write("c.toml",
              "[daemon]\nlog_level = \"info\"\nstate_dir = \"/st\"\n[[symbol]]\nname = \"A\"\n"
              "backfill = \"a.csv\"\n");
  std::vector<std::string> seen;
  FileChecks checks;
  checks.backfill = [&seen](const std::string& p) { seen.push_back("backfill " + p); };
  checks.state_dir = [&seen](const std::string& p) { seen.push_back("state_dir " + p); };
  (void)load_config(file.string(), checks);
  EXPECT_EQ(seen,
            (std::vector<std::string>{"backfill " + (t.dir / "a.csv").string(), "state_dir /st"}));

  checks.backfill = [](const std::string&) { throw std::runtime_error("a.csv:3: bad row"); };
  EXPECT_EQ(load_error(file, checks),
            file.string() + ":6:12: key 'symbol[0].backfill': a.csv:3: bad row");
  checks.backfill = nullptr;
  checks.state_dir = [](const std::string&) { throw std::runtime_error("read-only"); };
  EXPECT_EQ(load_error(file, checks),
            file.string() + ":3:13: key 'daemon.state_dir': \"/st\": read-only");
  // The default state_dir, not written in the file: reported at the file's start.
  const fs::path bare = t.write("bare.toml", "[[symbol]]\nname = \"A\"\n");
  EXPECT_EQ(load_error(bare, checks),
            bare.string() + ":1:1: key 'daemon.state_dir': \"/var/lib/wfod\": read-only");
}

// ---------------------------------------------------------------------------------------
// Grid axes through the config: scalar, array, range string, list string.

TEST(ConfigGrid, IntegerAxes) {
  EXPECT_EQ(with_grid("ma_cross", "fast = 12\nslow = 20").strategies[0].spec.grid.fast,
            std::vector<int>{12});
  EXPECT_EQ(with_grid("ma_cross", "fast = [5, 10]\nslow = 20").strategies[0].spec.grid.fast,
            (std::vector<int>{5, 10}));
  EXPECT_EQ(with_grid("ma_cross", "fast = \"5:15:5\"\nslow = 20").strategies[0].spec.grid.fast,
            (std::vector<int>{5, 10, 15}));
  EXPECT_EQ(with_grid("ma_cross", "fast = \"5,7\"\nslow = 20").strategies[0].spec.grid.fast,
            (std::vector<int>{5, 7}));
  EXPECT_EQ(with_grid("ma_cross", "fast = \"9\"\nslow = 20").strategies[0].spec.grid.fast,
            std::vector<int>{9});
  EXPECT_EQ(with_grid("channel_breakout", "n = [20, 55]").strategies[0].spec.grid.n,
            (std::vector<int>{20, 55}));
}

TEST(ConfigGrid, RealAxis) {
  const auto threshold = [](std::string_view value) {
    return with_grid("channel_breakout",
                     "n = 20\nvol_short = 5\nvol_long = 30\nvol_threshold = " + std::string(value))
        .strategies[0]
        .spec.grid.vol_threshold;
  };
  EXPECT_EQ(threshold("1"), std::vector<double>{1.0});
  EXPECT_EQ(threshold("0.9"), std::vector<double>{0.9});
  EXPECT_EQ(threshold("[0.5, 1]"), (std::vector<double>{0.5, 1.0}));
  // Decimal-exact range (SPEC §5): the same doubles as the literals.
  EXPECT_EQ(threshold("\"0.6:1.2:0.2\""), (std::vector<double>{0.6, 0.8, 1.0, 1.2}));
  EXPECT_EQ(threshold("\"0.7,1.1\""), (std::vector<double>{0.7, 1.1}));
}

TEST(ConfigGrid, EnumAxes) {
  const Grid g = with_grid("ma_cross",
                           "fast = 5\nslow = 20\nma = \"sma,ema, hma\"\n"
                           "side = [\"long_only\", \"long_short\"]\nentry = \"cross\"")
                     .strategies[0]
                     .spec.grid;
  EXPECT_EQ(g.ma, (std::vector<MaType>{MaType::sma, MaType::ema, MaType::hma}));
  EXPECT_EQ(g.side, (std::vector<Side>{Side::long_only, Side::long_short}));
  EXPECT_EQ(g.entry, std::vector<Entry>{Entry::cross});
  EXPECT_EQ(with_grid("channel_breakout", "n = 5\nsource = [\"high_low\"]")
                .strategies[0]
                .spec.grid.source,
            std::vector<Source>{Source::high_low});
}

// ---------------------------------------------------------------------------------------
// Errors: "t.toml:LINE:COL: key 'KEY': message".

struct ErrorCase {
  std::string name;
  std::string text;
  std::string prefix;  // "t.toml:L:C: key 'K': " (the message must start with it)
  std::string detail;  // and contain this
};

// A valid strategy up to (and without) its grid; the grid header is line 6.
constexpr std::string_view kStrategyHead =
    "[[strategy]]\n"           // 1
    "name = \"s\"\n"           // 2
    "symbols = [\"X\"]\n"      // 3
    "family = \"ma_cross\"\n"  // 4
    "window = 10\n";           // 5

std::string strategy(std::string_view grid) {
  return std::string(kStrategyHead) + "[strategy.grid]\n" + std::string(grid);
}

std::vector<ErrorCase> error_cases() {
  return {
      // Unknown keys and tables.
      {"unknown_key", "[daemon]\nthread = 4\n",
       "t.toml:2:1: key 'daemon.thread': ", "unknown key (allowed here: state_dir backend"},
      {"unknown_table", "[daemon]\n[deamon]\n", "t.toml:2:2: key 'deamon': ", "unknown table"},
      {"unknown_subtable", "[publish]\n[publish.extra]\nx = 1\n",
       "t.toml:2:10: key 'publish.extra': ", "unknown table"},
      {"unknown_root_key", "version = 1\n", "t.toml:1:1: key 'version': ", "unknown key"},
      {"unknown_strategy_key", std::string(kStrategyHead) + "windw = 5\n",
       "t.toml:6:1: key 'strategy[0].windw': ", "unknown key"},
      {"unknown_grid_key", strategy("fast = 5\nslow = 9\nfasst = 3\n"),
       "t.toml:9:1: key 'strategy[0].grid.fasst': ", "unknown key"},
      // Wrong types.
      {"wrong_type_int", "[daemon]\nthreads = \"4\"\n",
       "t.toml:2:11: key 'daemon.threads': ", "expected an integer, got string"},
      {"busy_poll_too_long", "[daemon]\nbusy_poll_us = 2000000\n",
       "t.toml:2:16: key 'daemon.busy_poll_us': ", "must be <= 1000000 (got 2000000)"},
      {"busy_poll_negative", "[daemon]\nbusy_poll_us = -1\n",
       "t.toml:2:16: key 'daemon.busy_poll_us': ", "must be >= 0 (got -1)"},
      {"max_future_negative", "[daemon]\nmax_future_s = -1\n",
       "t.toml:2:16: key 'daemon.max_future_s': ", "must be >= 0 (got -1)"},
      {"max_future_fractional", "[daemon]\nmax_future_s = 1.5\n",
       "t.toml:2:16: key 'daemon.max_future_s': ", "expected an integer"},
      {"stop_retry_too_long", "[daemon]\nstop_retry_s = 601\n",
       "t.toml:2:16: key 'daemon.stop_retry_s': ", "must be <= 600 (got 601)"},
      {"wrong_type_string", "[daemon]\nbackend = 1\n",
       "t.toml:2:11: key 'daemon.backend': ", "expected a string, got integer"},
      {"wrong_type_table", "daemon = 1\n",
       "t.toml:1:10: key 'daemon': ", "expected a table, got integer"},
      {"feed_not_array", "[feed]\nendpoint = \"tcp://x:1\"\n",
       "t.toml:1:1: key 'feed': ", "expected an array of tables ([[feed]])"},
      {"window_float", std::string(kStrategyHead) + "every = 1.5\n",
       "t.toml:6:9: key 'strategy[0].every': ", "expected an integer, got float"},
      {"symbols_not_strings", "[[strategy]]\nname = \"s\"\nsymbols = [\"A\", 2]\n",
       "t.toml:3:17: key 'strategy[0].symbols[1]': ", "expected a string, got integer"},
      {"grid_float_period", strategy("fast = 1.5\nslow = 9\n"),
       "t.toml:7:8: key 'strategy[0].grid.fast': ", "expected an integer"},
      {"grid_array_element", strategy("fast = [5, \"x\"]\nslow = 9\n"),
       "t.toml:7:12: key 'strategy[0].grid.fast[1]': ", "expected an integer, got string"},
      {"grid_empty_array", strategy("fast = []\nslow = 9\n"),
       "t.toml:7:8: key 'strategy[0].grid.fast': ", "must not be empty"},
      {"grid_enum_type", strategy("fast = 5\nslow = 9\nma = 1\n"),
       "t.toml:9:6: key 'strategy[0].grid.ma': ", "expected a string or an array of strings"},
      // Values.
      {"bad_range_text", strategy("fast = \"5:50\"\nslow = 9\n"),
       "t.toml:7:8: key 'strategy[0].grid.fast': ", ""},
      {"bad_list_text", strategy("fast = \"5,x\"\nslow = 9\n"),
       "t.toml:7:8: key 'strategy[0].grid.fast': ", ""},
      {"bad_real_range",
       strategy("fast = 5\nslow = 9\nvol_short = 5\nvol_long = 9\n"
                "vol_threshold = \"a:b:c\"\n"),
       "t.toml:11:17: key 'strategy[0].grid.vol_threshold': ", ""},
      {"bad_enum", strategy("fast = 5\nslow = 9\nma = [\"sma\", \"xma\"]\n"),
       "t.toml:9:14: key 'strategy[0].grid.ma[1]': ", "xma"},
      {"bad_enum_list_text", strategy("fast = 5\nslow = 9\nside = \"long_short,both\"\n"),
       "t.toml:9:8: key 'strategy[0].grid.side': ", "both"},
      {"grid_validate", strategy("fast = 0\nslow = 9\n"),
       "t.toml:6:1: key 'strategy[0].grid': ", ""},
      {"bad_objective", std::string(kStrategyHead) + "objective = \"alpha\"\n",
       "t.toml:6:13: key 'strategy[0].objective': ", "alpha"},
      {"bad_fill", std::string(kStrategyHead) + "fill = \"open\"\n",
       "t.toml:6:8: key 'strategy[0].fill': ", "open"},
      {"bad_family", "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"rsi\"\n",
       "t.toml:4:10: key 'strategy[0].family': ", "rsi"},
      {"bad_precision", "[daemon]\nprecision = \"half\"\n",
       "t.toml:2:13: key 'daemon.precision': ", "half"},
      {"bad_fsync", "[daemon]\nfsync = \"always\"\n", "t.toml:2:9: key 'daemon.fsync': ",
       "unknown value \"always\" (expected one of: every batch none)"},
      {"bad_log_level", "[daemon]\nlog_level = \"verbose\"\n",
       "t.toml:2:13: key 'daemon.log_level': ", "verbose"},
      {"bad_backend", "[daemon]\nbackend = \"tpu\"\n",
       "t.toml:2:11: key 'daemon.backend': ", "tpu"},
      {"bad_format", "[[feed]]\nendpoint = \"tcp://x:1\"\nformat = \"xml\"\n",
       "t.toml:3:10: key 'feed[0].format': ", "xml"},
      {"negative_threads", "[daemon]\nthreads = -1\n",
       "t.toml:2:11: key 'daemon.threads': ", "must be >= 0"},
      {"zero_window",
       "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"ma_cross\"\n"
       "window = 0\n",
       "t.toml:5:10: key 'strategy[0].window': ", "must be >= 1"},
      {"zero_every", std::string(kStrategyHead) + "every = 0\n",
       "t.toml:6:9: key 'strategy[0].every': ", "must be >= 1"},
      {"zero_top", std::string(kStrategyHead) + "top = 0\n",
       "t.toml:6:7: key 'strategy[0].top': ", "must be >= 1"},
      {"negative_min_trades", std::string(kStrategyHead) + "min_trades = -1\n",
       "t.toml:6:14: key 'strategy[0].min_trades': ", "must be >= 0"},
      {"zero_max_drawdown", std::string(kStrategyHead) + "max_drawdown = 0.0\n",
       "t.toml:6:16: key 'strategy[0].max_drawdown': ", "must be > 0"},
      {"nan_max_drawdown", std::string(kStrategyHead) + "max_drawdown = nan\n",
       "t.toml:6:16: key 'strategy[0].max_drawdown': ", "finite"},
      {"min_exposure_above_one", std::string(kStrategyHead) + "min_exposure = 1.5\n",
       "t.toml:6:16: key 'strategy[0].min_exposure': ", "must be in [0, 1]"},
      {"negative_cost", std::string(kStrategyHead) + "cost_bps = -1\n",
       "t.toml:6:12: key 'strategy[0].cost_bps': ", "must be >= 0"},
      {"negative_slippage", std::string(kStrategyHead) + "slippage_bps = -0.5\n",
       "t.toml:6:16: key 'strategy[0].slippage_bps': ", "must be >= 0"},
      {"negative_warmup", std::string(kStrategyHead) + "warmup = -5\n",
       "t.toml:6:10: key 'strategy[0].warmup': ", "must be >= 0"},
      {"zero_bars_per_year", "[[symbol]]\nname = \"A\"\nbars_per_year = 0\n",
       "t.toml:3:17: key 'symbol[0].bars_per_year': ", "must be > 0"},
      {"empty_endpoint", "[publish]\nendpoint = \"\"\n",
       "t.toml:2:12: key 'publish.endpoint': ", "must not be empty"},
      // Names and references.
      {"bad_strategy_name", "[[strategy]]\nname = \"a b\"\n",
       "t.toml:2:8: key 'strategy[0].name': ", "not a valid strategy name"},
      {"bad_symbol_name", "[[symbol]]\nname = \"BTC USD\"\n",
       "t.toml:2:8: key 'symbol[0].name': ", "not a valid symbol"},
      {"long_symbol_name", "[[symbol]]\nname = \"" + std::string(33, 'A') + "\"\n",
       "t.toml:2:8: key 'symbol[0].name': ", "1-32 bytes"},
      {"duplicate_symbol", "[[symbol]]\nname = \"A\"\n[[symbol]]\nname = \"A\"\n",
       "t.toml:4:8: key 'symbol[1].name': ", "duplicate symbol name 'A' (also symbol[0])"},
      {"duplicate_strategy",
       strategy("fast = 5\nslow = 9\n") +
           "[[strategy]]\nname = \"s\"\n"
           "symbols = [\"X\"]\nfamily = \"channel_breakout\"\nwindow = 10\n"
           "grid = { n = 5 }\n",
       "t.toml:10:8: key 'strategy[1].name': ", "duplicate strategy name 's' (also strategy[0])"},
      {"unknown_symbol",
       "[[symbol]]\nname = \"A\"\n[[strategy]]\nname = \"s\"\n"
       "symbols = [\"A\", \"B\"]\n",
       "t.toml:5:17: key 'strategy[0].symbols[1]': ", "unknown symbol 'B'"},
      {"symbol_listed_twice", "[[strategy]]\nname = \"s\"\nsymbols = [\"A\", \"A\"]\n",
       "t.toml:3:17: key 'strategy[0].symbols[1]': ", "listed twice"},
      {"empty_symbols", "[[strategy]]\nname = \"s\"\nsymbols = []\n",
       "t.toml:3:11: key 'strategy[0].symbols': ", "must not be empty"},
      // Required keys: reported at the table that lacks them.
      {"missing_window", "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"ma_cross\"\n",
       "t.toml:1:1: key 'strategy[0].window': ", "required key is missing"},
      {"missing_grid", std::string(kStrategyHead),
       "t.toml:1:1: key 'strategy[0].grid': ", "required key is missing"},
      {"missing_name", "\n[[strategy]]\nsymbols = [\"X\"]\n",
       "t.toml:2:1: key 'strategy[0].name': ", "required key is missing"},
      {"missing_slow", strategy("fast = 5\n"),
       "t.toml:6:1: key 'strategy[0].grid.slow': ", "required key is missing"},
      {"missing_n",
       "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"channel_breakout\"\n"
       "window = 10\ngrid = { source = \"close\" }\n",
       "t.toml:6:8: key 'strategy[0].grid.n': ", "required key is missing"},
      {"missing_feed_endpoint", "[[feed]]\nformat = \"json\"\n",
       "t.toml:1:1: key 'feed[0].endpoint': ", "required key is missing"},
      {"missing_symbol_name", "[[symbol]]\nbars_per_year = 1\n",
       "t.toml:1:1: key 'symbol[0].name': ", "required key is missing"},
      // Grid structure.
      {"partial_vol_filter", strategy("fast = 5\nslow = 9\nvol_short = 5\nvol_threshold = 1.0\n"),
       "t.toml:6:1: key 'strategy[0].grid': ", "(missing vol_long)"},
      {"wrong_family_key", strategy("fast = 5\nslow = 9\nn = 20\n"),
       "t.toml:9:5: key 'strategy[0].grid.n': ", "not a parameter of family ma_cross"},
      {"wrong_family_key_breakout",
       "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"channel_breakout\"\n"
       "window = 10\n[strategy.grid]\nn = 5\nentry = \"cross\"\n",
       "t.toml:8:9: key 'strategy[0].grid.entry': ", "not a parameter of family channel_breakout"},
      // Addresses: what ZeroMQ or the HTTP listener would refuse, or take modulo 65536.
      {"endpoint_port_above_65535", "[publish]\nendpoint = \"tcp://127.0.0.1:99999\"\n",
       "t.toml:2:12: key 'publish.endpoint': ", "port '99999' is not 1..65535"},
      {"endpoint_no_transport", "[publish]\nendpoint = \"foo\"\n",
       "t.toml:2:12: key 'publish.endpoint': ", "\"foo\": expected tcp://HOST:PORT"},
      {"endpoint_unknown_transport", "[publish]\nendpoint = \"udp://127.0.0.1:5560\"\n",
       "t.toml:2:12: key 'publish.endpoint': ", "unsupported transport 'udp'"},
      {"snapshot_port_zero", "[publish]\nsnapshot = \"tcp://127.0.0.1:0\"\n",
       "t.toml:2:12: key 'publish.snapshot': ", "port '0' is not 1..65535 (or * for"},
      {"snapshot_no_port", "[publish]\nsnapshot = \"tcp://127.0.0.1\"\n",
       "t.toml:2:12: key 'publish.snapshot': ", "no port"},
      {"feed_port_garbage", "[[feed]]\nendpoint = \"tcp://127.0.0.1:5555x\"\n",
       "t.toml:2:12: key 'feed[0].endpoint': ", "port '5555x' is not 1..65535"},
      {"feed_connect_to_star", "[[feed]]\nendpoint = \"tcp://127.0.0.1:*\"\n",
       "t.toml:2:12: key 'feed[0].endpoint': ", "cannot connect to port '*'"},
      {"feed_connect_to_any_host", "[[feed]]\nendpoint = \"tcp://*:5555\"\n",
       "t.toml:2:12: key 'feed[0].endpoint': ", "cannot connect to host '*'"},
      {"feed_ipc_too_long", "[[feed]]\nendpoint = \"ipc:///" + std::string(107, 'a') + "\"\n",
       "t.toml:2:12: key 'feed[0].endpoint': ", "ipc path is 108 bytes, at most 107"},
      {"endpoint_space", "[publish]\nendpoint = \"tcp://127.0.0.1: 5560\"\n",
       "t.toml:2:12: key 'publish.endpoint': ", "a space or a control character"},
      {"http_nonsense", "[publish]\nhttp = \"nonsense\"\n",
       "t.toml:2:8: key 'publish.http': ", "\"nonsense\": expected HOST:PORT with PORT 1..65535"},
      {"http_port_above_65535", "[publish]\nhttp = \"127.0.0.1:99999\"\n",
       "t.toml:2:8: key 'publish.http': ", "expected HOST:PORT"},
      {"signals_not_bool", "[publish]\nsignals = \"yes\"\n",
       "t.toml:2:11: key 'publish.signals': ", "expected a boolean, got string"},
      // Storage and health keys.
      {"on_corrupt_log_unknown", "[daemon]\non_corrupt_log = \"ignore\"\n",
       "t.toml:2:18: key 'daemon.on_corrupt_log': ",
       "unknown value \"ignore\" (expected one of: refuse quarantine)"},
      {"stale_after_negative", "[[symbol]]\nname = \"A\"\nstale_after_s = -1\n",
       "t.toml:3:17: key 'symbol[0].stale_after_s': ", "must be >= 0 (0 = off)"},
      // A repeated axis value, reported at its key.
      {"repeated_fast", strategy("fast = [5, 10, 5]\nslow = 20\n"),
       "t.toml:7:8: key 'strategy[0].grid.fast': ", "lists 5 more than once"},
      {"repeated_ma", strategy("fast = 5\nslow = 20\nma = \"sma,sma\"\n"),
       "t.toml:9:6: key 'strategy[0].grid.ma': ", "lists sma more than once"},
      // TOML syntax.
      {"toml_syntax", "[daemon]\nthreads = \n", "t.toml:2:", "TOML syntax error"},
      {"toml_redefined", "[daemon]\nthreads = 1\nthreads = 2\n", "t.toml:3:", "TOML syntax error"},
  };
}

TEST(ConfigErrors, EachNamesFileLineColumnAndKey) {
  for (const ErrorCase& c : error_cases()) {
    SCOPED_TRACE(c.name + ":\n" + c.text);
    const std::string m = config_error_of(c.text);
    EXPECT_EQ(m.rfind(c.prefix, 0), 0u) << m << "\n  expected prefix: " << c.prefix;
    EXPECT_NE(m.find(c.detail), std::string::npos) << m << "\n  lacks: " << c.detail;
    // Whatever the case, a message names a position: "t.toml:LINE:COL: ".
    EXPECT_TRUE(m.size() > 7 && std::isdigit(static_cast<unsigned char>(m[7]))) << m;
  }
}

TEST(ConfigErrors, FirstUnknownKeyInDocumentOrder) {
  // Tables iterate in key order; the report must still follow the file.
  const std::string m = config_error_of("[daemon]\nzzz = 1\naaa = 2\n");
  EXPECT_EQ(m.rfind("t.toml:2:1: key 'daemon.zzz': unknown key", 0), 0u) << m;
}

TEST(ConfigErrors, MisspeltRequiredKeyIsReportedAsUnknown) {
  const std::string m =
      config_error_of("[[strategy]]\nnmae = \"s\"\nsymbols = [\"X\"]\nfamily = \"ma_cross\"\n");
  EXPECT_EQ(m.rfind("t.toml:2:1: key 'strategy[0].nmae': unknown key", 0), 0u) << m;
}

// ---------------------------------------------------------------------------------------
// SHA-256 (FIPS 180-4 test vectors, and the padding boundaries around 55/56/64 bytes).

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PaddingBoundaries) {
  const std::pair<size_t, const char*> cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
      {128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
  };
  for (const auto& [n, hex] : cases) EXPECT_EQ(sha256_hex(std::string(n, 'a')), hex) << n;
}

}  // namespace
}  // namespace wfod::config
