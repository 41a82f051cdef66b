// One [[strategy]] table -> StrategyConfig: name, symbols, window, ranking, costs, fill and
// its [strategy.grid] (PROTOCOL §4, SPEC §3, §5, §7). Internal to wfod_config.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>
#include <vector>

#include "wfod/config/config.hpp"

namespace wfod::config::detail {

// `index` is the table's place in the [[strategy]] array (for key paths like
// "strategy[2].window"); `symbols` the configured [[symbol]] names, which strategy.symbols
// must come from (none configured = any name accepted, for strategy-only files).
StrategyConfig read_strategy(const toml::table& table, size_t index, std::string_view source,
                             const std::vector<std::string>& symbols);

}  // namespace wfod::config::detail
