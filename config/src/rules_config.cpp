// [strategy.rules] (PROTOCOL §4, SPEC §5a): the key table of its keys, their reading into
// rules::RulesText (indicators in the order the file writes them), and its compiling, with
// each rules::RuleError placed at the file's line and column of the text it is about.
#include "rules_config.hpp"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "key_rows.hpp"
#include "toml_reader.hpp"

namespace wfod::config::detail {
namespace {

// params: an array of names, in the order that sets the grid's axes (SPEC §5a). It may be
// empty (a rule with fixed periods has no axis of its own); each element must be a string.
void read_params(TableReader& t, rules::RulesText& r, const ReadContext&) {
  const toml::node& node = *t.find("params");
  const toml::array* array = node.as_array();
  if (!array) t.fail("params", "expected an array of names, got " + std::string(type_name(node)));
  r.params.clear();
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    if (!element.is_string()) {
      t.fail_node(element, t.key_path("params") + "[" + std::to_string(i) + "]",
                  "expected a name, got " + std::string(type_name(element)));
    }
    r.params.push_back(element.as_string()->get());
  }
}

// The indicators table's entries in the order the file writes them (TOML++ iterates its
// tables by key): the compiler meets, and reports, the first one written first.
std::vector<std::pair<std::string, const toml::node*>> written_order(const toml::table& table) {
  std::vector<std::tuple<uint32_t, uint32_t, std::string, const toml::node*>> entries;
  for (auto&& [key, node] : table)
    entries.emplace_back(key.source().begin.line, key.source().begin.column, std::string(key.str()),
                         &node);
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<std::pair<std::string, const toml::node*>> out;
  for (auto& [line, column, name, node] : entries) out.emplace_back(std::move(name), node);
  return out;
}

// indicators: `{ f = "ema($fast)" }` or a [strategy.rules.indicators] table, NAME = "KIND(args)".
void read_indicators(TableReader& t, rules::RulesText& r, const ReadContext&) {
  const toml::table* table = t.get_table("indicators");
  r.indicators.clear();
  for (const auto& [name, node] : written_order(*table)) {
    if (!node->is_string()) {
      t.fail_node(*node, t.key_path("indicators") + "." + name,
                  "expected a string like \"ema($fast)\", got " + std::string(type_name(*node)));
    }
    r.indicators.emplace_back(name, node->as_string()->get());
  }
}

template <class Field>
Key<rules::RulesText> text_key(std::string_view name, Field field) {
  return string_key<rules::RulesText>(
      name, Reload::stream, field,
      [](TableReader&, std::string_view, std::string text) { return text; });
}

[[noreturn]] void fail_rule(std::string_view source, const toml::source_position& where,
                            std::string_view strategy, std::string_view what) {
  const auto line = where.line == 0 ? 1u : where.line;
  const auto column = where.column == 0 ? 1u : where.column;
  throw ConfigError(std::string(source) + ":" + std::to_string(line) + ":" +
                    std::to_string(column) + ": strategy \"" + std::string(strategy) +
                    "\": " + std::string(what));
}

// The index of the first entry of `names` (params or indicators) whose addition to `prefix`
// makes the compiler throw: the entry an error without a column (column 1 of "rules.params"
// or "rules.indicators") is about.
template <class Add>
size_t first_failing(size_t count, Add add) {
  rules::RulesText prefix;
  for (size_t i = 0; i < count; ++i) {
    add(prefix, i);
    try {
      (void)rules::compile(prefix);
    } catch (const rules::RuleError&) {
      return i;
    }
  }
  return count == 0 ? 0 : count - 1;
}

// Places a compile error of the table `table` (read into `text`) in the file.
[[noreturn]] void place(const rules::RuleError& e, const toml::table& table,
                        const rules::RulesText& text, std::string_view source,
                        std::string_view strategy) {
  const std::string& key = e.key();
  const std::string_view indicators_prefix = "rules.indicators.";
  if (key == "rules.params") {
    const toml::array& params = *table.get("params")->as_array();
    const size_t i = first_failing(text.params.size(), [&](rules::RulesText& r, size_t k) {
      r.params.push_back(text.params[k]);
    });
    const toml::node& at = params.empty() ? *table.get("params") : *params.get(i);
    fail_rule(source, at.source().begin, strategy,
              "rules.params[" + std::to_string(i) + "]: " + e.message());
  }
  if (key == "rules.indicators") {  // a name, or their number
    const auto entries = written_order(*table.get("indicators")->as_table());
    const size_t i = first_failing(entries.size(), [&](rules::RulesText& r, size_t k) {
      if (k == 0) r.params = text.params;
      r.indicators.push_back(text.indicators[k]);
    });
    const toml::key* name = nullptr;
    for (auto&& [k, node] : *table.get("indicators")->as_table())
      if (entries.size() > i && k.str() == entries[i].first) name = &k;
    fail_rule(source, name ? name->source().begin : table.source().begin, strategy,
              "rules.indicators: " + e.message());
  }
  const toml::node* node = nullptr;
  if (key.rfind(indicators_prefix, 0) == 0) {
    if (const toml::table* inds = table.get("indicators")->as_table())
      node = inds->get(std::string_view(key).substr(indicators_prefix.size()));
  } else if (key.rfind("rules.", 0) == 0) {
    node = table.get(std::string_view(key).substr(6));
  }
  const toml::source_position where =
      node ? rule_text_position(*node, e.column()) : table.source().begin;
  fail_rule(source, where, strategy, e.what());
}

}  // namespace

toml::source_position rule_text_position(const toml::node& node, size_t column) {
  const toml::source_region& at = node.source();
  toml::source_position where = at.begin;
  if (!node.is_string()) return where;
  const size_t size = node.as_string()->get().size();
  const bool plain = at.begin.line == at.end.line && at.end.column > at.begin.column &&
                     at.end.column - at.begin.column == size + 2;
  if (plain && column >= 1 && column <= size + 1)
    where.column = static_cast<toml::source_index>(at.begin.column + column);
  return where;
}

std::shared_ptr<const rules::Program> read_rules(const toml::table& table, const std::string& path,
                                                 std::string_view source,
                                                 std::string_view strategy) {
  TableReader t(table, path, source, key_names(rules_keys()));
  rules::RulesText text;
  read_keys(t, rules_keys(), text);
  try {
    return std::make_shared<const rules::Program>(rules::compile(text));
  } catch (const rules::RuleError& e) {
    place(e, table, text, source, strategy);
  }
}

}  // namespace wfod::config::detail

namespace wfod::config {

const KeyTable<rules::RulesText>& rules_keys() {
  using R = rules::RulesText;
  using detail::custom_key, detail::text_key;
  constexpr Reload stream = Reload::stream;
  static const KeyTable<R> keys{
      custom_key<R>("params", stream, detail::read_params, /*required=*/true),
      text_key(
          "valid", [](auto& r) -> auto& { return r.valid; }),
      custom_key<R>("indicators", stream, detail::read_indicators),
      text_key(
          "long_entry", [](auto& r) -> auto& { return r.long_entry; }),
      text_key(
          "long_exit", [](auto& r) -> auto& { return r.long_exit; }),
      text_key(
          "short_entry", [](auto& r) -> auto& { return r.short_entry; }),
      text_key(
          "short_exit", [](auto& r) -> auto& { return r.short_exit; }),
  };
  return keys;
}

}  // namespace wfod::config
