// [[strategy]] tables: the key table of every key of PROTOCOL §4 (its SPEC default is the
// member's), range-checked where it is read so that each error points at the offending
// value, and the reading of one table through it.
#include "strategy_config.hpp"

#include <algorithm>
#include <limits>

#include "grid_config.hpp"
#include "key_rows.hpp"
#include "rules_config.hpp"
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

std::string strategy_name(TableReader& t, std::string_view key, std::string name) {
  if (!valid_strategy_name(name)) {
    t.fail(key, "\"" + name + "\" is not a valid strategy name ([A-Za-z0-9_-]+)");
  }
  return name;
}

}  // namespace

}  // namespace wfod::config::detail

namespace wfod::config {

const KeyTable<StrategyConfig>& strategy_keys() {
  using S = StrategyConfig;
  using detail::custom_key, detail::integer_key, detail::number_key, detail::parsed_key,
      detail::ReadContext, detail::string_key, detail::TableReader;
  constexpr Reload stream = Reload::stream;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  static const KeyTable<S> keys{
      string_key<S>(
          "name", stream, [](auto& s) -> auto& { return s.name; }, detail::strategy_name,
          /*required=*/true),
      custom_key<S>(
          "symbols", stream,
          [](TableReader& t, S& s, const ReadContext& ctx) {
            s.symbols = detail::read_symbols(t, *ctx.symbols);
          },
          /*required=*/true),
      // Read into the grid, whose axes it decides (the grid key below).
      parsed_key<S>(
          "family", stream, [](auto& s) -> auto& { return s.spec.grid.family; }, parse_family,
          /*required=*/true),
      // Windows and schedule (SPEC §3, §8).
      integer_key<S>(
          "window", stream, [](auto& s) -> auto& { return s.window; }, 1, kMax,
          /*required=*/true),
      integer_key<S>(
          "warmup", stream, [](auto& s) -> auto& { return s.warmup; }, 0, kMax),
      integer_key<S>(
          "every", stream, [](auto& s) -> auto& { return s.every; }, 1, kMax),
      // Ranking (SPEC §7).
      parsed_key<S>(
          "objective", stream, [](auto& s) -> auto& { return s.rank.objective; }, parse_objective),
      integer_key<S>(
          "min_trades", stream, [](auto& s) -> auto& { return s.rank.min_trades; }, 0, kMax),
      number_key<S>(
          "max_drawdown", stream, [](auto& s) -> auto& { return s.rank.max_drawdown; },
          [](double v) { return v > 0; }, "must be > 0"),
      number_key<S>(
          "min_exposure", stream, [](auto& s) -> auto& { return s.rank.min_exposure; },
          [](double v) { return v >= 0 && v <= 1; }, "must be in [0, 1]"),
      integer_key<S>(
          "top", stream, [](auto& s) -> auto& { return s.rank.top; }, 1, kMax),
      // Trading (SPEC §2).
      number_key<S>(
          "cost_bps", stream, [](auto& s) -> auto& { return s.spec.costs.commission_bps; },
          [](double v) { return v >= 0; }, "must be >= 0"),
      number_key<S>(
          "slippage_bps", stream, [](auto& s) -> auto& { return s.spec.costs.slippage_bps; },
          [](double v) { return v >= 0; }, "must be >= 0"),
      parsed_key<S>(
          "fill", stream, [](auto& s) -> auto& { return s.spec.fill; }, parse_fill),
      // A rules strategy's text (SPEC §5a; rules_config.cpp), compiled before the grid, whose
      // axes its params name.
      custom_key<S>("rules", stream,
                    [](TableReader& t, S& s, const ReadContext&) {
                      if (s.spec.grid.family != Family::rules) {
                        t.fail("rules",
                               "[strategy.rules] is the text of a family = \"rules\" "
                               "strategy; this one's family is " +
                                   std::string(to_string(s.spec.grid.family)));
                      }
                      s.spec.grid.program = detail::read_rules(
                          *t.get_table("rules"), t.key_path("rules"), t.source(), s.name);
                    }),
      // The family's axes (grid_config.cpp): not in a key table, since they depend on it.
      custom_key<S>(
          "grid", stream,
          [](TableReader& t, S& s, const ReadContext&) {
            if (s.spec.grid.family == Family::rules && !s.spec.grid.program) {
              t.fail("rules",
                     "family = \"rules\" needs a [strategy.rules] table: its params, "
                     "indicators and conditions (SPEC §5a)");
            }
            s.spec.grid = detail::read_grid(*t.get_table("grid"), t.key_path("grid"), t.source(),
                                            s.spec.grid.family, s.spec.grid.program);
          },
          /*required=*/true),
      // Robust selection (docs/spec-10-selection.md); absent = the defaults (raw arg-max, PBO on).
      custom_key<S>("selection", stream,
                    [](TableReader& t, S& s, const ReadContext&) {
                      s.selection =
                          detail::read_selection(*t.get_table("selection"), t.key_path("selection"),
                                                 t.source(), s.spec.grid);
                      s.has_selection = true;
                    }),
  };
  return keys;
}

}  // namespace wfod::config

namespace wfod::config::detail {

StrategyConfig read_strategy(const toml::table& table, size_t index, std::string_view source,
                             const std::vector<std::string>& symbols) {
  TableReader t(table, "strategy[" + std::to_string(index) + "]", source,
                key_names(strategy_keys()));
  StrategyConfig s;
  read_keys(t, strategy_keys(), s, ReadContext{&symbols, nullptr});
  return s;
}

}  // namespace wfod::config::detail
