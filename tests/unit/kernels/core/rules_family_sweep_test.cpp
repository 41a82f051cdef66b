// SPEC §5a's promise through the wired path: a built-in family written as rules
// (kernels/core/src/rules/builtin_rules.cpp), run as a rules grid on the cpu_ref backend, gives
// the family's results for the mapped combos: the same ids (the categorical axes held at one
// value are size-1 axes, so the numeric axes, the stops' and the filter's keep their places),
// the same skipped combos, and bit for bit the same metrics (sweep, evaluate), block summaries
// (robust selection's input), positions and walk-forward, on shared real data.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/rules/builtin_rules.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod {
namespace {

template <typename T>
std::vector<double> doubles(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

// The family's grid (one value on each categorical axis) as a rules grid: the family's text
// at those values, its numeric axes as the params' axes, the stops and the filter as given.
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

struct Case {
  std::string name;
  Grid grid;
};

// Every family, categorical values on both sides, invalid combos among them (fast >= slow,
// n = 1, lo >= hi), stops on some and the filter on others.
std::vector<Case> cases() {
  std::vector<Case> out;
  Grid ma;
  ma.fast = {5, 10, 30};
  ma.slow = {20, 30, 60};
  ma.ma = {MaType::ema};
  out.push_back({"ma_cross_ema_state", ma});
  ma.ma = {MaType::sma};
  ma.entry = {Entry::cross};
  ma.side = {Side::long_only};
  ma.stop_loss = {0, 0.03};
  ma.trailing_stop = {0.05};
  out.push_back({"ma_cross_sma_cross_long_only_stops", ma});

  Grid ch;
  ch.family = Family::channel_breakout;
  ch.n = {10, 20, 55};
  ch.source = {Source::high_low};
  ch.vol_short = {5, 10};
  ch.vol_long = {30};
  ch.vol_threshold = {0.9, 1.1};
  out.push_back({"channel_high_low_vol", ch});

  Grid bb;
  bb.family = Family::bollinger;
  bb.n = {1, 10, 20};
  bb.k = {1.5, 2.5};
  out.push_back({"bollinger_reversion", bb});
  bb.style = {Style::breakout};
  bb.side = {Side::long_only};
  bb.take_profit = {0, 0.08};
  out.push_back({"bollinger_breakout_long_only_tp", bb});

  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = {1, 7, 14};
  rsi.lo = {25, 35, 75};
  rsi.hi = {65, 80};
  rsi.stop_loss = {0.05};
  out.push_back({"rsi_stops", rsi});
  return out;
}

// A daily and an hourly file of the shared data.
const char* const kFiles[] = {"nvda_d1_1999-2014.csv", "eurusd_h1_2017-2018.csv"};

class RulesFamilySweep : public ::testing::TestWithParam<const char*> {};

void expect_same(const Metrics& a, const Metrics& b, const std::string& what) {
  EXPECT_EQ(std::memcmp(&a, &b, sizeof(Metrics)), 0) << what;
}

TEST_P(RulesFamilySweep, BuiltinFamiliesWrittenAsRulesMatchOnCpuRef) {
  const std::filesystem::path path = std::filesystem::path(test::shared_data_dir()) / GetParam();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  const Series series = test::load_csv(path);
  const HistoryView h = HistoryView::of(series);
  auto backend = make_backend("cpu_ref");
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const Grid rules_grid = as_rules(c.grid);
    ASSERT_EQ(rules_grid.size(), c.grid.size());
    SweepRequest family_req;
    family_req.history = h;
    family_req.strategy.grid = c.grid;
    family_req.strategy.costs.commission_bps = 2;
    family_req.strategy.fill = c.grid.has_stops() ? Fill::next_open : Fill::close;
    family_req.rank.top = c.grid.size();
    family_req.rank.min_trades = 1;
    family_req.window = WindowSpec{h.size(), 2000, 200};
    SweepRequest rules_req = family_req;
    rules_req.strategy.grid = rules_grid;

    const SweepResult want = backend->sweep(family_req);
    const SweepResult got = backend->sweep(rules_req);
    EXPECT_EQ(got.evaluated, want.evaluated);
    EXPECT_EQ(got.skipped, want.skipped);
    EXPECT_GT(want.skipped + want.evaluated, 0u);
    EXPECT_EQ(got.ranked, want.ranked);
    ASSERT_EQ(got.top.size(), want.top.size());
    ASSERT_GT(want.top.size(), 0u);
    for (size_t i = 0; i < want.top.size(); ++i) {
      EXPECT_EQ(got.top[i].combo.id, want.top[i].combo.id) << "rank " << i;
      expect_same(got.top[i].metrics, want.top[i].metrics, "rank " + std::to_string(i));
    }

    std::vector<uint64_t> valid;
    for (uint64_t id = 0; id < c.grid.size(); ++id) {
      EXPECT_EQ(rules_grid.decode(id).valid(), c.grid.decode(id).valid()) << "id " << id;
      if (c.grid.decode(id).valid()) valid.push_back(id);
    }
    const std::vector<Metrics> want_m = backend->evaluate(family_req, valid);
    const std::vector<Metrics> got_m = backend->evaluate(rules_req, valid);
    for (size_t i = 0; i < valid.size(); ++i)
      expect_same(got_m[i], want_m[i], "evaluate id " + std::to_string(valid[i]));

    const std::vector<size_t> cuts{family_req.window.first() + 500,
                                   family_req.window.first() + 1300};
    const std::vector<Summary> want_b = backend->block_summaries(family_req, cuts);
    const std::vector<Summary> got_b = backend->block_summaries(rules_req, cuts);
    ASSERT_EQ(got_b.size(), want_b.size());
    for (size_t b = 0; b < want_b.size(); ++b)
      test::expect_same_summary_bits(got_b[b], want_b[b], "block summary " + std::to_string(b));

    const uint64_t best = want.top.front().combo.id;
    EXPECT_EQ(backend->positions(h, rules_req.strategy, rules_grid.decode(best)),
              backend->positions(h, family_req.strategy, c.grid.decode(best)));

    WalkSpec walk;
    walk.is_bars = 1000;
    walk.oos_bars = 500;
    walk.warmup = 200;
    const WalkResult want_w =
        walk_forward(*backend, h, family_req.strategy, family_req.rank, walk, Precision::exact, 1);
    const WalkResult got_w =
        walk_forward(*backend, h, rules_req.strategy, rules_req.rank, walk, Precision::exact, 1);
    ASSERT_EQ(got_w.folds.size(), want_w.folds.size());
    for (size_t f = 0; f < want_w.folds.size(); ++f) {
      ASSERT_EQ(got_w.folds[f].winner.has_value(), want_w.folds[f].winner.has_value());
      if (want_w.folds[f].winner) {
        EXPECT_EQ(got_w.folds[f].winner->combo.id, want_w.folds[f].winner->combo.id);
      }
    }
    expect_same(got_w.oos, want_w.oos, "walk-forward OOS");
    EXPECT_EQ(got_w.oos_returns, want_w.oos_returns);
  }
}

INSTANTIATE_TEST_SUITE_P(SharedData, RulesFamilySweep, ::testing::ValuesIn(kFiles),
                         [](const auto& p) { return test::sanitize_name(p.param); });

}  // namespace
}  // namespace wfod
