// The shared opening of wfo's strategy commands (strategy_command.hpp).

#include "strategy_command.hpp"

#include <cstdio>
#include <string>

#include "bar_range.hpp"
#include "load_estimate.hpp"
#include "output.hpp"
#include "report_writer.hpp"

namespace wfod::cli {

std::optional<ParsedArgs> parse_strategy_command(Args args, std::string_view usage,
                                                 std::initializer_list<FlagSpec> own_flags,
                                                 std::string_view extra_help) {
  if (wants_help(args)) {
    print(std::string(usage) + kBarRangeHelp + kStrategyFlagsHelp + std::string(extra_help));
    return std::nullopt;
  }
  const auto common = strategy_flags();
  std::vector<FlagSpec> flags(common.begin(), common.end());
  flags.insert(flags.end(), own_flags);
  return parse_args(args, flags);
}

RunOpening open_run(const ParsedArgs& parsed, const StrategySetup& setup) {
  for (const auto& w : setup.warnings) std::fprintf(stderr, "wfo: warning: %s\n", w.c_str());
  RunOpening opening;
  opening.budget = binding_budget(setup.memory_budget_mib << 20, read_process_limits());
  if (const auto load = estimate_csv_load(setup.csv_path))
    check_load(*load, opening.budget, setup.csv_path);
  opening.json = parsed.has("json");
  opening.report_dir = parsed.text("report");
  if (opening.report_dir) prepare_report_dir(*opening.report_dir);
  return opening;
}

}  // namespace wfod::cli
