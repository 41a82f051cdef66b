// The universe commands' shared opening and symbol loop (universe_loop.hpp).

#include "universe_loop.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "history.hpp"
#include "load_estimate.hpp"
#include "universe_result.hpp"
#include "wfod/feeds/csv_reader.hpp"
#include "wfod/version.hpp"

namespace wfod::cli {

namespace {

// The flags that make a run's results: every one given but those that only say where the
// results go or how many threads compute them. Shards of one run must agree on them.
Json settings_json(const ParsedArgs& parsed) {
  Json j = Json::object();
  for (const std::string& name : parsed.names()) {
    if (name == "shard" || name == "out" || name == "json" || name == "threads" || name == "csv" ||
        name == "report")
      continue;
    j[name] = *parsed.text(name);
  }
  return j;
}

}  // namespace

std::string utc_now() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return feeds::format_timestamp(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

UniverseRun open_universe_run(ParsedArgs& parsed) {
  UniverseRun u;
  u.started = utc_now();
  if (parsed.has("csv")) throw UsageError("--csv and --universe: give one of them");
  u.universe = read_universe(*parsed.text("universe"));
  u.sharded = parsed.has("shard");
  if (u.sharded) u.split = parse_shard(*parsed.text("shard"));
  u.out_path = parsed.text("out");
  if (u.sharded && !u.out_path)
    throw UsageError("--shard needs --out PARTIAL.json (the shard's part, for wfo merge)");
  u.skip_bad = parsed.has("skip-bad-files");
  u.json = parsed.has("json");
  u.report_dir = parsed.text("report");
  u.settings = settings_json(parsed);
  // strategy_from_flags wants a data file; each symbol sets its own.
  parsed.set("csv", u.universe.symbols.front().path);
  u.base = strategy_from_flags(parsed);
  for (const auto& w : u.base.warnings) std::fprintf(stderr, "wfo: warning: %s\n", w.c_str());
  u.budget = binding_budget(u.base.memory_budget_mib << 20, read_process_limits());
  return u;
}

std::unique_ptr<Backend> for_each_symbol(const UniverseRun& u, Json& skipped,
                                         const LoadSymbol& load, const RunSymbol& run) {
  // One backend for every symbol, started while the first file parses.
  BackendStarter starting(u.base.backend);
  std::unique_ptr<Backend> backend;
  for (size_t k = 0; k < u.universe.symbols.size(); ++k) {
    if (!u.split.holds(k)) continue;
    const UniverseSymbol& sym = u.universe.symbols[k];
    const Stopwatch symbol_time;
    StrategySetup setup = u.base;
    setup.csv_path = sym.path;
    if (sym.bars_per_year) {
      // The universe file's column is this symbol's --bars-per-year.
      setup.spec.bars_per_year = *sym.bars_per_year;
      setup.bars_per_year_given = true;
      setup.bars_per_year_from_universe = true;
    }
    std::fprintf(stderr, "wfo: %s (%s)\n", sym.symbol.c_str(), sym.path.c_str());
    try {
      if (const auto estimate = estimate_csv_load(setup.csv_path))
        check_load(*estimate, u.budget, setup.csv_path);
      starting.run_beside([&] { load(setup); });
    } catch (const std::exception& e) {
      const bool bad_file = dynamic_cast<const feeds::CsvError*>(&e) != nullptr ||
                            dynamic_cast<const InputError*>(&e) != nullptr;
      if (!bad_file) throw;
      if (!u.skip_bad)
        throw InputError("symbol " + sym.symbol + ": " + e.what() +
                         " (--skip-bad-files runs the other symbols)");
      std::fprintf(stderr, "wfo: warning: skipping symbol %s: %s\n", sym.symbol.c_str(), e.what());
      skipped.push_back(skipped_entry(k, sym, e.what()));
      continue;
    }
    if (!backend) backend = starting.take();
    run(k, sym, setup, *backend, symbol_time);
  }
  return backend;
}

Json run_json(const UniverseRun& u, const Stopwatch& run_time, const Backend* backend,
              Json symbol_times) {
  Json run = Json::object();
  run["shard"] = std::to_string(u.split.index) + "/" + std::to_string(u.split.count);
  run["host"] = host_name();
  run["started"] = u.started;
  run["finished"] = utc_now();
  run["seconds"] = run_time.seconds();
  run["wfo_version"] = kVersionText;
  run["backend"] = backend ? Json(std::string(backend->name())) : Json(nullptr);
  run["symbols"] = std::move(symbol_times);
  return run;
}

}  // namespace wfod::cli
