// `wfo walk --universe FILE` (issue 47 items 1-3): every symbol of a universe walked forward
// on its own bars by the single-symbol walk's code (walk_run.hpp), on one backend started
// once, symbols one after another (universe_loop.hpp); the per-symbol table or JSON and the
// equal-weight portfolio (universe_result.hpp); --report DIR, the universe page and each
// symbol's walk report (universe_report.hpp); --shard I/N --out PARTIAL.json for one of N
// disjoint symbol sets, and `wfo merge PARTIALS...` for the result of all of them.

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "output.hpp"
#include "report_writer.hpp"
#include "run_timing.hpp"
#include "selection_output.hpp"
#include "universe.hpp"
#include "universe_loop.hpp"
#include "universe_report.hpp"
#include "universe_result.hpp"
#include "walk_run.hpp"
#include "wfod/version.hpp"

namespace wfod::cli {

namespace {

// Written beside its final name and renamed into place: a stopped job leaves no truncated
// partial that a merge could take for a whole one.
void write_whole_file(const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp";
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (out == nullptr) throw WriteError(path, errno);
  errno = 0;
  const bool written = std::fwrite(content.data(), 1, content.size(), out) == content.size() &&
                       std::fflush(out) == 0;
  const int write_errno = errno;
  const bool closed = std::fclose(out) == 0;
  if (!written || !closed) {
    const int e = !written ? (write_errno ? write_errno : EIO) : (errno ? errno : EIO);
    std::remove(tmp.c_str());
    throw WriteError(path, e);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw WriteError(path, e);
  }
}

void print_result(const Json& result, bool json) {
  if (result.at("universe").at("walked").get<size_t>() == 0)
    throw InputError("no symbol of the universe could be walked (every file skipped)");
  print(json ? result.dump(2) + "\n" : universe_table(result));
}

// Every symbol's page folder under --report DIR, by universe index (universe_report.hpp).
std::vector<std::string> report_dir_names(const Json& universe_symbols) {
  std::vector<std::string> symbols;
  for (const Json& s : universe_symbols) symbols.push_back(s.at("symbol").get<std::string>());
  return symbol_dir_names(symbols);
}

// A symbol's walk report as `wfo walk --csv FILE --report DIR/NAME` writes it, kept in the
// symbol's partial entry until the universe report is written (so a merge writes it too).
Json symbol_report(Args args, const std::string& dir, const StrategySetup& setup,
                   const WalkRun& run, Backend& backend) {
  Json selection = Json::array();
  for (const auto& fs : run.fold_selection)
    selection.push_back(selection_json(fs, setup.selection, setup.rank.objective));
  return walk_report_files(backend, run.report, make_run_inputs("walk", args, setup, dir),
                           setup.precision, setup.threads,
                           run.fold_selection.empty() ? nullptr : &selection);
}

// DIR/index.html, DIR/universe.json and DIR/NAME/ per walked symbol, from the partials'
// stored reports; after the result is printed, as `wfo walk --csv --report` does.
void write_universe_pages(const std::string& dir, const Json& result,
                          const std::vector<Json>& partials) {
  if (std::fflush(stdout) != 0) throw WriteError("standard output", errno);
  const std::vector<std::string> names =
      report_dir_names(partials.front().at("universe").at("symbols"));
  const std::vector<const Json*> walked = walked_entries(partials);
  std::vector<std::pair<std::string, const Json*>> pages;
  for (const Json* r : walked)
    pages.emplace_back(names.at(r->at("index").get<size_t>()), &r->at("report"));
  Json page = universe_page_json(result, walked, names);
  page["generated"] = utc_now();  // run-specific, as a walk report's "generated"
  const std::string path = write_universe_report(dir, page, pages);
  std::fprintf(stderr, "report: %s\n", path.c_str());
}

constexpr const char* kMergeUsage =
    R"(usage: wfo merge PARTIAL.json... [--json] [--report DIR]

Joins the partial results that `wfo walk --universe FILE --shard I/N --out PARTIAL.json`
wrote for I = 0 .. N-1 into the result of one run: the per-symbol table (or --json) and
the equal-weight portfolio, as `wfo walk --universe FILE` without --shard prints them.
The JSON is the one-host run's bit for bit apart from the run-specific fields, which
"run_specific" lists: "run" (each shard's host, start and end times, seconds and per-symbol
timing, and the merge's host and time).

Every shard must be given once, of one split (the same N), one universe and the same
settings (every flag but --shard, --out, --json, --threads and --report); otherwise exit
code 2.

  --report DIR   the universe report, as `wfo walk --universe FILE --report DIR` writes it:
                 DIR/index.html (the symbols' table, sortable; the portfolio's equity
                 against buy and hold; OOS sharpe and WFE across symbols; the winners'
                 parameters) and DIR/NAME/report.html per symbol, the walk report of that
                 symbol. The pages come from the partials: the shards must have been run
                 with --report (give them the same DIR, which each page names); otherwise
                 exit code 2, naming the partial.
)";

}  // namespace

int run_walk_universe(Args args, ParsedArgs& parsed) {
  const Stopwatch run_time;
  const UniverseRun u = open_universe_run(parsed);
  // With --shard, --report keeps each symbol's page in the partial for wfo merge --report.
  if (u.report_dir && !u.sharded) prepare_report_dir(*u.report_dir);
  const WalkSpec walk = walk_spec_from_flags(parsed, u.base);
  WalkRunOptions options;
  options.selection = !parsed.has("no-selection");
  options.budget = u.budget;
  options.report = u.report_dir.has_value();

  Json partial = partial_frame(
      u.universe, u.split, u.settings,
      u.base.bars_per_year_given ? std::optional(u.base.spec.bars_per_year) : std::nullopt);
  const std::vector<std::string> page_dirs =
      u.report_dir ? report_dir_names(partial.at("universe").at("symbols"))
                   : std::vector<std::string>();
  Json symbol_times = Json::array();
  LoadedWalk loaded;
  const auto backend = for_each_symbol(
      u, partial["skipped"], [&](StrategySetup& setup) { loaded = load_walk(setup, walk); },
      [&](size_t k, const UniverseSymbol& sym, StrategySetup& setup, Backend& engine,
          const Stopwatch& symbol_time) {
        WalkRun run = run_loaded_walk(setup, std::move(loaded), engine, options);
        run.timing.total = symbol_time.seconds();
        Json entry = universe_entry(k, sym, run, setup);
        if (u.report_dir) {
          const auto dir = std::filesystem::path(*u.report_dir) / page_dirs.at(k);
          entry["report"] = symbol_report(args, dir.string(), setup, run, engine);
        }
        partial["results"].push_back(std::move(entry));
        symbol_times.push_back(Json{{"symbol", sym.symbol},
                                    {"seconds", run.report.result.seconds},
                                    {"timing", timing_json(run.timing)}});
      });
  partial["run"] = run_json(u, run_time, backend.get(), std::move(symbol_times));

  if (u.out_path) {
    write_whole_file(*u.out_path, partial.dump() + "\n");
    std::fprintf(stderr, "wfo: wrote %s: shard %zu/%zu, %zu symbols walked, %zu skipped\n",
                 u.out_path->c_str(), u.split.index, u.split.count, partial["results"].size(),
                 partial["skipped"].size());
  }
  if (u.sharded) return 0;  // a shard's result is its partial; wfo merge prints the whole
  const std::vector<Json> partials{std::move(partial)};
  const Json result = assemble_universe(partials, {"this run"}, nullptr);
  print_result(result, u.json);
  if (u.report_dir) write_universe_pages(*u.report_dir, result, partials);
  return 0;
}

int run_merge(Args args) {
  if (wants_help(args)) {
    print(kMergeUsage);
    return 0;
  }
  bool json = false;
  std::optional<std::string> report_dir;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--json") {
      json = true;
    } else if (a == "--report") {
      if (i + 1 == args.size()) throw UsageError("--report needs a directory");
      report_dir = std::string(args[++i]);
    } else if (a.substr(0, 9) == "--report=") {
      report_dir = std::string(a.substr(9));
    } else if (a.substr(0, 2) == "--") {
      throw UsageError("unknown flag '" + std::string(a) + "'");
    } else {
      paths.emplace_back(a);
    }
  }
  if (paths.empty()) throw UsageError("no partial file given (wfo merge PARTIAL.json...)");
  std::vector<Json> partials;
  for (const std::string& p : paths) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw InputError(p + ": cannot open the partial result");
    std::stringstream text;
    text << in.rdbuf();
    Json j = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw InputError(p + ": not JSON (a partial cut short?)");
    partials.push_back(std::move(j));
  }
  Json merged = Json::object();
  merged["host"] = host_name();
  merged["finished"] = utc_now();
  merged["wfo_version"] = kVersionText;
  try {
    const Json result = assemble_universe(partials, paths, merged);
    if (report_dir) {
      // Before anything is printed or created: a partial without the pages.
      for (size_t i = 0; i < partials.size(); ++i)
        for (const Json& r : partials[i].at("results"))
          if (!r.contains("report"))
            throw InputError(paths[i] + ": symbol " + r.at("symbol").get<std::string>() +
                             " has no report in this partial (run the shards with --report "
                             "DIR for wfo merge --report)");
      prepare_report_dir(*report_dir);
    }
    print_result(result, json);
    if (report_dir) write_universe_pages(*report_dir, result, partials);
  } catch (const Json::exception& e) {
    // A partial of the right format with a field missing or mistyped: edited, or of a bug.
    throw InputError(std::string("a partial lacks a field this wfo reads: ") + e.what());
  }
  return 0;
}

}  // namespace wfod::cli
