// What `wfo walk --universe` and `wfo sweep --universe` share (issue 47): the universe, its
// shard and the settings read from the flags, and the loop over the symbols (each symbol's
// setup, its file loaded beside the one backend's start, a bad file named or skipped); the
// command brings its own load and run of one symbol.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "args.hpp"
#include "json_output.hpp"
#include "memory_limits.hpp"
#include "run_timing.hpp"
#include "strategy_from_flags.hpp"
#include "universe.hpp"
#include "wfod/backend.hpp"

namespace wfod::cli {

// The time now, "YYYY-MM-DDTHH:MM:SS.fffffffffZ", and this host's name: run-specific fields.
std::string utc_now();
std::string host_name();

struct UniverseRun {
  Universe universe;
  bool sharded = false;
  Shard split;  // {0, 1} without --shard
  std::optional<std::string> out_path;
  bool skip_bad = false;
  bool json = false;
  std::optional<std::string> report_dir;
  // The flags that make the run's results (every one but where results go and --threads).
  Json settings;
  StrategySetup base;  // the flags' setup; each symbol sets its file and bars per year
  MemoryBudget budget;
  std::string started;  // utc_now() at the start
};

// Reads --universe (and refuses --csv beside it), --shard (which needs --out), the flags'
// setup (its warnings on stderr) and the memory budget. Throws UsageError, InputError.
UniverseRun open_universe_run(ParsedArgs&);

// For each symbol of run.split in universe order: its setup (run.base with its file and the
// universe file's bars per year), `load(setup)` beside the backend's start, then
// `run(k, symbol, setup, backend, clock)` (clock started before the load). A file that
// does not load (feeds::CsvError, InputError) ends the run naming the symbol, or with
// --skip-bad-files is said on stderr and added to `skipped` (skipped_entry). Returns the
// backend, null when no symbol loaded.
using LoadSymbol = std::function<void(StrategySetup&)>;
using RunSymbol =
    std::function<void(size_t, const UniverseSymbol&, StrategySetup&, Backend&, const Stopwatch&)>;
std::unique_ptr<Backend> for_each_symbol(const UniverseRun&, Json& skipped, const LoadSymbol&,
                                         const RunSymbol&);

// A run's "run" object (run-specific): its shard, host, start and end, seconds, wfo's
// version, the backend (null when no symbol loaded) and each symbol's times.
Json run_json(const UniverseRun&, const Stopwatch& run_time, const Backend*, Json symbol_times);

}  // namespace wfod::cli
