// The wfo commands, one per file (*_command.cpp), each taking the arguments after its name
// and returning the exit code; errors are thrown and mapped to exit codes by main.cpp.
#pragma once

#include <span>
#include <string_view>

#include "args.hpp"

namespace wfod::cli {

using Args = std::span<const std::string_view>;

int run_sweep(Args);
int run_walk(Args);
int run_indicators(Args);
int run_bench(Args);
int run_positions(Args);
int run_trades(Args);
int run_merge(Args);
// `wfo walk --universe`: run_walk hands its parsed flags on (universe_command.cpp).
int run_walk_universe(Args, ParsedArgs&);
// `wfo sweep --universe`: run_sweep hands its parsed flags on (sweep_universe.cpp).
int run_sweep_universe(Args, ParsedArgs&);

}  // namespace wfod::cli
