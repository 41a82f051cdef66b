// Data of the `--report DIR` HTML report of `wfo walk` and `wfo sweep`: the JSON document
// the page embeds (and report.json), and the CSV tables beside it. Pure functions of a
// finished run, except evaluate_grid() and window_returns(), which ask the engine.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "json_output.hpp"
#include "report.hpp"
#include "strategy_from_flags.hpp"

namespace wfod::cli {

// Above this many valid combos per window the report carries no heatmap or histogram data
// (one objective per combo would make the page too big to open).
inline constexpr uint64_t kReportMaxCombos = 2'000'000;
// Combos per Backend::evaluate() call.
inline constexpr size_t kReportEvaluateBatch = 65'536;
// Points of the equity chart in report.html (report.json and equity.csv keep every bar).
inline constexpr size_t kReportMaxChartPoints = 4'000;

// The objective of every valid combo of one window: a fold's IS window, or the sweep's.
struct GridObjectives {
  size_t fold = 0;                 // fold index (0 for a sweep)
  size_t first = 0, last = 0;      // the window's bars, inclusive
  std::vector<uint64_t> ids;       // valid combo ids, ascending
  std::vector<double> objective;   // objective_value(metrics, objective), one per id
  std::vector<uint8_t> ranked;     // 1 when the combo passes the constraints (SPEC §7)
  std::optional<uint64_t> winner;  // the best ranked combo (higher objective, lower id)
  uint64_t ranked_count() const;
};

// Every valid combo of the request's grid over its window, in batches of `batch` ids through
// Backend::evaluate(); progress (optional) gets the fraction done.
GridObjectives evaluate_grid(Backend&, const SweepRequest&, size_t fold = 0,
                             size_t batch = kReportEvaluateBatch,
                             const std::function<void(double)>& progress = {});

// Strategy returns s_t of one combo over bars [first, last] (SPEC §2), for a sweep's
// winner: positions from the backend, segments as the engine computes them.
std::vector<double> window_returns(Backend&, const HistoryView&, const StrategySpec&, const Combo&,
                                   size_t first, size_t last);

// Equity of a strategy over consecutive bars starting at `first_bar` against buy-and-hold:
// equity_t = prod (1 + s_u), buy_hold_t = prod c_u / c_{u-1} (u from first_bar to t),
// drawdown_t = 1 - equity_t / max(1, equity_u for u <= t). One entry per return.
struct EquityCurve {
  size_t first_bar = 0;
  std::vector<int64_t> ts_ns;
  std::vector<double> equity, buy_hold, drawdown;
  size_t size() const { return equity.size(); }
};
EquityCurve equity_curve(const HistoryView&, size_t first_bar, std::span<const double> returns);

// At most max_points indices of the curve for drawing (first and last always kept; per
// bucket the extremes of equity, buy-and-hold and drawdown), ascending.
std::vector<size_t> downsample_indices(const EquityCurve&, size_t max_points);

// Histogram of the objective over the ranked combos. Non-finite objectives and, for
// profit_factor, the no-losing-trade value 1e9 are counted apart so that they do not
// stretch the bins: sum(counts) + nonfinite + no_loss == ranked combos.
struct Histogram {
  double lo = 0, hi = 0;  // the bins cover [lo, hi], bins of equal width
  std::vector<uint64_t> counts;
  uint64_t nonfinite = 0, no_loss = 0;
  std::optional<size_t> winner_bin;
  std::optional<double> winner_value;
};
Histogram objective_histogram(const GridObjectives&, Objective, std::optional<uint64_t> winner);

// The axes a heatmap spans: two or more grid axes with more than one value. x is the
// first in canonical order (it varies faster in combo ids), y the second: the heatmap of
// exactly two, and the pair shown first of more.
struct HeatmapAxes {
  size_t x = 0, y = 0;  // indices into Grid::axes()
  std::string x_name, y_name;
  std::vector<std::string> x_values, y_values;  // value texts, in axis order
  // More than two varying axes: all of them (indices into Grid::axes(), canonical order).
  // The heatmap then holds the whole grid, cell = combo id, and the page draws any pair
  // with the other axes held at the fold winner's values. Empty for exactly two.
  std::vector<size_t> all;
};
std::optional<HeatmapAxes> heatmap_axes(const Grid&);
// The names of the axes with more than one value, canonical order.
std::vector<std::string> varying_axes(const Grid&);

// One fold's heatmap: "z" row-major by y then x (cell = iy * nx + ix), the objective or
// null for an invalid combo; "fail" the cells of valid combos failing the constraints;
// "winner" the fold winner's cell (null if none). With more than two axes the cells are the
// grid's combo ids (the same order: x fastest) and "winner_at" gives the winner's value
// index on each varying axis (the values the page holds the other axes at), or null.
Json heatmap_fold_json(const Grid&, const HeatmapAxes&, const GridObjectives&,
                       std::optional<uint64_t> winner);
// The grid cell of a combo id on the heatmap axes.
size_t heatmap_cell(const Grid&, const HeatmapAxes&, uint64_t id);

// How the run was started, for the report's inputs and the equivalent command line.
struct RunInputs {
  std::string command;            // "walk" or "sweep"
  std::vector<std::string> args;  // the arguments after the command name, as given
  StrategySetup setup;            // settings after flags and config
  std::string report_dir;
  std::string generated_utc;  // when the report was written, "YYYY-MM-DDTHH:MM:SSZ"
  size_t csv_bytes = 0;
  std::string csv_absolute;
};

// Shell words, quoted where needed: "wfo walk --csv 'my data.csv' ...".
std::string shell_join(const std::vector<std::string>& words);
// The command line as given ("wfo walk ..."), and an equivalent one with every setting
// explicit (no --config), which reproduces the report.
std::string command_as_run(const RunInputs&);
std::string equivalent_command(const RunInputs&, const WalkSpec* walk, const WindowSpec* window);
// An axis as the shortest flag text: "5:50:5" for an arithmetic int run, else "a,b,c".
std::string axis_text(std::span<const int> values);

// The per-fold rows: walk_json's fold objects (same ids, params, metrics) plus
// "is_objective", "oos_objective" and "wfe" (OOS cagr / IS cagr; null unless IS cagr > 0).
Json fold_rows_json(const WalkReport&);

// The whole report document (report.json). `landscape` holds the fold windows evaluated
// for the heatmap/histogram (the last fold last; empty when over the cap).
Json walk_report_json(const WalkReport&, const RunInputs&,
                      std::span<const GridObjectives> landscape);
Json sweep_report_json(const SweepReport&, const RunInputs&, const std::optional<GridObjectives>&,
                       std::span<const double> winner_returns);
// The document for report.html: the equity series cut to kReportMaxChartPoints.
Json chart_json(const Json& report);

// CSV files beside the report.
std::string folds_csv(const WalkReport&);
std::string top_csv(const SweepReport&);
// equity.csv: timestamp,<equity_column>,buy_hold,drawdown, one row per bar.
std::string equity_csv(const EquityCurve&, std::string_view equity_column = "oos_equity");
std::string objective_csv(const Grid&, const GridObjectives&);

// JSON text safe inside an HTML <script> element: every '<' written as \u003c, so neither
// "</script>" nor "<!--" can occur; JSON.parse gives back the same document.
std::string script_safe_json(const Json&);

}  // namespace wfod::cli
