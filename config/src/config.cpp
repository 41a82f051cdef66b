// Config lookups by name. Lists are short (a handful of symbols and strategies), so a linear
// scan keeps Config a plain aggregate.
#include "wfod/config/config.hpp"

#include <algorithm>

namespace wfod::config {

const SymbolConfig* Config::find_symbol(std::string_view name) const {
  const auto it = std::find_if(symbols.begin(), symbols.end(),
                               [&](const SymbolConfig& s) { return s.name == name; });
  return it == symbols.end() ? nullptr : &*it;
}

const StrategyConfig* Config::find_strategy(std::string_view name) const {
  const auto it = std::find_if(strategies.begin(), strategies.end(),
                               [&](const StrategyConfig& s) { return s.name == name; });
  return it == strategies.end() ? nullptr : &*it;
}

}  // namespace wfod::config
