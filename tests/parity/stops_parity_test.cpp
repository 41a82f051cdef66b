// SPEC §5b's stops on the cpu backend against the cpu_ref oracle (SPEC §9), on the shared real
// data: every stop kind, both sides, both fills, the vol filter, each of the four families,
// long windows cut into time chunks (whose stop state is found by scanning back), a long's
// take-profit above 1 and a short's of 1 or more; on a synthetic spike, equity through zero
// (the sequential fallback). Per case, every entry point: the sweep's
// top-K, evaluate() of every valid combo, block_summaries() and positions(). Each case runs
// once per SIMD kernel variant (its own ctest entry, like the parity table), and combos whose
// stops are all 0 give the very bits of the same grid without stop axes.
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "cpu/lane_groups.hpp"
#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"

namespace wfod::cpu {
const char* lane_kernel_variant();  // kernels/cpu/lane_kernel.cpp
}  // namespace wfod::cpu

namespace wfod {
namespace {

constexpr double kRel = 1e-9, kAbs = 1e-12;  // SPEC §9

struct StopsCase {
  std::string name;
  std::string file;  // a stem of the shared data folder; empty: `synthetic`
  StrategySpec spec;
  size_t bars = 0;  // W; 0 = every bar after the warm-up
  size_t end = 0;   // T; 0 = the whole file
  int threads = 0;  // 0 = the machine's (4: time chunks for a grid of a few lane groups)
  bool chunked = false;
  std::function<Series()> synthetic = {};
  bool through_zero = false;  // some combo's equity reaches 0: the sequential fallback
};

void PrintTo(const StopsCase& c, std::ostream* os) { *os << c.name; }

using test::spec_of;

Grid with_stops(Grid g, std::vector<double> sl, std::vector<double> tp, std::vector<double> ts) {
  g.stop_loss = std::move(sl);
  g.take_profit = std::move(tp);
  g.trailing_stop = std::move(ts);
  return g;
}

const std::vector<Side> kBothSides = {Side::long_short, Side::long_only};

std::vector<StopsCase> cases() {
  std::vector<StopsCase> cs;
  {  // Daily bars: every stop kind, both sides and entries, fill close, costs.
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {5, 10};
    g.slow = {20, 50};
    g.ma = {MaType::sma, MaType::ema};
    g.side = kBothSides;
    g.entry = {Entry::state, Entry::cross};
    cs.push_back({"ma_cross_every_stop_close", "goog_d1_2004-2013",
                  spec_of(with_stops(g, {0, 0.03}, {0, 0.1}, {0, 0.05}), Fill::close, 2)});
  }
  {  // Hourly bars, the vol filter, fill next_open (an entry at the next open, gaps).
    Grid g;
    g.family = Family::channel_breakout;
    g.n = {10, 30};
    g.source = {Source::close, Source::high_low};
    g.side = kBothSides;
    g.vol_short = {10};
    g.vol_long = {40};
    g.vol_threshold = {0.9};
    cs.push_back({"channel_vol_filter_next_open", "eurusd_h1_2017-2018",
                  spec_of(with_stops(g, {0, 0.004}, {0, 0.01}, {0.003}), Fill::next_open, 1)});
  }
  {  // The level families keep a position by its side of the middle: stops cut those holds.
    Grid g;
    g.family = Family::bollinger;
    g.n = {20};
    g.k = {1.5, 2.0};
    g.style = {Style::reversion, Style::breakout};
    g.side = kBothSides;
    cs.push_back({"bollinger_next_open", "nvda_d1_1999-2014",
                  spec_of(with_stops(g, {0.05}, {0, 0.2}, {0, 0.1}), Fill::next_open, 1)});
  }
  {  // Minute bars, a window at the end, the filter, fill close.
    Grid g;
    g.family = Family::rsi_reversion;
    g.n = {14};
    g.lo = {30};
    g.hi = {70};
    g.side = kBothSides;
    g.vol_short = {10};
    g.vol_long = {60};
    g.vol_threshold = {0.8};
    StopsCase c{"rsi_vol_filter_minutes", "usdjpy_fxcm_bid_m1_2013-02",
                spec_of(with_stops(g, {0, 0.001}, {0.002}, {0, 0.0005, 0.001}), Fill::close, 0.5)};
    c.bars = 5000;
    cs.push_back(c);
  }
  {  // One long window, few combos, 4 threads: time chunks, each finding its stop state by
     // scanning back to where none can be pending (long trends held for thousands of bars).
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {30};
    g.slow = {400};
    g.ma = {MaType::ema};
    g.side = kBothSides;
    g.entry = {Entry::state, Entry::cross};
    StopsCase c{"ma_cross_long_window_time_chunks", "btcperp_ftx_m1_2022-01",
                spec_of(with_stops(g, {0.01, 0.03}, {0}, {0, 0.02}), Fill::next_open, 1)};
    c.bars = 40000;
    c.threads = 4;
    c.chunked = true;
    cs.push_back(c);
  }
  {  // Monthly bitcoin: prices rise 100-fold, so a long's take-profit of 1.5 (a level of
     // 2.5 e) fires; a short's of 1 or more never does (SPEC §5b).
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {2, 3};
    g.slow = {6, 12};
    g.side = kBothSides;
    cs.push_back({"ma_cross_take_profit_above_one", "btcusd_mo1_2012-2024",
                  spec_of(with_stops(g, {0}, {0.5, 1.0, 1.5}, {0, 0.3}), Fill::close, 2)});
  }
  {  // A price that jumps 2.6-fold in a bar: a short loses more than 100% before any stop
     // can act on a close, so equity goes through zero and the cpu backend re-evaluates those
     // lanes sequentially (with their stops).
    Grid g;
    g.family = Family::ma_cross;
    g.fast = {3, 8};
    g.slow = {20};
    g.ma = {MaType::ema};
    g.side = {Side::long_short};
    StopsCase c{"spike_equity_through_zero", "",
                spec_of(with_stops(g, {0, 0.05}, {0.5}, {0, 0.1}), Fill::next_open, 2)};
    c.bars = 1500;
    c.synthetic = [] { return test::spike_series(2500, 103, {1500, 2200}, 2.6); };
    c.through_zero = true;
    cs.push_back(c);
  }
  for (StopsCase& c : cs) c.spec.bars_per_year = 252;
  return cs;
}

// "cpu@avx2" -> the cpu backend with the avx2 kernel (WFOD_CPU_KERNEL, read once per process:
// each entry runs in its own ctest process), or why this process cannot run that variant.
constexpr const char* kVariants[] = {"generic", "avx2", "avx512"};

std::unique_ptr<Backend> cpu_variant(const std::string& variant, std::string* skip) {
  ::setenv("WFOD_CPU_KERNEL", variant.c_str(), 1);
  const std::string in_use = cpu::lane_kernel_variant();
  if (in_use != variant) {
    *skip = "cpu kernel variant '" + variant + "' not run: this process uses '" + in_use +
            "' (the CPU may lack it, or an earlier test fixed the variant)";
    return nullptr;
  }
  return make_backend("cpu");
}

SweepRequest request_of(const StopsCase& c, const HistoryView& h) {
  SweepRequest req;
  req.history = h;
  req.strategy = c.spec;
  const size_t end = c.end ? c.end : h.size();
  const size_t warmup = default_warmup(c.spec.grid);
  req.window = {end, c.bars ? c.bars : end - 1 - warmup, warmup};
  req.rank.top = 20;
  if (c.through_zero) req.rank.max_drawdown = 1e9;  // rank them too
  req.threads = c.threads;
  return req;
}

// The combo with the same family parameters and no stop acting: the family's r_t.
Combo without_stops(Combo c) {
  c.stop_loss = c.take_profit = c.trailing_stop = 0;
  return c;
}

class StopsParity : public ::testing::TestWithParam<std::tuple<StopsCase, std::string>> {};

TEST_P(StopsParity, CpuMatchesCpuRef) {
  const auto& [c, variant] = GetParam();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!c.synthetic && !std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: real-data stops parity NOT run";
  std::string skip;
  const std::unique_ptr<Backend> cpu = cpu_variant(variant, &skip);
  if (!cpu) GTEST_SKIP() << skip;
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  const Series s = c.synthetic ? c.synthetic() : test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const SweepRequest req = request_of(c, h);
  const Grid& grid = c.spec.grid;
  SCOPED_TRACE(c.name + ": " + std::to_string(h.size()) +
               " bars, W=" + std::to_string(req.window.bars) + ", " + std::to_string(grid.size()) +
               " combos, cpu@" + variant);
  if (c.chunked) {  // the sweep really cuts its window into time chunks
    ASSERT_GT(cpu::time_chunks(cpu::group_valid_combos(grid).size(), c.threads, req.window.bars),
              1u);
  }

  // The sweep's top-K: the same ids in the same order, metrics within SPEC §9.
  const SweepResult want = ref->sweep(req), got = cpu->sweep(req);
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(got.skipped, want.skipped);
  EXPECT_EQ(got.ranked, want.ranked);
  ASSERT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  for (size_t i = 0; i < want.top.size(); ++i) {
    EXPECT_TRUE(test::metrics_near(got.top[i].metrics, want.top[i].metrics, kRel, kAbs))
        << "rank " << i;
    EXPECT_TRUE(test::near("objective", got.top[i].objective, want.top[i].objective, kRel, kAbs));
  }

  // evaluate() of every valid combo.
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);
  const std::vector<Metrics> mg = cpu->evaluate(req, ids), mw = ref->evaluate(req, ids);
  ASSERT_EQ(mg.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i)
    EXPECT_TRUE(test::metrics_near(mg[i], mw[i], kRel, kAbs)) << "evaluate id " << ids[i];
  if (c.through_zero) {
    EXPECT_TRUE(std::any_of(mw.begin(), mw.end(), [](const Metrics& m) {
      return m.max_drawdown > 1 && m.cagr == -1;
    })) << "no combo's equity went through zero";
  }

  // block_summaries(): three cuts, counts identical, sums within SPEC §9. A block whose equity
  // reaches zero (`nonpositive`) has no specified peak, trough or drawdown (the Summary's
  // drawdown combine needs positive equity; robust selection excludes such blocks).
  const size_t first = req.window.first(), w = req.window.bars;
  const std::vector<size_t> cuts{first + w / 4, first + w / 2, first + 3 * w / 4};
  const std::vector<Summary> bg = cpu->block_summaries(req, cuts),
                             bw = ref->block_summaries(req, cuts);
  ASSERT_EQ(bg.size(), bw.size());
  for (uint64_t id : ids) {
    for (size_t b = 0; b <= cuts.size(); ++b) {
      SCOPED_TRACE("block summary of id " + std::to_string(id) + ", block " + std::to_string(b));
      const Summary &x = bg[id * (cuts.size() + 1) + b], &y = bw[id * (cuts.size() + 1) + b];
      test::expect_same_summary_counts(x, y);
      const auto xr = test::summary_reals(x), yr = test::summary_reals(y);
      for (size_t f = 0; f < xr.size(); ++f) {
        const bool drawdown_field = f >= 4 && f <= 6;  // peak, trough, drawdown
        if (y.nonpositive && drawdown_field) continue;
        EXPECT_TRUE(test::near("field " + std::to_string(f), xr[f], yr[f], kRel, kAbs));
      }
    }
  }

  // positions() bit for bit, from the anchor, for every valid combo; the case must make the
  // stops act: some combo's positions differ from its family's r_t, and some stop lands a
  // combo flat while the family still holds (a stop-out, not an exit).
  size_t changed = 0, stopped_out_bars = 0;
  for (uint64_t id : ids) {
    const Combo combo = grid.decode(id);
    const std::vector<int8_t> pg = cpu->positions(h, c.spec, combo),
                              pw = ref->positions(h, c.spec, combo);
    ASSERT_EQ(pg, pw) << "positions of id " << id;
    if (!combo.stops_on()) continue;
    const std::vector<int8_t> r = ref->positions(h, c.spec, without_stops(combo));
    changed += r != pw;
    for (size_t t = 0; t < r.size(); ++t) stopped_out_bars += pw[t] == 0 && r[t] != 0;
  }
  EXPECT_GT(changed, 0u) << "no stop changed any position: the case tests nothing";
  EXPECT_GT(stopped_out_bars, 0u);
  std::printf(
      "[ stops    ] cpu@%s vs cpu_ref: %s: %zu valid combos, %zu with positions changed by "
      "stops, %zu stopped-out bars, best id %llu (cpu_ref %.3fs, cpu %.3fs)\n",
      variant.c_str(), c.name.c_str(), ids.size(), changed, stopped_out_bars,
      want.top.empty() ? 0ull : static_cast<unsigned long long>(want.top[0].combo.id), want.seconds,
      got.seconds);
}

std::vector<std::string> variants() { return {std::begin(kVariants), std::end(kVariants)}; }

std::string case_name(const ::testing::TestParamInfo<StopsParity::ParamType>& tp) {
  return std::get<0>(tp.param).name + "__cpu_" + std::get<1>(tp.param);
}

INSTANTIATE_TEST_SUITE_P(Cases, StopsParity,
                         ::testing::Combine(::testing::ValuesIn(cases()),
                                            ::testing::ValuesIn(variants())),
                         case_name);

// SPEC §5b (spec-notes item 68) on the cpu backend: a grid whose stop axes hold only 0 runs
// the kernel without the stop state, so its sweep is the same grid's without stop axes to the
// bit; in a grid with stops, evaluate() of its all-zero combos gives the plain grid's bits.
TEST(StopsParity, AllZeroStopsAreBitIdenticalToNoStops) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  Grid plain;
  plain.family = Family::ma_cross;
  plain.fast = {5, 10, 20};
  plain.slow = {30, 60};
  plain.ma = {MaType::sma, MaType::hma};
  plain.side = kBothSides;
  SweepRequest req;
  req.history = h;
  req.strategy = spec_of(plain, Fill::next_open, 2);
  req.window = {h.size(), 1500, default_warmup(plain)};
  req.rank.top = 24;
  const std::unique_ptr<Backend> cpu = make_backend("cpu");
  const SweepResult want = cpu->sweep(req);
  SweepRequest zero = req;
  zero.strategy.grid.stop_loss = {0};
  test::expect_same_sweep_bits(cpu->sweep(zero), want);

  // stop_loss {0, 0.02}: ids below plain.size() are the all-zero combos, the plain grid's ids.
  SweepRequest mixed = req;
  mixed.strategy.grid.stop_loss = {0, 0.02};
  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < plain.size(); ++id)
    if (plain.decode(id).valid()) ids.push_back(id);
  const std::vector<Metrics> a = cpu->evaluate(req, ids), b = cpu->evaluate(mixed, ids);
  for (size_t i = 0; i < ids.size(); ++i) {
    for (const test::RealField& f : test::kRealFields)
      EXPECT_TRUE(test::same_bits(a[i].*f.member, b[i].*f.member)) << "id " << ids[i] << f.name;
    for (const test::IntField& f : test::kIntFields)
      EXPECT_EQ(a[i].*f.member, b[i].*f.member) << "id " << ids[i] << f.name;
  }
}

}  // namespace
}  // namespace wfod
