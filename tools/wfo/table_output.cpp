// Human-readable reports of `wfo sweep` and `wfo walk`: a header with counts and time, an
// aligned table (top-K combos, or one row per fold) and, for walks, the OOS summary.

#include "table_output.hpp"

#include <cstdio>
#include <string_view>

#include "params.hpp"
#include "text_table.hpp"
#include "walk_efficiency.hpp"

namespace wfod::cli {

namespace {

using Align = TextTable::Align;

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

std::string profit_factor_text(double pf) {
  return pf >= kProfitFactorNoLoss ? "no_loss" : fixed(pf, 3);
}

std::string constraints_text(const RankSpec& r) {
  std::string s = "min_trades " + std::to_string(r.min_trades) + ", max_drawdown " +
                  format("%g", r.max_drawdown);
  if (r.min_exposure) s += ", min_exposure " + format("%g", *r.min_exposure);
  return s;
}

std::string strategy_text(const std::string& csv_path, const std::string& strategy_name,
                          const StrategySpec& spec) {
  std::string s = csv_path;
  if (!strategy_name.empty()) s += " (strategy " + strategy_name + ")";
  s += ": " + std::string(to_string(spec.grid.family)) + ", fill " +
       std::string(to_string(spec.fill)) +
       format(", cost %g+%g bps, %g bars/year", spec.costs.commission_bps, spec.costs.slippage_bps,
              spec.bars_per_year);
  return s;
}

// Which constraint left the valid combos unranked, where the backend counted it:
// ": of 77 valid combos, 77 have fewer than 5 trades (min_trades), 3 exceed ...".
std::string unranked_text(const SweepResult& res, const RankSpec& r) {
  if (!res.unranked_by || res.ranked > 0) return "";
  const ConstraintTally& u = *res.unranked_by;
  std::string parts;
  auto add = [&parts](uint64_t n, const std::string& what) {
    if (n == 0) return;
    parts += (parts.empty() ? "" : ", ") + grouped(n) + " " + what;
  };
  add(u.min_trades, "have fewer than " + std::to_string(r.min_trades) + " trades (min_trades)");
  add(u.max_drawdown, "exceed max_drawdown " + format("%g", r.max_drawdown));
  if (r.min_exposure)
    add(u.min_exposure, "are below min_exposure " + format("%g", *r.min_exposure));
  if (parts.empty()) return "";
  return ": of " + grouped(res.evaluated) + " valid combo" + (res.evaluated == 1 ? "" : "s") +
         ", " + parts;
}

// Metric columns of the top-K table after the objective.
void add_metric_columns(TextTable& t) {
  for (const char* name : {"trades", "win_rate", "profit_factor", "max_drawdown", "total_return",
                           "cagr", "sharpe", "exposure"}) {
    t.add_column(name);
  }
}

void add_metric_cells(std::vector<std::string>& row, const Metrics& m) {
  row.push_back(std::to_string(m.trades));
  row.push_back(fixed(m.win_rate, 3));
  row.push_back(profit_factor_text(m.profit_factor));
  row.push_back(fixed(m.max_drawdown, 4));
  row.push_back(fixed(m.total_return, 4));
  row.push_back(fixed(m.cagr, 4));
  row.push_back(fixed(m.sharpe, 3));
  row.push_back(fixed(m.exposure, 3));
}

}  // namespace

std::string sweep_table(const SweepReport& r) {
  const SweepResult& res = r.result;
  std::string out = strategy_text(r.csv_path, r.strategy_name, r.spec) + "\n";
  out += format("window %zu bars [%s .. %s] (bars %zu..%zu of %zu), warmup %zu\n", r.window.bars,
                short_ts(r.history.ts_ns[r.window.first()]).c_str(),
                short_ts(r.history.ts_ns[r.window.end - 1]).c_str(), r.window.first(),
                r.window.end - 1, r.history.size(), r.window.warmup);
  const uint64_t combos = res.evaluated + res.skipped;
  out += grouped(combos) + (combos == 1 ? " combo: " : " combos: ") + grouped(res.evaluated) +
         " evaluated, " + grouped(res.skipped) + " skipped, " + grouped(res.ranked) + " ranked (" +
         constraints_text(r.rank) + ")" +
         format("; sweep %.3f s on %s\n\n", res.seconds, res.backend.c_str());
  if (const auto& fp = res.fast_parity) {
    // SPEC §9: fast mode reports its drift from exact decisions (shifted trades <= 0.1%).
    out += format(
        "precision fast vs exact on %s combos: %.4f%% differ in trades, max |dtrades| %lld, "
        "shifted %llu of %llu trades (%.4f%%%s), max |dobjective| %.3g\n\n",
        grouped(fp->combos).c_str(), 100.0 * fp->differing_fraction(),
        static_cast<long long>(fp->max_trade_diff),
        static_cast<unsigned long long>(fp->shifted_trades),
        static_cast<unsigned long long>(fp->total_trades), 100.0 * fp->shifted_fraction(),
        fp->shifted_fraction() <= 0.001 ? ", within the 0.1% bound" : ", ABOVE the 0.1% bound",
        fp->max_objective_diff);
  } else if (res.precision != r.precision_requested) {
    out += format("precision %s requested; backend %s computes exact\n\n",
                  std::string(to_string(r.precision_requested)).c_str(), res.backend.c_str());
  }
  if (res.evaluated == 0) return out + "no valid combo in the grid\n";
  if (res.top.empty())
    return out + "no combo passed the constraints" + unranked_text(res, r.rank) + "\n";
  TextTable t;
  t.add_column("rank");
  t.add_column("id");
  auto names = param_names(r.spec.grid);
  for (auto n : names) t.add_column(std::string(n), Align::left);
  t.add_column(std::string(to_string(r.rank.objective)) + "*");
  add_metric_columns(t);
  for (size_t i = 0; i < res.top.size(); ++i) {
    const Ranked& k = res.top[i];
    std::vector<std::string> row{std::to_string(i + 1), std::to_string(k.combo.id)};
    for (auto n : names) row.push_back(param_text(k.combo, n));
    row.push_back(fixed(k.objective, 4));
    add_metric_cells(row, k.metrics);
    t.add_row(std::move(row));
  }
  return out + t.render() + "* objective (maximised)\n";
}

std::string walk_table(const WalkReport& r) {
  const WalkResult& res = r.result;
  std::string out = strategy_text(r.csv_path, r.strategy_name, r.spec) + "\n";
  out += format(
      "walk-forward %s: IS %zu bars, OOS %zu bars, warmup %zu, %zu folds; objective "
      "%s (%s)\n\n",
      std::string(to_string(r.walk.mode)).c_str(), r.walk.is_bars, r.walk.oos_bars, r.walk.warmup,
      res.folds.size(), std::string(to_string(r.rank.objective)).c_str(),
      constraints_text(r.rank).c_str());
  TextTable t;
  t.add_column("fold");
  t.add_column("in-sample", Align::left);
  t.add_column("out-of-sample", Align::left);
  t.add_column("id");
  auto names = param_names(r.spec.grid);
  for (auto n : names) t.add_column(std::string(n), Align::left);
  t.add_column("is_" + std::string(to_string(r.rank.objective)));
  t.add_column("is_cagr");
  t.add_column("oos_return");
  t.add_column("oos_sharpe");
  t.add_column("oos_max_dd");
  t.add_column("oos_trades");
  for (const Fold& f : res.folds) {
    std::vector<std::string> row{
        std::to_string(f.index),
        short_ts(r.history.ts_ns[f.is_first]) + " .. " + short_ts(r.history.ts_ns[f.is_last]),
        short_ts(r.history.ts_ns[f.oos_first]) + " .. " + short_ts(r.history.ts_ns[f.oos_last])};
    if (f.winner) {
      row.push_back(std::to_string(f.winner->combo.id));
      for (auto n : names) row.push_back(param_text(f.winner->combo, n));
      row.push_back(fixed(f.winner->objective, 4));
      row.push_back(fixed(f.is.cagr, 4));
    } else {
      row.push_back("-");
      for (size_t i = 0; i < names.size(); ++i) row.push_back(i == 0 ? "(flat)" : "");
      row.push_back("-");
      row.push_back("-");
    }
    row.push_back(fixed(f.oos.total_return, 4));
    row.push_back(fixed(f.oos.sharpe, 3));
    row.push_back(fixed(f.oos.max_drawdown, 4));
    row.push_back(std::to_string(f.oos.trades));
    t.add_row(std::move(row));
  }
  out += t.render();
  const Metrics& m = res.oos;
  out += format("\nOut of sample, %lld bars", static_cast<long long>(m.bars));
  if (!res.folds.empty()) {
    out += " [" + short_ts(r.history.ts_ns[res.folds.front().oos_first]) + " .. " +
           short_ts(r.history.ts_ns[res.folds.back().oos_last]) + "]";
  }
  out += ":\n";
  TextTable s;
  s.add_column("metric", Align::left);
  s.add_column("value");
  s.add_row({"total_return", fixed(m.total_return, 4)});
  s.add_row({"cagr", fixed(m.cagr, 4)});
  s.add_row({"sharpe", fixed(m.sharpe, 3)});
  s.add_row({"sortino", fixed(m.sortino, 3)});
  s.add_row({"max_drawdown", fixed(m.max_drawdown, 4)});
  s.add_row({"trades", std::to_string(m.trades)});
  s.add_row({"win_rate", fixed(m.win_rate, 3)});
  s.add_row({"exposure", fixed(m.exposure, 3)});
  s.add_row({"WFE, mean of fold ratios", fixed(res.wfe, 3)});
  const std::optional<double> aggregate = aggregate_wfe(res, r.spec.bars_per_year);
  s.add_row({"WFE, aggregate", aggregate ? fixed(*aggregate, 3) : "n/a (pooled IS cagr <= 0)"});
  out += s.render();
  out += format("walk %.3f s on %s\n", res.seconds, r.backend.c_str());
  return out;
}

}  // namespace wfod::cli
