// [strategy.grid] axes. Each key is a scalar, an array, or a string ("start:stop:step" or
// "a,b,c") handed to the engine's own axis parsers, so the config file and the `wfo` command
// line mean exactly the same grid. A rules strategy's axes are its params (SPEC §5a).
#include "grid_config.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>

namespace wfod::config::detail {
namespace {

constexpr std::array<std::string_view, 5> kMaCrossKeys = {"fast", "slow", "ma", "side", "entry"};
constexpr std::array<std::string_view, 3> kBreakoutKeys = {"n", "source", "side"};
constexpr std::array<std::string_view, 4> kBollingerKeys = {"n", "k", "style", "side"};
constexpr std::array<std::string_view, 4> kRsiKeys = {"n", "lo", "hi", "side"};
constexpr Family kFamilies[] = {Family::ma_cross, Family::channel_breakout, Family::bollinger,
                                Family::rsi_reversion};
constexpr std::array<std::string_view, 3> kVolKeys = {"vol_short", "vol_long", "vol_threshold"};
// SPEC §5b: every family's optional stops, each on its own (absent = off).
constexpr std::array<std::string_view, 3> kStopKeys = {"stop_loss", "take_profit", "trailing_stop"};

std::string element_key(const TableReader& grid, std::string_view key, size_t i) {
  return grid.key_path(key) + "[" + std::to_string(i) + "]";
}

// The array at `key`; an empty one is an error (an axis needs at least one value).
const toml::array& non_empty_array(const TableReader& grid, std::string_view key,
                                   const toml::node& node) {
  const toml::array& array = *node.as_array();
  if (array.empty()) grid.fail(key, "must not be empty");
  return array;
}

int to_period(const TableReader& grid, const toml::node& node, const std::string& full_key) {
  const int64_t v = node.as_integer()->get();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    grid.fail_node(node, full_key, "integer out of range (" + std::to_string(v) + ")");
  }
  return static_cast<int>(v);
}

std::vector<int> read_int_axis(const TableReader& grid, std::string_view key,
                               const toml::node& node) {
  if (node.is_integer()) return {to_period(grid, node, grid.key_path(key))};
  if (node.is_string()) {
    try {
      return parse_int_axis(node.as_string()->get());
    } catch (const std::invalid_argument& e) {
      grid.fail(key, e.what());
    }
  }
  if (node.is_array()) {
    const toml::array& array = non_empty_array(grid, key, node);
    std::vector<int> values;
    for (size_t i = 0; i < array.size(); ++i) {
      const toml::node& element = *array.get(i);
      if (!element.is_integer()) {
        grid.fail_node(element, element_key(grid, key, i),
                       "expected an integer, got " + std::string(type_name(element)));
      }
      values.push_back(to_period(grid, element, element_key(grid, key, i)));
    }
    return values;
  }
  grid.fail(key, "expected an integer, an array of integers or a string like \"5:50:5\", got " +
                     std::string(type_name(node)));
}

double to_real(const TableReader& grid, const toml::node& node, const std::string& full_key) {
  if (node.is_integer()) return static_cast<double>(node.as_integer()->get());
  if (node.is_floating_point()) {
    const double v = node.as_floating_point()->get();
    if (!std::isfinite(v)) grid.fail_node(node, full_key, "must be a finite number");
    return v;
  }
  grid.fail_node(node, full_key, "expected a number, got " + std::string(type_name(node)));
}

std::vector<double> read_real_axis(const TableReader& grid, std::string_view key,
                                   const toml::node& node) {
  if (node.is_integer() || node.is_floating_point()) {
    return {to_real(grid, node, grid.key_path(key))};
  }
  if (node.is_string()) {
    try {
      return parse_real_axis(node.as_string()->get());
    } catch (const std::invalid_argument& e) {
      grid.fail(key, e.what());
    }
  }
  if (node.is_array()) {
    const toml::array& array = non_empty_array(grid, key, node);
    std::vector<double> values;
    for (size_t i = 0; i < array.size(); ++i) {
      values.push_back(to_real(grid, *array.get(i), element_key(grid, key, i)));
    }
    return values;
  }
  grid.fail(key, "expected a number, an array of numbers or a string like \"0.8:1.2:0.2\", got " +
                     std::string(type_name(node)));
}

// Enum axis: "sma", "sma,ema" or ["sma", "ema"], each name passed to `parse`.
template <class Parse>
auto read_enum_axis(const TableReader& grid, std::string_view key, const toml::node& node,
                    Parse parse) -> std::vector<decltype(parse(""))> {
  std::vector<decltype(parse(""))> values;
  const auto add = [&](std::string_view name, const toml::node& where, const std::string& full) {
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    try {
      values.push_back(parse(name));
    } catch (const std::invalid_argument& e) {
      grid.fail_node(where, full, e.what());
    }
  };
  if (node.is_string()) {
    const std::string& text = node.as_string()->get();
    size_t start = 0;
    for (;;) {
      const size_t comma = text.find(',', start);
      add(std::string_view(text).substr(start, comma == std::string::npos ? comma : comma - start),
          node, grid.key_path(key));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return values;
  }
  if (node.is_array()) {
    const toml::array& array = non_empty_array(grid, key, node);
    for (size_t i = 0; i < array.size(); ++i) {
      const toml::node& element = *array.get(i);
      if (!element.is_string()) {
        grid.fail_node(element, element_key(grid, key, i),
                       "expected a string, got " + std::string(type_name(element)));
      }
      add(element.as_string()->get(), element, element_key(grid, key, i));
    }
    return values;
  }
  grid.fail(key, "expected a string or an array of strings, got " + std::string(type_name(node)));
}

bool contains(std::span<const std::string_view> keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::span<const std::string_view> family_keys(Family family) {
  switch (family) {
    case Family::ma_cross:
      return kMaCrossKeys;
    case Family::channel_breakout:
      return kBreakoutKeys;
    case Family::bollinger:
      return kBollingerKeys;
    case Family::rsi_reversion:
      return kRsiKeys;
    case Family::rules:  // its params (read_rules_axes)
      return {};
  }
  return kMaCrossKeys;
}

// A key that belongs to the other family gets a message saying so: a likelier mistake than a
// typo, with a different fix.
void reject_other_family(const toml::table& table, const std::string& path, std::string_view source,
                         Family family) {
  for (const Family other : kFamilies) {
    for (const std::string_view key : family_keys(other)) {
      const toml::node* node = table.get(key);
      if (node && !contains(family_keys(family), key)) {
        fail_at(source, node->source().begin, path + "." + std::string(key),
                "not a parameter of family " + std::string(to_string(family)) + " (it belongs to " +
                    std::string(to_string(other)) + ")");
      }
    }
  }
}

std::string joined_params(const std::vector<std::string>& params) {
  std::string out;
  for (const std::string& p : params) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "none" : out;
}

// A rules grid's keys (SPEC §5a): one axis per param and the axes of every family; anything
// else is named, at the first such key the file writes, as not one of the strategy's params
// (a built-in family's key is a likely slip, said so).
void reject_non_params(const toml::table& table, const std::string& path, std::string_view source,
                       const rules::Program& program) {
  const toml::key* first = nullptr;
  for (auto&& [key, node] : table) {
    const std::string_view name = key.str();
    if (std::find(program.params.begin(), program.params.end(), name) != program.params.end() ||
        contains(kStopKeys, name) || contains(kVolKeys, name))
      continue;
    const auto& at = key.source().begin;
    if (!first || std::tie(at.line, at.column) <
                      std::tie(first->source().begin.line, first->source().begin.column))
      first = &key;
  }
  if (!first) return;
  const std::string_view name = first->str();
  std::string why = "not in rules.params (" + joined_params(program.params) +
                    "): a rules grid takes one axis per param, the stops and the vol filter";
  for (const Family other : kFamilies) {
    if (contains(family_keys(other), name)) {
      why += " ('" + std::string(name) + "' is a parameter of the built-in families)";
      break;
    }
  }
  fail_at(source, first->source().begin, path + "." + std::string(name), why);
}

// The params' axes, numbers only (scalar, list or "start:stop:step", decimal-exact like k),
// each required, in the order of params.
void read_rules_axes(const TableReader& grid, const toml::table& table, Grid& g) {
  for (const std::string& name : g.program->params) {
    const toml::node* node = grid.find(name);
    if (!node) {
      fail_at(grid.source(), table.source().begin, grid.key_path(name),
              "rules.params lists '" + name +
                  "' but the grid gives it no axis (a number, a list or \"start:stop:step\")");
    }
    g.rule_axes.push_back(read_real_axis(grid, name, *node));
  }
  // A value no indicator can take as its period or width: the grid is an error (SPEC §5a).
  if (auto e = rules_argument_error(g)) {
    grid.fail(g.program->params[e->axis],
              std::string(e->error.what()) +
                  " (SPEC §5a: every value of an axis must be a period or width its indicators "
                  "can take)");
  }
}

}  // namespace

Grid read_grid(const toml::table& table, std::string path, std::string_view source, Family family,
               std::shared_ptr<const rules::Program> program) {
  if (family == Family::rules) {
    reject_non_params(table, path, source, *program);
  } else {
    reject_other_family(table, path, source, family);
  }
  std::vector<std::string_view> allowed(family_keys(family).begin(), family_keys(family).end());
  if (program) allowed.insert(allowed.end(), program->params.begin(), program->params.end());
  allowed.insert(allowed.end(), kStopKeys.begin(), kStopKeys.end());
  allowed.insert(allowed.end(), kVolKeys.begin(), kVolKeys.end());
  TableReader grid(table, std::move(path), source, std::move(allowed));
  Grid g;
  g.family = family;
  const auto required = [&](std::string_view key) -> const toml::node& {
    const toml::node* node = grid.find(key);
    if (!node) grid.fail_missing(key);
    return *node;
  };
  if (family == Family::rules) {
    g.program = std::move(program);
    read_rules_axes(grid, table, g);
  } else if (family == Family::ma_cross) {
    g.fast = read_int_axis(grid, "fast", required("fast"));
    g.slow = read_int_axis(grid, "slow", required("slow"));
    if (const toml::node* node = grid.find("ma"))
      g.ma = read_enum_axis(grid, "ma", *node, parse_ma);
    if (const toml::node* node = grid.find("entry")) {
      g.entry = read_enum_axis(grid, "entry", *node, parse_entry);
    }
  } else if (family != Family::rules) {
    g.n = read_int_axis(grid, "n", required("n"));
  }
  if (family == Family::channel_breakout) {
    if (const toml::node* node = grid.find("source")) {
      g.source = read_enum_axis(grid, "source", *node, parse_source);
    }
  }
  if (family == Family::bollinger) {
    g.k = read_real_axis(grid, "k", required("k"));
    if (const toml::node* node = grid.find("style")) {
      g.style = read_enum_axis(grid, "style", *node, parse_style);
    }
  }
  if (family == Family::rsi_reversion) {
    g.lo = read_real_axis(grid, "lo", required("lo"));
    g.hi = read_real_axis(grid, "hi", required("hi"));
  }
  if (const toml::node* node = family != Family::rules ? grid.find("side") : nullptr) {
    g.side = read_enum_axis(grid, "side", *node, parse_side);
  }

  // Stops: decimal axes like k; a value out of its range is a skipped combo (SPEC §5b), not an
  // error, so only the axis text's own errors are reported here, at the key.
  if (const toml::node* node = grid.find("stop_loss"))
    g.stop_loss = read_real_axis(grid, "stop_loss", *node);
  if (const toml::node* node = grid.find("take_profit"))
    g.take_profit = read_real_axis(grid, "take_profit", *node);
  if (const toml::node* node = grid.find("trailing_stop"))
    g.trailing_stop = read_real_axis(grid, "trailing_stop", *node);

  // The filter is one unit: a partial one is a mistake, not "no filter".
  const size_t vol_given = static_cast<size_t>(
      std::count_if(kVolKeys.begin(), kVolKeys.end(), [&](auto k) { return grid.has(k); }));
  if (vol_given != 0 && vol_given != kVolKeys.size()) {
    std::string missing;
    for (const std::string_view key : kVolKeys) {
      if (!grid.has(key)) missing += (missing.empty() ? "" : ", ") + std::string(key);
    }
    grid.fail_table(
        "the vol filter needs vol_short, vol_long and vol_threshold together (missing " + missing +
        ")");
  }
  if (vol_given != 0) {
    g.vol_short = read_int_axis(grid, "vol_short", required("vol_short"));
    g.vol_long = read_int_axis(grid, "vol_long", required("vol_long"));
    g.vol_threshold = read_real_axis(grid, "vol_threshold", required("vol_threshold"));
  }

  // A repeated value is reported at its key (Grid::validate would name only the table).
  if (auto r = g.repeated_value()) grid.fail(r->axis, r->message());
  try {
    g.validate();
  } catch (const std::invalid_argument& e) {
    grid.fail_table(e.what());
  }
  return g;
}

}  // namespace wfod::config::detail
