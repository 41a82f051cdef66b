// The --report data (tools/wfo/report_data): the fold table is walk --json's folds, the
// equity/buy-and-hold/drawdown arithmetic, heatmap shape and winner cell, histogram counts,
// downsampling, the equivalent command line, JSON made safe inside <script>, and robust
// selection's place in the document (report_selection).

#include "tools/wfo/report_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

#include "support/series.hpp"
#include "tools/wfo/args.hpp"
#include "tools/wfo/report_selection.hpp"
#include "tools/wfo/report_writer.hpp"
#include "wfod/walk_forward.hpp"

namespace wfod::cli {
namespace {

Grid report_ma_grid() {
  Grid g;
  g.family = Family::ma_cross;
  g.fast = {3, 6, 9, 12, 15};
  g.slow = {10, 20, 30, 40};
  return g;
}

StrategySpec spec_of(Grid g) {
  StrategySpec s;
  s.grid = std::move(g);
  s.costs.commission_bps = 2;
  return s;
}

struct WalkFixture {
  Series series = test::random_walk(1400, 7);
  HistoryView h = HistoryView::of(series);
  std::unique_ptr<Backend> backend = make_backend("cpu_ref");
  StrategySpec spec = spec_of(report_ma_grid());
  RankSpec rank;
  WalkSpec walk{300, 150, WalkMode::rolling, 120};

  WalkReport run() {
    rank.min_trades = 3;
    WalkResult res = walk_forward(*backend, h, spec, rank, walk, Precision::exact, 1);
    return WalkReport{"walk.csv", "", h, spec, rank, walk, std::move(res), "cpu_ref"};
  }
};

RunInputs inputs_for(const std::string& command, const StrategySpec& spec, const RankSpec& rank) {
  RunInputs in;
  in.command = command;
  in.args = {"--csv", "walk.csv"};
  in.setup.spec = spec;
  in.setup.rank = rank;
  in.setup.csv_path = "walk.csv";
  in.setup.backend = "cpu_ref";
  in.report_dir = "out/report dir";
  in.generated_utc = "2024-01-02T03:04:05Z";
  return in;
}

SweepRequest fold_request(const WalkReport& r, const Fold& f) {
  SweepRequest req;
  req.history = r.history;
  req.strategy = r.spec;
  req.window = WindowSpec{f.is_last + 1, f.is_last - f.is_first + 1, r.walk.warmup};
  req.rank = r.rank;
  req.threads = 1;
  return req;
}

// --- The fold table is walk --json's folds ----------------------------------------------------

TEST(ReportData, FoldTableEqualsWalkJsonFolds) {
  WalkFixture fx;
  const WalkReport r = fx.run();
  ASSERT_GE(r.result.folds.size(), 3u);
  const Json json_folds = walk_json(r)["folds"];
  const Json doc = walk_report_json(r, inputs_for("walk", r.spec, r.rank), {});
  const Json& rows = doc["folds"];
  ASSERT_EQ(rows.size(), json_folds.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("fold " + std::to_string(i));
    for (const char* key : {"index", "id", "params", "is", "oos", "evaluated", "skipped"}) {
      EXPECT_EQ(rows[i][key], json_folds[i][key]) << key;
    }
    const Fold& f = r.result.folds[i];
    if (f.winner) {
      EXPECT_EQ(rows[i]["is_objective"].get<double>(), f.winner->objective);
      if (f.is.cagr > 0) {
        EXPECT_DOUBLE_EQ(rows[i]["wfe"].get<double>(), f.oos.cagr / f.is.cagr);
      }
    } else {
      EXPECT_TRUE(rows[i]["is_objective"].is_null());
    }
    EXPECT_EQ(rows[i]["oos_objective"].get<double>(), objective_value(f.oos, r.rank.objective));
  }
  // folds.csv: a header and one row per fold.
  const std::string csv = folds_csv(r);
  EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), rows.size() + 1);
  EXPECT_EQ(csv.rfind("fold,is_first,is_last,", 0), 0u);
}

// --- Equity, buy-and-hold and drawdown --------------------------------------------------------

TEST(ReportData, EquityBuyHoldAndDrawdownByHand) {
  Series s;
  for (double c : {100.0, 110.0, 99.0, 99.0, 108.9}) {
    Bar b;
    b.ts_ns = static_cast<int64_t>(s.size() + 1) * test::kMinuteNs;
    b.open = b.high = b.low = b.close = c;
    s.push_back(b);
  }
  const HistoryView h = HistoryView::of(s);
  const std::vector<double> returns = {0.05, -0.2, 0.5, 0.0};
  const EquityCurve c = equity_curve(h, 1, returns);
  ASSERT_EQ(c.size(), 4u);
  const double eq[] = {1.05, 0.84, 1.26, 1.26};
  const double bh[] = {1.1, 0.99, 0.99, 1.089};  // c_t / c_0
  const double dd[] = {0.0, 1 - 0.84 / 1.05, 0.0, 0.0};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(c.equity[i], eq[i], 1e-12) << i;
    EXPECT_NEAR(c.buy_hold[i], bh[i], 1e-12) << i;
    EXPECT_NEAR(c.drawdown[i], dd[i], 1e-12) << i;
    EXPECT_EQ(c.ts_ns[i], s.ts_ns[i + 1]);
  }
  // From bar 2: buy-and-hold is relative to the close before the first return (c_1).
  const EquityCurve c2 = equity_curve(h, 2, std::vector<double>{-0.5, 0.2});
  EXPECT_NEAR(c2.buy_hold[0], 99.0 / 110.0, 1e-12);
  EXPECT_NEAR(c2.buy_hold[1], 99.0 / 110.0, 1e-12);
  EXPECT_NEAR(c2.drawdown[0], 0.5, 1e-12);  // the start (1) counts as a peak
  EXPECT_NEAR(c2.drawdown[1], 0.4, 1e-12);
  EXPECT_THROW(equity_curve(h, 0, returns), std::invalid_argument);
  EXPECT_THROW(equity_curve(h, 2, returns), std::invalid_argument);

  const std::string csv = equity_csv(c);
  EXPECT_EQ(csv.rfind("timestamp,oos_equity,buy_hold,drawdown\n", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
}

TEST(ReportData, WalkEquityAgreesWithTheEngineMetrics) {
  WalkFixture fx;
  const WalkReport r = fx.run();
  const EquityCurve c =
      equity_curve(r.history, r.result.folds.front().oos_first, r.result.oos_returns);
  ASSERT_EQ(c.size(), static_cast<size_t>(r.result.oos.bars));
  EXPECT_NEAR(c.equity.back() - 1, r.result.oos.total_return, 1e-9);
  EXPECT_NEAR(*std::max_element(c.drawdown.begin(), c.drawdown.end()), r.result.oos.max_drawdown,
              1e-9);
  const size_t last = r.result.folds.back().oos_last;
  const size_t before = r.result.folds.front().oos_first - 1;
  EXPECT_NEAR(c.buy_hold.back(), r.history.close[last] / r.history.close[before], 1e-9);
}

TEST(ReportData, DownsampleKeepsEndsAndExtremes) {
  Series s = test::random_walk(10'001, 3);
  const HistoryView h = HistoryView::of(s);
  std::vector<double> returns(10'000);
  for (size_t t = 1; t <= returns.size(); ++t) returns[t - 1] = s.close[t] / s.close[t - 1] - 1;
  const EquityCurve c = equity_curve(h, 1, returns);
  const auto keep = downsample_indices(c, kReportMaxChartPoints);
  EXPECT_LE(keep.size(), kReportMaxChartPoints);
  EXPECT_GT(keep.size(), kReportMaxChartPoints / 5);  // one point per bucket at least
  EXPECT_TRUE(std::is_sorted(keep.begin(), keep.end()));
  EXPECT_EQ(std::adjacent_find(keep.begin(), keep.end()), keep.end());
  EXPECT_EQ(keep.front(), 0u);
  EXPECT_EQ(keep.back(), c.size() - 1);
  auto has = [&](size_t i) { return std::binary_search(keep.begin(), keep.end(), i); };
  const auto at = [&](const std::vector<double>& v, bool max) {
    auto it = max ? std::max_element(v.begin(), v.end()) : std::min_element(v.begin(), v.end());
    return static_cast<size_t>(it - v.begin());
  };
  EXPECT_TRUE(has(at(c.equity, true)));
  EXPECT_TRUE(has(at(c.equity, false)));
  EXPECT_TRUE(has(at(c.drawdown, true)));
  EXPECT_EQ(downsample_indices(c, 5).size(), 5u);
  // Short curves are kept whole; the chart document cuts only long ones.
  EXPECT_EQ(downsample_indices(c, 20'000).size(), c.size());
}

// --- Heatmap ------------------------------------------------------------------------------------

TEST(ReportData, HeatmapShapeInvalidCellsAndWinner) {
  WalkFixture fx;
  const WalkReport r = fx.run();
  const auto axes = heatmap_axes(r.spec.grid);
  ASSERT_TRUE(axes);
  EXPECT_EQ(axes->x_name, "fast");
  EXPECT_EQ(axes->y_name, "slow");
  EXPECT_EQ(axes->x_values, (std::vector<std::string>{"3", "6", "9", "12", "15"}));
  EXPECT_EQ(axes->y_values.size(), 4u);

  for (const Fold& f : r.result.folds) {
    SCOPED_TRACE("fold " + std::to_string(f.index));
    const GridObjectives g = evaluate_grid(*fx.backend, fold_request(r, f), f.index, 7);
    EXPECT_EQ(g.ids.size(), f.evaluated);
    // The winner of the objectives is the engine's fold winner.
    ASSERT_EQ(g.winner.has_value(), f.winner.has_value());
    if (f.winner) {
      EXPECT_EQ(*g.winner, f.winner->combo.id);
    }

    const std::optional<uint64_t> winner =
        f.winner ? std::optional<uint64_t>(f.winner->combo.id) : std::nullopt;
    const Json hm = heatmap_fold_json(r.spec.grid, *axes, g, winner);
    ASSERT_EQ(hm["z"].size(), 5u * 4u);
    for (size_t iy = 0; iy < 4; ++iy) {
      for (size_t ix = 0; ix < 5; ++ix) {
        const Json& z = hm["z"][iy * 5 + ix];
        const bool valid = r.spec.grid.fast[ix] < r.spec.grid.slow[iy];
        EXPECT_EQ(z.is_null(), !valid) << ix << "," << iy;
      }
    }
    EXPECT_EQ(hm["fail"].size(), g.ids.size() - g.ranked_count());
    if (f.winner) {
      const size_t cell = hm["winner"].get<size_t>();
      EXPECT_EQ(axes->x_values[cell % 5], std::to_string(f.winner->combo.fast));
      EXPECT_EQ(axes->y_values[cell / 5], std::to_string(f.winner->combo.slow));
      EXPECT_NEAR(hm["z"][cell].get<double>(), f.winner->objective,
                  1e-5 * std::max(1.0, std::fabs(f.winner->objective)));
    } else {
      EXPECT_TRUE(hm["winner"].is_null());
    }
  }
  // In the report: a heatmap per fold (the grid is small), the last fold's histogram.
  std::vector<GridObjectives> land;
  for (const Fold& f : r.result.folds) {
    land.push_back(evaluate_grid(*fx.backend, fold_request(r, f), f.index));
  }
  const Json doc = walk_report_json(r, inputs_for("walk", r.spec, r.rank), land);
  const Json& ls = doc["landscape"];
  EXPECT_TRUE(ls["available"].get<bool>());
  EXPECT_EQ(ls["fold"].get<size_t>(), r.result.folds.back().index);
  EXPECT_EQ(ls["heatmap"]["folds"].size(), r.result.folds.size());
  EXPECT_EQ(ls["heatmap"]["x"]["name"], "fast");
}

TEST(ReportData, HeatmapAxesAreTheTwoVaryingOnes) {
  Grid g = report_ma_grid();
  g.ma = {MaType::ema};  // a third axis with one value does not count
  EXPECT_TRUE(heatmap_axes(g));
  EXPECT_TRUE(heatmap_axes(g)->all.empty());
  g.ma = {MaType::sma, MaType::ema};
  // Three: every one, the first two shown first (heatmap_fold_json's cube below).
  ASSERT_TRUE(heatmap_axes(g));
  EXPECT_EQ(heatmap_axes(g)->all, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(heatmap_axes(g)->x_name, "fast");
  EXPECT_EQ(heatmap_axes(g)->y_name, "slow");
  EXPECT_EQ(varying_axes(g), (std::vector<std::string>{"fast", "slow", "ma"}));
  g.ma = {MaType::sma};
  g.fast = {5};
  EXPECT_FALSE(heatmap_axes(g));

  // Axes that are not the first two: n (x) and side (y) of a channel breakout.
  Grid c;
  c.family = Family::channel_breakout;
  c.n = {10, 20, 30};
  c.side = {Side::long_short, Side::long_only};
  const auto a = heatmap_axes(c);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->x_name, "n");
  EXPECT_EQ(a->y_name, "side");
  EXPECT_EQ(a->y_values, (std::vector<std::string>{"long_short", "long_only"}));
  for (uint64_t id = 0; id < c.size(); ++id) {
    const Combo k = c.decode(id);
    const size_t cell = heatmap_cell(c, *a, id);
    EXPECT_EQ(a->x_values[cell % 3], std::to_string(k.n));
    EXPECT_EQ(a->y_values[cell / 3], std::string(to_string(k.side)));
  }
}

TEST(ReportData, HeatmapOfMoreAxesHoldsTheGridAndTheWinnersValues) {
  // fast x slow x side (ma has one value): the cube is the grid by combo id.
  Grid g = report_ma_grid();
  g.side = {Side::long_short, Side::long_only};
  const auto a = heatmap_axes(g);
  ASSERT_TRUE(a);
  ASSERT_EQ(a->all.size(), 3u);
  Series s = test::random_walk(600, 5);
  auto backend = make_backend("cpu_ref");
  SweepRequest req;
  req.history = HistoryView::of(s);
  req.strategy.grid = g;
  req.window = WindowSpec{600, 400, 100};
  const GridObjectives obj = evaluate_grid(*backend, req, 0);
  ASSERT_TRUE(obj.winner);
  const Json hm = heatmap_fold_json(g, *a, obj, obj.winner);
  ASSERT_EQ(hm["z"].size(), g.size());
  for (uint64_t id = 0; id < g.size(); ++id) {
    const Combo c = g.decode(id);
    EXPECT_EQ(hm["z"][id].is_null(), !(c.fast < c.slow)) << id;
  }
  EXPECT_EQ(hm["winner"].get<uint64_t>(), *obj.winner);
  const Combo w = g.decode(*obj.winner);
  const Json& at = hm["winner_at"];
  ASSERT_EQ(at.size(), 3u);
  EXPECT_EQ(g.fast[at[0].get<size_t>()], w.fast);
  EXPECT_EQ(g.slow[at[1].get<size_t>()], w.slow);
  EXPECT_EQ(g.side[at[2].get<size_t>()], w.side);
  EXPECT_TRUE(heatmap_fold_json(g, *a, obj, std::nullopt)["winner_at"].is_null());
  // Two axes keep their shape: no winner_at.
  g.side = {Side::long_short};
  EXPECT_FALSE(
      heatmap_fold_json(g, *heatmap_axes(g), GridObjectives{}, std::nullopt).contains("winner_at"));
}

// --- Histogram ----------------------------------------------------------------------------------

TEST(ReportData, HistogramCountsSumToRankedCombos) {
  Series s = test::random_walk(900, 11);
  const HistoryView h = HistoryView::of(s);
  auto backend = make_backend("cpu_ref");
  Grid grid = report_ma_grid();
  grid.fast = {2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14};
  grid.slow = {12, 16, 20, 25, 30, 40, 50};
  for (Objective obj : {Objective::sharpe, Objective::profit_factor, Objective::calmar}) {
    SCOPED_TRACE(std::string(to_string(obj)));
    SweepRequest req;
    req.history = h;
    req.strategy = spec_of(grid);
    req.window = WindowSpec{h.size(), 400, 150};
    req.rank.objective = obj;
    req.rank.min_trades = 12;  // some combos fail: ranked < valid
    req.rank.max_drawdown = 0.3;
    req.threads = 1;
    const SweepResult sweep = backend->sweep(req);
    const GridObjectives g = evaluate_grid(*backend, req, 0, 16);
    EXPECT_EQ(g.ids.size(), sweep.evaluated);
    EXPECT_EQ(g.ranked_count(), sweep.ranked);
    ASSERT_LT(sweep.ranked, sweep.evaluated);
    ASSERT_GT(sweep.ranked, 10u);
    ASSERT_FALSE(sweep.top.empty());
    EXPECT_EQ(*g.winner, sweep.top.front().combo.id);

    const Histogram hist = objective_histogram(g, obj, g.winner);
    const uint64_t binned = std::accumulate(hist.counts.begin(), hist.counts.end(), uint64_t{0});
    EXPECT_EQ(binned + hist.nonfinite + hist.no_loss, sweep.ranked);
    EXPECT_GE(hist.counts.size(), 5u);
    ASSERT_TRUE(hist.winner_value);
    EXPECT_EQ(*hist.winner_value, sweep.top.front().objective);
    if (*hist.winner_value < kProfitFactorNoLoss) {
      ASSERT_TRUE(hist.winner_bin);
      // The winner is the best binned value: the last bin.
      EXPECT_EQ(*hist.winner_bin, hist.counts.size() - 1);
      EXPECT_EQ(hist.hi, *hist.winner_value);
    }
    // objective.csv: every valid combo, with its ranked flag.
    const std::string csv = objective_csv(grid, g);
    EXPECT_EQ(csv.rfind("id,fast,slow,ma,side,entry,objective,ranked\n", 0), 0u);
    EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), g.ids.size() + 1);
  }
}

TEST(ReportData, HistogramOfEqualValuesIsOneBin) {
  GridObjectives g;
  g.ids = {0, 1, 2, 3};
  g.objective = {0.5, 0.5, 0.5, std::nan("")};
  g.ranked = {1, 1, 0, 1};
  const Histogram hist = objective_histogram(g, Objective::sharpe, 1);
  ASSERT_EQ(hist.counts.size(), 1u);
  EXPECT_EQ(hist.counts[0], 2u);
  EXPECT_EQ(hist.nonfinite, 1u);
  EXPECT_EQ(hist.winner_bin, 0u);
}

// --- Command lines
// --------------------------------------------------------------------------------

TEST(ReportData, EquivalentCommandReproducesTheSetup) {
  Grid g = report_ma_grid();
  g.ma = {MaType::sma, MaType::hma};
  g.vol_short = {5, 10};
  g.vol_long = {20};
  g.vol_threshold = {0.6, 0.8, 1.25};
  StrategySpec spec = spec_of(g);
  spec.costs.slippage_bps = 0.5;
  spec.fill = Fill::next_open;
  spec.bars_per_year = 252 * 390;
  RankSpec rank;
  rank.objective = Objective::calmar;
  rank.min_trades = 4;
  rank.max_drawdown = 0.35;
  rank.min_exposure = 0.1;
  rank.top = 3;
  RunInputs in = inputs_for("walk", spec, rank);
  in.setup.threads = 2;
  WalkSpec walk{500, 100, WalkMode::anchored, 90};
  const std::string cmd = equivalent_command(in, &walk, nullptr);
  EXPECT_NE(cmd.find("--fast 3:15:3 "), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("--report 'out/report dir'"), std::string::npos) << cmd;

  // Parse it back (dropping "wfo walk" and unquoting the one quoted word).
  std::vector<std::string> words;
  std::string w;
  bool quoted = false;
  for (char c : cmd) {
    if (c == '\'') {
      quoted = !quoted;
    } else if (c == ' ' && !quoted) {
      words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  words.push_back(w);
  ASSERT_GE(words.size(), 2u);
  EXPECT_EQ(words[0], "wfo");
  EXPECT_EQ(words[1], "walk");
  std::vector<std::string_view> args(words.begin() + 2, words.end());
  auto flags = std::vector<FlagSpec>(strategy_flags().begin(), strategy_flags().end());
  for (const char* f : {"is", "oos", "mode"}) flags.push_back(FlagSpec{f});
  const ParsedArgs parsed = parse_args(args, flags);
  const StrategySetup back = strategy_from_flags(parsed);
  EXPECT_EQ(back.spec.grid.fast, g.fast);
  EXPECT_EQ(back.spec.grid.slow, g.slow);
  EXPECT_EQ(back.spec.grid.ma, g.ma);
  EXPECT_EQ(back.spec.grid.vol_short, g.vol_short);
  EXPECT_EQ(back.spec.grid.vol_threshold, g.vol_threshold);
  EXPECT_EQ(back.spec.fill, spec.fill);
  EXPECT_EQ(back.spec.costs.commission_bps, spec.costs.commission_bps);
  EXPECT_EQ(back.spec.costs.slippage_bps, spec.costs.slippage_bps);
  EXPECT_EQ(back.spec.bars_per_year, spec.bars_per_year);
  EXPECT_EQ(back.rank.objective, rank.objective);
  EXPECT_EQ(back.rank.min_trades, rank.min_trades);
  EXPECT_EQ(back.rank.max_drawdown, rank.max_drawdown);
  EXPECT_EQ(back.rank.min_exposure, rank.min_exposure);
  EXPECT_EQ(back.rank.top, rank.top);
  EXPECT_EQ(back.warmup, walk.warmup);
  EXPECT_EQ(back.threads, 2);
  EXPECT_EQ(parsed.text("is"), "500");
  EXPECT_EQ(parsed.text("mode"), "anchored");
  EXPECT_EQ(parsed.text("report"), "out/report dir");

  EXPECT_EQ(axis_text(std::vector<int>{5, 10, 20}), "5,10,20");
  EXPECT_EQ(axis_text(std::vector<int>{7}), "7");
  EXPECT_EQ(shell_join({"a b", "it's", "x"}), "'a b' 'it'\\''s' x");
}

// --- JSON inside <script> ----------------------------------------------------------------------

TEST(ReportData, ScriptSafeJsonEscapesClosingTags) {
  Json doc = Json::object();
  doc["kind"] = "walk";
  doc["path"] = "evil</script><script>alert(1)</script>.csv";
  doc["comment"] = "<!-- not a comment --> & </SCRIPT >";
  Json inputs = Json::object();
  Json data = Json::object();
  data["path"] = "dir/a<b>&c.csv";
  inputs["data"] = data;
  doc["inputs"] = inputs;
  const std::string safe = script_safe_json(doc);
  EXPECT_EQ(safe.find('<'), std::string::npos);
  EXPECT_EQ(Json::parse(safe), doc);

  // The page holds exactly the template's own </script> tags, whatever the data says.
  const std::string page = render_html(doc);
  auto count = [&](std::string_view needle) {
    size_t n = 0;
    for (size_t at = page.find(needle); at != std::string::npos; at = page.find(needle, at + 1)) {
      ++n;
    }
    return n;
  };
  EXPECT_EQ(count("</script>"), 2u);
  EXPECT_EQ(count("__WFO_REPORT_DATA__"), 0u);
  EXPECT_NE(page.find("<title>wfo walk report - a&lt;b&gt;&amp;c.csv</title>"), std::string::npos);
}

// --- Robust selection in the document ---------------------------------------------------------

TEST(ReportData, SelectionSettingsAreTheSpec) {
  selection::SelectionSpec spec;
  spec.hysteresis_abs = 0.05;
  spec.hysteresis_rel = 0.25;
  spec.plateau = true;
  spec.plateau_radius = 2;
  spec.plateau_radius_axes = {{"fast", 3}, {"ma", 1}};
  spec.plateau_stat = selection::parse_plateau_stat("q25");
  spec.min_dsr = 0.9;
  spec.pbo_blocks = 10;
  spec.pbo_max_combos = 5000;
  const Json j = selection_settings_json(spec);
  EXPECT_EQ(j["hysteresis_abs"].get<double>(), 0.05);
  EXPECT_EQ(j["hysteresis_rel"].get<double>(), 0.25);
  EXPECT_EQ(j["plateau"], true);
  EXPECT_EQ(j["plateau_radius"], 2);
  EXPECT_EQ(j["plateau_radius_axes"], Json::parse(R"({"fast": 3, "ma": 1})"));
  EXPECT_EQ(j["plateau_stat"], "q25");
  EXPECT_EQ(j["min_dsr"].get<double>(), 0.9);
  EXPECT_EQ(j["pbo_blocks"], 10);
  EXPECT_EQ(j["pbo_max_combos"], 5000);
  EXPECT_TRUE(selection_settings_json(selection::SelectionSpec{})["min_dsr"].is_null());
}

// A walk's selection array (one object per fold) lands in the document with the settings;
// without one the document has neither, so the page draws none of the selection sections.
TEST(ReportData, SelectionIsAttachedOnlyWhenGiven) {
  WalkFixture fx;
  const WalkReport r = fx.run();
  RunInputs in = inputs_for("walk", r.spec, r.rank);
  in.setup.selection.min_dsr = 0.5;
  const Json base = walk_report_json(r, in, {});

  Json without = base;
  attach_selection(without, nullptr, in.setup.selection);
  EXPECT_EQ(without, base);
  EXPECT_FALSE(without.contains("selection"));
  EXPECT_FALSE(without["inputs"].contains("selection"));

  // Text from the run (reasons, skip notes) stays data: the page escapes it when drawing,
  // and the embedded block cannot close its <script>.
  Json sel = Json::array();
  for (size_t i = 0; i < r.result.folds.size(); ++i) {
    sel.push_back({{"reason", i ? "held" : "first"},
                   {"changed", i == 0},
                   {"pbo", nullptr},
                   {"pbo_skipped", "</script><b>x</b> & more"}});
  }
  Json with = base;
  attach_selection(with, &sel, in.setup.selection);
  EXPECT_EQ(with["selection"], sel);
  EXPECT_EQ(with["inputs"]["selection"], selection_settings_json(in.setup.selection));
  EXPECT_EQ(with["inputs"]["selection"]["min_dsr"].get<double>(), 0.5);
  const std::string page = render_html(chart_json(with));
  EXPECT_EQ(page.find("</script><b>"), std::string::npos);
  const size_t data_at = page.find("<script id=\"report-data\" type=\"application/json\">");
  ASSERT_NE(data_at, std::string::npos);
  const size_t data_from = page.find('>', data_at) + 1;
  const Json embedded =
      Json::parse(page.substr(data_from, page.find("</script>", data_from) - data_from));
  EXPECT_EQ(embedded["selection"], sel);
}

}  // namespace
}  // namespace wfod::cli
