// [strategy.selection]: the key table of robust selection's keys (defaults are
// SelectionSpec's), range-checked where they are read so each error points at the offending
// value (docs/spec-10-selection.md), and the reading of one table through it.
#include "selection_config.hpp"

#include <algorithm>
#include <limits>

#include "key_rows.hpp"
#include "toml_reader.hpp"

namespace wfod::config::detail {

selection::SelectionSpec read_selection(const toml::table& table, const std::string& path,
                                        std::string_view source, const Grid& grid) {
  TableReader t(table, path, source, key_names(selection_keys()));
  selection::SelectionSpec s;
  read_keys(t, selection_keys(), s, ReadContext{nullptr, &grid});
  return s;
}

namespace {

// plateau_radius: one radius for every numeric axis, or a table of radii by axis name.
void read_plateau_radius(TableReader& t, selection::SelectionSpec& s, const ReadContext& ctx) {
  constexpr int64_t kMaxRadius = 1000;
  const toml::node* node = t.find("plateau_radius");
  if (!node->is_table()) {
    s.plateau_radius = static_cast<int>(*t.get_integer("plateau_radius", 0, kMaxRadius));
    return;
  }
  const std::vector<AxisInfo> axes = ctx.grid->axes();
  for (const auto& [key, value] : *node->as_table()) {
    const std::string name(key.str());
    const std::string full = t.key_path("plateau_radius") + "." + name;
    if (std::none_of(axes.begin(), axes.end(), [&](const AxisInfo& a) { return a.name == name; })) {
      t.fail_node(value, full, "the grid has no axis '" + name + "'");
    }
    if (!value.is_integer() || value.as_integer()->get() < 0 ||
        value.as_integer()->get() > kMaxRadius) {
      t.fail_node(value, full, "expected an integer radius in [0, 1000]");
    }
    s.plateau_radius_axes.emplace_back(name, static_cast<int>(value.as_integer()->get()));
  }
}

}  // namespace

}  // namespace wfod::config::detail

namespace wfod::config {

const KeyTable<selection::SelectionSpec>& selection_keys() {
  using S = selection::SelectionSpec;
  using detail::bool_key, detail::custom_key, detail::integer_key, detail::number_key,
      detail::parsed_key, detail::TableReader;
  constexpr Reload stream = Reload::stream;
  static const KeyTable<S> keys{
      number_key<S>(
          "hysteresis_abs", stream, [](auto& s) -> auto& { return s.hysteresis_abs; },
          [](double v) { return v >= 0; }, "must be >= 0"),
      number_key<S>(
          "hysteresis_rel", stream, [](auto& s) -> auto& { return s.hysteresis_rel; },
          [](double v) { return v >= 0; }, "must be >= 0"),
      bool_key<S>(
          "plateau", stream, [](auto& s) -> auto& { return s.plateau; }),
      custom_key<S>("plateau_radius", stream, detail::read_plateau_radius),
      parsed_key<S>(
          "plateau_stat", stream, [](auto& s) -> auto& { return s.plateau_stat; },
          selection::parse_plateau_stat),
      number_key<S>(
          "min_dsr", stream, [](auto& s) -> auto& { return s.min_dsr; },
          [](double v) { return v >= 0 && v <= 1; }, "must be in [0, 1]"),
      custom_key<S>("pbo_blocks", stream,
                    [](TableReader& t, S& s, const detail::ReadContext&) {
                      const int64_t v = *t.get_integer("pbo_blocks", 0, 20);
                      if (v == 1 || v % 2 != 0)
                        t.fail("pbo_blocks", "must be 0 (off) or even in 2..20");
                      s.pbo_blocks = static_cast<size_t>(v);
                    }),
      integer_key<S>(
          "pbo_max_combos", stream, [](auto& s) -> auto& { return s.pbo_max_combos; }, 2,
          std::numeric_limits<int64_t>::max()),
  };
  return keys;
}

}  // namespace wfod::config
