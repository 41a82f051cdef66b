// The documents of a universe run and their assembly (universe_result.hpp), with the
// equal-weight portfolio of the symbols' stitched out-of-sample returns (spec-notes 60).

#include "universe_result.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "args.hpp"
#include "json_output.hpp"
#include "text_table.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/summary.hpp"

namespace wfod::cli {

namespace {

using Align = TextTable::Align;

// A symbol's row of the table, read from its walk document and series, so that a merged run
// and a one-host run derive it from the same numbers.
Json summary_of(const Json& walk, const Json& series) {
  const Json& folds = walk.at("folds");
  const Json& oos = walk.at("oos");
  Json s = Json::object();
  s["folds"] = folds.size();
  s["oos_bars"] = series.at("s").size();
  s["oos_first_ts"] = folds.empty() ? Json(nullptr) : folds.front().at("oos").at("first_ts");
  s["oos_last_ts"] = folds.empty() ? Json(nullptr) : folds.back().at("oos").at("last_ts");
  s["bars_per_year"] = walk.at("bars_per_year");
  s["oos_total_return"] = oos.at("total_return");
  s["oos_cagr"] = oos.at("cagr");
  s["oos_sharpe"] = oos.at("sharpe");
  s["oos_max_drawdown"] = oos.at("max_drawdown");
  s["oos_trades"] = oos.at("trades");
  s["wfe"] = walk.at("wfe");
  s["wfe_aggregate"] = walk.at("wfe_aggregate");
  // PBO of the last fold's selection: the one that published the winner now traded; null
  // with --no-selection or where PBO did not apply to that fold.
  Json pbo = nullptr;
  if (!folds.empty()) {
    const Json& last = folds.back();
    if (last.contains("selection") && last["selection"].contains("pbo") &&
        last["selection"]["pbo"].is_object())
      pbo = last["selection"]["pbo"].value("pbo", Json(nullptr));
  }
  s["pbo"] = pbo;
  Json winner = nullptr;
  if (!folds.empty() && !folds.back().at("id").is_null())
    winner = Json{{"id", folds.back()["id"]}, {"params", folds.back()["params"]}};
  s["last_winner"] = winner;
  return s;
}

// SPEC §6's return metrics of a series, by the engine's own code (SequentialMetrics): the
// portfolio is a weighting of returns, so the trade metrics (trades, wins, exposure, bar
// counts) do not apply to it.
Json return_metrics(const std::vector<double>& returns, double bars_per_year) {
  SequentialMetrics m;
  for (const double r : returns) m.add(BarSegments{1, 1, 0.0, r});
  const Metrics out = m.finish(bars_per_year);
  Json j = Json::object();
  j["total_return"] = real(out.total_return);
  j["cagr"] = real(out.cagr);
  j["sharpe"] = real(out.sharpe);
  j["sortino"] = real(out.sortino);
  j["max_drawdown"] = real(out.max_drawdown);
  j["calmar"] = real(out.calmar);
  return j;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The equal-weight portfolio's returns (spec-notes 60): at each timestamp of any symbol's
// OOS series, the mean return of the symbols with a bar then, summed in symbol order; beside
// it the same of each symbol's close-to-close return from its first OOS bar (buy and hold).
struct PortfolioReturns {
  std::vector<int64_t> ts;
  std::vector<double> s, bh;
};

PortfolioReturns portfolio_returns(const std::vector<const Json*>& results) {
  struct Sum {
    double s = 0, bh = 0;
    size_t n = 0;
  };
  std::map<int64_t, Sum> by_ts;
  for (const Json* r : results) {  // symbol order
    const Json& series = r->at("series");
    const Json& ts = series.at("ts_ns");
    const Json& s = series.at("s");
    const Json& bh = series.at("buy_hold");
    for (size_t i = 0; i < ts.size(); ++i) {
      Sum& at = by_ts[ts[i].get<int64_t>()];
      at.s += s[i].get<double>();
      at.bh += bh[i].get<double>();
      ++at.n;
    }
  }
  PortfolioReturns out;
  for (const auto& [ts, at] : by_ts) {
    out.ts.push_back(ts);
    out.s.push_back(at.s / static_cast<double>(at.n));
    out.bh.push_back(at.bh / static_cast<double>(at.n));
  }
  return out;
}

Json portfolio_of(const std::vector<const Json*>& results, const Json& flag_bars_per_year) {
  if (results.empty()) return nullptr;
  std::vector<double> symbol_a;
  for (const Json* r : results) {
    const Json& a = r->at("walk").at("bars_per_year");
    if (a.is_number()) symbol_a.push_back(a.get<double>());
  }
  const PortfolioReturns returns = portfolio_returns(results);
  const std::vector<double>& s = returns.s;
  const std::vector<double>& bh = returns.bh;
  Json p = Json::object();
  p["weighting"] = "equal: the mean of the symbols with an OOS bar at each timestamp";
  p["symbols"] = results.size();
  p["bars"] = s.size();
  p["first_ts"] = feeds::format_timestamp(returns.ts.front());
  p["last_ts"] = feeds::format_timestamp(returns.ts.back());
  double a = 0;
  if (flag_bars_per_year.is_number()) {
    a = flag_bars_per_year.get<double>();
    p["bars_per_year_source"] = "flag";
  } else {
    a = symbol_a.empty() ? 252.0 : median(symbol_a);
    p["bars_per_year_source"] = "median";
  }
  p["bars_per_year"] = real(a);
  p["strategy"] = return_metrics(s, a);
  p["buy_and_hold"] = return_metrics(bh, a);
  return p;
}

}  // namespace

Json universe_entry(size_t index, const UniverseSymbol& sym, const WalkRun& run,
                    const StrategySetup& setup) {
  Json walk = walk_run_json(run, setup);
  walk.erase("seconds");  // a time, kept under "run"
  const WalkResult& res = run.report.result;
  const HistoryView& h = run.report.history;
  Json ts = Json::array(), s = Json::array(), bh = Json::array();
  if (!res.folds.empty()) {
    const size_t first = res.folds.front().oos_first;
    for (size_t i = 0; i < res.oos_returns.size(); ++i) {
      const size_t t = first + i;
      ts.push_back(h.ts_ns[t]);
      s.push_back(res.oos_returns[i]);
      // first >= warmup + W + 1 >= 1: bar t - 1 exists.
      bh.push_back(h.close[t] / h.close[t - 1] - 1.0);
    }
  }
  Json series = Json::object();
  series["ts_ns"] = std::move(ts);
  series["s"] = std::move(s);
  series["buy_hold"] = std::move(bh);
  Json e = Json::object();
  e["index"] = index;
  e["symbol"] = sym.symbol;
  e["path"] = sym.path;
  e["summary"] = summary_of(walk, series);
  e["walk"] = std::move(walk);
  e["series"] = std::move(series);
  return e;
}

Json skipped_entry(size_t index, const UniverseSymbol& sym, const std::string& error) {
  return Json{{"index", index}, {"symbol", sym.symbol}, {"path", sym.path}, {"error", error}};
}

Json partial_frame(const Universe& u, const Shard& shard, const Json& settings,
                   const std::optional<double>& portfolio_bars_per_year) {
  Json symbols = Json::array();
  for (const UniverseSymbol& s : u.symbols) {
    Json e = Json{{"symbol", s.symbol}, {"path", s.path}};
    e["bars_per_year"] = s.bars_per_year ? Json(*s.bars_per_year) : Json(nullptr);
    symbols.push_back(std::move(e));
  }
  Json j = Json::object();
  j["format"] = kPartialFormat;
  j["version"] = kPartialVersion;
  j["universe"] = Json{{"source", u.source}, {"symbols", std::move(symbols)}};
  j["settings"] = settings;
  j["portfolio_bars_per_year"] =
      portfolio_bars_per_year ? Json(*portfolio_bars_per_year) : Json(nullptr);
  j["shard"] = Json{{"index", shard.index}, {"count", shard.count}};
  j["results"] = Json::array();
  j["skipped"] = Json::array();
  j["run"] = nullptr;
  return j;
}

Json assemble_universe(const std::vector<Json>& partials, const std::vector<std::string>& names,
                       const Json& merged) {
  if (partials.empty()) throw InputError("no partial result to merge");
  auto name = [&](size_t i) {
    return i < names.size() ? names[i] : "partial " + std::to_string(i);
  };
  const Json& first = partials.front();
  size_t count = 0;
  std::set<size_t> seen_shards;
  for (size_t i = 0; i < partials.size(); ++i) {
    const Json& p = partials[i];
    if (!p.is_object() || p.value("format", "") != kPartialFormat)
      throw InputError(name(i) + ": not a wfo universe partial (no \"format\": \"" +
                       kPartialFormat + "\")");
    if (p.value("version", 0) != kPartialVersion)
      throw InputError(name(i) + ": partial version " + p.value("version", Json()).dump() +
                       ", this wfo reads " + std::to_string(kPartialVersion));
    if (p.at("universe").at("symbols") != first.at("universe").at("symbols"))
      throw InputError(name(i) + ": another universe (symbols or paths) than " + name(0));
    if (p.at("settings") != first.at("settings") ||
        p.at("portfolio_bars_per_year") != first.at("portfolio_bars_per_year"))
      throw InputError(name(i) + ": another run's settings than " + name(0) + " (" +
                       p.at("settings").dump() + " vs " + first.at("settings").dump() + ")");
    const size_t c = p.at("shard").at("count").get<size_t>();
    const size_t idx = p.at("shard").at("index").get<size_t>();
    if (i == 0) count = c;
    if (c != count)
      throw InputError(name(i) + ": shard " + std::to_string(idx) + "/" + std::to_string(c) +
                       " of another split than " + name(0) + "'s /" + std::to_string(count));
    if (!seen_shards.insert(idx).second)
      throw InputError(name(i) + ": shard " + std::to_string(idx) + "/" + std::to_string(c) +
                       " given twice");
  }
  if (seen_shards.size() != count) {
    std::string missing;
    for (size_t k = 0; k < count; ++k)
      if (!seen_shards.count(k))
        missing += (missing.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(count);
    throw InputError("shards missing: " + missing);
  }

  // Every symbol once, by its index in the universe.
  const size_t n = first.at("universe").at("symbols").size();
  std::vector<const Json*> result_at(n, nullptr), skipped_at(n, nullptr);
  for (const Json& p : partials) {
    for (const Json& r : p.at("results")) result_at.at(r.at("index").get<size_t>()) = &r;
    for (const Json& s : p.at("skipped")) skipped_at.at(s.at("index").get<size_t>()) = &s;
  }
  std::vector<const Json*> walked;
  Json symbols = Json::array(), skipped = Json::array();
  for (size_t k = 0; k < n; ++k) {
    if (result_at[k]) {
      walked.push_back(result_at[k]);
      const Json& r = *result_at[k];
      symbols.push_back(Json{{"symbol", r.at("symbol")},
                             {"path", r.at("path")},
                             {"summary", r.at("summary")},
                             {"walk", r.at("walk")}});
    } else if (skipped_at[k]) {
      const Json& s = *skipped_at[k];
      skipped.push_back(
          Json{{"symbol", s.at("symbol")}, {"path", s.at("path")}, {"error", s.at("error")}});
    } else {
      throw InputError("symbol " +
                       first.at("universe").at("symbols").at(k).at("symbol").get<std::string>() +
                       " is in no partial");
    }
  }

  Json j = Json::object();
  Json u = Json::object();
  u["source"] = first.at("universe").at("source");
  u["symbols"] = n;
  u["walked"] = walked.size();
  u["skipped"] = std::move(skipped);
  u["settings"] = first.at("settings");
  j["universe"] = std::move(u);
  j["symbols"] = std::move(symbols);
  j["portfolio"] = portfolio_of(walked, first.at("portfolio_bars_per_year"));
  Json fields = Json::array();
  for (const char* f : kRunSpecificFields) fields.push_back(f);
  j["run_specific"] = std::move(fields);
  Json shards = Json::array();
  std::vector<const Json*> by_shard(count, nullptr);
  for (const Json& p : partials) by_shard[p.at("shard").at("index").get<size_t>()] = &p;
  for (const Json* p : by_shard) shards.push_back(p->at("run"));
  Json run = Json::object();
  run["shards"] = std::move(shards);
  if (!merged.is_null()) run["merged"] = merged;
  j["run"] = std::move(run);
  return j;
}

std::vector<const Json*> walked_entries(const std::vector<Json>& partials) {
  std::vector<const Json*> walked;
  for (const Json& p : partials)
    for (const Json& r : p.at("results")) walked.push_back(&r);
  std::sort(walked.begin(), walked.end(), [](const Json* a, const Json* b) {
    return a->at("index").get<size_t>() < b->at("index").get<size_t>();
  });
  return walked;
}

Json universe_page_json(const Json& result, const std::vector<const Json*>& walked,
                        const std::vector<std::string>& dir_names) {
  Json page = Json::object();
  page["kind"] = "universe";
  page["source"] = result.at("universe").at("source");
  page["settings"] = result.at("universe").at("settings");
  Json symbols = Json::array();
  for (const Json* r : walked) {
    const std::string& dir = dir_names.at(r->at("index").get<size_t>());
    symbols.push_back(Json{{"symbol", r->at("symbol")},
                           {"page", dir + "/report.html"},
                           {"dir", dir},
                           {"summary", r->at("summary")}});
  }
  page["symbols"] = std::move(symbols);
  page["skipped"] = result.at("universe").at("skipped");
  page["portfolio"] = result.at("portfolio");
  // The portfolio's equity and buy and hold's, each from 1: the returns the metrics read.
  const PortfolioReturns returns = portfolio_returns(walked);
  Json dates = Json::array(), strategy = Json::array(), buy_hold = Json::array();
  double eq = 1, eq_bh = 1;
  for (size_t i = 0; i < returns.ts.size(); ++i) {
    eq *= 1 + returns.s[i];
    eq_bh *= 1 + returns.bh[i];
    dates.push_back(feeds::format_timestamp(returns.ts[i]));
    strategy.push_back(real(eq));
    buy_hold.push_back(real(eq_bh));
  }
  page["equity"] = Json{{"dates", std::move(dates)},
                        {"strategy", std::move(strategy)},
                        {"buy_and_hold", std::move(buy_hold)}};
  return page;
}

namespace {

std::string number(const Json& v, int digits) {
  return v.is_number() ? fixed(v.get<double>(), digits) : "-";
}

}  // namespace

std::string winner_text(const Json& w, std::string_view none) {
  if (w.is_null()) return std::string(none);
  std::string s = "id " + w.at("id").dump();
  for (const auto& [k, v] : w.at("params").items())
    s += " " + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

std::string date_of(const Json& ts) {
  if (!ts.is_string()) return "-";
  const std::string t = ts.get<std::string>();
  const auto midnight = t.find("T00:00:00");
  return midnight == std::string::npos ? t : t.substr(0, midnight);
}

std::string skipped_text(const Json& skipped) {
  std::string out;
  for (const Json& s : skipped)
    out += "skipped " + s.at("symbol").get<std::string>() + ": " +
           s.at("error").get<std::string>() + "\n";
  return out;
}

std::string universe_table(const Json& r) {
  const Json& u = r.at("universe");
  std::string out = "universe " + u.at("source").get<std::string>() + ": " +
                    u.at("symbols").dump() + " symbols, " + u.at("walked").dump() + " walked, " +
                    std::to_string(u.at("skipped").size()) + " skipped\n\n";
  TextTable t;
  t.add_column("symbol", Align::left);
  t.add_column("folds");
  t.add_column("oos_bars");
  t.add_column("oos", Align::left);
  t.add_column("oos_cagr");
  t.add_column("oos_sharpe");
  t.add_column("oos_max_dd");
  t.add_column("oos_trades");
  t.add_column("wfe");
  t.add_column("pbo");
  t.add_column("last winner", Align::left);
  for (const Json& e : r.at("symbols")) {
    const Json& s = e.at("summary");
    t.add_row({e.at("symbol").get<std::string>(), s.at("folds").dump(), s.at("oos_bars").dump(),
               date_of(s.at("oos_first_ts")) + " .. " + date_of(s.at("oos_last_ts")),
               number(s.at("oos_cagr"), 4), number(s.at("oos_sharpe"), 3),
               number(s.at("oos_max_drawdown"), 4), s.at("oos_trades").dump(),
               number(s.at("wfe"), 3), number(s.at("pbo"), 3), winner_text(s.at("last_winner"))});
  }
  out += t.render() + skipped_text(u.at("skipped"));
  const Json& p = r.at("portfolio");
  if (p.is_null()) return out + "\nno symbol walked: no portfolio\n";
  out += "\nEqual-weight portfolio of the stitched OOS returns, " + p.at("symbols").dump() +
         " symbols, " + p.at("bars").dump() + " bars [" + date_of(p.at("first_ts")) + " .. " +
         date_of(p.at("last_ts")) + "], " + number(p.at("bars_per_year"), 2) + " bars per year (" +
         p.at("bars_per_year_source").get<std::string>() + "):\n";
  TextTable m;
  m.add_column("metric", Align::left);
  m.add_column("strategy");
  m.add_column("buy_and_hold");
  for (const char* k : {"total_return", "cagr", "sharpe", "sortino", "max_drawdown", "calmar"}) {
    const int digits = std::string_view(k) == "sharpe" || std::string_view(k) == "sortino" ||
                               std::string_view(k) == "calmar"
                           ? 3
                           : 4;
    m.add_row(
        {k, number(p.at("strategy").at(k), digits), number(p.at("buy_and_hold").at(k), digits)});
  }
  return out + m.render();
}

}  // namespace wfod::cli
