// The rules decision a cuda thread runs, run here on the host and held to cpu_ref's (SPEC §5a,
// §5b): wfod/detail/rule_eval.hpp's rule_next (the undefined rule, the vol filter, the
// conditions with their magnitudes and dead band, crosses at t-1, the transitions) over the
// cpu backend's rows (src/rules_rows.hpp) laid out as the cuda backend uploads them (RulesRows'
// list, each combo's rows and start from RulesRows::combo_rows), stepped through stop_walk.hpp's
// walk_step with the stops. On the cuda rules cases (support/rules_cases.hpp) every valid combo's
// positions equal cpu_ref's bit for bit, walked from the anchor and from the combo's start (where
// the device begins its walks), so the device's rule logic is checked where no GPU is. The oracle's
// evaluator (cpu_ref/ref_rules.cpp) is independent code.
#include "wfod/detail/rule_eval.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "src/rules_rows.hpp"
#include "support/rules_cases.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/detail/stop_step.hpp"
#include "wfod/detail/stop_walk.hpp"

namespace wfod {
namespace {

// A program and its rows in the layout rules_sweep.cu gives the device: the four conditions'
// nodes one after the other, the used indicators, every row of RulesRows' list in one
// row-major matrix, the history's fields.
struct RuleEvalHostProgram {
  std::vector<rules::Node> nodes;
  std::vector<uint32_t> used;
  std::vector<double> matrix;
  detail::RuleProgramView view;
  size_t numbers = 1, truths = 1;

  RuleEvalHostProgram(const rules::Program& p, const detail::RulesRows& rows,
                      const HistoryView& h) {
    for (size_t s = 0; s < rules::kSlots; ++s) {
      const rules::Condition& c = p.conditions[s];
      view.begin[s] = static_cast<uint32_t>(nodes.size());
      view.count[s] = static_cast<uint32_t>(c.nodes.size());
      nodes.insert(nodes.end(), c.nodes.begin(), c.nodes.end());
      detail::rule_stack_depths(c, numbers, truths);
    }
    for (size_t i = 0; i < p.indicators.size(); ++i)
      if (p.indicators[i].used) used.push_back(static_cast<uint32_t>(i));
    for (size_t r = 0; r < rows.size(); ++r)
      matrix.insert(matrix.end(), rows.row(r).values.begin(), rows.row(r).values.end());
    view.nodes = nodes.data();
    view.used = used.data();
    view.n_used = static_cast<uint32_t>(used.size());
    view.rows = matrix.data();
    view.stride = static_cast<long long>(h.size());
    view.field[0] = h.open.data();
    view.field[1] = h.high.data();
    view.field[2] = h.low.data();
    view.field[3] = h.close.data();
    view.field[4] = p.uses_volume ? h.volume.data() : nullptr;
  }
};

// p_t at every bar of h for a combo, as a device thread walks it: flat before `first` (the
// combo's start, or the anchor), then rule_next and the stop step bar by bar.
std::vector<int8_t> rule_eval_positions(const RuleEvalHostProgram& hp,
                                        const detail::RulesRows& rows, const Combo& c,
                                        const HistoryView& h, Fill fill, bool from_start) {
  const detail::RulesRows::ComboRows cr = rows.combo_rows(c);
  detail::RuleComboView v;
  v.values = c.rule_values.data();
  v.row_of = cr.row_of.data();
  v.vol_short = cr.vol_short;
  v.vol_long = cr.vol_long;
  v.threshold = c.has_vol ? c.vol_threshold : 0.0;
  std::vector<detail::RuleNum> nums(hp.numbers);
  std::vector<uint8_t> truths(hp.truths);
  auto next = [&](long long t, double r_prev) {
    return detail::rule_next(hp.view, v, t, r_prev, nums.data(), truths.data());
  };
  const auto levels = detail::stop_levels_of(c.stop_loss, c.take_profit, c.trailing_stop);
  const bool stops = c.stop_loss != 0 || c.take_profit != 0 || c.trailing_stop != 0;
  const auto greater = [](double x, double y) { return detail::rule_db_greater(x, y); };
  const double* entry_open = fill == Fill::next_open ? h.open.data() : nullptr;
  const size_t n = h.size();
  std::vector<int8_t> p(n, 0);
  detail::ComboState s;
  for (size_t t = from_start ? std::min(cr.start, n) : 0; t < n; ++t)
    p[t] = detail::walk_step(next, stops, levels, h.close.data(), entry_open,
                             static_cast<long long>(t), s, greater);
  return p;
}

class RuleEvalOnHost : public ::testing::TestWithParam<test::RulesCase> {};

TEST_P(RuleEvalOnHost, DevicePathMatchesCpuRef) {
  const test::RulesCase& c = GetParam();
  const std::filesystem::path path =
      std::filesystem::path(test::shared_data_dir()) / (c.file + ".csv");
  if (!std::filesystem::exists(path))
    GTEST_SKIP() << path << " is missing: the rules evaluator's real-data check NOT run";
  const std::unique_ptr<Backend> ref = make_backend("cpu_ref");
  const Series s = test::load_csv(path);
  const HistoryView h = HistoryView::of(s);
  const Grid& grid = c.spec.grid;
  const detail::RulesRows rows(h, grid, 2);
  const RuleEvalHostProgram hp(*grid.program, rows, h);
  SCOPED_TRACE(c.name + ": " + std::to_string(h.size()) + " bars, " + std::to_string(grid.size()) +
               " combos");
  size_t valid = 0, trading = 0, late = 0, stopped = 0;
  for (uint64_t id = 0; id < grid.size(); ++id) {
    const Combo combo = grid.decode(id);
    if (!combo.valid()) continue;
    ++valid;
    const std::vector<int8_t> want = ref->positions(h, c.spec, combo);
    ASSERT_EQ(rule_eval_positions(hp, rows, combo, h, c.spec.fill, false), want)
        << "positions of id " << id << " from the anchor";
    ASSERT_EQ(rule_eval_positions(hp, rows, combo, h, c.spec.fill, true), want)
        << "positions of id " << id << " from its start";
    trading += std::any_of(want.begin(), want.end(), [](int8_t p) { return p != 0; });
    late += rows.combo_rows(combo).start > 0;
    if (combo.stops_on()) {
      Combo plain = combo;
      plain.stop_loss = plain.take_profit = plain.trailing_stop = 0;
      stopped += ref->positions(h, c.spec, plain) != want;
    }
  }
  EXPECT_GT(valid, 0u);
  EXPECT_GT(trading, 0u) << "no combo trades: the case tests nothing";
  EXPECT_GT(late, 0u) << "no combo starts after the anchor: the start shortcut is untested";
  if (grid.has_stops()) {
    EXPECT_GT(stopped, 0u) << "no stop changed any position";
  }
  std::printf("[ rules    ] device path on the host vs cpu_ref: %s: %zu valid, %zu trading\n",
              c.name.c_str(), valid, trading);
}

std::string rule_eval_case_name(const ::testing::TestParamInfo<test::RulesCase>& tp) {
  return tp.param.name;
}

INSTANTIATE_TEST_SUITE_P(Cases, RuleEvalOnHost, ::testing::ValuesIn(test::rules_cases()),
                         rule_eval_case_name);

// The dead band at its edge, comparison by comparison: rule_above is cpu_ref's a ≻ b (a − b >
// δ·max(M(a), M(b))), false on a non-finite side, and exact where the node says so.
TEST(RuleEvalOnHost, AboveIsTheDeadBandComparison) {
  const double x = 100.0;
  EXPECT_FALSE(detail::rule_above(x + x * 5e-11, x, x, x, false));  // within the band
  EXPECT_TRUE(detail::rule_above(x + x * 5e-11, x, x, x, true));    // exact: strictly greater
  EXPECT_TRUE(detail::rule_above(x + x * 2e-10, x + x * 2e-10, x, x, false));
  // The magnitude, not the value, sets the band: a small difference of large terms is inside.
  EXPECT_FALSE(detail::rule_above(1e-9, 1e6, 0, 0, false));
  EXPECT_TRUE(detail::rule_above(1e-9, 1e-9, 0, 0, false));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(detail::rule_above(nan, 0, 0, 0, true));
  EXPECT_FALSE(detail::rule_above(inf, inf, 0, 0, false));
  EXPECT_FALSE(detail::rule_above(1, 1, -inf, inf, true));
  // A quotient's magnitude: M(a/b) = (M(a) + |a/b|·M(b)) / |b|.
  const detail::RuleNum q = detail::rule_arith(rules::Op::div, {-6, 10}, {-3, 4});
  EXPECT_EQ(q.v, 2.0);
  EXPECT_EQ(q.m, (10 + 2.0 * 4) / 3);
}

// SPEC §5a's transitions, as every path runs them (the host table is made from this function).
TEST(RuleEvalOnHost, TransitionsFollowSpec) {
  using detail::rule_next_target;
  constexpr unsigned le = 1, lx = 2, se = 4, sx = 8;
  EXPECT_EQ(rule_next_target(0, le | se), 1);
  EXPECT_EQ(rule_next_target(0, se | lx | sx), -1);
  EXPECT_EQ(rule_next_target(0, lx | sx), 0);
  EXPECT_EQ(rule_next_target(1, se | lx), -1);
  EXPECT_EQ(rule_next_target(1, lx | le), 0);
  EXPECT_EQ(rule_next_target(1, le | sx), 1);
  EXPECT_EQ(rule_next_target(-1, le | sx), 1);
  EXPECT_EQ(rule_next_target(-1, sx | se), 0);
  EXPECT_EQ(rule_next_target(-1, se | lx), -1);
  for (int r : {-1, 0, 1}) {
    EXPECT_EQ(rule_next_target(r, detail::kRuleUndefinedCode), 0);
    EXPECT_EQ(rule_next_target(r, detail::kRuleClosedCode), r);
  }
}

}  // namespace
}  // namespace wfod
