// The metrics of one evaluation window (SPEC §6) and the run-wide settings they need.
#pragma once

#include <cstdint>
#include <string_view>

namespace wfod {

struct Metrics {
  double total_return = 0, cagr = 0, sharpe = 0, sortino = 0, max_drawdown = 0, calmar = 0;
  double win_rate = 0, profit_factor = 0, exposure = 0;
  int64_t trades = 0, wins = 0, long_bars = 0, short_bars = 0, flat_bars = 0, changes = 0;
  int64_t bars = 0;  // n = W, the number of strategy returns
};

// Every metric name in SPEC order, for JSON/table output and tests.
inline constexpr std::string_view kMetricNames[] = {
    "total_return", "cagr",      "sharpe",     "sortino",   "max_drawdown",
    "calmar",       "trades",    "wins",       "win_rate",  "profit_factor",
    "exposure",     "long_bars", "short_bars", "flat_bars", "changes"};

// Whether a metric is a count (trades, wins, bar and change counts): written as an integer
// in every table, JSON document and publication.
inline constexpr bool is_integer_metric(std::string_view name) {
  return name == "trades" || name == "wins" || name == "long_bars" || name == "short_bars" ||
         name == "flat_bars" || name == "changes";
}

// Value of a metric by its SPEC name (integers converted to double); throws on unknown name.
double metric_value(const Metrics&, std::string_view name);

// profit_factor when some trade wins and none loses, and its cap (SPEC v1.2 §6).
inline constexpr double kProfitFactorNoLoss = 1e9;

// A trade's dead band (SPEC v1.2 §6): it wins if its return r > kTradeBand * Σ|v| and loses if
// r < -kTradeBand * Σ|v| (r and Σ|v| over its in-window segment values); otherwise it is flat.
inline constexpr double kTradeBand = 1e-12;

// Costs and annualisation shared by every combo of a run.
struct Costs {
  double commission_bps = 0;
  double slippage_bps = 0;
  double per_unit() const { return (commission_bps + slippage_bps) / 1e4; }
};

}  // namespace wfod
