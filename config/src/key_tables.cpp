// key_tables(): every key table reduced to names, reload classes and required flags, in
// one list, for the checks of the example file and the docs against them.
#include "wfod/config/config_keys.hpp"

namespace wfod::config {
namespace {

template <class Struct>
TableInfo info(std::string_view header, const KeyTable<Struct>& keys) {
  TableInfo table{header, {}};
  for (const Key<Struct>& k : keys) table.keys.push_back({k.name, k.reload, k.required});
  return table;
}

}  // namespace

std::vector<TableInfo> key_tables() {
  return {info("[daemon]", daemon_keys()),
          info("[publish]", publish_keys()),
          info("[curve]", curve_keys()),
          info("[[feed]]", feed_keys()),
          info("[[symbol]]", symbol_keys()),
          info("[[strategy]]", strategy_keys()),
          info("[strategy.selection]", selection_keys()),
          info("[strategy.rules]", rules_keys())};
}

}  // namespace wfod::config
