// The size query (Backend::stream_memory) and the daemon's memory plan over it (issue 43
// item 1): the cpu stream's plan bounds what the opened stream holds and is not far above
// it, a grid of billions of combos is answered at once, and a config over its budget is
// refused at the strategy's grid naming the stream and how many combos fit.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/daemon/core/config_checks.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod {
namespace {

StreamSpec spec_of(const Grid& grid, size_t window, size_t warmup) {
  StreamSpec spec;
  spec.strategy.grid = grid;
  spec.window = window;
  spec.warmup = warmup;
  spec.rank.top = 10;
  spec.threads = 1;
  return spec;
}

Grid ma_grid(const std::string& fast, const std::string& slow) {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = parse_int_axis(fast);
  g.slow = parse_int_axis(slow);
  return g;
}

// The stream's own footprint after opening on a long history and advancing in steps, against
// its plan: never above it (the plan is what the daemon budgets), and within 2x (a plan far
// above the real use would refuse configs that fit); returns the plan and the footprint.
std::pair<uint64_t, size_t> expect_plan_bounds(const StreamSpec& spec, const char* what) {
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  const StreamMemory plan = cpu->stream_memory(spec);
  EXPECT_EQ(plan.device_bytes, 0u) << what;
  const size_t bars = 3 * (spec.window + spec.warmup) + 5000;
  const Series history = test::random_walk(bars, 17);
  const size_t opened = bars - 600;
  std::unique_ptr<Stream> stream = cpu->open_stream(spec, HistoryView::of(history).prefix(opened));
  size_t most = stream->stats().footprint_bytes;
  for (size_t t = opened; t < bars; t += 150) {
    std::vector<Bar> step;
    for (size_t i = t; i < std::min(bars, t + 150); ++i) {
      step.push_back(Bar{history.ts_ns[i], history.open[i], history.high[i], history.low[i],
                         history.close[i], history.volume[i], 0});
    }
    (void)stream->advance(step);
    most = std::max(most, stream->stats().footprint_bytes);
  }
  EXPECT_LE(most, plan.host_bytes) << what;
  EXPECT_LE(plan.host_bytes, 2 * most + (1u << 20)) << what << ": footprint " << most;
  std::printf("[ PLAN     ] %s: plan %llu bytes, footprint at most %zu\n", what,
              static_cast<unsigned long long>(plan.host_bytes), most);
  return {plan.host_bytes, most};
}

TEST(StreamMemory, TheCpuPlanBoundsTheOpenedStream) {
  expect_plan_bounds(spec_of(ma_grid("2:40:1", "10:200:5"), 500, 600), "ma_cross 1,482 combos");
  expect_plan_bounds(spec_of(ma_grid("5:20:5", "30:60:10"), 2000, 180), "ma_cross 16 combos");
  Grid channel;
  channel.family = Family::channel_breakout;
  channel.n = parse_int_axis("5:100:5");
  expect_plan_bounds(spec_of(channel, 1000, 300), "channel_breakout");
  Grid vol = ma_grid("5:20:5", "30:60:10");
  vol.vol_short = parse_int_axis("5:10:5");
  vol.vol_long = parse_int_axis("20:40:20");
  vol.vol_threshold = parse_real_axis("0.5:1.5:0.5");
  expect_plan_bounds(spec_of(vol, 800, 180), "ma_cross with the vol filter");
}

// bench/daemon_universe.sh's shape (issue 47 item 4): W = 1,000 (C = 64), SMA slow periods
// 10..1,009, so a thousand indicator rows (here with 2 fast periods instead of 20: 1,989
// combos, the rows as many). The plan is the footprint but for the lane groups it cannot
// count at once (a partly filled group per kernel kind and per kind with stops: 24 groups of
// 8 lanes, ~1.1 MB here): 41.1 MB planned, 40.0 MB held, of which 28.2 MB are the rows,
// reserved for 3,521 bars each (the ring's 1,216 bars, a slice of 1,152 and a slice of room),
// and 5.9 kB a combo (33 Summaries). Before issue 47 the rows were reserved for 12,774 bars
// (a slice of at least 4,096, twice), a combo held 37 Summaries, and the plan counted 24 kB
// more a row for states an SMA does not keep.
TEST(StreamMemory, TheCpuPlanIsTheFootprintAtTheUniverseShape) {
  StreamSpec spec = spec_of(ma_grid("2:21:19", "10:1009:1"), 1000, 3027);
  spec.threads = 2;
  const auto [plan, most] = expect_plan_bounds(spec, "ma_cross SMA, W 1,000, 1,001 rows");
  EXPECT_LE(plan, most + (2u << 20));
  const size_t rows = 1001;  // slow 10..1009 and fast 2 (21 is a slow period too)
  const size_t span = 19 * 64 + 1 + 2 * 1152;
  EXPECT_GE(most, rows * span * sizeof(double));
  EXPECT_LE(most, rows * span * sizeof(double) + 1989 * 6200) << "the rows, then ~6 kB a combo";
}

// A rules grid (SPEC §5a) with every stop kind and the vol filter: its stream is bounded, so
// its plan is a size, not the history's length (issue 43).
Grid stream_memory_rules_grid() {
  rules::RulesText t;
  t.params = {"fast", "slow", "lvl"};
  t.indicators = {{"f", "ema($fast)"}, {"s", "sma($slow)"}, {"r", "rsi(14)"}, {"h", "hh(20)"}};
  t.long_entry = "f > s and r < $lvl or crosses_above(close, h)";
  t.long_exit = "crosses_below(f, s)";
  t.short_entry = "f < s and r > 100 - $lvl";
  t.short_exit = "f > s";
  t.valid = "$fast < $slow";
  Grid g;
  g.family = Family::rules;
  g.program = std::make_shared<const rules::Program>(rules::compile(t));
  g.rule_axes = {{5, 10, 15}, {20, 40, 60}, {30, 40}};
  g.stop_loss = {0, 0.02};
  g.take_profit = {0, 0.05};
  g.trailing_stop = {0, 0.03};
  g.vol_short = {10};
  g.vol_long = {50};
  g.vol_threshold = {0.8};
  g.validate();
  return g;
}

TEST(StreamMemory, TheCpuPlanBoundsTheOpenedRulesStream) {
  expect_plan_bounds(spec_of(stream_memory_rules_grid(), 500, 600), "rules, W 500");
  expect_plan_bounds(spec_of(stream_memory_rules_grid(), 3000, 180), "rules, W 3000");
}

TEST(StreamMemory, BillionsOfCombosAreAnsweredAtOnce) {
  // Issue 43 item 1's grid: 2.56e9 combos, 18.5 GB before the kernel killed it.
  Grid g = ma_grid("5:20:5", "30:60:10");
  g.ma = {MaType::sma, MaType::ema, MaType::wma, MaType::hma};
  g.vol_short = parse_int_axis("1:1000:1");
  g.vol_long = parse_int_axis("1001:2000:1");
  g.vol_threshold = parse_real_axis("0.1:1.0:0.1");
  const auto start = std::chrono::steady_clock::now();
  const StreamMemory plan = make_backend("cpu")->stream_memory(spec_of(g, 200, 6000));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(plan.host_bytes, 100ull << 30) << "640M combos x their chunk caches";
  EXPECT_LT(seconds, 5.0);
}

namespace daemon_plan {

constexpr const char* kSource = "wfod.toml";

std::string config_text(const std::string& daemon_keys, const std::string& grid, int symbols) {
  std::string text = "[daemon]\n" + daemon_keys + "\n";
  std::string names;
  for (int i = 0; i < symbols; ++i) {
    text += "[[symbol]]\nname = \"S" + std::to_string(i) + "\"\n";
    names += std::string(i ? ", " : "") + "\"S" + std::to_string(i) + "\"";
  }
  return text + "[[strategy]]\nname = \"big\"\nsymbols = [" + names +
         "]\nfamily = \"ma_cross\"\nwindow = 2000\n\n[strategy.grid]\n" + grid;
}

daemon::CheckEnvironment cpu_environment(uint64_t memory_bytes) {
  daemon::CheckEnvironment env;
  env.memory_bytes = memory_bytes;
  env.stream_memory = [cpu = std::shared_ptr<Backend>(make_backend("cpu"))](
                          const StreamSpec& spec) { return cpu->stream_memory(spec); };
  return env;
}

std::vector<std::string> errors_of(const std::string& text, const daemon::CheckEnvironment& env) {
  std::vector<std::string> out;
  for (const auto& f : daemon::check_daemon_config(config::parse_config(text, kSource), env))
    if (f.error) out.push_back(f.text);
  return out;
}

constexpr const char* kBigGrid = "fast = \"2:100:1\"\nslow = \"101:1100:1\"\n";  // 99,000 combos
constexpr const char* kSmallGrid = "fast = \"5:20:5\"\nslow = \"30:60:10\"\n";

TEST(MemoryPlan, AConfigWithinTheBudgetPasses) {
  EXPECT_TRUE(errors_of(config_text("", kSmallGrid, 3), cpu_environment(8ull << 30)).empty());
  const config::Config c = config::parse_config(config_text("", kSmallGrid, 3), kSource);
  const daemon::MemoryPlan plan = daemon::plan_memory(c, cpu_environment(8ull << 30));
  ASSERT_EQ(plan.streams.size(), 3u);
  EXPECT_EQ(plan.streams[1].symbol, "S1");
  EXPECT_EQ(plan.streams[1].combos, 16u);
  EXPECT_EQ(plan.budget_bytes, static_cast<uint64_t>(0.8 * double(8ull << 30)));
  EXPECT_NE(daemon::memory_plan_text(plan).find("memory plan: 3 stream(s)"), std::string::npos);
}

TEST(MemoryPlan, OverTheDefaultShareIsRefusedNamingTheStreamAndWhatFits) {
  const config::Config c = config::parse_config(config_text("", kBigGrid, 4), kSource);
  const uint64_t one = daemon::plan_memory(c, cpu_environment(0)).streams.at(0).host_bytes;
  // Room for about two of the four streams.
  const uint64_t memory = static_cast<uint64_t>((2.5 * double(one) + (64 << 20)) / 0.8);
  const auto errors = errors_of(config_text("", kBigGrid, 4), cpu_environment(memory));
  ASSERT_EQ(errors.size(), 1u);
  const std::string& e = errors[0];
  EXPECT_EQ(e.rfind("wfod.toml:", 0), 0u) << e;
  EXPECT_NE(e.find("key 'strategy[0].grid': the memory plan does not fit: stream S0/big "
                   "(99,000 combos, window 2000) needs"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("(x4 symbols)"), std::string::npos) << e;
  EXPECT_NE(e.find("80% of"), std::string::npos) << e;
  // What fits: a bit over half the grid per stream.
  const size_t at = e.find("About ");
  ASSERT_NE(at, std::string::npos) << e;
  const std::string fits = e.substr(at + 6, e.find(' ', at + 6) - at - 6);
  uint64_t n = 0;
  for (char ch : fits)
    if (ch != ',') n = n * 10 + static_cast<uint64_t>(ch - '0');
  EXPECT_GT(n, 99'000u / 2) << e;
  EXPECT_LT(n, 99'000u) << e;
}

TEST(MemoryPlan, TheKeySetsTheBudget) {
  const std::string small = config_text("memory_budget_mb = 70", kSmallGrid, 1);
  EXPECT_TRUE(errors_of(small, cpu_environment(0)).empty());
  const auto errors =
      errors_of(config_text("memory_budget_mb = 65", kBigGrid, 1), cpu_environment(1ull << 40));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("([daemon] memory_budget_mb = 65)"), std::string::npos) << errors[0];
  // Without the size query (tests, tools) there is no plan to refuse.
  EXPECT_TRUE(errors_of(config_text("memory_budget_mb = 1", kBigGrid, 1), {}).empty());
}

// A device plan: each stream's device bytes from the device backend's size query, against 90%
// of the device memory free before the start (a fake device of `free` bytes whose streams
// take `per_combo` bytes a combo).
daemon::CheckEnvironment device_environment(uint64_t free, uint64_t per_combo) {
  daemon::CheckEnvironment env = cpu_environment(1ull << 40);
  env.device_stream_memory = [per_combo](const StreamSpec& spec) {
    return StreamMemory{0, spec.strategy.grid.size() * per_combo};
  };
  env.device_free_bytes = [free] { return free; };
  return env;
}

TEST(MemoryPlan, TheDevicesSideIsStatedPerStream) {
  const config::Config c = config::parse_config(config_text("", kSmallGrid, 3), kSource);
  const daemon::MemoryPlan plan = daemon::plan_memory(c, device_environment(10ull << 30, 1000));
  ASSERT_EQ(plan.streams.size(), 3u);
  EXPECT_EQ(plan.streams[0].device_bytes, 16u * 1000);
  EXPECT_EQ(plan.device_total(), 3u * 16 * 1000);
  EXPECT_EQ(plan.device_budget_bytes, static_cast<uint64_t>(0.9 * double(10ull << 30)));
  const std::string text = daemon::memory_plan_text(plan);
  EXPECT_NE(text.find("; device: "), std::string::npos) << text;
  EXPECT_NE(text.find("90% of the device memory free now"), std::string::npos) << text;
  EXPECT_TRUE(
      errors_of(config_text("", kSmallGrid, 3), device_environment(10ull << 30, 1000)).empty());
  // A host backend (no device plan) states none.
  EXPECT_EQ(
      daemon::memory_plan_text(daemon::plan_memory(c, cpu_environment(8ull << 30))).find("device"),
      std::string::npos);
}

TEST(MemoryPlan, OverTheDevicesFreeMemoryIsRefusedNamingTheStreamAndWhatFits) {
  // 4 streams of 99,000 combos at 10 kB a combo: 990 MB each; 2.5 of them fit in 90% of 2.75 GB.
  const uint64_t free = static_cast<uint64_t>(2.5 * 990e6 / 0.9);
  const auto errors = errors_of(config_text("", kBigGrid, 4), device_environment(free, 10'000));
  ASSERT_EQ(errors.size(), 1u);
  const std::string& e = errors[0];
  EXPECT_NE(e.find("key 'strategy[0].grid': the device memory plan does not fit: stream S0/big "
                   "(99,000 combos, window 2000) needs"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("of device memory (x4 symbols)"), std::string::npos) << e;
  EXPECT_NE(e.find("90% of the device memory free now"), std::string::npos) << e;
  EXPECT_NE(e.find("combos of this strategy fit per stream on the device"), std::string::npos) << e;
  const size_t at = e.find("About ");
  ASSERT_NE(at, std::string::npos) << e;
  uint64_t n = 0;
  for (char ch : e.substr(at + 6, e.find(' ', at + 6) - at - 6))
    if (ch != ',') n = n * 10 + static_cast<uint64_t>(ch - '0');
  EXPECT_GT(n, 99'000u / 2) << e;
  EXPECT_LT(n, 99'000u * 2 / 3) << e;
  // The host's budget is not what refused it: a large host plan alone passes.
  EXPECT_TRUE(errors_of(config_text("", kBigGrid, 4), cpu_environment(1ull << 40)).empty());
}

}  // namespace daemon_plan
}  // namespace
}  // namespace wfod
