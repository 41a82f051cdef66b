// [strategy.selection]: every key of robust selection with its default, range-checked where
// it is read so each error points at the offending value (docs/spec-10-selection.md).
#include "selection_config.hpp"

#include <algorithm>
#include <limits>

#include "toml_reader.hpp"

namespace wfod::config::detail {

selection::SelectionSpec read_selection(const toml::table& table, const std::string& path,
                                        std::string_view source, const Grid& grid) {
  TableReader t(table, path, source,
                {"hysteresis_abs", "hysteresis_rel", "plateau", "plateau_radius", "plateau_stat",
                 "min_dsr", "pbo_blocks", "pbo_max_combos"});
  selection::SelectionSpec s;
  if (const auto v = t.get_number("hysteresis_abs")) {
    if (*v < 0) t.fail("hysteresis_abs", "must be >= 0");
    s.hysteresis_abs = *v;
  }
  if (const auto v = t.get_number("hysteresis_rel")) {
    if (*v < 0) t.fail("hysteresis_rel", "must be >= 0");
    s.hysteresis_rel = *v;
  }
  if (const auto v = t.get_bool("plateau")) s.plateau = *v;
  // plateau_radius: one radius for every numeric axis, or a table of radii by axis name.
  if (const toml::node* node = t.find("plateau_radius")) {
    constexpr int64_t kMaxRadius = 1000;
    if (node->is_table()) {
      const std::vector<AxisInfo> axes = grid.axes();
      for (const auto& [key, value] : *node->as_table()) {
        const std::string name(key.str());
        const std::string full = t.key_path("plateau_radius") + "." + name;
        if (std::none_of(axes.begin(), axes.end(),
                         [&](const AxisInfo& a) { return a.name == name; })) {
          t.fail_node(value, full, "the grid has no axis '" + name + "'");
        }
        if (!value.is_integer() || value.as_integer()->get() < 0 ||
            value.as_integer()->get() > kMaxRadius) {
          t.fail_node(value, full, "expected an integer radius in [0, 1000]");
        }
        s.plateau_radius_axes.emplace_back(name, static_cast<int>(value.as_integer()->get()));
      }
    } else {
      s.plateau_radius = static_cast<int>(*t.get_integer("plateau_radius", 0, kMaxRadius));
    }
  }
  if (const auto v = t.get_parsed("plateau_stat", selection::parse_plateau_stat)) {
    s.plateau_stat = *v;
  }
  if (const auto v = t.get_number("min_dsr")) {
    if (*v < 0 || *v > 1) t.fail("min_dsr", "must be in [0, 1]");
    s.min_dsr = *v;
  }
  if (const auto v = t.get_integer("pbo_blocks", 0, 20)) {
    if (*v == 1 || *v % 2 != 0) t.fail("pbo_blocks", "must be 0 (off) or even in 2..20");
    s.pbo_blocks = static_cast<size_t>(*v);
  }
  if (const auto v = t.get_integer("pbo_max_combos", 2, std::numeric_limits<int64_t>::max())) {
    s.pbo_max_combos = static_cast<size_t>(*v);
  }
  return s;
}

}  // namespace wfod::config::detail
