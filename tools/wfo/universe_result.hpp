// The documents of `wfo walk --universe` and `wfo merge` (issue 47 items 2-3): a symbol's
// entry (its summary, its `wfo walk --json` document, its stitched out-of-sample series), the
// partial file one shard writes, and the result assembled from partials, with the
// equal-weight portfolio of the symbols' OOS returns (docs/spec-notes.md 60) and its table.
// A one-host run assembles its single in-memory partial through the same function that
// `wfo merge` applies to the shards' files, so the two results agree bit for bit outside the
// run-specific "run" object.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "json_output.hpp"
#include "strategy_from_flags.hpp"
#include "universe.hpp"
#include "walk_run.hpp"

namespace wfod::cli {

inline constexpr const char* kPartialFormat = "wfo-universe-partial";
inline constexpr int kPartialVersion = 1;

// {"index", "symbol", "path", "summary", "walk", "series": {"ts_ns", "s", "buy_hold"}}: the
// walk document is walk_run_json's less "seconds" (a time: the run's "run" object has it).
Json universe_entry(size_t index, const UniverseSymbol&, const WalkRun&, const StrategySetup&);

// {"index", "symbol", "path", "error"}: a file skipped by --skip-bad-files.
Json skipped_entry(size_t index, const UniverseSymbol&, const std::string& error);

// A partial's frame: format, version, the universe (source, every symbol and path, the
// settings that must agree between shards), the shard, the portfolio's A where the flag gave
// it; "results", "skipped" empty and "run" null, for the caller to fill.
Json partial_frame(const Universe&, const Shard&, const Json& settings,
                   const std::optional<double>& portfolio_bars_per_year);

// The result from every shard's partial (any order; `names` name them in errors). Throws
// InputError where the partials do not make one run: another format, another universe or
// settings, a shard missing or given twice. `merged` (the merge's host and time) goes into
// "run" beside the shards' own; null for a one-host run.
Json assemble_universe(const std::vector<Json>& partials, const std::vector<std::string>& names,
                       const Json& merged);

// The partials' symbol entries (universe_entry), in universe order.
std::vector<const Json*> walked_entries(const std::vector<Json>& partials);

// The universe page's document (universe.json, the data of index.html): "kind", "source",
// "settings", "symbols": [{"symbol", "page" (DIR-relative link to its walk report), "dir",
// "summary"}], "skipped", "portfolio" (the result's), "equity": {"dates", "strategy",
// "buy_and_hold"} (the portfolio's and buy and hold's equity from 1, one point per bar).
// `dir_names`: every universe symbol's folder, by index (symbol_dir_names).
Json universe_page_json(const Json& result, const std::vector<const Json*>& walked,
                        const std::vector<std::string>& dir_names);

// Pieces of the universe tables (walk's here, sweep --universe's): a winner {"id", "params"}
// as "id N k=v ...", `none` where null; a timestamp as its date where it is midnight ("-"
// where null); a "skipped SYMBOL: error" line per skipped file.
std::string winner_text(const Json& winner, std::string_view none = "(flat)");
std::string date_of(const Json& ts);
std::string skipped_text(const Json& skipped);

// The human-readable result: the per-symbol table, the skipped files, the portfolio.
std::string universe_table(const Json& result);

// The run-specific fields of a result (times, hosts, dates): everything under "run".
inline constexpr const char* kRunSpecificFields[] = {"run"};

}  // namespace wfod::cli
