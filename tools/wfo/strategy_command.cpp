// The shared opening of wfo's strategy commands (strategy_command.hpp).

#include "strategy_command.hpp"

#include <string>

#include "bar_range.hpp"
#include "output.hpp"
#include "strategy_from_flags.hpp"

namespace wfod::cli {

std::optional<ParsedArgs> parse_strategy_command(Args args, std::string_view usage,
                                                 std::span<const FlagSpec> flags,
                                                 std::string_view extra_help) {
  if (wants_help(args)) {
    print(std::string(usage) + kBarRangeHelp + kStrategyFlagsHelp + std::string(extra_help));
    return std::nullopt;
  }
  return parse_args(args, flags);
}

}  // namespace wfod::cli
