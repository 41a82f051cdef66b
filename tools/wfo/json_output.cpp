// JSON documents of `wfo sweep --json` and `wfo walk --json` (shapes in the --help texts):
// every SPEC §6 metric by name, integers as JSON integers, non-finite floats as null.

#include "json_output.hpp"

#include <cmath>
#include <string_view>

#include "params.hpp"
#include "walk_efficiency.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/grid_params.hpp"

namespace wfod::cli {

namespace {

// {"first", "last", "first_ts", "last_ts"} of bars [first, last], plus metrics when given.
Json span_json(const HistoryView& h, size_t first, size_t last) {
  Json j = Json::object();
  j["first"] = first;
  j["last"] = last;
  j["first_ts"] = feeds::format_timestamp(h.ts_ns[first]);
  j["last_ts"] = feeds::format_timestamp(h.ts_ns[last]);
  return j;
}

// SPEC §6's A and where it came from (data_facts.hpp), beside the run's results.
void annualisation_json(Json& j, double bars_per_year, const DataFacts* data) {
  j["bars_per_year"] = real(bars_per_year);
  if (data) j["bars_per_year_source"] = data->bars_per_year_source;
}

}  // namespace

Json gaps_json(const DataFacts& f) {
  Json list = Json::array();
  for (const DataGap& g : f.gaps) {
    Json e = Json::object();
    e["after_bar"] = g.before;
    e["from"] = feeds::format_timestamp(g.from_ns);
    e["to"] = feeds::format_timestamp(g.to_ns);
    e["seconds"] = real(static_cast<double>(g.length_ns()) / 1e9);
    e["hole"] = g.hole;
    list.push_back(std::move(e));
  }
  Json j = Json::object();
  j["median_interval_seconds"] =
      f.median_interval_ns ? real(static_cast<double>(*f.median_interval_ns) / 1e9) : Json(nullptr);
  j["listed_over_median_x"] = kGapMedianMultiple;
  j["hole_over_seconds"] = kHoleMinNs / 1'000'000'000;
  j["holes"] = f.holes();
  j["list"] = std::move(list);
  return j;
}

Json sweep_json(const SweepReport& r) {
  Json j = Json::object();
  j["evaluated"] = r.result.evaluated;
  j["skipped"] = r.result.skipped;
  j["ranked"] = r.result.ranked;
  if (const auto& u = r.result.unranked_by) {
    // Valid combos left unranked, by the SPEC §7 constraint they fail (several count twice).
    j["unranked_by"] = {{"min_trades", u->min_trades},
                        {"max_drawdown", u->max_drawdown},
                        {"min_exposure", u->min_exposure}};
  }
  j["seconds"] = real(r.result.seconds);
  j["backend"] = r.result.backend;
  j["precision"] = std::string(to_string(r.result.precision));
  if (const auto& fp = r.result.fast_parity) {
    // SPEC §9 fast-mode report against exact decisions on the same run.
    Json p = Json::object();
    p["combos"] = fp->combos;
    p["differing_fraction"] = real(fp->differing_fraction());
    p["max_trade_diff"] = fp->max_trade_diff;
    p["shifted_trades"] = fp->shifted_trades;
    p["total_trades"] = fp->total_trades;
    p["shifted_fraction"] = real(fp->shifted_fraction());
    p["max_objective_diff"] = real(fp->max_objective_diff);
    j["fast_parity"] = std::move(p);
  }
  Json w = Json::object();
  w["bars"] = r.window.bars;
  Json span = span_json(r.history, r.window.first(), r.window.end - 1);
  w["first_ts"] = span["first_ts"];
  w["last_ts"] = span["last_ts"];
  w["first"] = span["first"];
  w["last"] = span["last"];
  j["window"] = std::move(w);
  annualisation_json(j, r.spec.bars_per_year, r.data);
  if (r.data) j["gaps"] = gaps_json(*r.data);
  Json top = Json::array();
  for (const Ranked& k : r.result.top) {
    Json e = Json::object();
    e["id"] = k.combo.id;
    e["params"] = params_json(k.combo);
    e["metrics"] = metrics_json(k.metrics);
    top.push_back(std::move(e));
  }
  j["top"] = std::move(top);
  return j;
}

Json walk_json(const WalkReport& r) {
  Json j = Json::object();
  Json folds = Json::array();
  for (const Fold& f : r.result.folds) {
    Json e = Json::object();
    e["index"] = f.index;
    Json is = span_json(r.history, f.is_first, f.is_last);
    is["metrics"] = metrics_json(f.is);
    e["is"] = std::move(is);
    Json oos = span_json(r.history, f.oos_first, f.oos_last);
    oos["metrics"] = metrics_json(f.oos);
    e["oos"] = std::move(oos);
    if (f.winner) {
      e["id"] = f.winner->combo.id;
      e["params"] = params_json(f.winner->combo);
    } else {
      e["id"] = nullptr;
      e["params"] = nullptr;
    }
    e["evaluated"] = f.evaluated;
    e["skipped"] = f.skipped;
    folds.push_back(std::move(e));
  }
  j["folds"] = std::move(folds);
  annualisation_json(j, r.spec.bars_per_year, r.data);
  if (r.data) j["gaps"] = gaps_json(*r.data);
  j["oos"] = metrics_json(r.result.oos);
  j["wfe"] = real(r.result.wfe);  // SPEC §8: the mean of the folds' ratios
  const std::optional<double> aggregate = aggregate_wfe(r.result, r.spec.bars_per_year);
  j["wfe_aggregate"] = aggregate ? real(*aggregate) : Json(nullptr);
  j["seconds"] = real(r.result.seconds);
  j["backend"] = r.backend;
  return j;
}

}  // namespace wfod::cli
