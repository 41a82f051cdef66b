// The opening every strategy command of wfo shares (sweep, walk, positions, trades): --help
// answered with the command's usage, the bar-range and strategy flags' help and any extra
// text (a --json shape), or the command line parsed against the command's flags; and for the
// commands that run the grid (sweep, walk), what they settle before any work.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "memory_limits.hpp"
#include "strategy_from_flags.hpp"

namespace wfod::cli {

// The command line parsed against the strategy flags (strategy_flags()) and the command's
// own; nullopt after printing the help (the command then exits 0); throws UsageError on bad
// flags.
std::optional<ParsedArgs> parse_strategy_command(Args args, std::string_view usage,
                                                 std::initializer_list<FlagSpec> own_flags,
                                                 std::string_view extra_help = {});

// What sweep and walk settle once the setup is read, before any work: the setup's warnings
// said on stderr, the memory budget that binds (--memory-budget, RLIMIT_AS, cgroup
// memory.max) with the CSV's load checked against it from the file's size
// (load_estimate.hpp), and the --report folder made ready.
struct RunOpening {
  MemoryBudget budget;
  bool json = false;
  std::optional<std::string> report_dir;
};
RunOpening open_run(const ParsedArgs& parsed, const StrategySetup& setup);

}  // namespace wfod::cli
