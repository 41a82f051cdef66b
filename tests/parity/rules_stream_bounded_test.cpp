// The cpu backend's bounded rules stream (SPEC §5a, §5b, §3, §9; issue 45 item 3, issue 43):
// fed bar by bar and in random batches over the shared real data, every advance is, to the
// bit, the cpu sweep of the same window on the history from the anchor (what the stream of
// every bar answered), and close to cpu_ref's; evaluate, block summaries, positions, returns
// and a tracker it seeds answer as the backend does on that history; a stream restored from
// its checkpoint mid-way continues to the bit as the uninterrupted one, its checkpoints byte
// for byte; a version 1 blob is refused by name. And it is bounded: one that has seen 20,000
// bars holds and writes exactly as much as one that has seen 2,000 past its window, within
// its size query. Cases: the pullback example file, crosses of values and channels, volume,
// arithmetic and bands, `valid`, undefined stretches, the vol filter, every stop kind, rules
// long only and long/short, fill close and next_open.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "support/stream_cases.hpp"
#include "wfod/backend.hpp"
#include "wfod/combo_returns.hpp"
#include "wfod/config/config.hpp"
#include "wfod/position_tracker.hpp"
#include "wfod/rules/rules.hpp"
#include "wfod/support.hpp"

namespace wfod {
namespace {

struct BoundedCase {
  std::string name;
  std::string file;  // a stem of the shared data folder
  StrategySpec spec;
  size_t window = 300;
  size_t bars = 2500;  // of the file, from its first
};

void PrintTo(const BoundedCase& c, std::ostream* os) { *os << c.name; }

Grid bounded_grid(const rules::RulesText& text, std::vector<std::vector<double>> axes,
                  std::vector<double> sl = {0}, std::vector<double> tp = {0},
                  std::vector<double> ts = {0}) {
  Grid g;
  g.family = Family::rules;
  g.program = std::make_shared<const rules::Program>(rules::compile(text));
  g.rule_axes = std::move(axes);
  g.stop_loss = std::move(sl);
  g.take_profit = std::move(tp);
  g.trailing_stop = std::move(ts);
  g.validate();
  return g;
}

// Crosses of computed values and of raw levels, high/low and close channels, volume; both
// sides.
rules::RulesText bounded_crosses() {
  rules::RulesText t;
  t.params = {"fast", "slow", "n"};
  t.indicators = {{"f", "ema($fast)"},       {"s", "sma($slow)"}, {"h", "hh($n, high_low)"},
                  {"l", "ll($n, high_low)"}, {"c", "hh(20)"},     {"w", "wma(5)"}};
  t.long_entry = "crosses_above(close, h) or crosses_above(f, s) and not (volume < 0)";
  t.long_exit = "crosses_below(close, l) or crosses_below(w, s * 0.999)";
  t.short_entry = "crosses_below(close, l) and not (volume * close < 0) or crosses_below(f, s)";
  t.short_exit = "close > c or crosses_above(f + 0, s)";
  t.valid = "$fast < $slow";
  return t;
}

// Bands, a division with its magnitude, STD, RSI, HMA, parameters in the arithmetic, `valid`.
rules::RulesText bounded_bands() {
  rules::RulesText t;
  t.params = {"n", "k", "lvl"};
  t.indicators = {{"u", "bb_upper($n, $k)"}, {"lo", "bb_lower($n, $k)"},
                  {"m", "bb_mid($n)"},       {"sd", "std($n)"},
                  {"r", "rsi(7)"},           {"hm", "hma(9)"}};
  t.long_entry = "(close - lo) / (u - lo) < 0.1 and r < $lvl";
  t.long_exit = "not (close < m)";
  t.short_entry = "(close - lo) / (u - lo) > 0.9 and hm - m > sd * 0.5 or r > 100 - $lvl / 2";
  t.short_exit = "not (close > m) and not (r > 50)";
  t.valid = "$n * $k > 20";
  return t;
}

// Indicators undefined everywhere (HMA(1)) or for long stretches (a long SMA), an exact
// cross of the close under its own channel.
rules::RulesText bounded_undefined() {
  rules::RulesText t;
  t.params = {"h", "long"};
  t.indicators = {{"a", "hma($h)"}, {"b", "sma($long)"}, {"c", "ema(5)"}, {"d", "ll(15)"}};
  t.long_entry = "c > a and close > b";
  t.short_entry = "c < a and close < b";
  t.long_exit = "c < a or crosses_below(close, d)";
  t.short_exit = "c > a";
  return t;
}

config::StrategyConfig pullback_file() {
  return config::load_rules_file(std::string(WFOD_SOURCE_DIR) +
                                 "/config/examples/pullback.rules.toml");
}

std::vector<BoundedCase> bounded_cases() {
  using test::spec_of;
  std::vector<BoundedCase> cs;
  const StrategySpec pullback = pullback_file().spec;  // long only, stop loss, take profit
  cs.push_back({"pullback_example_close", "goog_d1_2004-2013", pullback, 250, 2148});
  {
    StrategySpec next = pullback;
    next.fill = Fill::next_open;
    next.grid.stop_loss = {0, 0.002};
    next.grid.take_profit = {0, 0.003};
    next.grid.trailing_stop = {0, 0.0015};
    next.grid.validate();
    cs.push_back(
        {"pullback_minutes_every_stop_next_open", "btcperp_ftx_m1_2022-01", next, 500, 3000});
  }
  const std::vector<std::vector<double>> cross_axes = {{5, 12}, {20, 50}, {10, 30}};
  {
    Grid g = bounded_grid(bounded_crosses(), cross_axes);
    g.vol_short = {10};
    g.vol_long = {60};
    g.vol_threshold = {0.9};
    g.validate();
    cs.push_back({"crosses_channels_volume_vol_filter", "btcperp_ftx_m1_2022-01",
                  spec_of(g, Fill::close, 0.5), 400, 6000});
  }
  cs.push_back(
      {"crosses_every_stop_next_open", "eurusd_h1_2017-2018",
       spec_of(bounded_grid(bounded_crosses(), cross_axes, {0, 0.004}, {0, 0.01}, {0, 0.003}),
               Fill::next_open, 1),
       350, 5000});
  const std::vector<std::vector<double>> band_axes = {{10, 20, 40}, {1.5, 2.5}, {30, 40}};
  cs.push_back({"bands_arithmetic_valid_every_stop_close", "nvda_d1_1999-2014",
                spec_of(bounded_grid(bounded_bands(), band_axes, {0, 0.05}, {0, 0.12}, {0, 0.08}),
                        Fill::close, 2),
                300, 4000});
  {
    Grid g = bounded_grid(bounded_undefined(), {{1, 9, 16}, {50, 400}}, {0, 0.05}, {0}, {0, 0.1});
    g.vol_short = {10};
    g.vol_long = {40};
    g.vol_threshold = {0.8, 1.1};
    g.validate();
    cs.push_back({"undefined_vol_filter_stops_next_open", "yhoo_d1_1996-2015",
                  spec_of(g, Fill::next_open, 2), 250, 5000});
  }
  return cs;
}

StreamSpec stream_spec_of(const StrategySpec& strategy, size_t window) {
  StreamSpec spec;
  spec.strategy = strategy;
  spec.window = window;
  spec.warmup = default_warmup(strategy.grid);
  spec.rank.top = 10;
  spec.threads = 2;
  return spec;
}

std::vector<Bar> bounded_bars(const Series& s, size_t from, size_t to) {
  return test::bars_of(s, from, to);
}

// Field by field, never memcmp over the structs: their padding bytes are unspecified (clang
// leaves them different between copies).
void expect_summary_bits(const Summary& a, const Summary& b, const std::string& what) {
  test::expect_same_summary_bits(a, b, what);
}

void expect_metrics_bits(const std::vector<Metrics>& a, const std::vector<Metrics>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    for (const test::IntField& f : test::kIntFields)
      EXPECT_EQ(a[i].*f.member, b[i].*f.member) << "combo " << i << " " << f.name;
    for (const test::RealField& f : test::kRealFields)
      EXPECT_EQ(std::bit_cast<uint64_t>(a[i].*f.member), std::bit_cast<uint64_t>(b[i].*f.member))
          << "combo " << i << " " << f.name << ": " << a[i].*f.member << " vs " << b[i].*f.member;
  }
}

void expect_returns_bits(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(test::same_bits(a[i], b[i])) << "return " << i << ": " << a[i] << " vs " << b[i];
}

// A batch size: single bars, short runs, sometimes about a window.
size_t bounded_batch(std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0:
    case 1:
      return 1;
    case 2:
      return 1 + rng() % 8;
    case 3:
      return 1 + rng() % 120;
    default:
      return 1 + rng() % 300;
  }
}

class RulesStreamBounded : public ::testing::TestWithParam<BoundedCase> {};

TEST_P(RulesStreamBounded, EveryAdvanceAndQueryIsTheSweepOfTheHistoryToTheBit) {
  const BoundedCase& c = GetParam();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: real-data bounded rules stream parity NOT run";
  const Series s = test::load_csv(path);
  const size_t total = std::min(c.bars, s.size());
  const StreamSpec spec = stream_spec_of(c.spec, c.window);
  const Grid& grid = spec.strategy.grid;
  std::unique_ptr<Backend> cpu = make_backend("cpu"), ref = make_backend("cpu_ref");
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);
  ASSERT_FALSE(ids.empty());
  const std::vector<uint64_t> followed{ids.front(), ids[ids.size() / 3], ids[2 * ids.size() / 3],
                                       ids.back()};

  // Opened a few bars before its first window (the first advances are refused, bars kept).
  const size_t open_at = spec.warmup + spec.window - 3;
  std::unique_ptr<Stream> stream = cpu->open_stream(spec, HistoryView::of(s).prefix(open_at));
  ASSERT_TRUE(stream->bounded());
  auto request = [&](size_t bars) {
    SweepRequest req;
    req.history = HistoryView::of(s).prefix(bars);
    req.strategy = spec.strategy;
    req.window = {bars, spec.window, spec.warmup};
    req.rank = spec.rank;
    req.threads = spec.threads;
    return req;
  };

  std::mt19937_64 rng(std::hash<std::string>{}(c.name));
  std::unique_ptr<Stream> restored;
  std::vector<PositionTracker> trackers;  // seeded by the stream, then fed the bars
  size_t at = open_at, step = 0;
  while (at < total) {
    // Bar by bar at first and around the checkpoint, random batches else; twice a batch longer
    // than the ring's spare room (the states move inside it, then again at its end).
    const size_t n = std::min(step < 12 || (step >= 20 && step < 26) ? 1
                              : step == 27 || step == 40             ? 1100
                                                                     : bounded_batch(rng),
                              total - at);
    const std::vector<Bar> bars = bounded_bars(s, at, at + n);
    at += n;
    ++step;
    SCOPED_TRACE("after bar " + std::to_string(at) + " (step " + std::to_string(step) + ")");
    for (PositionTracker& t : trackers) t.append(bars);
    const SweepRequest req = request(at);
    if (at < spec.warmup + spec.window + 1) {
      EXPECT_THROW(stream->advance(bars), std::invalid_argument);
      continue;
    }
    const SweepResult got = stream->advance(bars);
    test::expect_same_sweep_bits(got, cpu->sweep(req));
    if (restored) test::expect_same_sweep_bits(restored->advance(bars), got);
    EXPECT_LE(stream->horizon(), req.window.first());
    EXPECT_EQ(stream->stats().bars, at);

    // Against cpu_ref (SPEC §9), now and then: cpu_ref sweeps from the anchor are slow.
    if (step % 16 == 0) test::expect_same_result(got, ref->sweep(req));

    if (step % 3 == 0 || restored) {
      const std::vector<Metrics> m = stream->evaluate(ids);
      expect_metrics_bits(m, cpu->evaluate(req, ids));
      if (restored) expect_metrics_bits(restored->evaluate(ids), m);
      const size_t first = req.window.first();
      const std::vector<size_t> cuts{first + spec.window / 5, first + spec.window / 2};
      const std::vector<Summary> b = stream->block_summaries(cuts);
      const std::vector<Summary> bw = cpu->block_summaries(req, cuts);
      ASSERT_EQ(b.size(), bw.size());
      for (size_t k = 0; k < b.size(); ++k)
        expect_summary_bits(b[k], bw[k], "block " + std::to_string(k));
      if (restored) {
        const std::vector<Summary> br = restored->block_summaries(cuts);
        for (size_t k = 0; k < b.size(); ++k) expect_summary_bits(br[k], b[k], "restored block");
      }
      const size_t h = stream->horizon();
      for (uint64_t id : followed) {
        const Combo combo = grid.decode(id);
        const std::vector<int8_t> pos = cpu->positions(req.history, spec.strategy, combo);
        EXPECT_EQ(stream->positions(combo, h, at),
                  std::vector<int8_t>(pos.begin() + static_cast<ptrdiff_t>(h), pos.end()))
            << "id " << id;
        const std::vector<double> ret = stream->returns(combo, first, at);
        expect_returns_bits(ret, combo_returns(*cpu, req.history, spec.strategy, combo, first, at));
        if (restored) {
          EXPECT_EQ(restored->positions(combo, h, at), stream->positions(combo, h, at));
          expect_returns_bits(restored->returns(combo, first, at), ret);
        }
      }
    }

    if (step == 20) {  // checkpoint mid-way; the restored stream runs beside the original
      const std::vector<uint8_t> blob = stream->checkpoint();
      restored = cpu->restore_stream(spec, blob);
      EXPECT_EQ(restored->stats().bars, at);
      EXPECT_EQ(restored->checkpoint(), blob);
      std::vector<uint8_t> bad = blob;
      bad[bad.size() / 2] ^= 1;
      EXPECT_THROW(cpu->restore_stream(spec, bad), std::invalid_argument);
      EXPECT_THROW(cpu->restore_stream(spec, std::span(blob).first(blob.size() - 9)),
                   std::invalid_argument);
      // A version 1 blob (every bar from the anchor) is refused by its version.
      std::vector<uint8_t> v1 = blob;
      const uint32_t one = 1;
      std::memcpy(v1.data() + 8, &one, sizeof one);
      try {
        (void)cpu->restore_stream(spec, v1);
        ADD_FAILURE() << "a version 1 blob was restored";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("version 1"), std::string::npos) << e.what();
      }
    }
    if (step == 16 || step == 30) {
      for (uint64_t id : {followed[1], followed[3]})
        trackers.push_back(stream->tracker(grid.decode(id), 100000));
    }
    if (restored && step % 7 == 0) {
      EXPECT_EQ(restored->checkpoint(), stream->checkpoint());
    }
  }
  ASSERT_TRUE(restored) << "too few advances for the checkpoint";
  ASSERT_GT(step, 30u) << "too few advances for the long batch and the trackers";
  // A stream opened on the long history (its open moves the states as its ring fills) gives
  // the same advances.
  const size_t late_at = total - 40;
  std::unique_ptr<Stream> late = cpu->open_stream(spec, HistoryView::of(s).prefix(late_at));
  for (size_t a = late_at; a < total; a += 8) {
    const size_t e = std::min(a + 8, total);
    test::expect_same_sweep_bits(late->advance(bounded_bars(s, a, e)), cpu->sweep(request(e)));
  }
  EXPECT_EQ(late->checkpoint(), stream->checkpoint());
  ASSERT_FALSE(trackers.empty());
  // The trackers the stream seeded followed every later bar: positions as the backend's.
  for (const PositionTracker& t : trackers) {
    ASSERT_EQ(t.bars(), at);
    const std::vector<int8_t> want =
        cpu->positions(HistoryView::of(s).prefix(at), spec.strategy, t.combo());
    const size_t from = t.first_kept();
    EXPECT_EQ(t.positions(from, at),
              std::vector<int8_t>(want.begin() + static_cast<ptrdiff_t>(from), want.end()))
        << "tracker of id " << t.combo().id;
  }
}

INSTANTIATE_TEST_SUITE_P(RealData, RulesStreamBounded, ::testing::ValuesIn(bounded_cases()),
                         [](const ::testing::TestParamInfo<BoundedCase>& i) {
                           return i.param.name;
                         });

// A short rule through a bar whose close triples: its equity reaches zero, so its metrics come
// from its positions bar by bar (SPEC §6's literal drawdown), replayed from the kept states.
TEST(RulesStreamBoundedSequential, EquityThroughZeroIsTheSweepsToTheBit) {
  Series s = test::random_walk(1600, 5);
  for (size_t t = 900; t < s.size(); ++t) {  // from bar 900 on, every price three times higher
    s.open[t] *= t == 900 ? 1 : 3;
    s.high[t] *= 3;
    s.low[t] *= t == 900 ? 1 : 3;
    s.close[t] *= 3;
  }
  rules::RulesText t;
  t.params = {"n"};
  t.indicators = {{"m", "sma($n)"}};
  t.short_entry = "close > m * 0.5";
  t.short_exit = "close < m * 0.1";
  t.long_entry = "close < m * 0.05";
  const Grid g = bounded_grid(t, {{5, 10, 20}}, {0, 0.5});
  const StreamSpec spec = stream_spec_of(test::spec_of(g, Fill::close, 1), 400);
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  const size_t open_at = spec.warmup + spec.window + 1;
  std::unique_ptr<Stream> stream = cpu->open_stream(spec, HistoryView::of(s).prefix(open_at));
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < g.size(); ++id)
    if (g.decode(id).valid()) ids.push_back(id);
  bool through_zero = false;
  for (size_t at = open_at; at < s.size();) {
    const size_t n = std::min<size_t>(at % 2 ? 37 : 1, s.size() - at);
    const std::vector<Bar> bars = bounded_bars(s, at, at + n);
    at += n;
    SweepRequest req;
    req.history = HistoryView::of(s).prefix(at);
    req.strategy = spec.strategy;
    req.window = {at, spec.window, spec.warmup};
    req.rank = spec.rank;
    test::expect_same_sweep_bits(stream->advance(bars), cpu->sweep(req));
    const std::vector<Metrics> m = stream->evaluate(ids);
    expect_metrics_bits(m, cpu->evaluate(req, ids));
    for (const Metrics& x : m) through_zero = through_zero || x.total_return <= -1;
  }
  EXPECT_TRUE(through_zero) << "no combo's equity reached zero: the case tests nothing";
}

// Bounded: a stream that has seen 20,000 bars holds (stats().footprint_bytes) and writes
// (checkpoint) exactly as much as one that has seen 2,000 past its window, and no more than
// its size query; the stream of every bar grew with both.
TEST(RulesStreamBoundedMemory, FootprintAndCheckpointDoNotGrowWithUptime) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "btcperp_ftx_m1_2022-01.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  const Series s = test::load_csv(path);
  ASSERT_GE(s.size(), 21000u);
  StrategySpec strategy = pullback_file().spec;
  strategy.grid.trailing_stop = {0, 0.002};
  strategy.grid.validate();
  const StreamSpec spec = stream_spec_of(strategy, 1000);
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  const size_t open_at = spec.warmup + spec.window + 1;
  auto run_to = [&](size_t end) {
    std::unique_ptr<Stream> st = cpu->open_stream(spec, HistoryView::of(s).prefix(open_at));
    for (size_t at = open_at; at < end;) {
      const size_t n = std::min<size_t>(at % 3 == 0 ? 1 : 2500, end - at);
      (void)st->advance(bounded_bars(s, at, at + n));
      at += n;
    }
    return st;
  };
  const size_t short_run = spec.warmup + spec.window + 2000, long_run = 21000;
  const std::unique_ptr<Stream> a = run_to(short_run), b = run_to(long_run);
  ASSERT_EQ(a->stats().bars, short_run);
  ASSERT_EQ(b->stats().bars, long_run);
  EXPECT_TRUE(a->bounded());
  EXPECT_EQ(a->stats().footprint_bytes, b->stats().footprint_bytes);
  EXPECT_EQ(a->checkpoint().size(), b->checkpoint().size());
  const StreamMemory plan = cpu->stream_memory(spec);
  EXPECT_LE(b->stats().footprint_bytes, plan.host_bytes);
  EXPECT_LE(plan.host_bytes, 2 * b->stats().footprint_bytes + (1u << 20));
  // The stream restored from the long run's checkpoint holds no more than it.
  const std::unique_ptr<Stream> r = cpu->restore_stream(spec, b->checkpoint());
  EXPECT_LE(r->stats().footprint_bytes, b->stats().footprint_bytes);
  EXPECT_EQ(r->checkpoint(), b->checkpoint());
}

}  // namespace
}  // namespace wfod
