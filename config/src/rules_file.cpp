// A rules file (SPEC §5a's "file named on the command line"; `wfo --rules FILE`): one
// [[strategy]] table's keys written at the top level of their own file, so that a rule is
// read, compiled, checked and located exactly as in a config (read_strategy), without the
// daemon's tables around it.
#include <toml++/toml.h>

#include <filesystem>
#include <string>

#include "strategy_config.hpp"
#include "toml_file.hpp"
#include "toml_reader.hpp"
#include "wfod/config/config.hpp"

namespace wfod::config {
namespace {

// The strategy's name where the file gives none: its file name up to the first dot
// ("pullback" for pullback.rules.toml), in the names' alphabet.
std::string name_from(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  name = name.substr(0, name.find('.'));
  for (char& c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return name.empty() ? "rules" : name;
}

// The strategy reader names keys as a config's "strategy[0].grid.fast"; in a rules file
// the same key is "grid.fast".
std::string without_prefix(std::string text) {
  for (const std::string_view prefix : {"strategy[0].", "strategy[0]"}) {
    for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) {
      text.erase(at, prefix.size());
    }
  }
  return text;
}

}  // namespace

StrategyConfig load_rules_file(const std::string& path) {
  const std::string text = detail::read_file_text(path);

  toml::table root = detail::parse_toml(text, path);
  // Keys a daemon's strategy needs and a rules file does not: the symbols it runs on (the
  // bars come from --csv) and, by default, the family and the name. Added to the parsed
  // table itself so that every key the file writes keeps its line and column.
  if (const toml::node* symbols = root.get("symbols")) {
    detail::fail_at(path, symbols->source().begin, "symbols",
                    "a rules file takes no symbols (its bars come from --csv)");
  }
  // A strategy runs on at least one symbol: a stand-in the reader accepts, dropped below.
  root.insert("symbols", toml::array{"_"});
  if (!root.contains("family")) root.insert("family", "rules");
  if (!root.contains("name")) root.insert("name", name_from(path));
  try {
    StrategyConfig s = detail::read_strategy(root, 0, path, {});
    s.symbols.clear();
    return s;
  } catch (const ConfigError& e) {
    throw ConfigError(without_prefix(e.what()));
  }
}

}  // namespace wfod::config
