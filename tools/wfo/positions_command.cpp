// `wfo positions`: the target positions p_t (SPEC §2) of one combo of a strategy's grid for
// every bar of a CSV, from its first bar (the anchor): what a daemon's signals and its
// publications' `position` must carry for that combo (PROTOCOL §2, §2a).

#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "history.hpp"
#include "output.hpp"
#include "params.hpp"
#include "strategy_command.hpp"
#include "strategy_from_flags.hpp"

namespace wfod::cli {

namespace {

constexpr const char* kPositionsUsage =
    R"(usage: wfo positions --csv FILE --family FAMILY AXIS FLAGS... --id N
       wfo positions --config FILE [--strategy NAME] [--csv FILE] --id N [overriding flags...]
       wfo positions --rules FILE --csv FILE --id N [overriding flags...]

Prints "bar,timestamp,ts_ns,position" for every bar of the CSV: p_t (SPEC §2) of combo N
of the strategy's grid (the "id" of a publication or a signal, SPEC §5), decided from the
CSV's first bar on (the anchor; --start moves it). With --backend cpu_ref (the plain SPEC reference) it shares
no code with the daemon's trackers. Only the grid, fill and backend flags matter here.

  --id N             combo id in the grid (0 .. grid size - 1; an invalid combo is an error)

)";

// "fast=5 slow=40 ma=ema ...": the combo's parameters, for messages.
std::string combo_text(const Grid& grid, const Combo& c) {
  std::string out;
  for (std::string_view name : param_names(grid)) {
    if (!out.empty()) out += ' ';
    out += std::string(name) + "=" + param_text(c, name);
  }
  return out;
}

}  // namespace

int run_positions(Args args) {
  std::optional<ParsedArgs> parsed_args = parse_strategy_command(args, kPositionsUsage, {{"id"}});
  if (!parsed_args) return 0;
  ParsedArgs& parsed = *parsed_args;
  const auto id = parsed.count("id");
  if (!id) throw UsageError("--id N is required (the combo's id in the grid)");
  StrategySetup setup = strategy_from_flags(parsed);
  for (const auto& w : setup.warnings) std::fprintf(stderr, "wfo: warning: %s\n", w.c_str());
  const Grid& grid = setup.spec.grid;
  if (*id >= grid.size())
    throw UsageError("--id " + std::to_string(*id) + ": the grid has " +
                     std::to_string(grid.size()) + " combos (ids 0 .. " +
                     std::to_string(grid.size() - 1) + ")");
  const Combo combo = grid.decode(*id);
  if (!combo.valid())
    throw UsageError("--id " + std::to_string(*id) + " " + combo_text(grid, combo) +
                     " is not a valid combo (SPEC §5)");

  feeds::CsvReadResult csv = load_history(setup.csv_path, setup.skip_bad_rows, setup.columns);
  cut_to_range(csv.series, setup.range, setup.csv_path);
  const HistoryView history = HistoryView::of(csv.series);
  auto backend = make_backend(setup.backend);
  const std::vector<int8_t> p = backend->positions(history, setup.spec, combo);
  std::fprintf(stderr, "wfo: combo %zu %s, backend %s, %zu bars\n", *id,
               combo_text(grid, combo).c_str(), std::string(backend->name()).c_str(),
               history.size());

  std::string out = "bar,timestamp,ts_ns,position\n";
  out.reserve(out.size() + p.size() * 48);
  for (size_t t = 0; t < p.size(); ++t) {
    out += std::to_string(t);
    out += ',';
    out += feeds::format_timestamp(history.ts_ns[t]);
    out += ',';
    out += std::to_string(history.ts_ns[t]);
    out += ',';
    out += std::to_string(static_cast<int>(p[t]));
    out += '\n';
  }
  print(out);
  return 0;
}

}  // namespace wfod::cli
