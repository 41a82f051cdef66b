// The rules family as a grid (SPEC §5a): one axis per param in listed order, then the stops
// (§5b) and the vol filter in the mixed-radix id; params by name; `valid` skipping combos and
// counted without decoding every id; periods and widths checked per axis value; the warm-up's
// period from the used indicators; validate()'s errors; and which backends run it.
// refuses its streams).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "registry/routing_backend.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/grid.hpp"
#include "wfod/grid_params.hpp"
#include "wfod/selection/plateau.hpp"

namespace wfod {
namespace {

using Names = std::vector<std::string>;
using Axes = std::vector<std::vector<double>>;

rules::RulesText pullback() {
  rules::RulesText r;
  r.params = {"fast", "slow", "lvl"};
  r.valid = "$fast < $slow";
  r.indicators = {{"f", "ema($fast)"}, {"s", "sma($slow)"}, {"r", "rsi(14)"}};
  r.long_entry = "f > s and r < $lvl";
  r.long_exit = "crosses_below(f, s)";
  return r;
}

Grid rules_grid(const rules::RulesText& text, Axes axes) {
  Grid g;
  g.family = Family::rules;
  g.program = std::make_shared<const rules::Program>(rules::compile(text));
  g.rule_axes = std::move(axes);
  return g;
}

Names axis_names(const Grid& g) {
  Names out;
  for (const AxisInfo& a : g.axes()) out.push_back(a.name + ":" + std::to_string(a.size));
  return out;
}

Names param_texts(const Combo& c) {
  Names out;
  for (const ParamValue& p : combo_params(c))
    out.push_back(std::string(p.name) + "=" + param_value_text(p));
  return out;
}

std::string validate_error(const Grid& g) {
  try {
    g.validate();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(RulesGrid, FamilyName) {
  EXPECT_EQ(parse_family("rules"), Family::rules);
  EXPECT_EQ(to_string(Family::rules), "rules");
}

// Params in listed order, then the three stops (one not given is {0}), then the filter.
TEST(RulesGrid, AxesIdsAndParams) {
  Grid g = rules_grid(pullback(), {{5, 10}, {20, 30, 40}, {30, 32.5}});
  g.stop_loss = {0, 0.02};
  g.vol_short = {5};
  g.vol_long = {20, 40};
  g.vol_threshold = {0.9};
  g.validate();
  EXPECT_EQ(axis_names(g),
            (Names{"fast:2", "slow:3", "lvl:2", "stop_loss:2", "take_profit:1", "trailing_stop:1",
                   "vol_short:1", "vol_long:2", "vol_threshold:1"}));
  EXPECT_EQ(g.size(), 48u);
  // 29 = 1 + 2 * (2 + 3 * (0 + 2 * (0 + 2 * 1))): fast 10, slow 40, lvl 30, stop 0, vol_long 40.
  const Combo c = g.decode(29);
  EXPECT_EQ(c.id, 29u);
  EXPECT_EQ(c.family, Family::rules);
  EXPECT_EQ(c.program, g.program);  // shared, not copied
  EXPECT_EQ(c.rule_values, (std::vector<double>{10, 40, 30}));
  EXPECT_EQ(param_texts(c),
            (Names{"fast=10", "slow=40", "lvl=30", "stop_loss=0", "take_profit=0",
                   "trailing_stop=0", "vol_short=5", "vol_long=40", "vol_threshold=0.9"}));
  // 20 = 0 + 2 * (1 + 3 * (1 + 2 * 1)): lvl's decimal value and the stop.
  EXPECT_EQ(param_texts(g.decode(20)),
            (Names{"fast=5", "slow=30", "lvl=32.5", "stop_loss=0.02", "take_profit=0",
                   "trailing_stop=0", "vol_short=5", "vol_long=20", "vol_threshold=0.9"}));
  // An integral value is an integer parameter, a decimal one real; an axis likewise.
  const std::vector<AxisValues> axes = axis_values(g);
  ASSERT_EQ(axes.size(), 9u);
  EXPECT_EQ(axes[0].name, "fast");
  EXPECT_EQ(axes[0].kind, ParamKind::integer);
  EXPECT_EQ(axes[2].name, "lvl");
  EXPECT_EQ(axes[2].kind, ParamKind::real);
  EXPECT_EQ(axes[2].numbers, (std::vector<double>{30, 32.5}));
  EXPECT_EQ(combo_params(g.decode(20))[2].kind, ParamKind::real);
  EXPECT_EQ(combo_params(g.decode(0))[2].kind, ParamKind::integer);

  // Without stops or filter: the params alone, the first fastest.
  const Grid plain = rules_grid(pullback(), {{5, 10}, {20, 30, 40}, {30}});
  EXPECT_EQ(axis_names(plain), (Names{"fast:2", "slow:3", "lvl:1"}));
  EXPECT_EQ(plain.decode(3).rule_values, (std::vector<double>{10, 30, 30}));
  EXPECT_EQ(param_texts(plain.decode(5)), (Names{"fast=10", "slow=40", "lvl=30"}));
}

// `valid` makes combos invalid (skipped, ids kept); count_combos counts them from the axes it
// reads, as decoding every id does.
TEST(RulesGrid, ValidSkipsCombosAndIsCounted) {
  Grid g = rules_grid(pullback(), {{10, 20, 30}, {20, 30}, {30, 40, 50}});
  g.stop_loss = {0.02, 1.5};  // 1.5 is out of range: skipped too
  g.vol_short = {5, 30};
  g.vol_long = {20};
  g.vol_threshold = {1};
  const ComboCount c = count_combos(g);
  EXPECT_EQ(c.total, 3u * 2 * 3 * 2 * 2);
  // fast < slow holds for (10, 20), (10, 30), (20, 30): 3 of the 6 pairs.
  EXPECT_EQ(c.family_rule, 3u * 3 * 2 * 2);
  EXPECT_EQ(c.stop_out_of_range, 6u * 3 * 1 * 2);
  EXPECT_EQ(c.vol_short_not_below_long, 6u * 3 * 2 * 1);
  EXPECT_EQ(c.valid, 3u * 3 * 1 * 1);
  uint64_t valid = 0;
  for (uint64_t id = 0; id < g.size(); ++id) valid += g.decode(id).valid() ? 1 : 0;
  EXPECT_EQ(valid, c.valid);
  EXPECT_EQ(family_rule_text(Family::rules), "rules.valid false");

  // `valid` over one axis; and no `valid`: every combo of the params is valid.
  rules::RulesText one = pullback();
  one.valid = "$lvl > 35 and $lvl < 45";
  EXPECT_EQ(count_combos(rules_grid(one, {{5, 10}, {20}, {30, 40, 50}})).valid, 2u);
  one.valid.reset();
  EXPECT_EQ(count_combos(rules_grid(one, {{5, 10}, {20}, {30, 40, 50}})).valid, 6u);
}

// SPEC §5a: a period or width no indicator can take makes the grid an error, checked per
// axis value (whether or not `valid` accepts the combo, used indicator or not).
TEST(RulesGrid, PeriodsAndWidthsCheckedPerAxisValue) {
  rules::RulesText text = pullback();
  text.params.push_back("k");
  text.indicators.push_back({"band", "bb_upper(20, $k)"});  // declared, unused
  Grid g = rules_grid(text, {{5, 0, 10}, {20}, {30}, {2}});
  auto e = rules_argument_error(g);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->axis, 0u);
  EXPECT_EQ(std::string(e->error.what()),
            "rules.indicators.f:5: a period must be an integer >= 1, but $fast is 0");
  EXPECT_EQ(validate_error(g),
            "grid axis 'fast': rules.indicators.f:5: a period must be an integer >= 1, but $fast "
            "is 0");
  g.rule_axes = {{5, 10}, {20, 2.5}, {30}, {2}};
  EXPECT_EQ(std::string(rules_argument_error(g)->error.what()),
            "rules.indicators.s:5: a period must be an integer >= 1, but $slow is 2.5");
  g.rule_axes = {{5, 10}, {20}, {30}, {2, -1}};
  e = rules_argument_error(g);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->axis, 3u);
  EXPECT_EQ(std::string(e->error.what()),
            "rules.indicators.band:14: a band width must be > 0, but $k is -1");
  g.rule_axes = {{5, 10}, {20}, {30}, {2}};
  EXPECT_FALSE(rules_argument_error(g).has_value());
  EXPECT_EQ(validate_error(g), "no error");

  // Per axis value, not per combo: 2,000 x 5,000 x 1,000 x 10 combos check at once.
  Grid big = rules_grid(text, {{}, {}, {}, {}});
  for (int v = 1; v <= 2000; ++v) big.rule_axes[0].push_back(v);
  for (int v = 1; v <= 5000; ++v) big.rule_axes[1].push_back(v);
  for (int v = 1; v <= 1000; ++v) big.rule_axes[2].push_back(v);
  for (int v = 1; v <= 10; ++v) big.rule_axes[3].push_back(v * 0.5);
  EXPECT_EQ(big.size(), uint64_t{100'000'000'000});
  EXPECT_FALSE(rules_argument_error(big).has_value());
  big.rule_axes[1].back() = 0;
  ASSERT_TRUE(rules_argument_error(big).has_value());
  EXPECT_EQ(rules_argument_error(big)->axis, 1u);
}

// The default warm-up reads the longest period any used indicator can have (SPEC §3, §5a).
TEST(RulesGrid, MaxPeriodOfTheUsedIndicators) {
  rules::RulesText text = pullback();
  text.indicators.push_back({"unused", "sma(500)"});
  Grid g = rules_grid(text, {{5, 50}, {20, 200}, {30}});
  EXPECT_EQ(g.max_period(), 200);
  EXPECT_EQ(default_warmup(g), 600u);
  g.vol_short = {5};
  g.vol_long = {300};
  g.vol_threshold = {1};
  EXPECT_EQ(g.max_period(), 300);
  text = pullback();
  text.indicators.push_back({"up", "bb_upper(250, 2)"});
  text.long_entry = "close > up";
  EXPECT_EQ(rules_grid(text, {{5}, {20}, {30}}).max_period(), 250);
}

TEST(RulesGrid, IndicatorSeries) {
  rules::RulesText text = pullback();
  text.params = {"fast", "slow", "lvl", "n"};
  text.indicators = {{"f", "ema($fast)"},
                     {"s", "sma($slow)"},
                     {"r", "rsi(14)"},
                     {"b", "bb_lower($n, 2)"},
                     {"x", "wma(3)"}};
  text.long_entry = "f > s and r < $lvl and close > b";
  // ema 5, 10; sma 10, 20 (and the band's SMA(10), the same row); rsi 14; std 10; wma unused.
  EXPECT_EQ(indicator_series(rules_grid(text, {{5, 10}, {10, 20}, {30}, {10}})), 6u);
}

TEST(RulesGrid, RepeatedValueNamesTheParam) {
  const Grid g = rules_grid(pullback(), {{5, 10}, {20}, {30, 30}});
  ASSERT_TRUE(g.repeated_value().has_value());
  EXPECT_EQ(g.repeated_value()->axis, "lvl");
  EXPECT_EQ(g.repeated_value()->value, "30");
  EXPECT_EQ(validate_error(g).rfind("grid axis 'lvl' lists 30 more than once", 0), 0u);
}

TEST(RulesGrid, ValidateErrors) {
  Grid g = rules_grid(pullback(), {{5}, {20}});
  EXPECT_EQ(validate_error(g), "rules grid has 2 axes for 3 params");
  g.rule_axes = {{5}, {20}, {}};
  EXPECT_EQ(validate_error(g), "rules grid needs 'lvl' values");
  g.rule_axes = {{5}, {20}, {std::numeric_limits<double>::infinity()}};
  EXPECT_EQ(validate_error(g), "rules grid axis 'lvl' must be finite");
  g.rule_axes = {{5}, {20}, {30}};
  g.fast = {5};
  EXPECT_EQ(validate_error(g), "'fast' is not a parameter of rules (SPEC §5)");
  g.fast.clear();
  Grid no_program = g;
  no_program.program.reset();
  EXPECT_EQ(validate_error(no_program), "rules grid has no compiled program");
  Grid ma;
  ma.fast = {5};
  ma.slow = {20};
  ma.program = g.program;
  EXPECT_EQ(validate_error(ma), "'rules' is not a parameter of ma_cross (SPEC §5)");
}

// A rules param is a number whatever its name: plateau selection moves along it (a built-in
// family's `side` is a choice, radius 0).
TEST(RulesGrid, ParamsAreNumericAxesForThePlateau) {
  rules::RulesText text = pullback();
  text.params = {"side", "slow", "lvl"};
  text.valid = "$side < $slow";
  text.indicators = {{"f", "ema($side)"}, {"s", "sma($slow)"}, {"r", "rsi(14)"}};
  selection::SelectionSpec spec;
  spec.plateau_radius = 1;
  EXPECT_EQ(selection::plateau_radii(rules_grid(text, {{5, 10}, {20}, {30}}), spec),
            (std::vector<int>{1, 1, 1}));
}

// cpu runs a rules grid for every kind of work (issue 45; the parity against cpu_ref is
// tests/parity/rules_parity_test.cpp and rules_stream_test.cpp); auto (the routing backend)
// runs it on the host; cuda's refusal names cpu.
TEST(RulesGrid, CpuRunsRulesAndCudaRefusalNamesCpu) {
  const Series series = test::random_walk(400, 7);
  const HistoryView h = HistoryView::of(series);
  SweepRequest req;
  req.history = h;
  req.strategy.grid = rules_grid(pullback(), {{5, 10}, {20, 30}, {40}});
  req.strategy.grid.stop_loss = {0, 0.02};
  req.window = WindowSpec{h.size(), 200, default_warmup(req.strategy.grid)};
  auto cpu = make_backend("cpu");
  auto ref = make_backend("cpu_ref");
  for (Work w : {Work::sweep, Work::selection, Work::stream})
    EXPECT_TRUE(cpu->supports(w, req.strategy).ok());
  StreamSpec spec;
  spec.strategy = req.strategy;
  spec.window = 200;
  spec.warmup = req.window.warmup;
  EXPECT_TRUE(cpu->open_stream(spec, h)->bounded());  // rules_stream.hpp: a bounded stream

  const SweepResult got = cpu->sweep(req), want = ref->sweep(req);
  EXPECT_EQ(got.evaluated + got.skipped, req.strategy.grid.size());
  EXPECT_EQ(got.evaluated, want.evaluated);
  EXPECT_EQ(test::ids_of(got.top), test::ids_of(want.top));
  const std::vector<uint64_t> ids{0};
  EXPECT_EQ(cpu->evaluate(req, ids).size(), 1u);
  const std::vector<size_t> cuts{req.window.first() + 50};
  EXPECT_EQ(cpu->block_summaries(req, cuts).size(), 2 * req.strategy.grid.size());
  const Combo c = req.strategy.grid.decode(0);
  EXPECT_EQ(cpu->positions(h, req.strategy, c), ref->positions(h, req.strategy, c));

  auto routed = detail::make_routing_backend(make_backend("cpu"), make_backend("cpu"));
  EXPECT_TRUE(routed->supports(Work::sweep, req.strategy).ok());
  EXPECT_EQ(test::ids_of(routed->sweep(req).top), test::ids_of(want.top));
  // auto follows a rules winner (the daemon's replaying tracker) through the routed source.
  const PositionsOf source = routed->positions_source();
  ASSERT_TRUE(source);
  EXPECT_EQ(source(h, req.strategy, c), ref->positions(h, req.strategy, c));
  EXPECT_EQ(rules_support("cuda", req.strategy).refusal,
            "the cuda backend does not run rules strategies yet (SPEC §5a); use --backend cpu "
            "(or auto, which runs them on cpu)");
}

}  // namespace
}  // namespace wfod
