// SPEC §5a's rules strategies on the cpu backend against the cpu_ref oracle (SPEC §9), on the
// shared real data: the four built-in families written as rules (builtin_rules.cpp), rules with
// arithmetic, crosses, bands, channels and volume, every stop kind (§5b) on both sides, fill
// close and next_open, undefined stretches (HMA(1), a long period), invalid combos through
// `valid`, the vol filter. Per case, every entry point: the sweep's top-K, evaluate() of every
// valid combo, block_summaries() and positions() (bit for bit). Each case runs once per SIMD
// kernel variant (its own ctest entry, like the stops parity table).
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv

#include <cstdio>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "support/backend_parity.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/rules/builtin_rules.hpp"
#include "wfod/rules/rules.hpp"

namespace wfod::cpu {
const char* lane_kernel_variant();  // kernels/cpu/lane_kernel.cpp
}  // namespace wfod::cpu

namespace wfod {
namespace {

constexpr double kRel = 1e-9, kAbs = 1e-12;  // SPEC §9

struct RulesCase {
  std::string name;
  std::string file;  // a stem of the shared data folder
  StrategySpec spec;
  size_t bars = 0;  // W; 0 = every bar after the warm-up
};

void PrintTo(const RulesCase& c, std::ostream* os) { *os << c.name; }

template <typename T>
std::vector<double> doubles(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// A built-in family's grid (one value per categorical axis) as the rules grid of its text.
Grid as_rules(const Grid& family) {
  Grid r;
  r.family = Family::rules;
  r.program = std::make_shared<const rules::Program>(
      rules::compile(rules::builtin_rules(family.decode(0))));
  switch (family.family) {
    case Family::ma_cross:
      r.rule_axes = {doubles(family.fast), doubles(family.slow)};
      break;
    case Family::channel_breakout:
      r.rule_axes = {doubles(family.n)};
      break;
    case Family::bollinger:
      r.rule_axes = {doubles(family.n), family.k};
      break;
    case Family::rsi_reversion:
      r.rule_axes = {doubles(family.n), family.lo, family.hi};
      break;
    case Family::rules:
      break;
  }
  r.stop_loss = family.stop_loss;
  r.take_profit = family.take_profit;
  r.trailing_stop = family.trailing_stop;
  r.vol_short = family.vol_short;
  r.vol_long = family.vol_long;
  r.vol_threshold = family.vol_threshold;
  r.validate();
  return r;
}

Grid rules_grid(const rules::RulesText& text, std::vector<std::vector<double>> axes) {
  Grid g;
  g.family = Family::rules;
  g.program = std::make_shared<const rules::Program>(rules::compile(text));
  g.rule_axes = std::move(axes);
  return g;
}

Grid with_stops(Grid g, std::vector<double> sl, std::vector<double> tp, std::vector<double> ts) {
  g.stop_loss = std::move(sl);
  g.take_profit = std::move(tp);
  g.trailing_stop = std::move(ts);
  g.validate();
  return g;
}

// Arithmetic (each operation rounded once, magnitudes carried to the dead band), crosses of
// computed values, an exact cross of two raw levels, bands, a channel, volume, `valid`.
rules::RulesText arithmetic_rules() {
  rules::RulesText t;
  t.params = {"fast", "slow", "lvl"};
  t.indicators = {{"f", "ema($fast)"},        {"s", "sma($slow)"},        {"r", "rsi(14)"},
                  {"u", "bb_upper(20, 2.5)"}, {"l", "bb_lower(20, 2.5)"}, {"h", "hh(20, high_low)"},
                  {"lo", "ll(30)"},           {"w", "wma(10)"},           {"sd", "std(10)"}};
  t.long_entry = "crosses_above(f, s) or (close - l) / (u - l) < 0.15 and r < $lvl";
  t.long_exit = "crosses_below(f, s * 1.002) or not (close < h)";
  t.short_entry = "crosses_below(close, lo) or f - s > 2 * sd and r > 100 - $lvl";
  t.short_exit = "w + sd / 2 < s or volume * close < 0";
  t.valid = "$fast < $slow and $fast * 3 > $slow - 40";
  return t;
}

// An indicator that is undefined everywhere for some combos (HMA(1)) and one defined only late
// (a long SMA): those combos stay flat where SPEC §4 says.
rules::RulesText undefined_rules() {
  rules::RulesText t;
  t.params = {"h", "long"};
  t.indicators = {{"a", "hma($h)"}, {"b", "sma($long)"}, {"c", "ema(5)"}};
  t.long_entry = "c > a and close > b";
  t.short_entry = "c < a and close < b";
  t.long_exit = "c < a";
  t.short_exit = "c > a";
  return t;
}

std::vector<RulesCase> cases() {
  std::vector<RulesCase> cs;
  using test::spec_of;
  {
    Grid g;
    g.fast = {5, 10, 30};
    g.slow = {20, 30, 60};
    g.ma = {MaType::ema};
    cs.push_back(
        {"builtin_ma_cross_ema_state", "goog_d1_2004-2013", spec_of(as_rules(g), Fill::close, 2)});
    g.ma = {MaType::hma};
    g.entry = {Entry::cross};
    g.side = {Side::long_only};
    g.stop_loss = {0, 0.03};
    g.trailing_stop = {0.05};
    cs.push_back({"builtin_ma_cross_hma_cross_long_only_stops", "nvda_d1_1999-2014",
                  spec_of(as_rules(g), Fill::next_open, 2)});
  }
  {
    Grid g;
    g.family = Family::channel_breakout;
    g.n = {10, 20, 55};
    g.source = {Source::high_low};
    g.vol_short = {5, 10};
    g.vol_long = {30};
    g.vol_threshold = {0.9, 1.1};
    cs.push_back({"builtin_channel_high_low_vol", "eurusd_h1_2017-2018",
                  spec_of(as_rules(g), Fill::next_open, 1)});
  }
  {
    Grid g;
    g.family = Family::bollinger;
    g.n = {1, 10, 20};
    g.k = {1.5, 2.5};
    cs.push_back(
        {"builtin_bollinger_reversion", "orcl_d1_1995-2014", spec_of(as_rules(g), Fill::close, 2)});
    g.style = {Style::breakout};
    g.side = {Side::long_only};
    g.take_profit = {0, 0.08};
    cs.push_back({"builtin_bollinger_breakout_long_only_tp", "yhoo_d1_1996-2015",
                  spec_of(as_rules(g), Fill::close, 2)});
  }
  {
    Grid g;
    g.family = Family::rsi_reversion;
    g.n = {1, 7, 14};
    g.lo = {25, 35, 75};
    g.hi = {65, 80};
    g.stop_loss = {0.05};
    cs.push_back({"builtin_rsi_stops", "nvda_d1_1999-2014", spec_of(as_rules(g), Fill::close, 2)});
  }
  const std::vector<std::vector<double>> arith_axes = {{5, 12, 20}, {20, 50}, {30, 40}};
  cs.push_back({"arithmetic_crosses_volume_valid", "btcperp_ftx_m1_2022-01",
                spec_of(rules_grid(arithmetic_rules(), arith_axes), Fill::close, 0.5), 20000});
  cs.push_back({"arithmetic_every_stop_close", "goog_d1_2004-2013",
                spec_of(with_stops(rules_grid(arithmetic_rules(), arith_axes), {0, 0.04}, {0, 0.1},
                                   {0, 0.06}),
                        Fill::close, 2)});
  cs.push_back({"arithmetic_every_stop_next_open", "eurusd_h1_2017-2018",
                spec_of(with_stops(rules_grid(arithmetic_rules(), arith_axes), {0, 0.004},
                                   {0, 0.01}, {0, 0.003}),
                        Fill::next_open, 1)});
  {
    Grid g = rules_grid(undefined_rules(), {{1, 9, 16}, {50, 400}});
    g.vol_short = {10};
    g.vol_long = {40};
    g.vol_threshold = {0.8};
    cs.push_back({"undefined_stretches_vol_filter_stops", "orcl_d1_1995-2014",
                  spec_of(with_stops(g, {0, 0.05}, {0}, {0, 0.1}), Fill::next_open, 2)});
  }
  for (RulesCase& c : cs) c.spec.bars_per_year = 252;
  return cs;
}

constexpr const char* kVariants[] = {"generic", "avx2", "avx512"};

std::unique_ptr<Backend> cpu_variant(const std::string& variant, std::string* skip) {
  ::setenv("WFOD_CPU_KERNEL", variant.c_str(), 1);
  const std::string in_use = cpu::lane_kernel_variant();
  if (in_use != variant) {
    *skip = "cpu kernel variant '" + variant + "' not run: this process uses '" + in_use +
            "' (the CPU may lack it, a sanitizer build carries generic only, or an earlier test "
            "fixed the variant)";
    return nullptr;
  }
  return make_backend("cpu");
}

class RulesParity : public ::testing::TestWithParam<std::tuple<RulesCase, std::string>> {};

TEST_P(RulesParity, CpuMatchesCpuRef) {
  const auto& [c, variant] = GetParam();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: real-data rules parity NOT run";
  std::string skip;
  const std::unique_ptr<Backend> cpu = cpu_variant(variant, &skip);
  if (!cpu) GTEST_SKIP() << skip;
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const Grid& grid = c.spec.grid;
  SweepRequest req;
  req.history = h;
  req.strategy = c.spec;
  const size_t warmup = default_warmup(grid);
  req.window = {h.size(), c.bars ? c.bars : h.size() - 1 - warmup, warmup};
  req.rank.top = 20;
  SCOPED_TRACE(c.name + ": " + std::to_string(h.size()) +
               " bars, W=" + std::to_string(req.window.bars) + ", " + std::to_string(grid.size()) +
               " combos, cpu@" + variant);

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

  std::vector<uint64_t> ids;
  for (uint64_t id = 0; id < grid.size(); ++id)
    if (grid.decode(id).valid()) ids.push_back(id);
  ASSERT_FALSE(ids.empty());
  const std::vector<Metrics> mg = cpu->evaluate(req, ids), mw = ref->evaluate(req, ids);
  ASSERT_EQ(mg.size(), ids.size());
  size_t traded = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_TRUE(test::metrics_near(mg[i], mw[i], kRel, kAbs)) << "evaluate id " << ids[i];
    traded += mw[i].trades > 0;
  }
  EXPECT_GT(traded, 0u) << "no combo trades: the case tests nothing";

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
      for (size_t f = 0; f < xr.size(); ++f)
        EXPECT_TRUE(test::near("field " + std::to_string(f), xr[f], yr[f], kRel, kAbs));
    }
  }

  size_t stopped = 0;
  for (uint64_t id : ids) {
    const Combo combo = grid.decode(id);
    const std::vector<int8_t> pg = cpu->positions(h, c.spec, combo),
                              pw = ref->positions(h, c.spec, combo);
    ASSERT_EQ(pg, pw) << "positions of id " << id;
    if (!combo.stops_on()) continue;
    Combo plain = combo;
    plain.stop_loss = plain.take_profit = plain.trailing_stop = 0;
    stopped += ref->positions(h, c.spec, plain) != pw;
  }
  if (grid.has_stops()) {
    EXPECT_GT(stopped, 0u) << "no stop changed any position";
  }
  std::printf(
      "[ rules    ] cpu@%s vs cpu_ref: %s: %zu valid of %llu combos, %zu trading, %zu changed "
      "by stops (cpu_ref %.3fs, cpu %.3fs)\n",
      variant.c_str(), c.name.c_str(), ids.size(), static_cast<unsigned long long>(grid.size()),
      traded, stopped, want.seconds, got.seconds);
}

std::vector<std::string> variants() { return {std::begin(kVariants), std::end(kVariants)}; }

std::string case_name(const ::testing::TestParamInfo<RulesParity::ParamType>& tp) {
  return std::get<0>(tp.param).name + "__cpu_" + std::get<1>(tp.param);
}

INSTANTIATE_TEST_SUITE_P(Cases, RulesParity,
                         ::testing::Combine(::testing::ValuesIn(cases()),
                                            ::testing::ValuesIn(variants())),
                         case_name);

// The rule-written family on cpu gives the built-in family's positions on cpu, bar for bar
// (the given-kind lanes against the family's own lanes).
TEST(RulesParity, RuleWrittenFamiliesMatchTheBuiltInKernelsOnCpu) {
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / "goog_d1_2004-2013.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is missing";
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const std::unique_ptr<Backend> cpu = make_backend("cpu");
  Grid ma;
  ma.fast = {5, 10};
  ma.slow = {20, 50};
  ma.ma = {MaType::wma};
  ma.stop_loss = {0.04};
  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = {7, 14};
  rsi.lo = {30};
  rsi.hi = {70};
  for (const Grid& family : {ma, rsi}) {
    const Grid rules = as_rules(family);
    ASSERT_EQ(rules.size(), family.size());
    for (uint64_t id = 0; id < family.size(); ++id) {
      const Combo fc = family.decode(id), rc = rules.decode(id);
      if (!fc.valid()) continue;
      EXPECT_EQ(cpu->positions(h, test::spec_of(rules, Fill::next_open, 1), rc),
                cpu->positions(h, test::spec_of(family, Fill::next_open, 1), fc))
          << "id " << id;
    }
  }
}

}  // namespace
}  // namespace wfod
