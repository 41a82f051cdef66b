// The opening every strategy command of wfo shares (sweep, walk, positions, trades): --help
// answered with the command's usage, the bar-range and strategy flags' help and any extra
// text (a --json shape), or the command line parsed against the command's flags.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "args.hpp"
#include "commands.hpp"

namespace wfod::cli {

// nullopt after printing the help (the command then exits 0); throws UsageError on bad flags.
std::optional<ParsedArgs> parse_strategy_command(Args args, std::string_view usage,
                                                 std::span<const FlagSpec> flags,
                                                 std::string_view extra_help = {});

}  // namespace wfod::cli
