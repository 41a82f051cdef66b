// `wfo sweep --universe FILE` (issue 47 item 1): one window swept for every symbol of a
// universe, each on its own bars by the single-symbol sweep's code (sweep_run.hpp), on one
// backend started once, symbols one after another (universe_loop.hpp, as walk --universe);
// a row per symbol (its winner and the winner's metrics) or one JSON document with each
// symbol's whole `wfo sweep --json` document. One host only: a sweep is one window per
// symbol, and --shard/--out/wfo merge are the walk's.

#include <cstdio>
#include <string>
#include <string_view>

#include "args.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "sweep_run.hpp"
#include "text_table.hpp"
#include "universe_loop.hpp"
#include "universe_result.hpp"

namespace wfod::cli {

namespace {

using Align = TextTable::Align;

// A symbol's row, read from its sweep document: the combo it would trade (robust
// selection's published one, else the sweep's best-ranked) and that combo's metrics.
Json sweep_summary(const Json& sweep) {
  Json s = Json::object();
  s["window_bars"] = sweep.at("window").at("bars");
  s["first_ts"] = sweep.at("window").at("first_ts");
  s["last_ts"] = sweep.at("window").at("last_ts");
  s["evaluated"] = sweep.at("evaluated");
  s["ranked"] = sweep.at("ranked");
  Json winner = nullptr;
  std::string source = "none";
  if (sweep.contains("selection")) {
    const Json& published = sweep["selection"].value("published", Json(nullptr));
    if (published.is_object()) {
      winner = published;
      source = "selection";
    }
  } else if (!sweep.at("top").empty()) {
    winner = sweep["top"][0];
    source = "top";
  }
  s["winner_source"] = source;  // selection | top | none (nothing ranked or published)
  s["winner"] = winner.is_null() ? Json(nullptr)
                                 : Json{{"id", winner.at("id")},
                                        {"params", winner.at("params")},
                                        {"metrics", winner.value("metrics", Json(nullptr))}};
  Json pbo = nullptr;
  if (sweep.contains("selection") && sweep["selection"].value("pbo", Json()).is_object())
    pbo = sweep["selection"]["pbo"].value("pbo", Json(nullptr));
  s["pbo"] = pbo;
  return s;
}

std::string metric(const Json& winner, const char* name, int digits) {
  if (winner.is_null() || !winner.at("metrics").is_object()) return "-";
  const Json& v = winner["metrics"].value(name, Json(nullptr));
  if (!v.is_number()) return "-";
  return v.is_number_integer() ? v.dump() : fixed(v.get<double>(), digits);
}

std::string sweep_universe_table(const Json& r) {
  const Json& u = r.at("universe");
  std::string out = "universe " + u.at("source").get<std::string>() + ": " +
                    u.at("symbols").dump() + " symbols, " + u.at("swept").dump() + " swept, " +
                    std::to_string(u.at("skipped").size()) + " skipped\n\n";
  TextTable t;
  t.add_column("symbol", Align::left);
  t.add_column("bars");
  t.add_column("window", Align::left);
  t.add_column("evaluated");
  t.add_column("ranked");
  t.add_column("cagr");
  t.add_column("sharpe");
  t.add_column("max_dd");
  t.add_column("trades");
  t.add_column("pbo");
  t.add_column("winner", Align::left);
  for (const Json& e : r.at("symbols")) {
    const Json& s = e.at("summary");
    const Json& w = s.at("winner");
    t.add_row({e.at("symbol").get<std::string>(), s.at("window_bars").dump(),
               date_of(s.at("first_ts")) + " .. " + date_of(s.at("last_ts")),
               s.at("evaluated").dump(), s.at("ranked").dump(), metric(w, "cagr", 4),
               metric(w, "sharpe", 3), metric(w, "max_drawdown", 4), metric(w, "trades", 0),
               s.at("pbo").is_number() ? fixed(s.at("pbo").get<double>(), 3) : "-",
               winner_text(w, "(none)")});
  }
  return out + t.render() + skipped_text(u.at("skipped"));
}

}  // namespace

int run_sweep_universe(Args args, ParsedArgs& parsed) {
  (void)args;
  const Stopwatch run_time;
  for (const char* flag : {"shard", "out"})
    if (parsed.has(flag))
      throw UsageError("--" + std::string(flag) +
                       ": wfo sweep --universe runs on one host (one window per symbol); "
                       "--shard, --out and wfo merge are wfo walk --universe's");
  if (parsed.has("report"))
    throw UsageError(
        "--report: wfo sweep --universe writes no report; sweep a symbol with --csv for its "
        "report, or walk the universe (wfo walk --universe FILE --report DIR)");
  const UniverseRun u = open_universe_run(parsed);
  SweepRunOptions options;
  options.selection = !parsed.has("no-selection");
  options.budget = u.budget;

  Json symbols = Json::array(), skipped = Json::array(), symbol_times = Json::array();
  LoadedSweep loaded;
  const auto backend = for_each_symbol(
      u, skipped, [&](StrategySetup& setup) { loaded = load_sweep(setup); },
      [&](size_t, const UniverseSymbol& sym, StrategySetup& setup, Backend& engine,
          const Stopwatch& symbol_time) {
        SweepRun run = run_loaded_sweep(setup, std::move(loaded), engine, options);
        run.timing.total = symbol_time.seconds();
        Json sweep = sweep_run_json(run, setup);
        sweep.erase("seconds");  // a time, kept under "run"
        Json e = Json::object();
        e["symbol"] = sym.symbol;
        e["path"] = sym.path;
        e["summary"] = sweep_summary(sweep);
        e["sweep"] = std::move(sweep);
        symbols.push_back(std::move(e));
        symbol_times.push_back(Json{{"symbol", sym.symbol},
                                    {"seconds", run.report.result.seconds},
                                    {"timing", timing_json(run.timing)}});
      });
  if (symbols.empty())
    throw InputError("no symbol of the universe could be swept (every file skipped)");
  Json skipped_out = Json::array();
  for (Json& s : skipped) {
    s.erase("index");
    skipped_out.push_back(std::move(s));
  }
  Json result = Json::object();
  result["universe"] = Json{{"source", u.universe.source},
                            {"symbols", u.universe.symbols.size()},
                            {"swept", symbols.size()},
                            {"skipped", std::move(skipped_out)},
                            {"settings", u.settings}};
  result["symbols"] = std::move(symbols);
  Json fields = Json::array();
  for (const char* f : kRunSpecificFields) fields.push_back(f);
  result["run_specific"] = std::move(fields);
  result["run"] = run_json(u, run_time, backend.get(), std::move(symbol_times));
  result["run"].erase("shard");  // a sweep universe is never sharded
  print(u.json ? result.dump(2) + "\n" : sweep_universe_table(result));
  return 0;
}

}  // namespace wfod::cli
