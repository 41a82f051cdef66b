// The key tables: every key of every configuration table declared once (its name, how it is
// read and checked, the member it fills, what a SIGHUP does with it). The loader reads the
// file through them, the reload plan (wfod/daemon/core/reload_plan.hpp) compares through
// them, `wfod --help-config` lists them (key_help.hpp), and unit tests check
// config/wfod.example.toml, docs/operations.md and that listing against them. Defaults are
// the member initialisers of config.hpp's structs, which each row fills.
// [strategy.grid] is not here: its axes depend on the family (grid_config.cpp reads them).
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "wfod/config/config.hpp"

namespace wfod::config {

namespace detail {
class TableReader;
struct ReadContext;
}  // namespace detail

// What a SIGHUP reload does with a changed key (docs/operations.md "Signals and reload").
enum class Reload {
  live,     // applied in place at once
  restart,  // keeps its running value until a restart
  stream,   // a [[strategy]] key: the strategy's streams start over at once
};

template <class Struct>
struct Key {
  std::string_view name;
  Reload reload = Reload::restart;
  bool required = false;  // absent: "required key is missing" (else the member keeps its default)
  // Reads the present key from `t` into its member, or throws ConfigError at the value.
  std::function<void(detail::TableReader& t, Struct& s, const detail::ReadContext& ctx)> read;
  // Whether the member differs between two configurations; set on every live and restart
  // key, which plan_reload compares (a changed strategy is compared as a whole instead).
  std::function<bool(const Struct& a, const Struct& b)> differs;
};

template <class Struct>
using KeyTable = std::vector<Key<Struct>>;

// In the order the loader reads them (which decides which error a file with two gets).
const KeyTable<DaemonConfig>& daemon_keys();                 // [daemon]
const KeyTable<PublishConfig>& publish_keys();               // [publish]
const KeyTable<CurveConfig>& curve_keys();                   // [curve]
const KeyTable<FeedConfig>& feed_keys();                     // [[feed]]
const KeyTable<SymbolConfig>& symbol_keys();                 // [[symbol]]
const KeyTable<StrategyConfig>& strategy_keys();             // [[strategy]]
const KeyTable<selection::SelectionSpec>& selection_keys();  // [strategy.selection]
const KeyTable<rules::RulesText>& rules_keys();              // [strategy.rules] (SPEC §5a)

// One table's keys without their types, for checks of the example and the docs.
struct KeyInfo {
  std::string_view name;
  Reload reload;
  bool required;
};
struct TableInfo {
  std::string_view header;  // as the file writes it: "[daemon]", "[[feed]]", "[strategy.selection]"
  std::vector<KeyInfo> keys;
};
// Every table above, in that order.
std::vector<TableInfo> key_tables();

}  // namespace wfod::config
