// Stops as grid axes (SPEC §5, §5b): where they sit in the mixed-radix id, their validity
// ranges and counts, grids without stops unchanged (axes, ids, params), the TOML keys, which
// backends run them (cpu_ref, cpu, auto through cpu) and cuda's refusal, the daemon's too.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "registry/routing_backend.hpp"
#include "support/compare.hpp"
#include "support/series.hpp"
#include "wfod/backend.hpp"
#include "wfod/config/config.hpp"
#include "wfod/daemon/core/config_checks.hpp"
#include "wfod/grid.hpp"
#include "wfod/grid_params.hpp"

namespace wfod {
namespace {

std::vector<std::string> stops_grid_axis_names(const Grid& g) {
  std::vector<std::string> out;
  for (const AxisInfo& a : g.axes()) out.push_back(a.name);
  return out;
}

std::vector<std::string> stops_grid_param_texts(const Combo& c) {
  std::vector<std::string> out;
  for (const ParamValue& p : combo_params(c))
    out.push_back(std::string(p.name) + "=" + param_value_text(p));
  return out;
}

using Names = std::vector<std::string>;

// Grids without stops keep the axes, ids and params they had before §5b, whatever family.
TEST(StopsGrid, GridsWithoutStopsAreUnchanged) {
  Grid ma;
  ma.fast = {5, 10};
  ma.slow = {20, 30};
  ma.ma = {MaType::sma, MaType::ema};
  EXPECT_FALSE(ma.has_stops());
  EXPECT_EQ(stops_grid_axis_names(ma), (Names{"fast", "slow", "ma", "side", "entry"}));
  EXPECT_EQ(ma.size(), 8u);
  const Combo c5 = ma.decode(5);
  EXPECT_FALSE(c5.has_stops);
  EXPECT_EQ(stops_grid_param_texts(c5),
            (Names{"fast=10", "slow=20", "ma=ema", "side=long_short", "entry=state"}));

  Grid rsi;
  rsi.family = Family::rsi_reversion;
  rsi.n = {7, 14};
  rsi.lo = {20, 30};
  rsi.hi = {70};
  rsi.vol_short = {5};
  rsi.vol_long = {20, 40};
  rsi.vol_threshold = {0.8};
  EXPECT_EQ(stops_grid_axis_names(rsi),
            (Names{"n", "lo", "hi", "side", "vol_short", "vol_long", "vol_threshold"}));
  EXPECT_EQ(stops_grid_param_texts(rsi.decode(7)),
            (Names{"n=14", "lo=30", "hi=70", "side=long_short", "vol_short=5", "vol_long=40",
                   "vol_threshold=0.8"}));
  std::vector<std::string> axes;
  for (const AxisValues& a : axis_values(rsi)) axes.emplace_back(a.name);
  EXPECT_EQ(axes, stops_grid_axis_names(rsi));

  Grid bb;
  bb.family = Family::bollinger;
  bb.n = {20};
  bb.k = {1.5, 2.0};
  bb.style = {Style::reversion, Style::breakout};
  EXPECT_EQ(stops_grid_axis_names(bb), (Names{"n", "k", "style", "side"}));
  EXPECT_EQ(stops_grid_param_texts(bb.decode(3)),
            (Names{"n=20", "k=2", "style=breakout", "side=long_short"}));
}

// SPEC §5: the family's parameters, then stop_loss, take_profit, trailing_stop, then the
// filter's; the first axis fastest. Stop axes not given are {0} (size 1): no id moves.
TEST(StopsGrid, StopAxesSitBetweenTheFamilyAndTheFilter) {
  Grid g;
  g.fast = {5, 10};
  g.slow = {20};
  g.stop_loss = {0.01, 0.02, 0.03};
  g.trailing_stop = {0.1, 0.2};
  g.vol_short = {5};
  g.vol_long = {20};
  g.vol_threshold = {0.5, 1.0};
  g.validate();
  EXPECT_EQ(stops_grid_axis_names(g),
            (Names{"fast", "slow", "ma", "side", "entry", "stop_loss", "take_profit",
                   "trailing_stop", "vol_short", "vol_long", "vol_threshold"}));
  ASSERT_EQ(g.size(), 24u);
  for (uint64_t id = 0; id < g.size(); ++id) {
    const Combo c = g.decode(id);
    EXPECT_TRUE(c.has_stops);
    EXPECT_EQ(c.fast, g.fast[id % 2]);
    EXPECT_EQ(c.stop_loss, g.stop_loss[id / 2 % 3]);
    EXPECT_EQ(c.take_profit, 0.0);
    EXPECT_EQ(c.trailing_stop, g.trailing_stop[id / 6 % 2]);
    EXPECT_EQ(c.vol_threshold, g.vol_threshold[id / 12]);
  }
  EXPECT_EQ(stops_grid_param_texts(g.decode(23)),
            (Names{"fast=10", "slow=20", "ma=sma", "side=long_short", "entry=state",
                   "stop_loss=0.03", "take_profit=0", "trailing_stop=0.2", "vol_short=5",
                   "vol_long=20", "vol_threshold=1"}));
  // axis_values lists the same axes, an absent stop as {0}.
  const std::vector<AxisValues> values = axis_values(g);
  ASSERT_EQ(values.size(), 11u);
  EXPECT_EQ(values[6].name, "take_profit");
  EXPECT_EQ(values[6].numbers, std::vector<double>{0.0});

  // One stop axis of size 1 leaves every id where it was: the same family params per id.
  Grid plain;
  plain.fast = {5, 10, 15};
  plain.slow = {20, 30};
  plain.side = {Side::long_short, Side::long_only};
  Grid with = plain;
  with.take_profit = {0.05};
  ASSERT_EQ(with.size(), plain.size());
  for (uint64_t id = 0; id < plain.size(); ++id) {
    const Combo a = plain.decode(id), b = with.decode(id);
    EXPECT_EQ(a.fast, b.fast);
    EXPECT_EQ(a.slow, b.slow);
    EXPECT_EQ(a.side, b.side);
    EXPECT_EQ(b.take_profit, 0.05);
  }
}

TEST(StopsGrid, ValidityRanges) {
  Combo c;
  c.fast = 5;
  c.slow = 20;
  EXPECT_TRUE(c.valid());
  const auto with = [&](double sl, double tp, double ts) {
    Combo x = c;
    x.stop_loss = sl;
    x.take_profit = tp;
    x.trailing_stop = ts;
    return x.valid();
  };
  EXPECT_TRUE(with(0, 0, 0));
  EXPECT_TRUE(with(0.999, 100, 0.999));
  EXPECT_FALSE(with(1, 0, 0));
  EXPECT_FALSE(with(-0.01, 0, 0));
  EXPECT_FALSE(with(0, -0.01, 0));
  EXPECT_FALSE(with(0, 0, 1));
  EXPECT_FALSE(with(0, 0, -0.5));
  EXPECT_TRUE(with(0, 1, 0));  // a short's take_profit of 1 never fires, yet it is valid

  // Invalid stops are skipped combos (ids kept), counted like the family's rule.
  Grid g;
  g.fast = {5, 30};
  g.slow = {20};
  g.stop_loss = {-0.1, 0, 0.5, 1.0};
  g.take_profit = {-1, 0, 2};
  g.validate();
  const ComboCount n = count_combos(g);
  uint64_t valid = 0, family = 0, stops = 0;
  for (uint64_t id = 0; id < g.size(); ++id) {
    const Combo x = g.decode(id);
    valid += x.valid();
    family += !x.family_valid();
    stops += !x.stops_valid();
  }
  EXPECT_EQ(n.total, 24u);
  EXPECT_EQ(n.valid, valid);
  EXPECT_EQ(valid, 1u * 2 * 2);  // fast 5; stop_loss 0 or 0.5; take_profit 0 or 2
  EXPECT_EQ(n.family_rule, family);
  EXPECT_EQ(n.stop_out_of_range, stops);
  EXPECT_EQ(n.vol_short_not_below_long, 0u);

  Grid bad = g;
  bad.trailing_stop = {std::numeric_limits<double>::infinity()};
  EXPECT_THROW(bad.validate(), std::invalid_argument);
  Grid twice = g;
  twice.take_profit = {0.1, 0.1};
  ASSERT_TRUE(twice.repeated_value().has_value());
  EXPECT_EQ(twice.repeated_value()->axis, "take_profit");
}

TEST(StopsGrid, TomlKeysAndErrorsAtTheKey) {
  const std::string head =
      "[[strategy]]\nname = \"s\"\nsymbols = [\"X\"]\nfamily = \"channel_breakout\"\n"
      "window = 10\n[strategy.grid]\nn = 20\n";
  const config::Config c = config::parse_config(
      head + "stop_loss = [0, 0.02, 0.05]\ntake_profit = 0\ntrailing_stop = \"0:0.1:0.025\"\n",
      "t.toml");
  const Grid& g = c.strategies[0].spec.grid;
  EXPECT_EQ(g.stop_loss, (std::vector<double>{0, 0.02, 0.05}));
  EXPECT_EQ(g.take_profit, std::vector<double>{0});
  EXPECT_EQ(g.trailing_stop, (std::vector<double>{0, 0.025, 0.05, 0.075, 0.1}));
  EXPECT_EQ(config::parse_config(head, "t.toml").strategies[0].spec.grid.has_stops(), false);

  const auto error_of = [&](const std::string& line) {
    try {
      config::parse_config(head + line, "t.toml");
    } catch (const config::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("stop_loss = \"a\"\n").find("t.toml:8:13: key 'strategy[0].grid.stop_loss'"),
            std::string::npos)
      << error_of("stop_loss = \"a\"\n");
  EXPECT_NE(error_of("take_profit = [0.1, true]\n").find("key 'strategy[0].grid.take_profit[1]'"),
            std::string::npos);
  EXPECT_NE(error_of("trailing_stop = [0.1, 0.1]\n").find("key 'strategy[0].grid.trailing_stop'"),
            std::string::npos);
}

// The daemon runs stops on the cpu backend (and on auto, which sends them to cpu); a cuda
// daemon refuses a strategy with stops at its first stop key, naming the strategy.
TEST(StopsGrid, TheDaemonRefusesStopsOnlyOnCuda) {
  const std::string strategy =
      "[[symbol]]\nname = \"GOOG\"\n\n[[strategy]]\nname = \"s\"\nsymbols = [\"GOOG\"]\n"
      "family = \"ma_cross\"\nwindow = 200\n\n[strategy.grid]\nfast = \"5:20:5\"\n"
      "slow = \"30:60:10\"\ntake_profit = [0.05, 0.1]\n";
  auto errors_of = [&](const std::string& backend) {
    const std::string text =
        (backend.empty() ? "" : "[daemon]\nbackend = \"" + backend + "\"\n\n") + strategy;
    std::vector<std::string> errors;
    for (const daemon::ConfigFinding& f :
         daemon::check_daemon_config(config::parse_config(text, "wfod.toml"), {})) {
      if (f.error) errors.push_back(f.text);
    }
    return errors;
  };
  for (const std::string backend : {"", "auto", "cpu", "cpu_ref"})
    EXPECT_EQ(errors_of(backend), std::vector<std::string>{}) << "backend '" << backend << "'";
  const std::vector<std::string> errors = errors_of("cuda");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("wfod.toml:16:15: key 'strategy[0].grid.take_profit': strategy 's' "
                            "has stops (SPEC §5b), which the cuda backend does not run yet; set "
                            "[daemon] backend = \"cpu\" or \"auto\"",
                            0),
            0u)
      << errors[0];
}

// A device backend as cuda answers for stops: it refuses a grid with them (stops_support) and
// runs everything else on an inner cpu backend; a call it refuses throws.
class RefusesStops final : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }
  Support supports(Work, const StrategySpec& s) const override { return stops_support(name(), s); }
  SweepResult sweep(const SweepRequest& r) override {
    require(supports(Work::sweep, r.strategy));
    return inner_->sweep(r);
  }
  std::vector<Metrics> evaluate(const SweepRequest& r, std::span<const uint64_t> ids) override {
    require(supports(Work::sweep, r.strategy));
    return inner_->evaluate(r, ids);
  }
  std::vector<Summary> block_summaries(const SweepRequest& r,
                                       std::span<const size_t> cuts) override {
    require(supports(Work::selection, r.strategy));
    return inner_->block_summaries(r, cuts);
  }
  std::vector<int8_t> positions(const HistoryView& h, const StrategySpec& s,
                                const Combo& c) override {
    require(supports(Work::sweep, s));
    return inner_->positions(h, s, c);
  }

 private:
  std::unique_ptr<Backend> inner_ = make_backend("cpu");
};

// cpu runs stops for every kind of work; cuda refuses them by name (stops_support), and
// "auto" sends every call of a grid with stops, positions() included, to the host (cpu).
TEST(StopsGrid, CpuRunsStopsCudaRefusesThemAndAutoRoutesThemToCpu) {
  const Series series = test::random_walk(400, 5);
  const HistoryView h = HistoryView::of(series);
  SweepRequest req;
  req.history = h;
  req.strategy.grid.family = Family::channel_breakout;
  req.strategy.grid.n = {10, 20};
  req.strategy.grid.stop_loss = {0.02};
  req.window = WindowSpec{h.size(), 200, default_warmup(req.strategy.grid)};
  auto cpu = make_backend("cpu");
  for (Work w : {Work::sweep, Work::selection, Work::stream}) {
    EXPECT_TRUE(cpu->supports(w, req.strategy).ok());
    EXPECT_TRUE(make_backend("cpu_ref")->supports(w, req.strategy).ok());
  }
  EXPECT_EQ(stops_support("cuda", req.strategy).refusal,
            "the cuda backend does not run stops yet (SPEC §5b); use backend cpu (or auto, which "
            "runs them on cpu)");
  const SweepResult swept = cpu->sweep(req);
  EXPECT_EQ(swept.evaluated, 2u);
  const std::vector<uint64_t> ids{0, 1};
  EXPECT_EQ(cpu->evaluate(req, ids).size(), 2u);
  const std::vector<size_t> cuts{req.window.first() + 50};
  EXPECT_EQ(cpu->block_summaries(req, cuts).size(), 4u);
  const Combo combo = req.strategy.grid.decode(0);
  const std::vector<int8_t> p = cpu->positions(h, req.strategy, combo);
  StreamSpec spec;
  spec.strategy = req.strategy;
  spec.window = 200;
  spec.warmup = req.window.warmup;
  EXPECT_TRUE(cpu->open_stream(spec, h)->bounded());

  // Routing: the device's refusal sends each call to the host, whose answers are cpu's.
  auto routed = detail::make_routing_backend(std::make_unique<RefusesStops>(), make_backend("cpu"));
  EXPECT_TRUE(routed->supports(Work::sweep, req.strategy).ok());
  EXPECT_EQ(test::ids_of(routed->sweep(req).top), test::ids_of(swept.top));
  EXPECT_EQ(routed->positions(h, req.strategy, combo), p);
  EXPECT_EQ(routed->evaluate(req, ids).size(), 2u);
  const std::unique_ptr<Stream> stream = routed->open_stream(spec, h);
  EXPECT_TRUE(stream->bounded());
  // Its checkpoint restores on the host too (the device restores no streams).
  EXPECT_EQ(routed->restore_stream(spec, stream->checkpoint())->stats().bars, h.size());
  // Without stops the device runs it.
  req.strategy.grid.stop_loss.clear();
  EXPECT_TRUE(routed->supports(Work::sweep, req.strategy).ok());
  EXPECT_TRUE(stops_support("cuda", req.strategy).ok());
  EXPECT_NO_THROW(routed->positions(h, req.strategy, req.strategy.grid.decode(0)));
}

}  // namespace
}  // namespace wfod
