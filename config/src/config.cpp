// Config lookups by name (lists are short: a handful of symbols and strategies, so a linear
// scan keeps Config a plain aggregate) and by key path (Config::located).
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

std::string Config::located(std::string_view key, std::string_view message) const {
  SourcePosition where;
  std::string_view path = key;
  while (!path.empty()) {
    if (const auto it = positions.find(path); it != positions.end()) {
      where = it->second;
      break;
    }
    // The enclosing table: "a.b" -> "a", "a[2]" -> "a".
    const size_t cut = path.find_last_of(".[");
    path = cut == std::string_view::npos ? std::string_view() : path.substr(0, cut);
  }
  return source + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
         ": key '" + std::string(key) + "': " + std::string(message);
}

}  // namespace wfod::config
