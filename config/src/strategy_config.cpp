// [[strategy]] tables: every key of PROTOCOL §4 with its SPEC default, range-checked where it
// is read so that each error points at the offending value.
#include "strategy_config.hpp"

#include <algorithm>
#include <limits>

#include "grid_config.hpp"
#include "selection_config.hpp"
#include "toml_reader.hpp"
#include "wfod/ranking.hpp"

namespace wfod::config::detail {
namespace {

bool valid_strategy_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

// Reads strategy.symbols, keeping the nodes so that a bad name is reported where it is.
std::vector<std::string> read_symbols(TableReader& t, const std::vector<std::string>& known) {
  const std::optional<std::vector<std::string>> names = t.get_string_list("symbols");
  if (!names) t.fail_missing("symbols");
  const toml::array& nodes = *t.find("symbols")->as_array();
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    const std::string key = t.key_path("symbols") + "[" + std::to_string(i) + "]";
    if (std::find(names->begin(), names->begin() + static_cast<std::ptrdiff_t>(i), name) !=
        names->begin() + static_cast<std::ptrdiff_t>(i)) {
      t.fail_node(*nodes.get(i), key, "symbol '" + name + "' is listed twice");
    }
    if (!known.empty() && std::find(known.begin(), known.end(), name) == known.end()) {
      t.fail_node(*nodes.get(i), key,
                  "unknown symbol '" + name + "' (no [[symbol]] has that name)");
    }
  }
  return *names;
}

double non_negative(TableReader& t, std::string_view key, double value) {
  if (value < 0) t.fail(key, "must be >= 0");
  return value;
}

}  // namespace

StrategyConfig read_strategy(const toml::table& table, size_t index, std::string_view source,
                             const std::vector<std::string>& symbols) {
  TableReader t(table, "strategy[" + std::to_string(index) + "]", source,
                {"name", "symbols", "family", "window", "warmup", "every", "objective",
                 "min_trades", "max_drawdown", "min_exposure", "cost_bps", "slippage_bps", "fill",
                 "top", "grid", "selection"});
  StrategyConfig s;
  const std::optional<std::string> name = t.get_string("name");
  if (!name) t.fail_missing("name");
  if (!valid_strategy_name(*name)) {
    t.fail("name", "\"" + *name + "\" is not a valid strategy name ([A-Za-z0-9_-]+)");
  }
  s.name = *name;
  s.symbols = read_symbols(t, symbols);

  const std::optional<Family> family = t.get_parsed("family", parse_family);
  if (!family) t.fail_missing("family");

  // Windows and schedule (SPEC §3, §8).
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::optional<int64_t> window = t.get_integer("window", 1, kMax);
  if (!window) t.fail_missing("window");
  s.window = static_cast<size_t>(*window);
  if (const auto warmup = t.get_integer("warmup", 0, kMax)) s.warmup = static_cast<size_t>(*warmup);
  if (const auto every = t.get_integer("every", 1, kMax)) s.every = static_cast<size_t>(*every);

  // Ranking (SPEC §7).
  if (const auto objective = t.get_parsed("objective", parse_objective)) {
    s.rank.objective = *objective;
  }
  if (const auto min_trades = t.get_integer("min_trades", 0, kMax)) s.rank.min_trades = *min_trades;
  if (const auto max_drawdown = t.get_number("max_drawdown")) {
    if (!(*max_drawdown > 0)) t.fail("max_drawdown", "must be > 0");
    s.rank.max_drawdown = *max_drawdown;
  }
  if (const auto min_exposure = t.get_number("min_exposure")) {
    if (*min_exposure < 0 || *min_exposure > 1) t.fail("min_exposure", "must be in [0, 1]");
    s.rank.min_exposure = *min_exposure;
  }
  if (const auto top = t.get_integer("top", 1, kMax)) s.rank.top = static_cast<size_t>(*top);

  // Trading (SPEC §2).
  if (const auto cost = t.get_number("cost_bps")) {
    s.spec.costs.commission_bps = non_negative(t, "cost_bps", *cost);
  }
  if (const auto slippage = t.get_number("slippage_bps")) {
    s.spec.costs.slippage_bps = non_negative(t, "slippage_bps", *slippage);
  }
  if (const auto fill = t.get_parsed("fill", parse_fill)) s.spec.fill = *fill;

  const toml::table* grid = t.get_table("grid");
  if (!grid) t.fail_missing("grid");
  s.spec.grid = read_grid(*grid, t.key_path("grid"), source, *family);

  // Robust selection (docs/spec-10-selection.md); absent = the defaults (raw arg-max, PBO on).
  if (const toml::table* sel = t.get_table("selection")) {
    s.selection = read_selection(*sel, t.key_path("selection"), source, s.spec.grid);
    s.has_selection = true;
  }
  return s;
}

}  // namespace wfod::config::detail
