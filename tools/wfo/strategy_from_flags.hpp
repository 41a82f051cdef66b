// The strategy settings shared by `wfo sweep` and `wfo walk`: family, grid axes, costs,
// ranking, data source and backend, from flags alone or from a TOML [[strategy]] that the
// flags then override.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "args.hpp"
#include "bar_range.hpp"
#include "data_facts.hpp"
#include "wfod/backend.hpp"
#include "wfod/selection/selection_spec.hpp"

namespace wfod::cli {

// --memory-budget's default, MiB.
inline constexpr size_t kDefaultMemoryBudgetMib = 2048;

struct StrategySetup {
  StrategySpec spec;
  RankSpec rank;
  std::string csv_path;
  std::optional<size_t> window;  // --window, or the config's window (sweep only)
  std::optional<size_t> warmup;  // --warmup, or the config's; else SPEC §3 default
  std::optional<size_t> every;   // the config's re-optimisation period (walk's --oos default)
  std::string backend = "auto";
  int threads = 0;
  Precision precision = Precision::exact;
  bool skip_bad_rows = false;
  std::vector<std::string> columns;  // --columns: a headerless file's column names
  BarRange range;                    // --start, --end: the bars used (cut_to_range)
  bool bars_per_year_given = false;  // --bars-per-year on the command line
  // The config's symbol set bars_per_year (to other than the default 252: spec-notes 37).
  bool bars_per_year_from_config = false;
  // With bars_per_year_given: the value is a universe file's bars_per_year column (source
  // "universe" in the JSON), not the flag's.
  bool bars_per_year_from_universe = false;
  DataFacts data;             // what the loaded file showed (settle_data_facts, after loading)
  std::string strategy_name;  // from --config, for headers; empty otherwise
  std::string config_path;    // --config FILE (a rules strategy's source); empty otherwise
  std::string rules_path;     // --rules FILE (the other one, SPEC §5a); empty otherwise
  selection::SelectionSpec selection;  // the config's [strategy.selection]; else defaults
  size_t memory_budget_mib = kDefaultMemoryBudgetMib;  // --memory-budget (run_plan.hpp)
  std::vector<std::string> warnings;  // for stderr ("--threads 500 is more than ...")
};

// Flags every strategy command accepts (sweep and walk add their own).
std::span<const FlagSpec> strategy_flags();

// Builds the setup; throws UsageError or std::invalid_argument (grid/enum errors) and
// config::ConfigError, all reported with exit code 2.
StrategySetup strategy_from_flags(const ParsedArgs&);

// Help text for the strategy flags, shared by sweep's and walk's --help.
extern const char* const kStrategyFlagsHelp;

}  // namespace wfod::cli
